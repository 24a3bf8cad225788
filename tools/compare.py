#!/usr/bin/env python3
"""Runs one example under several congestion-control schemes and prints one table.

    tools/compare.py [--build DIR] [--schemes=ldcp,ldcp-rate,dcqcn,hpcc,timely,dctcp,none] [--seeds=1,2,3] --run "EXAMPLE args..."

`./waf compare --run "EXAMPLE args" --schemes=...` builds, then runs this with --build set to its
build directory; run by hand it needs a tree built by `./waf build` (default --build: build/).
Each scheme runs as `EXAMPLE args --cc=SCHEME --out=results/compare/EXAMPLE-SCHEME` from the
checkout; the tables are read from each run's summary.json and output files. With --seeds=1,2,3 each
scheme runs once per seed (--seed=S, outputs in results/compare/EXAMPLE-SCHEME-seedS) and every
cell is the mean over the seeds with the half-width of its 95 % interval (Student t: t_{0.975,n-1}
s / sqrt(n)), written +UP/-DOWN where the interval is cut at 0 (a slowdown at 1): no column can be
negative. The main table's queue max is the largest queue of the run over every switch egress
port, its node:port named (the bottleneck's exact maximum from summary.json, or a larger sample
of queue.csv); "paused us" is the time the ports that sent PFC PAUSE were paused, summed (pfc.csv). A scheme written SCHEME+rcm runs
with RCM in the switches (`--cc=SCHEME --rcm=1`; e.g. --schemes=dcqcn,dcqcn+rcm), one written
SCHEME+pfc with a lossless data priority (`--cc=SCHEME --pfc=1`; e.g. none+pfc, line rate on
PFC, the lossless baseline of --schemes=ldcp,none,none+pfc). When every
run has buckets.csv (fat-tree-workload), a table of the FCT slowdown p50 and p99 per flow-size
bucket with each bucket's flows follows (a bucket of fewer than 30 flows is starred); when every
run reports them, tables of the FCT by size class (summary.json's
fct_by_size) and by class (fct_by_class, --pattern=hotspot) follow. The runs go --jobs at a time
(default: the machine's cores; `./waf compare -j N`); every run is its own process with its own
output directory, so the tables do not depend on it. A failing run stops the comparison with its
exit status (the first failing run in scheme then seed order; the runs after it are stopped).
"""

import argparse
import concurrent.futures
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402
from plots import aggregate, runs as plot_runs, stats  # noqa: E402
from plots.common import FEW_FLOWS  # noqa: E402
from sweep import Pool  # noqa: E402

ROOT = buildenv.ROOT

# (column title, value of one run, format): the value from the run's summary.json and output
# files (Run: tools/plots/runs.py), formatted; over several seeds a cell is the mean and the
# half-width of its 95 % interval (Student t)
COMPARE_COLUMNS = [
    ("flows done", None, None),
    ("FCT avg us", lambda r: r.summary["fct_ns"]["avg"] / 1e3, "%.1f"),
    ("FCT p99 us", lambda r: r.summary["fct_ns"]["p99"] / 1e3, "%.1f"),
    ("slowdown p99", lambda r: r.summary["slowdown"]["p99"], "%.2f"),
    ("queue max KB (node:port)", lambda r: queue_max(r)[0] / 1e3, "%.1f"),
    ("queue avg KB", lambda r: r.summary["queue_avg_bytes"] / 1e3, "%.1f"),
    ("drops", lambda r: r.summary["drops_total"], "%.0f"),
    ("stable drops", lambda r: r.summary.get("stable_stage_drops", 0), "%.0f"),
    ("PAUSEs", lambda r: r.summary["pfc_pause_frames"], "%.0f"),
    ("paused us", lambda r: aggregate.paused_ns(r)[0] / 1e3, "%.1f"),
    ("retx KB", lambda r: r.summary["retx_bytes"] / 1e3, "%.1f"),
    ("wall s", lambda r: r.summary["wall_s"], "%.2f"),
]


