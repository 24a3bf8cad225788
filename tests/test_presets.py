"""Presets named after a source are that source's model (issue 25).

`--dcqcnPreset=hpcc-sim` is the HPCC simulator's DCQCN (alibaba-edu/High-Precision-Congestion-
Control, rdma-hw.cc CC_MODE 1 with its run.py settings): the receiver ACKs every data packet
(L2_ACK_INTERVAL 1) and echoes CE on the ACK instead of sending CNP packets, and the switches mark
with the peer's per-speed maps (K_min/K_max = 400/1600 KB at 100 Gb/s, P_max = 0.2). The sender's
rules (4 us decrease grid, alpha timer, stages, no byte counter) are checked one by one by the
Rust tests in rust/dcqcn; the rule table is in ns3-module/doc/rdma-cc.rst, "Presets".

The TIMELY, DCTCP and HPCC presets named `hpcc-sim` (their defaults) are the simulator's CC_MODE
7, 8 and 3: an ACK per data packet, no CNP packets (rdma-hw.cc:311,455-459). DCTCP's adds 615
Mb/s per window at every speed (run.py:127) and keeps one packet beyond R x base RTT in flight
(rdma-queue-pair.cc:120-123); its F and HPCC's record units are checked by the Rust tests
(rust/dctcp, rust/hpcc). Every hpcc-sim flow takes the fabric's largest base RTT for its window
and HPCC's T (third.cc:138, GLOBAL_T 1); duplicates and NACKs follow rdma-hw.cc:313-320,416-434,
476-478 (Rust tests in rust/transport and rust/schemes: they only matter after a loss)."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_csv, run_example, summary  # noqa: E402

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


class PeersHpccSim(ExampleTest):
    def test_timely_dctcp_and_hpcc_ack_every_data_packet_and_send_no_cnp(self):
        # rdma-hw.cc:311,455-459 with run.py:33 L2_ACK_INTERVAL 1, whatever CC_MODE; one switch,
        # lossless: every control frame is an ACK, one per data packet
        for cc in ("timely", "dctcp", "hpcc"):
            _, out = run_example("ldcp-incast", "--cc=" + cc, "--senders=4")
            s = summary(out)
            self.assertEqual(s["invariants"], "ok", (cc, s))
            self.assertEqual((s["drops_total"], s["retx_bytes"]), (0, 0), (cc, s))
            self.assertEqual(s["control_frames"], s["data_packets_sent"], (cc, s))
            self.assertEqual(config(out)["resolved"]["preset"], "hpcc-sim", cc)

    def test_dctcp_adds_615_mbps_per_window_at_any_speed_and_paper_one_mtu_per_rtt(self):
        # run.py:127 DCTCP_RATE_AI 615Mb/s at every speed (rdma-hw.cc:1047-1049): every rise
        # of a flow's rate below line rate is 615 Mb/s; paper: one MTU per base RTT
        for rate in ("25Gbps", "100Gbps"):
            for preset in ("hpcc-sim", "paper"):
                _, out = run_example(
                    "ldcp-incast", "--cc=dctcp", "--dctcpPreset=" + preset, "--rate=" + rate,
                    "--senders=16", "--size=400000", "--flowTrace=1",
                )
                s = summary(out)
                self.assertEqual(s["invariants"], "ok", s)
                line = config(out)["resolved"]["rate_bps"]
                step = 615_000_000
                if preset == "paper":
                    step = round(1000 * 8e9 / s["base_rtt_ns"])
                prev, rises = {}, []
                for r in read_csv(out, "flows.csv"):
                    f, bps = r["flow_id"], int(r["rate_bps"])
                    if f in prev and prev[f] < bps < line:
                        rises.append(bps - prev[f])
                    prev[f] = bps
                self.assertGreater(len(rises), 3, (rate, preset))
                for d in rises:
                    self.assertLessEqual(abs(d - step), 1, (rate, preset, d, step))

    def test_dctcp_window_is_one_packet_beyond_rate_times_base_rtt(self):
        # rdma-queue-pair.cc:120-123: the peer sends while the bytes in flight are below its
        # window, so one packet more than R x T is in flight; paper: R x T, at least 1
        for preset in ("hpcc-sim", "paper"):
            _, out = run_example(
                "ldcp-incast", "--cc=dctcp", "--dctcpPreset=" + preset, "--senders=4",
                "--flowTrace=1",
            )
            s = summary(out)
            rows = read_csv(out, "flows.csv")
            self.assertGreater(len(rows), 10, preset)
            for r in rows:
                w = int(r["rate_bps"]) * s["base_rtt_ns"] / 8e9 / 1000
                want = w + 1.0 if preset == "hpcc-sim" else max(w, 1.0)
                self.assertAlmostEqual(float(r["cw"]), want, places=3, msg=(preset, r))

    def test_windows_use_the_fabrics_largest_base_rtt_under_hpcc_sim(self):
        # third.cc:138 (GLOBAL_T 1, run.py:37): every flow's window is maxBdp, its T maxRtt.
        # ldcp-chain: flow A (host 0 -> 4) crosses 3 switches, B and C 2, and hosts 0 -> 4 is
        # the fabric's longest path. hpcc-sim: every flow's window is R x T_A + 1 packet;
        # paper: each flow's own T (B's and C's below A's), + 1 packet for HPCC, not DCTCP
        for cc in ("dctcp", "hpcc"):
            t = {}
            for preset in ("hpcc-sim", "paper"):
                _, out = run_example(
                    "ldcp-chain", "--cc=" + cc, "--%sPreset=%s" % (cc, preset),
                    "--duration=300us", "--flowTrace=1",
                )
                self.assertEqual(summary(out)["invariants"], "ok", (cc, preset))
                extra = 1.0 if preset == "hpcc-sim" or cc == "hpcc" else 0.0
                per_flow = {}
                for r in read_csv(out, "flows.csv"):
                    bps, cw = int(r["rate_bps"]), float(r["cw"])
                    if bps > 0 and cw > 1.5:
                        # cw = R x T / (1000 B) (+ 1): T in ns
                        per_flow.setdefault(r["flow_id"], []).append(
                            (cw - extra) * 8e12 / bps)
                self.assertEqual(len(per_flow), 3, (cc, preset))
                t[preset] = {f: (min(v), max(v)) for f, v in per_flow.items()}
            # the smallest T seen per flow is its base RTT (larger ones: HPCC's window lagging
            # a rate change under preset paper)
            longest = t["paper"]["0"][0]
            self.assertLess(t["paper"]["1"][0], longest * 0.9, t)
            self.assertLess(t["paper"]["2"][0], longest * 0.9, t)
            for f, (lo, hi) in t["hpcc-sim"].items():
                self.assertAlmostEqual(lo / longest, 1.0, delta=1e-3, msg=(cc, f, t))
                self.assertAlmostEqual(hi / longest, 1.0, delta=1e-3, msg=(cc, f, t))


if __name__ == "__main__":
    unittest.main()
