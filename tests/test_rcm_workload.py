"""End-to-end checks of RCM's workload experiments (Liu et al., "Regional Congestion Mitigation in
Lossless Datacenter Networks", NPC 2017, section 4.2 Fig. 8 hot-spot and section 4.3 Fig. 9
workloads), scaled down: fat-tree-workload on a k = 6 fat tree (54 hosts) in the paper's setting
(100 Gb/s links, 100 KB static PFC threshold per queue, DCQCN with the Mellanox 100G defaults),
60 % load, the enterprise and the data-mining flow-size CDFs, each under DCQCN and under DCQCN +
RCM:

- group: Poisson flows within groups of 9 hosts (one pod, as the paper's 36-host groups are one
  pod of its k = 12 tree);
- hotspot: 15 % of every host's flows to 12.5 % of the hosts (the hot flows), the rest to the
  others (background).

What must hold in every run: every flow completes, every byte is delivered once, nothing is
dropped (lossless), the run's invariants hold and no flow is retransmitted (RCC and SAR keep
every flow in order). With RCM: it acts (CNs sent and received, RCC activations, cuts), SAR
moves no flow once placed (--rcmSarMode=new: only a flow's first packet chooses; a congestion
flow never moves). The figures fat-tree-workload reports by class (summary.json's fct_by_class,
fct.csv's class column) and by size (fct_by_size) equal those recomputed from fct.csv, and the
hot flows are the flows to the hot hosts, 15 % of the flows and of the bytes within the
sampling error of the run.

RCM against DCQCN: only what these small runs show for every seed tried (1-3) is asserted: with
the enterprise CDF, RCM lowers the mean FCT of the mice (< 1 MB) in both patterns. The data-mining
runs are dominated by a few elephants whose FCT RCM barely moves; no direction is asserted there.
The README's RCM section has the numbers (and the full-size k = 12 runs). With --long,
RcmWorkloadFidelity asserts the paper's Fig. 8/9 claims on seeds 1-3 (two of them expected
failures; the doc's "Fidelity: RCM" says why)."""

import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import LONG, ExampleTest, long_test, run_compare, output_dir, read_csv, run_example, summary  # noqa: E402

# NPC 2017 section 4.1: 100 Gb/s links, 100 KB per queue, DCQCN with the Mellanox 100G defaults
SETTING = ["--k=6", "--load=0.6", "--cc=dcqcn", "--xoffBeta=0", "--xoffStatic=100KB",
           "--dcqcnPreset=mellanox"]
CDFS = {
    "enterprise": ["--cdf=workloads/Enterprise_distribution.txt", "--duration=2ms"],
    "datamining": ["--cdf=workloads/DataMining_distribution.txt", "--duration=3ms"],
}
PATTERNS = {
    "group": ["--pattern=group", "--group=9"],
    "hotspot": ["--pattern=hotspot", "--hotspotTraffic=0.15", "--hotspotHosts=0.125"],
}
SCHEMES = {"dcqcn": ["--rcm=0"], "rcm": ["--rcm=1"]}
SIZE_CLASSES = {
    "all": lambda b: True,
    "mice": lambda b: b < 1000000,
    "medium": lambda b: 1000000 <= b <= 10000000,
    "elephants": lambda b: b > 10000000,
}


def nearest_rank(v, q):
    v = sorted(v)
    k = math.ceil(q * len(v))
    return v[min(len(v) - 1, max(k, 1) - 1)]


def figures(rows):
    """ClassFigures recomputed from fct.csv rows."""
    fct = [int(r["fct_ns"]) for r in rows if r["fct_ns"]]
    thr = [int(r["size_bytes"]) * 8e9 / int(r["fct_ns"]) for r in rows if r["fct_ns"]]
    f = {"flows": len(rows), "unfinished": len(rows) - len(fct),
         "bytes": sum(int(r["size_bytes"]) for r in rows)}
    for name, v in (("fct_ns", fct), ("throughput_bps", thr)):
        f[name] = {"avg": sum(v) / len(v) if v else 0,
                   "p50": nearest_rank(v, 0.5) if v else 0,
                   "p95": nearest_rank(v, 0.95) if v else 0,
                   "p99": nearest_rank(v, 0.99) if v else 0,
                   "max": max(v) if v else 0}
    return f


