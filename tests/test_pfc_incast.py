"""End-to-end checks of pfc-incast: raw line-rate incast through one SwitchNode."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_bytes, read_csv, run_example, stable_summary, summary  # noqa: E402

FRAME = 1062  # 1000 B payload + 62 B of RoCEv2 headers
RATE_BYTES_PER_US = 12500  # 100 Gb/s


class PfcIncast(ExampleTest):
    def test_pfc_on_is_lossless_and_writes_pause_events(self):
        _, out = run_example("pfc-incast", "--senders=8", "--size=2000000", "--pfc=1")
        s = summary(out)
        self.assertIs(s["complete"], True, s)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["drops_total"], 0, s)
        self.assertEqual(s["bytes_delivered"], s["bytes_sent"], s)
        self.assertEqual(s["bytes_sent"], 8 * 2000000, s)
        self.assertGreater(s["pfc_pause_frames"], 0, s)
        self.assertEqual(s["pfc_pause_frames"], s["pause_frames_received"], s)
        self.assertGreater(s["paused_time_mean_us"], 0, s)
        self.assertGreaterEqual(s["goodput_bps"], 0.98 * s["wire_limit_bps"], s)
        self.assertLessEqual(s["goodput_bps"], s["wire_limit_bps"], s)
        self.assertEqual(s["switch_occupancy_end_bytes"], 0, s)
        # the automatic headroom of a 100 Gb/s, 1 us link (2 x 12 500 + 2 x 1082 + 1062 + 84),
        # and what arrived after each PAUSE fitted in it
        self.assertEqual(s["headroom_bytes"], 28310, s)
        self.assertLessEqual(s["headroom_max_used_bytes"], s["headroom_bytes"], s)
        pfc = read_csv(out, "pfc.csv")
        self.assertEqual(len([r for r in pfc if r["kind"] == "pause"]), s["pfc_pause_frames"])
        self.assertEqual(len([r for r in pfc if r["kind"] == "resume"]), s["pfc_resume_frames"])
        self.assertTrue(all(r["prio"] == "3" for r in pfc))
        # 65535 quanta x 512 bit times at 100 Gb/s
        self.assertTrue(all(r["duration_ns"] == "335539" for r in pfc if r["kind"] == "pause"))
        self.assertFalse(any(n.endswith(".partial") for n in os.listdir(out)))

    def test_sampled_queue_maximum_is_within_one_sample_of_the_exact_one(self):
        # queue_max_bytes is the switch's exact maximum (updated at every admission), not a
        # sample: every sample is at most it, and the largest sample misses at most what the
        # queue can grow by in one 1 us sample interval (8 senders in, 1 out) and one frame
        _, out = run_example("pfc-incast", "--senders=8", "--size=2000000")
        s = summary(out)
        q = [int(r["bytes"]) for r in read_csv(out, "queue.csv") if r["port"] == "0"]
        self.assertGreater(len(q), 100)
        self.assertLessEqual(max(q), s["queue_max_bytes"], s)
        self.assertGreaterEqual(max(q), s["queue_max_bytes"] - 7 * RATE_BYTES_PER_US - FRAME, s)
        # every byte of this incast queues at the receiver's port: the MMU's occupancy
        # maximum, kept apart, is the same number
        self.assertEqual(s["queue_max_bytes"], s["switch_buffer_max_bytes"], s)
        self.assertGreater(s["queue_avg_bytes"], 0, s)

    def test_pfc_off_drops_what_pfc_saves(self):
        _, out = run_example("pfc-incast", "--senders=8", "--size=500000", "--pfc=0")
        s = summary(out)
        self.assertIs(s["complete"], True, s)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertGreater(s["drops"]["queue_full"], 0, s)
        self.assertEqual(s["drops_total"], s["drops"]["queue_full"], s)
        self.assertEqual(s["pfc_pause_frames"], 0, s)
        # bytes conserved: delivered + dropped payload = sent
        self.assertEqual(s["bytes_sent"], 8 * 500000, s)
        self.assertEqual(s["bytes_delivered"] + s["drops_total"] * 1000, s["bytes_sent"], s)
        self.assertEqual(len(read_csv(out, "drops.csv")), s["drops_total"])
        # the lossy queue never exceeds its limit (exact maximum)
        self.assertLessEqual(s["queue_max_bytes"], 375000, s)
        self.assertGreater(s["queue_max_bytes"], 375000 - FRAME, s)

    def test_default_headroom_makes_long_links_lossless(self):
        # with a fixed 32 KB headroom this run overran it 2951 times and delivered 85 %
        _, out = run_example(
            "pfc-incast", "--rate=100Gbps", "--delay=2055ns", "--senders=20", "--size=1000001"
        )
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["drops_total"], 0, s)
        self.assertEqual(s["bytes_delivered"], 20 * 1000001, s)
        self.assertGreater(s["pfc_pause_frames"], 0, s)
        self.assertEqual(s["headroom_bytes"], 2 * 25688 + 2 * 1082 + 1062 + 84, s)
        self.assertLessEqual(s["headroom_max_used_bytes"], s["headroom_bytes"], s)

    def test_every_byte_arrives_before_the_run_ends(self):
        # the completion check used to ignore frames still on the sender links: 4000 of
        # 86955 B delivered, "invariants ok"
        _, out = run_example(
            "pfc-incast", "--rate=25Gbps", "--delay=4.545us", "--senders=85", "--size=1023"
        )
        s = summary(out)
        self.assertIs(s["complete"], True, s)
        self.assertEqual(s["bytes_delivered"], 85 * 1023, s)
        self.assertEqual(s["bytes_sent"], 85 * 1023, s)
        self.assertEqual(s["switch_occupancy_end_bytes"], 0, s)

    def test_goodput_stays_below_the_wire_limit_with_a_short_last_frame(self):
        # nine full frames and a 1 B one: goodput counts the real size of the first frame
        # (the mean frame size gave 92.58 against a limit of 92.42 Gb/s)
        _, out = run_example("pfc-incast", "--senders=1", "--size=9001", "--delay=439ns", "--xoffBeta=0.5")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertLess(s["goodput_bps"], s["wire_limit_bps"], s)
        # frames 2..10 on the wire: 8 x 1082 + 84 B in 699.2 ns carry 8001 B of payload
        self.assertAlmostEqual(s["goodput_bps"] / 1e9, 8001 * 8 / 699.2, delta=0.15)

    def test_a_run_cut_by_the_limit_says_so_and_fails(self):
        # the bytes need 692 us on the receiver's link (the least --limit accepted), and the
        # 20 us links add 40 us more
        args = ("--senders=8", "--size=1000000", "--delay=20us")
        p, out = run_example("pfc-incast", *args, "--limit=700us", expect_rc=3)
        s = summary(out)
        self.assertIs(s["complete"], False, s)
        self.assertEqual(s["sim_time_ns"], 700000, s)
        self.assertIn("neither delivered nor dropped when --limit=700us", s["invariants"])
        self.assertIn("INVARIANT FAILED", p.stdout)
        self.assertLess(s["bytes_delivered"], 8 * 1000000, s)

    def test_same_seed_same_outputs_and_different_seeds_differ(self):
        args = ("--senders=4", "--size=4000000", "--buffer=3000000")
        _, a = run_example("pfc-incast", *args, "--seed=5")
        _, b = run_example("pfc-incast", *args, "--seed=5")
        _, c = run_example("pfc-incast", *args, "--seed=6")
        sa, sb = stable_summary(a), stable_summary(b)
        self.assertGreater(sa["pfc_pause_frames"], 0, sa)
        for name in ("pfc.csv", "queue.csv", "drops.csv"):
            self.assertEqual(read_bytes(a, name), read_bytes(b, name), name)
        # the seed draws the senders' start jitter: another seed, other PAUSE times and queues
        self.assertNotEqual(read_bytes(a, "pfc.csv"), read_bytes(c, "pfc.csv"))
        self.assertNotEqual(read_bytes(a, "queue.csv"), read_bytes(c, "queue.csv"))
        self.assertEqual(sa, sb)
        # without jitter nothing else is random: the seed changes nothing
        _, d = run_example("pfc-incast", *args, "--seed=5", "--jitter=0")
        _, e = run_example("pfc-incast", *args, "--seed=6", "--jitter=0")
        for name in ("pfc.csv", "queue.csv"):
            self.assertEqual(read_bytes(d, name), read_bytes(e, name), name)


class PfcIncastErrors(ExampleTest):
    def check(self, args, text, rc=2):
        p, out = run_example("pfc-incast", *args, expect_rc=rc)
        if rc == 2:
            self.assert_config_error(p.stdout, os.listdir(out), text)
        else:
            self.assertIn(text, p.stdout)
        return p, out

    def test_explicit_headroom_below_the_link_need_is_a_named_error(self):
        self.check(
            ["--senders=4", "--size=1000000", "--buffer=1000000", "--headroom=3000"],
            "invalid --headroom = 3000 B: below the 28310 B port 0 needs on its 100Gbps link with 1us delay",
        )

    def test_allowed_headroom_overrun_is_a_failed_invariant(self):
        p, out = self.check(
            ["--senders=4", "--size=1000000", "--buffer=1000000", "--headroom=3000", "--allowHeadroomOverrun"],
            "warning: switch 0: PFC Headroom (3000 B) is below the 28310 B needed",
            rc=3,
        )
        s = summary(out)
        self.assertGreater(s["drops"]["headroom_overrun"], 0, s)
        self.assertEqual(s["drops_total"], s["drops"]["headroom_overrun"], s)
        self.assertEqual(s["bytes_delivered"] + 1000 * s["drops_total"], s["bytes_sent"], s)
        self.assertIn("lossless (--pfc=1) but", s["invariants"])
        self.assertIn("INVARIANT FAILED: the data priority is lossless", p.stdout)

    def test_the_buffer_must_hold_every_port_headroom(self):
        self.check(
            ["--senders=40", "--buffer=1000000"],
            "invalid --buffer = 1000000 B: reserves (0 B) + the PFC headroom of 41 ports",
        )

    def test_sizes_and_rates_that_cannot_finish_are_named(self):
        self.check(["--size=1e18"], "invalid --size = 1e18: must be a whole number of bytes >= 1 (at most 2^53")
        self.check(["--rate=1bps"], "invalid --limit = 1s: the run needs at least")

    def test_options_are_strict(self):
        self.check(["--pfc=yes"], "invalid --pfc = yes")
        self.check(["--senders=0"], "invalid --senders = 0")
        self.check(["--prio=8"], "invalid --prio = 8")
        self.check(["--xoffBeta=-2"], "invalid --xoffBeta = -2")
        self.check(["--delay=1"], "invalid --delay = 1")
        self.check(["--jitter=-1us"], "invalid --jitter = -1us")
        self.check(["--bogus=1"], "unknown option --bogus")


if __name__ == "__main__":
    unittest.main()
