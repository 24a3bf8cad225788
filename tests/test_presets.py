"""Presets named after a source are that source's model (issue 25).

`--dcqcnPreset=hpcc-sim` is the HPCC simulator's DCQCN (alibaba-edu/High-Precision-Congestion-
Control, rdma-hw.cc CC_MODE 1 with its run.py settings): the receiver ACKs every data packet
(L2_ACK_INTERVAL 1) and echoes CE on the ACK instead of sending CNP packets, and the switches mark
with the peer's per-speed maps (K_min/K_max = 400/1600 KB at 100 Gb/s, P_max = 0.2). The sender's
rules (4 us decrease grid, alpha timer, stages, no byte counter) are checked one by one by the
Rust tests in rust/dcqcn; the rule table is in ns3-module/doc/rdma-cc.rst, "Presets"."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, run_example, summary  # noqa: E402

HPCC_SIM = ("--cc=dcqcn", "--dcqcnPreset=hpcc-sim")


def config(out):
    with open(os.path.join(out, "config.json")) as f:
        return json.load(f)


class DcqcnHpccSim(ExampleTest):
    def test_the_receiver_acks_every_data_packet_and_sends_no_cnp(self):
        _, out = run_example("ldcp-incast", *HPCC_SIM)
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual((s["drops_total"], s["retx_bytes"]), (0, 0), s)
        self.assertGreater(s["marks"], 0, s)  # the ECN echo has something to carry
        # one switch: every ACK, NACK and CNP crosses it once; no loss, so no NACK; with an
        # ACK per data packet and no CNP packets, the control frames are the data packets
        self.assertEqual(s["control_frames"], s["data_packets_sent"], s)
        # the paper's preset coalesces: CNPs per 50 us and an ACK per 64 KiB
        _, paper = run_example("ldcp-incast", "--cc=dcqcn", "--dcqcnPreset=paper")
        p = summary(paper)
        self.assertLess(p["control_frames"], p["data_packets_sent"] / 10, p)

    def test_config_json_records_the_preset_and_its_marking(self):
        _, out = run_example("ldcp-incast", *HPCC_SIM)
        c = config(out)
        self.assertEqual(c["options"]["dcqcnPreset"], "hpcc-sim")
        self.assertEqual(c["attributes"]["ns3::RdmaNic"]["DcqcnPreset"], "hpcc-sim")
        # the receiver policy is the preset's: nothing given, so auto (ACK per packet)
        self.assertEqual(c["options"]["ackInterval"], "auto")
        self.assertEqual(c["options"]["cnpInterval"], "auto")
        self.assertEqual(c["options"]["ackEvery"], "1")
        r = c["resolved"]
        self.assertEqual(r["rate_bps"], 100 * 10**9)
        # run.py: KMIN_MAP 100 KB x bw/25, KMAX_MAP 400 KB x bw/25, PMAX_MAP 0.2
        self.assertEqual((r["k_min_bytes"], r["k_max_bytes"], r["p_max"]), (400000, 1600000, 0.2))
        _, out25 = run_example("ldcp-incast", *HPCC_SIM, "--rate=25Gbps", "--senders=4")
        r = config(out25)["resolved"]
        self.assertEqual((r["k_min_bytes"], r["k_max_bytes"], r["p_max"]), (100000, 400000, 0.2))

    def test_an_explicit_receiver_option_wins_and_is_recorded(self):
        _, out = run_example("ldcp-incast", *HPCC_SIM, "--ackInterval=65536")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertLess(s["control_frames"], s["data_packets_sent"] / 10, s)
        self.assertEqual(config(out)["options"]["ackInterval"], "65536")


if __name__ == "__main__":
    unittest.main()
