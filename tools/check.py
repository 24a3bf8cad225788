#!/usr/bin/env python3
"""Runs every rdma-cc test on a built tree and ends with one verdict line, "N passed, M failed".

    tools/check.py [--build DIR] [--cargo-offline] [--long] [--only PATTERN]

`./waf check` builds, then runs this with --build set to its build directory; run by hand it
needs a tree built by `./waf build` (default --build: build/ of this checkout). In order:

  1. cargo test --workspace --locked (the Rust crates and the bridge crate)
  2. every rdma-cc-* ns-3 TestSuite of BUILD/test-runner (each test case counts)
  3. a smoke run of every program in examples/ and bench/ (SMOKE below: exit status and a text
     the output must contain; outputs in build/smoke/)
  4. tests/test_*.py, the end-to-end tests (unittest; each test method counts)

It prints a table (one row per cargo run, suite, smoke run and test file), how many temporary
directories the tests left behind (the tests remove theirs; a failing test keeps its outputs and
names them), the time taken and, last, "N passed, M failed". Skipped tests, expected failures
(known misses, which --long runs) and ignored cargo tests count as neither: they are listed
apart. Exit status 1 if anything failed,
2 if the build is missing or --only matches nothing.
"""

import argparse
import fnmatch
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402

ROOT = buildenv.ROOT

