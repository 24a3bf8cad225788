"""Distributed runs (issue 14): fat-tree-workload --mpi on ns-3's MPI engine, the fat tree split
by pod, every data, PFC and control frame between pods crossing ranks through QbbRemoteChannel:
1, 2 and 4 ranks under both of ns-3's distributed simulators run the one-process run's flows
(same ids, ends, sizes, starts), all of them to completion with every byte delivered once and the
run's invariants holding, and give the one-process run's fct.csv, row for row (sorted).

The same FCTs need the same order of equal-time events: a distributed run orders them by
ns3::CanonicalScheduler's key (--eventOrder=auto is canonical under --mpi), so the one-process
run it is compared with runs with --eventOrder=canonical. Under ns-3's insertion order they break
ties differently (a frame from another rank is inserted when its MPI message is received, not
when it was sent).

Needs the MPI build: `./waf configure --ns3=mpi --out=build-mpi && ./waf build --out=build-mpi`
(RDMACC_MPI_BUILD overrides the directory) and mpirun (openmpi-bin). Without it the tests are
skipped, saying so, unless RDMACC_REQUIRE_MPI=1 (CI), which makes them fail."""

import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir, summary  # noqa: E402

MPI_BUILD = os.environ.get("RDMACC_MPI_BUILD", os.path.join(ROOT, "build-mpi"))
PROG = os.path.join(MPI_BUILD, "examples", "fat-tree-workload")
REQUIRE = os.environ.get("RDMACC_REQUIRE_MPI") == "1"
MPIRUN = shutil.which("mpirun")

# k = 4: 16 hosts in 4 pods; limit: long enough for every flow (a distributed run ends 10 us
# after the one-process run: the ranks' sum of finished flows taken at a 10 us check is read at
# the next)
ARGS = ["--k=4", "--load=0.5", "--duration=1ms", "--limit=20ms", "--seed=3"]
# the one-process run distributed runs are compared with: the same (canonical) event order
ONE = ["--eventOrder=canonical"]


# the MPI build finds its libraries by RUNPATH, which LD_LIBRARY_PATH (set by ./waf check for the
# build it checks, maybe the system ns-3's) would override: its programs run without it
ENV = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
# ./waf run from a test: without the WAFLOCK of the ./waf check that runs the tests (./waf picks
# the lock file of the --out it is given)
WAF_ENV = {k: v for k, v in ENV.items() if k != "WAFLOCK"}


def missing():
    if not os.path.exists(PROG):
        return "no MPI build at %s: ./waf configure --ns3=mpi --out=build-mpi && ./waf build --out=build-mpi" % MPI_BUILD
    if not MPIRUN:
        return "mpirun not found (apt-get install openmpi-bin)"
    return ""


