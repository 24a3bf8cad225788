#!/usr/bin/env python3
"""Turns the output directories of the examples into PNG figures.

    tools/plot.py [DIR ...]          (default: every run directory under results/)
    ./waf plot [--dirs=DIR,DIR...]   (the same, with matplotlib installed into .waf-env)

A DIR is a run's output directory (it holds summary.json) or a directory of runs (compare's
results/compare/, a sweep's results/sweep/NAME/: directories that hold summary.json), searched
recursively. Each run directory gets, next to its CSV files:

  queue.png     queue length over time (queue.csv): the 8 switch egress queues with the largest
                maximum, one line each (node:port), 0 where a sample has no row
  flows.png     per-flow state over time, the 8 longest-lived flows, one line each: a panel for
                the window (flows.csv from --flowTrace, window-based schemes), one for the
                sending rate (flows.csv, rate-based schemes) and one for the delivered rate
                (rates.csv, e.g. fat-tree-workload --rateSample), for those the run has
  pfc.png       PFC pause timeline (pfc.csv): a row per (node, port) that sent PAUSE frames (the
                16 that were paused longest), a bar per paused interval (PAUSE to RESUME, or the
                PAUSE's duration)
  slowdown.png  FCT slowdown p50 and p99 per flow-size bucket (buckets.csv, fat-tree-workload)

and a directory of runs with buckets.csv (e.g. ./waf compare --run "fat-tree-workload ...")
gets slowdown.png with one bar series per run (scheme): the slowdown by size bucket per
scheme. A figure is drawn only when its CSV has data (no PAUSE: no pfc.png). Every directory
that gets figures also gets plots.json: for each PNG its title, the number of series drawn and
their labels (the tests check the PNGs against it).

matplotlib is installed into the Python running this tool when it is missing and that Python is
a virtual environment (./waf's .waf-env), at the version pinned in tools/buildenv.py.
"""

import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402

