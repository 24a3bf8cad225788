"""End-to-end checks of RDMA READ (docs/operations.md): read-incast (one client READs a block
striped over N servers) under LDCP, DCQCN and PFC alone; READ conservation and ordering, the
requester's repeat READ requests after lost responses (a lossy run), the READ flows of
fat-tree-workload --readFraction under every scheme, and the flow file's operation column."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, output_dir, read_bytes, read_csv, run_example, summary  # noqa: E402

MTU = 1000


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class ReadIncast(ExampleTest):
    def case(self, out, name):
        return summary(os.path.join(out, name))

    def check_reads(self, s, servers, block):
        """Every response byte delivered once, in order: the block's bytes reach the client,
        each READ completes, no response byte arrived twice (go-back-N drops what is out of
        order, and no responder resent what had arrived), and the invariants (which check each
        flow's delivered bytes against its size and its FCT against its ideal) hold."""
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["spurious_retx_bytes"], 0, s)
        self.assertIs(s["complete"], True, s)
        self.assertEqual(s["reads"]["flows"], servers, s)
        self.assertEqual(s["reads"]["done"], servers, s)
        self.assertEqual(s["reads"]["bytes_delivered"], block, s)
        self.assertEqual(s["bytes_delivered"], block, s)

    def check_fct(self, out, servers, block):
        rows = read_csv(out, "fct.csv")
        self.assertEqual(len(rows), servers)
        self.assertEqual({r["op"] for r in rows}, {"read"})
        # data direction: each server answers the one client (fct.csv: src = responder)
        clients = {r["dst"] for r in rows}
        self.assertEqual(len(clients), 1)
        self.assertEqual(len({r["src"] for r in rows} - clients), servers)
        self.assertEqual(sum(int(r["size_bytes"]) for r in rows), block)
        for r in rows:
            self.assertEqual(int(r["start_ns"]), 0)  # posted at 0: the FCT counts from the post
            self.assertGreaterEqual(int(r["fct_ns"]), int(r["ideal_fct_ns"]))
        return rows

    def test_ldcp_read_incast_has_no_stable_stage_drop_a_bounded_queue_and_re_requests(self):
        p, out = run_example("read-incast", "--cases=ldcp")
        s = self.case(out, "ldcp")
        self.check_reads(s, 16, 16000000)
        self.check_fct(os.path.join(out, "ldcp"), 16, 16000000)
        self.assertEqual(s["scheme"], "ldcp")
        # LDCP runs lossy: its first-RTT responses meet WRED at the client's port (K_fs) ...
        self.assertGreater(s["first_rtt_drops"], 0, s)
        # ... the client re-requests from each gap (no NAK), and the responders resend
        self.assertGreater(s["reads"]["repeat_requests"], 0, s)
        self.assertGreater(s["retx_bytes"], 0, s)
        # stable-stage responses are not lost; the client's queue is bounded: its largest is
        # the first-RTT burst (at most 2 x K_fs: the Not-ECT responses are dropped above K_fs),
        # and on average it stays below K_max, where LDCP's marking holds it
        self.assertEqual(s["stable_stage_drops"], 0, s)
        self.assertLessEqual(s["queue_max_bytes"], 2 * s["k_fs_bytes"], s)
        self.assertLess(s["queue_avg_bytes"], s["k_max_bytes"], s)
        # and the block arrives within 10 % of its ideal
        top = json.loads(read_bytes(out, "summary.json"))["ldcp"]
        self.assertLess(top["block_last_byte_ns"], 1.1 * top["block_ideal_ns"], top)
        self.assertIn("read-incast: one client READs", p.stdout)

    def test_pfc_only_read_incast_pauses_and_drops_nothing(self):
        p, out = run_example("read-incast", "--cases=pfc")
        s = self.case(out, "pfc")
        self.check_reads(s, 16, 16000000)
        self.check_fct(os.path.join(out, "pfc"), 16, 16000000)
        self.assertEqual(s["scheme"], "none")
        self.assertGreater(s["pfc_pause_frames"], 0, s)
        self.assertEqual(s["drops_total"], 0, s)
        self.assertEqual(s["retx_bytes"], 0, s)
        self.assertEqual(s["reads"]["repeat_requests"], 0, s)

    def test_the_table_has_every_case_and_the_last_byte_is_no_faster_than_the_ideal(self):
        p, out = run_example("read-incast", "--servers=4", "--block=400KB")
        top = json.loads(read_bytes(out, "summary.json"))
        self.assertEqual(sorted(top), ["dcqcn", "ldcp", "pfc"])
        for name, c in top.items():
            self.assertEqual(c["exit_status"], 0, (name, c))
            self.assertGreaterEqual(c["block_last_byte_ns"], c["block_ideal_ns"], (name, c))
            # 400 KB over the client's 100 Gb/s link takes 34.6 us on the wire: no case is
            # more than 3 times that
            self.assertLess(c["block_last_byte_ns"], 3 * c["block_ideal_ns"], (name, c))
        self.assertEqual(top["dcqcn"]["drops"], 0)  # DCQCN runs lossless
        for name in ("ldcp", "dcqcn", "pfc"):
            self.assertIn("\n  %s " % name, p.stdout)

    def test_lossy_line_rate_reads_recover_by_re_requesting(self):
        # no congestion control and no PFC: responses are tail-dropped at the client's port,
        # the client re-requests from each gap, and every byte still arrives once
        _, out = run_example("read-incast", "--cc=none", "--pfc=0", "--servers=8", "--block=1MB", "--bufMax=200KB", "--kfs=100KB")
        s = self.case(out, "none")
        self.check_reads(s, 8, 1000000)
        self.check_fct(os.path.join(out, "none"), 8, 1000000)
        self.assertGreater(s["stable_stage_drops"], 0, s)
        self.assertGreater(s["reads"]["repeat_requests"], 0, s)
        self.assertGreater(s["retx_bytes"], 0, s)