# Short runs of every program for the check: (name, args, expected exit code, text that must
# appear in the combined output). Examples assert on their own numbers where they can.
SMOKE = [
    ("red-ecn-dumbbell", "--simTime=20ms --out=build/smoke/red-ecn-dumbbell", 0, "marks"),
    (
        "red-ecn-dumbbell",
        "--simTime=20ms --kmin=50000 --kmax=20000 --out=build/smoke/bad",
        2,
        "invalid --kmin = 50000 B: must be <= --kmax (20000 B)",
    ),
    (
        "red-ecn-dumbbell",
        "--simTime=20ms --pmax=1.5 --out=build/smoke/bad",
        2,
        "invalid --pmax = 1.5: must be a number in [0, 1]",
    ),
    ("pfc-incast", "--senders=4 --size=2000000 --out=build/smoke/pfc-incast", 0, "drops 0\n"),
    ("pfc-incast", "--senders=4 --size=200000 --pfc=0 --out=build/smoke/pfc-incast-off", 0, "queue_full="),
    ("pfc-incast", "--delay=-1us --out=build/smoke/bad", 2, "invalid --delay = -1us"),
    ("ldcp-incast", "--senders=4 --size=65536 --out=build/smoke/ldcp-incast", 0, "flows done        4 / 4"),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=ldcp-rate --out=build/smoke/ldcp-rate", 0, "flows done        4 / 4"),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=timely --out=build/smoke/timely", 0, "flows done        4 / 4"),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=dctcp --out=build/smoke/dctcp", 0, "flows done        4 / 4"),
    ("ldcp-incast", "--cc=cubic --out=build/smoke/bad", 2, "invalid --cc = cubic"),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=hpcc --out=build/smoke/hpcc", 0, "invariants        ok"),
    (
        "ldcp-incast",
        "--cc=hpcc --int=false --out=build/smoke/bad",
        2,
        "invalid --cc = hpcc: HPCC needs INT at the switches",
    ),
    ("bench-bridge", "--calls=1000", 0, "QP data packet"),
    ("ldcp-churn", "--churn=50us --longSize=200000 --out=build/smoke/ldcp-churn", 0, "invariants        ok"),
    ("pfc-incast", "--xoffBeta=-2 --out=build/smoke/bad", 2, "invalid --xoffBeta = -2"),
    (
        "pfc-incast",
        "--senders=4 --size=1000000 --buffer=1000000 --headroom=3000 --out=build/smoke/bad",
        2,
        "invalid --headroom = 3000 B: below the 28310 B port 0 needs",
    ),
    (
        "pfc-incast",
        "--senders=4 --size=1000000 --buffer=1000000 --headroom=3000 --allowHeadroomOverrun "
        "--out=build/smoke/pfc-overrun",
        3,
        "INVARIANT FAILED: the data priority is lossless (--pfc=1) but",
    ),
    (
        "pfc-incast",
        "--ns3::QbbNetDevice::DataScheduler=dwrr:1,2 --out=build/smoke/bad",
        2,
        "invalid DataScheduler = dwrr:1,2: needs exactly 8 DWRR weights",
    ),
    (
        "pfc-incast",
        "--senders=2 --size=200000 --ns3::QbbNetDevice::DataScheduler=dwrr:1,1,1,2,1,1,1,1 --out=build/smoke/pfc-dwrr",
        0,
        "drops 0\n",
    ),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=dcqcn --out=build/smoke/ldcp-dcqcn", 0, "flows done        4 / 4"),
    ("dcqcn-fairness", "--duration=1ms --out=build/smoke/dcqcn-fairness", 0, "Jain's index"),
    ("dcqcn-victim", "--duration=1ms --extra=0,2 --out=build/smoke/dcqcn-victim", 0, "victim VS->VR"),
    ("dcqcn-victim", "--extra=3 --out=build/smoke/bad", 2, "invalid --extra = 3"),
    ("dcqcn-convergence", "--duration=2ms --stagger=500us --out=build/smoke/dcqcn-convergence", 0, "settled queue"),
    ("dcqcn-convergence", "--stagger=30ms --out=build/smoke/bad", 2, "invalid --stagger = 30ms"),
    (
        "ldcp-churn",
        "--cdf=workloads/AliStorage2019.txt --churn=100us --longSize=200000 --out=build/smoke/ldcp-churn-cdf",
        0,
        "invariants        ok",
    ),
    ("ldcp-chain", "--duration=1ms --out=build/smoke/ldcp-chain", 0, "A's share of S0 -> S1"),
    ("ldcp-chain", "--duration=0s --out=build/smoke/bad", 2, "invalid --duration = 0s"),
    ("hpcc-run", "--maxFlows=20 --cc=dcqcn --out=build/smoke/hpcc-run", 0, "flows done        20 / 20"),
    ("rcm-burst", "--duration=250us --out=build/smoke/rcm-burst", 0, "burst while active"),
    ("rcm-burst", "--cases=rcm,x --out=build/smoke/bad", 2, "invalid --cases = rcm,x"),
    ("rcm-victim", "--duration=500us --out=build/smoke/rcm-victim", 0, "victim Sv->Dv"),
    ("rcm-victim", "--rcmCamDepth=65 --out=build/smoke/bad", 2, "invalid --rcmCamDepth = 65"),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=dcqcn --rcm=1 --out=build/smoke/ldcp-rcm", 0, "flows done        4 / 4"),
    (
        "hpcc-run",
        "--topo=workloads/WebSearch_distribution.txt --out=build/smoke/bad",
        2,
        "topology file: workloads/WebSearch_distribution.txt:1: invalid header = 0 0: must be 3 numbers",
    ),
    ("fat-tree-workload", "--k=4 --load=0.3 --duration=300us --out=build/smoke/fat-tree-workload", 0, "slowdown by size"),
    ("fat-tree-workload", "--k=3 --out=build/smoke/bad", 2, "invalid --k = 3"),
    ("class-hol", "--duration=500us --out=build/smoke/class-hol", 0, "two-classes  other"),
    ("class-hol", "--senders=1 --out=build/smoke/bad", 2, "invalid --senders = 1"),
    ("read-incast", "--servers=4 --block=1MB --out=build/smoke/read-incast", 0, "  pfc  "),
    ("read-incast", "--servers=0 --out=build/smoke/bad", 2, "invalid --servers = 0"),
    ("my-first-scenario", "--out=build/smoke/my-first-scenario", 0, "invariants        ok"),
    ("my-first-scenario", "--size=0 --out=build/smoke/bad", 2, "invalid --size = 0"),
    ("plain-ns3-incast", "--out=build/smoke/plain-ns3-incast", 0, "4 / 4 flows done, 0 drops, invariants ok"),
    ("plain-ns3-incast", "--senders=4 --pfc=1 --ns3::RdmaNic::Scheme=dcqcn --out=build/smoke/plain-ns3-dcqcn", 0, "invariants ok"),
]

SMOKE_TIMEOUT_S = 600

# A line tests/common.py prints for each output directory it keeps because a test failed.
KEPT_RE = re.compile(r"^rdma-cc tests: kept (\S+)", re.M)


def selected(name, pattern):
    """--only: a substring of the check's name, or a shell pattern if it contains '*'
    (the rule of `python -m unittest -k`)."""
    if not pattern:
        return True
    if "*" in pattern:
        return fnmatch.fnmatchcase(name, pattern)
    return pattern in name


