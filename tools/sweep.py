#!/usr/bin/env python3
"""Runs one example over a grid of parameters and seeds; prints one table and writes DIR/sweep.csv.

    tools/sweep.py [--build DIR] --run "EXAMPLE args..." --grid NAME=v1,v2,... [--grid NAME2=...]
                   [--seeds=1,2,3] [--metrics=KEY,...] [--jobs=N] [--out DIR]

`./waf sweep --run ... --grid ...` builds, then runs this with --build set to its build directory
(outputs in results/sweep/EXAMPLE/; --out is waf's build directory there, so another output
directory needs this tool by hand); run by hand it needs a tree built by `./waf build` (default
--build: build/).

Every combination of the --grid values (the first --grid varies slowest) is run once per seed:

    EXAMPLE args --NAME=v --NAME2=w ... --seed=S --out=DIR/RUNID

NAME is an option of the example, without dashes; the values are passed verbatim (units as the
example takes them: 2us, 12.5KB, auto), and the example checks them. RUNID names the run's
values, e.g. kfs=12500,kmin=auto,seed=1 (characters other than letters, digits and . _ , = + -
become _). A --grid NAME also given in "args", or --seed/--out in "args", is an error.

Each run's summary.json gives the metrics: dotted keys into it (fct_ns.p99, slowdown.p50,
short_slowdown.p99 of ldcp-churn, goodput_active_bps, drops_total, pfc_pause_frames, ...; for
an example whose summary.json holds several cases, the case first: dcqcn-extra1.victim_bps).
A key missing from a run's summary.json is an error naming the key and the run.

Outputs:
  DIR/sweep.csv  one row per run, in the order of the --grid values then --seeds: the grid
                 values, seed, exit_status, every metric (as in summary.json; empty for a failed
                 run), dir (the run's directory, relative to DIR). Same inputs, same file, byte
                 for byte, whatever --jobs.
  the table      one row per grid point: each metric's mean over the seeds whose run succeeded,
                 with ±the half-width of its 95 % interval (Student t, t_{0.975,n-1} s/sqrt(n))
                 and (min..max) when they differ, scaled for reading (*_ns in us, *_bps in
                 Gb/s, *_bytes in KB: the units line under the header), and `failed`: runs whose
                 invariants failed / seeds.
  bucket table   when every run has buckets.csv (fat-tree-workload): per grid point the FCT
                 slowdown p50 and p99 of each flow-size bucket, mean ±95 % interval over the
                 seeds, with the bucket's finished flows per seed.
  figures        ./waf plot --dirs=DIR: sweep.png (each metric against the grid points, error
                 bars over the seeds) and each grid point's figures in DIR/plots-NAME=v,.../

Exit status:
  0  every run succeeded.
  3  some run exited 3 (an invariant failed: its outputs exist, its summary.json names the
     failure): the sweep runs the others, keeps the run in sweep.csv with exit_status 3 and no
     metrics, shows it in `failed` (not averaged in), names it after the table and exits 3.
  2  bad input: this tool's options, a missing metric key, or a run that exited 2 (the
     example refused an option or a value, e.g. a misspelled --grid NAME): the sweep stops at
     once, with the example's message.
  1  a run exited otherwise or crashed: the sweep stops and names its command.

Example:
  ./waf sweep --run "ldcp-incast --senders=16" --grid kfs=12500,25000,50000 --grid cc=ldcp,ldcp-rate \\
      --seeds=1,2,3 --metrics=fct_ns.p99,slowdown.p99,drops_total --jobs=2
  tools/sweep.py --run "ldcp-churn --churn=200us" --grid load=0.3,0.6 --seeds=1,2 \\
      --metrics=short_slowdown.p99,long_flow_drops --out /tmp/churn
"""

import argparse
import concurrent.futures
import csv
import itertools
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402
from plots import aggregate, runs as plot_runs, stats  # noqa: E402
from plots.common import FEW_FLOWS  # noqa: E402

ROOT = buildenv.ROOT

