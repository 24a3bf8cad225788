"""Numbers of one experiment over its seeds, shared by the figures and compare's table: per run
the finished flows' slowdowns, the per-bucket percentiles, the queue samples, the paused time;
per series (scheme) their mean and 95 % interval over the seeds."""

from . import common, pfc_timeline, queue_time, stats

BUCKETS = ["<10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">=10MB"]


def slowdowns(run):
    """[(size bytes, slowdown)] of the run's finished flows (fct.csv)."""
    return [(int(r["size_bytes"]), float(r["slowdown"])) for r in run.fct() if r["slowdown"]]


def buckets(run):
    """{bucket: {"flows", "unfinished", "p50", "p95", "p99", ...}}: buckets.csv, else summary.json's
    slowdown_buckets; {} when the run has neither."""
    if run.has("buckets.csv"):
        out = {}
        for r in common.read_rows(run.path("buckets.csv")):
            out[r["bucket"]] = {k: (int(v) if k in ("flows", "unfinished") else float(v)) for k, v in r.items() if k not in ("bucket", "min_bytes", "max_bytes")}
        return out
    return run.summary.get("slowdown_buckets", {})


def queue_samples(run):
    """Every sample of every busy switch egress queue (queue.csv), bytes."""
    if not run.has("queue.csv"):
        return []
    return [b for q in queue_time.queues(run).values() for b in q.values()]


def queue_max(run):
    """(bytes, "node:port") of the largest queue.csv sample over all ports, or None."""
    if not run.has("queue.csv"):
        return None
    best = None
    for k, q in queue_time.queues(run).items():
        for t, b in q.items():
            if best is None or b > best[0] or (b == best[0] and k < best[2]):
                best = (b, t, k)
    return None if best is None else (best[0], queue_time.label(best[2]))


def fat_tree_tier(run):
    """node id -> tier (core, agg, edge, host) of a k-ary fat tree (fat-tree-workload without
    --topology: FatTreeSpec's numbering, the cores first, then pod by pod each aggregation
    switch, then each edge switch followed by its hosts); None for another topology."""
    o = run.options
    if o.get("topology", "none") != "none" or "k" not in o or not str(o["k"]).isdigit():
        return None
    k = int(o["k"])
    h = k // 2
    tiers = {}
    n = 0
    for _ in range(h * h):
        tiers[n] = "core"
        n += 1
    for _ in range(k):
        for _ in range(h):
            tiers[n] = "agg"
            n += 1
        for _ in range(h):
            tiers[n] = "edge"
            n += 1
            for _ in range(h):
                tiers[n] = "host"
                n += 1
    return tiers.get


def paused_ns(run):
    """(total paused ns summed over the ports that sent PAUSE, {tier: ns}) from pfc.csv; the
    tiers of a fat tree (core, agg, edge, host), else one tier "all"."""
    iv = pfc_timeline.intervals(run)
    tier = fat_tree_tier(run)
    by_tier = {}
    for (node, _), spans in iv.items():
        t = (tier(node) if tier else None) or "all"
        by_tier[t] = by_tier.get(t, 0) + sum(b - a for a, b in spans)
    return sum(by_tier.values()), by_tier


def over_seeds(runs, value):
    """(mean, 95 % half-width, n) of value(run) over the runs (seeds) where it is not None."""
    xs = [x for x in (value(r) for r in runs) if x is not None]
    if not xs:
        return None
    m, ci = stats.mean_ci(xs)
    return m, ci, len(xs)


def bucket_stat(runs, bucket, key):
    """(mean, half-width, n seeds, mean flows per seed) of a bucket's slowdown percentile `key`
    over the runs where the bucket has finished flows."""
    vals = []
    flows = []
    for r in runs:
        b = buckets(r).get(bucket)
        if b and b["flows"] > 0:
            vals.append(b[key])
            flows.append(b["flows"])
    if not vals:
        return None
    m, ci = stats.mean_ci(vals)
    return m, ci, len(vals), sum(flows) / len(flows)
