"""pfc_time.png: PFC pause time per scheme (top: the paused time summed over the ports that sent
PAUSE, µs) and per tier of the fabric (bottom, a fat tree only: its switches' tiers, core, agg,
edge, and the hosts; elsewhere the total alone, one tier "all" in plots.json): the mean over
the seeds, the 95 % interval as an error bar, drawn down to 0 at most. A scheme whose runs are lossy (summary.json's setup.pfc false:
no PFC, nothing can pause) is named "(lossy)" under its bar, a scheme that never paused has a
"0" written on its axis. Drawn for every experiment whose runs
write pfc.csv; when none of them paused, the bars are 0 and the figure says so ("no PFC pause in
these runs") rather than being left out."""

from . import aggregate, common, stats

TIERS = ["core", "agg", "edge", "host", "all"]


def draw(group, d, record):
    if not any(r.has("pfc.csv") for r in group.runs):
        return
    paused = {r.dir: aggregate.paused_ns(r) for r in group.runs}
    none = not any(total for total, _ in paused.values())
    labels = list(group.labels)
    tiers = [t for t in TIERS if any(t in bt for _, bt in paused.values())]
    if not tiers:  # nothing paused: the tiers the fabric has
        tiers = ["core", "agg", "edge", "host"] if aggregate.fat_tree_tier(group.first) else ["all"]
    per_tier = tiers != ["all"]  # a fat tree: a panel per tier; elsewhere the total is all
    fig, axes = common.new_figure(2 if per_tier else 1, panel=1.8)
    # µs, or ms when a bar would pass 10 ms
    top = max(total for total, _ in paused.values()) / 1e3
    div, unit = (1e3, "ms") if top > 1e4 else (1.0, "µs")
    totals = {}
    cis = {}
    n = len(labels)
    for s, label in enumerate(labels):
        runs = group.series[label]
        c = common.colour(s)
        m, ci = stats.mean_ci([paused[r.dir][0] / 1e3 for r in runs])
        totals[label] = m
        cis[label] = ci
        axes[0].bar(s, m / div, 0.6, color=c, label=label)
        if ci:
            # drawn down to 0 at most (no time is negative); plots.json keeps the interval whole
            axes[0].errorbar(s, m / div, yerr=[[min(ci, m) / div], [ci / div]], color="black", elinewidth=0.6, capsize=1.5)
        if not per_tier:
            continue
        width = 0.8 / n
        for i, t in enumerate(tiers):
            tm, tci = stats.mean_ci([paused[r.dir][1].get(t, 0) / 1e3 for r in runs])
            x = i + (s - (n - 1) / 2) * width
            axes[1].bar(x, tm / div, width, color=c)
            if tci:
                axes[1].errorbar(x, tm / div, yerr=[[min(tci, tm) / div], [tci / div]], color="black", elinewidth=0.6, capsize=1.5)
    lossy = [lab for lab in labels if all(r.summary.get("setup", {}).get("pfc") is False for r in group.series[lab])]
    axes[0].set_xticks(range(n))
    axes[0].set_xticklabels([lab + "\n(lossy)" if lab in lossy else lab for lab in labels])
    if not none:
        # a scheme that never paused: its 0 written, not a missing bar
        for s, label in enumerate(labels):
            if totals[label] == 0:
                axes[0].annotate("0", (s, 0), xytext=(0, 2), textcoords="offset points",
                                 ha="center", va="bottom", fontsize=common.FONT_PT - 1)
    if none:
        for ax in axes:
            ax.set_ylim(0, 1)
            ax.text(0.5, 0.5, "no PFC pause in these runs", transform=ax.transAxes, ha="center", va="center", fontsize=common.FONT_PT)
    axes[0].set_ylabel("paused (%s, all ports)" % unit)
    axes[0].set_xlabel("scheme")
    if per_tier:
        axes[1].set_xticks(range(len(tiers)))
        axes[1].set_xticklabels(["%s ports" % t if t != "host" else "host NICs" for t in tiers])
        axes[1].set_ylabel("paused (%s)" % unit)
        axes[1].set_xlabel("tier of the port that sent PAUSE")
        from matplotlib.patches import Patch

        common.legend_below(axes[1], n, handles=[Patch(color=common.colour(i), label=lab) for i, lab in enumerate(labels)])
    common.save(fig, d, "pfc_time", "PFC pause time per scheme" + (" and tier" if per_tier else ""), group.caption(), labels, record,
                extra={"paused_us": totals, "paused_ci_us": cis, "tiers": tiers, "lossy": lossy, "none_paused": none})
