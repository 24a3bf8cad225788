"""The build profile (`./waf configure --build-profile=default|fast`, issue 29).

- `--build-profile=fast` configures: configure says so and what ns-3's own libraries keep, and the
  configured flags compile NS_LOG and NS_ASSERT out of rdma-cc's C++ (no NS3_LOG_ENABLE, no
  NS3_ASSERT_ENABLE; NDEBUG, -O3), the Rust crates in cargo's `fast` profile. Configure only,
  into a temporary directory (no build: a second full build is minutes).
- An unknown profile is refused in one line (exit 2, naming --build-profile), writing nothing.
- A build given another --build-profile than it was configured with stops (exit 2) instead of building
  the configured one.
- Each run's config.json records the profile of the build that ran it (`build.profile`, as
  rdma-cc-build.json has it); in a fast build the C++ model's NS_LOG statements write nothing.

Runs against the build under test (RDMACC_BUILD): its provider (system or pypi; other providers
skip the configure tests) and its profile."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, run_example  # noqa: E402

with open(os.path.join(BUILD, "rdma-cc-build.json")) as f:
    INFO = json.load(f)
PROFILE = INFO.get("profile", "default")


def waf(*args, timeout=300):
    """./waf ARGS in the checkout; (exit status, stdout and stderr). Without the WAFLOCK of the
    ./waf check running the test (it names the lock file of the build under test): ./waf then
    uses the lock file of the --out given here, so that a configure into a temporary directory
    leaves the build under test configured as it was."""
    env = {k: v for k, v in os.environ.items() if k != "WAFLOCK"}
    p = subprocess.run(
        [os.path.join(ROOT, "waf")] + list(args),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=timeout,
    )
    return p.returncode, p.stdout


def lock_files():
    return set(glob.glob(os.path.join(ROOT, ".lock-waf_out_*rdmacc-profile-*")))


class ConfigureProfile(unittest.TestCase):
    def setUp(self):
        if INFO["ns3_provider"] not in ("system", "pypi"):
            self.skipTest("configure test for the system and pypi providers (this build: %s)" % INFO["ns3_provider"])
        self.out = tempfile.mkdtemp(prefix="rdmacc-profile-")
        self.locks = lock_files()
        self.addCleanup(self.cleanup)

    def cleanup(self):
        shutil.rmtree(self.out, ignore_errors=True)
        for lock in lock_files() - self.locks:
            os.remove(lock)

    def tearDown(self):
        # the other build directories are still configured where they were (only this test's
        # own lock file, removed by cleanup, names its directory)
        for lock in set(glob.glob(os.path.join(ROOT, ".lock-waf_out_*"))) - lock_files():
            with open(lock) as f:
                self.assertNotIn(self.out, f.read(), lock)

    def test_fast_profile_configures_without_ns_log_and_ns_assert(self):
        rc, text = waf("configure", "--ns3=" + INFO["ns3_provider"], "--build-profile=fast", "--out=" + self.out)
        self.assertEqual(rc, 0, text)
        self.assertRegex(text, r"Build profile\s*: fast \(NS_LOG and NS_ASSERT compiled out")
        self.assertRegex(text, r"ns-3's own libraries\s*: logging (on|off), asserts (on|off)")
        if INFO["ns3_provider"] == "pypi":
            # the pinned wheel (ns3==3.44.post0) is built with both
            self.assertRegex(text, r"ns-3's own libraries\s*: logging on, asserts on")
        if "logging on" in text or "asserts on" in text:
            self.assertIn("--build-profile=fast: what remains: ns-3's own libraries keep their", text)
        env = {}
        with open(os.path.join(self.out, "c4che", "_cache.py")) as f:
            exec(f.read(), {}, env)  # waf's configured environment: NAME = value lines
        self.assertEqual(env["RDMACC_PROFILE"], "fast")
        self.assertEqual(env["CARGO_PROFILE"], "fast")
        self.assertNotIn("NS3_LOG_ENABLE", env["DEFINES_NS3"])
        self.assertNotIn("NS3_ASSERT_ENABLE", env["DEFINES_NS3"])
        self.assertIn("NDEBUG", env["DEFINES_NS3"])
        self.assertIn("-O3", env["CXXFLAGS"])
        self.assertNotIn("-O2", env["CXXFLAGS"])

    def test_unknown_profile_is_refused_and_writes_nothing(self):
        rc, text = waf("configure", "--ns3=" + INFO["ns3_provider"], "--build-profile=turbo", "--out=" + self.out)
        self.assertEqual(rc, 2, text)
        self.assertEqual([l for l in text.splitlines() if l], ["invalid --build-profile = turbo: must be default or fast"])
        self.assertEqual(os.listdir(self.out), [])


class BuildRefusesAnotherProfile(unittest.TestCase):
    def test_build_with_another_profile_than_configured_stops(self):
        other = "default" if PROFILE == "fast" else "fast"
        # --out as ./waf check was given it: relative to the checkout when inside it
        rel = os.path.relpath(os.path.abspath(BUILD), os.path.abspath(ROOT))
        rc, text = waf("build", "--build-profile=" + other, "--out=" + (BUILD if rel.startswith("..") else rel))
        self.assertEqual(rc, 2, text)
        self.assertIn("--build-profile=%s: %s is configured with --build-profile=%s" % (other, os.path.abspath(BUILD), PROFILE), text)
        self.assertIn("./waf configure --build-profile=%s --out=" % other, text)
        with open(os.path.join(BUILD, "rdma-cc-build.json")) as f:
            self.assertEqual(json.load(f), INFO)  # nothing reconfigured


class RunRecordsProfile(ExampleTest):
    def test_config_json_records_the_builds_profile(self):
        _, out = run_example("ldcp-incast", "--senders=2", "--size=65536")
        with open(os.path.join(out, "config.json")) as f:
            build = json.load(f)["build"]
        self.assertIn(PROFILE, ("default", "fast"))
        self.assertEqual(build["profile"], PROFILE)

    def test_model_ns_log_is_compiled_out_in_a_fast_build_only(self):
        # RdmaNic's level_info writes a start and a finish line per flow where NS_LOG is compiled in
        p, _ = run_example("ldcp-incast", "--senders=2", "--size=65536",
                           env={"NS_LOG": "RdmaNic=level_info"}, split_stderr=True)
        lines = [l for l in p.stderr.splitlines() if " start: " in l or " finish" in l]
        if PROFILE == "fast":
            self.assertEqual(lines, [])
        else:
            self.assertEqual(len(lines), 4, p.stderr[-2000:])  # a start and a finish per flow


if __name__ == "__main__":
    unittest.main()
