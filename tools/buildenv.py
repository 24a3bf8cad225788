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
