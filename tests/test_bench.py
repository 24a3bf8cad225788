"""The benchmark tool (tools/bench.py, ./waf bench): it runs, and its table agrees with the runs.

Timing itself is not tested (benchmarks, not tests); what is checked is that the numbers the tool
prints are the runs' own (events, flows, events per packet-hop, CPU and instructions per event and
per packet-hop, the last flow's finish), that htsim's and the HPCC simulator's sides are read as
they are printed, that the two simulators' flow files of the comparison hold the same flows, that
the HPCC simulator's generated input holds the scenario and its settings, and that bad input is
named.
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


def fake_hpccsim(tmp, fct_ns, done=None, ports=257):
    """A stand-in for the HPCC simulator's third, in TMP/simulation/build/scratch/ with the port
    limit PORTS in its source tree's headers; it reads its config file, writes one FCT line per
    flow of the flow file (the first DONE flows; flow i takes FCT_NS[i]), prints what third.cc
    prints around Simulator::Run and its clock() seconds last. Returns the program's path."""
    sim = os.path.join(tmp, "simulation")
    model = os.path.join(sim, "src", "point-to-point", "model")
    os.makedirs(model, exist_ok=True)
    for header in ("switch-node.h", "switch-mmu.h"):
        with open(os.path.join(model, header), "w") as f:
            f.write("\tstatic const uint32_t pCnt = %d;\t// Number of ports used\n" % ports)
    os.makedirs(os.path.join(sim, "build", "scratch"), exist_ok=True)
    path = os.path.join(sim, "build", "scratch", "third")
    with open(path, "w") as f:
        f.write(
            """#!%s
import sys
conf = dict(l.split(None, 1) for l in open(sys.argv[1]) if l.strip())
flows = [l.split() for l in open(conf["FLOW_FILE"].strip())][1:]
fct = %r
done = %r
print("CC_MODE\\t\\t" + conf["CC_MODE"].strip())
print("Running Simulation.")
sys.stdout.flush()
with open(conf["FCT_OUTPUT_FILE"].strip(), "w") as out:
    for i, f in enumerate(flows[: len(flows) if done is None else done]):
        start = int(round(float(f[5]) * 1e9))
        out.write("0b000%%d01 0b000001 10000 100 %%s %%d %%d 1000\\n" %% (int(f[0]), f[4], start, fct[i]))
print("0.25")
"""
            % (sys.executable, list(fct_ns), done)
        )
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


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

    def test_the_hpcc_simulators_row_is_its_own_output(self):
        tmp = output_dir("bench-hpccsim")
        fct = [1_300_000 + 1000 * s for s in range(16)]
        fct[5] = 1_404_250
        fake = fake_hpccsim(tmp, fct)
        out = os.path.join(tmp, "out")
        # the simulation/ directory names the program
        rc, stdout, stderr = bench("--only", "incast-16x1MB", "--out", out, "--hpccsim", os.path.join(tmp, "simulation"))
        self.assertEqual(rc, 0, stdout + stderr)
        rows = rows_of(out)
        self.assertEqual([r["scenario"] for r in rows], ["incast-16x1MB", "incast-16x1MB (HPCC sim)"])
        h = rows[1]
        self.assertEqual(h["flows_done"], "16/16")
        self.assertEqual(h["last_flow_us"], "1404.250")
        self.assertNotEqual(h["run_s"], "-")
        self.assertLessEqual(float(h["run_s"]), float(h["process_s"]) + 0.001)
        # without callgrind no event count: "-", never a made-up number
        self.assertEqual(h["events"], "-")
        self.assertEqual(h["cpu_ns_per_event"], "-")
        # 16 x 1000 packets over 2 links
        self.assertAlmostEqual(float(h["cpu_ns_per_packet_hop"]), float(h["cpu_s"]) * 1e9 / 32000, delta=16)
        # both last flows, and the simulator's own CPU line, on stderr
        self.assertIn("incast-16x1MB: last flow ours %s us, HPCC sim 1404.250 us" % rows[0]["last_flow_us"], stderr)
        # every flow starts at 0: the spans are the finishes
        ours_us = float(rows[0]["last_flow_us"])
        self.assertIn(
            "from the first start: ours %.3f us, HPCC sim 1404.250 us (ours / HPCC sim %.3f)" % (ours_us, ours_us / 1404.25), stderr
        )
        self.assertIn("own CPU seconds of its main: 0.25", stderr)
        # it ran on the generated config in its output directory
        run = os.path.join(out, "incast-16x1MB", "hpccsim")
        self.assertIn("%s %s" % (fake, os.path.join(run, "config.txt")), stderr)
        with open(os.path.join(run, "stdout.txt")) as f:
            self.assertIn("CC_MODE\t\t0", f.read())

    def test_a_hpcc_simulator_that_leaves_flows_unfinished_is_refused(self):
        tmp = output_dir("bench-hpccsim-unfinished")
        fake = fake_hpccsim(tmp, [1_400_000] * 16, done=15)
        rc, _, stderr = bench("--only", "incast-16x1MB", "--out", os.path.join(tmp, "out"), "--hpccsim", fake)
        self.assertEqual(rc, 1)
        self.assertIn("the HPCC simulator on incast-16x1MB finished 15 of 16 flows", stderr)

    def test_a_switch_beyond_the_hpcc_simulators_port_limit_takes_the_wide_build(self):
        # 257 senders need 258 devices on the switch (its loopback is device 0): past the stock
        # build's pCnt 257, so only the wide build runs it; without one, no row and a note
        tmp = output_dir("bench-hpccsim-wide")
        stock = fake_hpccsim(os.path.join(tmp, "stock"), [1_400_000] * 256)
        wide = fake_hpccsim(os.path.join(tmp, "wide"), [5_000_000 + s for s in range(256)], ports=1025)
        out = os.path.join(tmp, "out")
        rc, stdout, stderr = bench("--only", "incast-256x256KB", "--out", out, "--hpccsim", stock, "--hpccsim-wide", wide)
        self.assertEqual(rc, 0, stdout + stderr)
        rows = rows_of(out)
        self.assertEqual([r["scenario"] for r in rows], ["incast-256x256KB", "incast-256x256KB (HPCC sim)"])
        self.assertEqual(rows[1]["last_flow_us"], "5000.255")
        self.assertIn(wide + " ", stderr)
        self.assertNotIn(stock + " ", stderr)
        rc, stdout, stderr = bench("--only", "incast-256x256KB", "--out", out, "--hpccsim", stock)
        self.assertEqual(rc, 0, stdout + stderr)
        self.assertEqual([r["scenario"] for r in rows_of(out)], ["incast-256x256KB"])
        self.assertIn("incast-256x256KB: no HPCC sim row: its switch needs 258 devices", stderr)

    def test_the_hpcc_simulators_input_is_the_scenario(self):
        tmp = output_dir("bench-hpccsim-gen")

        def config(name):
            path = bench_tool.hpccsim_gen.write(name, os.path.join(tmp, name))
            with open(path) as f:
                return dict(line.split(None, 1) for line in f if line.strip()), os.path.dirname(path)

        # 1000 senders to host 0 through switch 1001, every link 100 Gb/s and 1 us
        conf, d = config("incast-1000x64KB")
        with open(os.path.join(d, "topology.txt")) as f:
            lines = f.read().split("\n")
        self.assertEqual(lines[0], "1002 1 1001")
        self.assertEqual(lines[1], "1001")
        self.assertEqual(lines[2], "0 1001 100Gbps 1000ns 0")
        self.assertEqual(lines[1002], "1000 1001 100Gbps 1000ns 0")
        with open(os.path.join(d, "flows.txt")) as f:
            flows = f.read().split("\n")
        self.assertEqual(flows[0], "1000")
        self.assertEqual(flows[1000].split(), ["1000", "0", "3", "100", "65536", "0.000000000"])
        # line rate (no scheme, no marking) on a lossless priority with PFC; its buffer holds its
        # headroom and reserves (1001 x 41 596 B) and our shared pool (32 MB - 1001 x 28 310 B)
        self.assertEqual(conf["CC_MODE"].strip(), "0")
        self.assertEqual(conf["ENABLE_QCN"].strip(), "0")
        self.assertEqual(conf["HAS_WIN"].strip(), "0")
        self.assertEqual(conf["L2_ACK_INTERVAL"].strip(), "1")
        self.assertEqual(conf["BUFFER_SIZE"].strip(), "44")
        self.assertGreaterEqual(44 * 1024 * 1024 - 1001 * 41596, 32_000_000 - 1001 * 28310)
        self.assertLess(43 * 1024 * 1024 - 1001 * 41596, 32_000_000 - 1001 * 28310)
        # the monitor that walks every port every 100 ns never starts (after the stop time)
        self.assertGreater(int(conf["QLEN_MON_START"]), float(conf["SIMULATOR_STOP_TIME"]) * 1e9)
        # the fat tree: the workload files unchanged, run.py's DCQCN at 100 Gb/s
        conf, _ = config("fattree320-dcqcn")
        self.assertEqual(conf["TOPOLOGY_FILE"].strip(), os.path.join(os.path.abspath(ROOT), "workloads", "fat-tree-320.txt"))
        self.assertEqual(conf["FLOW_FILE"].strip(), os.path.join(os.path.abspath(ROOT), "workloads", "websearch-320hosts-load30-5ms.flows"))
        expected = {
            "CC_MODE": "1",
            "ENABLE_QCN": "1",
            "ALPHA_RESUME_INTERVAL": "1",
            "RATE_DECREASE_INTERVAL": "4",
            "RP_TIMER": "300",
            "EWMA_GAIN": "0.00390625",
            "FAST_RECOVERY_TIMES": "1",
            "RATE_AI": "20Mb/s",
            "RATE_HAI": "200Mb/s",
            "MIN_RATE": "1000Mb/s",
            "L2_ACK_INTERVAL": "1",
            "CLAMP_TARGET_RATE": "0",
            "HAS_WIN": "0",
            "KMIN_MAP": "2 100000000000 400 400000000000 1600",
            "KMAX_MAP": "2 100000000000 1600 400000000000 6400",
            "PMAX_MAP": "2 100000000000 0.20 400000000000 0.20",
            "BUFFER_SIZE": "32",
        }
        self.assertEqual({k: conf[k].strip() for k in expected}, expected)
        self.assertGreater(int(conf["QLEN_MON_START"]), float(conf["SIMULATOR_STOP_TIME"]) * 1e9)
        # its 3201 flows over 2, 4 or 6 links of the 320-host fat tree
        packets, hops = bench_tool.hpccsim_hops("fattree320-dcqcn", conf["TOPOLOGY_FILE"].strip())
        self.assertEqual(len(bench_tool.hpccsim_gen.flows_of("fattree320-dcqcn")), 3201)
        self.assertTrue(2 * packets < hops < 6 * packets)

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


    def test_a_missing_hpcc_simulator_is_named(self):
        rc, _, stderr = bench("--only", "incast-16x1MB", "--out", output_dir("bench-bad-hpccsim"), "--hpccsim", "/nonexistent/simulation")
        self.assertEqual(rc, 2)
        self.assertIn("invalid --hpccsim = /nonexistent/simulation", stderr)
        # a program without the source tree it was built in: its port limit is unknown
        tmp = output_dir("bench-bad-hpccsim-tree")
        prog = os.path.join(tmp, "third")
        with open(prog, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(prog, 0o755)
        rc, _, stderr = bench("--only", "incast-16x1MB", "--out", os.path.join(tmp, "out"), "--hpccsim", prog)
        self.assertEqual(rc, 2)
        self.assertIn("invalid --hpccsim = %s: no pCnt in" % prog, stderr)


def bench_tool_node(host):
    """Host index -> node id of the k = 8 fat tree (rust/workload/src/fat_tree.rs numbering)."""
    pod, in_pod = divmod(host, 16)
    edge, slot = divmod(in_pod, 4)
    return 16 + pod * 24 + 4 + edge * 5 + 1 + slot


if __name__ == "__main__":
    unittest.main()
