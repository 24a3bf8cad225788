"""What every figure shares: reading the outputs, the publication style, the caption from
config.json, saving as PDF and PNG (SVG on request) and the record in plots.json."""

import csv
import json
import os
import textwrap

# publication size: one column of a two-column paper (ACM/IEEE: 3.33-3.5 in), 8 pt text
WIDTH_IN = 3.5
WIDE_IN = 7.0
PANEL_IN = 2.1
FONT_PT = 8
PNG_DPI = 300
# a series (scheme, bucket, bin) with fewer finished flows than this is marked: its p99 is
# hardly more than its maximum
FEW_FLOWS = 30

_options = {"svg": False}


def configure(svg=False):
    """matplotlib for the figures: Agg, the style below; --svg writes SVG too."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update(
        {
            "font.size": FONT_PT,
            "axes.titlesize": FONT_PT,
            "axes.labelsize": FONT_PT,
            "legend.fontsize": FONT_PT - 1,
            "xtick.labelsize": FONT_PT - 1,
            "ytick.labelsize": FONT_PT - 1,
            "figure.titlesize": FONT_PT,
            "lines.linewidth": 1.2,
            "axes.grid": True,
            "grid.linewidth": 0.4,
            "grid.color": "0.85",
            "pdf.fonttype": 42,  # TrueType in the PDF: editable, accepted by the publishers
            "svg.fonttype": "none",  # text as text in the SVG
            "svg.hashsalt": "rdma-cc",  # the same SVG bytes from the same data
            "savefig.dpi": PNG_DPI,
        }
    )
    _options["svg"] = svg


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def colour(i):
    """The i-th colour of matplotlib's default cycle (tab10)."""
    import matplotlib

    return matplotlib.colormaps["tab10"](i % 10)


def new_figure(rows=1, cols=1, width=WIDTH_IN, panel=PANEL_IN, sharex=False):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(rows, cols, figsize=(width, panel * rows), squeeze=False, sharex=sharex, layout="constrained")
    return fig, [a for row in axes for a in row]


def legend_below(ax, n, handles=None, title=None):
    """The figure's legend under its axes (constrained layout makes room), in up to 4 columns: it
    hides no data."""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    else:
        labels = [h.get_label() for h in handles]
    ax.figure.legend(handles, labels, loc="outside lower center", ncol=min(4, max(1, n)), frameon=False, title=title)


def few(n):
    """The mark of a series of n flows: fewer than FEW_FLOWS."""
    return n < FEW_FLOWS


def few_label(label, n):
    return "%s (n=%d < %d)" % (label, n, FEW_FLOWS) if few(n) else label


def save(fig, d, name, title, caption, labels, record, axes=None, extra=None):
    """Writes d/name.pdf and d/name.png (and .svg with --svg); records the figure under its PNG's
    name in `record` (plots.json): title, caption, the series drawn, axis labels, files."""
    import matplotlib.pyplot as plt

    lines = textwrap.wrap(caption, int(95 * fig.get_figwidth() / WIDTH_IN / 1.0 * 0.62)) if caption else []
    text = title + ("\n" + "\n".join(lines) if lines else "")
    fig.suptitle(text, fontsize=FONT_PT - 1 if lines else FONT_PT)
    exts = ["pdf", "png"] + (["svg"] if _options["svg"] else [])
    files = []
    for ext in exts:
        path = os.path.join(d, "%s.%s" % (name, ext))
        meta = {"Creator": "rdma-cc tools/plot.py"}
        if ext == "pdf":
            meta["CreationDate"] = None  # the same bytes from the same data
        elif ext == "svg":
            meta = {"Date": None, "Creator": "rdma-cc tools/plot.py"}
        else:
            meta = {"Software": "rdma-cc tools/plot.py"}
        fig.savefig(path, metadata=meta, bbox_inches="tight", pad_inches=0.03)
        files.append(os.path.basename(path))
    axes = axes if axes is not None else fig.axes
    entry = {
        "title": title,
        "caption": caption,
        "series": len(labels),
        "labels": list(labels),
        "xlabels": [a.get_xlabel() for a in axes],
        "ylabels": [a.get_ylabel() for a in axes],
        "files": files,
    }
    if extra:
        entry.update(extra)
    record[name + ".png"] = entry
    plt.close(fig)


def write_record(d, record):
    if record:
        with open(os.path.join(d, "plots.json"), "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
            f.write("\n")
