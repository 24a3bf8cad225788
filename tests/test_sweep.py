"""End-to-end checks of tools/sweep.py (./waf sweep): one example over a grid of options and
seeds, one table and sweep.csv whose numbers are the runs' own, the same file whatever --jobs,
bad input refused with a message naming it, and runs whose invariants fail kept apart and
making the sweep fail."""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir, read_bytes, read_csv, stable_summary, summary  # noqa: E402

INCAST = "ldcp-incast --senders=4 --size=65536"
DEFAULT_METRICS = [
    "fct_ns.p99",
    "slowdown.p50",
    "slowdown.p99",
    "goodput_active_bps",
    "queue_max_bytes",
    "drops_total",
    "stable_stage_drops",
    "pfc_pause_frames",
    "retx_bytes",
]


def sweep(*args):
    """Runs tools/sweep.py on this build; (exit status, stdout, stderr)."""
    p = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "sweep.py"), "--build", BUILD] + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=600,
    )
    return p.returncode, p.stdout, p.stderr


def table(stdout, first):
    """The printed table: its header, units line and rows (lists of cells); FIRST is the first
    column's title."""
    lines = stdout.splitlines()
    head = [i for i, line in enumerate(lines) if line.split()[:1] == [first]]
    assert len(head) == 1, stdout
    rows = []
    for line in lines[head[0] :]:
        if re.match(r"^\d+ runs? in ", line):
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows[0], lines[head[0] + 1], rows[2:]


def lookup(s, key):
    for part in key.split("."):
        s = s[part]
    return s


def number(text):
    """A table cell: (mean, half-width of the 95 % interval, min, max); the half-width is 0 and
    min and max are the mean when the cell has no range."""
    m = re.match(r"^(\S+)(?: ±(\S+) \((\S+)\.\.(\S+)\))?$", text)
    assert m, text
    mean = float(m.group(1))
    return mean, float(m.group(2) or 0), float(m.group(3) or mean), float(m.group(4) or mean)