def run_all(cmds, env, jobs):
    """Runs the commands, `jobs` at a time (sweep's Pool), each with its banner as it starts.
    Returns None, or (command, exit status) of the first failed run in command order; the runs
    after it are killed or never start, so which failure is reported does not depend on timing."""
    runs = [Job(i, cmd) for i, cmd in enumerate(cmds)]
    pool = Pool(env, jobs, stdout=subprocess.DEVNULL, stderr=None, on_start=lambda r: buildenv.banner(" ".join(r.cmd)))
    failed = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(jobs, len(runs)))) as ex:
        for run, result in zip(runs, ex.map(pool.one, runs)):
            if result is not None and result[0] != 0:
                failed[run.index] = result[0]
                pool.stop(run.index)
    if not failed:
        return None
    first = min(failed)
    return cmds[first], failed[first]


class Job:
    """A run of the comparison as sweep's Pool takes it."""

    def __init__(self, index, cmd):
        self.index = index
        self.cmd = cmd
        # the --out=DIR the command ends with: Pool removes an old summary.json there
        self.out = os.path.join(ROOT, cmd[-1][len("--out=") :])


def queue_max(run):
    """(bytes, "node:port") of the largest queue of the run: the larger of summary.json's exact
    maximum of the bottleneck queue (its port named where the example names it:
    bottleneck_switch, bottleneck_port) and the largest queue.csv sample over every switch egress
    port (sampled every --sample: a lower bound of that port's maximum)."""
    s = run.summary
    best = (s.get("queue_max_bytes", 0), "%s:%s" % (s["bottleneck_switch"], s["bottleneck_port"]) if "bottleneck_switch" in s else "bottleneck")
    sampled = aggregate.queue_max(run)
    if sampled and sampled[0] > best[0]:
        best = sampled
    return best


def cell(xs, fmt, floor=0.0):
    """One value, or the mean over the seeds and the half-width of its 95 % interval, the
    interval cut at `floor` (every column is a time, a count, a size or a rate, at least 0; a
    slowdown at least 1) and then written +UP/-DOWN (stats.interval_text)."""
    if len(xs) == 1:
        return fmt % xs[0]
    m, ci = stats.mean_ci(xs)
    return stats.interval_text(m, ci, fmt, floor)


def render(title, head, rows):
    widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
    return ["", title] + ["  ".join(x.rjust(w) for x, w in zip(r, widths)) for r in [head] + rows]


def table(name, args, rows, root, seeds):
    """The comparison as text lines: a title, a header and one row per scheme, right-aligned;
    rows: [(scheme, [Run, one per seed])]."""
    head = ["scheme"] + [c for c, _, _ in COMPARE_COLUMNS]
    cells = []
    for cc, runs in rows:
        r = [cc]
        for title, value, fmt in COMPARE_COLUMNS:
            if value is None:  # flows done: summed over the seeds
                r.append("%d/%d" % (sum(x.summary["flows_done"] for x in runs), sum(x.summary["flows_total"] for x in runs)))
                continue
            text = cell([value(x) for x in runs], fmt, 1.0 if title.startswith("slowdown") else 0.0)
            if title.startswith("queue max"):
                maxima = [queue_max(x) for x in runs]
                text += " (%s)" % max(maxima, key=lambda m: m[0])[1]
            r.append(text)
        cells.append(r)
    what = "%s %s" % (name, " ".join(args))
    if len(seeds) > 1:
        what += "  (seeds %s: mean ±95 %% interval, Student t, +UP/-DOWN where cut at 0 (a slowdown at 1); flows done: summed)" % ",".join(seeds)
    lines = render(what, head, cells)
    lines.append("outputs in %s/%s-SCHEME%s/" % (root, name, "-seedS" if len(seeds) > 1 else ""))
    return lines


