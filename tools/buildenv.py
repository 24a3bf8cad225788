"""What the tools in tools/ need to know about a build directory, and how to run its programs.

`./waf build` writes BUILD/rdma-cc-build.json (the ns-3 library directories, cargo and its target
directory, the C++ standard, the ns-3 version and provider); the tools read it, so they run the
same way from ./waf (which passes --build) and by hand (`tools/check.py --build build`).
"""

import glob
import json
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
INFO_FILE = "rdma-cc-build.json"

# Program directories: examples/NAME.cc is built as BUILD/examples/NAME, bench/NAME.cc as
# BUILD/bench/NAME. Both run with `./waf --run NAME`.
PROGRAM_DIRS = ("examples", "bench")


class BuildError(Exception):
    """The build directory is missing or not built by ./waf build."""


def cores():
    """The cores this process may run on: the default number of runs at a time of sweep and
    compare (each run is one single-threaded process)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def load(build):
    """Returns the build description of BUILD (a dict), with 'build' set to its absolute path."""
    build = os.path.abspath(build)
    path = os.path.join(build, INFO_FILE)
    if not os.path.exists(path):
        raise BuildError("%s not found: run ./waf build first (or pass --build DIR of a built tree)" % path)
    with open(path) as f:
        info = json.load(f)
    info["build"] = build
    return info


def programs(root=ROOT):
    """{name: directory} of every program source, e.g. {'ldcp-incast': 'examples'}."""
    found = {}
    for d in PROGRAM_DIRS:
        for src in sorted(glob.glob(os.path.join(root, d, "*.cc"))):
            found[os.path.basename(src)[:-3]] = d
    return found


def examples(root=ROOT):
    """The names of the ns-3 example programs (examples/*.cc), sorted."""
    return sorted(n for n, d in programs(root).items() if d == "examples")


def program_path(info, name, root=ROOT):
    """The built program NAME (an example or a benchmark), or None if there is no such source."""
    d = programs(root).get(name)
    return os.path.join(info["build"], d, name) if d else None


def _prepend_paths(value, paths):
    have = [p for p in value.split(os.pathsep) if p] if value else []
    return os.pathsep.join([p for p in paths if p not in have] + have)


def run_env(info, base=None):
    """Environment for the built programs: LD_LIBRARY_PATH with BUILD/lib and ns-3's libraries."""
    e = dict(os.environ if base is None else base)
    paths = [os.path.join(info["build"], "lib")] + list(info["ns3_libdirs"])
    e["LD_LIBRARY_PATH"] = _prepend_paths(e.get("LD_LIBRARY_PATH", ""), paths)
    return e


def cargo_env(info, base=None):
    """Environment for cargo: the build's target directory and C++ standard (as ./waf build)."""
    e = dict(os.environ if base is None else base)
    e["CARGO_TARGET_DIR"] = info["cargo_target"]
    e["RDMACC_CXX_STD"] = info["cxx_std"]
    return e


def _colour(code, text, stream):
    if stream.isatty() and os.environ.get("TERM", "dumb") != "dumb" and not os.environ.get("NO_COLOR"):
        return "\x1b[%sm%s\x1b[0m" % (code, text)
    return text


def banner(text):
    """A section heading on stdout (cyan on a terminal, like waf's messages)."""
    sys.stdout.write(_colour("36", text, sys.stdout) + "\n")
    sys.stdout.flush()


def error(text):
    """An error message on stderr (red on a terminal)."""
    sys.stdout.flush()
    sys.stderr.write(_colour("01;31", text, sys.stderr) + "\n")
    sys.stderr.flush()


# What tools/plot.py needs, pinned: installed into ./waf's .waf-env on first use (./waf plot,
# ./waf check), like waf itself and PyPI's ns-3.
PLOT_REQUIREMENTS = ["matplotlib==3.10.3"]


def dry_run(cmd, env):
    """Checks one planned run before any runs: CMD (a program and its arguments, without --out)
    with --dryRun in a scratch --out, so the example checks every option and value and builds
    its fabric, then stops without simulating. Returns None when it would run, else the
    example's one-line refusal."""
    import shutil
    import subprocess
    import tempfile

    scratch = tempfile.mkdtemp(prefix="rdmacc-dryrun-")
    try:
        p = subprocess.run(
            list(cmd) + ["--out=" + scratch, "--dryRun"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if p.returncode == 0:
        return None
    lines = [line for line in p.stdout.splitlines() if line.strip()]
    return lines[-1] if lines else "exit status %d" % p.returncode


def ensure_plotting():
    """Makes matplotlib importable: installs PLOT_REQUIREMENTS into this Python when it is a
    virtual environment (./waf's .waf-env) and matplotlib is missing. Returns None when it is
    importable, else a message saying what to do."""
    try:
        import matplotlib  # noqa: F401

        return None
    except ImportError:
        pass
    if sys.prefix == sys.base_prefix:
        return (
            "matplotlib is missing and %s is not a virtual environment to install it into: run "
            "./waf plot (it installs %s into .waf-env), or install it yourself"
            % (sys.executable, " ".join(PLOT_REQUIREMENTS))
        )
    banner("installing %s into %s (plots; once)" % (" ".join(PLOT_REQUIREMENTS), sys.prefix))
    import subprocess

    rc = subprocess.call(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"] + PLOT_REQUIREMENTS
    )
    if rc != 0:
        return "could not install %s into %s (pip exit status %d; is the package index reachable?)" % (
            " ".join(PLOT_REQUIREMENTS),
            sys.prefix,
            rc,
        )
    import importlib

    importlib.invalidate_caches()
    try:
        import matplotlib  # noqa: F401,F811
    except ImportError as e:
        return "installed %s but cannot import it: %s" % (" ".join(PLOT_REQUIREMENTS), e)
    return None