class SweepGrid(ExampleTest):
    """The 2 x 2 sweep of the README: kfs x seeds on a small LDCP incast."""

    @classmethod
    def setUpClass(cls):
        cls.out = output_dir("sweep")
        cls.rc, cls.stdout, cls.stderr = sweep(
            "--out", cls.out, "--run", INCAST, "--grid", "kfs=12500,25000", "--seeds=1,2"
        )

    def test_every_run_and_the_csv(self):
        self.assertEqual(self.rc, 0, self.stdout + self.stderr)
        runs = ["kfs=12500,seed=1", "kfs=12500,seed=2", "kfs=25000,seed=1", "kfs=25000,seed=2"]
        self.assertEqual(sorted(os.listdir(self.out)), sorted(runs + ["sweep.csv"]))
        rows = read_csv(self.out, "sweep.csv")
        with open(os.path.join(self.out, "sweep.csv")) as f:
            header = f.readline().strip().split(",")
        self.assertEqual(header, ["kfs", "seed", "exit_status"] + DEFAULT_METRICS + ["dir"])
        self.assertEqual([r["dir"] for r in rows], runs)
        self.assertEqual([(r["kfs"], r["seed"], r["exit_status"]) for r in rows],
                         [("12500", "1", "0"), ("12500", "2", "0"), ("25000", "1", "0"), ("25000", "2", "0")])
        for r in rows:
            s = summary(os.path.join(self.out, r["dir"]))
            self.assertEqual(s["seed"], int(r["seed"]), r)
            self.assertEqual(s["k_fs_bytes"], int(r["kfs"]), r)
            self.assertEqual(s["invariants"], "ok", r)
            for key in DEFAULT_METRICS:
                self.assertEqual(float(r[key]), lookup(s, key), (r["dir"], key))

    def test_seeds_differ(self):
        # the seed drives RED's marking draws: other marks, other FCTs
        for kfs in ("12500", "25000"):
            a = stable_summary(os.path.join(self.out, "kfs=%s,seed=1" % kfs))
            b = stable_summary(os.path.join(self.out, "kfs=%s,seed=2" % kfs))
            self.assertNotEqual(a["fct_ns"], b["fct_ns"], kfs)
            self.assertEqual((a["seed"], b["seed"]), (1, 2))

    def test_table_is_the_mean_over_seeds(self):
        head, units, rows = table(self.stdout, "kfs")
        self.assertEqual(head, ["kfs"] + DEFAULT_METRICS + ["failed"], self.stdout)
        self.assertEqual(units.split(), ["us", "Gb/s", "KB", "KB"], self.stdout)
        self.assertEqual([r[0] for r in rows], ["12500", "25000"], self.stdout)
        scale = {"fct_ns.p99": 1e3, "goodput_active_bps": 1e9, "queue_max_bytes": 1e3, "retx_bytes": 1e3}
        for r in rows:
            self.assertEqual(r[-1], "0/2", r)
            runs = [summary(os.path.join(self.out, "kfs=%s,seed=%d" % (r[0], s))) for s in (1, 2)]
            for key, text in zip(DEFAULT_METRICS, r[1:-1]):
                xs = [lookup(s, key) / scale.get(key, 1) for s in runs]
                mean, ci, lo, hi = number(text)
                # the 95 % interval of 2 seeds by hand: t_{0.975,1} = 12.706 times s / sqrt(2),
                # s = |x1 - x2| / sqrt(2): 12.706 |x1 - x2| / 2
                want_ci = 12.706 * abs(xs[0] - xs[1]) / 2 if lo != hi else 0
                # the cells have three significant digits
                for got, want in ((mean, sum(xs) / 2), (ci, want_ci), (lo, min(xs)), (hi, max(xs))):
                    self.assertAlmostEqual(got, want, delta=max(0.006 * abs(want), 0.006), msg=(r[0], key, text))
        # fct p99 differs between the seeds: an interval and a range; drops do not: one number
        self.assertIn("..", r[1], r)
        self.assertIn("±", r[1], r)
        self.assertEqual(r[DEFAULT_METRICS.index("drops_total") + 1], str(runs[0]["drops_total"]), r)

    def test_sweep_figure_is_the_mean_and_interval_over_seeds(self):
        # ./waf plot on the sweep: sweep.png (a panel per metric, a point per grid point) and
        # each grid point's own experiment figures in plots-kfs=V/
        self.assertEqual(self.rc, 0, self.stdout + self.stderr)
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "plot.py"), self.out], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout)
        with open(os.path.join(self.out, "plots.json")) as f:
            rec = json.load(f)["sweep.png"]
        self.assertEqual(rec["ylabels"][0], "fct_ns.p99 (µs)")
        for kfs in ("12500", "25000"):
            xs = [summary(os.path.join(self.out, "kfs=%s,seed=%d" % (kfs, s)))["fct_ns"]["p99"] / 1e3 for s in (1, 2)]
            mean, ci, n = rec["values"]["fct_ns.p99"][kfs]
            self.assertEqual(n, 2)
            self.assertAlmostEqual(mean, sum(xs) / 2, places=9)
            self.assertAlmostEqual(ci, 12.706 * abs(xs[0] - xs[1]) / 2, places=6)  # t_{0.975,1} s / sqrt(2)
            self.assertTrue(os.path.exists(os.path.join(self.out, "plots-kfs=%s" % kfs, "slowdown_cdf.png")), kfs)
        for name in ("sweep.pdf", "sweep.png"):
            self.assertTrue(os.path.exists(os.path.join(self.out, name)), name)

    def test_jobs_give_the_same_csv(self):
        self.assertEqual(self.rc, 0, self.stdout + self.stderr)
        out = output_dir("sweep-jobs")
        rc, stdout, stderr = sweep("--out", out, "--run", INCAST, "--grid", "kfs=12500,25000", "--seeds=1,2", "--jobs=2")
        self.assertEqual(rc, 0, stdout + stderr)
        self.assertEqual(read_bytes(out, "sweep.csv"), read_bytes(self.out, "sweep.csv"))
        self.assertEqual(table(stdout, "kfs"), table(self.stdout, "kfs"))