def bucket_table(rows):
    """Text lines: the FCT slowdown p50 and p99 per flow-size bucket (buckets.csv) per scheme, with
    each bucket's finished flows per seed (n); empty when a run has no buckets."""
    if not rows or not all(aggregate.buckets(x) for _, runs in rows for x in runs):
        return []
    head = ["scheme"]
    for b in aggregate.BUCKETS:
        head += [b + " n", "p50", "p99"]
    cells = []
    for cc, runs in rows:
        r = [cc]
        for b in aggregate.BUCKETS:
            got = [aggregate.buckets(x).get(b) for x in runs]
            done = [g for g in got if g and g["flows"] > 0]
            if not done:
                r += ["0", "-", "-"]
                continue
            n = sum(g["flows"] for g in done) / len(done)
            r += [("%.0f" if n == int(n) else "%.1f") % n + ("*" if n < FEW_FLOWS else ""),
                  cell([g["p50"] for g in done], "%.2f", 1.0), cell([g["p99"] for g in done], "%.2f", 1.0)]
        cells.append(r)
    lines = render("FCT slowdown by flow size (buckets.csv; n: finished flows per seed, * fewer than %d: "
                   "the p99 is close to the maximum)" % FEW_FLOWS, head, cells)
    return lines


# (title, class): the tables by size class and by class, from summary.json's fct_by_size and
# fct_by_class (rdmacc::ClassFigures)
CLASS_TABLES = [
    ("fct_by_size", [("all", "all"), ("mice <1MB", "mice"), ("medium 1-10MB", "medium"), ("elephants >10MB", "elephants")]),
    ("fct_by_class", [("hot", "hot"), ("background", "background"), ("all", "all")]),
]


def class_tables(rows):
    """Text lines: for each of CLASS_TABLES that every run has, one row per scheme with each
    class's flows, FCT avg and p99 (us) and mean throughput (Gb/s), over the seeds as cell() (the
    FCT and throughput over the seeds where the class has finished flows; `-` where none has)."""
    lines = []
    for key, classes in CLASS_TABLES:
        if not rows or not all(key in x.summary for _, runs in rows for x in runs):
            continue
        head = ["scheme"]
        for title, _ in classes:
            head += [title + " flows", "FCT avg us", "FCT p99 us", "thr avg Gb/s"]
        cells = []
        for cc, runs in rows:
            r = [cc]
            for _, c in classes:
                fs = [x.summary[key][c] for x in runs]
                unfinished = sum(f["unfinished"] for f in fs)
                r.append(cell([f["flows"] for f in fs], "%.0f") + (" (%d unfinished)" % unfinished if unfinished else ""))
                # the FCT and throughput over the seeds where the class finished flows (a seed
                # without any has no FCT: its 0 is no value)
                done = [f for f in fs if f["flows"] - f["unfinished"] > 0]
                if not done:
                    r += ["-", "-", "-"]
                    continue
                r += [cell([f["fct_ns"]["avg"] / 1e3 for f in done], "%.1f"), cell([f["fct_ns"]["p99"] / 1e3 for f in done], "%.1f"),
                      cell([f["throughput_bps"]["avg"] / 1e9 for f in done], "%.2f")]
            cells.append(r)
        lines += render(key, head, cells)
    return lines


# Suffixes of an entry of --schemes and the options they add: SCHEME+rcm runs RCM in the
# switches, SCHEME+pfc makes the data priority lossless (e.g. none+pfc: line rate on PFC).
SCHEME_SUFFIXES = [("+rcm", "--rcm=1"), ("+pfc", "--pfc=1")]


def scheme_args(scheme):
    """The options of one entry of --schemes: SCHEME, then one option per suffix (SCHEME+rcm,
    SCHEME+pfc, SCHEME+pfc+rcm, ...)."""
    extra = []
    found = True
    while found:
        found = False
        for suffix, opt in SCHEME_SUFFIXES:
            if scheme.endswith(suffix) and len(scheme) > len(suffix):
                scheme = scheme[: -len(suffix)]
                extra.insert(0, opt)
                found = True
    return ["--cc=" + scheme] + extra


