"""queue_cdf.png: the CDF of the switch egress queue lengths, one line per scheme: every sample
(queue.csv, one every --sample) of every busy queue (a port with bytes queued), seeds pooled,
log x."""

from . import aggregate, common


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
    ax.set_xlabel("queue length of a busy egress queue (KB)")
    ax.set_ylabel("CDF of samples")
    ax.set_ylim(0, 1.02)
    common.legend_below(ax, 2)
    labels = [lab for lab, _ in series]
    common.save(fig, d, "queue_cdf", "Queue length CDF", group.caption(), labels, record,
                extra={"samples": {lab: len(xs) for lab, xs in series}})