class SweepBadInput(ExampleTest):
    def test_unknown_grid_name_stops_with_the_examples_message(self):
        out = output_dir("sweep-bad")
        rc, stdout, stderr = sweep("--out", out, "--run", INCAST, "--grid", "nosuch=1,2", "--seeds=1,2", "--jobs=2")
        self.assertEqual(rc, 2, stdout + stderr)
        self.assertIn("unknown option --nosuch", stderr)
        self.assertIn("--nosuch=1 --seed=1", stderr)  # the command, the first in order
        self.assertNotIn("sweep.csv", os.listdir(out))

    def test_grid_name_also_in_the_arguments(self):
        out = output_dir("sweep-bad")
        rc, stdout, stderr = sweep("--out", out, "--run", INCAST + " --kfs=12500", "--grid", "kfs=25000")
        self.assertEqual(rc, 2, stdout + stderr)
        self.assertIn("--grid kfs: --run also gives --kfs=12500", stderr)
        self.assertEqual(os.listdir(out), [], "nothing runs")

    def test_seed_in_the_arguments(self):
        out = output_dir("sweep-bad")
        rc, stdout, stderr = sweep("--out", out, "--run", INCAST + " --seed=2", "--grid", "kfs=25000")
        self.assertEqual(rc, 2, stdout + stderr)
        self.assertIn("--seed=2", stderr)
        self.assertIn("--seeds", stderr)

    def test_missing_metric(self):
        out = output_dir("sweep-bad")
        rc, stdout, stderr = sweep("--out", out, "--run", INCAST, "--grid", "kfs=25000", "--metrics=fct_ns.p99,fct_ns.p42")
        self.assertEqual(rc, 2, stdout + stderr)
        self.assertIn("metric fct_ns.p42 of run kfs=25000,seed=1", stderr)
        self.assertIn("has no 'p42'", stderr)
        self.assertNotIn("sweep.csv", os.listdir(out))

    def test_help(self):
        rc, stdout, stderr = sweep("--help")
        self.assertEqual(rc, 0, stderr)
        for text in ("--grid", "--seeds", "--metrics", "--jobs", "--out", "sweep.csv", "exit_status", "Example"):
            self.assertIn(text, stdout)


class SweepFailedRun(ExampleTest):
    def test_failed_invariants_are_kept_apart_and_fail_the_sweep(self):
        # --limit=25us cuts the incast (its lower bound is 22.7 us, it takes ~35 us): every flow
        # unfinished, exit 3
        out = output_dir("sweep-fail")
        rc, stdout, stderr = sweep("--out", out, "--run", INCAST, "--grid", "limit=1s,25us", "--seeds=1,2", "--jobs=2")
        self.assertEqual(rc, 3, stdout + stderr)
        rows = read_csv(out, "sweep.csv")
        self.assertEqual([(r["limit"], r["seed"], r["exit_status"]) for r in rows],
                         [("1s", "1", "0"), ("1s", "2", "0"), ("25us", "1", "3"), ("25us", "2", "3")])
        for r in rows[2:]:
            self.assertEqual([r[k] for k in DEFAULT_METRICS], [""] * len(DEFAULT_METRICS), r)
            s = summary(os.path.join(out, r["dir"]))
            self.assertFalse(s["complete"], s)
            self.assertIn("flows unfinished", s["invariants"])
        for r in rows[:2]:
            self.assertEqual(float(r["fct_ns.p99"]), summary(os.path.join(out, r["dir"]))["fct_ns"]["p99"])
        _, _, trows = table(stdout, "limit")
        self.assertEqual([(r[0], r[-1]) for r in trows], [("1s", "0/2"), ("25us", "2/2")], stdout)
        self.assertEqual(trows[1][1:-1], ["-"] * len(DEFAULT_METRICS), stdout)
        self.assertIn("2 of 4 runs failed their invariants", stderr)
        self.assertIn(os.path.join(out, "limit=25us,seed=2") + ": invariants: 4 of 4 flows unfinished", stderr)


if __name__ == "__main__":
    unittest.main()
