"""Helpers for the end-to-end tests: run a built example, read its outputs.

The tests are run by `./waf check` (tools/check.py), which sets RDMACC_BUILD (the build
directory), RDMACC_ROOT (the checkout), LD_LIBRARY_PATH and, with --long, RDMACC_LONG=1.

Every test class derives from ExampleTest. Each run_example (or output_dir) call makes a fresh
output directory (tempfile, named rdmacc-NAME-*); ExampleTest removes it when the test that made
it passes, or, for directories made in setUpClass, when every test of the class has passed. When
a test fails its directories are kept and named on stderr ("rdma-cc tests: kept DIR ...") for
inspection.
"""

import atexit
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD = os.environ.get("RDMACC_BUILD", os.path.join(os.path.dirname(__file__), "..", "build"))
ROOT = os.environ.get("RDMACC_ROOT", os.path.join(os.path.dirname(__file__), ".."))

# RDMACC_LONG=1 (./waf check --long): run the long tests too.
LONG = os.environ.get("RDMACC_LONG") == "1"


def long_test(f):
    """Decorator: the test runs only with ./waf check --long (RDMACC_LONG=1)."""
    return unittest.skipUnless(LONG, "long test: run with ./waf check --long (RDMACC_LONG=1)")(f)


# Output directories made by run_example and not yet claimed by a test or a test class.
_unclaimed = []


def _claim():
    dirs = list(_unclaimed)
    del _unclaimed[:]
    return dirs


def _dispose(dirs, keep, why):
    for d in dirs:
        if keep:
            sys.stderr.write("rdma-cc tests: kept %s (%s)\n" % (d, why))
        else:
            shutil.rmtree(d, ignore_errors=True)


@atexit.register
def _report_unclaimed():
    # run_example outside an ExampleTest: a leak (the harness fails the check); say where
    for d in _claim():
        sys.stderr.write("rdma-cc tests: leaked %s (made by a test that is not an ExampleTest)\n" % d)


def _problems(result):
    return len(result.failures) + len(result.errors) + len(getattr(result, "unexpectedSuccesses", ()))


class ExampleTest(unittest.TestCase):
    """Base of the end-to-end tests: removes run_example's output directories (see the module)."""

    def run(self, result=None):
        if result is None:
            return super().run(result)  # unittest calls run(result); this is for direct calls
        cls = type(self)
        if "_rdmacc_class_dirs" not in cls.__dict__:
            # the first test of the class: what exists now was made by setUpClass
            cls._rdmacc_class_dirs = _claim()
            cls._rdmacc_class_failed = False
        before = _problems(result)
        _claim()  # nothing is made between tests; be safe
        super().run(result)
        failed = _problems(result) > before
        if failed:
            cls._rdmacc_class_failed = True
        _dispose(_claim(), failed, "%s failed" % self.id())
        return result

    @classmethod
    def doClassCleanups(cls):
        # called after tearDownClass, or right after setUpClass failed
        super().doClassCleanups()
        dirs = cls.__dict__.get("_rdmacc_class_dirs")
        failed = cls.__dict__.get("_rdmacc_class_failed", False)
        name = "%s.%s" % (cls.__module__, cls.__qualname__)
        why = "made by the setUpClass of %s, one of whose tests failed" % name
        if dirs is None:  # setUpClass failed: no test ran, its directories are still unclaimed
            dirs, failed, why = _claim(), True, "%s.setUpClass failed" % name
        cls._rdmacc_class_dirs = []
        _dispose(dirs, failed, why)

    def assert_config_error(self, text, files, *expected, msg=None):
        """A rejected configuration (the caller checks exit status 2): TEXT, the run's output, is
        exactly one non-empty line containing each of EXPECTED, and FILES (what its --out
        directory holds) is empty. msg, if given, replaces the messages of the failed assertions.
        Returns the line."""
        lines = [line for line in text.splitlines() if line]
        self.assertEqual(len(lines), 1, text if msg is None else msg)
        for e in expected:
            self.assertIn(e, lines[0], msg)
        self.assertEqual(files, [], "a configuration error writes no output file" if msg is None else msg)
        return lines[0]


def output_dir(name):
    """A fresh directory (rdmacc-NAME-*) removed like run_example's (see the module)."""
    out = tempfile.mkdtemp(prefix="rdmacc-%s-" % name)
    _unclaimed.append(out)
    return out


def run_example(name, *args, expect_rc=0, timeout=600, env=None, split_stderr=False):
    """Runs examples/NAME with args and a fresh --out directory.

    env: environment variables to set on top of this process's (a None value removes one).
    split_stderr: keep standard error apart in p.stderr instead of merged into p.stdout.
    Returns (completed process, output directory). Fails the calling test (AssertionError)
    when the exit code is not expect_rc (expect_rc=None: any exit code will do); raises
    subprocess.TimeoutExpired after timeout seconds. The directory is removed by ExampleTest
    when the test (or its class, from setUpClass) is done and passed.
    """
    out = output_dir(name)
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
    if expect_rc is not None and p.returncode != expect_rc:
        raise AssertionError(
            "%s %s exited %d (want %d):\n%s" % (name, " ".join(args), p.returncode, expect_rc, (p.stdout + (p.stderr or ""))[-4000:])
        )
    return p, out


def run_compare(out, run, schemes, timeout=600, extra=()):
    """Runs tools/compare.py (what `./waf compare` runs) with outputs in OUT: the example
    invocation RUN under each of SCHEMES (comma-separated), plus EXTRA arguments. Returns (exit
    status, stdout with stderr)."""
    p = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "compare.py"), "--build", BUILD, "--out", out,
         "--run", run, "--schemes=" + schemes] + list(extra),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=timeout,
    )
    return p.returncode, p.stdout


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def stable_summary(out):
    """summary.json without wall_s, the one key that differs between runs with the same seed
    (KeyError if the summary lacks it)."""
    s = summary(out)
    s.pop("wall_s")
    return s


def read_csv(out, name):
    """The rows of the CSV file NAME in OUT, as dicts keyed by its header."""
    with open(os.path.join(out, name)) as f:
        return list(csv.DictReader(f))


def read_bytes(out, name):
    """The bytes of file NAME in OUT. config.json records the run's own --out directory (in its
    command line and options), the one thing two runs of one configuration into two directories
    write differently: there OUT reads as the word OUT."""
    with open(os.path.join(out, name), "rb") as f:
        data = f.read()
    if os.path.basename(name) == "config.json":
        data = data.replace(out.rstrip("/").encode(), b"OUT")
    return data
