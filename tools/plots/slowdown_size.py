"""slowdown_size.png: FCT slowdown p50, p95 and p99 against flow size (HPCC Fig. 11): the
finished flows cut into bins of equal counts at the percentiles of their sizes (the sizes of the
first scheme's runs, its seeds pooled: every scheme of a seed runs the same flows), as many bins
as give 30 flows per seed or more (at most 20, at least 1), one line per scheme at each bin's
median size, log x. Each point is the mean over the seeds of the bin's percentile, with its 95 %
interval as an error bar (Student t; several seeds); a hollow marker is a bin with fewer than 30
flows per seed (a seed's flows fall into the bins unevenly). An interval is drawn down to 1 at
most (no flow finishes below its ideal FCT); plots.json and the tables keep it whole."""

from . import aggregate, common, stats

MAX_BINS = 20
PERCENTILES = (50, 95, 99)


def edges(sizes, seeds=1):
    """The upper size of each bin: the sizes (of `seeds` runs pooled) at i/n percentiles, n bins
    of about 30 flows per seed (at most MAX_BINS, at least 1), duplicates merged."""
    s = sorted(sizes)
    per_seed = len(s) // max(1, seeds)
    n = max(1, min(MAX_BINS, per_seed // common.FEW_FLOWS))
    cuts = sorted({stats.percentile(s, 100.0 * (i + 1) / n) for i in range(n)})
    return cuts


def bin_of(size, cuts):
    for i, c in enumerate(cuts):
        if size <= c:
            return i
    return len(cuts) - 1


def draw(group, d, record):
    flows = {r.dir: aggregate.slowdowns(r) for r in group.runs}
    # the bins from the flows of the first scheme's seeds (every scheme of a seed runs the same
    # flows)
    first = group.series[group.labels[0]]
    sizes = [sz for r in first for sz, _ in flows[r.dir]]
    seeds = len(first)
    if not sizes:
        sizes = [sz for f in flows.values() for sz, _ in f]
        seeds = len(group.runs)
    if not sizes:
        return
    cuts = edges(sizes, seeds)
    fig, axes = common.new_figure(3, sharex=True, panel=1.6)
    labels = []
    points = {}
    for label in group.labels:
        runs = group.series[label]
        per_bin = [[[] for _ in cuts] for _ in runs]
        for j, r in enumerate(runs):
            for sz, sd in flows[r.dir]:
                per_bin[j][bin_of(sz, cuts)].append((sz, sd))
        xs, rows = [], []
        for b in range(len(cuts)):
            pooled = sorted(sz for j in range(len(runs)) for sz, _ in per_bin[j][b])
            if not pooled:
                continue
            counts = [len(per_bin[j][b]) for j in range(len(runs)) if per_bin[j][b]]
            row = []
            for p in PERCENTILES:
                vals = [stats.percentile(sorted(sd for _, sd in per_bin[j][b]), p) for j in range(len(runs)) if per_bin[j][b]]
                row.append(stats.mean_ci(vals))
            xs.append(stats.percentile(pooled, 50))
            rows.append((row, sum(counts) / len(counts)))
        if not xs:
            continue
        c = common.colour(group.labels.index(label))
        # the schemes side by side within a bin: a small shift on the log axis, so that their
        # error bars do not hide each other (plots.json keeps the bins' median sizes)
        shift = 1.07 ** (group.labels.index(label) - (len(group.labels) - 1) / 2)
        drawn_x = [x * shift for x in xs]
        for k, ax in enumerate(axes):
            ys = [row[k][0] for row, _ in rows]
            es = [row[k][1] for row, _ in rows]
            # the interval drawn down to 1 at most: no flow finishes below its ideal FCT
            lo = [min(e, y - 1) if y > 1 else 0 for y, e in zip(ys, es)]
            ax.errorbar(drawn_x, ys, yerr=[lo, es] if any(es) else None, color=c, linewidth=1.0, capsize=1.5, elinewidth=0.6,
                        marker="o", markersize=3, markerfacecolor=c, label=label)
            few = [(x, y) for x, y, (_, n) in zip(drawn_x, ys, rows) if common.few(n)]
            if few:
                ax.plot([x for x, _ in few], [y for _, y in few], linestyle="none", marker="o", markersize=3,
                        markerfacecolor="white", markeredgecolor=c, zorder=5)
        labels.append(label)
        points[label] = [{"size_bytes": x, "flows_per_seed": n, "p50": row[0][0], "p95": row[1][0], "p99": row[2][0]}
                         for x, (row, n) in zip(xs, rows)]
    for ax, p in zip(axes, PERCENTILES):
        ax.set_xscale("log")
        ax.set_ylabel("p%d slowdown" % p)
    axes[-1].set_xlabel("flow size (bytes; bins of equal flow counts)")
    handles = list(axes[0].get_legend_handles_labels()[0])
    if any(common.few(pt["flows_per_seed"]) for pts in points.values() for pt in pts):
        # the key of the hollow markers in the legend, where it hides no point
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=3, markerfacecolor="white", markeredgecolor="0.3",
                              label="bin of < %d flows per seed" % common.FEW_FLOWS))
    common.legend_below(axes[-1], 3, handles=handles)
    common.save(fig, d, "slowdown_size", "FCT slowdown against flow size", group.caption(), labels, record,
                extra={"bins": len(cuts), "points": points})