# Keys of the summary.json of every RDMA example run (ldcp-incast, ldcp-churn, dcqcn-convergence,
# dcqcn-fairness with --cc): see README "summary.json".
DEFAULT_METRICS = [
    "fct_ns.p99",
    "slowdown.p50",
    "slowdown.p99",
    "goodput_active_bps",
    "queue_max_bytes",
    "drops_total",
    "stable_stage_drops",
    "pfc_pause_frames",
    "retx_bytes",
]

# Options the sweep sets on every run itself.
RESERVED = {"seed": "give the seeds with --seeds=1,2,...", "out": "the sweep sets each run's --out (DIR/RUNID)"}

# (suffix of a key's component, divisor, unit) for the table; sweep.csv keeps summary.json's values.
UNITS = [("_ns", 1e3, "us"), ("_bps", 1e9, "Gb/s"), ("_bytes", 1e3, "KB")]

# Exit statuses of the examples (README "Bad input", "Invariants").
EXIT_OK, EXIT_BAD_INPUT, EXIT_INVARIANT = 0, 2, 3

TAIL_CHARS = 4000


class SweepError(Exception):
    """Stops the sweep: the message and the exit status."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class Run:
    """One run of the sweep: its grid values, seed, directory and command."""

    def __init__(self, index, point, values, seed, runid, out, cmd):
        self.index = index  # order in sweep.csv
        self.point = point  # index of the grid point (table row)
        self.values = values
        self.seed = seed
        self.runid = runid
        self.out = out
        self.cmd = cmd
        self.status = None
        self.metrics = None  # the values, in --metrics order, of a successful run
        self.failure = ""  # why a run with exit status 3 failed


def split_list(text, what):
    """A comma-separated list: no empty item, no item twice."""
    items = [x.strip() for x in text.split(",")]
    if any(not x for x in items):
        raise SweepError("%s %r: an empty item (write v1,v2,...)" % (what, text), 2)
    twice = sorted(set(x for x in items if items.count(x) > 1))
    if twice:
        raise SweepError("%s %r: %s given twice" % (what, text, ", ".join(twice)), 2)
    return items


def option_names(args):
    """{name: the argument} of every --name[=value] in the example's arguments."""
    found = {}
    for a in args:
        if a.startswith("--"):
            found.setdefault(a[2:].split("=", 1)[0], a)
    return found


def parse_grids(specs, args):
    """[(name, [values])] of the --grid options, checked against the example's arguments."""
    given = option_names(args)
    for name, why in sorted(RESERVED.items()):
        if name in given:
            raise SweepError("--run gives %s: %s" % (given[name], why), 2)
    grids = []
    for spec in specs:
        if "=" not in spec:
            raise SweepError("--grid %r: write NAME=v1,v2,... (an option of the example, without dashes)" % spec, 2)
        name, values = spec.split("=", 1)
        name = name.strip()
        if not name or name.startswith("-"):
            raise SweepError("--grid %r: NAME is the example's option without dashes, e.g. --grid kfs=12500,25000" % spec, 2)
        if name in RESERVED:
            raise SweepError("--grid %s: %s" % (name, RESERVED[name]), 2)
        if name in given:
            raise SweepError("--grid %s: --run also gives %s; give the option in one place" % (name, given[name]), 2)
        if any(name == n for n, _ in grids):
            raise SweepError("--grid %s given twice; list its values in one --grid %s=v1,v2,..." % (name, name), 2)
        grids.append((name, split_list(values, "--grid " + name)))
    return grids


def sanitise(text):
    """text as a file name component: letters, digits and . _ , = + - kept, the rest _."""
    return re.sub(r"[^A-Za-z0-9._,=+-]", "_", text)


