#!/usr/bin/env python3
"""Runs the fixed benchmark suite and prints one table (and writes DIR/bench.csv).

    tools/bench.py [--build DIR] [--quick] [--only NAME,...] [--out DIR] [--callgrind] [--htsim PATH]
                   [--hpccsim PATH [--hpccsim-wide PATH]]

`./waf bench [--quick] [--only=...] [--callgrind] [--htsim=PATH] [--hpccsim=PATH]
[--hpccsim-wide=PATH]` builds, then runs this with
--build set to its build directory; run by hand it needs a tree built by `./waf build` (default
--build: build/).

The suite (every run from the checkout, outputs in DIR/NAME/, default DIR results/bench):

  incast-16x1MB      ldcp-incast, 16 x 1 MB line-rate senders (--cc=none) with PFC through one
  incast-64x1MB      switch, 100 Gb/s, 1 us links, 1000 B payload: the HPCC simulator's
  incast-256x256KB   reference incasts (README "Performance"); the 1000-sender one with a 32 MB
  incast-1000x64KB   switch buffer (the PFC headroom of 1001 ports)
  htsim-incast-16x1MB      our side of the comparison with htsim (bench/README.md): the same
  htsim-incast-256x256KiB  incasts with htsim's PFC thresholds (pause at 15 000 B, resume at
  htsim-perm-k8-128x2MB    12 000 B), and the k = 8 fat tree (128 hosts), each host sending 2 MB
                           to one other (bench/vs-htsim/perm-k8-128x2MB.flows), line rate, PFC
  fattree320-dcqcn   fat-tree-workload on workloads/fat-tree-320.txt with the 3201 web-search
                     flows, DCQCN with the HPCC simulator's settings (--dcqcnPreset=hpcc-sim,
                     its marking map and 32 MB buffers): the simulator's reference run
  k12-load60-10ms    fat-tree-workload, k = 12 (432 hosts), web-search CDF at 60 % load for
                     10 ms of arrivals, DCQCN (hpcc-sim)

--quick runs the incasts only. Per scenario: Run() seconds (the example's wall_s: the time in
Simulator::Run), whole-process wall seconds, whole-process CPU seconds (user + sys of the child),
events, events/s, events per packet-hop (events over the run's `data_frame_hops`: data frames put
on a link at every host NIC and switch port), CPU ns per event and per packet-hop (whole-process
CPU, set-up included, over the run's events and packet-hops), peak RSS (GNU time's %M, else the
child's ru_maxrss),
flows done, the last flow's finish time (simulated, fct.csv).

--callgrind runs each chosen scenario a second time under `valgrind --tool=callgrind` (outputs in
DIR/NAME/callgrind/, the profile in callgrind.out) and adds the instructions executed: in the
whole process, in the event loop (Simulator::Run, inclusive), and the event loop's per event and
per packet-hop. The second run must give the same events (same seed, same run). Instruction counts
do not depend on the machine's load; wall and CPU times do: compare those only between runs of
one session on a quiet machine.

--htsim PATH also runs htsim's side of each htsim-* scenario with the htsim_roce binary at PATH
(built as bench/README.md says, at the commit it names), as a row "NAME (htsim)": its command
line is in bench/README.md and printed on stderr. htsim reports no event count: its events are
the calls of EventList::doNextEvent (less the final one) that --callgrind counts, so without
--callgrind its per-event columns are "-". Its packet-hops are computed from the flows (every
data packet crosses 2 links in the incasts; 2, 4 or 6 in the fat tree by where the two hosts
are), and it must report no retransmission and finish every flow.

--hpccsim PATH also runs the HPCC simulator's side of incast-16x1MB, incast-64x1MB,
incast-256x256KB, incast-1000x64KB and fattree320-dcqcn (PATH: its built simulation/ directory or
its scratch/third program, built as bench/README.md says), as a row "NAME (HPCC sim)", on input
files that bench/vs-hpccsim/gen.py writes into DIR/NAME/hpccsim/ (the same flows and links, its
line rate with PFC for the incasts, its DCQCN settings of run.py for the fat tree: what ours
reproduce with --dcqcnPreset=hpcc-sim). Its run_s is from its "Running Simulation." line (flushed
just before Simulator::Run) to its exit: Run() plus Simulator::Destroy and the exit, an upper bound
on its Run() (it prints only its whole process's CPU seconds, on stderr here). Its events, like
htsim's, come only with --callgrind (the calls of ns3::EventImpl::Invoke from Simulator::Run); its
packet-hops are computed from the flows and the topology (each flow's packets over a shortest
path). It must finish every flow; both last-flow times are printed on stderr, and the ratio of the
two runs' spans from the first flow's start to the last finish.
Its switches hold at most pCnt - 1 ports (read from the source tree next to its program: 256 at
the commit bench/README.md names): a scenario with a larger switch runs on --hpccsim-wide PATH, a
second build with pCnt raised (bench/README.md), or gets no row (a note on stderr).

A run that fails (non-zero exit) stops the suite with its status.
"""

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
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

