"""One way in per parameter, and every run records what it ran (config.json).

- Every attribute that has a command-line option (each `Attribute: ns3::TYPE::ATTR` line of an
  example's --help) IS that option: setting it as `--ns3::TYPE::ATTR=V` gives the same
  config.json (less the command line) and the same fct.csv as `--OPTION=V`, or the same refusal;
  setting both to different values is refused, naming both.
- An attribute the example sets itself (the link rate, delay, lossless priorities) or one the run
  builds no object of is refused with one line; one it honours is recorded in config.json.
- `--config=FILE` replays a run: the replay's fct.csv is byte-identical to the original's.
- The data priority follows the NIC's Priority attribute: PFC frames and the marked queue move
  with it, and the flows' completion times do not change.
- ns-3's --PrintAttributes/--PrintTypeIds/--PrintGlobals/--PrintGroups work in every example.
- An unknown option or scheme name is answered with the closest known one.
"""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, read_bytes, read_csv, run_example  # noqa: E402
from test_summary_keys import RUNS  # noqa: E402

SMALL = ["--senders=2", "--size=20000"]


def help_text(example):
    p = subprocess.run(
        [os.path.join(BUILD, "examples", example), "--help"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, cwd=ROOT,
    )
    assert p.returncode == 0, p.stdout
    return p.stdout


def table_options(example):
    """(option, kind, rule, default, attribute) of every option of EXAMPLE's --help that names its
    ns-3 attribute."""
    out = []
    text = help_text(example)
    for m in re.finditer(r"^  --(\w+)=(\w+)\n      (.*?)\[([^\]]*)\]$", text, re.M | re.S):
        name, kind, body, default = m.groups()
        a = re.search(r"Attribute: (ns3::\w+::\w+)\.", body)
        if a:
            rule = re.search(r"Value: (.*?)\. ", body.replace("\n", " "))
            out.append((name, kind, rule.group(1) if rule else "", default, a.group(1)))
    return out


def to_ns(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    return float(m.group(1)) * scale[m.group(2)] if m else None


def other_value(kind, rule, default):
    """A valid-looking value of the option other than DEFAULT (the run may still refuse it)."""
    if kind == "BOOL":
        return "false" if default == "true" else "true"
    if kind == "NAME":
        m = re.search(r"one of (.*)", rule)
        choices = [c.strip() for c in m.group(1).split(",")] if m else []
        others = [c for c in choices if c != default]
        return others[0] if others else default
    if default == "auto" or default in ("0", "0ns", "0bps"):
        return {"COUNT": "2", "NUMBER": "0.5", "BYTES": "20000", "DURATION": "20us", "RATE": "1Gbps"}.get(kind, default)
    if kind == "COUNT":
        return str(int(default) + 1)
    if kind == "NUMBER":
        return repr(float(default) * 0.9)
    if kind == "BYTES":
        return str(int(float(default)) + 1000) if re.fullmatch(r"[0-9]+", default) else "20000"
    if kind == "DURATION":
        ns = to_ns(default)
        return "%dns" % (2 * ns) if ns else "20us"
    if kind == "RATE":
        m = re.fullmatch(r"([0-9.]+)(bps|Kbps|Mbps|Gbps)", default)
        scale = {"bps": 1, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
        return "%dbps" % (float(m.group(1)) * scale[m.group(2)] / 2) if m else "1Gbps"
    return default


def comparable_config(out):
    """config.json without what names how the run was asked for (its command line, --out)."""
    with open(os.path.join(out, "config.json")) as f:
        c = json.load(f)
    c.pop("command_line")
    c["options"].pop("out")
    return c


def scheme_for(option):
    """The scheme whose flows an option's value shapes (dcqcnG: dcqcn), so that the run uses it."""
    for s in ("dcqcn", "timely", "dctcp", "hpcc"):
        if option.startswith(s):
            return ["--cc=" + s]
    return []


class AttributeIsItsOption(ExampleTest):
    def check_example(self, example, base):
        opts = table_options(example)
        self.assertGreater(len(opts), 10, "%s --help names the attributes of its options" % example)
        for name, kind, rule, default, attr in opts:
            if name in ("cc", "out"):
                continue
            value = other_value(kind, rule, default)
            args = base + scheme_for(name)
            with self.subTest(option=name, value=value):
                p1, o1 = run_example(example, *args, "--%s=%s" % (name, value), expect_rc=None)
                p2, o2 = run_example(example, *args, "--%s=%s" % (attr, value), expect_rc=None)
                self.assertEqual(p1.returncode, p2.returncode, p1.stdout[-500:] + p2.stdout[-500:])
                if p1.returncode == 0:
                    self.assertEqual(comparable_config(o1), comparable_config(o2))
                    self.assertEqual(read_bytes(o1, "fct.csv"), read_bytes(o2, "fct.csv"))
                else:
                    self.assertEqual(p1.returncode, 2, p1.stdout[-800:])
                    self.assertIn(attr, p2.stdout, "the refusal names the attribute the user wrote")

    def test_every_nic_switch_and_rcm_attribute_of_ldcp_incast_is_its_option(self):
        self.check_example("ldcp-incast", SMALL)

    def test_every_red_ecn_attribute_of_red_ecn_dumbbell_is_its_option(self):
        opts = table_options("red-ecn-dumbbell")
        self.assertTrue(any(a.startswith("ns3::RedEcnQueueDisc::") for *_, a in opts), opts)
        for name, kind, rule, default, attr in opts:
            value = other_value(kind, rule, default)
            with self.subTest(option=name):
                base = ["--senders=1", "--simTime=1ms", "--transport=udp"]
                p1, o1 = run_example("red-ecn-dumbbell", *base, "--%s=%s" % (name, value), expect_rc=None)
                p2, o2 = run_example("red-ecn-dumbbell", *base, "--%s=%s" % (attr, value), expect_rc=None)
                self.assertEqual(p1.returncode, p2.returncode, p1.stdout[-500:] + p2.stdout[-500:])
                if p1.returncode == 0:
                    self.assertEqual(comparable_config(o1), comparable_config(o2))
                    self.assertEqual(read_bytes(o1, "queue.csv"), read_bytes(o2, "queue.csv"))

    def test_the_scheme_attribute_builds_the_schemes_fabric(self):
        # ns3::RdmaNic::Scheme=dcqcn is --cc=dcqcn: PFC on, DCQCN's marking, no drop
        p1, o1 = run_example("ldcp-incast", "--cc=dcqcn")
        p2, o2 = run_example("ldcp-incast", "--ns3::RdmaNic::Scheme=dcqcn")
        self.assertEqual(read_bytes(o1, "fct.csv"), read_bytes(o2, "fct.csv"))
        with open(os.path.join(o2, "summary.json")) as f:
            s = json.load(f)
        self.assertEqual(s["scheme"], "dcqcn")
        self.assertTrue(s["setup"]["pfc"])
        self.assertEqual(s["drops_total"], 0)
        self.assertIn("cc=dcqcn", p2.stdout.splitlines()[0])

    def test_the_mtu_attribute_is_the_mtu_option(self):
        _, o1 = run_example("ldcp-incast", "--mtu=4000", "--cc=dcqcn")
        _, o2 = run_example("ldcp-incast", "--ns3::RdmaNic::Mtu=4000", "--cc=dcqcn")
        self.assertEqual(read_bytes(o1, "fct.csv"), read_bytes(o2, "fct.csv"))
        self.assertEqual(comparable_config(o1), comparable_config(o2))

    def test_an_option_and_its_attribute_set_to_different_values_are_refused_naming_both(self):
        for args in (["--alpha=0.25", "--ns3::RdmaNic::Alpha=0.75"],
                     ["--ns3::RdmaNic::Scheme=dcqcn", "--cc=ldcp"],
                     ["--buffer=4MB", "--ns3::SwitchNode::BufferSize=8000000"]):
            with self.subTest(args=args):
                p, out = run_example("ldcp-incast", *args, expect_rc=2)
                line = self.assert_config_error(p.stdout, os.listdir(out), args[0], args[1])
                self.assertIn("different values", line)

    def test_the_same_value_twice_is_one_setting(self):
        _, o1 = run_example("ldcp-incast", *SMALL, "--alpha=0.25")
        _, o2 = run_example("ldcp-incast", *SMALL, "--alpha=0.25", "--ns3::RdmaNic::Alpha=0.25")
        self.assertEqual(read_bytes(o1, "fct.csv"), read_bytes(o2, "fct.csv"))


class AttributesTheRunDoesNotHold(ExampleTest):
    def test_attributes_the_example_sets_itself_are_refused_naming_the_option(self):
        for arg, option in (("--ns3::QbbNetDevice::DataRate=10Gbps", "--rate"),
                            ("--ns3::QbbChannel::Delay=10us", "--delay"),
                            ("--ns3::SwitchNode::PfcPriorities=0", "--pfc"),
                            ("--ns3::SwitchNode::EgressLimit=100000", "--bufMax"),
                            ("--ns3::SwitchNode::MmuMtu=2000", "--mtu")):
            for example in ("ldcp-incast", "fat-tree-workload", "pfc-incast"):
                if example == "pfc-incast" and option in ("--bufMax", "--mtu"):
                    continue
                with self.subTest(example=example, arg=arg):
                    p, out = run_example(example, arg, expect_rc=2)
                    self.assert_config_error(p.stdout, os.listdir(out), arg.split("=")[0][2:], option)

    def test_a_nic_attribute_from_the_environment_or_the_command_line_reaches_every_nic(self):
        # ldcp-incast builds one NIC by ns-3's attribute construction and copies the others
        # (RdmaNic::CreateMany), then gives each its options: the record reads every NIC's own
        # value (a list if they differed)
        for env, args in (({"NS_ATTRIBUTE_DEFAULT": "ns3::RdmaNic::Alpha=0.375"}, []),
                          ({}, ["--ns3::RdmaNic::Alpha=0.375"])):
            with self.subTest(env=env, args=args):
                _, out = run_example("ldcp-incast", "--senders=4", "--size=20000", *args, env=env)
                with open(os.path.join(out, "config.json")) as f:
                    c = json.load(f)
                self.assertEqual(c["attributes"]["ns3::RdmaNic"]["Alpha"], "0.375",
                                 "one value, held by all 5 NICs")

    def test_a_device_attribute_from_the_environment_or_the_command_line_reaches_every_device(self):
        # the fabric helper builds one device by ns-3's attribute construction and copies the
        # others (QbbNetDevice::CreateLike): the record reads every device's own value (a list
        # if they differed)
        for env, args in (({"NS_ATTRIBUTE_DEFAULT": "ns3::QbbNetDevice::PauseQuanta=1000"}, []),
                          ({}, ["--ns3::QbbNetDevice::PauseQuanta=1000"])):
            with self.subTest(env=env, args=args):
                _, out = run_example("ldcp-incast", "--senders=4", "--size=20000", *args, env=env)
                with open(os.path.join(out, "config.json")) as f:
                    c = json.load(f)
                self.assertEqual(c["attributes"]["ns3::QbbNetDevice"]["PauseQuanta"], "1000",
                                 "one value, held by all 10 devices")

    def test_an_attribute_of_a_type_the_run_does_not_build_is_refused(self):
        p, out = run_example("ldcp-incast", *SMALL, "--ns3::RedEcnQueueDisc::KMin=1000", expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "--ns3::RedEcnQueueDisc::KMin=1000",
                                 "builds no ns3::RedEcnQueueDisc")

    def test_an_attribute_the_run_holds_is_honoured_and_recorded(self):
        _, base = run_example("ldcp-incast", "--cc=dcqcn", "--senders=64")
        _, out = run_example("ldcp-incast", "--cc=dcqcn", "--senders=64", "--ns3::SwitchNode::XonDelta=20000")
        with open(os.path.join(out, "config.json")) as f:
            c = json.load(f)
        self.assertEqual(c["ns3_attributes_set"], {"ns3::SwitchNode::XonDelta": "20000"})
        self.assertEqual(c["attributes"]["ns3::SwitchNode"]["XonDelta"], "20000")
        # a larger XON hysteresis changes when PAUSEs end: the PFC trace differs
        self.assertNotEqual(read_bytes(base, "pfc.csv"), read_bytes(out, "pfc.csv"))

    def test_an_unknown_option_or_scheme_gets_the_closest_name(self):
        p, out = run_example("ldcp-incast", "--sender=3", expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "--sender", "did you mean --senders?")
        p, out = run_example("ldcp-incast", "--cc=dcqnc", expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "--cc", "did you mean dcqcn?")
        p, out = run_example("dcqcn-fairness", "--schemes=ldcp,dcqnc", expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "--schemes", "did you mean dcqcn?")


class EcmpSeed(ExampleTest):
    def test_ecmp_seed_changes_the_mapping_of_flows_to_paths_and_seed_does_not(self):
        # DCQCN Fig. 3: PFC only, 4 senders to R; which senders share a path decides the shares
        def shares(*args):
            _, out = run_example("dcqcn-fairness", "--cc=none", "--pfc=1", "--duration=2ms", *args)
            return json.load(open(os.path.join(out, "summary.json")))["throughput_bps"]

        base = shares()
        self.assertEqual(base, shares("--seed=2"), "--seed leaves ECMP alone (--help says so)")
        self.assertEqual(base, shares("--ecmpSeed=0"), "0: each switch's seed from its node id alone")
        moved = [shares("--ecmpSeed=%d" % s) for s in (1, 2, 3)]
        self.assertTrue(any(m != base for m in moved), "another --ecmpSeed, another mapping")
        self.assertEqual(shares("--ecmpSeed=3"), shares("--ns3::SwitchNode::EcmpSeed=3"))


class Mappings(ExampleTest):
    def test_dcqcn_fairness_reports_the_spread_over_ecmp_mappings(self):
        # DCQCN Fig. 3 is a spread over path mappings: --mappings=3 runs --ecmpSeed=1..3
        _, out = run_example("dcqcn-fairness", "--cc=none", "--pfc=1", "--duration=2ms", "--mappings=3")
        s = json.load(open(os.path.join(out, "summary.json")))["none"]
        self.assertEqual(s["mappings"], 3)
        per = []
        for k in (1, 2, 3):
            _, one = run_example("dcqcn-fairness", "--cc=none", "--pfc=1", "--duration=2ms", "--ecmpSeed=%d" % k)
            per.append(json.load(open(os.path.join(one, "summary.json")))["throughput_bps"])
            mapped = json.load(open(os.path.join(out, "map-%d" % k, "summary.json")))["throughput_bps"]
            self.assertEqual(mapped, per[-1], "map-%d is the run at --ecmpSeed=%d" % (k, k))
        for h in ("H1", "H2", "H3", "H4"):
            vals = [p[h] for p in per]
            self.assertAlmostEqual(s["throughput_bps"][h], sum(vals) / 3, delta=1e3)
            self.assertAlmostEqual(s["throughput_min_bps"][h], min(vals), delta=1e3)
            self.assertAlmostEqual(s["throughput_max_bps"][h], max(vals), delta=1e3)
        self.assertTrue(any(s["throughput_max_bps"][h] - s["throughput_min_bps"][h] > 1e9 for h in s["throughput_bps"]),
                        "the mappings give the senders different shares")
        p, out = run_example("dcqcn-fairness", "--mappings=2", "--ecmpSeed=3", expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "--ecmpSeed=3", "--mappings=2")

    def test_dcqcn_victim_reports_the_victims_range_over_ecmp_mappings(self):
        # DCQCN Fig. 4: the victim's throughput over path mappings
        args = ["--cc=none", "--pfc=1", "--extra=0", "--duration=2ms"]
        _, out = run_example("dcqcn-victim", *args, "--mappings=3")
        s = json.load(open(os.path.join(out, "summary.json")))["none-extra0"]
        victims = []
        for k in (1, 2, 3):
            _, one = run_example("dcqcn-victim", *args, "--ecmpSeed=%d" % k)
            victims.append(json.load(open(os.path.join(one, "summary.json")))["none-extra0"]["victim_bps"])
            self.assertTrue(os.path.exists(os.path.join(out, "extra0", "map-%d" % k, "fct.csv")))
        self.assertEqual(s["mappings"], 3)
        self.assertAlmostEqual(s["victim_bps"], sum(victims) / 3, delta=1e3)
        self.assertAlmostEqual(s["victim_min_bps"], min(victims), delta=1e3)
        self.assertAlmostEqual(s["victim_max_bps"], max(victims), delta=1e3)


class Priority(ExampleTest):
    def test_priority_5_runs_lossless_on_class_5_with_the_same_fcts(self):
        _, o3 = run_example("ldcp-incast", "--cc=dcqcn", "--senders=64")
        for arg in ("--priority=5", "--ns3::RdmaNic::Priority=5"):
            with self.subTest(arg=arg):
                _, o5 = run_example("ldcp-incast", "--cc=dcqcn", "--senders=64", arg)
                pfc3 = read_csv(o3, "pfc.csv")
                pfc5 = read_csv(o5, "pfc.csv")
                self.assertGreater(len(pfc5), 0, "the 64-sender incast pauses")
                self.assertEqual({r["prio"] for r in pfc3}, {"3"})
                self.assertEqual({r["prio"] for r in pfc5}, {"5"}, "PFC frames name priority 5")
                self.assertEqual(len(pfc3), len(pfc5))
                s3 = json.load(open(os.path.join(o3, "summary.json")))
                s5 = json.load(open(os.path.join(o5, "summary.json")))
                self.assertEqual(s5["setup"]["priority"], 5)
                self.assertEqual(s3["marks"], s5["marks"], "class 5 is the marked class")
                self.assertGreater(s5["marks"], 0)
                self.assertEqual(s3["queue_max_bytes"], s5["queue_max_bytes"], "the queue reported is class 5's")
                self.assertEqual(read_bytes(o3, "fct.csv"), read_bytes(o5, "fct.csv"))


# Examples on ns-3's own CommandLine instead of the shared options (the plain ns-3 guide of
# docs/writing-a-scenario.md): their config.json is a record (rdmacc::WriteRunRecord: command
# line, attributes as built, build), with no option table and no --config replay;
# test_plain_ns3_examples_use_ns3s_command_line checks that each is one.
PLAIN_NS3 = {"plain-ns3-incast"}


class RunsRecordThemselves(ExampleTest):
    def test_plain_ns3_examples_use_ns3s_command_line(self):
        for example in sorted(PLAIN_NS3):
            self.assertIn("General Arguments:", help_text(example))
            self.assertNotIn("Options (VALUE rules, [default]):", help_text(example))

    def test_every_example_writes_config_json_with_what_it_ran(self):
        for example, args in RUNS:
            with self.subTest(example=example, args=args):
                _, out = run_example(example, *args)
                with open(os.path.join(out, "config.json")) as f:
                    c = json.load(f)
                self.assertEqual(c["example"], example)
                self.assertEqual(c["command_line"], ["--out=" + out] + args)
                if example in PLAIN_NS3:
                    self.assertIn("ns3::RdmaNic", c["attributes"])
                else:
                    self.assertEqual(c["options"]["out"], out)
                self.assertEqual(c["build"]["ns3_version"][:2], "3.")
                self.assertNotEqual(c["build"]["rdma_cc_revision"], "")
                self.assertIn("RngRun", c["global_values"])
                with open(os.path.join(out, "summary.json")) as f:
                    s = json.load(f)
                if "setup" in s:  # a run of several cases has one per case
                    for key in ("scheme", "preset", "rate_bps", "delay_ns", "pfc", "mtu_bytes" if example != "red-ecn-dumbbell" else "seed"):
                        self.assertIn(key, s["setup"])

    def test_fat_tree_workload_records_its_rate(self):
        _, out = run_example("fat-tree-workload", "--k=4", "--duration=500us", "--rate=25Gbps")
        s = json.load(open(os.path.join(out, "summary.json")))
        self.assertEqual(s["setup"]["rate_bps"], 25 * 10**9)
        c = json.load(open(os.path.join(out, "config.json")))
        self.assertEqual(c["resolved"]["rate_bps"], 25 * 10**9)
        rates = c["attributes"]["ns3::QbbNetDevice"]["DataRate"]
        self.assertIn("25000000000bps", [rates] if isinstance(rates, str) else rates)

    def test_a_replay_of_config_json_gives_the_same_fct_csv(self):
        for example, args in (("ldcp-incast", ["--senders=8", "--cc=dcqcn", "--alpha=0.3"]),
                              ("fat-tree-workload", ["--k=4", "--duration=100us", "--seed=3"]),
                              ("hpcc-run", ["--maxFlows=20"]),
                              ("ldcp-churn", RUNS[1][1])):
            with self.subTest(example=example):
                _, first = run_example(example, *args)
                _, again = run_example(example, "--config=" + os.path.join(first, "config.json"))
                self.assertEqual(read_bytes(first, "fct.csv"), read_bytes(again, "fct.csv"))
                a = json.load(open(os.path.join(first, "config.json")))
                b = json.load(open(os.path.join(again, "config.json")))
                self.assertEqual(b["replayed"], os.path.join(first, "config.json"))
                for k in ("resolved", "attributes", "ns3_attributes_set"):
                    self.assertEqual(a[k], b[k], k)

    def test_a_replay_takes_options_given_beside_it(self):
        _, first = run_example("ldcp-incast", *SMALL)
        _, other = run_example("ldcp-incast", *SMALL, "--cc=dcqcn")
        _, again = run_example("ldcp-incast", "--config=" + os.path.join(first, "config.json"), "--cc=dcqcn")
        self.assertEqual(read_bytes(other, "fct.csv"), read_bytes(again, "fct.csv"))

    def test_a_bad_config_file_is_refused_with_one_line(self):
        _, first = run_example("ldcp-incast", *SMALL)
        cases = [
            ("/nonexistent/config.json", "no such file"),
            (first, "is a directory"),
            (os.path.join(first, "summary.json"), "not a config.json"),
        ]
        for path, why in cases:
            with self.subTest(path=path):
                p, out = run_example("ldcp-incast", "--config=" + path, expect_rc=2)
                self.assert_config_error(p.stdout, os.listdir(out), "--config", why)
        p, out = run_example("pfc-incast", "--config=" + os.path.join(first, "config.json"), expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "written by ldcp-incast")

    def test_a_case_of_a_run_of_several_points_to_the_runs_own_file(self):
        _, first = run_example("dcqcn-fairness", "--duration=200us")
        self.assertTrue(os.path.exists(os.path.join(first, "config.json")))
        p, out = run_example("dcqcn-fairness", "--config=" + os.path.join(first, "dcqcn", "config.json"),
                             expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "records case dcqcn")

    def test_a_dry_run_checks_and_builds_then_writes_nothing(self):
        p, out = run_example("ldcp-incast", "--dryRun")
        self.assertIn("dry run", p.stdout)
        self.assertEqual(os.listdir(out), [])
        p, out = run_example("ldcp-incast", "--dryRun", "--ns3::QbbChannel::Delay=3us", expect_rc=2)


class Ns3Listings(unittest.TestCase):
    def test_every_example_prints_ns3_listings(self):
        nic_attrs = {a for *_, a in table_options("ldcp-incast") if a.startswith("ns3::RdmaNic::")}
        examples = sorted({e for e, _ in RUNS})
        for example in examples:
            prog = os.path.join(BUILD, "examples", example)
            with self.subTest(example=example):
                p = subprocess.run([prog, "--PrintAttributes=ns3::RdmaNic"], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, universal_newlines=True)
                self.assertEqual(p.returncode, 0, p.stdout)
                listed = set(re.findall(r"--(ns3::RdmaNic::\w+)=", p.stdout))
                self.assertGreaterEqual(len(listed), 61)
                self.assertLessEqual(nic_attrs, listed)
                self.assertIn("ns3::RdmaNic::Priority", listed)
                for arg, want in (("--PrintTypeIds", "ns3::SwitchNode"), ("--PrintGlobals", "RngRun"),
                                  ("--PrintGroups", "RdmaCc"), ("--PrintGroup=RdmaCc", "ns3::QbbNetDevice")):
                    p = subprocess.run([prog, arg], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       universal_newlines=True)
                    self.assertEqual(p.returncode, 0, arg + p.stdout)
                    self.assertIn(want, p.stdout, arg)


if __name__ == "__main__":
    unittest.main()