def main():
    ap = argparse.ArgumentParser(
        prog="tools/compare.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), metavar="DIR", help="build directory of ./waf build [default: build]")
    ap.add_argument("--run", default="", metavar='"EXAMPLE args"', help="the example and its arguments (one string)")
    ap.add_argument(
        "--schemes",
        default="ldcp,ldcp-rate,dcqcn,hpcc,timely,dctcp,none",
        help="comma-separated --cc values, SCHEME+rcm for SCHEME with RCM in the switches, SCHEME+pfc for SCHEME lossless (PFC) [default: ldcp,ldcp-rate,dcqcn,hpcc,timely,dctcp,none]",
    )
    ap.add_argument(
        "--out", default=os.path.join("results", "compare"), metavar="DIR", help="outputs go to DIR/EXAMPLE-SCHEME/ [default: results/compare]"
    )
    ap.add_argument(
        "--seeds",
        default="",
        metavar="S1,S2,...",
        help="run each scheme once per seed (--seed=S, outputs in DIR/EXAMPLE-SCHEME-seedS/); the tables show the mean "
        "over the seeds and its 95%% interval (Student t) [default: one run, the example's --seed]",
    )
    ap.add_argument(
        "--jobs",
        default=buildenv.cores(),
        type=int,
        metavar="N",
        help="runs at a time (each run is one process; the outputs do not depend on it) [default: the machine's cores, %d here]"
        % buildenv.cores(),
    )
    opts = ap.parse_args()
    if opts.jobs < 1:
        buildenv.error("--jobs=%d: must be at least 1" % opts.jobs)
        return 2
    if not opts.run:
        buildenv.error('compare needs --run "EXAMPLE args...", e.g. ./waf compare --run "ldcp-incast --senders=64"')
        return 2
    argv = shlex.split(opts.run)
    name = argv[0]
    examples = buildenv.examples()
    if name not in examples:
        buildenv.error("unknown example %r; the examples are: %s" % (name, ", ".join(examples)))
        return 2
    seeds = [x.strip() for x in opts.seeds.split(",")] if opts.seeds else []
    if seeds:
        bad = [x for x in seeds if not x.isdigit() or int(x) < 1]
        if bad or len(set(seeds)) != len(seeds):
            buildenv.error("--seeds=%s: write distinct whole numbers >= 1, e.g. --seeds=1,2,3" % opts.seeds)
            return 2
        given = [a for a in argv[1:] if a == "--seed" or a.startswith("--seed=")]
        if given:
            buildenv.error("--seeds=%s: --run also gives %s; give the seeds in one place" % (opts.seeds, given[0]))
            return 2
    try:
        info = buildenv.load(opts.build)
    except buildenv.BuildError as e:
        buildenv.error(str(e))
        return 2
    env = buildenv.run_env(info)
    schemes = [x for x in opts.schemes.split(",") if x]
    prog = buildenv.program_path(info, name)
    # every scheme name and option checked (and every case's fabric built) before the first run
    for cc in schemes:
        refused = buildenv.dry_run([prog] + argv[1:] + scheme_args(cc), env)
        if refused:
            buildenv.error("--schemes %s: %s (nothing was run)" % (cc, refused))
            return 2
    plan = []  # (scheme, output directory, command) in table order
    for cc in schemes:
        for seed in seeds or [None]:
            out = os.path.join(opts.out, "%s-%s" % (name, cc) + ("-seed%s" % seed if seed else ""))
            cmd = [prog] + argv[1:] + scheme_args(cc) + (["--seed=" + seed] if seed else []) + ["--out=" + out]
            plan.append((cc, out, cmd))
    failed = run_all([cmd for _, _, cmd in plan], env, opts.jobs)
    if failed:
        cmd, rc = failed
        buildenv.error("%s failed with exit status %d" % (" ".join(cmd), rc))
        return rc if rc > 0 else 1
    rows = []
    for cc in schemes:
        rows.append((cc, [plot_runs.Run(os.path.join(ROOT, out)) for c, out, _ in plan if c == cc]))
    lines = table(name, argv[1:], rows, opts.out, seeds or [""]) + bucket_table(rows) + class_tables(rows)
    lines += ["", "figures: ./waf plot --dirs=%s" % opts.out]
    print("\n".join(lines))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