# htsim's PFC thresholds (main_roce.cpp: pause at 15, resume at 12 packets of 1000 B; ours
# resumes at XoffStatic - XonDelta, 15000 - 3000 B)
HTSIM_LIKE = ["--cc=none", "--pfc=1", "--mtu=1000", "--xoffBeta=0", "--xoffStatic=15000"]
VS_HTSIM = "bench/vs-htsim"
sys.path.insert(0, os.path.join(ROOT, "bench", "vs-hpccsim"))
import gen as hpccsim_gen  # noqa: E402

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
    ("htsim-incast-16x1MB", "ldcp-incast", HTSIM_LIKE + ["--senders=16", "--size=1000000"], True),
    ("htsim-incast-256x256KiB", "ldcp-incast", HTSIM_LIKE + ["--senders=256", "--size=262144"], True),
    (
        "htsim-perm-k8-128x2MB",
        "fat-tree-workload",
        HTSIM_LIKE + ["--k=8", "--flows=%s/perm-k8-128x2MB.flows" % VS_HTSIM],
        False,
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

# htsim's side of the htsim-* scenarios: (connection matrix, hosts, topology file or None for
# main_roce's own 3-tier fat tree of -nodes hosts, fat tree k for the hop count or None: one switch)
HTSIM = {
    "htsim-incast-16x1MB": ("incast-16x1MB.cm", 17, "star-17.topo", None),
    "htsim-incast-256x256KiB": ("incast-256x256KiB.cm", 257, "star-257.topo", None),
    "htsim-perm-k8-128x2MB": ("perm-k8-128x2MB.cm", 128, None, 8),
}
HTSIM_MTU = 1000
# the functions whose inclusive instructions are the event loop
LOOP_FN = {"ours": "ns3::Simulator::Run()", "htsim": "EventList::doNextEvent()", "hpccsim": "ns3::Simulator::Run()"}
# the HPCC simulator's events: its DefaultSimulatorImpl::ProcessOneEvent invokes each once (Run
# where the compiler inlined it; Destroy's calls, the destroy events, are not counted)
HPCCSIM_EVENT_FN = "ns3::EventImpl::Invoke()"
HPCCSIM_EVENT_FROM = {"ns3::DefaultSimulatorImpl::ProcessOneEvent()", "ns3::DefaultSimulatorImpl::Run()"}
# flushed by third.cc just before Simulator::Run()
HPCCSIM_RUN_LINE = "Running Simulation."

COLUMNS = [
    "scenario",
    "run_s",
    "process_s",
    "cpu_s",
    "events",
    "events_per_s",
    "events_per_packet_hop",
    "cpu_ns_per_event",
    "cpu_ns_per_packet_hop",
    "peak_rss_mb",
    "flows_done",
    "last_flow_us",
]
CALLGRIND_COLUMNS = ["instructions", "loop_instructions", "instr_per_event", "instr_per_packet_hop"]


def htsim_args(name, out):
    """htsim_roce's arguments for scenario NAME (the files by absolute path: htsim runs in OUT,
    where it also writes idmap.txt), log in OUT."""
    cm, nodes, topo, _ = HTSIM[name]
    args = ["-tm", os.path.join(ROOT, VS_HTSIM, cm), "-nodes", str(nodes)]
    if topo:
        args += ["-topo", os.path.join(ROOT, VS_HTSIM, topo)]
    return args + [
        "-mtu",
        str(HTSIM_MTU),
        "-q",
        "100000",
        "-strat",
        "ecmp_host",
        "-paths",
        "1",
        "-end",
        "50000",
        "-o",
        os.path.join(out, "logout.dat"),
    ]


def htsim_flows(name):
    """[(src host, dst host, bytes)] of scenario NAME's connection matrix."""
    flows = []
    with open(os.path.join(ROOT, VS_HTSIM, HTSIM[name][0])) as f:
        for line in f:
            m = re.match(r"\s*(\d+)->(\d+)\s.*\bsize\s+(\d+)", line)
            if m:
                flows.append((int(m.group(1)), int(m.group(2)), int(m.group(3))))
    return flows


def htsim_hops(name):
    """(data packets, data packet-hops) of scenario NAME: every packet over its path once."""
    k = HTSIM[name][3]
    packets = hops = 0
    for s, d, size in htsim_flows(name):
        n = -(-size // HTSIM_MTU)
        if k is None:
            links = 2
        elif s // (k // 2) == d // (k // 2):
            links = 2
        elif s // (k * k // 4) == d // (k * k // 4):
            links = 4
        else:
            links = 6
        packets += n
        hops += n * links
    return packets, hops


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


def gnu_time():
    """/usr/bin/time if it is GNU time, else None."""
    try:
        p = subprocess.run(["/usr/bin/time", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError:
        return None
    return "/usr/bin/time" if b"GNU" in p.stdout else None


GNU_TIME = gnu_time()


def run_one(cmd, env, name, stdout=subprocess.DEVNULL, cwd=ROOT, marker=None):
    """Runs one command from the checkout; (exit status, wall s, CPU s (user + sys), peak RSS MB).

    The peak RSS comes from GNU time's %M when /usr/bin/time is GNU time: a child forked from
    this Python process keeps Python's resident set (~16 MB) in its ru_maxrss across exec, which
    would hide a smaller program's peak (htsim's incasts need ~4 MB).

    With MARKER = (line, dict): the command's output goes through a pipe into the file STDOUT,
    and dict["after_s"] is set to the seconds from the first output line equal to LINE to the
    command's exit (left unset when no such line came)."""
    where = "" if cwd == ROOT else "(in %s) " % cwd
    print("bench: %s: %s%s" % (name, where, " ".join(cmd)), file=sys.stderr, flush=True)
    rss_file = None
    if GNU_TIME:
        fd, rss_file = tempfile.mkstemp(prefix="bench-rss-")
        os.close(fd)
        cmd = [GNU_TIME, "-f", "%M", "-o", rss_file, "--"] + cmd
    t0 = time.monotonic()
    if marker is None:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=stdout)
    else:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE)
        seen = None
        for raw in p.stdout:
            if seen is None and raw.rstrip(b"\r\n").decode(errors="replace") == marker[0]:
                seen = time.monotonic()
            stdout.write(raw.decode(errors="replace"))
        p.stdout.close()
    _, status, usage = os.wait4(p.pid, 0)
    t1 = time.monotonic()
    elapsed = t1 - t0
    if marker is not None and seen is not None:
        marker[1]["after_s"] = t1 - seen
    # ru_maxrss and %M are in KiB on Linux
    rss_kib = usage.ru_maxrss
    if rss_file:
        try:
            with open(rss_file) as f:
                lines = [ln for ln in f.read().split("\n") if ln.strip()]
            rss_kib = int(lines[-1])
        except (OSError, ValueError, IndexError):
            pass
        os.unlink(rss_file)
    return os.waitstatus_to_exitcode(status), elapsed, usage.ru_utime + usage.ru_stime, rss_kib / 1024.0


def parse_callgrind(path, loop_fn, count_fn=None, count_from=None):
    """(total instructions, inclusive instructions of LOOP_FN, calls of COUNT_FN) of a callgrind.out.

    The inclusive cost of a function is the sum of the costs of the calls to it (callgrind writes
    each call's inclusive cost on the line after `calls=`); neither function is recursive. With
    COUNT_FROM (a set of function names), only the calls of COUNT_FN made from those count."""
    names = {}

    def name_of(spec):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", spec.strip())
        if not m:
            return spec.strip()
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names.get(m.group(1), "")

    total = None
    loop = calls = 0
    fn = cfn = None
    call_line = False
    loop_call = count_call = False
    with open(path, errors="replace") as f:
        for line in f:
            if call_line:
                call_line = False
                if loop_call:
                    parts = line.split()
                    loop += int(parts[1]) if len(parts) > 1 else 0
                continue
            if line.startswith("fn="):
                fn = name_of(line[3:])
            elif line.startswith("cfn="):
                cfn = name_of(line[4:])
            elif line.startswith("calls="):
                call_line = True
                loop_call = cfn == loop_fn
                count_call = cfn == count_fn and (count_from is None or fn in count_from)
                if count_call:
                    calls += int(line[6:].split()[0])
            elif line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split(":", 1)[1].split()[0])
    if total is None:
        raise ValueError("%s has no totals: line" % path)
    return total, loop, calls


def callgrind(cmd, env, name, out, loop_fn, count_fn=None, stdout=subprocess.DEVNULL, cwd=ROOT, count_from=None):
    """Runs CMD under callgrind into OUT/callgrind.out; (status, total, loop instructions, calls
    of COUNT_FN, from COUNT_FROM if given)."""
    os.makedirs(out, exist_ok=True)
    prof = os.path.join(out, "callgrind.out")
    vg = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + prof, "--log-file=" + os.path.join(out, "valgrind.log")]
    rc, _, _, _ = run_one(vg + cmd, env, name + " (callgrind)", stdout=stdout, cwd=cwd)
    if rc != 0:
        return rc, 0, 0, 0
    total, loop, calls = parse_callgrind(prof, loop_fn, count_fn, count_from)
    if loop == 0 or (count_fn and calls == 0):
        # never a made-up per-event figure: the loop function must be in the profile
        print("tools/bench.py: %s: no call of %s in %s" % (name, loop_fn, prof), file=sys.stderr)
        return 1, 0, 0, 0
    return 0, total, loop, calls


