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
    "ldcp-incast": ("LDCP draft -01 §3.2", "N-to-1 incast: bottleneck queue and FCTs", None),
}
SINGLE = ("dcqcn-convergence", "ldcp-incast")


def single(run):
    """A run that is itself a published experiment (not a case of one)."""
    return run.example in SINGLE and not run.case


def example_of(run):
    return run.config.get("example") or run.example


def victim(run):
    """The victim flow's id: summary.json's victim_flow, else the one flow whose destination no
    other flow has (rcm-victim's Sv); None when there is none."""
    if isinstance(run.summary.get("victim_flow"), int):
        return run.summary["victim_flow"]
    if "victim_bps" not in run.summary:
        return None
    dst = [r["dst"] for r in run.fct()]
    alone = [int(r["flow_id"]) for r in run.fct() if dst.count(r["dst"]) == 1]
    return alone[0] if len(alone) == 1 else None


def lines(run):
    """[(label, [(time ms, Gb/s)])] of the run's rates.csv: a line per flow (the victim named),
    or per destination (flows summed) when there are more than MAX_LINES flows; over more than
    200 samples, the mean rate of each 1/100 of the run."""
    if not run.has("rates.csv"):
        return []
    rows = common.read_rows(run.path("rates.csv"))
    dst = {int(r["flow_id"]): r["dst"] for r in run.fct()}
    ids = sorted({int(r["flow_id"]) for r in rows})
    v = victim(run)
    by = (lambda i: "flow %d%s" % (i, " (victim)" if i == v else "")) if len(ids) <= MAX_LINES else (lambda i: "to node %s" % dst.get(i, "?"))
    sums = {}
    for r in rows:
        key = by(int(r["flow_id"]))
        t = int(r["time_ns"]) / 1e6
        sums.setdefault(key, {})
        sums[key][t] = sums[key].get(t, 0) + int(r["rate_bps"]) / 1e9
    # more than 200 samples: the mean of each 1/100 of the run, so that the paper's smooth
    # curves are not lost in each sample's jitter
    times = sorted({t for v in sums.values() for t in v})
    if len(times) > 200:
        width = (times[-1] - times[0]) / 100 or 1
        for key, v in sums.items():
            acc = {}
            for t, x in v.items():
                b = min(99, int((t - times[0]) / width))
                acc.setdefault(b, []).append(x)
            sums[key] = {times[0] + (b + 0.5) * width: sum(xs) / len(xs) for b, xs in acc.items()}
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
    if len(cases) > 3 and key:
        return draw_bars(run, cases, fig_name, what, key, record)
    cases = [(c, r, h) for c, r, h in cases if lines(r)]
    qs = queue_time.queues(run) if not run.is_index() and run.has("queue.csv") else {}
    with_queue = bool(qs)
    with_fct = not run.is_index() and not cases and bool(run.fct())
    if not cases and not with_fct:
        return
    panels = len(cases) + (1 if with_queue else 0)
    fig, axes = common.new_figure(panels + (1 if with_fct else 0), panel=1.5)
    labels = []
    drawn = {}
    for ax, (case, r, head) in zip(axes, cases):
        ls = lines(r)
        for n, (label, pts) in enumerate(ls):
            ax.step([t for t, _ in pts], [v for _, v in pts], where="post", color="black" if "victim" in label else common.colour(n),
                     linewidth=1.4 if "victim" in label else 0.8, label=label)
        ax.set_ylabel("Gb/s")
        if ax is axes[len(cases) - 1] or with_queue:
            ax.set_xlabel("time (ms)")
        ax.set_title("%s%s" % (case, (": " + headline(head, key)) if head is not None else ""), fontsize=common.FONT_PT - 1)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=common.FONT_PT - 2, frameon=False)
        labels.append(case)
        drawn[case] = [label for label, _ in ls]
    if with_queue:
        ax = axes[len(cases)]
        k = max(qs, key=lambda k: (max(qs[k].values()), k))
        times = sorted({t for q in qs.values() for t in q})  # every sample: 0 where the port has no row
        ax.plot([t / 1e6 for t in times], [qs[k].get(t, 0) / 1e3 for t in times], color="black", linewidth=0.8)
        ax.set_ylabel("queue (KB)")
        ax.set_xlabel("time (ms)")
        ax.set_title("largest queue, node:port %s" % queue_time.label(k), fontsize=common.FONT_PT - 1)
    if with_fct:
        # no rates.csv (ldcp-incast): each flow's completion time, in order of finish
        ax = axes[-1]
        rows = sorted(run.fct(), key=lambda r: (r["fct_ns"] == "", int(r["fct_ns"] or 0)))
        fct = [int(r["fct_ns"]) / 1e3 for r in rows if r["fct_ns"]]
        ax.bar(range(len(fct)), fct, color=common.colour(0), label=run.label)
        ax.set_xlabel("flows, by completion")
        ax.set_ylabel("FCT (µs)")
        ax.set_title("%s: %d of %d flows done, last at %.1f µs" % (run.label, len(fct), len(rows), max(fct) if fct else 0),
                     fontsize=common.FONT_PT - 1)
        labels.append(run.label)
        drawn[run.label] = ["FCT"]
    names = [c for c, _, _ in cases] if run.is_index() else [run.label]
    seeds = sorted({r.seed for _, r, _ in cases}, key=str) if run.is_index() else [run.seed]
    caption = runs.caption(run, names, seeds)
    common.save(fig, run.dir, "paper", "%s: %s" % (fig_name, what), caption, labels, record,
                extra={"paper": fig_name, "lines": drawn})


def draw_bars(run, cases, fig_name, what, key, record):
    """Many cases (dcqcn-victim: scheme x extra senders): the headline number of each, a bar per
    case, as the paper's bar chart (DCQCN Fig. 9)."""
    cases = [(c, r, h) for c, r, h in cases if h is not None]
    if not cases:
        return
    fig, (ax,) = common.new_figure(panel=2.2)
    scale = 1e9 if key.endswith("_bps") else 1
    schemes = []
    for c, r, _ in cases:
        if r.label not in schemes:
            schemes.append(r.label)
    for i, (c, r, h) in enumerate(cases):
        ax.bar(i, h / scale, 0.7, color=common.colour(schemes.index(r.label)))
        ax.annotate("%.1f" % (h / scale), (i, h / scale), ha="center", va="bottom", fontsize=common.FONT_PT - 2)
    ax.margins(y=0.15)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c for c, _, _ in cases], rotation=30, ha="right", fontsize=common.FONT_PT - 2)
    ax.set_ylabel(key[:-4].replace("_", " ") + " (Gb/s)" if key.endswith("_bps") else key.replace("_", " "))
    ax.set_xlabel("case")
    labels = [c for c, _, _ in cases]
    caption = runs.caption(run, schemes, sorted({r.seed for _, r, _ in cases}, key=str))
    common.save(fig, run.dir, "paper", "%s: %s" % (fig_name, what), caption, labels, record,
                extra={"paper": fig_name, "values": {c: h for c, _, h in cases}})
