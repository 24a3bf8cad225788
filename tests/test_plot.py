"""tools/plot.py (./waf plot): the four figures from real runs, each PNG read back: its size, not
blank, and the number of series its CSV gives (plots.json agrees, and each series' colour is in
the picture while the next colour of the cycle is not).

matplotlib comes from .waf-env, where ./waf check installs it (tools/buildenv.py)."""

import csv
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, run_compare, output_dir, read_csv, run_example  # noqa: E402


def plot(*dirs):
    p = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "plot.py")] + list(dirs),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600,
    )
    return p


class Plots(ExampleTest):
    @classmethod
    def setUpClass(cls):
        # PFC pauses and queues: a lossless incast; windows and rates: LDCP flows traced; the
        # slowdown per bucket per scheme: a compare of fat-tree-workload
        _, cls.pfc = run_example("pfc-incast", "--senders=8", "--size=2000000", "--pfc=1")
        _, cls.flows = run_example(
            "fat-tree-workload", "--k=4", "--pattern=incast", "--incastSenders=4", "--load=0.6", "--duration=100us",
            "--flowTrace", "--flowSample=2us", "--rateSample=5us", "--cc=ldcp",
        )
        cls.compare = output_dir("plot-compare")
        rc, stdout = run_compare(cls.compare, "fat-tree-workload --k=4 --duration=200us", "ldcp,dcqcn,none")
        assert rc == 0, stdout
        cls.result = plot(cls.pfc, cls.flows, cls.compare)

    def image(self, path):
        import matplotlib.image

        return matplotlib.image.imread(path)

    def check_png(self, d, name, series, size):
        """The PNG d/name: size (width, height), not blank, `series` series."""
        import matplotlib

        self.assertEqual(self.result.returncode, 0, self.result.stdout)
        path = os.path.join(d, name)
        self.assertTrue(os.path.exists(path), self.result.stdout)
        img = self.image(path)[:, :, :3]
        self.assertEqual((img.shape[1], img.shape[0]), size)
        ink = (img < 0.95).any(axis=2).mean()
        self.assertGreater(ink, 0.02, "%s is (nearly) blank" % name)
        with open(os.path.join(d, "plots.json")) as f:
            rec = json.load(f)[name]
        self.assertEqual(rec["series"], series, rec)
        # each series in its colour of the default cycle, and no more series than that
        cycle = matplotlib.colormaps["tab10"]

        def pixels(i):
            c = cycle(i)[:3]
            return int((abs(img - c) < 0.03).all(axis=2).sum())

        for i in range(series):
            self.assertGreater(pixels(i), 10, "%s: series %d (%s) not drawn" % (name, i, rec["labels"][i]))
        if series < 10:
            self.assertEqual(pixels(series), 0, "%s: more than %d series drawn" % (name, series))
        return rec

    def test_queue_length_over_time(self):
        queues = {(r["node"], r["port"]) for r in read_csv(self.pfc, "queue.csv")}
        self.assertGreater(len(queues), 0)
        self.check_png(self.pfc, "queue.png", min(8, len(queues)), (800, 320))

    def test_pfc_pause_timeline(self):
        paused = {(r["node"], r["port"]) for r in read_csv(self.pfc, "pfc.csv") if r["kind"] == "pause"}
        self.assertGreater(len(paused), 0, "the incast must pause its senders")
        rec = self.check_png(self.pfc, "pfc.png", min(16, len(paused)), (800, 320))
        self.assertEqual(sorted(rec["labels"]), sorted("%s:%s" % k for k in paused))

    def test_per_flow_window_and_rate(self):
        ids = {r["flow_id"] for r in read_csv(self.flows, "flows.csv")}
        self.assertGreater(len(ids), 1)
        # LDCP is window-based: its window (flows.csv) and delivered rate (rates.csv)
        rec = self.check_png(self.flows, "flows.png", min(8, len(ids)), (800, 640))
        self.assertEqual(rec["title"], "per-flow window and delivered rate over time")

    def test_slowdown_by_size_bucket_per_scheme(self):
        rec = self.check_png(self.compare, "slowdown.png", 3, (800, 640))
        self.assertEqual(rec["labels"], ["dcqcn", "ldcp", "none"])  # the runs' directory order
        # each run's own figure too
        self.check_png(os.path.join(self.compare, "fat-tree-workload-ldcp"), "slowdown.png", 1, (800, 640))

    def test_a_directory_without_runs_is_an_error(self):
        d = output_dir("plot-empty")
        p = plot(d)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("no run in %s" % d, p.stdout)


if __name__ == "__main__":
    unittest.main()