class RcmWorkloads(ExampleTest):
    @classmethod
    def setUpClass(cls):
        cls.runs = {}
        for cdf, cargs in CDFS.items():
            for pat, pargs in PATTERNS.items():
                for scheme, sargs in SCHEMES.items():
                    _, out = run_example("fat-tree-workload", *(SETTING + cargs + pargs + sargs))
                    cls.runs[(cdf, pat, scheme)] = (summary(out), read_csv(out, "fct.csv"))

    def each(self):
        for key, (s, rows) in sorted(self.runs.items()):
            yield key, s, rows, "%s: %s" % ("/".join(key), {k: s[k] for k in (
                "flows_total", "flows_done", "drops_total", "retx_bytes", "pfc_pause_frames",
                "invariants", "rcm")})

    def test_every_flow_completes_lossless_in_order_with_bytes_conserved(self):
        for _, s, rows, msg in self.each():
            self.assertEqual(s["invariants"], "ok", msg)
            self.assertTrue(s["complete"], msg)
            self.assertGreater(s["generated_flows"], 100, msg)
            self.assertEqual(s["flows_done"], s["generated_flows"], msg)
            self.assertEqual(len(rows), s["generated_flows"], msg)
            self.assertEqual(s["bytes_sent"], s["generated_bytes"], msg)
            self.assertEqual(s["bytes_delivered"], s["generated_bytes"], msg)
            self.assertEqual(sum(int(r["size_bytes"]) for r in rows), s["generated_bytes"], msg)
            self.assertEqual(s["drops_total"], 0, msg)
            self.assertEqual(s["retx_bytes"], 0, msg)
            self.assertTrue(all(int(r["fct_ns"]) >= int(r["ideal_fct_ns"]) for r in rows), msg)
            # the paper's queues: 100 KB static PFC threshold, and the queues do fill
            self.assertGreater(s["pfc_pause_frames"], 0, msg)

    def test_rcm_acts_and_sar_moves_no_flow(self):
        for (cdf, pat, scheme), s, _, msg in self.each():
            r = s["rcm"]
            if scheme == "dcqcn":
                self.assertFalse(r["enabled"], msg)
                self.assertEqual((r["cn_sent"], r["rcc_activations"], r["sar_detours"]),
                                 (0, 0, 0), msg)
                continue
            self.assertTrue(r["enabled"], msg)
            self.assertGreater(r["detections"], 0, msg)
            self.assertGreater(r["cn_sent"], 0, msg)
            self.assertEqual(r["cn_sent"], r["cn_received"], msg)  # link-local, never lost
            self.assertGreater(r["rcc_activations"], 0, msg)
            self.assertGreaterEqual(r["rcc_cuts"], r["rcc_activations"], msg)
            # --rcmSarMode=new: a flow's port is chosen by its first packet and kept, so no
            # flow (a congestion flow least of all) ever changes port
            self.assertEqual(r["sar_moves"], 0, msg)
            self.assertLessEqual(r["sar_detours"], s["generated_flows"] * 6, msg)
            if cdf == "enterprise":
                # congestion regions form and SAR places new flows around them (297-2251
                # detours over seeds 1-3; the data-mining runs, with ~230 flows, may have none)
                self.assertGreater(r["sar_detours"], 0, msg)

    def test_size_classes_equal_fct_csv(self):
        for _, s, rows, msg in self.each():
            got = s["fct_by_size"]
            self.assertEqual(list(got), list(SIZE_CLASSES), msg)
            for name, pred in SIZE_CLASSES.items():
                want = figures([r for r in rows if pred(int(r["size_bytes"]))])
                self.assert_figures(got[name], want, "%s %s" % (name, msg))
            self.assertEqual(got["all"]["flows"], got["mice"]["flows"] + got["medium"]["flows"]
                             + got["elephants"]["flows"], msg)
            self.assertGreater(got["mice"]["flows"], 0, msg)
            self.assertGreater(got["elephants"]["flows"], 0, msg)

    def test_hot_flows_are_the_flows_to_the_hot_hosts(self):
        for (cdf, pat, scheme), s, rows, msg in self.each():
            if pat != "hotspot":
                self.assertNotIn("fct_by_class", s, msg)
                self.assertNotIn("class", rows[0], msg)
                continue
            hot = set(s["hot_hosts"])
            self.assertEqual(len(hot), round(0.125 * s["hosts"]), msg)  # 7 of 54
            for r in rows:
                self.assertEqual(r["class"], "hot" if int(r["dst"]) in hot else "background", r)
            got = s["fct_by_class"]
            self.assertEqual(list(got), ["hot", "background", "all"], msg)
            for name in ("hot", "background"):
                self.assert_figures(got[name], figures([r for r in rows if r["class"] == name]),
                                    "%s %s" % (name, msg))
            self.assert_figures(got["all"], figures(rows), msg)
            # 15 % of the flows, and (sizes are drawn independently of destinations) of the
            # bytes, within 4 standard errors of the run's sample (binomial for the flows; for
            # the bytes, inflated by the sizes' coefficient of variation)
            n = len(rows)
            sizes = [int(r["size_bytes"]) for r in rows]
            mean = sum(sizes) / n
            cv = math.sqrt(sum((x - mean) ** 2 for x in sizes) / n) / mean
            se = math.sqrt(0.15 * 0.85 / n)
            flow_share = got["hot"]["flows"] / n
            byte_share = got["hot"]["bytes"] / got["all"]["bytes"]
            self.assertLess(abs(flow_share - 0.15), 4 * se, (flow_share, n, msg))
            self.assertLess(abs(byte_share - 0.15), 4 * se * math.sqrt(1 + cv * cv),
                            (byte_share, cv, msg))
            self.assertGreater(got["hot"]["flows"], 10, msg)

    def test_same_flows_under_both_schemes(self):
        for cdf in CDFS:
            for pat in PATTERNS:
                a = self.runs[(cdf, pat, "dcqcn")][1]
                b = self.runs[(cdf, pat, "rcm")][1]
                key = ("flow_id", "src", "dst", "size_bytes", "start_ns")
                self.assertEqual([tuple(r[k] for k in key) for r in a],
                                 [tuple(r[k] for k in key) for r in b], (cdf, pat))

    def test_rcm_lowers_the_mice_mean_fct_on_the_enterprise_workload(self):
        # the paper's Fig. 9 claim for mice (< 1 MB), where these runs support it (seeds 1-3)
        for pat in PATTERNS:
            d = self.runs[("enterprise", pat, "dcqcn")][0]["fct_by_size"]["mice"]
            r = self.runs[("enterprise", pat, "rcm")][0]["fct_by_size"]["mice"]
            self.assertLess(r["fct_ns"]["avg"], d["fct_ns"]["avg"], (pat, d, r))

    def assert_figures(self, got, want, msg):
        for k in ("flows", "unfinished", "bytes"):
            self.assertEqual(got[k], want[k], "%s: %s" % (k, msg))
        for k in ("fct_ns", "throughput_bps"):
            for q in ("avg", "p50", "p95", "p99", "max"):
                self.assertAlmostEqual(got[k][q], want[k][q], delta=1e-6 * max(1.0, abs(want[k][q])),
                                       msg="%s.%s: %s" % (k, q, msg))


