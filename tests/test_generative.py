"""Generative tests: random scenarios checked against the invariants, and every option of every
example fed bad values.

1. Scenarios: a fixed-seed generator draws configurations of the RDMA examples (scheme, senders,
   sizes, rates, delays, MTU, PFC on/off, marking thresholds, ...), runs each and checks on its
   outputs what must hold whatever the configuration: every byte delivered exactly once, no flow
   below its FCT lower bound, no drop on a lossless priority (with the default headroom), the
   bottleneck queue within its limits, goodput within the wire limit, the run's own invariant
   check passing; and, for every fifth configuration, that the same seed gives byte-identical
   files while another seed changes them where the run has randomness. About 40 runs; with
   `./waf check --long` (RDMACC_LONG=1) 200. Then half as many small fat trees
   (fat-tree-workload) under every scheme, traffic pattern and size distribution, half of them
   with RCM and its options drawn too.

2. Bad input: every option each example lists in `--help` gets a negative, a zero, a huge, a
   NaN, an empty and a junk value, on top of a small valid run. A value the example rejects must
   give exit status 2, exactly one line of output naming the option, and no file in --out; a
   value it accepts must give a run that ends well: exit 0 with its invariants holding (an
   accepted value whose run then fails, e.g. a size too large for the time limit, must be
   refused up front instead).
"""

import concurrent.futures
import os
import random
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import (LONG, ExampleTest, output_dir, read_bytes, read_csv, run_example, stable_summary,  # noqa: E402
                    summary)


def draw_incast(rng):
    """One ldcp-incast configuration that completes well within its time limit."""
    cc = rng.choice(["ldcp", "ldcp", "ldcp-rate", "none"])
    pfc = cc == "none" and rng.random() < 0.7 or rng.random() < 0.2
    senders = rng.choice([1, 2, 3, 8, 16, 40])
    size = rng.choice([1, 999, 1000, 1001, 4096, 65536, 300000])
    mtu = rng.choice([1000, 1000, 512, 4000, 9000])
    rate = rng.choice(["10Gbps", "25Gbps", "40Gbps", "100Gbps", "400Gbps"])
    delay = rng.choice(["100ns", "439ns", "1us", "2055ns", "4545ns"])
    args = ["--cc=" + cc, "--senders=%d" % senders, "--size=%d" % size, "--mtu=%d" % mtu,
            "--rate=" + rate, "--delay=" + delay, "--pfc=%d" % pfc,
            "--seed=%d" % rng.randint(1, 1000), "--limit=200ms"]
    if rng.random() < 0.3:
        args.append("--reverse=%d" % rng.randint(0, senders))
    if rng.random() < 0.3 and not pfc:
        args.append("--kfs=%d" % rng.choice([0, 5000, 50000]))
    if rng.random() < 0.2:
        args.append("--ackEvery=%d" % rng.choice([2, 4]))
    if rng.random() < 0.2 and cc == "ldcp":
        args.append("--fastStart=0")
    return ("ldcp-incast", args)


def draw_churn(rng):
    return ("ldcp-churn", [
        "--cc=" + rng.choice(["ldcp", "ldcp-rate"]),
        "--long=%d" % rng.randint(0, 3),
        "--shortHosts=%d" % rng.randint(1, 6),
        "--longSize=%d" % rng.choice([50000, 200000]),
        "--load=%.2f" % rng.choice([0.1, 0.3, 0.6]),
        "--warmup=%dus" % rng.choice([0, 20, 100]),
        "--churn=%dus" % rng.choice([50, 150]),
        "--seed=%d" % rng.randint(1, 1000),
        "--limit=200ms",
    ])


def draw(rng):
    return draw_churn(rng) if rng.random() < 0.25 else draw_incast(rng)


LOSSLESS_SCHEMES = ("dcqcn", "hpcc", "timely", "dctcp")


