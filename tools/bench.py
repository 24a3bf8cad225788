#!/usr/bin/env python3
"""Runs the fixed benchmark suite and prints one table (and writes DIR/bench.csv).

    tools/bench.py [--build DIR] [--quick] [--only NAME,...] [--out DIR]

`./waf bench [--quick]` builds, then runs this with --build set to its build directory; run by
hand it needs a tree built by `./waf build` (default --build: build/).

The suite (every run from the checkout, outputs in DIR/NAME/, default DIR results/bench):

  incast-16x1MB      ldcp-incast, 16 x 1 MB line-rate senders (--cc=none) with PFC through one
  incast-64x1MB      switch, 100 Gb/s, 1 us links, 1000 B payload: the HPCC simulator's
  incast-256x256KB   reference incasts (README "Performance"); the 1000-sender one with a 32 MB
  incast-1000x64KB   switch buffer (the PFC headroom of 1001 ports)
  fattree320-dcqcn   fat-tree-workload on workloads/fat-tree-320.txt with the 3201 web-search
                     flows, DCQCN with the HPCC simulator's settings (--dcqcnPreset=hpcc-sim,
                     its marking map and 32 MB buffers): the simulator's reference run
  k12-load60-10ms    fat-tree-workload, k = 12 (432 hosts), web-search CDF at 60 % load for
                     10 ms of arrivals, DCQCN (hpcc-sim)

--quick runs the four incasts only. Per scenario: Run() seconds (the example's wall_s: the time
in Simulator::Run), whole-process seconds, events, events/s, events per packet-hop (events over
the run's `data_frame_hops`: data frames put on a link at every host NIC and switch port), peak
RSS (the child's ru_maxrss), flows done. A run that fails (non-zero exit) stops the suite with its status.
Timing is the machine's: compare runs made in one session on one machine.
"""

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402

HPCC_SIM_DCQCN = [
    "--cc=dcqcn",
    "--dcqcnPreset=hpcc-sim",
    "--ecnMap=100:400000:1600000:0.2,400:1600000:6400000:0.2",
    "--buffer=32MB",
]

# name, example, arguments, in --quick
SUITE = [
    ("incast-16x1MB", "ldcp-incast", ["--cc=none", "--pfc=1", "--senders=16", "--size=1000000"], True),
    ("incast-64x1MB", "ldcp-incast", ["--cc=none", "--pfc=1", "--senders=64", "--size=1000000"], True),
    ("incast-256x256KB", "ldcp-incast", ["--cc=none", "--pfc=1", "--senders=256", "--size=262144"], True),
    (
        "incast-1000x64KB",
        "ldcp-incast",
        ["--cc=none", "--pfc=1", "--senders=1000", "--size=65536", "--buffer=32MB"],
        True,
    ),
    (
        "fattree320-dcqcn",
        "fat-tree-workload",
        [
            "--topology=workloads/fat-tree-320.txt",
            "--flows=workloads/websearch-320hosts-load30-5ms.flows",
        ]
        + HPCC_SIM_DCQCN,
        False,
    ),
    (
        "k12-load60-10ms",
        "fat-tree-workload",
        ["--k=12", "--load=0.6", "--duration=10ms", "--cdf=workloads/WebSearch_distribution.txt"] + HPCC_SIM_DCQCN,
        False,
    ),
]

COLUMNS = [
    "scenario",
    "run_s",
    "process_s",
    "events",
    "events_per_s",
    "events_per_packet_hop",
    "peak_rss_mb",
    "flows_done",
]


def machine():
    """The machine the table was measured on: CPU model, cores, memory."""
    model = os.uname().machine
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = ", %.0f GiB" % (kb / 1024.0 / 1024.0)
    except (OSError, ValueError, IndexError):
        pass
    return "%s, %d cores%s" % (model, os.cpu_count() or 0, mem)


def run_one(prog, env, name, args, out):
    """Runs one scenario; returns (exit status, whole-process seconds, peak RSS in MB)."""
    cmd = [prog] + args + ["--out=" + out]
    print("bench: %s: %s" % (name, " ".join(cmd)), file=sys.stderr, flush=True)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.monotonic() - t0
    # ru_maxrss is in KiB on Linux
    return p.returncode, elapsed, usage.ru_maxrss / 1024.0


def main(argv):
    ap = argparse.ArgumentParser(
        prog="tools/bench.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory of ./waf build")
    ap.add_argument("--quick", action="store_true", help="the four incasts only")
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "bench"), help="output directory")
    a = ap.parse_args(argv)
    names = [s[0] for s in SUITE]
    only = [n for n in a.only.split(",") if n]
    for n in only:
        if n not in names:
            print("tools/bench.py: unknown scenario %r; the scenarios are: %s" % (n, ", ".join(names)), file=sys.stderr)
            return 2
    info = buildenv.load(a.build)
    env = buildenv.run_env(info)
    os.makedirs(a.out, exist_ok=True)
    rows = []
    for name, example, args, quick in SUITE:
        if only and name not in only:
            continue
        if a.quick and not quick and not only:
            continue
        prog = buildenv.program_path(info, example, ROOT)
        if not prog:
            print("tools/bench.py: %s is not built (run ./waf build)" % example, file=sys.stderr)
            return 2
        out = os.path.join(a.out, name)
        rc, elapsed, rss = run_one(prog, env, name, args, out)
        if rc != 0:
            print("tools/bench.py: %s failed with exit status %d (outputs in %s)" % (name, rc, out), file=sys.stderr)
            return rc
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        run_s = float(s["wall_s"])
        events = int(s["events"])
        per_hop = "-"
        if s.get("data_frame_hops"):
            per_hop = "%.2f" % (events / s["data_frame_hops"])
        rows.append(
            {
                "scenario": name,
                "run_s": "%.3f" % run_s,
                "process_s": "%.3f" % elapsed,
                "events": str(events),
                "events_per_s": "%.0f" % (events / run_s if run_s > 0 else 0),
                "events_per_packet_hop": per_hop,
                "peak_rss_mb": "%.0f" % rss,
                "flows_done": "%d/%d" % (s["flows_done"], s["flows_total"]),
            }
        )
    with open(os.path.join(a.out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    widths = [max(len(c), *(len(r[c]) for r in rows)) if rows else len(c) for c in COLUMNS]
    print("  ".join(c.rjust(w) for c, w in zip(COLUMNS, widths)))
    for r in rows:
        print("  ".join(r[c].rjust(w) for c, w in zip(COLUMNS, widths)))
    print("machine: %s; table also in %s" % (machine(), os.path.join(a.out, "bench.csv")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
