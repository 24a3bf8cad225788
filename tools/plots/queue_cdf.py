"""queue_cdf.png: the CDF of the switch egress queue lengths, one line per scheme: every sample
(queue.csv, one every --sample) of every busy queue (a port with bytes queued), seeds pooled,
log x from 1 KB (about one frame: a sample below it, a frame's tail or an ACK, counts in the CDF
but its x would stretch the axis over nothing)."""

from . import aggregate, common

# the x axis starts here (KB): about one data frame
X_FROM_KB = 1.0


def draw(group, d, record):
    series = []
    for label in group.labels:
        xs = sorted(b / 1e3 for r in group.series[label] for b in aggregate.queue_samples(r))
        if xs:
            series.append((label, xs))
    if not series:
        return
    fig, (ax,) = common.new_figure(panel=2.4)
    for label, xs in series:
        ax.step(xs, [(i + 1) / len(xs) for i in range(len(xs))], where="post", color=common.colour(group.labels.index(label)),
                label="%s (max %.0f KB)" % (label, xs[-1]))
    ax.set_xscale("log")
    top = max(xs[-1] for _, xs in series)
    if top > X_FROM_KB:
        ax.set_xlim(X_FROM_KB, top * 1.3)
    ax.set_xlabel("queue length of a busy egress queue (KB)")
    ax.set_ylabel("CDF of samples")
    ax.set_ylim(0, 1.02)
    common.legend_below(ax, 2)
    labels = [lab for lab, _ in series]
    common.save(fig, d, "queue_cdf", "Queue length CDF", group.caption(), labels, record,
                extra={"samples": {lab: len(xs) for lab, xs in series}})