def last_finish_us(fct_csv):
    """The latest finish_ns of fct.csv, in microseconds ("-" without the file or column)."""
    try:
        with open(fct_csv) as f:
            finishes = [int(r["finish_ns"]) for r in csv.DictReader(f) if r.get("finish_ns")]
    except (OSError, KeyError, ValueError):
        return "-"
    return "%.3f" % (max(finishes) / 1000.0) if finishes else "-"


def ratio(num, den, scale=1.0, fmt="%.0f"):
    return fmt % (num * scale / den) if den else "-"


def fail(text, rc=2):
    print("tools/bench.py: " + text, file=sys.stderr)
    return rc


def ours(name, prog, args, env, out, use_callgrind):
    """Our row of scenario NAME, or an exit status."""
    rc, elapsed, cpu, rss = run_one([prog] + args + ["--out=" + out], env, name)
    if rc != 0:
        return fail("%s failed with exit status %d (outputs in %s)" % (name, rc, out), rc)
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    run_s = float(s["wall_s"])
    events = int(s["events"])
    hops = int(s.get("data_frame_hops") or 0)
    row = {
        "scenario": name,
        "run_s": "%.3f" % run_s,
        "process_s": "%.3f" % elapsed,
        "cpu_s": "%.3f" % cpu,
        "events": str(events),
        "events_per_s": ratio(events, run_s),
        "events_per_packet_hop": ratio(events, hops, fmt="%.2f"),
        "cpu_ns_per_event": ratio(cpu, events, 1e9),
        "cpu_ns_per_packet_hop": ratio(cpu, hops, 1e9),
        "peak_rss_mb": "%.0f" % rss,
        "flows_done": "%d/%d" % (s["flows_done"], s["flows_total"]),
        "last_flow_us": last_finish_us(os.path.join(out, "fct.csv")),
    }
    if use_callgrind:
        cg_out = os.path.join(out, "callgrind")
        rc, total, loop, _ = callgrind(
            [prog] + args + ["--out=" + cg_out], env, name, cg_out, LOOP_FN["ours"]
        )
        if rc != 0:
            return fail("%s under callgrind failed with exit status %d (outputs in %s)" % (name, rc, cg_out), rc)
        with open(os.path.join(cg_out, "summary.json")) as f:
            cg_events = int(json.load(f)["events"])
        if cg_events != events:
            return fail("%s ran %d events under callgrind and %d without: not the same run" % (name, cg_events, events), 1)
        row.update(cg_columns(total, loop, events, hops))
    return row


