"""sweep.png: a sweep's metrics (sweep.csv) against its grid points: a panel per metric (the first
6 columns), a point per grid point at the mean over the seeds whose run succeeded, its 95 %
interval (Student t) as an error bar (*_ns in µs, *_bps in Gb/s, *_bytes in KB, as the table); with two or more --grid options, a line per value of the
last one."""

import math
import os

from . import common, stats

MAX_PANELS = 6
# (suffix of a key's last component, divisor, unit), as the sweep's table scales them
UNITS = [("_ns", 1e3, "µs"), ("_bps", 1e9, "Gb/s"), ("_bytes", 1e3, "KB")]


def unit(key):
    for part in reversed(key.split(".")):
        for suffix, div, name in UNITS:
            if part.endswith(suffix):
                return div, name
    return 1, ""


def read(path):
    """(grid names, metric names, rows) of sweep.csv."""
    import csv

    with open(path, newline="") as f:
        head = next(csv.reader(f))
    rows = common.read_rows(path)
    i = head.index("seed")
    names = head[:i]
    metrics = [h for h in head[i + 2 :] if h != "dir"]
    return names, metrics, rows


def draw(d, record, caption_of):
    path = os.path.join(d, "sweep.csv")
    names, metrics, rows = read(path)
    ok = [r for r in rows if r["exit_status"] == "0"]
    if not ok or not metrics:
        return
    metrics = metrics[:MAX_PANELS]
    line_of = (lambda r: r[names[-1]]) if len(names) >= 2 else (lambda r: "")
    point_of = (lambda r: ",".join(r[n] for n in names[:-1])) if len(names) >= 2 else (lambda r: ",".join(r[n] for n in names) or "-")
    points = []
    lines = []
    for r in rows:
        if point_of(r) not in points:
            points.append(point_of(r))
        if line_of(r) not in lines:
            lines.append(line_of(r))
    cols = 2 if len(metrics) > 1 else 1
    nrows = int(math.ceil(len(metrics) / cols))
    fig, axes = common.new_figure(nrows, cols, width=common.WIDE_IN if cols > 1 else common.WIDTH_IN, panel=1.8)
    values = {}
    for ax, m in zip(axes, metrics):
        div, name = unit(m)
        for n, line in enumerate(lines):
            xs, ys, es = [], [], []
            for i, p in enumerate(points):
                vals = [float(r[m]) / div for r in ok if point_of(r) == p and line_of(r) == line and r[m] != ""]
                if not vals:
                    continue
                mean, ci = stats.mean_ci(vals)
                xs.append(i + (n - (len(lines) - 1) / 2) * 0.08)
                ys.append(mean)
                es.append(ci)
                values.setdefault(m, {})["%s %s" % (p, line) if line else p] = [mean, ci, len(vals)]
            ax.errorbar(xs, ys, yerr=es if any(es) else None, color=common.colour(n), marker="o", markersize=3, capsize=2,
                        linewidth=0.9, label=("%s=%s" % (names[-1], line)) if line else None)
        ax.set_ylabel("%s (%s)" % (m, name) if name else m)
        ax.set_xticks(range(len(points)))
        ax.set_xticklabels(points, fontsize=common.FONT_PT - 2)
        ax.set_xlabel(",".join(names[:-1] if len(names) >= 2 else names) or "run")
    for ax in axes[len(metrics) :]:
        ax.set_visible(False)
    if len(lines) > 1:
        axes[0].legend()
    labels = ["%s=%s" % (names[-1], line) if line else "mean" for line in lines]
    seeds = sorted({r["seed"] for r in rows}, key=lambda s: (len(s), s))
    common.save(fig, d, "sweep", "Sweep: metrics against the grid (mean ±95 % interval over the seeds)",
                caption_of(seeds, names), labels, record, axes=[a for a in axes[: len(metrics)]], extra={"values": values})
