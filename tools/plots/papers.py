"""paper.png: the figure of the published experiment an example reproduces, drawn in the
example's output directory: a panel per case (or the run), the delivered throughput of its flows
over time (rates.csv), a line per flow (with more than 8 flows, a line per destination, the flows
to it summed), the case's headline number (Jain's index, the victim's or the burst's throughput)
in its title; the single-run experiments add their bottleneck queue."""

import os

from . import common, queue_time, runs

MAX_LINES = 8

# example -> (the paper's figure, what it shows, the index key of each case's headline number)
PAPERS = {
    "dcqcn-fairness": ("DCQCN Fig. 8", "per-sender throughput, PFC only (none) vs DCQCN", "jain_index"),
    "dcqcn-victim": ("DCQCN Fig. 9", "the victim flow behind an incast, PFC only vs DCQCN", "victim_bps"),
    "dcqcn-convergence": ("DCQCN §5", "staggered flows converging on one bottleneck", None),
    "rcm-burst": ("RCM Fig. 6", "an incast and a micro-burst, DCQCN vs DCQCN + RCM", "burst_bps"),
    "rcm-victim": ("RCM Fig. 7", "a victim behind an incast: PFC, DCQCN, DCQCN + RCM", "victim_bps"),
    "ldcp-incast": ("LDCP draft -01 §3.2", "N-to-1 incast: senders' throughput and the bottleneck queue", None),
}
SINGLE = ("dcqcn-convergence", "ldcp-incast")


def single(run):
    """A run that is itself a published experiment (not a case of one)."""
    return run.example in SINGLE and not run.case


def example_of(run):
    return run.config.get("example") or run.example


def lines(run):
    """[(label, [(time ms, Gb/s)])] of the run's rates.csv: a line per flow, or per destination
    (flows summed) when there are more than MAX_LINES flows."""
    if not run.has("rates.csv"):
        return []
    rows = common.read_rows(run.path("rates.csv"))
    dst = {int(r["flow_id"]): r["dst"] for r in run.fct()}
    ids = sorted({int(r["flow_id"]) for r in rows})
    by = (lambda i: "flow %d" % i) if len(ids) <= MAX_LINES else (lambda i: "to node %s" % dst.get(i, "?"))
    sums = {}
    for r in rows:
        key = by(int(r["flow_id"]))
        t = int(r["time_ns"]) / 1e6
        sums.setdefault(key, {})
        sums[key][t] = sums[key].get(t, 0) + int(r["rate_bps"]) / 1e9
    if len(ids) > MAX_LINES:
        counts = {}
        for i in ids:
            counts[by(i)] = counts.get(by(i), 0) + 1
        out = [("%s (%d flows)" % (k, counts[k]), sorted(v.items())) for k, v in sums.items()]
    else:
        out = [(k, sorted(v.items())) for k, v in sums.items()]
    return sorted(out, key=lambda kv: (len(kv[0]), kv[0]))


def headline(value, key):
    if value is None:
        return ""
    if key.endswith("_bps"):
        return "%s %.1f Gb/s" % (key[:-4].replace("_", " "), value / 1e9)
    return "%s %.3f" % (key.replace("_", " "), value)


def draw(run, all_runs, record):
    name = example_of(run)
    if name not in PAPERS:
        return
    fig_name, what, key = PAPERS[name]
    if run.is_index():
        cases = []
        for case, entry in run.summary.items():
            d = os.path.join(run.dir, case)
            if os.path.exists(os.path.join(d, "summary.json")):
                cases.append((case, runs.Run(d), entry.get(key) if key and isinstance(entry, dict) else None))
    else:
        cases = [(run.label, run, None)]
    cases = [(c, r, h) for c, r, h in cases if lines(r)]
    if not cases:
        return
    with_queue = not run.is_index() and run.has("queue.csv")
    panels = len(cases) + (1 if with_queue else 0)
    fig, axes = common.new_figure(panels, sharex=True, panel=1.5)
    labels = []
    drawn = {}
    for ax, (case, r, head) in zip(axes, cases):
        ls = lines(r)
        for n, (label, pts) in enumerate(ls):
            ax.step([t for t, _ in pts], [v for _, v in pts], where="post", color=common.colour(n), linewidth=0.8, label=label)
        ax.set_ylabel("Gb/s")
        ax.set_title("%s%s" % (case, (": " + headline(head, key)) if head is not None else ""), fontsize=common.FONT_PT - 1)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=common.FONT_PT - 2, frameon=False)
        labels.append(case)
        drawn[case] = [label for label, _ in ls]
    if with_queue:
        qs = queue_time.queues(run)
        k = max(qs, key=lambda k: (max(qs[k].values()), k))
        times = sorted(qs[k])
        axes[-1].plot([t / 1e6 for t in times], [qs[k][t] / 1e3 for t in times], color="black", linewidth=0.8)
        axes[-1].set_ylabel("queue (KB)")
        axes[-1].set_title("largest queue, node:port %d:%d" % k, fontsize=common.FONT_PT - 1)
    axes[-1].set_xlabel("time (ms)")
    caption = runs.caption(run, [c for c, _, _ in cases], sorted({r.seed for _, r, _ in cases}, key=str))
    common.save(fig, run.dir, "paper", "%s: %s" % (fig_name, what), caption, labels, record,
                extra={"paper": fig_name, "lines": drawn})
