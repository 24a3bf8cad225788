"""Hostile input (issue 24): every input gets one clear answer, bounded work and no empty success.

1. Files. Every example that reads a file (hpcc-run --topo --flows; fat-tree-workload
   --topology --flows --cdf; ldcp-churn --cdf) is fed random bytes, real files truncated at
   random points, a byte-order mark, a NUL byte, a directory, a missing file and degenerate
   distributions (all mass at 0 bytes, sizes beyond the byte counters, a flow file of no flow).
   Each must be refused before anything runs: exit status 2, exactly one line on standard
   error naming the option or the file, and no file (no `.partial` one either) in --out.

2. Bounded work and no empty success: arrival loops whose expected flow count is out of reach
   and runs that would simulate no flow are refused the same way, naming the option to change.

3. --help tells the truth: for every option of every example whose rule in --help has bounds
   ("[1, 9000]", "(0, 1]", ">= 2"), a value at each closed bound is accepted by the option
   parser and a value just outside each bound is refused naming the option. The parser stops
   at the first bad argument, so a probe is followed by an unknown option: an accepted value
   gives the unknown option's error, a refused one its own (each probe is a start-up only).
"""

import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, output_dir, run_example  # noqa: E402

WORKLOADS = os.path.join(ROOT, "workloads")
TOPO_320 = os.path.join(WORKLOADS, "fat-tree-320.txt")
FLOWS_320 = os.path.join(WORKLOADS, "websearch-320hosts-load30-5ms.flows")
CDFS = ["WebSearch_distribution.txt", "GoogleRPC2008.txt", "DataMining_distribution.txt",
        "FbHdp_distribution.txt", "AliStorage2019.txt"]