def run(args, ranks=0):
    out = output_dir("mpi")
    cmd = [PROG, "--out=" + out] + args
    if ranks:
        cmd = [MPIRUN, "-np", str(ranks), "--allow-run-as-root", "--oversubscribe"] + cmd
    p = subprocess.run(cmd, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=900)
    if p.returncode != 0:
        raise AssertionError("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:]))
    return out


def fct_rows(out):
    with open(os.path.join(out, "fct.csv")) as f:
        lines = f.read().splitlines()
    return lines[0], sorted(lines[1:])


class RanksRefused(unittest.TestCase):
    def test_ranks_on_a_build_without_mpi_is_one_line_and_exit_2(self):
        # the plain build (no MPI): --ranks names itself and the command that makes an MPI build
        p = subprocess.run(
            [os.path.join(ROOT, "waf"), "--run", "ldcp-incast", "--ranks=2", "--out=" + os.path.relpath(os.path.realpath(BUILD), ROOT)],
            cwd=ROOT, env=WAF_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=900,
        )
        with open(os.path.join(BUILD, "rdma-cc-build.json")) as f:
            if json.load(f).get("ns3_provider") == "mpi":
                self.skipTest("the checked build is the MPI build")
        self.assertEqual(p.returncode, 2, p.stdout[-2000:] + p.stderr)
        # (the build before it may print cargo's lines on stderr: the refusal is the last line)
        lines = [l for l in p.stderr.splitlines() if "--ranks" in l]
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertEqual(lines[0], p.stderr.strip().splitlines()[-1], p.stderr)
        self.assertIn("--ns3=mpi", lines[0])


class DistributedEqualsOneProcess(ExampleTest):
    @classmethod
    def setUpClass(cls):
        why = missing()
        if why and REQUIRE:
            raise AssertionError("RDMACC_REQUIRE_MPI=1 but " + why)
        if why:
            raise unittest.SkipTest(why)
        cls.one = run(ARGS + ONE)

    def test_the_mpi_build_loads_no_system_ns3_library(self):
        ldd = subprocess.run(["ldd", PROG], env=ENV, stdout=subprocess.PIPE, universal_newlines=True).stdout
        ns3 = [l.split()[2] for l in ldd.splitlines() if "libns3" in l and "=>" in l]
        self.assertTrue(ns3, ldd)
        self.assertEqual([p for p in ns3 if p.startswith("/usr/")], [], ldd)

    def test_one_process_completes(self):
        s = summary(self.one)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertTrue(s["complete"], s)
        self.assertGreater(s["flows_total"], 20, s)

    def check_flows(self, ranks, scheduler):
        out = run(ARGS + ["--mpi", "--mpiScheduler=" + scheduler], ranks)
        s1 = summary(self.one)
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["flows_total"], s1["flows_total"], s)
        self.assertEqual(s["flows_done"], s["flows_total"], s)
        self.assertEqual(s["bytes_delivered"], s1["bytes_sent"], s)
        self.assertEqual(s["bytes_sent"], s1["bytes_sent"], s)
        # the same flows: id, source, destination, size, start
        key = lambda r: r.split(",")[:5]  # noqa: E731
        self.assertEqual(sorted(map(key, fct_rows(out)[1])), sorted(map(key, fct_rows(self.one)[1])))
        for r in range(1, ranks):
            self.assertTrue(os.path.exists(os.path.join(out, "rank-%d" % r, "summary.json")), r)

    def test_waf_ranks_one_liner_runs_the_same_flows_on_two_ranks(self):
        # ./waf --run "fat-tree-workload ..." --ranks=2 --out=build-mpi: mpirun -np 2 with --mpi
        # added; the canonical order gives the one-process fct.csv
        out = output_dir("mpi-waf")
        run_line = " ".join(["fat-tree-workload", "--out=" + out] + ARGS)
        p = subprocess.run(
            [os.path.join(ROOT, "waf"), "--run", run_line, "--ranks=2", "--out=" + os.path.relpath(os.path.realpath(MPI_BUILD), ROOT)],
            cwd=ROOT, env=WAF_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=900,
        )
        self.assertEqual(p.returncode, 0, p.stdout[-4000:])
        self.assertIn("-np 2", p.stdout)
        self.assertEqual(fct_rows(out), fct_rows(self.one))
        s = summary(out)
        self.assertEqual((s["invariants"], s["event_order"]), ("ok", "canonical"), s)
        self.assertTrue(os.path.exists(os.path.join(out, "rank-1", "summary.json")))

    def test_two_ranks_distributed_scheduler_run_the_flows(self):
        self.check_flows(2, "distributed")

    def test_two_ranks_null_message_scheduler_run_the_flows(self):
        self.check_flows(2, "nullmessage")

    def test_four_ranks_both_schedulers_run_the_flows(self):
        self.check_flows(4, "distributed")
        self.check_flows(4, "nullmessage")

    def check_ranks(self, ranks, scheduler, args=ARGS, one=None):
        out = run(args + ["--mpi", "--mpiScheduler=" + scheduler], ranks)
        one = one or self.one
        head1, rows1 = fct_rows(one)
        head, rows = fct_rows(out)
        self.assertEqual(head, head1)
        self.assertEqual(len(rows), len(rows1))
        diff = [(a, b) for a, b in zip(rows1, rows) if a != b]
        self.assertEqual(diff[:5], [], "%d of %d flows differ (%d ranks, %s)" % (len(diff), len(rows), ranks, scheduler))
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["flows_done"], s["flows_total"], s)
        self.assertEqual(s["event_order"], "canonical", s)
        for r in range(1, ranks):
            self.assertTrue(os.path.exists(os.path.join(out, "rank-%d" % r, "summary.json")), r)

    def test_distributed_run_stops_one_check_after_the_last_flow_not_at_the_limit(self):
        # the sum of every rank's finished flows, taken every 10 us, stops every rank at the same
        # time: 10 us after one process stops (it polls its own count every 10 us), far before
        # --limit (20 ms here; the last flow ends near 1.1 ms)
        s1 = summary(self.one)
        self.assertLess(s1["sim_time_ns"], 5000000, s1)
        for ranks, scheduler in ((2, "distributed"), (2, "nullmessage"), (4, "nullmessage")):
            out = run(ARGS + ["--mpi", "--mpiScheduler=" + scheduler], ranks)
            s = summary(out)
            self.assertEqual(s["flows_done"], s["flows_total"], s)
            self.assertEqual(s["sim_time_ns"], s1["sim_time_ns"] + 10000, (ranks, scheduler))
            for r in range(1, ranks):
                with open(os.path.join(out, "rank-%d" % r, "summary.json")) as f:
                    self.assertEqual(json.load(f)["sim_time_ns"], s["sim_time_ns"], (r, scheduler))
            self.assertEqual(fct_rows(out), fct_rows(self.one), (ranks, scheduler))

    def test_one_rank_both_schedulers_same_fct_csv(self):
        self.check_ranks(1, "distributed")
        self.check_ranks(1, "nullmessage")

    def test_two_ranks_distributed_scheduler_same_fct_csv(self):
        self.check_ranks(2, "distributed")

    def test_two_ranks_null_message_scheduler_same_fct_csv(self):
        self.check_ranks(2, "nullmessage")

    def test_four_ranks_both_schedulers_same_fct_csv(self):
        self.check_ranks(4, "distributed")
        self.check_ranks(4, "nullmessage")

    def test_other_seeds_and_loads_same_fct_csv(self):
        # a busier fabric (more ties, PFC) and another seed, 2 ranks under both schedulers
        # (DCQCN's last flow ends at 24.1 ms)
        for extra in (["--seed=11", "--load=0.8"], ["--seed=5", "--load=0.3", "--cc=dcqcn", "--limit=40ms"]):
            names = {e.split("=")[0] for e in extra}
            args = [a for a in ARGS if a.split("=")[0] not in names] + extra
            one = run(args + ONE)
            self.assertTrue(summary(one)["complete"], extra)
            self.check_ranks(2, "distributed", args, one)
            self.check_ranks(2, "nullmessage", args, one)


if __name__ == "__main__":
    unittest.main()
