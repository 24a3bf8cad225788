"""slowdown_cdf.png: the CDF of the FCT slowdown of the finished flows, one line per scheme (its
seeds pooled), log x. A scheme with fewer than 30 finished flows is dashed, its count in the
legend."""

from . import aggregate, common


def draw(group, d, record):
    series = []
    for label in group.labels:
        xs = sorted(s for r in group.series[label] for _, s in aggregate.slowdowns(r))
        if xs:
            series.append((label, xs))
    if not series:
        return
    fig, (ax,) = common.new_figure(panel=2.4)
    labels = []
    for n, (label, xs) in enumerate(series):
        ys = [(i + 1) / len(xs) for i in range(len(xs))]
        few = common.few(len(xs))
        ax.step(xs, ys, where="post", color=common.colour(group.labels.index(label)), linestyle="--" if few else "-",
                label=common.few_label(label, len(xs)))
        labels.append(label)
    ax.set_xscale("log")
    ax.set_xlabel("FCT slowdown (FCT / ideal FCT)")
    ax.set_ylabel("CDF of flows")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right")
    common.save(fig, d, "slowdown_cdf", "FCT slowdown CDF", group.caption(), labels, record,
                extra={"flows": {lab: len(xs) for lab, xs in series}})
