"""tools/plot.py (./waf plot): every figure kind drawn from real small runs and read back (the PNG
not blank, one colour per series and no more, the SVG holding the axis labels, title and caption,
plots.json agreeing with the data); compare --seeds' mean and 95 % interval checked against a
hand computation over 3 seeds; experiments never mixed in one figure; bad input refused.

matplotlib comes from .waf-env, where ./waf check installs it (tools/buildenv.py)."""

import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir, read_csv, run_example, summary  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
from plots import slowdown_size, stats  # noqa: E402

SEEDS = ("1", "2", "3")
T975_2 = 4.303  # Student t, 95 %, 2 degrees of freedom (3 seeds)
# a small fat tree at 80 % load with a 2 MB switch buffer: line rate on PFC pauses (5 to 197
# PAUSEs over the seeds), 16 to 21 flows a seed
WORKLOAD = ["fat-tree-workload", "--k=4", "--load=0.8", "--duration=200us", "--buffer=2000000",
            "--flowTrace", "--flowSample=2us", "--rateSample=5us"]
SCHEMES = ["dcqcn", "ldcp", "none+pfc"]


def plot(*args):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "plot.py")] + list(args),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=900,
    )


def compare(out, run, schemes, seeds=None):
    p = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "compare.py"), "--build", BUILD, "--out", out, "--run", run,
         "--schemes=" + schemes] + (["--seeds=" + seeds] if seeds else []),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=900,
    )
    return p.returncode, p.stdout


def record(d):
    with open(os.path.join(d, "plots.json")) as f:
        return json.load(f)


def hand_mean_ci(xs):
    """The 95 % interval of the mean of 3 values, by hand: t_{0.975,2} s / sqrt(3)."""
    m = sum(xs) / 3
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / 2)
    return m, T975_2 * s / math.sqrt(3)


def hand_interval_text(m, ci, fmt, floor):
    """"M ±CI", or "M +CI/-DOWN" where M - CI is below the floor (DOWN = M - floor), by hand."""
    if m - ci < floor and fmt % (m - floor) != fmt % ci:
        return (fmt + " +" + fmt + "/-" + fmt) % (m, ci, m - floor)
    return (fmt + " \u00b1" + fmt) % (m, ci)


def paused_us(d):
    """The time the ports of a run were paused (pfc.csv), summed, µs: each port's PAUSE to its
    RESUME or to the end of the PAUSE's duration, a PAUSE while paused extending it."""
    total = 0
    end = {}
    start = {}
    for r in sorted(read_csv(d, "pfc.csv"), key=lambda r: int(r["time_ns"])):
        key = (r["node"], r["port"])
        t = int(r["time_ns"])
        if key in end and t > end[key]:  # the previous pause ran out before this row
            total += end.pop(key) - start.pop(key)
        if r["kind"] == "pause":
            if key not in end:
                start[key] = t
            end[key] = max(end.get(key, 0), t + int(r["duration_ns"]))
        elif key in end:
            total += t - start.pop(key)
            end.pop(key)
    total += sum(end[k] - start[k] for k in end)
    return total / 1e3


