"""pfc_time.png: PFC pause time per scheme (top: the paused time summed over the ports that sent
PAUSE, µs) and per tier of the fabric (bottom: the switches' tiers of a fat tree, core, agg,
edge, and the hosts; one tier "all" elsewhere): the mean over the seeds, the 95 % interval as an
error bar. Drawn when a run of the experiment paused."""

from . import aggregate, common, stats

TIERS = ["core", "agg", "edge", "host", "all"]


def draw(group, d, record):
    paused = {r.dir: aggregate.paused_ns(r) for r in group.runs}
    if not any(total for total, _ in paused.values()):
        return
    fig, axes = common.new_figure(2, panel=1.8)
    labels = list(group.labels)
    tiers = [t for t in TIERS if any(t in bt for _, bt in paused.values())]
    totals = {}
    n = len(labels)
    for s, label in enumerate(labels):
        runs = group.series[label]
        c = common.colour(s)
        m, ci = stats.mean_ci([paused[r.dir][0] / 1e3 for r in runs])
        totals[label] = m
        axes[0].bar(s, m, 0.6, color=c, label=label)
        if ci:
            axes[0].errorbar(s, m, yerr=ci, color="black", elinewidth=0.6, capsize=1.5)
        width = 0.8 / n
        for i, t in enumerate(tiers):
            tm, tci = stats.mean_ci([paused[r.dir][1].get(t, 0) / 1e3 for r in runs])
            x = i + (s - (n - 1) / 2) * width
            axes[1].bar(x, tm, width, color=c)
            if tci:
                axes[1].errorbar(x, tm, yerr=tci, color="black", elinewidth=0.6, capsize=1.5)
    axes[0].set_xticks(range(n))
    axes[0].set_xticklabels(labels)
    axes[0].set_ylabel("paused (µs, all ports)")
    axes[1].set_xticks(range(len(tiers)))
    axes[1].set_xticklabels(["%s ports" % t if t != "host" else "host NICs" for t in tiers])
    axes[1].set_ylabel("paused (µs)")
    axes[1].set_xlabel("tier of the port that sent PAUSE")
    common.save(fig, d, "pfc_time", "PFC pause time per scheme and tier", group.caption(), labels, record,
                extra={"paused_us": totals, "tiers": tiers})