class ReadWorkload(ExampleTest):
    # a storage workload (Alibaba's block storage sizes): about 116 flows in 50 us
    ARGS = ("--k=4", "--load=0.5", "--duration=50us", "--cdf=workloads/AliStorage2019.txt")

    def test_read_fraction_runs_every_scheme(self):
        for cc in ("ldcp", "dcqcn", "hpcc", "timely", "dctcp"):
            with self.subTest(cc=cc):
                _, out = run_example("fat-tree-workload", *self.ARGS, "--readFraction=0.5", "--cc=" + cc)
                s = summary(out)
                self.assertEqual(s["invariants"], "ok", s)
                self.assertIs(s["complete"], True, s)
                rows = read_csv(out, "fct.csv")
                reads = [r for r in rows if r["op"] == "read"]
                self.assertGreater(len(reads), 0)
                self.assertLess(len(reads), len(rows))
                self.assertEqual(s["reads"]["flows"], len(reads), s)
                self.assertEqual(s["reads"]["done"], len(reads), s)
                self.assertEqual(s["reads"]["bytes_delivered"], sum(int(r["size_bytes"]) for r in reads), s)
                self.assertEqual(s["generated_reads"], len(reads), s)
                self.assertEqual(s["bytes_delivered"], s["generated_bytes"], s)

    def test_read_fraction_draws_only_the_operation(self):
        _, base = run_example("fat-tree-workload", *self.ARGS)
        _, half = run_example("fat-tree-workload", *self.ARGS, "--readFraction=0.5")
        key = lambda r: (r["flow_id"], r["src"], r["dst"], r["size_bytes"], r["start_ns"])  # noqa: E731
        self.assertEqual([key(r) for r in read_csv(base, "fct.csv")], [key(r) for r in read_csv(half, "fct.csv")])
        self.assertNotIn("op", read_csv(base, "fct.csv")[0])
        self.assertNotIn("reads", summary(base))
        # reproducible: the same seed draws the same READs
        _, again = run_example("fat-tree-workload", *self.ARGS, "--readFraction=0.5")
        self.assertEqual(read_bytes(half, "fct.csv"), read_bytes(again, "fct.csv"))

    def test_read_fraction_zero_is_the_run_without_it(self):
        _, base = run_example("fat-tree-workload", *self.ARGS)
        _, zero = run_example("fat-tree-workload", *self.ARGS, "--readFraction=0")
        self.assertEqual(read_bytes(base, "fct.csv"), read_bytes(zero, "fct.csv"))
        a, b = summary(base), summary(zero)
        for s in (a, b):
            s.pop("wall_s", None)
        self.assertEqual(a, b)

    def test_a_bad_read_fraction_is_refused(self):
        p, out = run_example("fat-tree-workload", "--readFraction=1.5", expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "--readFraction")


# a switch joining hosts 0, 1 and 2 (100 Gb/s)
TOPO = "4 1 3\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n"


class ReadFlowFile(ExampleTest):
    def test_the_operation_column_is_optional_and_honoured(self):
        d = output_dir("read-files")
        topo = write(d, "t.txt", TOPO)
        # host 1 READs 300 KB from host 0; host 2 SENDs to 1; host 0 WRITEs 300 KB to 1 (six
        # columns: a WRITE)
        flows = write(d, "f.flows", "3\n0 1 3 100 300000 0 read\n2 1 3 100 200000 0 SEND\n0 1 3 100 300000 0\n")
        _, out = run_example("hpcc-run", "--topo=" + topo, "--flows=" + flows, "--cc=dcqcn", "--limit=10ms")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["bytes_delivered"], 800000, s)
        rows = read_csv(out, "fct.csv")
        self.assertEqual([(r["src"], r["dst"], r["op"]) for r in rows], [("0", "1", "read"), ("2", "1", "send"), ("0", "1", "write")])
        self.assertEqual((s["reads"]["flows"], s["reads"]["done"], s["reads"]["bytes_delivered"]), (1, 1, 300000), s)
        # the same bytes on the same path (two 1 us hops at 100 Gb/s): the READ's ideal adds
        # the request's trip, 2 x (1 us + 98 B = 7 ns), and drops the WRITE's ACK, 2 x (1 us +
        # 86 B = 6 ns): 2 ns more
        self.assertEqual(int(rows[0]["ideal_fct_ns"]) - int(rows[2]["ideal_fct_ns"]), 2)
        for r in rows:
            self.assertGreaterEqual(int(r["fct_ns"]), int(r["ideal_fct_ns"]))

    def test_a_bad_operation_names_its_line(self):
        d = output_dir("read-files")
        topo = write(d, "t.txt", TOPO)
        flows = write(d, "f.flows", "1\n0 1 3 100 1000 0 atomic\n")
        p, out = run_example("hpcc-run", "--topo=" + topo, "--flows=" + flows, expect_rc=2)
        self.assert_config_error(p.stdout, os.listdir(out), "%s:2: invalid op = atomic: must be write, send or read" % flows)


if __name__ == "__main__":
    unittest.main()