def cg_columns(total, loop, events, hops):
    return {
        "instructions": str(total),
        "loop_instructions": str(loop),
        "instr_per_event": ratio(loop, events),
        "instr_per_packet_hop": ratio(loop, hops),
    }


def htsim_row(name, htsim, out, use_callgrind):
    """htsim's row of scenario NAME, or an exit status."""
    os.makedirs(out, exist_ok=True)
    cmd = [htsim] + htsim_args(name, out)
    log = os.path.join(out, "stdout.txt")
    with open(log, "w") as f:
        rc, elapsed, cpu, rss = run_one(cmd, None, name + " (htsim)", stdout=f, cwd=out)
    if rc != 0:
        return fail("htsim on %s failed with exit status %d (its output in %s)" % (name, rc, log), rc)
    with open(log, errors="replace") as f:
        text = f.read()
    finishes = [float(t) for t in re.findall(r"^Flow \S+ \d+ finished at ([0-9.eE+-]+)", text, re.M)]
    sent = re.search(r"^New: (\d+) Rtx: (\d+)", text, re.M)
    flows = htsim_flows(name)
    packets, hops = htsim_hops(name)
    if not sent:
        return fail("htsim on %s printed no 'New: N Rtx: R' line (its output in %s)" % (name, log), 1)
    # Rtx counts go-back-N retransmissions; New is never incremented in main_roce at the commit
    # of bench/README.md (0), so a non-zero New must be the flows' packets
    if int(sent.group(2)) != 0 or int(sent.group(1)) not in (0, packets):
        return fail(
            "htsim on %s printed New: %s Rtx: %s, expected New: %d (or 0) and Rtx: 0: its packet-hops "
            "are not the flows' (output in %s)" % (name, sent.group(1), sent.group(2), packets, log),
            1,
        )
    if len(finishes) != len(flows):
        return fail("htsim on %s finished %d of %d flows (output in %s)" % (name, len(finishes), len(flows), log), 1)
    row = {c: "-" for c in COLUMNS}
    row.update(
        {
            "scenario": name + " (htsim)",
            "process_s": "%.3f" % elapsed,
            "cpu_s": "%.3f" % cpu,
            "cpu_ns_per_packet_hop": ratio(cpu, hops, 1e9),
            "peak_rss_mb": "%.0f" % rss,
            "flows_done": "%d/%d" % (len(finishes), len(flows)),
            "last_flow_us": "%.3f" % max(finishes) if finishes else "-",
        }
    )
    if use_callgrind:
        cg_out = os.path.join(out, "callgrind")
        os.makedirs(cg_out, exist_ok=True)
        with open(os.path.join(cg_out, "stdout.txt"), "w") as f:
            rc, total, loop, calls = callgrind(
                [htsim] + htsim_args(name, cg_out),
                None,
                name + " (htsim)",
                cg_out,
                LOOP_FN["htsim"],
                LOOP_FN["htsim"],
                f,
                cg_out,
            )
        if rc != 0:
            return fail("htsim on %s under callgrind failed with exit status %d (outputs in %s)" % (name, rc, cg_out), rc)
        # the main loop calls doNextEvent until it returns false: one call more than events
        events = max(calls - 1, 0)
        row.update(cg_columns(total, loop, events, hops))
        row.update(
            {
                "events": str(events),
                "events_per_packet_hop": ratio(events, hops, fmt="%.2f"),
                "cpu_ns_per_event": ratio(cpu, events, 1e9),
            }
        )
    return row


