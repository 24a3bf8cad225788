"""End-to-end checks of pfc-incast: raw line-rate incast through one SwitchNode."""

import csv
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_bytes, run_example, summary  # noqa: E402


def rows(out, name):
    with open(os.path.join(out, name)) as f:
        return list(csv.DictReader(f))


class PfcIncast(ExampleTest):
    def test_pfc_on_is_lossless_and_writes_pause_events(self):
        _, out = run_example("pfc-incast", "--senders=8", "--size=2000000", "--pfc=1")
        s = summary(out)
        self.assertEqual(s["drops_total"], 0, s)
        self.assertEqual(s["bytes_delivered"], s["bytes_sent"], s)
        self.assertEqual(s["bytes_sent"], 8 * 2000000, s)
        self.assertGreater(s["pfc_pause_frames"], 0, s)
        self.assertEqual(s["pfc_pause_frames"], s["pause_frames_received"], s)
        self.assertGreater(s["paused_time_mean_us"], 0, s)
        self.assertGreaterEqual(s["goodput_bps"], 0.98 * s["wire_limit_bps"], s)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["switch_occupancy_end_bytes"], 0, s)
        pfc = rows(out, "pfc.csv")
        self.assertEqual(len([r for r in pfc if r["kind"] == "pause"]), s["pfc_pause_frames"])
        self.assertEqual(len([r for r in pfc if r["kind"] == "resume"]), s["pfc_resume_frames"])
        self.assertTrue(all(r["prio"] == "3" for r in pfc))
        # 65535 quanta x 512 bit times at 100 Gb/s
        self.assertTrue(all(r["duration_ns"] == "335539" for r in pfc if r["kind"] == "pause"))
        q = rows(out, "queue.csv")
        self.assertGreater(len(q), 10)
        self.assertEqual(max(int(r["bytes"]) for r in q if r["port"] == "0"), s["queue_max_bytes"])
        self.assertFalse(any(n.endswith(".partial") for n in os.listdir(out)))

    def test_pfc_off_drops_what_pfc_saves(self):
        _, out = run_example("pfc-incast", "--senders=8", "--size=500000", "--pfc=0")
        s = summary(out)
        self.assertGreater(s["drops"]["queue_full"], 0, s)
        self.assertEqual(s["drops_total"], s["drops"]["queue_full"], s)
        self.assertEqual(s["pfc_pause_frames"], 0, s)
        # bytes conserved: delivered + dropped payload = sent
        self.assertEqual(s["bytes_delivered"] + s["drops_total"] * 1000, s["bytes_sent"], s)
        self.assertEqual(len(rows(out, "drops.csv")), s["drops_total"])
        # the lossy queue never exceeds its limit
        self.assertLessEqual(s["queue_max_bytes"], 375000, s)

    def test_small_headroom_is_reported_loudly(self):
        p, out = run_example("pfc-incast", "--senders=4", "--size=1000000", "--buffer=1000000", "--headroom=3000")
        s = summary(out)
        self.assertGreater(s["drops"]["headroom_overrun"], 0, s)
        self.assertIn("warning: switch 0: PFC Headroom (3000 B) is below", p.stdout)
        self.assertIn("ERROR:", p.stdout)

    def test_same_seed_same_outputs(self):
        _, a = run_example("pfc-incast", "--senders=4", "--size=1000000", "--seed=5")
        _, b = run_example("pfc-incast", "--senders=4", "--size=1000000", "--seed=5")
        for name in ("pfc.csv", "queue.csv", "drops.csv"):
            self.assertEqual(read_bytes(a, name), read_bytes(b, name), name)
        sa, sb = summary(a), summary(b)
        sa.pop("wall_s")
        sb.pop("wall_s")
        self.assertEqual(sa, sb)


if __name__ == "__main__":
    unittest.main()
