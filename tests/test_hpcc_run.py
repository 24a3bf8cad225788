"""End-to-end checks of hpcc-run: the HPCC simulator's topology and flow files run unchanged
(fat-tree-320 with the first flows of the 3201 web-search flows), the mapping of the files' ids,
per-link rates, and one named error for each kind of bad file (exit 2, nothing written)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, output_dir, read_csv, run_example, summary  # noqa: E402

TOPO = os.path.join(ROOT, "workloads", "fat-tree-320.txt")
FLOWS = os.path.join(ROOT, "workloads", "websearch-320hosts-load30-5ms.flows")


def file_flows(n):
    """The first n flows of the shipped flow file: (src, dst, priority, dport, bytes, start_ns)."""
    with open(FLOWS) as f:
        lines = [line.split() for line in f if line.strip()][1:]
    out = []
    for s, d, p, port, b, t in lines[:n]:
        out.append((int(s), int(d), int(p), int(port), int(b), round(float(t) * 1e9)))
    return out


class HpccRunFatTree(ExampleTest):
    def check_run(self, out, n):
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertTrue(s["complete"], s)
        self.assertEqual(s["flows_total"], n, s)
        self.assertEqual(s["flows_done"], n, s)
        flows = file_flows(n)
        total = sum(f[4] for f in flows)
        # bytes conserved: every byte of the file's first n flows delivered, once
        self.assertEqual(s["bytes_sent"], total, s)
        self.assertEqual(s["bytes_delivered"], total, s)
        self.assertEqual((s["hosts"], s["switches"], s["links"], s["flows_in_file"]), (320, 56, 480, 3201), s)
        # the bottleneck reported: toward the receiver of the most bytes, on its ToR (320 + h / 16)
        per_dst = {}
        for f in flows:
            per_dst[f[1]] = per_dst.get(f[1], 0) + f[4]
        busiest = min(per_dst, key=lambda d: (-per_dst[d], d))
        self.assertEqual(s["bottleneck_host"], busiest, s)
        self.assertEqual(s["bottleneck_switch"], 320 + busiest // 16, s)
        # the receiver's link is 100 Gb/s: 1000 B payloads in 1082 B on the wire
        self.assertAlmostEqual(s["wire_limit_bps"], 100e9 * 1000 / 1082, delta=1e3)
        # fct.csv: flows in file order, the file's ids (nodes are created in id order), sizes
        # and start times; every finish at or after the flow's lower bound
        rows = read_csv(out, "fct.csv")
        self.assertEqual(len(rows), n)
        for r, f in zip(rows, flows):
            self.assertEqual((int(r["src"]), int(r["dst"]), int(r["size_bytes"]), int(r["start_ns"])), (f[0], f[1], f[4], f[5]))
            self.assertGreaterEqual(int(r["fct_ns"]), int(r["ideal_fct_ns"]))
        return s

    def test_dcqcn_runs_the_first_50_flows_complete_and_lossless(self):
        _, out = run_example("hpcc-run", "--maxFlows=50", "--cc=dcqcn")
        s = self.check_run(out, 50)
        # DCQCN runs on a lossless priority: nothing dropped
        self.assertEqual(s["drops_total"], 0, s)
        self.assertEqual(s["scheme"], "dcqcn")
        # the file asks for 3, the NIC's default: one class, no per-class breakdown
        self.assertNotIn("classes", s)

    def test_line_rate_with_pfc_drops_nothing(self):
        _, out = run_example("hpcc-run", "--maxFlows=50", "--cc=none", "--pfc=1")
        s = self.check_run(out, 50)
        self.assertEqual(s["drops_total"], 0, s)
        self.assertEqual(s["retx_bytes"], 0, s)

    def test_only_the_flows_time_costs_events(self):
        # the flows start at t = 2 s: the 2 s before them cost no polling or queue sampling
        # (at 1 us that would be millions of events)
        _, out = run_example("hpcc-run", "--maxFlows=5", "--cc=dcqcn")
        s = self.check_run(out, 5)
        self.assertLess(s["events"], 1000000, s)
        times = [int(r["time_ns"]) for r in read_csv(out, "queue.csv")]
        self.assertGreaterEqual(min(times), file_flows(5)[0][5])


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# a switch joining hosts 0, 1 (25 Gb/s) and 3 (100 Gb/s): the ids are not in host-first order
SMALL_TOPO = "4 1 3\n2\n0 2 25Gbps 1us 0\n1 2 25Gb/s 1000ns 0\n3 2 100Gbps 0.001ms 0.000000\n"


class HpccRunSmallFiles(ExampleTest):
    def test_hosts_of_their_own_rates_and_the_files_priorities(self):
        d = output_dir("hpcc-files")
        topo = write(d, "t.txt", SMALL_TOPO)
        # host 3 sends 1 MB to host 0 (a 25 Gb/s receiver), at priority 5 from the file
        flows = write(d, "f.flows", "2\n3 0 5 100 1000000 0.000001\n1 3 3 100 20000 0\n")
        p, out = run_example("hpcc-run", "--topo=" + topo, "--flows=" + flows, "--cc=dcqcn", "--limit=10ms")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual((s["hosts"], s["switches"], s["links"]), (3, 1, 3), s)
        self.assertEqual(s["bytes_delivered"], 1020000, s)
        # the bottleneck is host 0's port; its wire limit is its own 25 Gb/s link's
        self.assertEqual(s["bottleneck_host"], 0, s)
        self.assertAlmostEqual(s["wire_limit_bps"], 25e9 * 1000 / 1082, delta=1e3)
        # one flow asks for priority 5: it runs there (a run of two classes: per-class outputs)
        self.assertEqual(sorted(s["classes"]), ["3", "5"], s)
        self.assertEqual((s["classes"]["3"]["flows"], s["classes"]["5"]["flows"]), (1, 1), s)
        # --rate defaults to the lowest-numbered host's link (25 Gb/s): DCQCN's K_min follows
        # it (5 KB at 40 Gb/s, scaled: 3125 B)
        self.assertEqual(s["k_min_bytes"], 3125, s)
        rows = read_csv(out, "fct.csv")
        self.assertEqual([(int(r["src"]), int(r["dst"])) for r in rows], [(3, 0), (1, 3)])
        self.assertEqual(int(rows[0]["start_ns"]), 1000)


class HpccRunBadFiles(ExampleTest):
    def bad(self, topo_text, flows_text, *expected):
        d = output_dir("hpcc-bad")
        topo = write(d, "topo.txt", topo_text) if topo_text is not None else TOPO
        flows = write(d, "w.flows", flows_text) if flows_text is not None else FLOWS
        p, out = run_example("hpcc-run", "--topo=" + topo, "--flows=" + flows, expect_rc=2)
        line = self.assert_config_error(p.stdout, os.listdir(out), *expected)
        return line, topo, flows

    def test_a_malformed_topology_line_names_file_line_and_field(self):
        text = SMALL_TOPO.replace("1 2 25Gb/s", "1 2 25Gbs")
        line, topo, _ = self.bad(text, None, "invalid rate = 25Gbs")
        self.assertIn("configuration error in topology file: %s:4: invalid rate = 25Gbs: must be a rate" % topo, line)
        line, topo, _ = self.bad(SMALL_TOPO.replace("3 2 100Gbps", "3 2"), None)
        self.assertIn("%s:5: invalid link = 3 2 0.001ms 0.000000: must be 5 fields" % topo, line)

    def test_a_nonzero_error_rate_is_refused(self):
        line, topo, _ = self.bad(SMALL_TOPO.replace("0.000000", "0.001"), None)
        self.assertIn("%s:5: invalid error_rate = 0.001: must be 0" % topo, line)

    def test_topology_count_mismatch_and_structure(self):
        line, topo, _ = self.bad(SMALL_TOPO.replace("4 1 3", "4 1 4"), None)
        self.assertIn("%s:1: invalid links = 4: the file has only 3 link lines" % topo, line)
        line, topo, _ = self.bad(SMALL_TOPO + "0 1 1Gbps 1us 0\n", None)
        self.assertIn("%s:6: invalid links = 3" % topo, line)
        # a host with a second link
        line, topo, _ = self.bad(SMALL_TOPO.replace("4 1 3", "4 1 4") + "0 3 1Gbps 1us 0\n", None)
        self.assertIn("%s:6: invalid src = 0: host 0 already has its link (line 3)" % topo, line)

    def test_a_flow_to_an_unknown_host_names_its_line(self):
        flows = "3 \n0 1 3 100 1000 2.0\n5 400 3 100 1000 2.0\n0 2 3 100 1 2\n"
        line, _, path = self.bad(None, flows)
        self.assertIn("configuration error in flow file: %s:3: invalid dst = 400: is not a node of the topology (ids 0..375)" % path, line)
        # a switch is no host either
        line, _, path = self.bad(None, flows.replace("5 400", "5 330"))
        self.assertIn("%s:3: invalid dst = 330: is a switch of the topology, not a host" % path, line)

    def test_a_flow_count_mismatch_names_the_count(self):
        line, _, path = self.bad(None, "5\n0 1 3 100 1000 2.0\n1 0 3 100 1000 2.0\n")
        self.assertIn("%s:1: invalid count = 5: the file has only 2 flow lines" % path, line)
        line, _, path = self.bad(None, "1\n0 1 3 100 1000 2.0\n1 0 3 100 1000 2.0\n")
        self.assertIn("%s:3: invalid count = 1: line 1 declares 1 flows" % path, line)

    def test_bad_flow_fields(self):
        for row, text in [
            ("0 1 3 100 0 2.0", "invalid bytes = 0"),
            ("0 1 9 100 10 2.0", "invalid priority = 9: must be in [0, 7]"),
            ("0 1 3 100 10 -2", "invalid start_seconds = -2"),
            ("0 0 3 100 10 2", "invalid dst = 0: must differ from src"),
        ]:
            line, _, path = self.bad(None, "1\n%s\n" % row)
            self.assertIn("%s:2: %s" % (path, text), line)

    def test_switch_options_are_checked_against_each_switchs_own_links(self):
        # a ToR of fat-tree-320: 16 ports at 100 Gb/s (28310 B of headroom each) and 4 at
        # 400 Gb/s (103310 B each), 866200 B in all, which 500 KB cannot hold
        p, out = run_example("hpcc-run", "--pfc=1", "--buffer=500000", expect_rc=2)
        self.assert_config_error(
            p.stdout,
            os.listdir(out),
            "invalid --buffer = 500000 B",
            "the PFC headroom of 20 ports x 1 lossless priorities (866200 B)",
            "(switch 320 of workloads/fat-tree-320.txt)",
        )

    def test_a_missing_file_names_the_option(self):
        d = output_dir("hpcc-missing")
        p, out = run_example("hpcc-run", "--topo=" + os.path.join(d, "nope.txt"), expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "invalid --topo = ", "nope.txt: no such file")


if __name__ == "__main__":
    unittest.main()
