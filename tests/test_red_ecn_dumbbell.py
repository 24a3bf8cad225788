"""End-to-end checks of red-ecn-dumbbell: RED/ECN + WRED decided in Rust, on real ns-3 links."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, output_dir, read_bytes, read_csv, run_example, stable_summary, summary  # noqa: E402

SIM = "--simTime=30ms"


def queue_rows(out):
    """queue.csv as (time_ns, bytes) pairs."""
    return [(int(r["time_ns"]), int(r["bytes"])) for r in read_csv(out, "queue.csv")]


class RedEcnDumbbell(ExampleTest):
    def assert_invariants(self, s, buf_max=400000):
        """What every run checks itself (exit status 3 otherwise), checked again on the summary."""
        self.assertEqual(s["invariants"], "ok", s)
        self.assertLessEqual(s["bytes_delivered"], s["bytes_sent"], s)
        self.assertLessEqual(s["queue_max_bytes"], buf_max, s)
        self.assertLessEqual(s["queue_max_sampled_bytes"], s["queue_max_bytes"], s)
        rate = float(s["bottleneck_rate"].replace("Gbps", "e9"))
        self.assertLessEqual(s["bottleneck_utilisation"] * rate, s["wire_limit_bps"] * (1 + 1e-9), s)

    def test_dctcp_keeps_high_utilisation_with_marks_and_no_drops(self):
        _, out = run_example("red-ecn-dumbbell", SIM, "--transport=tcp")
        s = summary(out)
        self.assertGreater(s["marks"], 100, s)
        self.assertEqual(sum(s["drops"].values()), 0, s)
        self.assertGreater(s["bottleneck_utilisation"], 0.90, s)
        # Once the queue passes K_max (80 KB) every ECT packet is marked, and each of the N = 4
        # DCTCP senders cuts its window within the RTT the marks take to return; what can still
        # arrive meanwhile is what the windows grew in that RTT (one 1502-byte segment each in
        # congestion avoidance) plus one segment each of rounding: K_max + 2 N segments =
        # 92 KB. The bound excludes the first 5 ms (slow start overshoots once). A queue that
        # ignored marks, or senders that ignored ECE, would sit at BufMax (400 KB).
        later = sorted(b for t, b in queue_rows(out) if t >= 5000000)
        bound = 80000 + 2 * 4 * 1502
        self.assertLessEqual(later[len(later) * 99 // 100], bound, s)
        self.assertLessEqual(later[-1], bound, s)
        self.assert_invariants(s)
        # 1448-byte segments in 1502-byte frames (IP 20, TCP 20 + 12 timestamp option, PPP 2)
        self.assertAlmostEqual(s["wire_limit_bps"], 10e9 * 1448 / 1502, delta=1)

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
        self.assertGreater(s["queue_max_sampled_bytes"], 30000 - 1028, s)
        self.assertGreater(s["bottleneck_utilisation"], 0.95, s)
        self.assert_invariants(s)
        # 1000-byte datagrams in 1030-byte frames (IP 20, UDP 8, PPP 2)
        self.assertAlmostEqual(s["wire_limit_bps"], 10e9 * 1000 / 1030, delta=1)

    def test_accept_mode_tail_drops_at_buf_max(self):
        _, out = run_example(
            "red-ecn-dumbbell", SIM, "--transport=udp", "--notEct=Accept", "--bufMax=100000", "--udpLoad=1.5"
        )
        s = summary(out)
        self.assertGreater(s["drops"]["queue_full"], 1000, s)
        self.assertEqual(s["drops"]["not_ect_threshold"], 0, s)
        self.assertLessEqual(s["queue_max_bytes"], 100000, s)
        self.assertGreater(s["queue_max_sampled_bytes"], 100000 - 2 * 1028, s)
        self.assert_invariants(s, buf_max=100000)

    def test_same_seed_same_summary(self):
        _, a = run_example("red-ecn-dumbbell", SIM, "--seed=3")
        _, b = run_example("red-ecn-dumbbell", SIM, "--seed=3")
        self.assertEqual(stable_summary(a), stable_summary(b))
        self.assertEqual(read_bytes(a, "queue.csv"), read_bytes(b, "queue.csv"))

    def test_negative_threshold_is_a_named_error(self):
        p, out = run_example("red-ecn-dumbbell", SIM, "--kmin=-5", expect_rc=2)
        self.assertIn("invalid --kmin = -5", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(out, "summary.json")))

    def test_unknown_not_ect_mode_is_rejected(self):
        p, _ = run_example("red-ecn-dumbbell", SIM, "--notEct=Sometimes", expect_rc=2)
        self.assertIn("invalid --notEct = Sometimes: must be one of Accept, ThresholdDrop, RedDrop", p.stdout)


class QueueCsv(ExampleTest):
    """queue.csv is streamed to disk; the summary's statistics stay exact."""

    def test_rows_and_statistics_match_the_summary(self):
        _, out = run_example("red-ecn-dumbbell", "--simTime=20ms", "--sample=10us", "--senders=6")
        s = summary(out)
        rows = queue_rows(out)
        # one sample every 10 us from the first sender's start (1 ms) to the end (20 ms)
        self.assertLessEqual(abs(len(rows) - (20000 - 1000) // 10), 1)
        self.assertEqual(len(rows), s["queue_samples"])
        times = [t for t, _ in rows]
        self.assertEqual(times[0], 1000000)
        self.assertTrue(all(b - a == 10000 for a, b in zip(times, times[1:])))
        qs = sorted(b for _, b in rows)
        self.assertEqual(qs[-1], s["queue_max_sampled_bytes"])
        self.assertEqual(qs[min(len(qs) - 1, len(qs) * 99 // 100)], s["queue_p99_bytes"])
        self.assertAlmostEqual(sum(qs) / len(qs), s["queue_avg_bytes"], delta=1e-6 * s["queue_avg_bytes"])
        self.assertGreater(qs[-1], 0)
        self.assertFalse(any(n.endswith(".partial") for n in os.listdir(out)))

    def test_large_output_is_announced(self):
        p, out = run_example(
            "red-ecn-dumbbell", "--simTime=5ms", "--sample=1us", "--csvWarn=10KB", split_stderr=True
        )
        warning = [line for line in p.stderr.splitlines() if line]
        self.assertEqual(len(warning), 1, p.stderr)
        self.assertIn("warning: %s/queue.csv will take about" % out, warning[0])
        self.assertIn("4000 samples", warning[0])
        self.assertIn("--sample=1us", warning[0])
        # the estimate is an upper bound of the real size
        size = os.path.getsize(os.path.join(out, "queue.csv"))
        self.assertGreater(size, 40000)
        self.assertLessEqual(size, 60100)


class BadInput(ExampleTest):
    """Every rejection: exit status 2, one line naming the option, no file left in --out."""

    def assert_rejected(self, args, *expected):
        p, out = run_example("red-ecn-dumbbell", *args, expect_rc=2, timeout=60)
        line = self.assert_config_error(p.stdout, os.listdir(out), *expected)
        self.assertTrue(line.startswith("rdma-cc: configuration error in "), line)
        return line

    def test_each_bad_input_is_one_named_line(self):
        cases = [
            # an ns-3 assert on the queue disc's attribute before
            (["--bufMax=0"], "invalid --bufMax = 0: must be a whole number of bytes >= 1"),
            # hangs before: a 0 bit/s sender (infinite packet interval), 2^32-1 senders,
            # "10Gbpsx" read as 10 s
            (["--udpLoad=0", "--transport=udp"], "invalid --udpLoad = 0: must be a number in (0, 100]"),
            (["--udpLoad=0.000000000001", "--transport=udp"], "invalid --udpLoad", "0 bit/s"),
            (["--senders=-1"], "invalid --senders = -1: must be a whole number in [1, 2097152]"),
            (["--senders=100000000"], "invalid --senders = 100000000"),
            (["--simTime=10Gbpsx"], "invalid --simTime = 10Gbpsx: must be a duration with its unit"),
            # the old unitless spelling
            (["--simTime=0.1"], "invalid --simTime = 0.1"),
            (["--simTime=1ms"], "invalid --simTime = 1ms: must be a duration with its unit (e.g. 2us) in (1ms, 100s]"),
            (["--sample=0"], "invalid --sample = 0"),
            (["--accessRate=10"], "invalid --accessRate = 10"),
            (["--transport=sctp"], "invalid --transport = sctp: must be one of tcp, udp"),
            (["--kmin=5000000000"], "invalid --kmin = 5000000000 B: must be <= --kmax (80000 B)"),
            (["--kmin=50000", "--kmax=20000"], "invalid --kmin = 50000 B: must be <= --kmax (20000 B)"),
            (["--kfs=500000"], "invalid --kfs = 500000 B: must be <= --bufMax (400000 B)"),
            (["--pmax=nan"], "invalid --pmax = nan"),
            # one packet per ns at most (ns-3's time resolution)
            (
                ["--transport=udp", "--senders=1", "--bottleneckRate=100Tbps", "--udpLoad=100"],
                "invalid --udpLoad = 100",
                "8Tbps",
            ),
            (["--seed=1x"], "invalid --seed = 1x"),
            (["--simTime"], "invalid --simTime: needs a value"),
        ]
        for case in cases:
            with self.subTest(args=case[0]):
                self.assert_rejected(case[0], *case[1:])

    def test_a_run_that_cannot_fit_in_memory_is_refused_before_building(self):
        line = self.assert_rejected(
            ["--senders=2000000", "--transport=tcp"],
            "--senders=2000000 --transport=tcp needs about",
            "MemAvailable in /proc/meminfo",
            "use --senders=",
            "per sender",
        )
        self.assertIn("TB of memory (estimate)", line)  # 2e6 x 2.45 MB

    def test_out_is_checked_before_the_run(self):
        p, out = run_example("red-ecn-dumbbell", "--out=/proc/rdmacc-no", expect_rc=2)
        self.assertEqual(p.stdout.strip(), "rdma-cc: configuration error in --out: cannot create directory /proc/rdmacc-no/")
        self.assertNotIn("red-ecn-dumbbell:", p.stdout)  # nothing ran


class PartialFiles(ExampleTest):
    """A run stopped by a configuration error leaves no *.partial file (the registry of
    ConfigFatal), whichever output failed."""

    def test_dumbbell_failing_queue_csv(self):
        # queue.csv cannot take its final name (a directory is in the way): the error names
        # --out and queue.csv.partial, being written until then, is removed
        out = os.path.join(output_dir("red-ecn-dumbbell"), "run")
        os.makedirs(os.path.join(out, "queue.csv", "x"))
        p, _ = run_example("red-ecn-dumbbell", "--simTime=2ms", "--out=" + out, expect_rc=2)
        self.assertIn("configuration error in --out: cannot rename %s/queue.csv.partial" % out, p.stdout)
        self.assertEqual(sorted(os.listdir(out)), ["queue.csv"])

    def test_fabric_monitor_files_are_removed(self):
        # pfc.csv cannot take its final name: pfc, drops and queue .partial are all removed
        out = os.path.join(output_dir("pfc-incast"), "run")
        os.makedirs(os.path.join(out, "pfc.csv", "x"))
        p, _ = run_example("pfc-incast", "--senders=2", "--size=20000", "--out=" + out, expect_rc=2)
        self.assertIn("cannot rename %s/pfc.csv.partial" % out, p.stdout)
        self.assertEqual(sorted(os.listdir(out)), ["pfc.csv"])


if __name__ == "__main__":
    unittest.main()
