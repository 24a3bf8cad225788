#!/usr/bin/env python3
"""Turns the output directories of the examples into figures (PDF and PNG; SVG with --svg).

    tools/plot.py [--flows=ID,...] [--svg] [DIR ...]   (default DIR: results/)
    ./waf plot [--dirs=DIR,DIR...] [--flows=ID,...] [--svg]   (the same, matplotlib in .waf-env)

A DIR is a run's output directory (it holds summary.json) or a directory of runs (compare's
results/compare/, a sweep's results/sweep/NAME/), searched recursively. Runs belong to one
experiment when their config.json agree apart from the scheme (--cc, --rcm, --pfc), the seed,
--out and the trace options (--flowTrace, --flowSample, --rateSample, --sample): an experiment's
figures have one series per scheme, each over its seeds (mean and 95 % interval, Student t), and
no figure mixes two experiments. They go into the runs' common directory, or, where several
experiments share it (a sweep's grid points), into its plots-OPTION=VALUE,.../ directory, named by
the options that tell them apart.

Per experiment (fct.csv, buckets.csv, queue.csv, pfc.csv of its runs):
  slowdown_cdf    CDF of the FCT slowdown, a line per scheme (seeds pooled), log x
  slowdown_size   slowdown p50/p95/p99 against flow size, bins of equal counts at the size
                  percentiles, log x (HPCC Fig. 11); error bars over the seeds
  buckets         slowdown p50 and p99 per size bucket, a bar per scheme, flows per bucket
                  under it; error bars over the seeds
  queue_cdf       CDF of the busy egress queues' samples, a line per scheme
  pfc_time        PFC pause time per scheme and per tier of the fabric (when a run paused)
Per run (in its directory):
  queue           the 8 largest switch egress queues over time
  pfc             PFC pauses over time, a row per port that sent PAUSE
  throughput      delivered rate of the chosen flows over time (rates.csv: --rateSample, or the
                  examples that write it) and Jain's index of those active at each sample
  flows           window and sending rate of the chosen flows (flows.csv, --flowTrace), a panel
                  only for what changes (none for a scheme at a fixed rate or window)
  The chosen flows: --flows=ID,..., or the 8 longest-lived (fct.csv's start to finish).
Per sweep (a directory with sweep.csv):
  sweep           each metric of sweep.csv against the grid points, error bars over the seeds
Per published experiment (the output directory of dcqcn-fairness, dcqcn-victim,
dcqcn-convergence, rcm-burst, rcm-victim, ldcp-incast): paper.pdf/.png, that paper's figure.

Every figure is 3.5 in wide (one column) at 8 pt, its title and caption naming the example,
topology, workload, load, the options given, the schemes and the seeds (config.json). A series
of fewer than 30 finished flows (a scheme, a size bucket, a size bin) is marked: dashed, hatched
or hollow, with its count. Every directory that gets figures gets plots.json: per figure its
title, caption, series and labels, axis labels and files (the tests check the pictures against
it).

Exit status 2: a DIR that is not a directory or holds no run, a bad --flows. matplotlib is
installed into the Python running this tool when it is missing and that Python is a virtual
environment (./waf's .waf-env), at the version pinned in tools/buildenv.py.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402

ROOT = buildenv.ROOT


def plot_dir(d, flows):
    """Draws every figure of the runs under d; returns the figure paths (PNG) written."""
    from plots import (buckets, common, papers, pfc_time, pfc_timeline, queue_cdf, queue_time, runs, slowdown_cdf, slowdown_size,
                       sweep_metrics, throughput, window)

    records = {}

    def rec(where):
        return records.setdefault(where, {})

    all_runs, groups = runs.groups(d)
    for r in all_runs:
        if r.is_index():
            continue
        cap = runs.caption(r, [r.label], [r.seed])
        queue_time.draw(r, r.dir, rec(r.dir), cap)
        pfc_timeline.draw(r, r.dir, rec(r.dir), cap)
        throughput.draw(r, r.dir, rec(r.dir), cap, flows)
        window.draw(r, r.dir, rec(r.dir), cap, flows)
    for g in groups:
        os.makedirs(g.dir, exist_ok=True)
        for kind in (slowdown_cdf, slowdown_size, buckets, queue_cdf, pfc_time):
            kind.draw(g, g.dir, rec(g.dir))
    for r in all_runs:
        if r.is_index() or papers.single(r):
            papers.draw(r, all_runs, rec(r.dir))
    for root, dirs, files in os.walk(d):
        dirs.sort()
        if "sweep.csv" in files:
            inside = [r for r in all_runs if os.path.abspath(r.dir).startswith(os.path.abspath(root) + os.sep)]
            if inside:
                sweep_metrics.draw(root, rec(root), 
                                   lambda seeds, names: "sweep over %s of %s" % (
                                       ", ".join(names), runs.caption(inside[0], sorted({r.label for r in inside}), seeds, exclude=names)))
    written = []
    for where, record in sorted(records.items()):
        common.write_record(where, record)
        written += [os.path.join(where, name) for name in sorted(record)]
    return written


def main():
    ap = argparse.ArgumentParser(prog="tools/plot.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", metavar="DIR", help="output directories [default: results/]")
    ap.add_argument("--flows", default="", metavar="ID,...", help="flow ids for the per-run throughput and window figures [default: the 8 longest-lived]")
    ap.add_argument("--svg", action="store_true", help="write SVG too")
    opts = ap.parse_args()
    flows = None
    if opts.flows:
        try:
            flows = [int(x) for x in opts.flows.split(",")]
            if any(x < 0 for x in flows):
                raise ValueError
        except ValueError:
            buildenv.error("plot: --flows=%s: write flow ids (fct.csv's flow_id) as ID,ID,..." % opts.flows)
            return 2
    dirs = opts.dirs or [os.path.join(ROOT, "results")]
    for d in dirs:
        if not os.path.isdir(d):
            buildenv.error("plot: %s is not a directory (an example's output directory, or one holding them)" % d)
            return 2
    problem = buildenv.ensure_plotting()
    if problem:
        buildenv.error(problem)
        return 2
    from plots import common, runs

    common.configure(svg=opts.svg)
    total = []
    for d in dirs:
        if not runs.run_dirs(d):
            buildenv.error("plot: no run in %s (no summary.json below it)" % d)
            return 2
        total += plot_dir(d, flows)
    for p in total:
        print("wrote %s (and .pdf%s)" % (os.path.relpath(p), ", .svg" if opts.svg else ""))
    print("%d figures" % len(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
