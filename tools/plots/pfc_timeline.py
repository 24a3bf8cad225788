"""pfc.png: a run's PFC pauses (pfc.csv): a row per (node, port) that sent PAUSE frames (the 16
paused longest), named with its paused time, a bar per paused interval (PAUSE to RESUME, or the
PAUSE's duration), over the whole run (0 to summary.json's sim_time_ns). Also the
paused intervals themselves, which pfc_time.py sums."""

from . import common

MAX_ROWS = 16


def intervals(run):
    """{(node, port): [(start ns, end ns)]} of the pauses each port sent (a refresh of an open
    pause extends nothing: the pause goes on until RESUME or its duration)."""
    if not run.has("pfc.csv"):
        return {}
    rows = common.read_rows(run.path("pfc.csv"))
    out = {}
    open_at = {}
    for r in sorted(rows, key=lambda r: int(r["time_ns"])):
        key = (int(r["node"]), int(r["port"]))
        t = int(r["time_ns"])
        if r["kind"] == "pause":
            if key in open_at:
                start, end = open_at[key]
                if t <= end:
                    open_at[key] = (start, max(end, t + int(r["duration_ns"])))
                    continue
                out.setdefault(key, []).append((start, end))
            open_at[key] = (t, t + int(r["duration_ns"]))
        elif key in open_at:
            start, end = open_at.pop(key)
            out.setdefault(key, []).append((start, min(t, end)))
    for key, (start, end) in open_at.items():
        out.setdefault(key, []).append((start, end))
    return out


def draw(run, d, record, caption):
    iv = intervals(run)
    if not iv:
        return
    total = {k: sum(b - a for a, b in v) for k, v in iv.items()}
    top = sorted(sorted(iv, key=lambda k: (-total[k], k))[:MAX_ROWS])
    fig, (ax,) = common.new_figure(panel=max(common.PANEL_IN, 0.16 * len(top) + 1.0))
    labels = []
    for n, k in enumerate(top):
        # an edge of the bar's colour: a pause of a few µs in a run of ms still shows as a line
        ax.broken_barh([(a / 1e6, max(b - a, 1) / 1e6) for a, b in iv[k]], (n - 0.4, 0.8), facecolors=common.colour(n),
                       edgecolors=common.colour(n), linewidth=0.6)
        labels.append("%d:%d" % k)
    ax.set_yticks(range(len(top)))
    ax.set_yticklabels(["%s (%s)" % (lab, paused_text(total[k])) for lab, k in zip(labels, top)])
    # the whole run on the x axis (when in the run the pauses came), not only the paused span
    end = max(int(run.summary.get("sim_time_ns", 0)), max(b for v in iv.values() for _, b in v))
    ax.set_xlim(0, end / 1e6 * 1.02)
    ax.set_ylabel("PAUSE sender node:port (paused)")
    ax.set_xlabel("time (ms)")
    title = "PFC pauses over time" + (" (the %d ports paused longest of %d)" % (MAX_ROWS, len(iv)) if len(iv) > MAX_ROWS else "")
    common.save(fig, d, "pfc", title, caption, labels, record, extra={"paused_us": {lab: total[k] / 1e3 for lab, k in zip(labels, top)}})


def paused_text(ns):
    """A paused time for a tick label: µs, or ms from 10 ms on."""
    return "%.3g ms" % (ns / 1e6) if ns >= 1e7 else "%.3g µs" % (ns / 1e3)