# one switch joining hosts 0, 1 and 3; two flows (as test_generative's hpcc-run files)
HPCC_TOPO = b"4 1 3\n2\n0 2 25Gbps 1us 0\n1 2 25Gbps 1us 0\n3 2 100Gbps 1us 0\n"
HPCC_FLOWS = b"2\n3 0 3 100 20000 0\n1 3 3 100 10000 0.000001\n"


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Files:
    """Writes the hostile inputs into one directory; each case is (name, path)."""

    def __init__(self, seed):
        self.dir = output_dir("hostile-files")
        self.rng = random.Random(seed)

    def put(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def common(self, real):
        """The cases every file option gets; real: the bytes of a valid file of its kind."""
        rng = self.rng
        cases = []
        for i in range(3):
            cases.append(("random-%d" % i, self.put("random-%d.bin" % i, bytes(rng.getrandbits(8) for _ in range(4096)))))
        # random bytes after a valid start: the error is further in
        cases.append(("valid-then-binary", self.put("tail.bin", real[: len(real) // 2] + bytes(rng.getrandbits(8) for _ in range(64)))))
        cases.append(("bom", self.put("bom.txt", b"\xef\xbb\xbf" + real)))
        cases.append(("nul", self.put("nul.txt", real[:3] + b"\x00" + real[3:])))
        cases.append(("latin1", self.put("latin1.txt", b"caf\xe9 " + real)))
        cases.append(("utf16", self.put("utf16.txt", real.decode("ascii").encode("utf-16"))))
        cases.append(("empty", self.put("empty.txt", b"")))
        cases.append(("directory", self.dir))
        cases.append(("missing", os.path.join(self.dir, "no-such-file.txt")))
        return cases

    def truncated(self, name, real, n=4):
        """real cut at n random points inside it (never within its last line, which could
        leave a shorter but valid last value)."""
        last = real.rstrip(b"\n").rfind(b"\n")
        return [("%s-cut-%d" % (name, i), self.put("%s-cut-%d" % (name, i), real[:self.rng.randint(1, max(1, last - 1))]))
                for i in range(n)]


def refusal(example, args):
    """(exit status, standard error, standard output, files left in --out)."""
    p, out = run_example(example, *args, expect_rc=None, timeout=120, split_stderr=True)
    left = sorted(os.listdir(out)) if os.path.isdir(out) else []
    return p.returncode, p.stderr, p.stdout, left


class HostileFiles(ExampleTest):
    def assert_refused(self, example, args, *expected):
        rc, err, out, left = refusal(example, args)
        what = "%s %s: exit %s\nstderr: %s\nstdout: %s" % (example, " ".join(args), rc, err[-2000:], out[-500:])
        self.assertEqual(rc, 2, what)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, what)
        self.assertTrue(lines[0].startswith("rdma-cc: configuration error in "), what)
        for e in expected:
            self.assertIn(e, lines[0], what)
        self.assertFalse([f for f in left if f.endswith(".partial")], what)
        self.assertEqual(left, [], what)
        return lines[0]

    def run_cases(self, jobs):
        """jobs: [(example, args, expected...)], run two at a time."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda j: (j, refusal(j[0], j[1])), jobs))
        for (example, args, *expected), (rc, err, out, left) in results:
            with self.subTest(example=example, args=" ".join(args)):
                what = "%s %s: exit %s\nstderr: %s\nstdout: %s" % (example, " ".join(args), rc, err[-2000:], out[-500:])
                self.assertEqual(rc, 2, what)
                lines = err.splitlines()
                self.assertEqual(len(lines), 1, what)
                for e in expected:
                    self.assertIn(e, lines[0], what)
                self.assertFalse([f for f in left if f.endswith(".partial")], what)
                self.assertEqual(left, [], what)

    def test_every_file_option_refuses_every_hostile_file_with_one_line(self):
        files = Files(20261128)
        topo = files.put("t.txt", HPCC_TOPO)
        flows = files.put("f.flows", HPCC_FLOWS)
        web = os.path.join(WORKLOADS, "WebSearch_distribution.txt")
        fat_base = ["--k=4", "--duration=5us", "--load=0.1", "--limit=20ms"]
        churn_base = ["--long=1", "--shortHosts=2", "--longSize=20000", "--churn=20us", "--warmup=10us",
                      "--limit=500us"]
        # (example, the option, the valid run it joins, a valid file of its kind)
        targets = [
            ("hpcc-run", "--topo", ["--flows=" + flows, "--limit=20ms"], read(TOPO_320), "fat-tree-320"),
            ("hpcc-run", "--flows", ["--topo=" + topo, "--limit=20ms"], HPCC_FLOWS, None),
            ("fat-tree-workload", "--topology", fat_base[1:] + ["--cdf=" + web], read(TOPO_320), "fat-tree-320"),
            ("fat-tree-workload", "--flows", ["--limit=20ms", "--topology=" + TOPO_320], read(FLOWS_320), "flows-320"),
            ("fat-tree-workload", "--cdf", fat_base, read(web), None),
            ("ldcp-churn", "--cdf", churn_base, read(web), None),
        ]
        jobs = []
        for example, option, base, real, cut_name in targets:
            cases = files.common(real)
            if cut_name:
                cases += files.truncated(cut_name, real)
            for name, path in cases:
                # the line names the option (a file that cannot be read) or the file itself
                shown = option if name in ("directory", "missing") else path
                jobs.append((example, base + ["%s=%s" % (option, path)], shown))
        # the flow file of hpcc-run is checked against its topology: cut the 320-host pair's
        for name, path in files.truncated("flows-320", read(FLOWS_320)):
            jobs.append(("hpcc-run", ["--topo=" + TOPO_320, "--flows=" + path, "--limit=20ms"], path))
        # every CDF cut
        for cdf in CDFS:
            for name, path in files.truncated(cdf, read(os.path.join(WORKLOADS, cdf)), n=2):
                jobs.append(("fat-tree-workload", fat_base + ["--cdf=" + path], path))
                jobs.append(("ldcp-churn", churn_base + ["--cdf=" + path], path))
        self.run_cases(jobs)

    def test_degenerate_distributions_and_empty_flow_files_are_refused_by_the_reader(self):
        files = Files(1)
        fat_base = ["--k=4", "--duration=5us", "--load=0.1", "--limit=20ms"]
        churn_base = ["--long=1", "--shortHosts=2", "--longSize=20000", "--churn=20us", "--warmup=10us",
                      "--limit=500us"]
        jobs = []
        for name, text, expected in (
                ("zero", b"0 0\n", "the last point must be at 100"),
                ("all-zero", b"0 100\n", "invalid cdf_percent = 100: gives flows of size_bytes 0"),
                ("zero-then-zero", b"0 0\n0 100\n", "gives flows of size_bytes 0"),
                ("mass-at-zero", b"0 30\n1000 100\n", "gives flows of size_bytes 0"),
                ("huge", b"18446744073709551615 100\n", "invalid size_bytes = 18446744073709551615")):
            path = files.put(name + ".cdf", text)
            jobs.append(("fat-tree-workload", fat_base + ["--cdf=" + path], path, expected))
            jobs.append(("ldcp-churn", churn_base + ["--cdf=" + path], path, expected))
        topo = files.put("t.txt", HPCC_TOPO)
        empty = files.put("empty.flows", b"0\n")
        jobs.append(("hpcc-run", ["--topo=" + topo, "--flows=" + empty], empty,
                     "invalid count = 0: the file declares no flow"))
        huge = files.put("huge.flows", b"1\n3 0 3 100 18446744073709551615 0\n")
        jobs.append(("hpcc-run", ["--topo=" + topo, "--flows=" + huge], huge, "invalid bytes = 18446744073709551615"))
        self.run_cases(jobs)

    @unittest.skipIf(os.geteuid() == 0, "root reads a file of mode 000")
    def test_an_unreadable_file_is_named(self):
        files = Files(2)
        path = files.put("secret.cdf", b"1000 100\n")
        os.chmod(path, 0)
        self.assert_refused("ldcp-churn", ["--cdf=" + path], "invalid --cdf = %s: cannot be read: permission denied" % path)

    def test_a_path_or_value_that_is_not_utf8_is_refused_not_aborted(self):
        line = self.assert_refused("ldcp-churn", ["--cdf=/tmp/\udcff.cdf"], "invalid argument --cdf=", "must be UTF-8")
        self.assertNotIn("terminate", line)
        self.assert_refused("ldcp-incast", ["--cc=\udcff"], "invalid argument --cc=")


class BoundedWorkNoEmptySuccess(ExampleTest):
    def assert_refused(self, example, args, *expected):
        return HostileFiles.assert_refused(self, example, args, *expected)

    def test_a_churn_beyond_reach_is_refused_before_it_is_drawn(self):
        # grew to 6 GB in 67 s with no output
        line = self.assert_refused("ldcp-churn", ["--long=2", "--longSize=50000", "--warmup=10us", "--limit=5ms",
                                                  "--churn=100s", "--load=1", "--minShort=1", "--maxShort=1"],
                                   "invalid --churn = 100s: gives about ", "B of memory", "at most 4e6 flows")
        self.assertIn("lower --load", line)

    def test_one_byte_flows_on_a_fat_tree_are_refused_with_the_estimate(self):
        d = output_dir("hostile-cdf")
        path = os.path.join(d, "one-byte.cdf")
        with open(path, "w") as f:
            f.write("1 100\n")
        self.assert_refused("fat-tree-workload", ["--cdf=" + path, "--duration=100us"],
                            "invalid --duration = 100000ns: gives about ", "at most 4e6 flows")

    def test_runs_of_no_flow_are_refused(self):
        self.assert_refused("ldcp-churn", ["--long=0", "--load=0"], "invalid --load = 0: with --long = 0 gives no flow")
        d = output_dir("hostile-cdf")
        path = os.path.join(d, "tib.cdf")
        with open(path, "w") as f:
            f.write("1099511627776 100\n")
        self.assert_refused("fat-tree-workload", ["--cdf=" + path, "--duration=10us"],
                            "invalid --duration = 10000ns: draws no flow")

    def test_mtu_of_one_byte_runs_as_help_promises(self):
        p, _ = run_example("ldcp-incast", "--help", split_stderr=True)
        self.assertRegex(p.stdout, r"--mtu=BYTES\n[^\n]*Value: [^\n]*\[1, 9000\]")
        p, _ = run_example("ldcp-incast", "--mtu=1", "--senders=2", "--size=100", "--limit=1ms", split_stderr=True)
        self.assertEqual(p.stderr, "")


HELP_RE = re.compile(r"^  --([A-Za-z][A-Za-z0-9]*)=([A-Z]+)\n      (.*)$", re.M)
# the bounds a rule in --help states, as option_requirement writes them
INTERVAL_RE = re.compile(r"in ([\[(])(-?[0-9.e+]+), (-?[0-9.e+]+)([\])])")
AT_LEAST_RE = re.compile(r"(>=|≥|>) ?(-?[0-9.e+]+)")
UNITS = {"DURATION": "ns", "RATE": "bps"}
EXAMPLES = ["ldcp-incast", "ldcp-churn", "ldcp-chain", "pfc-incast", "red-ecn-dumbbell", "dcqcn-convergence",
            "dcqcn-fairness", "dcqcn-victim", "fat-tree-workload", "hpcc-run", "rcm-burst", "rcm-victim",
            "read-incast"]


def bounds_of(rule):
    """[(value, closed)] of the bounds a --help rule states, or [] when it states none."""
    m = INTERVAL_RE.search(rule)
    if m:
        return [(float(m.group(2)), m.group(1) == "["), (float(m.group(3)), m.group(4) == "]")]
    m = AT_LEAST_RE.search(rule)
    if m:
        return [(float(m.group(2)), m.group(1) != ">")]
    return []


def text(v, kind):
    s = ("%d" % v) if v == int(v) and abs(v) < 1e15 else repr(v)
    return s + UNITS.get(kind, "")


class HelpRangesAreEnforced(ExampleTest):
    def test_every_bounded_option_accepts_its_bounds_and_refuses_just_outside(self):
        jobs = []
        for example in EXAMPLES:
            p, _ = run_example(example, "--help", timeout=60)
            for name, kind, rest in HELP_RE.findall(p.stdout):
                if kind not in ("COUNT", "NUMBER", "BYTES", "DURATION", "RATE"):
                    continue
                rule = rest.split("Value: ", 1)[1] if "Value: " in rest else ""
                bounds = bounds_of(rule)
                whole = kind in ("COUNT", "BYTES", "DURATION", "RATE")
                # "(or 0/auto: ...)": 0 is a value of its own, outside the bounds
                zero_too = "or 0" in rule
                for i, (b, closed) in enumerate(bounds):
                    step = 1 if whole else max(abs(b) * 1e-6, 1e-9)
                    outside = b - step if i == 0 else b + step
                    if closed:
                        # the bound itself is accepted, the value just outside refused
                        jobs.append((example, name, text(b, kind), True, rule))
                        if not (whole and outside < 0) and abs(outside) < 1.8e19 and not (zero_too and outside == 0):
                            jobs.append((example, name, text(outside, kind), False, rule))
                    elif not (zero_too and b == 0):
                        jobs.append((example, name, text(b, kind), False, rule))

        def probe(job):
            example, name, value, _, _ = job
            p, _ = run_example(example, "--%s=%s" % (name, value), "--zzzNoSuchOption", expect_rc=None, timeout=60,
                               split_stderr=True)
            return p.returncode, p.stderr

        with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
            results = list(pool.map(probe, jobs))
        self.assertGreater(len(jobs), 50)
        for (example, name, value, accept, rule), (rc, err) in zip(jobs, results):
            with self.subTest(example=example, option=name, value=value):
                what = "%s --%s=%s (rule: %s): exit %s: %s" % (example, name, value, rule, rc, err)
                self.assertEqual(rc, 2, what)
                self.assertEqual(len(err.splitlines()), 1, what)
                if accept:
                    self.assertIn("unknown option --zzzNoSuchOption", err, what)
                else:
                    self.assertIn("invalid --%s = %s" % (name, value), err, what)


if __name__ == "__main__":
    unittest.main()