class CompareWithRcm(ExampleTest):
    def test_compare_runs_dcqcn_and_dcqcn_with_rcm(self):
        # ./waf compare's SCHEME+rcm: --cc=SCHEME --rcm=1, the same flows, the class tables
        out = output_dir("compare-rcm")
        run = " ".join(["fat-tree-workload", "--k=4", "--duration=200us"] + PATTERNS["hotspot"]
                       + [a for a in SETTING[1:] if not a.startswith("--cc=")])
        rc, stdout = run_compare(out, run, "dcqcn,dcqcn+rcm")
        self.assertEqual(rc, 0, stdout)
        for scheme, rcm in (("dcqcn", False), ("dcqcn+rcm", True)):
            s = summary(os.path.join(out, "fat-tree-workload-" + scheme))
            self.assertEqual((s["scheme"], s["rcm"]["enabled"], s["invariants"]), ("dcqcn", rcm, "ok"), s)
        self.assertIn("fct_by_size", stdout)
        self.assertIn("fct_by_class", stdout)


if __name__ == "__main__":
    unittest.main()


class RcmWorkloadFidelity(ExampleTest):
    """The paper's Fig. 8 and Fig. 9 claims on the scaled-down runs above, over seeds 1-3,
    asserted on each seed (the doc's "Fidelity: RCM" has the numbers and the reasons for the
    two expected failures). Long: 18 runs of 5-60 s."""

    SEEDS = (1, 2, 3)
    RUNS = {
        ("enterprise", "group"): CDFS["enterprise"] + PATTERNS["group"],
        ("enterprise", "hotspot"): CDFS["enterprise"] + PATTERNS["hotspot"],
        ("datamining", "group"): CDFS["datamining"] + PATTERNS["group"],
    }

    @classmethod
    def setUpClass(cls):
        cls.runs = {}
        if not LONG:
            return
        for seed in cls.SEEDS:
            for key, args in cls.RUNS.items():
                for scheme, sargs in SCHEMES.items():
                    _, out = run_example("fat-tree-workload", *(SETTING + args + sargs),
                                         "--seed=%d" % seed)
                    cls.runs[key + (scheme, seed)] = summary(out)

    def change(self, key, seed, path):
        """RCM's figure over DCQCN's, minus 1 (negative: lower with RCM)."""
        def get(s):
            for k in path:
                s = s[k]
            return s
        return get(self.runs[key + ("rcm", seed)]) / get(self.runs[key + ("dcqcn", seed)]) - 1

    @long_test
    def test_rcm_lowers_the_enterprise_mice_fct_by_more_than_10_percent(self):
        # NPC 2017 Fig. 9(a) and section 5: "> 10 % improvement ... on mice flow's FCT"
        for seed in self.SEEDS:
            for pat in ("group", "hotspot"):
                with self.subTest(seed=seed, pattern=pat):
                    c = self.change(("enterprise", pat), seed, ("fct_by_size", "mice", "fct_ns", "avg"))
                    self.assertLess(c, -0.10, (seed, pat, c))

    @long_test
    def test_rcm_raises_the_hot_spot_background_throughput(self):
        # NPC 2017 Fig. 8(a): the background flows get 12.2 % more throughput than with DCQCN
        for seed in self.SEEDS:
            with self.subTest(seed=seed):
                c = self.change(("enterprise", "hotspot"), seed,
                                ("fct_by_class", "background", "throughput_bps", "avg"))
                self.assertGreater(c, 0.05, (seed, c))

    # NPC 2017 Fig. 8(b): the hot flows get a little less than with DCQCN. Not reproduced
    # (+3 to +17 %); an expected failure, see the doc's "Fidelity: RCM".
    @long_test
    @unittest.expectedFailure
    def test_rcm_slows_the_hot_flows(self):
        for seed in self.SEEDS:
            with self.subTest(seed=seed):
                c = self.change(("enterprise", "hotspot"), seed,
                                ("fct_by_class", "hot", "throughput_bps", "avg"))
                self.assertLess(c, 0, (seed, c))

    # NPC 2017 Fig. 9(b): data mining gains more than enterprise (mean FCT of all flows). Not
    # reproduced (about 0 %); an expected failure, see the doc's "Fidelity: RCM".
    @long_test
    @unittest.expectedFailure
    def test_data_mining_gains_more_than_enterprise(self):
        for seed in self.SEEDS:
            with self.subTest(seed=seed):
                dm = self.change(("datamining", "group"), seed, ("fct_by_size", "all", "fct_ns", "avg"))
                en = self.change(("enterprise", "group"), seed, ("fct_by_size", "all", "fct_ns", "avg"))
                self.assertLess(dm, en, (seed, dm, en))
