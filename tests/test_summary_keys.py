"""Every example writes summary.json through one writer (rdmacc::SummaryWriter): each run's
summary has the shared keys (README "Outputs: the keys every summary.json has") with the same
JSON type and unit in every example, pfc-incast and red-ecn-dumbbell included. Runs every
example once, small."""

import glob
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, run_example  # noqa: E402

# a small run of every example (each a few seconds at most)
RUNS = [
    ("ldcp-incast", ["--senders=2", "--size=10000"]),
    ("ldcp-churn", ["--long=1", "--shortHosts=2", "--longSize=20000", "--churn=20us", "--warmup=10us"]),
    ("ldcp-chain", ["--duration=200us"]),
    ("pfc-incast", ["--senders=2", "--size=20000"]),
    ("red-ecn-dumbbell", ["--senders=1", "--simTime=2ms", "--transport=tcp"]),
    ("red-ecn-dumbbell", ["--senders=1", "--simTime=2ms", "--transport=udp"]),
    ("dcqcn-fairness", ["--duration=200us"]),
    ("dcqcn-victim", ["--duration=300us"]),
    ("class-hol", ["--duration=200us", "--senders=2"]),
    ("dcqcn-convergence", ["--duration=300us", "--stagger=50us"]),
    ("fat-tree-workload", ["--k=4", "--duration=50us"]),
    ("hpcc-run", ["--maxFlows=10"]),
    ("rcm-burst", ["--duration=100us"]),
    ("rcm-victim", ["--duration=100us"]),
    ("my-first-scenario", ["--size=10000"]),
    ("plain-ns3-incast", ["--senders=2", "--size=10000"]),
    ("read-incast", ["--servers=2", "--block=20000"]),
]

NUMBER = (int, float)  # a JSON number: the writer prints 6 significant digits, so 0.0 reads as 0
# key: (JSON type, unit check on the value)
SHARED = {
    "example": (str, None),
    "scheme": (str, None),
    "seed": (int, lambda v: v >= 1),
    "sim_time_ns": (int, lambda v: 1000 <= v <= 10**10),  # ns: these runs last 1 us to 10 s
    "wall_s": (NUMBER, lambda v: 0 <= v < 600),  # seconds
    "events": (int, lambda v: v > 0),
    "complete": (bool, None),
    "run_ends": (str, lambda v: v in ("flows_done", "duration")),
    "bytes_sent": (int, lambda v: v > 0),
    "bytes_delivered": (int, lambda v: v > 0),
    "drops": (dict, lambda v: all(type(n) is int for n in v.values()) and "queue_full" in v),
    "drops_total": (int, lambda v: v >= 0),
    "wire_limit_bps": (NUMBER, lambda v: 1e8 < v < 1e12),  # bit/s: links of 10-400 Gb/s
    "marks": (int, lambda v: v >= 0),
    "queue_max_bytes": (int, lambda v: v >= 0),
    "queue_avg_bytes": (NUMBER, lambda v: v >= 0),
    "invariants": (str, None),
}


def run_summaries(out):
    """{relative dir: summary} of every run summary under OUT: OUT/summary.json, or for an
    example of several cases each OUT/CASE/summary.json (OUT/summary.json is then their index)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(out, "*", "summary.json"))):
        with open(path) as f:
            found[os.path.relpath(os.path.dirname(path), out)] = json.load(f)
    with open(os.path.join(out, "summary.json")) as f:
        top = json.load(f)
    if found:
        # the index: one entry per case directory
        if set(top) != set(found):
            raise AssertionError("index %s, case directories %s" % (sorted(top), sorted(found)))
        return found
    return {".": top}


class SharedSummaryKeys(ExampleTest):
    @classmethod
    def setUpClass(cls):
        cls.runs = []
        for example, args in RUNS:
            _, out = run_example(example, *args)
            for case, s in run_summaries(out).items():
                cls.runs.append((example, args, case, s))

    def test_every_example_is_run(self):
        examples = {os.path.basename(p)[:-3] for p in glob.glob(os.path.join(ROOT, "examples", "*.cc"))}
        self.assertEqual(examples, {e for e, _ in RUNS})

    def test_every_summary_has_the_shared_keys_with_their_types_and_units(self):
        for example, args, case, s in self.runs:
            what = "%s %s [%s]: %s" % (example, " ".join(args), case, s)
            for key, (kind, ok) in SHARED.items():
                self.assertIn(key, s, what)
                v = s[key]
                # bool is an int in Python: only a bool where a bool is meant
                self.assertEqual(isinstance(v, bool), kind is bool, "%s: %s" % (key, what))
                self.assertIsInstance(v, kind, "%s: %s" % (key, what))
                if ok is not None:
                    self.assertTrue(ok(v), "%s = %r: %s" % (key, v, what))
            self.assertEqual(s["example"], example, what)
            self.assertEqual(s["invariants"], "ok", what)
            self.assertEqual(s["drops_total"], sum(s["drops"].values()), what)
            self.assertLessEqual(s["bytes_delivered"], s["bytes_sent"], what)
            self.assertLessEqual(s["queue_avg_bytes"], s["queue_max_bytes"], what)
            if s["run_ends"] == "flows_done":
                self.assertIs(s["complete"], True, what)

    def test_values_that_follow_from_the_options(self):
        by = {}
        for example, args, case, s in self.runs:
            by.setdefault(example, []).append((args, case, s))
        # the scheme: --cc where there is one (ldcp by default), none for raw senders and UDP,
        # tcp-dctcp for ns-3's DCTCP
        self.assertEqual(by["ldcp-incast"][0][2]["scheme"], "ldcp")
        self.assertEqual(by["pfc-incast"][0][2]["scheme"], "none")
        schemes = {args[-1]: s["scheme"] for args, _, s in by["red-ecn-dumbbell"]}
        self.assertEqual(schemes, {"--transport=tcp": "tcp-dctcp", "--transport=udp": "none"})
        # runs of fixed duration say so; the dumbbell's senders never finish
        for args, _, s in by["red-ecn-dumbbell"]:
            self.assertEqual((s["run_ends"], s["complete"]), ("duration", False), s)
            self.assertEqual(s["sim_time_ns"], 2000000, s)
            self.assertEqual(s["queue_max_sampled_bytes"] <= s["queue_max_bytes"], True, s)
        # wire limits in bit/s, each in its framing: 1000-B payloads in RoCEv2 frames (+82 B) at
        # 100 Gb/s; 1448-B TCP segments in PPP frames (+54 B) at 10 Gb/s
        self.assertAlmostEqual(by["ldcp-incast"][0][2]["wire_limit_bps"], 100e9 * 1000 / 1082, delta=1e4)
        self.assertAlmostEqual(by["pfc-incast"][0][2]["wire_limit_bps"], 100e9 * 1000 / 1082, delta=1e4)
        self.assertAlmostEqual(by["red-ecn-dumbbell"][0][2]["wire_limit_bps"], 10e9 * 1448 / 1502, delta=1)

    def test_a_shared_key_has_one_type_across_examples(self):
        kinds = {}
        for example, _, case, s in self.runs:
            for key in SHARED:
                v = s[key]
                kind = "bool" if isinstance(v, bool) else "number" if isinstance(v, NUMBER) else type(v).__name__
                kinds.setdefault(key, {}).setdefault(kind, set()).add(example)
        for key, k in kinds.items():
            self.assertEqual(len(k), 1, "%s: %s" % (key, k))


if __name__ == "__main__":
    unittest.main()