def plan(prog, args, grids, seeds, out):
    """Every run, in the order of the grid values (the first --grid slowest) then the seeds."""
    runs = []
    ids = {}
    names = [n for n, _ in grids]
    for point, values in enumerate(itertools.product(*[v for _, v in grids])):
        for seed in seeds:
            runid = sanitise(",".join("%s=%s" % kv for kv in zip(names + ["seed"], list(values) + [seed])))
            if runid in ids:
                raise SweepError(
                    "runs %s and %s would share the directory %s (values that differ only in characters "
                    "other than letters, digits and . _ , = + -)" % (ids[runid], ",".join(values + (seed,)), runid),
                    2,
                )
            ids[runid] = ",".join(values + (seed,))
            d = os.path.join(out, runid)
            cmd = [prog] + args + ["--%s=%s" % kv for kv in zip(names, values)] + ["--seed=" + seed, "--out=" + d]
            runs.append(Run(len(runs), point, list(values), seed, runid, d, cmd))
    return runs


def lookup(summary, key):
    """The value of dotted KEY in summary; KeyError with what is there where it is missing."""
    node = summary
    done = []
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            where = "summary.json" + "".join("[%r]" % p for p in done)
            have = ", ".join(node) if isinstance(node, dict) else "a value, not an object"
            raise KeyError("%s has no %r (it has: %s)" % (where, part, have))
        node = node[part]
        done.append(part)
    return node


def metric(summary, key):
    """The number at KEY (SweepError naming what is wrong otherwise)."""
    v = lookup(summary, key)
    if isinstance(v, dict):
        raise KeyError("%r is an object: name one of its keys, e.g. %s.%s" % (key, key, next(iter(v), "?")))
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise KeyError("%r is %s, not a number" % (key, json.dumps(v)))
    return v


def read_summary(run):
    path = os.path.join(run.out, "summary.json")
    with open(path) as f:
        return json.load(f)


def command_text(cmd):
    return " ".join(shlex.quote(c) for c in cmd)


def plural(n, what):
    return "%d %s%s" % (n, what, "" if n == 1 else "s")


def tail(text):
    return text if len(text) <= TAIL_CHARS else "...\n" + text[-TAIL_CHARS:]


class Pool:
    """Runs the commands, at most `jobs` at a time. stop(i) ends the sweep after run i: the runs
    after it are killed or never start, the runs before it finish, so the first failure in run
    order is the one reported, whatever --jobs and timing."""

    def __init__(self, env, jobs, stdout=subprocess.PIPE, stderr=subprocess.PIPE, on_start=None):
        self.env = env
        self.jobs = jobs
        self.stdout = stdout  # where a run's output goes (captured by default)
        self.stderr = stderr
        self.on_start = on_start  # called with the run as it starts
        self.lock = threading.Lock()
        self.procs = {}
        self.stop_after = None  # runs with a higher index are not run (or killed)

    def _stopped(self, index):
        return self.stop_after is not None and index > self.stop_after

    def one(self, run):
        """(exit status, stdout, stderr, seconds) of run, or None if the sweep was stopped."""
        t0 = time.monotonic()
        with self.lock:
            if self._stopped(run.index):
                return None
            try:
                # the sweep never reads a summary.json left by an earlier sweep
                os.remove(os.path.join(run.out, "summary.json"))
            except FileNotFoundError:
                pass
            if self.on_start:
                self.on_start(run)
            p = subprocess.Popen(
                run.cmd, env=self.env, cwd=ROOT, stdout=self.stdout, stderr=self.stderr, universal_newlines=True
            )
            self.procs[run.index] = p
        out, err = p.communicate()
        with self.lock:
            del self.procs[run.index]
            if self._stopped(run.index):
                return None  # killed by stop(), or finished after it: not reported
        return p.returncode, out, err, time.monotonic() - t0

    def stop(self, after=-1):
        """Stops every run after index `after` (default: every run)."""
        with self.lock:
            self.stop_after = after if self.stop_after is None else min(self.stop_after, after)
            for i, p in self.procs.items():
                if self._stopped(i):
                    p.kill()


