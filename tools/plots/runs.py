"""The runs under a directory and the experiments they belong to.

A run is a directory holding summary.json (and, from every example on the shared options,
config.json). Runs belong to one experiment when their config.json is the same apart from the
scheme (--cc, --rcm, --pfc), the seed, the output directory and the trace options: the series of
one figure are the schemes of one experiment, each over its seeds. Runs of different
experiments never share a figure."""

import os
import re

from . import common

# options that do not make another experiment: the scheme, the seed, where the outputs go, what
# is traced
SCHEME_OPTIONS = ("cc", "rcm", "pfc")
IGNORED = set(SCHEME_OPTIONS) | {"seed", "out", "config", "flowTrace", "flowSample", "rateSample", "sample", "progress"}
TRUE = ("1", "true", "True", "yes")


class Run:
    def __init__(self, d):
        self.dir = d
        self.summary = common.read_json(os.path.join(d, "summary.json"))
        path = os.path.join(d, "config.json")
        self.config = common.read_json(path) if os.path.exists(path) else {}
        self.options = self.config.get("options", {})
        self.example = self.summary.get("example") or self.config.get("example") or os.path.basename(d)
        self.case = self.config.get("case", "")
        seed = self.summary.get("seed", self.options.get("seed", 1))
        self.seed = int(seed) if str(seed).isdigit() else seed
        self.label = scheme_label(self)
        self._fct = None

    def has(self, name):
        return os.path.exists(os.path.join(self.dir, name))

    def path(self, name):
        return os.path.join(self.dir, name)

    def key(self):
        """What makes the experiment: the example, the case and every option but IGNORED."""
        opts = tuple(sorted((k, v) for k, v in self.options.items() if k not in IGNORED))
        if not self.options:  # no config.json: the directory alone
            opts = (("dir", os.path.abspath(self.dir)),)
        return (self.example, self.case, opts)

    def fct(self):
        """fct.csv's rows (cached)."""
        if self._fct is None:
            self._fct = common.read_rows(self.path("fct.csv")) if self.has("fct.csv") else []
        return self._fct

    def is_index(self):
        """The summary of a run of several cases (dcqcn-fairness, rcm-burst, ...): an index of
        the cases' summaries in OUT/CASE/, {case: {...}}, without the shared keys."""
        return "example" not in self.summary and all(isinstance(v, dict) for v in self.summary.values())


def given(run, name):
    """The value of --name as given on the command line, or None."""
    for a in run.config.get("command_line", []):
        if a == "--" + name:
            return "true"
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return None


def scheme_label(run):
    """The series name: --cc, +rcm with RCM in the switches, +pfc when --pfc was given true (as
    compare's SCHEME+rcm, SCHEME+pfc)."""
    cc = run.options.get("cc") or run.summary.get("scheme", os.path.basename(run.dir))
    if run.options.get("rcm") in TRUE:
        cc += "+rcm"
    if (given(run, "pfc") or "") in TRUE:
        cc += "+pfc"
    return cc


def run_dirs(d):
    """Every directory under d (d included) that holds a summary.json, sorted."""
    found = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        if "summary.json" in files:
            found.append(root)
    return found


class Group:
    """The runs of one experiment: series (scheme label) -> runs, in seed order."""

    def __init__(self, runs):
        self.runs = runs
        self.series = {}
        for r in sorted(runs, key=lambda r: (r.label, str(r.seed))):
            self.series.setdefault(r.label, []).append(r)
        self.labels = sorted(self.series)
        self.seeds = sorted({r.seed for r in runs}, key=str)
        self.dir = os.path.commonpath([os.path.abspath(r.dir) for r in runs])
        self.first = runs[0]

    def caption(self):
        return caption(self.first, self.labels, self.seeds)


def workload_name(cdf):
    name = os.path.basename(cdf)
    for tail in ("_distribution.txt", ".txt"):
        if name.endswith(tail):
            name = name[: -len(tail)]
    return name


def caption(run, labels, seeds, exclude=()):
    """The experiment in words: example (case), topology, workload, load, the options given,
    the schemes and the seeds."""
    o = run.options
    parts = []
    if run.summary.get("topology"):
        parts.append(str(run.summary["topology"]))
    covered = {"k", "topology"}
    if o.get("cdf", "none") != "none" and "load" in o and o.get("flows", "none") == "none":
        parts.append("%s flows, %s, load %s, %s" % (workload_name(o["cdf"]), o.get("pattern", "uniform"), o.get("load", "?"), o.get("duration", "?")))
        covered |= {"cdf", "pattern", "load", "duration"}
    elif o.get("flows", "none") != "none":
        parts.append("flows %s" % os.path.basename(o["flows"]))
        covered.add("flows")
    extra = []
    for a in run.config.get("command_line", []):
        name = a[2:].split("=", 1)[0] if a.startswith("--") else ""
        if name and name not in IGNORED and name not in covered and name not in exclude:
            extra.append(a)
    if extra:
        parts.append(" ".join(extra))
    head = run.example + (" (%s)" % run.case if run.case else "")
    tail = "%s; seed%s\u00a0%s" % (", ".join(labels), "" if len(seeds) == 1 else "s", ",".join(str(s) for s in seeds))
    return "%s: %s; %s" % (head, "; ".join(parts) if parts else "defaults", tail)


def sanitise(text):
    return re.sub(r"[^A-Za-z0-9._,=+-]", "_", text)


def groups(d):
    """The experiments of the runs under d: [Group], each with the directory its figures go to
    (group.dir: the runs' common directory; where several experiments share it, a directory
    plots-OPTION=VALUE,... in it, named by the options that tell them apart)."""
    runs = [Run(rd) for rd in run_dirs(d)]
    by_key = {}
    for r in runs:
        if r.is_index():
            continue
        by_key.setdefault(r.key(), []).append(r)
    found = [Group(rs) for _, rs in sorted(by_key.items(), key=lambda kv: kv[1][0].dir)]
    by_dir = {}
    for g in found:
        by_dir.setdefault(g.dir, []).append(g)
    for shared, gs in by_dir.items():
        if len(gs) < 2:
            continue
        keys = [dict(g.first.key()[2]) for g in gs]
        names = sorted(set().union(*keys))
        differ = [n for n in names if len({k.get(n) for k in keys}) > 1]
        for g, k in zip(gs, keys):
            who = ",".join("%s=%s" % (n, k.get(n, "-")) for n in differ) or sanitise(g.first.case or g.first.example)
            g.dir = os.path.join(shared, "plots-" + sanitise(who))
    return runs, found
