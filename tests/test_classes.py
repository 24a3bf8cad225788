"""Traffic classes (docs/classes.md): every flow's data priority comes from the flow (the HPCC
flow file's priority column, fat-tree-workload's --classes, or the NICs' --priority); --pfc and
--ecn name the lossless and the marked priorities; DWRR weights share a port between classes;
the outputs break flows, drops and PAUSEs down by class. Small real runs."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, output_dir, read_bytes, read_csv, run_example, summary  # noqa: E402

# one switch (node 5) joining hosts 0-4 at 100 Gb/s
STAR_TOPO = "6 1 5\n5\n" + "".join("%d 5 100Gbps 1us 0\n" % h for h in range(5))


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def flow_file(flows):
    """An HPCC flow file of (src, dst, priority, bytes) flows, all starting at 0."""
    return "%d\n" % len(flows) + "".join("%d %d %d 100 %d 0\n" % f for f in flows)


class FlowFilePriority(ExampleTest):
    def incast(self, prio, *args):
        d = output_dir("classes-files")
        topo = write(d, "t.txt", STAR_TOPO)
        # 4 x 5 MB at line rate into one 100 Gb/s port: more than the 12 MB buffer holds
        flows = write(d, "f.flows", flow_file([(h, 0, prio, 5000000) for h in (1, 2, 3, 4)]))
        return run_example("hpcc-run", "--topo=" + topo, "--flows=" + flows, "--cc=none", "--limit=10ms", *args)

    def test_priority_5_from_the_file_runs_lossless_on_class_5(self):
        _, out = self.incast(5, "--pfc=5")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["drops_total"], 0, s)
        # the 4-to-1 incast at line rate pauses, and every PFC frame names priority 5
        pfc = read_csv(out, "pfc.csv")
        self.assertGreater(len(pfc), 0, "the incast pauses")
        self.assertEqual({r["prio"] for r in pfc}, {"5"}, "PFC frames name priority 5")
        c = s["classes"]
        self.assertEqual(sorted(c), ["5"], c)
        self.assertTrue(c["5"]["lossless"], c)
        self.assertEqual(c["5"]["flows"], 4, c)
        self.assertEqual(c["5"]["pfc_pause_frames"], s["pfc_pause_frames"], c)
        self.assertEqual(c["5"]["pfc_pause_frames"], sum(1 for r in pfc if r["kind"] == "pause"))
        self.assertGreater(c["5"]["paused_ns"], 0, c)
        # the queue of the receiver's port is class 5's (the data priority 3's stays empty)
        self.assertGreater(c["5"]["bottleneck_queue_max_bytes"], 1000000, c)
        self.assertEqual(s["queue_max_bytes"], 0, "queue_* keys are --priority's queue")
        self.assertEqual([r["priority"] for r in read_csv(out, "fct.csv")], ["5"] * 4)

    def test_priority_5_is_lossy_when_pfc_names_only_3(self):
        # the same file with priority 3 lossless and 5 not: class 5 tail-drops, nothing pauses
        _, out = self.incast(5, "--pfc=3,4")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertFalse(s["classes"]["5"]["lossless"], s)
        self.assertGreater(s["classes"]["5"]["drops"], 0, s)
        self.assertEqual(s["classes"]["5"]["drops"], s["drops_total"], s)
        self.assertEqual(s["pfc_pause_frames"], 0, s)


class DwrrShares(ExampleTest):
    def test_two_classes_get_their_configured_dwrr_shares_within_5_percent(self):
        # host 1 on priority 3 and host 2 on priority 5 send 2 MB each to host 0, both classes
        # lossless (PFC keeps both queues of host 0's port backlogged); DWRR weights 3:1 give
        # class 3 three quarters of the port until its flow ends
        d = output_dir("classes-dwrr")
        topo = write(d, "t.txt", STAR_TOPO)
        size = 2000000
        flows = write(d, "f.flows", flow_file([(1, 0, 3, size), (2, 0, 5, size)]))
        _, out = run_example(
            "hpcc-run", "--topo=" + topo, "--flows=" + flows, "--cc=none", "--pfc=3,5",
            "--ns3::QbbNetDevice::DataScheduler=dwrr:1,1,1,3,1,1,1,1",
            "--limit=10ms",
        )
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        rows = {r["priority"]: r for r in read_csv(out, "fct.csv")}
        limit = s["wire_limit_bps"]
        fct3 = int(rows["3"]["fct_ns"])
        fct5 = int(rows["5"]["fct_ns"])
        self.assertLess(fct3, fct5, rows)
        # class 3's share while both sent: its bytes over its FCT, against the port's payload limit
        share3 = size * 8 / (fct3 * 1e-9) / limit
        self.assertAlmostEqual(share3, 0.75, delta=0.75 * 0.05, msg=(share3, rows))
        # class 5 got the rest: a quarter of the port meanwhile, then the whole port
        sent5 = size - (fct5 - fct3) * 1e-9 * limit / 8
        share5 = sent5 * 8 / (fct3 * 1e-9) / limit
        self.assertAlmostEqual(share5, 0.25, delta=0.25 * 0.05, msg=(share5, rows))


class GeneratorClasses(ExampleTest):
    # line rate on a small buffer: the lossy class drops and the lossless one pauses
    ARGS = ["--k=4", "--load=1", "--duration=200us", "--cc=none", "--cdf=workloads/FbHdp_distribution.txt",
            "--buffer=1MB", "--bufMax=50KB", "--kfs=20KB", "--kmin=10KB", "--kmax=40KB"]

    @classmethod
    def setUpClass(cls):
        _, cls.plain = run_example("fat-tree-workload", *cls.ARGS)
        _, cls.out = run_example("fat-tree-workload", *cls.ARGS, "--classes=3:0.5,5:0.5", "--pfc=3")

    def test_per_class_outputs_sum_to_the_totals(self):
        s = summary(self.out)
        self.assertEqual(s["invariants"], "ok", s)
        c = s["classes"]
        self.assertEqual(sorted(c), ["3", "5"], c)
        self.assertTrue(c["3"]["lossless"] and not c["5"]["lossless"], c)
        for key, total in (("flows", "flows_total"), ("drops", "drops_total"), ("pfc_pause_frames", "pfc_pause_frames")):
            self.assertEqual(sum(v[key] for v in c.values()), s[total], (key, c))
        self.assertEqual(sum(v["unfinished"] for v in c.values()), s["flows_total"] - s["flows_done"], c)
        self.assertEqual(sum(v["bytes"] for v in c.values()), s["bytes_sent"], c)
        self.assertEqual(c["3"]["drops"], 0, "the lossless class drops nothing")
        self.assertGreater(c["5"]["drops"], 0, "the lossy class drops at --bufMax")
        self.assertGreater(c["3"]["pfc_pause_frames"], 0, "the lossless class pauses")
        self.assertEqual(c["5"]["pfc_pause_frames"], 0, "nothing pauses the lossy class")
        self.assertGreater(c["3"]["paused_ns"], 0, c)
        rows = read_csv(self.out, "fct.csv")
        for p in ("3", "5"):
            self.assertEqual(sum(1 for r in rows if r["priority"] == p), c[p]["flows"], p)
        # both classes got a fair part of the flows (each flow drawn with probability 1/2)
        self.assertGreater(min(c["3"]["flows"], c["5"]["flows"]), s["flows_total"] / 4, c)

    def test_classes_leave_the_flows_as_they_were_and_repeat_for_a_seed(self):
        def flows(out):
            return [(r["flow_id"], r["src"], r["dst"], r["size_bytes"], r["start_ns"]) for r in read_csv(out, "fct.csv")]

        self.assertEqual(flows(self.plain), flows(self.out))
        # the same seed draws the same classes: the same bytes
        _, again = run_example("fat-tree-workload", *self.ARGS, "--classes=3:0.5,5:0.5", "--pfc=3")
        self.assertEqual(read_bytes(self.out, "fct.csv"), read_bytes(again, "fct.csv"))
        # a run of one class has neither the column nor the breakdown
        self.assertNotIn("priority", read_csv(self.plain, "fct.csv")[0])
        self.assertNotIn("classes", summary(self.plain))


class PerPriorityMarking(ExampleTest):
    def test_ecn_marks_only_the_priorities_it_names(self):
        args = ["--cc=dcqcn", "--senders=4", "--size=300000"]
        _, marked = run_example("ldcp-incast", *args)
        _, other = run_example("ldcp-incast", *args, "--ecn=5")
        _, none = run_example("ldcp-incast", *args, "--ecn=none")
        m = summary(marked)
        self.assertGreater(m["marks"], 0, "DCQCN's incast marks on priority 3")
        self.assertNotIn("ecn_priorities", m["setup"], "the default keeps the setup it had")
        for out, names in ((other, "5"), (none, "")):
            s = summary(out)
            self.assertEqual(s["invariants"], "ok", s)
            self.assertEqual(s["marks"], 0, "priority 3 is not one of --ecn's: it never marks")
            self.assertEqual(s["setup"]["ecn_priorities"], names, s["setup"])


class ClassHol(ExampleTest):
    def test_one_lossless_class_blocks_the_other_flow_and_two_classes_do_not(self):
        p, out = run_example("class-hol", "--duration=1ms")
        s = summary(out)
        one, two = s["one-class"], s["two-classes"]
        for c in (one, two):
            self.assertEqual(c["exit_status"], 0, s)
            self.assertGreater(c["storage_pause_frames"], 0, "the storage incast pauses")
            # the storage incast fills R's 100 Gb/s link either way (payload limit ~92.4 Gb/s)
            self.assertGreater(c["storage_bps"], 85e9, s)
        # one class: the other flow waits behind the paused storage frames (at switch A and
        # at its sender's NIC) and gets a small part of R's rate; two classes: it takes what its
        # sender's link leaves after its storage flow's share (~80 of 92.4 Gb/s) ...
        self.assertLess(one["other_bps"], 20e9, s)
        self.assertGreater(two["other_bps"], 70e9, s)
        # ... while its own NIC's storage class is paused for over a third of the run: a paused
        # class does not block another one at the NIC
        self.assertGreater(two["sender_storage_paused_ns"], 1e6 / 3, s)
        self.assertIn("two-classes  other", p.stdout)
        two_summary = summary(os.path.join(out, "two-classes"))
        self.assertEqual(two_summary["classes"]["1"]["pfc_pause_frames"], 0, two_summary["classes"])


class BadClassOptions(ExampleTest):
    def check(self, example, args, *expected):
        p, out = run_example(example, *args, expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), *expected)

    def test_bad_priority_sets_and_mixes_are_refused_naming_the_option(self):
        self.check("ldcp-incast", ["--pfc=3,3"], "invalid --pfc = 3,3", "named twice")
        self.check("ldcp-incast", ["--pfc=8"], "invalid --pfc = 8")
        self.check("ldcp-incast", ["--ecn=yes"], "invalid --ecn = yes")
        self.check("fat-tree-workload", ["--classes=3:0.5"], "invalid --classes = 3:0.5", "sum to 0.5")
        self.check("fat-tree-workload", ["--classes=3:0.5,9:0.5"], "invalid --classes")


if __name__ == "__main__":
    unittest.main()
