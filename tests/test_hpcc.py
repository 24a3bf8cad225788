"""End-to-end checks of HPCC (Li et al., SIGCOMM 2019) with INT written by the switches: every
switch egress appends a hop record to the data packets of an INT flow, the receiver echoes them
in the ACK, the sender's controller (rust/hpcc, whose rules the Rust tests check one by one)
computes its rate from them.

On the 16-to-1 incast at 100 Gb/s the flows start at line rate (the HPCC simulator's initial
rate), so the first RTT piles up about Q = (N - 1) windows at the bottleneck. HPCC's
utilisation estimate counts that queue (the qlen / (B T) term), so each flow's rate falls to
R_c / (U / eta) and the queue drains; while the queue is deep every RTT lasts T + Q / B. From
t_s = 2 (T + Q / B) + 5 T on (two such RTTs for the per-RTT reference updates, five base RTTs
for U to settle at eta) the queue must be "near zero": with eta = 0.95 the target leaves 5 % of
the link unused, so no standing queue remains, only the collisions of N paced senders whose
packets arrive together: at most N frames (one per sender) and a few frames on average (we
allow 4, 6 % of a BDP). Utilisation meanwhile stays at eta (goodput / the INT-adjusted wire
limit >= eta - 5 %).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_csv, run_example, summary  # noqa: E402

ETA = 0.95  # HPCC's target utilisation (hpcc-sim and paper presets)
INT_BYTES = 42  # INT header on the wire: 2-byte hop count + 5 x 8-byte records
FRAME = 1000 + 62 + INT_BYTES  # an INT data frame: payload + RoCEv2 headers + INT
RATE = 100e9
SENDERS = 16


def bottleneck_queue(out, s):
    """(time_ns, bytes) of the bottleneck queue samples."""
    port = str(s["bottleneck_port"]) if "bottleneck_port" in s else "0"
    return [(int(r["time_ns"]), int(r["bytes"])) for r in read_csv(out, "queue.csv") if r["port"] == port]


class HpccIncast(ExampleTest):
    def check_settles(self, out, s):
        self.assertEqual(s["scheme"], "hpcc", s)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertTrue(s["complete"], s)
        self.assertEqual(s["drops_total"], 0, s)
        T = s["stable_from_ns"]  # every flow's first RTT: the base RTT of the incast's path
        Q = s["queue_max_bytes"]
        drain = Q * 8 / RATE * 1e9
        t_s = 2 * (T + drain) + 5 * T
        q = [b for t, b in bottleneck_queue(out, s) if t_s <= t < s["first_done_ns"]]
        self.assertGreater(len(q), 100, (t_s, s["first_done_ns"]))
        self.assertLessEqual(max(q), SENDERS * FRAME, (t_s, max(q)))
        mean = sum(q) / len(q)
        self.assertLessEqual(mean, 4 * FRAME, (t_s, mean))
        return t_s, max(q), mean

    def test_default_incast_queue_settles_near_zero_within_a_few_rtts(self):
        # exactly `./waf --run "ldcp-incast --cc=hpcc"`: 16 x 256 KB at 100 Gb/s
        p, out = run_example("ldcp-incast", "--cc=hpcc")
        s = summary(out)
        self.assertIn("invariants        ok", p.stdout)
        t_s, qmax, mean = self.check_settles(out, s)
        # measured: t_s 180 us, then max 6.6 KB, mean 2.5 KB (the line-rate start: Q = 885 KB)
        self.assertLess(t_s, 250e3, t_s)
        # one INT record per ACK (one switch), echoed in every ACK, monotone, 42 B on the wire
        i = s["int"]
        self.assertEqual(i["bytes_on_wire"], INT_BYTES, i)
        self.assertEqual((i["hops_min"], i["hops_max"]), (1, 1), i)
        self.assertEqual(i["acks"], s["control_frames"], (i, s["control_frames"]))
        self.assertEqual((i["hop_mismatch"], i["non_monotone"]), (0, 0), i)
        # the wire limit counts the INT header: 100 G x 1000 / (1000 + 62 + 42 + 20)
        self.assertAlmostEqual(s["wire_limit_bps"], RATE * 1000 / (FRAME + 20), delta=1e3)

    def test_long_incast_keeps_utilisation_at_eta_with_the_queue_near_zero(self):
        # 16 x 2 MB: the drain of the first RTT's queue is a few % of the run; the goodput
        # while every flow is active measures the settled utilisation (measured 95.9 % of the
        # wire limit: eta in frame bytes is 96.7 % of it)
        _, out = run_example("ldcp-incast", "--cc=hpcc", "--size=2000000")
        s = summary(out)
        self.check_settles(out, s)
        util = s["goodput_active_bps"] / s["wire_limit_bps"]
        self.assertGreaterEqual(util, ETA - 0.05, s)
        self.assertLessEqual(util, 1.0, s)

    def test_int_is_off_by_default_for_other_schemes_and_can_be_turned_on(self):
        # --int=true with DCQCN: its flows carry INT (42 B more per frame), the switches write
        # records, DCQCN ignores them; auto (the default) leaves DCQCN's runs without INT
        _, on = run_example("ldcp-incast", "--cc=dcqcn", "--senders=4", "--size=65536", "--int=true")
        _, auto = run_example("ldcp-incast", "--cc=dcqcn", "--senders=4", "--size=65536")
        s_on, s_auto = summary(on), summary(auto)
        self.assertNotIn("int", s_auto)
        self.assertEqual(s_on["int"]["hop_mismatch"], 0, s_on)
        self.assertGreater(s_on["int"]["acks"], 0, s_on)
        self.assertLessEqual(s_on["int"]["acks"], s_on["control_frames"], s_on)
        self.assertLess(s_on["wire_limit_bps"], s_auto["wire_limit_bps"])


class HpccSameFlows(ExampleTest):
    def test_churn_gives_hpcc_the_same_flows_as_every_other_scheme(self):
        # the offered load is of the link's payload limit without INT's bytes: INT (HPCC's
        # frames are 42 B longer) must not thin out the Poisson arrivals
        _, hp = run_example("ldcp-churn", "--cc=hpcc", "--churn=300us")
        _, dc = run_example("ldcp-churn", "--cc=dcqcn", "--churn=300us")
        a, b = summary(hp), summary(dc)
        self.assertEqual(a["invariants"], "ok", a)
        self.assertEqual(a["flows_total"], b["flows_total"], (a["flows_total"], b["flows_total"]))
        self.assertEqual(a["bytes_delivered"], b["bytes_delivered"])


class HpccFatTree(ExampleTest):
    def test_k4_fat_tree_conserves_bytes_loses_nothing_and_records_every_hop(self):
        # 80 % load, web search sizes: paths of 1, 3 and 5 switches
        _, out = run_example("fat-tree-workload", "--cc=hpcc", "--load=0.8")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertTrue(s["complete"], s)
        self.assertGreater(s["flows_total"], 50, s)
        self.assertEqual(s["bytes_delivered"], s["bytes_sent"], s)
        self.assertEqual(s["bytes_delivered"], s["generated_bytes"], s)
        self.assertEqual(s["drops_total"], 0, s)  # lossless (PFC), as HPCC is deployed
        i = s["int"]
        # hop count == path length on every ACK: 1 (same edge), 3 (same pod), 5 (via a core)
        self.assertEqual((i["hops_min"], i["hops_max"]), (1, 5), i)
        self.assertEqual((i["hop_mismatch"], i["non_monotone"]), (0, 0), i)
        self.assertGreater(i["acks"], s["data_packets_sent"] // 2, i)

    def test_int_stays_consistent_when_rcm_sprays_packets_over_paths(self):
        # RCM's SAR in packet mode moves a flow's packets between equal-cost paths: a packet
        # that left a shared first hop earlier may arrive later, so INT counters are only
        # compared between ACKs whose packets crossed the same ports (found by a random
        # fabric: 494 false "non-monotone" ACKs before). Lossy: go-back-N repairs reordering.
        _, out = run_example("fat-tree-workload", "--k=6", "--cc=hpcc", "--duration=100us",
                             "--load=0.9", "--seed=362271", "--pattern=hotspot",
                             "--cdf=workloads/GoogleRPC2008.txt", "--mtu=4000", "--pfc=0",
                             "--rcm=1", "--rcmSarMode=packet", "--rcmRccMeasure=1us")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["bytes_delivered"], s["bytes_sent"], s)
        self.assertGreater(s["rcm"]["sar_moves"], 1000, s["rcm"])
        i = s["int"]
        self.assertEqual((i["hop_mismatch"], i["non_monotone"]), (0, 0), i)
        self.assertEqual((i["hops_min"], i["hops_max"]), (1, 5), i)


if __name__ == "__main__":
    unittest.main()