def judge(run, result, metrics):
    """Sets run.status and run.metrics / run.failure; raises SweepError when the sweep must stop."""
    rc, out, err, _ = result
    run.status = rc
    if rc == EXIT_BAD_INPUT:
        raise SweepError(
            "%s%s exited 2 (bad option or value; see the example's --help): the sweep stops"
            % (err.strip() + "\n" if err.strip() else tail(out), command_text(run.cmd)),
            2,
        )
    if rc == EXIT_INVARIANT:
        try:
            run.failure = "invariants: %s" % read_summary(run).get("invariants", "?")
        except (OSError, ValueError) as e:
            run.failure = "no summary.json (%s)" % e
        return
    if rc != EXIT_OK:
        why = "was killed by signal %d" % -rc if rc < 0 else "exited %d" % rc
        raise SweepError("%s%s %s: the sweep stops" % (tail(out + err), command_text(run.cmd), why), 1)
    try:
        s = read_summary(run)
    except (OSError, ValueError) as e:
        raise SweepError("%s exited 0 but its summary.json cannot be read: %s" % (command_text(run.cmd), e), 1)
    seed = s.get("seed")
    if s.get("invariants", "ok") != "ok" or (isinstance(seed, int) and run.seed.isdigit() and seed != int(run.seed)):
        raise SweepError(
            "%s exited 0 but its summary.json says seed %s, invariants %r" % (command_text(run.cmd), s.get("seed"), s.get("invariants")),
            1,
        )
    values = []
    for key in metrics:
        try:
            values.append(metric(s, key))
        except KeyError as e:
            raise SweepError(
                "metric %s of run %s (%s): %s"
                % (key, run.runid, os.path.join(run.out, "summary.json"), e.args[0]),
                2,
            )
    run.metrics = values


def execute(runs, metrics, env, jobs):
    """Runs every run (jobs at a time), printing one line per run in run order."""
    pool = Pool(env, jobs)
    results = {}
    fatal = {}
    printed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futures = {ex.submit(pool.one, r): r for r in runs}
        try:
            for f in concurrent.futures.as_completed(futures):
                run = futures[f]
                result = f.result()
                if result is None:
                    continue
                try:
                    judge(run, result, metrics)
                except SweepError as e:
                    fatal[run.index] = e
                    pool.stop(run.index)  # the runs before it still finish (and may fail first)
                    continue
                results[run.index] = result
                while printed < len(runs) and printed in results and not fatal:
                    r = runs[printed]
                    state = "ok" if r.status == EXIT_OK else "FAILED (exit %d, %s)" % (r.status, r.failure)
                    print("[%d/%d] %s: %s, %.2f s" % (printed + 1, len(runs), r.runid, state, results[printed][3]))
                    sys.stdout.flush()
                    printed += 1
        except BaseException:
            pool.stop()
            raise
    if fatal:
        raise fatal[min(fatal)]


def cell(x):
    """A number for the table, with about three significant digits."""
    if x == int(x) and abs(x) < 1e15:
        return "%d" % x
    if abs(x) >= 100:
        return "%.0f" % x
    if abs(x) >= 10:
        return "%.1f" % x
    return "%.3g" % x


def unit(key):
    """(divisor, unit) for the table: by the suffix of the key's components, last first."""
    for part in reversed(key.split(".")):
        for suffix, div, name in UNITS:
            if part.endswith(suffix):
                return div, name
    return 1, ""


def table(name, args, grids, seeds, metrics, runs):
    """The sweep as text lines: a title, a header, a units line and one row per grid point."""
    names = [n for n, _ in grids]
    units = [unit(k) for k in metrics]
    head = names + list(metrics) + ["failed"]
    cells = [head, [""] * len(names) + [u for _, u in units] + [""]]
    points = sorted(set(r.point for r in runs))
    for p in points:
        mine = [r for r in runs if r.point == p]
        ok = [r for r in mine if r.metrics is not None]
        row = list(mine[0].values)
        for i, (div, _) in enumerate(units):
            xs = [r.metrics[i] / div for r in ok]
            if not xs:
                row.append("-")
            elif cell(min(xs)) == cell(max(xs)):
                row.append(cell(sum(xs) / len(xs)))  # one seed, or seeds that agree
            else:
                m, ci = stats.mean_ci(xs)
                row.append("%s ±%s (%s..%s)" % (cell(m), cell(ci), cell(min(xs)), cell(max(xs))))
        row.append("%d/%d" % (len(mine) - len(ok), len(mine)))
        cells.append(row)
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = ["", "%s %s" % (name, " ".join(args))]
    lines.append("grid: %s; seeds %s" % ("; ".join("%s %s" % (n, ",".join(v)) for n, v in grids) or "none", ",".join(seeds)))
    lines += ["  ".join(x.rjust(w) for x, w in zip(r, widths)).rstrip() for r in cells]
    return lines


