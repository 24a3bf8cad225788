"""End-to-end checks of red-ecn-dumbbell: RED/ECN + WRED decided in Rust, on real ns-3 links."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_bytes, run_example, summary  # noqa: E402

SIM = "--simTime=0.03"


class RedEcnDumbbell(ExampleTest):
    def test_dctcp_keeps_high_utilisation_with_marks_and_no_drops(self):
        _, out = run_example("red-ecn-dumbbell", SIM, "--transport=tcp")
        s = summary(out)
        self.assertGreater(s["marks"], 100, s)
        self.assertEqual(sum(s["drops"].values()), 0, s)
        self.assertGreater(s["bottleneck_utilisation"], 0.90, s)
        # DCTCP holds the queue around the marking region, far below BufMax (400 KB)
        self.assertLess(s["queue_p99_bytes"], 200000, s)

    def test_not_ect_udp_is_dropped_at_kfs_and_queue_stays_at_kfs(self):
        _, out = run_example(
            "red-ecn-dumbbell", SIM, "--transport=udp", "--notEct=ThresholdDrop", "--kfs=30000", "--udpLoad=1.5"
        )
        s = summary(out)
        self.assertGreater(s["drops"]["not_ect_threshold"], 1000, s)
        self.assertEqual(s["drops"]["queue_full"], 0, s)
        self.assertEqual(s["marks"], 0, s)  # Not-ECT packets are never marked
        # q >= KFs drops, so the queue never exceeds KFs + one packet (1028 B with IP/UDP)
        self.assertLessEqual(s["queue_max_bytes"], 30000 + 1028, s)
        self.assertGreater(s["queue_max_bytes"], 30000 - 1028, s)
        self.assertGreater(s["bottleneck_utilisation"], 0.95, s)

    def test_accept_mode_tail_drops_at_buf_max(self):
        _, out = run_example(
            "red-ecn-dumbbell", SIM, "--transport=udp", "--notEct=Accept", "--bufMax=100000", "--udpLoad=1.5"
        )
        s = summary(out)
        self.assertGreater(s["drops"]["queue_full"], 1000, s)
        self.assertEqual(s["drops"]["not_ect_threshold"], 0, s)
        self.assertLessEqual(s["queue_max_bytes"], 100000, s)
        self.assertGreater(s["queue_max_bytes"], 100000 - 2 * 1028, s)

    def test_same_seed_same_summary(self):
        _, a = run_example("red-ecn-dumbbell", SIM, "--seed=3")
        _, b = run_example("red-ecn-dumbbell", SIM, "--seed=3")
        sa, sb = summary(a), summary(b)
        sa.pop("wall_s")
        sb.pop("wall_s")
        self.assertEqual(sa, sb)

    def test_negative_threshold_is_a_named_error(self):
        p, out = run_example("red-ecn-dumbbell", SIM, "--kmin=-5", expect_rc=2)
        self.assertIn("invalid --kmin = -5", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(out, "summary.json")))

    def test_unknown_not_ect_mode_is_rejected(self):
        p, _ = run_example("red-ecn-dumbbell", SIM, "--notEct=Sometimes", expect_rc=2)
        self.assertIn("NotEctMode", p.stdout)


if __name__ == "__main__":
    unittest.main()
