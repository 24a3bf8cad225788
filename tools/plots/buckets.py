"""buckets.png: FCT slowdown p50 and p99 per flow-size bucket (buckets.csv), a bar per scheme:
the mean over the seeds with its 95 % interval (Student t) as an error bar; under each bucket its
finished flows per seed; a bucket with fewer than 30 flows per seed is hatched (its p99 is close
to its maximum). An interval is drawn down to 1 at most (the smallest slowdown); plots.json and
compare's table keep it whole."""

from . import aggregate, common


def draw(group, d, record):
    if not any(aggregate.buckets(r) for r in group.runs):
        return
    fig, axes = common.new_figure(2, sharex=True, width=common.WIDTH_IN, panel=1.8)
    n = len(group.labels)
    width = 0.8 / n
    labels = []
    counts = {}
    values = {}
    for s, label in enumerate(group.labels):
        runs = group.series[label]
        c = common.colour(s)
        for ax, key in zip(axes, ("p50", "p99")):
            for i, b in enumerate(aggregate.BUCKETS):
                got = aggregate.bucket_stat(runs, b, key)
                if not got:
                    continue
                m, ci, _, flows = got
                counts.setdefault(b, []).append(flows)
                values.setdefault(label, {}).setdefault(b, {})[key] = [m, ci]
                x = i + (s - (n - 1) / 2) * width
                few = common.few(flows)
                ax.bar(x, m, width, color="white" if few else c, edgecolor=c, hatch="////" if few else None, linewidth=0.6)
                if ci:  # drawn down to 1 at most: no flow finishes below its ideal FCT
                    ax.errorbar(x, m, yerr=[[min(ci, max(m - 1, 0))], [ci]], color="black", elinewidth=0.6, capsize=1.5)
        labels.append(label)
    ticks = []
    short = {"<10KB": "<10K", "10KB-100KB": "10K-100K", "100KB-1MB": "100K-1M", "1MB-10MB": "1M-10M", ">=10MB": "\u226510M"}
    for b in aggregate.BUCKETS:
        fl = counts.get(b)
        ticks.append("%s\nn=%.0f" % (short[b], max(fl)) if fl else "%s\nn=0" % short[b])
    for ax, key in zip(axes, ("p50", "p99")):
        ax.set_ylabel("slowdown %s" % key)
        ax.axhline(1, color="0.5", linewidth=0.6)
        ax.set_xticks(range(len(aggregate.BUCKETS)))
        ax.set_xticklabels(ticks, fontsize=common.FONT_PT - 2)
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=common.colour(i), edgecolor=common.colour(i), label=lab) for i, lab in enumerate(group.labels)]
    if any(common.few(f) for fl in counts.values() for f in fl):
        handles.append(Patch(facecolor="white", edgecolor="0.4", hatch="////", label="< %d flows" % common.FEW_FLOWS))
    common.legend_below(axes[-1], 3, handles=handles)
    axes[-1].set_xlabel("flow size, bytes (n: flows per seed)")
    common.save(fig, d, "buckets", "FCT slowdown by flow-size bucket", group.caption(), labels, record,
                extra={"flows_per_seed": {b: max(v) for b, v in counts.items()}, "values": values})
