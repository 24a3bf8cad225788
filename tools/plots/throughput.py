"""throughput.png: the delivered rate of chosen flows over time (rates.csv; --flows=ID,... or the
8 longest-lived) and Jain's fairness index of those active at each sample."""

from . import common, per_flow, stats


def draw(run, d, record, caption, wanted=None):
    if not run.has("rates.csv"):
        return
    rows = common.read_rows(run.path("rates.csv"))
    ids = per_flow.choose(run, wanted)
    pts = per_flow.series(rows, ids, lambda r: int(r["rate_bps"]) / 1e9)
    ids = [i for i in ids if pts[i]]
    if not ids:
        return
    at = {}
    for i in ids:
        for t, v in pts[i]:
            at.setdefault(t, []).append(v)
    jt = sorted(t for t, vs in at.items() if len(vs) >= 2 and stats.jain(vs) is not None)
    panels = 2 if jt else 1
    fig, axes = common.new_figure(panels, sharex=True, panel=2.6 if panels == 1 else 1.9)
    ax = axes[0]
    labels = []
    for n, i in enumerate(ids):
        ts = [t for t, _ in pts[i]]
        vs = [v for _, v in pts[i]]
        ax.step(ts, vs, where="post", color=common.colour(n), linewidth=0.9, label="flow %d" % i, marker="o" if len(ts) < 40 else None, markersize=2)
        labels.append("flow %d" % i)
    ax.set_ylabel("throughput (Gb/s)")
    common.legend_below(axes[-1], len(labels), handles=ax.get_lines())
    if jt:
        axes[1].plot(jt, [stats.jain(at[t]) for t in jt], color="black", linewidth=0.9)
        axes[1].set_ylim(0, 1.05)
        axes[1].set_ylabel("Jain's index")
    axes[-1].set_xlabel("time (ms)")
    axes[-1].set_xlim(left=0)  # from the run's start, as the queue and PFC timelines
    mean_jain = sum(stats.jain(at[t]) for t in jt) / len(jt) if jt else None
    common.save(
        fig, d, "throughput", "Throughput of %s over time" % ("the chosen flows" if wanted else "the %d longest-lived flows" % len(ids)),
        caption, labels, record, extra={"flows": ids, "jain_mean": mean_jain},
    )