ROOT = buildenv.ROOT
MAX_QUEUES = 8
MAX_FLOWS = 8
MAX_PFC_ROWS = 16
BUCKET_ORDER = ["<10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">=10MB"]


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def colour(i):
    """The i-th colour of matplotlib's default cycle (tab10)."""
    import matplotlib

    return matplotlib.colormaps["tab10"](i % 10)


def new_figure(rows=1):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(rows, 1, figsize=(8, 3.2 * rows), dpi=100, squeeze=False)
    return fig, [a[0] for a in axes]


def save(fig, path, title, labels, record):
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    record[os.path.basename(path)] = {"title": title, "series": len(labels), "labels": labels}


def plot_queue(d, record):
    path = os.path.join(d, "queue.csv")
    if not os.path.exists(path):
        return
    rows = read_rows(path)
    if not rows:
        return
    times = sorted({int(r["time_ns"]) for r in rows})
    queues = {}
    for r in rows:
        q = queues.setdefault((int(r["node"]), int(r["port"])), {})
        q[int(r["time_ns"])] = q.get(int(r["time_ns"]), 0) + int(r["bytes"])
    top = sorted(queues, key=lambda k: (-max(queues[k].values()), k))[:MAX_QUEUES]
    fig, (ax,) = new_figure()
    labels = []
    for i, k in enumerate(sorted(top)):
        ys = [queues[k].get(t, 0) / 1e3 for t in times]
        ax.plot([t / 1e6 for t in times], ys, color=colour(i), linewidth=1.2, label="%d:%d" % k)
        labels.append("%d:%d" % k)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (KB)")
    ax.legend(title="node:port", fontsize="small", loc="upper right")
    save(fig, os.path.join(d, "queue.png"), "queue length over time", labels, record)


def plot_flows(d, record):
    flows_csv = os.path.join(d, "flows.csv")
    rates_csv = os.path.join(d, "rates.csv")
    traced = read_rows(flows_csv) if os.path.exists(flows_csv) else []
    delivered = read_rows(rates_csv) if os.path.exists(rates_csv) else []
    # the longest-lived flows (the span of their rows: each trace holds a flow's rows only while
    # it is active), in id order
    span = {}
    for r in traced + delivered:
        t = int(r["time_ns"])
        lo, hi = span.get(int(r["flow_id"]), (t, t))
        span[int(r["flow_id"])] = (min(lo, t), max(hi, t))
    ids = sorted(sorted(span, key=lambda i: (-(span[i][1] - span[i][0]), i))[:MAX_FLOWS])
    if not ids:
        return
    keep = set(ids)
    # panels: the window (window-based schemes), the sending rate (rate-based schemes), both
    # from flows.csv; the delivered rate from rates.csv
    panels = []
    cw = [r for r in traced if r.get("cw") and int(r["flow_id"]) in keep]
    if cw:
        panels.append(("window", "window (packets)", cw, lambda r: float(r["cw"])))
    sending = [r for r in traced if int(r["rate_bps"]) > 0 and int(r["flow_id"]) in keep]
    if sending:
        panels.append(("sending rate", "sending rate (Gb/s)", sending, lambda r: int(r["rate_bps"]) / 1e9))
    got = [r for r in delivered if int(r["flow_id"]) in keep]
    if got:
        panels.append(("delivered rate", "delivered (Gb/s)", got, lambda r: int(r["rate_bps"]) / 1e9))
    if not panels:
        return
    fig, axes = new_figure(len(panels))
    for ax, (_, ylabel, rows, value) in zip(axes, panels):
        for n, i in enumerate(ids):
            pts = [(int(r["time_ns"]) / 1e6, value(r)) for r in rows if int(r["flow_id"]) == i]
            if pts:
                # a short-lived flow (few rows: each trace stops at its finish) gets markers,
                # so that it shows beside flows that last the whole run
                ax.step([t for t, _ in pts], [v for _, v in pts], where="post", color=colour(n), linewidth=1.2,
                        label="flow %d" % i, marker="o" if len(pts) < 50 else None, markersize=3)
        ax.set_ylabel(ylabel)
    axes[0].legend(fontsize="small", loc="upper right")
    axes[-1].set_xlabel("time (ms)")
    labels = ["flow %d" % i for i in ids]
    names = [p[0] for p in panels]
    title = "per-flow " + (" and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]) + " over time"
    save(fig, os.path.join(d, "flows.png"), title, labels, record)


def plot_pfc(d, record):
    path = os.path.join(d, "pfc.csv")
    if not os.path.exists(path):
        return
    rows = read_rows(path)
    intervals = {}
    open_at = {}
    for r in sorted(rows, key=lambda r: int(r["time_ns"])):
        key = (int(r["node"]), int(r["port"]))
        t = int(r["time_ns"])
        if r["kind"] == "pause":
            if key in open_at:  # a refresh: the pause goes on
                continue
            open_at[key] = (t, t + int(r["duration_ns"]))
        elif key in open_at:
            start, end = open_at.pop(key)
            intervals.setdefault(key, []).append((start, min(t, end)))
    for key, (start, end) in open_at.items():
        intervals.setdefault(key, []).append((start, end))
    if not intervals:
        return
    total = {k: sum(b - a for a, b in v) for k, v in intervals.items()}
    top = sorted(sorted(intervals, key=lambda k: (-total[k], k))[:MAX_PFC_ROWS])
    fig, (ax,) = new_figure()
    labels = []
    for n, k in enumerate(top):
        bars = [(a / 1e6, max(b - a, 1) / 1e6) for a, b in intervals[k]]
        ax.broken_barh(bars, (n - 0.4, 0.8), facecolors=colour(n))
        labels.append("%d:%d" % k)
    ax.set_yticks(range(len(top)))
    ax.set_yticklabels(labels, fontsize="small")
    ax.set_ylabel("PAUSE sent by node:port")
    ax.set_xlabel("time (ms)")
    save(fig, os.path.join(d, "pfc.png"), "PFC pause timeline", labels, record)


def read_buckets(d):
    rows = {r["bucket"]: r for r in read_rows(os.path.join(d, "buckets.csv"))}
    return [rows.get(b) for b in BUCKET_ORDER]


def plot_slowdown(d, runs, record):
    """Bars of p50 and p99 per bucket, one series per run in `runs` [(label, dir)]."""
    fig, axes = new_figure(2)
    width = 0.8 / len(runs)
    labels = []
    for n, (label, rd) in enumerate(runs):
        b = read_buckets(rd)
        for ax, key in zip(axes, ("p50", "p99")):
            xs = [i + (n - (len(runs) - 1) / 2) * width for i in range(len(BUCKET_ORDER))]
            ys = [float(r[key]) if r and int(r["flows"]) > 0 else 0 for r in b]
            ax.bar(xs, ys, width, color=colour(n), label=label)
        labels.append(label)
    for ax, key in zip(axes, ("p50", "p99")):
        ax.set_xticks(range(len(BUCKET_ORDER)))
        ax.set_xticklabels(BUCKET_ORDER)
        ax.set_ylabel("slowdown %s" % key)
        ax.axhline(1, color="0.5", linewidth=0.8)
    axes[0].legend(fontsize="small", loc="upper left")
    axes[-1].set_xlabel("flow size")
    save(fig, os.path.join(d, "slowdown.png"), "FCT slowdown by flow size", labels, record)


def run_dirs(d):
    """Every directory under d (d included) that holds a summary.json, sorted."""
    found = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        if "summary.json" in files:
            found.append(root)
    return found


def scheme_of(rd):
    try:
        with open(os.path.join(rd, "summary.json")) as f:
            return json.load(f).get("scheme", os.path.basename(rd))
    except (OSError, ValueError):
        return os.path.basename(rd)


def write_record(d, record):
    if record:
        with open(os.path.join(d, "plots.json"), "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
            f.write("\n")


def plot_dir(d):
    """Draws every figure of d; returns the PNG paths written."""
    written = []
    runs = run_dirs(d)
    for rd in runs:
        record = {}
        plot_queue(rd, record)
        plot_flows(rd, record)
        plot_pfc(rd, record)
        if os.path.exists(os.path.join(rd, "buckets.csv")):
            plot_slowdown(rd, [(scheme_of(rd), rd)], record)
        write_record(rd, record)
        written += [os.path.join(rd, p) for p in sorted(record)]
    # a directory of runs: the runs with buckets side by side
    with_buckets = [rd for rd in runs if rd != d and os.path.exists(os.path.join(rd, "buckets.csv"))]
    if with_buckets and os.path.abspath(d) not in [os.path.abspath(r) for r in runs]:
        record = {}
        plot_slowdown(d, [(scheme_of(rd), rd) for rd in with_buckets], record)
        write_record(d, record)
        written += [os.path.join(d, p) for p in sorted(record)]
    return written


def main():
    ap = argparse.ArgumentParser(prog="tools/plot.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="*", metavar="DIR", help="output directories [default: results/]")
    opts = ap.parse_args()
    dirs = opts.dirs or [os.path.join(ROOT, "results")]
    for d in dirs:
        if not os.path.isdir(d):
            buildenv.error("plot: %s is not a directory (an example's output directory, or one holding them)" % d)
            return 2
    problem = buildenv.ensure_plotting()
    if problem:
        buildenv.error(problem)
        return 2
    import matplotlib

    matplotlib.use("Agg")
    total = []
    for d in dirs:
        if not run_dirs(d):
            buildenv.error("plot: no run in %s (no summary.json below it)" % d)
            return 2
        total += plot_dir(d)
    for p in total:
        print("wrote %s" % os.path.relpath(p))
    print("%d figures" % len(total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
