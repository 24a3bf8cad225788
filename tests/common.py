"""Helpers for the end-to-end tests: run a built example, read its outputs.

The tests are run by `./waf check`, which sets RDMACC_BUILD (the build directory),
RDMACC_ROOT (the checkout) and LD_LIBRARY_PATH.
"""

import json
import os
import subprocess
import tempfile

BUILD = os.environ.get("RDMACC_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
ROOT = os.environ.get("RDMACC_ROOT", os.path.join(os.path.dirname(__file__), ".."))


def run_example(name, *args, expect_rc=0, timeout=600, env=None, split_stderr=False):
    """Runs examples/NAME with args and a fresh --out directory.

    env: environment variables to set on top of this process's (a None value removes one).
    split_stderr: keep standard error apart in p.stderr instead of merged into p.stdout.
    Returns (completed process, output directory). Fails the calling test (AssertionError)
    when the exit code is not expect_rc.
    """
    out = tempfile.mkdtemp(prefix="rdmacc-%s-" % name)
    prog = os.path.join(BUILD, "examples", name)
    e = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    p = subprocess.run(
        [prog, "--out=" + out] + list(args),
        cwd=ROOT,
        env=e,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if split_stderr else subprocess.STDOUT,
        universal_newlines=True,
        timeout=timeout,
    )
    if p.returncode != expect_rc:
        raise AssertionError(
            "%s %s exited %d (want %d):\n%s" % (name, " ".join(args), p.returncode, expect_rc, (p.stdout + (p.stderr or ""))[-4000:])
        )
    return p, out


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def read_bytes(out, name):
    with open(os.path.join(out, name), "rb") as f:
        return f.read()
