#!/usr/bin/env python3
"""Runs one example under several congestion-control schemes and prints one table.

    tools/compare.py [--build DIR] [--schemes=ldcp,ldcp-rate,dcqcn,hpcc,timely,dctcp,none] --run "EXAMPLE args..."

`./waf compare --run "EXAMPLE args" --schemes=...` builds, then runs this with --build set to its
build directory; run by hand it needs a tree built by `./waf build` (default --build: build/).
Each scheme runs as `EXAMPLE args --cc=SCHEME --out=results/compare/EXAMPLE-SCHEME` from the
checkout; the table is read from each run's summary.json. A scheme written SCHEME+rcm runs
with RCM in the switches (`--cc=SCHEME --rcm=1`; e.g. --schemes=dcqcn,dcqcn+rcm), one written
SCHEME+pfc with a lossless data priority (`--cc=SCHEME --pfc=1`; e.g. none+pfc, line rate on
PFC, the lossless baseline of --schemes=ldcp,none,none+pfc). When every
run reports them (fat-tree-workload), tables of the FCT by size class (summary.json's
fct_by_size) and by class (fct_by_class, --pattern=hotspot) follow. A failing run stops the
comparison with its exit status.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402

ROOT = buildenv.ROOT

# (column title, value from summary.json)
COMPARE_COLUMNS = [
    ("flows done", lambda s: "%d/%d" % (s["flows_done"], s["flows_total"])),
    ("FCT avg us", lambda s: "%.1f" % (s["fct_ns"]["avg"] / 1e3)),
    ("FCT p99 us", lambda s: "%.1f" % (s["fct_ns"]["p99"] / 1e3)),
    ("slowdown p99", lambda s: "%.2f" % s["slowdown"]["p99"]),
    ("queue max KB", lambda s: "%.1f" % (s["queue_max_bytes"] / 1e3)),
    ("queue avg KB", lambda s: "%.1f" % (s["queue_avg_bytes"] / 1e3)),
    ("drops", lambda s: "%d" % s["drops_total"]),
    ("stable drops", lambda s: "%d" % s.get("stable_stage_drops", 0)),
    ("PAUSEs", lambda s: "%d" % s["pfc_pause_frames"]),
    ("retx KB", lambda s: "%.1f" % (s["retx_bytes"] / 1e3)),
    ("wall s", lambda s: "%.2f" % s["wall_s"]),
]


def table(name, args, rows, root):
    """The comparison as text lines: a title, a header and one row per scheme, right-aligned."""
    head = ["scheme"] + [c for c, _ in COMPARE_COLUMNS]
    cells = [head] + [[cc] + [fmt(s) for _, fmt in COMPARE_COLUMNS] for cc, s in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = ["", "%s %s" % (name, " ".join(args))]
    lines += ["  ".join(x.rjust(w) for x, w in zip(r, widths)) for r in cells]
    lines.append("outputs in %s/%s-SCHEME/" % (root, name))
    return lines


# (title, class): the tables by size class and by class, from summary.json's fct_by_size and
# fct_by_class (rdmacc::ClassFigures)
CLASS_TABLES = [
    ("fct_by_size", [("all", "all"), ("mice <1MB", "mice"), ("medium 1-10MB", "medium"), ("elephants >10MB", "elephants")]),
    ("fct_by_class", [("hot", "hot"), ("background", "background"), ("all", "all")]),
]


def class_tables(rows):
    """Text lines: for each of CLASS_TABLES that every run has, one row per scheme with each
    class's flows, FCT avg and p99 (us) and mean throughput (Gb/s)."""
    lines = []
    for key, classes in CLASS_TABLES:
        if not rows or not all(key in s for _, s in rows):
            continue
        head = ["scheme"]
        for title, _ in classes:
            head += [title + " flows", "FCT avg us", "FCT p99 us", "thr avg Gb/s"]
        cells = [head]
        for cc, s in rows:
            r = [cc]
            for _, c in classes:
                f = s[key][c]
                r += ["%d" % f["flows"] + (" (%d unfinished)" % f["unfinished"] if f["unfinished"] else ""),
                      "%.1f" % (f["fct_ns"]["avg"] / 1e3), "%.1f" % (f["fct_ns"]["p99"] / 1e3),
                      "%.2f" % (f["throughput_bps"]["avg"] / 1e9)]
            cells.append(r)
        widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
        lines += ["", key]
        lines += ["  ".join(x.rjust(w) for x, w in zip(r, widths)) for r in cells]
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
    opts = ap.parse_args()
    if not opts.run:
        buildenv.error('compare needs --run "EXAMPLE args...", e.g. ./waf compare --run "ldcp-incast --senders=64"')
        return 2
    argv = shlex.split(opts.run)
    name = argv[0]
    examples = buildenv.examples()
    if name not in examples:
        buildenv.error("unknown example %r; the examples are: %s" % (name, ", ".join(examples)))
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
    rows = []
    for cc in schemes:
        out = os.path.join(opts.out, "%s-%s" % (name, cc))
        cmd = [prog] + argv[1:] + scheme_args(cc) + ["--out=" + out]
        buildenv.banner(" ".join(cmd))
        rc = subprocess.call(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        if rc != 0:
            buildenv.error("%s failed with exit status %d" % (" ".join(cmd), rc))
            return rc if rc > 0 else 1
        with open(os.path.join(ROOT, out, "summary.json")) as f:
            rows.append((cc, json.load(f)))
    print("\n".join(table(name, argv[1:], rows, opts.out) + class_tables(rows)))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