def draw_fabric(rng):
    """One small fat-tree-workload configuration: any scheme, any traffic pattern and size
    distribution, RCM on half of the runs with its options drawn too."""
    k = rng.choice([2, 4, 4, 6])
    pattern = rng.choice(["uniform", "group", "hotspot", "incast"])
    args = ["--k=%d" % k, "--cc=" + rng.choice(LOSSLESS_SCHEMES + ("dcqcn", "ldcp", "ldcp-rate", "none")),
            "--duration=%dus" % rng.choice([20, 50, 100]),
            "--load=%.2f" % rng.choice([0.1, 0.3, 0.6, 0.9]),
            "--seed=%d" % rng.randint(1, 10**6), "--pattern=" + pattern,
            "--cdf=workloads/" + rng.choice(["WebSearch_distribution.txt", "DataMining_distribution.txt",
                                             "FbHdp_distribution.txt", "GoogleRPC2008.txt",
                                             "AliStorage2019.txt"]),
            "--limit=200ms"]
    if k == 2:
        # 2 hosts: one sender per incast, groups of 2
        args.append("--incastSenders=1" if pattern == "incast" else "--group=2")
    if rng.random() < 0.3:
        args.append("--oversub=%d" % rng.choice([2, 3]))
    if rng.random() < 0.3:
        args.append("--rate=" + rng.choice(["25Gbps", "40Gbps", "100Gbps", "400Gbps"]))
    if rng.random() < 0.2:
        args.append("--mtu=%d" % rng.choice([512, 1000, 4000]))
    if arg(args, "cc") == "none":
        # line rate without congestion control is only sane lossless: lossy, an oversubscribed
        # uplink drops 2/3 of a long flow and go-back-N collapses (the run then says so, exit 3)
        args.append("--pfc=1")
    elif rng.random() < 0.2:
        args.append("--pfc=%d" % rng.randint(0, 1))
    if rng.random() < 0.5:
        args.append("--rcm=1")
        for p, name, values in ((0.5, "rcmSarMode", ["off", "new", "flowlet", "packet"]),
                                (0.3, "rcmRccTimed", ["1"]),
                                (0.3, "rcmRccMeasure", ["1us", "2us", "5us"]),
                                (0.3, "rcmRccRecoverTime", ["0us", "5us", "20us"]),
                                (0.3, "rcmCfrMinHits", ["1", "2", "4", "8"]),
                                (0.3, "rcmCamDepth", ["8", "16", "32"]),
                                (0.3, "rcmQeq", ["5KB", "20KB", "80KB"])):
            if rng.random() < p:
                args.append("--%s=%s" % (name, rng.choice(values)))
    return ("fat-tree-workload", args)


def arg(args, name, default=None):
    for a in args:
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return default


