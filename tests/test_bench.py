"""The benchmark tool (tools/bench.py, ./waf bench): it runs, and its table agrees with the runs.

Timing itself is not tested (benchmarks, not tests); what is checked is that the numbers the tool
prints are the runs' own (events, flows, events per packet-hop, CPU and instructions per event and
per packet-hop, the last flow's finish), that htsim's side is read as it is printed, that the two
simulators' flow files of the comparison hold the same flows, and that bad input is named.
"""

import csv
import json
import os
import shutil
import stat
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import bench as bench_tool  # noqa: E402


def bench(*args):
    """Runs tools/bench.py on this build; (exit status, stdout, stderr)."""
    p = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "bench.py"), "--build", BUILD] + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=900,
    )
    return p.returncode, p.stdout, p.stderr


def rows_of(out):
    with open(os.path.join(out, "bench.csv")) as f:
        return list(csv.DictReader(f))


def fake_htsim(path, finish_us, rtx=0):
    """A stand-in for htsim_roce on the 16-sender incast: prints what htsim_roce prints at the end."""
    lines = ["Flow Roce_%d_0 %d finished at %s total bytes 1000000" % (s, 100 + s, finish_us[s - 1]) for s in range(1, 17)]
    lines.append("New: %d Rtx: %d" % (16 * 1000, rtx))
    with open(path, "w") as f:
        f.write("#!/bin/sh\ncat <<'END'\n%s\nEND\n" % "\n".join(lines))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class Bench(ExampleTest):
    @unittest.skipUnless(shutil.which("valgrind"), "valgrind is not installed")
    def test_one_incast_row_is_the_runs_own_numbers_and_instructions(self):
        out = output_dir("bench")
        rc, stdout, stderr = bench("--only", "htsim-incast-16x1MB", "--out", out, "--callgrind")
        self.assertEqual(rc, 0, stdout + stderr)
        rows = rows_of(out)
        self.assertEqual([r["scenario"] for r in rows], ["htsim-incast-16x1MB"])
        r = rows[0]
        run = os.path.join(out, "htsim-incast-16x1MB")
        with open(os.path.join(run, "summary.json")) as f:
            s = json.load(f)
        events = s["events"]
        self.assertEqual(int(r["events"]), events)
        self.assertEqual(r["flows_done"], "16/16")
        # 16 x 1 MB in 1000 B packets over 2 hops: at least 2 events per packet-hop (a
        # transmit-complete and an arrival), and the run's own ratio
        self.assertEqual(s["data_packets_sent"], 16 * 1000)
        # lossless, no retransmission: every data packet crosses its two links once
        hops = 2 * 16 * 1000
        self.assertEqual(s["data_frame_hops"], hops)
        per_hop = float(r["events_per_packet_hop"])
        self.assertAlmostEqual(per_hop, events / hops, places=2)
        self.assertGreaterEqual(per_hop, 2.0)
        self.assertGreater(float(r["peak_rss_mb"]), 1.0)
        self.assertGreater(float(r["process_s"]), float(r["run_s"]))
        # CPU per event and per packet-hop: the process's CPU seconds over the run's events, hops
        # (cpu_s is printed to the millisecond)
        cpu = float(r["cpu_s"])
        self.assertGreater(cpu, 0.0)
        self.assertAlmostEqual(float(r["cpu_ns_per_event"]), cpu * 1e9 / events, delta=0.5 + 1e6 / events)
        self.assertAlmostEqual(float(r["cpu_ns_per_packet_hop"]), cpu * 1e9 / hops, delta=0.5 + 1e6 / hops)
        # the last flow: 16 MB through one 100 Gb/s link at 1082 B a frame on the wire takes at
        # least 16 000 x 1082 x 8 / 100e9 s = 1384.96 us; fct.csv's latest finish
        with open(os.path.join(run, "fct.csv")) as f:
            last = max(int(x["finish_ns"]) for x in csv.DictReader(f))
        self.assertAlmostEqual(float(r["last_flow_us"]), last / 1000.0, places=3)
        self.assertGreater(last, 1384960)
        # callgrind: the same run (same events), its instructions in the event loop per event
        # and per packet-hop; the loop is part of the whole process
        total, loop = int(r["instructions"]), int(r["loop_instructions"])
        self.assertGreater(loop, 0)
        self.assertGreater(total, loop)
        self.assertEqual(int(r["instr_per_event"]), round(loop / events))
        self.assertEqual(int(r["instr_per_packet_hop"]), round(loop / hops))
        self.assertTrue(os.path.isfile(os.path.join(run, "callgrind", "callgrind.out")))
        self.assertIn("htsim-incast-16x1MB", stdout)
        self.assertIn("instruction counts do not", stdout)

    def test_htsims_row_is_its_printed_numbers(self):
        tmp = output_dir("bench-htsim")
        fake = os.path.join(tmp, "htsim_roce")
        finishes = [1300.0 + s for s in range(16)]
        finishes[7] = 1404.25
        fake_htsim(fake, finishes)
        out = os.path.join(tmp, "out")
        rc, stdout, stderr = bench("--only", "htsim-incast-16x1MB", "--out", out, "--htsim", fake)
        self.assertEqual(rc, 0, stdout + stderr)
        rows = rows_of(out)
        self.assertEqual([r["scenario"] for r in rows], ["htsim-incast-16x1MB", "htsim-incast-16x1MB (htsim)"])
        h = rows[1]
        self.assertEqual(h["flows_done"], "16/16")
        self.assertEqual(h["last_flow_us"], "1404.250")
        # without callgrind htsim has no event count: "-", never a made-up number
        self.assertEqual(h["events"], "-")
        self.assertEqual(h["cpu_ns_per_event"], "-")
        # its packet-hops come from the flows: 16 x 1000 packets over 2 links
        # (cpu_s is printed to the millisecond: 0.5 ms over 32 000 hops is 15.6 ns)
        self.assertAlmostEqual(float(h["cpu_ns_per_packet_hop"]), float(h["cpu_s"]) * 1e9 / 32000, delta=16)
        # its command line is the one bench/README.md gives (the files by absolute path: htsim
        # runs in its output directory, where it writes idmap.txt), and the checkout stays clean
        vs = os.path.join(os.path.abspath(ROOT), "bench", "vs-htsim")
        self.assertIn("-tm %s/incast-16x1MB.cm -nodes 17 -topo %s/star-17.topo -mtu 1000 -q 100000" % (vs, vs), stderr)

    def test_a_htsim_that_retransmits_is_refused(self):
        tmp = output_dir("bench-htsim-rtx")
        fake = os.path.join(tmp, "htsim_roce")
        fake_htsim(fake, [1400.0] * 16, rtx=3)
        rc, _, stderr = bench("--only", "htsim-incast-16x1MB", "--out", os.path.join(tmp, "out"), "--htsim", fake)
        self.assertEqual(rc, 1)
        self.assertIn("printed New: 16000 Rtx: 3, expected New: 16000 (or 0) and Rtx: 0", stderr)

    def test_the_two_flow_files_of_the_permutation_hold_the_same_flows(self):
        # ours: fat-tree node ids; htsim's: host indices. Map ours back through the fat tree's
        # numbering (4 hosts under each of the 32 edge switches, edge switches after the 16
        # cores and each pod's 4 aggregation switches)
        hosts = {bench_tool_node(h): h for h in range(128)}
        with open(os.path.join(ROOT, "bench", "vs-htsim", "perm-k8-128x2MB.flows")) as f:
            lines = f.read().split("\n")
        self.assertEqual(lines[0], "128")
        ours = [tuple(int(x) for x in ln.split()) for ln in lines[1:] if ln]
        theirs = bench_tool.htsim_flows("htsim-perm-k8-128x2MB")
        self.assertEqual([(hosts[s], hosts[d], b) for s, d, _, _, b, _ in ours], theirs)
        # a permutation: every host sends once and receives once, never to itself
        self.assertEqual(sorted(s for s, _, _ in theirs), list(range(128)))
        self.assertEqual(sorted(d for _, d, _ in theirs), list(range(128)))
        self.assertFalse([1 for s, d, _ in theirs if s == d])
        self.assertEqual({b for _, _, b in theirs}, {2000000})
        # 2000 packets a flow over 2, 4 or 6 links
        packets, hops = bench_tool.htsim_hops("htsim-perm-k8-128x2MB")
        self.assertEqual(packets, 128 * 2000)
        self.assertTrue(2 * packets < hops <= 6 * packets)

    def test_an_unknown_scenario_is_named(self):
        rc, _, stderr = bench("--only", "incast-17", "--out", output_dir("bench-bad"))
        self.assertEqual(rc, 2)
        self.assertIn("unknown scenario 'incast-17'", stderr)

    def test_a_missing_htsim_is_named(self):
        rc, _, stderr = bench("--only", "incast-16x1MB", "--out", output_dir("bench-bad-htsim"), "--htsim", "/nonexistent/htsim_roce")
        self.assertEqual(rc, 2)
        self.assertIn("invalid --htsim = /nonexistent/htsim_roce", stderr)


def bench_tool_node(host):
    """Host index -> node id of the k = 8 fat tree (rust/workload/src/fat_tree.rs numbering)."""
    pod, in_pod = divmod(host, 16)
    edge, slot = divmod(in_pod, 4)
    return 16 + pod * 24 + 4 + edge * 5 + 1 + slot


if __name__ == "__main__":
    unittest.main()