def hpccsim_program(path):
    """(the HPCC simulator's third program, the directory of its ns-3 libraries, its switches' port
    limit) from --hpccsim PATH (its simulation/ directory or the program), or an error text.

    The port limit is SwitchNode::pCnt and SwitchMmu::pCnt (the smaller), read from the source tree
    the program was built in (simulation/src/point-to-point/model/): per-port arrays of that size
    (257 at the commit of bench/README.md), indexed by device, device 0 the loopback."""
    prog = path
    if os.path.isdir(path):
        prog = os.path.join(path, "build", "scratch", "third")
    if not (os.path.isfile(prog) and os.access(prog, os.X_OK)):
        return "neither the simulator's built simulation/ directory (with build/scratch/third) nor an executable file"
    prog = os.path.abspath(prog)
    sim = os.path.dirname(os.path.dirname(os.path.dirname(prog)))
    limits = []
    for header in ("switch-node.h", "switch-mmu.h"):
        try:
            with open(os.path.join(sim, "src", "point-to-point", "model", header)) as f:
                m = re.search(r"static const uint32_t pCnt = (\d+);", f.read())
        except OSError:
            m = None
        if not m:
            return "no pCnt in %s: the switches' port limit of this build is unknown" % os.path.join(
                sim, "src", "point-to-point", "model", header
            )
        limits.append(int(m.group(1)))
    # ns-3's waf puts libns3.*.so in build/, the program in build/scratch/
    d = os.path.dirname(prog)
    libdir = None
    while d != os.path.dirname(d):
        if any(f.startswith("libns3") and ".so" in f for f in os.listdir(d)):
            libdir = d
            break
        d = os.path.dirname(d)
    return prog, libdir, min(limits)


