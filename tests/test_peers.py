"""End-to-end checks of the peers' schemes the HPCC simulator runs beside DCQCN: TIMELY (Mittal
et al., SIGCOMM 2015), DCTCP for RDMA (Alizadeh et al., SIGCOMM 2010; RFC 8257) and HPCC (Li et
al., SIGCOMM 2019). Their rules one by one are checked by the Rust tests (rust/timely,
rust/dctcp, rust/hpcc); here: two TIMELY flows share a bottleneck fairly, DCTCP's queue
oscillates around K as its analysis predicts with alpha strictly between 0 and 1, both keep a
lossless incast's PAUSEs and queue far below PFC alone's, and HPCC with the switches' INT turned
off (--int=false) is refused by name rather than run as something else (HPCC's runs:
tests/test_hpcc.py)."""

import math
import os
import statistics
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_csv, run_example, summary  # noqa: E402

FRAME = 1000 + 62  # payload (--mtu default) + RoCEv2 headers, bytes


class TimelyConvergence(ExampleTest):
    def test_two_flows_converge_within_20_percent_of_each_other(self):
        # 40 Gb/s, the second flow starts 2 ms after the first; settled = the last 10 ms
        _, out = run_example("dcqcn-convergence", "--cc=timely", "--duration=20ms", "--stagger=2ms")
        s = summary(out)
        self.assertEqual(s["scheme"], "timely", s)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["drops_total"], 0, s)  # lossless by default, as the simulator runs it
        r = s["settled_rate_bps"]
        a, b = r["0"], r["1"]
        self.assertLess(abs(a - b), 0.2 * max(a, b), r)
        # the link stays mostly busy (TIMELY oscillates around its RTT thresholds and leaves
        # it idle part of the time: 90 % measured); a controller without RTT samples would
        # never leave line rate, one that collapsed to its 1 Gb/s floor would use 5 %
        self.assertGreater(a + b, 0.8 * s["wire_limit_bps"], s)
        self.assertLess(a + b, 1.001 * s["wire_limit_bps"], s)


class DctcpQueue(ExampleTest):
    def test_queue_oscillates_around_k_and_alpha_settles_between_0_and_1(self):
        # 10 us links: the two windows (R x base RTT each, up to one BDP = 200 KB at 40 Gb/s)
        # can queue more than K = 30 KB x 40/10 = 120 KB, so marking, not the window, limits
        # the queue (with 1 us links two line-rate windows queue at most one BDP, 25 KB).
        # The analysis is RFC 8257's DCTCP (one MTU per RTT): preset paper; hpcc-sim adds the
        # simulator's 615 Mb/s per window, 3 MTUs per 40 us here, and peaks higher
        _, out = run_example(
            "dcqcn-convergence", "--cc=dctcp", "--dctcpPreset=paper", "--delay=10us",
            "--duration=20ms", "--stagger=2ms", "--flowTrace=1",
        )
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["drops_total"], 0, s)
        k = s["k_min_bytes"]
        self.assertEqual((k, s["k_max_bytes"]), (120000, 120000), s)
        # DCTCP's analysis (Alizadeh et al. section 3.3) for N synchronised flows: the queue
        # peaks at Q_max = K + N packets (one packet per flow in the RTT the marks take to come
        # back) and falls by A = N W* alpha / 2 with alpha = sqrt(2 / W*), W* = (C RTT + K) / N
        # packets. RTT >= 4 x 10 us of propagation: W* = (188 + 113) / 2 = 151 frames,
        # alpha = 0.115, A = 17.4 frames = 18.4 KB.
        n = 2
        bdp = 40e9 * 40e-6 / 8 / FRAME
        w = (bdp + k / FRAME) / n
        alpha = math.sqrt(2 / w)
        amp = n * w * alpha / 2 * FRAME
        q_max = k + n * FRAME
        half = s["duration_ns"] / 2
        q = [int(r["bytes"]) for r in read_csv(out, "queue.csv") if int(r["time_ns"]) > half]
        self.assertGreater(len(q), 900, "queue samples in the settled half")
        # every sample within [K - 2A, Q_max + one frame of slack]: the sawtooth's trough is
        # Q_max - A; twice A allows for the two flows' cuts not coinciding
        self.assertLessEqual(max(q), q_max + FRAME, (max(q), q_max))
        self.assertGreaterEqual(min(q), k - 2 * amp, (min(q), k - 2 * amp))
        # ... and on average around K, in [K - A, K]: below the step, within one amplitude
        mean = statistics.mean(q)
        self.assertGreaterEqual(mean, k - amp, mean)
        self.assertLessEqual(mean, k, mean)
        # alpha at each cut (flows.csv: rate after / before = 1 - alpha/2) in the settled half:
        # strictly between 0 and 1, the median within a factor 2 of the analysis' value
        prev, alphas = {}, []
        for r in read_csv(out, "flows.csv"):
            f, rate = r["flow_id"], int(r["rate_bps"])
            if f in prev and rate < prev[f] and int(r["time_ns"]) > half:
                alphas.append(2 * (1 - rate / prev[f]))
            prev[f] = rate
        self.assertGreater(len(alphas), 10, "cuts in the settled half")
        self.assertTrue(all(0 < a < 1 for a in alphas), alphas)
        med = statistics.median(alphas)
        self.assertGreater(med, alpha / 2, (med, alpha))
        self.assertLess(med, alpha * 2, (med, alpha))