def bucket_table(grids, runs):
    """Text lines: per grid point, the FCT slowdown p50 and p99 of each flow-size bucket (the
    runs' buckets.csv) as the mean over the seeds ± the half-width of its 95 % interval, with the
    bucket's finished flows per seed (n; * fewer than 30); empty unless every successful run has
    buckets."""
    ok = [r for r in runs if r.metrics is not None]
    if not ok:
        return []
    got = {r.index: aggregate.buckets(plot_runs.Run(r.out)) for r in ok}
    if not all(got.values()):
        return []
    names = [n for n, _ in grids]
    head = names + [x for b in aggregate.BUCKETS for x in (b + " n", "p50", "p99")]
    cells = [head]
    for p in sorted(set(r.point for r in runs)):
        mine = [r for r in ok if r.point == p]
        if not mine:
            continue
        row = list(mine[0].values)
        for b in aggregate.BUCKETS:
            done = [got[r.index][b] for r in mine if got[r.index].get(b, {}).get("flows", 0) > 0]
            if not done:
                row += ["0", "-", "-"]
                continue
            n = sum(d["flows"] for d in done) / len(done)
            row.append(("%.0f" if n == int(n) else "%.1f") % n + ("*" if n < FEW_FLOWS else ""))
            for key in ("p50", "p99"):
                m, ci = stats.mean_ci([d[key] for d in done])
                down = max(0.0, min(ci, m - 1.0))  # the interval cut at 1: no slowdown is below it
                if len(done) < 2:
                    row.append(cell(m))
                elif cell(down) == cell(ci):
                    row.append(cell(m) + " ±" + cell(ci))
                else:
                    row.append("%s +%s/-%s" % (cell(m), cell(ci), cell(down)))
        cells.append(row)
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    lines = ["", "FCT slowdown by flow size (buckets.csv; mean over the seeds ±95 %% interval, +UP/-DOWN where cut at 1; "
             "n: finished flows per seed, * fewer than %d)" % FEW_FLOWS]
    lines += ["  ".join(x.rjust(w) for x, w in zip(r, widths)).rstrip() for r in cells]
    return lines


