"""Distributed runs (issue 14): fat-tree-workload --mpi on ns-3's MPI engine gives the same
flows as the one-process run with the same seed: 2 ranks (and 4) under both of ns-3's
distributed simulators, the fat tree split by pod, every data, PFC and control frame between
pods crossing ranks through QbbRemoteChannel.

Needs the MPI build: `./waf configure --ns3=mpi --out=build-mpi && ./waf build --out=build-mpi`
(RDMACC_MPI_BUILD overrides the directory) and mpirun (openmpi-bin). Without it the tests are
skipped, saying so, unless RDMACC_REQUIRE_MPI=1 (CI), which makes them fail."""

import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, output_dir, summary  # noqa: E402

MPI_BUILD = os.environ.get("RDMACC_MPI_BUILD", os.path.join(ROOT, "build-mpi"))
PROG = os.path.join(MPI_BUILD, "examples", "fat-tree-workload")
REQUIRE = os.environ.get("RDMACC_REQUIRE_MPI") == "1"
MPIRUN = shutil.which("mpirun")

# k = 4: 16 hosts in 4 pods; limit: the distributed run ends at --limit (no rank can count the
# others' completions), long enough for every flow
ARGS = ["--k=4", "--load=0.5", "--duration=200us", "--limit=5ms", "--seed=3"]


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
    p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=900)
    if p.returncode != 0:
        raise AssertionError("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:]))
    return out


def fct_rows(out):
    with open(os.path.join(out, "fct.csv")) as f:
        lines = f.read().splitlines()
    return lines[0], sorted(lines[1:])


class DistributedEqualsOneProcess(ExampleTest):
    @classmethod
    def setUpClass(cls):
        why = missing()
        if why and REQUIRE:
            raise AssertionError("RDMACC_REQUIRE_MPI=1 but " + why)
        if why:
            raise unittest.SkipTest(why)
        cls.one = run(ARGS)

    def test_the_mpi_build_loads_no_system_ns3_library(self):
        ldd = subprocess.run(["ldd", PROG], stdout=subprocess.PIPE, universal_newlines=True).stdout
        ns3 = [l.split()[2] for l in ldd.splitlines() if "libns3" in l and "=>" in l]
        self.assertTrue(ns3, ldd)
        self.assertEqual([p for p in ns3 if p.startswith("/usr/")], [], ldd)

    def test_one_process_completes(self):
        s = summary(self.one)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertTrue(s["complete"], s)
        self.assertGreater(s["flows_total"], 20, s)

    def check_ranks(self, ranks, scheduler):
        out = run(ARGS + ["--mpi", "--mpiScheduler=" + scheduler], ranks)
        head1, rows1 = fct_rows(self.one)
        head, rows = fct_rows(out)
        self.assertEqual(head, head1)
        self.assertEqual(len(rows), len(rows1))
        diff = [(a, b) for a, b in zip(rows1, rows) if a != b]
        self.assertEqual(diff[:5], [], "%d of %d flows differ (%d ranks, %s)" % (len(diff), len(rows), ranks, scheduler))
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["flows_done"], s["flows_total"], s)
        for r in range(1, ranks):
            self.assertTrue(os.path.exists(os.path.join(out, "rank-%d" % r, "summary.json")), r)

    def test_two_ranks_distributed_scheduler_same_flows(self):
        self.check_ranks(2, "distributed")

    def test_two_ranks_null_message_scheduler_same_flows(self):
        self.check_ranks(2, "nullmessage")

    def test_four_ranks_distributed_scheduler_same_flows(self):
        self.check_ranks(4, "distributed")


if __name__ == "__main__":
    unittest.main()