class PeersIncast(ExampleTest):
    @classmethod
    def setUpClass(cls):
        # 16 x 4 MB into one 100 Gb/s port, lossless: PFC alone against each scheme
        args = ("--senders=16", "--size=4000000")
        cls.runs = {}
        for cc in ("timely", "dctcp"):
            cls.runs[cc] = summary(run_example("ldcp-incast", "--cc=" + cc, *args)[1])
        cls.runs["pfc"] = summary(run_example("ldcp-incast", "--cc=none", "--pfc=1", *args)[1])

    def test_both_complete_lossless_with_far_fewer_pauses_and_a_lower_queue_than_pfc_alone(self):
        pfc = self.runs["pfc"]
        self.assertGreater(pfc["pfc_pause_frames"], 0, pfc)
        for cc in ("timely", "dctcp"):
            s = self.runs[cc]
            self.assertEqual(s["scheme"], cc, s)
            self.assertEqual(s["invariants"], "ok", s)  # conservation, lossless: no drop
            self.assertIs(s["complete"], True, s)
            self.assertEqual(s["drops_total"], 0, s)
            self.assertEqual(s["bytes_delivered"], 16 * 4000000, s)
            self.assertLess(s["pfc_pause_frames"], pfc["pfc_pause_frames"] / 10, (cc, s, pfc))
            self.assertLess(s["queue_avg_bytes"], pfc["queue_avg_bytes"] / 5, (cc, s, pfc))

    def test_dctcp_keeps_the_average_queue_below_k_plus_one_packet_per_flow(self):
        # K = 30 KB x 100/10 = 300 KB; the queue peaks at K + N packets in steady state (the
        # line-rate start queues up to 16 BDP windows, 833 KB, before the first marks return)
        s = self.runs["dctcp"]
        self.assertEqual(s["k_min_bytes"], 300000, s)
        self.assertLess(s["queue_avg_bytes"], s["k_min_bytes"] + 16 * FRAME, s)
        self.assertGreater(s["marks"], 0, s)


class HpccNeedsInt(ExampleTest):
    def test_every_kind_of_example_refuses_hpcc_without_int_naming_what_is_missing(self):
        # the switches write no INT hop records: a run would be line rate under another name
        for example in ("ldcp-incast", "fat-tree-workload", "hpcc-run"):
            p, out = run_example(example, "--cc=hpcc", "--int=false", expect_rc=2)
            self.assertIn(
                "invalid --cc = hpcc: HPCC needs INT at the switches (a hop record per switch in "
                "every ACK), but the switches on this path write none: turn INT on (--int=auto "
                "or true; ns3::SwitchNode::Int)",
                p.stdout,
                example,
            )
            self.assertFalse(os.path.exists(os.path.join(out, "summary.json")), example)


if __name__ == "__main__":
    unittest.main()