class RandomScenarios(ExampleTest):
    N = 200 if LONG else 40

    def check_run(self, example, args, may_draw_nothing=False):
        """Runs and checks one configuration; returns its output directory. may_draw_nothing: a
        generator whose draw gives no flow must be refused (exit 2, one line naming --duration:
        no empty success); then returns None."""
        p, out = run_example(example, *args, expect_rc=None if may_draw_nothing else 0, timeout=300)
        if may_draw_nothing and p.returncode == 2 and "draws no flow" in p.stdout:
            self.assert_config_error(p.stdout, os.listdir(out), "invalid --duration = ", "draws no flow")
            return None
        self.assertEqual(p.returncode, 0, "%s %s: %s" % (example, " ".join(args), p.stdout[-2000:]))
        s = summary(out)
        what = "%s %s" % (example, " ".join(args))
        self.assertEqual(s["invariants"], "ok", what)
        self.assertIs(s["complete"], True, what)
        # every byte delivered exactly once
        self.assertEqual(s["bytes_delivered"], s["bytes_sent"], what)
        rows = read_csv(out, "fct.csv")
        self.assertEqual(len(rows), s["flows_total"], what)
        for r in rows:
            # no flow below its lower bound; slowdown = fct / ideal >= 1
            self.assertGreaterEqual(int(r["fct_ns"]), int(r["ideal_fct_ns"]), (what, r))
            self.assertGreaterEqual(float(r["slowdown"]), 1.0, (what, r))
        # lossless means no drop (default headroom); control frames are never dropped
        if arg(args, "pfc") == "1":
            self.assertEqual(s["drops_total"], 0, what)
        self.assertEqual(s["drops"]["control"], 0, what)
        # the bottleneck queue never exceeds the lossy queue limit, nor the switch buffer
        if arg(args, "pfc") != "1":
            self.assertLessEqual(s["queue_max_bytes"], s["buf_max_bytes"], what)
            self.assertGreaterEqual(s["buf_max_bytes"], 2000000, what)
        self.assertLessEqual(s["queue_max_bytes"], 12000000, what)
        # goodput at the bottleneck's receiver, measured from stable_from to the first
        # completion, is packet-granular: as the run's own invariant, it may exceed the wire
        # limit by one MTU over that span (a span of 822 ns at 100 Gb/s: ~10 Gb/s)
        stable, first = s["stable_from_ns"], s["first_done_ns"]
        if s["goodput_active_bps"] > 0 and stable >= 0:
            end = first if first > stable else s["sim_time_ns"]
            slack = int(arg(args, "mtu", "1000")) * 8 / ((end - stable) * 1e-9)
            self.assertLessEqual(s["goodput_active_bps"], s["wire_limit_bps"] * (1 + 1e-9) + slack, what)
        return out

    def test_random_configurations_keep_every_invariant(self):
        rng = random.Random(20261123)
        for i in range(self.N):
            example, args = draw(rng)
            with self.subTest(i=i, example=example, args=" ".join(args)):
                out = self.check_run(example, args)
                if i % 5 == 0:
                    # same seed, same bytes
                    _, again = run_example(example, *args, timeout=300)
                    for f in sorted(os.listdir(out)):
                        if f == "summary.json":
                            self.assertEqual(stable_summary(out), stable_summary(again), f)
                        else:
                            self.assertEqual(read_bytes(out, f), read_bytes(again, f), f)

    def test_random_fabrics_keep_every_invariant(self):
        # fat trees under every scheme, pattern and size distribution, with and without RCM
        # (its options drawn too): complete, conserved, above the FCT bound, lossless where
        # PFC is on, and in order (no go-back-N) on lossless RCM runs that never move a packet
        rng = random.Random(20261124)
        for i in range(self.N // 2):
            example, args = draw_fabric(rng)
            with self.subTest(i=i, args=" ".join(args)):
                pfc = arg(args, "pfc")
                lossless = pfc == "1" or (pfc is None and arg(args, "cc") in LOSSLESS_SCHEMES)
                out = self.check_run(example, args + (["--pfc=1"] if lossless and pfc is None else []),
                                     may_draw_nothing=True)
                if out is None:
                    continue  # refused: a draw of no flow (large flows in a short window)
                s = summary(out)
                self.assertEqual(s["drops_total"] if lossless else 0, 0, args)
                if lossless and arg(args, "rcm") == "1" and arg(args, "rcmSarMode") != "packet":
                    self.assertEqual(s["retx_bytes"], 0, args)
                if i % 5 == 0:
                    # same seed, same bytes
                    _, again = run_example(example, *args, timeout=300)
                    self.assertEqual(read_bytes(out, "fct.csv"), read_bytes(again, "fct.csv"), args)
                    self.assertEqual(stable_summary(out), stable_summary(again), args)

    def test_a_different_seed_changes_a_run_with_randomness(self):
        # ldcp-churn draws its arrivals from the seed's random streams
        base = ["--churn=100us", "--longSize=200000"]
        _, a = run_example("ldcp-churn", "--seed=1", *base)
        _, b = run_example("ldcp-churn", "--seed=2", *base)
        self.assertNotEqual(read_bytes(a, "fct.csv"), read_bytes(b, "fct.csv"))


# A small valid run of each example, so that accepted values finish quickly.
BASE = {
    "ldcp-incast": ["--senders=2", "--size=10000", "--limit=200us"],
    # limits long enough for an accepted value that slows the flows (--kmin=0 marks every
    # packet) to let them finish: an accepted value must give a run that exits 0
    "ldcp-churn": ["--long=1", "--shortHosts=2", "--longSize=20000", "--churn=20us",
                   "--warmup=10us", "--limit=5ms"],
    "pfc-incast": ["--senders=2", "--size=20000"],
    "red-ecn-dumbbell": ["--senders=1", "--simTime=2ms"],
    "ldcp-chain": ["--duration=50us", "--limit=1ms"],
    "dcqcn-convergence": ["--flows=2", "--stagger=10us", "--duration=50us", "--limit=1ms"],
    # one case each (a bad name of a list must still fail before any case runs)
    "dcqcn-fairness": ["--schemes=dcqcn", "--duration=50us", "--limit=1ms"],
    "dcqcn-victim": ["--schemes=dcqcn", "--extra=0", "--duration=50us", "--limit=1ms"],
    "fat-tree-workload": ["--k=4", "--cdf=workloads/GoogleRPC2008.txt", "--duration=5us",
                          "--load=0.1", "--limit=1s"],
    # hpcc-run: a small topology and flow file of its own (HPCC_TOPO, HPCC_FLOWS), written by
    # the test: --maxFlows=0 runs every flow of the file
    "hpcc-run": ["--limit=20ms"],
    "rcm-burst": ["--cases=rcm", "--burstStart=10us", "--burstBytes=10KB", "--duration=50us",
                  "--limit=1ms"],
    "rcm-victim": ["--cases=rcm", "--duration=50us", "--limit=1ms"],
    "read-incast": ["--cases=ldcp", "--servers=2", "--block=20000", "--limit=1ms"],
}

# one switch joining hosts 0, 1 (25 Gb/s) and 3 (100 Gb/s); two flows
HPCC_TOPO = "4 1 3\n2\n0 2 25Gbps 1us 0\n1 2 25Gbps 1us 0\n3 2 100Gbps 1us 0\n"
HPCC_FLOWS = "2\n3 0 3 100 20000 0\n1 3 3 100 10000 0.000001\n"

PROBES = ["-1", "0", "1e30", "nan", "", "12abc"]
# the same, written with the unit a duration or a rate needs (so the bounds are reached)
UNIT_PROBES = {
    "DURATION": ["-1us", "0us", "1e30s", "nanus", "1.5ns"],
    "RATE": ["-1Gbps", "0Gbps", "1e30Gbps", "nanGbps", "1.5bps"],
    "BYTES": ["-1KB", "1e30KB", "1.5"],
}
OPTION_RE = re.compile(r"^  --([A-Za-z][A-Za-z0-9]*)=([A-Z]+)", re.M)


def options_of(example):
    """[(option, KIND)] listed by --help (which must exit with status 0)."""
    p, _ = run_example(example, "--help", expect_rc=0, timeout=60)
    return OPTION_RE.findall(p.stdout)


def probe(example, option, value, base=None):
    """(option, value, exit status or "timeout", output, files left in --out); base: the valid
    run's options (default BASE[example])"""
    try:
        p, out = run_example(example, *(BASE[example] if base is None else base), "--%s=%s" % (option, value),
                             expect_rc=None, timeout=120)
    except subprocess.TimeoutExpired:
        return (option, value, "timeout", "", [])
    left = sorted(os.listdir(out)) if os.path.isdir(out) else []
    return (option, value, p.returncode, p.stdout, left)


class EveryOptionBadValues(ExampleTest):
    def check_example(self, example, extra=()):
        options = options_of(example)
        self.assertGreater(len(options), 3, example)
        base = BASE[example] + list(extra)
        jobs = [(example, o, v, base) for o, kind in options if o != "out"
                for v in PROBES + UNIT_PROBES.get(kind, [])]
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda j: probe(*j), jobs))
        for option, value, rc, text, left in results:
            what = "%s --%s=%s: exit %s\n%s" % (example, option, value, rc, text[-2000:])
            self.assertIn(rc, (0, 2), what)
            if rc == 2:
                self.assert_config_error(text, left, "--" + option, msg=what)
            else:
                # accepted: the run ended normally and wrote complete files only
                self.assertFalse([f for f in left if f.endswith(".partial")], what)
                self.assertIn("summary.json", left, what)

    def test_a_bad_name_in_a_list_fails_before_any_case_runs(self):
        # the first name is valid: its case must not run (no output) before the second is read
        for example, option, good in (("dcqcn-fairness", "schemes", "dcqcn"),
                                      ("dcqcn-victim", "schemes", "dcqcn"),
                                      ("dcqcn-victim", "extra", "0"),
                                      ("rcm-burst", "cases", "rcm"),
                                      ("rcm-victim", "cases", "rcm")):
            self.assertIn((option, "LIST"), options_of(example), example)
            for value in (good + ",foo", good + ",", "," + good, good + "," + good, "x" + good):
                with self.subTest(example=example, value=value):
                    _, _, rc, text, left = probe(example, option, value)
                    self.assertEqual(rc, 2, text)
                    line = self.assert_config_error(text, left, "--%s = %s" % (option, value))
                    self.assertIn("comma-separated list of distinct names among", line)

    def test_a_huge_buffer_is_not_memory_until_frames_fill_it(self):
        # the switch buffer is not allocated: a run's memory estimate counts at most the
        # frames of its flows, so the two incasts accept the same --buffer
        for example in ("ldcp-incast", "pfc-incast"):
            with self.subTest(example=example):
                _, out = run_example(example, *BASE[example], "--buffer=1e12")
                self.assertEqual(summary(out)["invariants"], "ok")

    def test_ldcp_incast(self):
        self.check_example("ldcp-incast")

    def test_ldcp_churn(self):
        self.check_example("ldcp-churn")

    def test_pfc_incast(self):
        self.check_example("pfc-incast")

    def test_red_ecn_dumbbell(self):
        self.check_example("red-ecn-dumbbell")

    def test_ldcp_chain(self):
        self.check_example("ldcp-chain")

    def test_dcqcn_convergence(self):
        self.check_example("dcqcn-convergence")

    def test_dcqcn_fairness(self):
        self.check_example("dcqcn-fairness")

    def test_dcqcn_victim(self):
        self.check_example("dcqcn-victim")

    def test_fat_tree_workload(self):
        self.check_example("fat-tree-workload")

    def test_hpcc_run(self):
        d = output_dir("hpcc-files")
        files = []
        for name, text in (("t.txt", HPCC_TOPO), ("f.flows", HPCC_FLOWS)):
            files.append(os.path.join(d, name))
            with open(files[-1], "w") as f:
                f.write(text)
        self.check_example("hpcc-run", ["--topo=" + files[0], "--flows=" + files[1]])

    def test_rcm_burst(self):
        self.check_example("rcm-burst")

    def test_rcm_victim(self):
        self.check_example("rcm-victim")

    def test_read_incast(self):
        self.check_example("read-incast")


if __name__ == "__main__":
    unittest.main()
