"""queue.png: a run's switch egress queues over time (queue.csv), the 8 with the largest
maximum, one line each (node:port), 0 where a sample has no row."""

from . import common

MAX_QUEUES = 8


BOTTLENECK = (-1, -1)  # the key of a queue.csv of one queue (time_ns,bytes: red-ecn-dumbbell)


def label(key):
    return "bottleneck" if key == BOTTLENECK else "%d:%d" % key


def queues(run):
    """{(node, port): {time ns: bytes}} of queue.csv (the priorities of a port summed); one
    queue, BOTTLENECK, when the file has no node and port."""
    out = {}
    for r in common.read_rows(run.path("queue.csv")):
        q = out.setdefault((int(r["node"]), int(r["port"])) if "node" in r else BOTTLENECK, {})
        t = int(r["time_ns"])
        q[t] = q.get(t, 0) + int(r["bytes"])
    return out


def draw(run, d, record, caption):
    if not run.has("queue.csv"):
        return
    qs = queues(run)
    if not qs:
        return
    times = sorted({t for q in qs.values() for t in q})
    top = sorted(sorted(qs, key=lambda k: (-max(qs[k].values()), k))[:MAX_QUEUES])
    fig, (ax,) = common.new_figure(panel=2.8)
    labels = []
    for i, k in enumerate(top):
        ax.plot([t / 1e6 for t in times], [qs[k].get(t, 0) / 1e3 for t in times], color=common.colour(i), linewidth=0.9, label=label(k))
        labels.append(label(k))
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue (KB)")
    common.legend_below(ax, len(labels), title="switch egress queue, node:port")
    common.save(fig, d, "queue", "Switch egress queues over time", caption, labels, record)