class Plots(ExampleTest):
    @classmethod
    def setUpClass(cls):
        # PFC pauses and queues: a lossless incast; a compare of a fat-tree workload under LDCP
        # (a window), DCQCN (a rate) and line rate on PFC (neither changes; it pauses) over 3
        # seeds, traced; two published experiments, shortened
        _, cls.pfc = run_example("pfc-incast", "--senders=8", "--size=2000000", "--pfc=1")
        _, cls.fair = run_example("dcqcn-fairness", "--duration=2ms")
        _, cls.incast = run_example("ldcp-incast", "--senders=4", "--size=65536")
        cls.cmp = output_dir("plot-compare")
        cls.rc, cls.table = compare(cls.cmp, " ".join(WORKLOAD), ",".join(SCHEMES), ",".join(SEEDS))
        assert cls.rc == 0, cls.table
        cls.result = plot("--svg", cls.pfc, cls.fair, cls.incast, cls.cmp)

    def run_dir(self, scheme, seed):
        return os.path.join(self.cmp, "fat-tree-workload-%s-seed%s" % (scheme, seed))

    def check(self, d, name, series=None, visible=None):
        """The figure d/name (PNG): PDF and SVG beside it, one column wide, not blank, `series`
        series in the default colours (no more), the SVG holding its title and axis labels."""
        import matplotlib
        import matplotlib.image

        self.assertEqual(self.result.returncode, 0, self.result.stdout)
        rec = record(d)
        self.assertIn(name, rec, "%s: %s" % (d, sorted(rec)))
        rec = rec[name]
        base = os.path.join(d, name[:-4])
        for ext in ("png", "pdf", "svg"):
            self.assertTrue(os.path.exists(base + "." + ext), base + "." + ext)
        self.assertEqual(sorted(rec["files"]), sorted(os.path.basename(base) + e for e in (".pdf", ".png", ".svg")))
        img = matplotlib.image.imread(base + ".png")[:, :, :3]
        # 3.5 in at 300 dpi, cropped to the drawing (bbox tight), or 7 in for the wide figures
        self.assertTrue(800 <= img.shape[1] <= 1150 or 1900 <= img.shape[1] <= 2200, img.shape)
        self.assertGreater((img < 0.95).any(axis=2).mean(), 0.02, "%s is (nearly) blank" % name)
        with open(base + ".svg") as f:
            svg = f.read()
        texts = html.unescape(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg)))
        for label in [rec["title"]] + [x for x in rec["xlabels"] + rec["ylabels"] if x]:
            self.assertTrue(label, rec)
            self.assertIn(label, texts, "%s: label %r not in the picture" % (name, label))
        self.assertTrue(any(x for x in rec["xlabels"]) and any(y for y in rec["ylabels"]), rec)
        if series is not None:
            self.assertEqual(rec["series"], series, rec)
            cycle = matplotlib.colormaps["tab10"]

            def pixels(i):
                return int((abs(img - cycle(i)[:3]) < 0.03).all(axis=2).sum())

            for i in range(series) if visible is None else visible:
                self.assertGreater(pixels(i), 10, "%s: series %d (%s) not drawn" % (name, i, rec["labels"][i]))
            if series < 10:
                self.assertEqual(pixels(series), 0, "%s: more than %d series drawn" % (name, series))
        return rec

    # per experiment (the compare directory: LDCP and DCQCN over 3 seeds)

    def test_slowdown_cdf_has_a_line_per_scheme_over_every_finished_flow(self):
        rec = self.check(self.cmp, "slowdown_cdf.png", 3)
        self.assertEqual(rec["labels"], SCHEMES)
        for cc in SCHEMES:
            done = sum(1 for s in SEEDS for r in read_csv(self.run_dir(cc, s), "fct.csv") if r["slowdown"])
            self.assertEqual(rec["flows"][cc], done, cc)
        self.assertIn("seeds\u00a01,2,3", rec["caption"])
        self.assertIn("fat tree k=4", rec["caption"])
        self.assertIn("load 0.8", rec["caption"])
        self.assertIn("--buffer=2000000", rec["caption"])

    def test_slowdown_against_size_has_p50_p95_p99_panels(self):
        rec = self.check(self.cmp, "slowdown_size.png", 3)
        self.assertEqual(rec["ylabels"], ["p50 slowdown", "p95 slowdown", "p99 slowdown"])
        for cc in SCHEMES:
            pts = rec["points"][cc]
            self.assertEqual(len(pts), rec["bins"], cc)
            self.assertTrue(all(1 <= p["p50"] <= p["p95"] <= p["p99"] for p in pts), pts)

    def test_buckets_are_the_mean_and_interval_over_three_seeds(self):
        rec = self.check(self.cmp, "buckets.png", 3)
        checked = 0
        for cc in SCHEMES:
            per_seed = [{r["bucket"]: r for r in read_csv(self.run_dir(cc, s), "buckets.csv")} for s in SEEDS]
            for b, got in rec["values"][cc].items():
                if not all(int(p[b]["flows"]) > 0 for p in per_seed):
                    continue
                for key in ("p50", "p99"):
                    m, ci = hand_mean_ci([float(p[b][key]) for p in per_seed])
                    self.assertAlmostEqual(got[key][0], m, places=9, msg=(cc, b, key))
                    self.assertAlmostEqual(got[key][1], ci, places=9, msg=(cc, b, key))
                    checked += 1
        self.assertGreater(checked, 0)

    def test_queue_cdf_pools_every_sample_of_the_seeds(self):
        rec = self.check(self.cmp, "queue_cdf.png", 3)
        for cc in SCHEMES:
            n = sum(len({(r["time_ns"], r["node"], r["port"]) for r in read_csv(self.run_dir(cc, s), "queue.csv")}) for s in SEEDS)
            self.assertEqual(rec["samples"][cc], n, cc)

    def test_pfc_pause_time_per_scheme_and_tier(self):
        paused = any(r["kind"] == "pause" for s in SEEDS for r in read_csv(self.run_dir("none+pfc", s), "pfc.csv"))
        self.assertTrue(paused, "line rate on PFC must pause")
        # a bar per scheme; those of the schemes that never paused are 0 high
        rec = self.check(self.cmp, "pfc_time.png", 3, visible=[SCHEMES.index("none+pfc")])
        self.assertGreater(rec["paused_us"]["none+pfc"], 0)
        self.assertEqual(rec["paused_us"]["ldcp"], 0)  # lossy: no PFC
        self.assertTrue(set(rec["tiers"]) <= {"core", "agg", "edge", "host"}, rec["tiers"])
        # the lossless incast of raw senders: one tier (not a fat tree)
        rec = self.check(self.pfc, "pfc_time.png", 1)
        self.assertEqual(rec["tiers"], ["all"])

    def test_compare_table_is_the_mean_and_interval_over_three_seeds(self):
        lines = self.table.splitlines()
        head = [i for i, line in enumerate(lines) if line.split()[:1] == ["scheme"]][0]
        self.assertIn("seeds 1,2,3: mean ±95 % interval", lines[head - 1])
        cols = re.split(r"\s{2,}", lines[head].strip())
        for line in lines[head + 1 : head + 4]:
            row = re.split(r"\s{2,}", line.strip())
            cc = row[0]
            runs = [summary(self.run_dir(cc, s)) for s in SEEDS]
            m, ci = hand_mean_ci([x["fct_ns"]["p99"] / 1e3 for x in runs])
            self.assertEqual(row[cols.index("FCT p99 us")], hand_interval_text(m, ci, "%.1f", 0.0), line)
            self.assertEqual(row[cols.index("flows done")], "%d/%d" % (sum(x["flows_done"] for x in runs), sum(x["flows_total"] for x in runs)))
            self.assertRegex(row[cols.index("queue max KB (node:port)")], r"^\d+\.\d (±\d+\.\d|\+\d+\.\d/-\d+\.\d) \(\d+:\d+\)$")
            # the slowdown's interval cut at 1 (no slowdown is below it), the paused time's at 0
            m, ci = hand_mean_ci([x["slowdown"]["p99"] for x in runs])
            self.assertEqual(row[cols.index("slowdown p99")], hand_interval_text(m, ci, "%.2f", 1.0), line)
            m, ci = hand_mean_ci([paused_us(self.run_dir(cc, s)) for s in SEEDS])
            self.assertEqual(row[cols.index("paused us")], hand_interval_text(m, ci, "%.1f", 0.0), line)
        self.assertIn("FCT slowdown by flow size", self.table)

    def test_size_bins_hold_30_flows_per_seed(self):
        # 3 seeds of 60 flows each, sizes 1..180 pooled: 60 // 30 = 2 bins, cut at the 50th and
        # 100th percentiles (90 and 180); one seed of 29 flows: one bin; 20 bins at most
        self.assertEqual(slowdown_size.edges(range(1, 181), 3), [90, 180])
        self.assertEqual(slowdown_size.edges(range(1, 30), 1), [29])
        self.assertEqual(len(slowdown_size.edges(range(1, 3001), 1)), 20)

    def test_interval_text_cut_at_the_floor(self):
        # 3 seeds of paused time 0, 0, 30 us: mean 10, s = 17.32, half-width 4.303 s / sqrt(3) = 43.03
        m, ci = stats.mean_ci([0.0, 0.0, 30.0])
        self.assertAlmostEqual(ci, 4.303 * math.sqrt(300) / math.sqrt(3), places=9)
        self.assertEqual(stats.interval_text(m, ci, "%.1f", 0.0), "10.0 +43.0/-10.0")
        # slowdowns 1.5, 2, 2.5: mean 2, half-width 4.303 * 0.5 / sqrt(3) = 1.24 passes below 1
        m, ci = stats.mean_ci([1.5, 2.0, 2.5])
        self.assertEqual(stats.interval_text(m, ci, "%.2f", 1.0), "2.00 +1.24/-1.00")
        self.assertEqual(stats.interval_text(m, ci, "%.2f", 0.0), "2.00 \u00b11.24")

    def test_student_t_interval(self):
        self.assertEqual(stats.mean_ci([5.0]), (5.0, 0.0))
        m, ci = stats.mean_ci([1.0, 2.0, 3.0])
        self.assertEqual(m, 2.0)
        self.assertAlmostEqual(ci, 4.303 / math.sqrt(3), places=12)  # s = 1
        m, ci = stats.mean_ci([10.0, 14.0])
        self.assertAlmostEqual(ci, 12.706 * math.sqrt(8) / math.sqrt(2), places=9)
        self.assertAlmostEqual(stats.jain([1, 1, 1, 1]), 1.0)
        self.assertAlmostEqual(stats.jain([1, 0, 0, 0]), 0.25)

    # per run

    def test_queue_and_pfc_timelines(self):
        queues = {(r["node"], r["port"]) for r in read_csv(self.pfc, "queue.csv")}
        self.check(self.pfc, "queue.png", min(8, len(queues)))
        paused = {(r["node"], r["port"]) for r in read_csv(self.pfc, "pfc.csv") if r["kind"] == "pause"}
        rec = self.check(self.pfc, "pfc.png", min(16, len(paused)))
        self.assertEqual(sorted(rec["labels"]), sorted("%s:%s" % k for k in paused))

    def test_throughput_of_the_longest_lived_flows_with_jain(self):
        d = self.run_dir("ldcp", "1")
        fct = read_csv(d, "fct.csv")
        end = summary(d)["sim_time_ns"]
        life = {int(r["flow_id"]): (int(r["finish_ns"]) if r["finish_ns"] else end) - int(r["start_ns"]) for r in fct}
        longest = sorted(sorted(life, key=lambda i: (-life[i], i))[:8])
        rec = self.check(d, "throughput.png", len(longest))
        self.assertEqual(rec["flows"], longest)
        self.assertEqual(rec["ylabels"], ["throughput (Gb/s)", "Jain's index"])
        self.assertTrue(0 < rec["jain_mean"] <= 1, rec)

    def test_chosen_flows(self):
        d = output_dir("plot-flows")
        shutil.rmtree(d)
        shutil.copytree(self.run_dir("ldcp", "2"), d)
        two = record(d)["throughput.png"]["flows"][:2]  # two of the longest-lived
        p = plot("--svg", "--flows=%d,%d,999" % tuple(two), d)
        self.assertEqual(p.returncode, 0, p.stdout)
        rec = record(d)
        self.assertEqual(rec["throughput.png"]["flows"], two)  # 999 is no flow of the run
        self.assertEqual(rec["throughput.png"]["series"], 2)
        self.assertEqual(rec["flows.png"]["flows"], two)

    def test_window_and_rate_panels_only_where_they_change(self):
        rec = self.check(self.run_dir("ldcp", "1"), "flows.png")
        self.assertEqual(rec["panels"], ["window"])  # LDCP: a window, not paced
        # DCQCN: a rate panel when a chosen flow's rate moved, never a window
        d = self.run_dir("dcqcn", "1")
        rows = read_csv(d, "flows.csv")
        chosen = record(d)["throughput.png"]["flows"]
        moved = any(len({r["rate_bps"] for r in rows if int(r["flow_id"]) == i}) > 1 for i in chosen)
        if moved:
            self.assertEqual(self.check(d, "flows.png")["panels"], ["sending rate"])
        else:
            self.assertNotIn("flows.png", record(d))
        # line rate: neither changes, no figure
        for s in SEEDS:
            self.assertNotIn("flows.png", record(self.run_dir("none+pfc", s)))
            self.assertFalse(os.path.exists(os.path.join(self.run_dir("none+pfc", s), "flows.png")))

    # the published experiments

    def test_paper_figures(self):
        rec = self.check(self.fair, "paper.png")
        self.assertEqual(rec["paper"], "DCQCN Fig. 8")
        self.assertEqual(rec["labels"], ["none", "dcqcn"])
        self.assertEqual(rec["lines"], {"none": ["flow 0", "flow 1", "flow 2", "flow 3"], "dcqcn": ["flow 0", "flow 1", "flow 2", "flow 3"]})
        rec = self.check(self.incast, "paper.png")
        self.assertEqual(rec["paper"], "LDCP draft -01 §3.2")
        self.assertEqual(rec["ylabels"], ["queue (KB)", "FCT (µs)"])

    # directories

    def test_pfc_time_says_when_nothing_paused(self):
        # the compare's LDCP (lossy) and DCQCN runs of seed 1 with every PAUSE removed: the
        # figure is drawn, every bar 0, the lossy scheme named, and it says that nothing paused
        d = output_dir("plot-nopause")
        for cc in ("ldcp", "dcqcn"):
            run = os.path.join(d, cc)
            shutil.copytree(self.run_dir(cc, "1"), run)
            with open(os.path.join(run, "pfc.csv")) as f:
                head = f.readline()
            with open(os.path.join(run, "pfc.csv"), "w") as f:
                f.write(head)
        p = plot("--svg", d)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.result = p
        rec = self.check(d, "pfc_time.png", 2, visible=[])
        self.assertTrue(rec["none_paused"], rec)
        self.assertEqual(rec["paused_us"], {"dcqcn": 0.0, "ldcp": 0.0})
        self.assertEqual(rec["lossy"], ["ldcp"])
        self.assertEqual(rec["tiers"], ["core", "agg", "edge", "host"])
        with open(os.path.join(d, "pfc_time.svg")) as f:
            svg = f.read()
        self.assertIn("no PFC pause in these runs", svg)
        self.assertIn("(lossy)", svg)

    def test_experiments_never_share_a_figure(self):
        # two experiments (--load 0.8 and 0.9) of two schemes each in one directory: a
        # plots-load=... directory each, nothing drawn across them
        d = output_dir("plot-mixed")
        for load in ("0.8", "0.9"):
            for cc in ("ldcp", "dcqcn"):
                run = os.path.join(d, "%s-%s" % (cc, load))
                shutil.copytree(self.run_dir(cc, "1"), run)
                path = os.path.join(run, "config.json")
                with open(path) as f:
                    cfg = json.load(f)
                cfg["options"]["load"] = load
                with open(path, "w") as f:
                    json.dump(cfg, f)
        p = plot(d)
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertFalse(os.path.exists(os.path.join(d, "slowdown_cdf.png")))
        for load in ("0.8", "0.9"):
            rec = record(os.path.join(d, "plots-load=" + load))
            self.assertEqual(rec["slowdown_cdf.png"]["labels"], ["dcqcn", "ldcp"])
            self.assertIn("load %s" % load, rec["slowdown_cdf.png"]["caption"])

    def test_bad_input(self):
        d = output_dir("plot-empty")
        p = plot(d)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("no run in %s" % d, p.stdout)
        p = plot("--flows=a,b", self.pfc)
        self.assertEqual(p.returncode, 2, p.stdout)
        self.assertIn("--flows=a,b", p.stdout)


if __name__ == "__main__":
    unittest.main()
