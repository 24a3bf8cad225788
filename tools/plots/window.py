"""flows.png: the window and the sending rate of chosen flows over time (flows.csv, --flowTrace),
a panel for each that changes: a scheme whose window or rate stays put (line rate, a window it
never moves) gets no panel for it, and no figure when neither changes."""

from . import common, per_flow


def draw(run, d, record, caption, wanted=None):
    if not run.has("flows.csv"):
        return
    rows = common.read_rows(run.path("flows.csv"))
    ids = per_flow.choose(run, wanted)
    panels = []
    cw = per_flow.series([r for r in rows if r["cw"]], ids, lambda r: float(r["cw"]))
    if any(len({v for _, v in p}) > 1 for p in cw.values()):
        panels.append(("window", "window (packets)", cw))
    rate = per_flow.series([r for r in rows if int(r["rate_bps"]) > 0], ids, lambda r: int(r["rate_bps"]) / 1e9)
    if any(len({v for _, v in p}) > 1 for p in rate.values()):
        panels.append(("sending rate", "sending rate (Gb/s)", rate))
    if not panels:
        return
    fig, axes = common.new_figure(len(panels), sharex=True, panel=2.6 if len(panels) == 1 else 1.9)
    drawn = [i for i in ids if any(p[i] for _, _, p in panels)]
    for ax, (_, ylabel, pts) in zip(axes, panels):
        for n, i in enumerate(drawn):
            if pts[i]:
                ax.step([t for t, _ in pts[i]], [v for _, v in pts[i]], where="post", color=common.colour(n), linewidth=0.9, label="flow %d" % i,
                        marker="o" if len(pts[i]) < 40 else None, markersize=2)
        ax.set_ylabel(ylabel)
    labels = ["flow %d" % i for i in drawn]
    common.legend_below(axes[-1], len(labels), handles=axes[0].get_lines())
    axes[-1].set_xlabel("time (ms)")
    axes[-1].set_xlim(left=0)  # from the run's start, as the queue and PFC timelines
    names = " and ".join(p[0] for p in panels)
    common.save(fig, d, "flows", "Per-flow %s over time" % names, caption, labels, record, extra={"flows": drawn, "panels": [p[0] for p in panels]})