def run(cmd, **kw):
    """Runs cmd with stdout and stderr combined; returns (exit status, output)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, **kw)
    return p.returncode, p.stdout


def check_cargo(info, opts, env):
    """cargo test --workspace: (passed, failed) summed over every test binary."""
    cmd = list(info["cargo"]) + ["test", "--workspace", "--locked"]
    if opts.cargo_offline:
        cmd.append("--offline")
    buildenv.banner("== cargo test --workspace")
    rc, out = run(cmd, cwd=ROOT, env=buildenv.cargo_env(info, env))
    sys.stdout.write(out)
    passed = failed = ignored = 0
    for m in re.finditer(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", out):
        passed += int(m.group(1))
        ignored += int(m.group(3))
        failed += int(m.group(2))
    if rc != 0 and failed == 0:
        failed = 1  # build failure or a crash: count it
    return [("cargo", "cargo test", passed, failed, ignored)]


def check_ns3_suites(info, opts, env):
    """Every rdma-cc-* TestSuite of the test runner; each test case counts."""
    runner = os.path.join(info["build"], "test-runner")
    if not os.path.exists(runner):
        buildenv.error("%s not found: run ./waf build" % runner)
        return [("ns3", "test-runner missing", 0, 1)]
    _, listing = run([runner, "--list"], env=env)
    suites = [s for s in listing.split() if s.startswith("rdma-cc")]
    if not suites:
        return [("ns3", "no rdma-cc suites found", 0, 1)]
    suites = [s for s in suites if selected(s, opts.only)]
    if not suites:
        return []
    buildenv.banner("== ns-3 test suites: %s" % " ".join(suites))
    results = []
    for s in suites:
        rc, out = run([runner, "--suite=" + s, "--verbose"], env=env)
        sys.stdout.write(out)
        ok_cases = len(re.findall(r"^\s+PASS ", out, re.M))
        bad_cases = len(re.findall(r"^\s+FAIL ", out, re.M))
        if rc != 0 and bad_cases == 0:
            bad_cases = 1
        if ok_cases + bad_cases == 0:
            ok_cases = 1 if rc == 0 else 0
            bad_cases = 0 if rc == 0 else 1
        results.append(("ns3", s, ok_cases, bad_cases))
    return results


def check_smoke(info, opts, env):
    """One short run of every program (and of its bad-input errors)."""
    results = []
    progs = buildenv.programs()
    if not opts.only:
        smoke_names = set(n for n, _, _, _ in SMOKE)
        for name in sorted(progs):
            if name not in smoke_names:
                buildenv.error("program %s has no smoke run in tools/check.py SMOKE" % name)
                results.append(("smoke", name + " (no smoke run)", 0, 1))
    runs = [r for r in SMOKE if selected(r[0] + " " + r[1], opts.only)]
    if not runs:
        return results
    buildenv.banner("== example smoke runs")
    for name, args, want_rc, want_text in runs:
        prog = buildenv.program_path(info, name)
        try:
            rc, out = run([prog or name] + shlex.split(args), env=env, cwd=ROOT, timeout=SMOKE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            rc, out = -1, "timed out after %d s\n" % SMOKE_TIMEOUT_S
        except OSError as e:
            rc, out = -1, "cannot run %s: %s\n" % (prog or name, e)
        ok = rc == want_rc and want_text in out
        print("%s %s %s (exit %d, want %d; want text %r)" % ("PASS" if ok else "FAIL", name, args, rc, want_rc, want_text))
        if not ok:
            sys.stdout.write(out[-4000:])
        results.append(("smoke", name + " " + args, int(ok), int(not ok)))
    return results


def check_tests(info, opts, env, tmp_root):
    """tests/test_*.py (unittest -v); each test method counts. Returns (rows, kept directories)."""
    tests = sorted(f for f in os.listdir(os.path.join(ROOT, "tests")) if re.match(r"test_.*\.py$", f))
    results, kept = [], []
    if not tests:
        return results, kept
    e = dict(env)
    e["RDMACC_BUILD"] = info["build"]
    e["RDMACC_ROOT"] = ROOT
    e["TMPDIR"] = tmp_root  # what the tests leave behind is counted there
    banner = not opts.only  # with --only: once a file has a matching test
    if banner:
        buildenv.banner("== tests/")
    # tests/test_plot.py draws with matplotlib: installed into .waf-env on first use (README);
    # when that fails, the message is here and the plot tests fail on the import
    problem = buildenv.ensure_plotting()
    if problem:
        buildenv.error(problem)
    for t in tests:
        cmd = [sys.executable, "-m", "unittest", "-v", os.path.join(ROOT, "tests", t)]
        if not selected(t, opts.only):
            cmd[3:3] = ["-k", opts.only]
        rc, out = run(cmd, env=e, cwd=ROOT)
        ran = re.search(r"^Ran (\d+) test", out, re.M)
        n = int(ran.group(1)) if ran else 0
        if opts.only and n == 0 and ran:
            continue  # nothing in this file matches --only
        if not banner:
            buildenv.banner("== tests/")
            banner = True
        sys.stdout.write(out)
        kept += KEPT_RE.findall(out)
        verdict = re.search(r"^(?:OK|FAILED) \((.*)\)", out, re.M)
        counts = dict((k, int(v)) for k, v in re.findall(r"([a-z ]+)=(\d+)", verdict.group(1))) if verdict else {}
        bad = counts.get("failures", 0) + counts.get("errors", 0) + counts.get("unexpected successes", 0)
        if rc != 0 and bad == 0:
            bad = 1
        # skipped tests and expected failures (the known misses, run by --long) did not pass
        not_run = counts.get("skipped", 0) + counts.get("expected failures", 0)
        results.append(("tests", t, max(n - bad - not_run, 0), bad, not_run))
    return results, kept


def main():
    ap = argparse.ArgumentParser(
        prog="tools/check.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), metavar="DIR", help="build directory of ./waf build [default: build]")
    ap.add_argument("--cargo-offline", action="store_true", help="pass --offline to cargo")
    ap.add_argument(
        "--long",
        action="store_true",
        help="also run the long tests: sets RDMACC_LONG=1 for cargo test, the ns-3 suites and tests/",
    )
    ap.add_argument(
        "--only",
        default="",
        metavar="PATTERN",
        help="run only the checks whose name contains PATTERN (a shell pattern if it has '*'): "
        "'cargo test', an ns-3 suite, a smoke run's 'NAME ARGS', a tests/ file, or a test "
        "(Class.method) in one",
    )
    opts = ap.parse_args()
    try:
        info = buildenv.load(opts.build)
    except buildenv.BuildError as e:
        buildenv.error(str(e))
        return 2

    env = buildenv.run_env(info)
    env.pop("RDMACC_LONG", None)
    if opts.long:
        env["RDMACC_LONG"] = "1"

    t0 = time.time()
    tmp_root = tempfile.mkdtemp(prefix="rdmacc-check-")
    results = []
    if selected("cargo test", opts.only):
        results += check_cargo(info, opts, env)
    results += check_ns3_suites(info, opts, env)
    results += check_smoke(info, opts, env)
    rows, kept = check_tests(info, opts, env, tmp_root)
    results += rows

    # Whatever the tests left in their TMPDIR: directories kept on purpose by a failing test
    # (named in its output) are reported; anything else is a leak and fails the check.
    left = sorted(os.path.join(tmp_root, n) for n in os.listdir(tmp_root))
    leaked = [p for p in left if p not in kept]
    if not left:
        os.rmdir(tmp_root)
    elif leaked:
        results.append(("tmp", "temporary files left by tests/", 0, 1))

    if not results:
        buildenv.error("--only %r matches no check" % opts.only)
        return 2
    results = [r if len(r) == 5 else r + (0,) for r in results]
    total_pass = sum(r[2] for r in results)
    total_fail = sum(r[3] for r in results)
    total_other = sum(r[4] for r in results)
    print("")
    for kind, name, p, f, other in results:
        more = " %4d skipped or expected to fail" % other if other else ""
        print("%-6s %-60s %4d passed %4d failed%s" % (kind, name[:60], p, f, more))
    print("temporary directories left by tests/: %d%s" % (len(left), (" in " + tmp_root) if left else ""))
    for p in leaked:
        print("  leaked (not removed by its test): %s" % p)
    print(
        "check took %.0f s (ns-3 %s, %s, profile %s)"
        % (time.time() - t0, info["ns3_version"], info["ns3_provider"], info.get("profile", "default"))
    )
    if total_other:
        print("not counted as passed: %d skipped, expected to fail or ignored (see the table)" % total_other)
    print("%d passed, %d failed" % (total_pass, total_fail))
    sys.stdout.flush()
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