def hpccsim_ports(name):
    """The most devices of one switch in scenario NAME, its loopback (device 0) included."""
    if name in hpccsim_gen.INCASTS:
        return hpccsim_gen.INCASTS[name][0] + 2
    with open(os.path.join(ROOT, hpccsim_gen.FATTREE[name][0])) as f:
        words = f.read().split()
    switches = set(int(w) for w in words[3 : 3 + int(words[1])])
    degree = {}
    at = 3 + int(words[1])
    for _ in range(int(words[2])):
        for n in (int(words[at]), int(words[at + 1])):
            degree[n] = degree.get(n, 0) + 1
        at += 5
    return max(degree.get(s, 0) for s in switches) + 1


def hpccsim_hops(name, topology):
    """(data packets, data packet-hops) of scenario NAME in the HPCC simulator: each flow's
    packets (payload HPCC_MTU) over a shortest path of TOPOLOGY (its topology file)."""
    with open(topology) as f:
        words = f.read().split()
    nodes, switches, links = int(words[0]), int(words[1]), int(words[2])
    adj = [[] for _ in range(nodes)]
    at = 3 + switches
    for _ in range(links):
        a, b = int(words[at]), int(words[at + 1])
        adj[a].append(b)
        adj[b].append(a)
        at += 5
    dist = {}
    packets = hops = 0
    for s, d, size, _ in hpccsim_gen.flows_of(name):
        if s not in dist:
            seen = [-1] * nodes
            seen[s] = 0
            q = [s]
            for u in q:
                for v in adj[u]:
                    if seen[v] < 0:
                        seen[v] = seen[u] + 1
                        q.append(v)
            dist[s] = seen
        n = -(-size // hpccsim_gen.PAYLOAD)
        packets += n
        hops += n * dist[s][d]
    return packets, hops


def hpccsim_fct(path):
    """[(start ns, finish ns)] of the HPCC simulator's FCT_OUTPUT_FILE (sip dip sport dport size
    start_ns fct_ns standalone_ns per finished flow)."""
    done = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 7:
                done.append((int(p[5]), int(p[5]) + int(p[6])))
    return done


def first_start_last_finish_ns(fct_csv):
    """(the earliest start_ns, the latest finish_ns) of our fct.csv, or None."""
    try:
        with open(fct_csv) as f:
            rows = [(int(r["start_ns"]), int(r["finish_ns"])) for r in csv.DictReader(f) if r.get("finish_ns")]
    except (OSError, KeyError, ValueError):
        return None
    return (min(r[0] for r in rows), max(r[1] for r in rows)) if rows else None


def hpccsim_row(name, prog, libdir, out, use_callgrind, our_fct):
    """The HPCC simulator's row of scenario NAME, or an exit status (OUR_FCT: our run's fct.csv)."""
    config = hpccsim_gen.write(name, out)
    env = dict(os.environ)
    if libdir:
        env["LD_LIBRARY_PATH"] = libdir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    log = os.path.join(out, "stdout.txt")
    marks = {}
    with open(log, "w") as f:
        rc, elapsed, cpu, rss = run_one([prog, config], env, name + " (HPCC sim)", stdout=f, cwd=out, marker=(HPCCSIM_RUN_LINE, marks))
    if rc != 0:
        return fail("the HPCC simulator on %s failed with exit status %d (its output in %s)" % (name, rc, log), rc)
    if "after_s" not in marks:
        return fail("the HPCC simulator on %s printed no %r line (its output in %s)" % (name, HPCCSIM_RUN_LINE, log), 1)
    with open(log, errors="replace") as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    # third.cc's last line: clock() seconds of its main
    own_cpu = lines[-1] if lines and re.match(r"^[0-9.eE+-]+$", lines[-1]) else "-"
    flows = hpccsim_gen.flows_of(name)
    done = hpccsim_fct(os.path.join(out, "fct.txt"))
    if len(done) != len(flows):
        return fail("the HPCC simulator on %s finished %d of %d flows (output in %s)" % (name, len(done), len(flows), out), 1)
    topology = os.path.join(out, "topology.txt") if name in hpccsim_gen.INCASTS else os.path.join(ROOT, hpccsim_gen.FATTREE[name][0])
    _, hops = hpccsim_hops(name, topology)
    last_us = max(e for _, e in done) / 1000.0
    run_s = marks["after_s"]
    row = {c: "-" for c in COLUMNS}
    row.update(
        {
            "scenario": name + " (HPCC sim)",
            "run_s": "%.3f" % run_s,
            "process_s": "%.3f" % elapsed,
            "cpu_s": "%.3f" % cpu,
            "cpu_ns_per_packet_hop": ratio(cpu, hops, 1e9),
            "peak_rss_mb": "%.0f" % rss,
            "flows_done": "%d/%d" % (len(done), len(flows)),
            "last_flow_us": "%.3f" % last_us,
        }
    )
    # both runs' span, from the first flow's start to the last flow's finish (the fat tree's flows
    # start at 2 s: the ratio of the finish times themselves would hide any difference)
    ours = first_start_last_finish_ns(our_fct)
    span = max(e for _, e in done) - min(b for b, _ in done)
    print(
        "bench: %s: last flow ours %s us, HPCC sim %.3f us; from the first start: ours %s us, HPCC sim %.3f us%s; "
        "the HPCC simulator's own CPU seconds of its main: %s"
        % (
            name,
            "%.3f" % (ours[1] / 1000.0) if ours else "-",
            last_us,
            "%.3f" % ((ours[1] - ours[0]) / 1000.0) if ours else "-",
            span / 1000.0,
            " (ours / HPCC sim %.3f)" % ((ours[1] - ours[0]) / span) if ours and span else "",
            own_cpu,
        ),
        file=sys.stderr,
    )
    if use_callgrind:
        cg_out = os.path.join(out, "callgrind")
        cg_config = hpccsim_gen.write(name, cg_out)
        with open(os.path.join(cg_out, "stdout.txt"), "w") as f:
            rc, total, loop, calls = callgrind(
                [prog, cg_config],
                env,
                name + " (HPCC sim)",
                cg_out,
                LOOP_FN["hpccsim"],
                HPCCSIM_EVENT_FN,
                f,
                cg_out,
                HPCCSIM_EVENT_FROM,
            )
        if rc != 0:
            log = os.path.join(cg_out, "valgrind.log")
            try:
                with open(log, errors="replace") as f:
                    unknown = "Unrecognised instruction" in f.read()
            except OSError:
                unknown = False
            if unknown:
                # -march=native on a CPU with AVX-512: valgrind 3.19 cannot decode its instructions
                return fail(
                    "the HPCC simulator on %s under callgrind: valgrind cannot decode an instruction of this build "
                    "(%s; -march=native emits AVX-512 on this CPU): for --callgrind build it with "
                    "CXXFLAGS_EXTRA=-mno-avx512f (bench/README.md)" % (name, log),
                    rc,
                )
            return fail("the HPCC simulator on %s under callgrind failed with exit status %d (outputs in %s)" % (name, rc, cg_out), rc)
        row.update(cg_columns(total, loop, calls, hops))
        row.update(
            {
                "events": str(calls),
                "events_per_s": ratio(calls, run_s),
                "events_per_packet_hop": ratio(calls, hops, fmt="%.2f"),
                "cpu_ns_per_event": ratio(cpu, calls, 1e9),
            }
        )
    return row


def main(argv):
    ap = argparse.ArgumentParser(
        prog="tools/bench.py",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory of ./waf build")
    ap.add_argument("--quick", action="store_true", help="the incasts only")
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "bench"), help="output directory")
    ap.add_argument(
        "--callgrind",
        action="store_true",
        help="also run each scenario under valgrind --tool=callgrind: instructions per event and per packet-hop",
    )
    ap.add_argument("--htsim", default="", help="htsim_roce binary: also run htsim's side of the htsim-* scenarios")
    ap.add_argument(
        "--hpccsim",
        default="",
        help="the HPCC simulator's built simulation/ directory or its scratch/third program: also run its side of "
        "the four incasts and fattree320-dcqcn (bench/README.md)",
    )
    ap.add_argument(
        "--hpccsim-wide",
        default="",
        help="a second build of the HPCC simulator whose switches take 1024 ports (bench/README.md): its side of "
        "the scenarios whose switch has more ports than --hpccsim's build holds (incast-256x256KB, incast-1000x64KB)",
    )
    a = ap.parse_args(argv)
    names = [s[0] for s in SUITE]
    only = [n for n in a.only.split(",") if n]
    for n in only:
        if n not in names:
            return fail("unknown scenario %r; the scenarios are: %s" % (n, ", ".join(names)))
    if a.callgrind and not shutil.which("valgrind"):
        return fail("--callgrind: valgrind is not installed (apt-get install valgrind)")
    htsim = ""
    if a.htsim:
        htsim = os.path.abspath(a.htsim)
        if not (os.path.isfile(htsim) and os.access(htsim, os.X_OK)):
            return fail("invalid --htsim = %s: not an executable file (htsim_roce, see bench/README.md)" % a.htsim)
    builds = []
    for opt, path in (("--hpccsim", a.hpccsim), ("--hpccsim-wide", a.hpccsim_wide)):
        if not path:
            continue
        b = hpccsim_program(path)
        if isinstance(b, str):
            return fail("invalid %s = %s: %s (see bench/README.md)" % (opt, path, b))
        builds.append(b)
    if a.hpccsim_wide and not a.hpccsim:
        return fail("--hpccsim-wide needs --hpccsim (the simulator's unchanged build)")
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
            return fail("%s is not built (run ./waf build)" % example)
        row = ours(name, prog, args, env, os.path.join(a.out, name), a.callgrind)
        if not isinstance(row, dict):
            return row
        rows.append(row)
        if htsim and name in HTSIM:
            row = htsim_row(name, htsim, os.path.join(a.out, name, "htsim"), a.callgrind)
            if not isinstance(row, dict):
                return row
            rows.append(row)
        if builds and name in hpccsim_gen.NAMES:
            # the unchanged build where its switches have the ports, else the wide one
            ports = hpccsim_ports(name)
            fits = [b for b in builds if ports <= b[2]]
            if not fits:
                print(
                    "bench: %s: no HPCC sim row: its switch needs %d devices, more than %s builds hold "
                    "(pCnt %s; --hpccsim-wide, bench/README.md)" % (name, ports, "the" if len(builds) == 1 else "both", "/".join(str(b[2]) for b in builds)),
                    file=sys.stderr,
                )
                continue
            prog, libdir, _ = fits[0]
            row = hpccsim_row(name, prog, libdir, os.path.join(a.out, name, "hpccsim"), a.callgrind, os.path.join(a.out, name, "fct.csv"))
            if not isinstance(row, dict):
                return row
            rows.append(row)
    columns = COLUMNS + (CALLGRIND_COLUMNS if a.callgrind else [])
    with open(os.path.join(a.out, "bench.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    widths = [max(len(c), *(len(r[c]) for r in rows)) if rows else len(c) for c in columns]
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    for r in rows:
        print("  ".join(r[c].rjust(w) for c, w in zip(columns, widths)))
    print(
        "machine: %s; build: ns-3 %s (%s), profile %s; table also in %s"
        % (machine(), info["ns3_version"], info["ns3_provider"], info.get("profile", "default"), os.path.join(a.out, "bench.csv"))
    )
    print(
        "wall and CPU times depend on the machine's load (compare runs of one session on a quiet machine)"
        + ("; instruction counts do not" if a.callgrind else "; --callgrind gives load-independent instruction counts")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
