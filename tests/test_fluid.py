"""dcqcn-convergence held against DCQCN's fluid model (Zhu et al., SIGCOMM 2015, section 5;
tools/dcqcn_fluid.py), over 3 seeds: the settled queue (mean over the last half) within 30 % of
the model's, integrated with the run's own parameters (read from its config.json), and the mean
per-flow settled rate within 10 % of the model's, on each seed.

2 flows run in the default suite (60 ms). 10 and 20 flows run with --long (120 ms each): there
the target is missed for a named reason, the marking cliff at K_max (ns3-module/doc/rdma-cc.rst,
"Fidelity: DCQCN fluid model"); those tests are expected failures, and a companion test shows
the reason by moving K_max out of the queue's swing."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, long_test, run_example, summary  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import dcqcn_fluid  # noqa: E402

SEEDS = (1, 2, 3)


def model_for(out):
    """The fluid model integrated with the parameters of the run in OUT (its config.json)."""
    got, _ = dcqcn_fluid.params_from_config(os.path.join(out, "config.json"))
    m = dict(dcqcn_fluid.PAPER)
    m.update(got)
    return dcqcn_fluid.run(m)


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


class FluidModel(ExampleTest):
    def test_fixed_point_of_two_flows_is_21_4_kb(self):
        # 2 flows on 40 Gb/s with the paper's parameters (g = 1/256, N = 50 us, K = T = 55 us,
        # B = 10 MB, F = 5, R_AI = 40 Mb/s; 1082 B frames): RED marks with p* = 0.084 %, at
        # q* = K_min + p*/P_max (K_max - K_min) = 21.4 KB
        m = dict(dcqcn_fluid.PAPER, flows=2)
        q, p, r, _, _ = dcqcn_fluid.fixed_point(m)
        self.assertAlmostEqual(q, 21.4e3, delta=0.1e3)
        self.assertAlmostEqual(p, 0.00084, delta=0.00001)
        self.assertAlmostEqual(r, 20e9, delta=1)
        # the integration settles at the fixed point, fair, within 1 % (by 120 ms: over the last
        # half of 60 ms its queue is still 6 % under q*)
        res = dcqcn_fluid.run(dict(m, stagger_s=1e-3, duration_s=120e-3))
        self.assertLess(abs(res["settled_queue_bytes"] / q - 1), 0.01, res["settled_queue_bytes"])
        for r_i in res["settled_frame_rate_bps"].values():
            self.assertLess(abs(r_i / r - 1), 0.01, res["settled_frame_rate_bps"])

    def test_twenty_flows_have_no_fixed_point_below_k_max(self):
        # p* = 1.55 % > P_max: the model itself rides the cliff at K_max (section "Fidelity")
        q, _, _, _, _ = dcqcn_fluid.fixed_point(dict(dcqcn_fluid.PAPER, flows=20))
        self.assertIsNone(q)
        q, p, _, _, _ = dcqcn_fluid.fixed_point(dict(dcqcn_fluid.PAPER, flows=20, k_max_bytes=400e3, p_max=0.02))
        self.assertAlmostEqual(p, 0.0155, delta=0.0001)


class ConvergenceAgainstFluidModel(ExampleTest):
    def held(self, flows, duration, *extra):
        """Runs dcqcn-convergence with FLOWS flows (1 ms apart) for DURATION on each seed and
        asserts the settled queue within 30 % of the model's and the mean per-flow settled rate
        within 10 % of the model's, on each seed."""
        model = None
        seen = []
        for seed in SEEDS:
            _, out = run_example("dcqcn-convergence", "--flows=%d" % flows, "--stagger=1ms",
                                 "--duration=" + duration, "--seed=%d" % seed, *extra)
            s = summary(out)
            self.assertEqual(s["invariants"], "ok", s)
            if model is None:  # the seed changes nothing the model reads
                model = model_for(out)
            q_model = model["settled_queue_bytes"]
            r_model = mean(model["settled_rate_bps"].values())
            q, r = s["settled_queue_bytes"], mean(s["settled_rate_bps"].values())
            seen.append((seed, q, q_model, r, r_model))
        for seed, q, q_model, r, r_model in seen:
            self.assertLess(abs(q / q_model - 1), 0.30, ("queue", seen))
            self.assertLess(abs(r / r_model - 1), 0.10, ("rate", seen))

    def test_two_flows_queue_within_30_percent_and_mean_rate_within_10_percent_of_the_model(self):
        # measured (seeds 1-3): queue 19.7, 17.6, 16.4 KB against the model's 20.1 KB (q* 21.4);
        # each flow within 3 % of the model's 18.48 Gb/s
        self.held(2, "60ms")

    @long_test
    def test_two_flows_at_120ms_queue_within_30_percent_and_mean_rate_within_10_percent(self):
        # measured: 19.3, 19.8, 20.6 KB against 21.3 KB; flows within -8 % .. +7 %
        self.held(2, "120ms")

    @long_test
    @unittest.expectedFailure
    def test_ten_flows_queue_within_30_percent_and_mean_rate_within_10_percent_of_the_model(self):
        # Missed, for a named reason (doc "Fidelity: DCQCN fluid model"): the model's q* is
        # 132 KB, 68 KB under K_max; the simulator's queue swings (its discrete, per-flow cuts;
        # the mean-field model has none), the swings cross K_max, where p jumps from 1 % to 1,
        # every flow is cut within 50 us and the queue drains to 0 for about 1 ms: measured
        # 59.0, 50.7, 52.3 KB (0.38-0.45 x) and a mean rate 4-5 % under the model's
        self.held(10, "120ms")

    @long_test
    @unittest.expectedFailure
    def test_twenty_flows_queue_within_30_percent_and_mean_rate_within_10_percent_of_the_model(self):
        # Missed, same reason: the model has no fixed point under K_max (p* = 1.55 %) and
        # rides the cliff at 177-202 KB (mean 187 KB); the simulator's swings are deeper:
        # 57.2, 57.0, 56.9 KB (0.30 x), mean rate 8-9 % under the model's
        self.held(20, "120ms")

    @long_test
    def test_ten_flows_with_k_max_out_of_the_swing_queue_within_30_percent_and_mean_rate_within_10_percent(self):
        # The reason for the miss above, shown: K_max = 400 KB and P_max = 2 % keep p(q) of
        # the default up to 200 KB (q* = 133.9 KB) and take the cliff out of the swing; the
        # simulator then settles at 0.97 x the model's queue (seed 1: 128.9 KB, sd 114 KB)
        self.held(10, "120ms", "--kmax=400KB", "--pmax=0.02")


if __name__ == "__main__":
    unittest.main()
