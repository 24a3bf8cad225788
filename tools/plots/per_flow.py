"""The chosen flows of a run and their traces: rates.csv (delivered rate), flows.csv (window,
sending rate)."""

from . import common

MAX_FLOWS = 8


def lifetimes(run):
    """{flow id: (start ns, end ns)}: fct.csv's start and finish (the run's end when unfinished),
    else the span of the flow's trace rows."""
    span = {}
    end = int(run.summary.get("sim_time_ns", 0))
    for r in run.fct():
        start = int(r["start_ns"])
        span[int(r["flow_id"])] = (start, int(r["finish_ns"]) if r["finish_ns"] else max(end, start))
    if span:
        return span
    for name in ("rates.csv", "flows.csv"):
        if run.has(name):
            for r in common.read_rows(run.path(name)):
                t = int(r["time_ns"])
                lo, hi = span.get(int(r["flow_id"]), (t, t))
                span[int(r["flow_id"])] = (min(lo, t), max(hi, t))
    return span


def choose(run, wanted=None):
    """The flows to draw, in id order: `wanted` (ids; those the run has), or the MAX_FLOWS
    longest-lived."""
    span = lifetimes(run)
    if wanted:
        return sorted(i for i in wanted if i in span)
    return sorted(sorted(span, key=lambda i: (-(span[i][1] - span[i][0]), i))[:MAX_FLOWS])


def series(rows, ids, value):
    """{flow id: [(time ms, value)]} of the rows of the flows `ids`."""
    keep = set(ids)
    out = {i: [] for i in ids}
    for r in rows:
        i = int(r["flow_id"])
        if i in keep:
            out[i].append((int(r["time_ns"]) / 1e6, value(r)))
    return out