def write_csv(path, grids, metrics, runs, out):
    """sweep.csv, written as sweep.csv.partial and renamed when complete."""
    partial = path + ".partial"
    with open(partial, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow([n for n, _ in grids] + ["seed", "exit_status"] + list(metrics) + ["dir"])
        for r in runs:
            vals = [repr(v) if isinstance(v, float) else str(v) for v in r.metrics] if r.metrics is not None else [""] * len(metrics)
            w.writerow(r.values + [r.seed, str(r.status)] + vals + [os.path.relpath(r.out, out)])
    os.replace(partial, path)


def main():
    ap = argparse.ArgumentParser(prog="tools/sweep.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), metavar="DIR", help="build directory of ./waf build [default: build]")
    ap.add_argument("--run", default="", metavar='"EXAMPLE args"', help="the example and its fixed arguments (one string)")
    ap.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="NAME=v1,v2,...",
        help="an option of the example (without dashes) and its values; repeat for more options (every combination runs)",
    )
    ap.add_argument("--seeds", default="1", metavar="S1,S2,...", help="the --seed of each run of a grid point [default: 1]")
    ap.add_argument(
        "--metrics",
        default=",".join(DEFAULT_METRICS),
        metavar="KEY,...",
        help="dotted keys into summary.json [default: %s]" % ",".join(DEFAULT_METRICS),
    )
    ap.add_argument(
        "--jobs",
        default=buildenv.cores(),
        type=int,
        metavar="N",
        help="runs at a time [default: the machine's cores, %d here]" % buildenv.cores(),
    )
    ap.add_argument("--out", default="", metavar="DIR", help="sweep.csv and one directory per run [default: results/sweep/EXAMPLE]")
    opts = ap.parse_args()
    try:
        return sweep(opts)
    except SweepError as e:
        buildenv.error(str(e))
        return e.status


def sweep(opts):
    if not opts.run:
        raise SweepError('sweep needs --run "EXAMPLE args...", e.g. --run "ldcp-incast --senders=16" --grid kfs=12500,25000', 2)
    if opts.jobs < 1:
        raise SweepError("--jobs=%d: must be at least 1" % opts.jobs, 2)
    argv = shlex.split(opts.run)
    name, args = argv[0], argv[1:]
    examples = buildenv.examples()
    if name not in examples:
        raise SweepError("unknown example %r; the examples are: %s" % (name, ", ".join(examples)), 2)
    grids = parse_grids(opts.grid, args)
    seeds = split_list(opts.seeds, "--seeds")
    metrics = split_list(opts.metrics, "--metrics")
    clash = [k for k in metrics if k in [n for n, _ in grids] + ["seed", "exit_status", "dir"]]
    if clash:
        raise SweepError("--metrics %s: also a column of sweep.csv (a --grid name or seed, exit_status, dir)" % clash[0], 2)
    try:
        info = buildenv.load(opts.build)
    except buildenv.BuildError as e:
        raise SweepError(str(e), 2)
    out = os.path.abspath(opts.out) if opts.out else os.path.join(ROOT, "results", "sweep", name)
    prog = buildenv.program_path(info, name)
    if not os.path.exists(prog):
        raise SweepError("%s not found: run ./waf build (or pass --build DIR of a built tree)" % prog, 2)
    runs = plan(prog, args, grids, seeds, out)
    # every grid value and option checked (and each point's fabric built) before the first run:
    # one dry run per grid point (a seed changes no option's validity)
    env = buildenv.run_env(info)
    checked = set()
    for r in runs:
        if r.point in checked:
            continue
        checked.add(r.point)
        refused = buildenv.dry_run([c for c in r.cmd if not c.startswith("--out=")], env)
        if refused:
            raise SweepError("%s: %s (nothing was run)" % (command_text([c for c in r.cmd if not c.startswith("--out=")]), refused), 2)
    os.makedirs(out, exist_ok=True)
    csv_path = os.path.join(out, "sweep.csv")
    if os.path.exists(csv_path):
        os.remove(csv_path)  # a sweep that stops leaves no table of an earlier one
    buildenv.banner(
        "sweep: %s (%s x %s, %d at a time): %s ... --seed=S --out=%s/RUNID"
        % (
            plural(len(runs), "run"),
            plural(len(runs) // len(seeds), "grid point"),
            plural(len(seeds), "seed"),
            opts.jobs,
            command_text([prog] + args),
            out,
        )
    )
    t0 = time.monotonic()
    execute(runs, metrics, buildenv.run_env(info), opts.jobs)
    write_csv(csv_path, grids, metrics, runs, out)
    print("\n".join(table(name, args, grids, seeds, metrics, runs) + bucket_table(grids, runs)))
    failed = [r for r in runs if r.status != EXIT_OK]
    print("%d runs in %.1f s; outputs in %s/RUNID/, every run in %s" % (len(runs), time.monotonic() - t0, out, csv_path))
    sys.stdout.flush()
    if failed:
        buildenv.error(
            "%d of %d runs failed their invariants (exit 3; not in the means):\n%s"
            % (len(failed), len(runs), "\n".join("  %s: %s" % (r.out, r.failure) for r in failed))
        )
        return EXIT_INVARIANT
    return 0


if __name__ == "__main__":
    sys.exit(main())
