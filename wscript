# -*- mode: python -*-
"""rdma-cc build: Rust crates + cxx bridge + the ns-3 module, against an installed ns-3.

  ./waf configure [--ns3=auto|system|pypi|PREFIX]   find ns-3 (auto: system, else PyPI wheel)
  ./waf build                                        cargo (release) + module + examples + tests
  ./waf --run "NAME args..."                         build if needed, run examples/NAME.cc
  ./waf check                                        every test; ends with "N passed, M failed"

See README.md for what each step needs and produces.
"""

import glob
import os
import re
import shlex
import subprocess
import sys
import time

from waflib import Build, Configure, Context, Errors, Logs, Options, Utils

APPNAME = "rdma-cc"
VERSION = "0.1.0"
top = "."
out = "build"

# configure automatically (with default options) when ./waf build/--run/check is used first
Configure.autoconfig = "clobber"  # re-configure with the options of the last configure

# ns-3 modules our library and programs link with (dependencies first is not required)
NS3_MODULES = [
    "core",
    "network",
    "internet",
    "traffic-control",
    "point-to-point",
    "applications",
    "stats",
]

PYPI_NS3 = "ns3==3.44.post0"

# Short runs of every example for ./waf check: (name, args, expected exit code, text that must
# appear in the combined output). Examples assert on their own numbers where they can.
SMOKE = [
    ("red-ecn-dumbbell", "--simTime=0.02 --out=build/smoke/red-ecn-dumbbell", 0, "marks"),
    (
        "red-ecn-dumbbell",
        "--simTime=0.02 --kmin=50000 --kmax=20000 --out=build/smoke/bad",
        2,
        "invalid KMin = 50000 B: must be <= KMax (20000 B)",
    ),
    (
        "red-ecn-dumbbell",
        "--simTime=0.02 --pmax=1.5 --out=build/smoke/bad",
        2,
        "invalid PMax = 1.5",
    ),
    ("pfc-incast", "--senders=4 --size=2000000 --out=build/smoke/pfc-incast", 0, "drops 0\n"),
    ("pfc-incast", "--senders=4 --size=200000 --pfc=0 --out=build/smoke/pfc-incast-off", 0, "queue_full="),
    ("pfc-incast", "--delay=-1us --out=build/smoke/bad", 2, "invalid --delay = -1us"),
    ("ldcp-incast", "--senders=4 --size=65536 --out=build/smoke/ldcp-incast", 0, "flows done        4 / 4"),
    ("ldcp-incast", "--senders=4 --size=65536 --cc=ldcp-rate --out=build/smoke/ldcp-rate", 0, "flows done        4 / 4"),
    ("ldcp-incast", "--cc=dctcp --out=build/smoke/bad", 2, "invalid --cc = dctcp"),
    ("bench-bridge", "--calls=1000", 0, "QP data packet"),
    ("ldcp-churn", "--churn=50us --longSize=200000 --out=build/smoke/ldcp-churn", 0, "accounting        ok"),
    ("pfc-incast", "--xoffBeta=-2 --out=build/smoke/bad", 2, "invalid --xoffBeta = -2"),
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
]


def options(opt):
    opt.load("compiler_cxx")
    opt.add_option(
        "--ns3",
        action="store",
        default="auto",
        dest="ns3",
        help="ns-3 to build against: system (pkg-config / Debian libns3-dev), pypi (the ns3 "
        "wheel installed into .waf-env), a PREFIX of an ns-3 installed from source, or auto "
        "(system if present, else pypi) [default: auto]",
    )
    opt.add_option(
        "--cxx-std",
        action="store",
        default="",
        dest="cxx_std",
        help="C++ standard (default: c++17 for ns-3 < 3.41, c++20 from 3.41)",
    )
    opt.add_option(
        "--run",
        action="store",
        default="",
        dest="run",
        help='build, then run an example: --run "NAME --arg=value ..."',
    )
    opt.add_option(
        "--schemes",
        action="store",
        default="ldcp,ldcp-rate,none",
        dest="schemes",
        help='with "compare": comma-separated --cc values to run the example with',
    )
    opt.add_option(
        "--cargo-offline",
        action="store_true",
        default=False,
        dest="cargo_offline",
        help="pass --offline to cargo",
    )


# ---------------------------------------------------------------------------------------------
# configure


def _version_from_headers(incdir):
    f = os.path.join(incdir, "ns3", "version-defines.h")
    if not os.path.exists(f):
        return None
    txt = open(f).read()
    mj = re.search(r"#define\s+NS3_VERSION_MAJOR\s+(\d+)", txt)
    mn = re.search(r"#define\s+NS3_VERSION_MINOR\s+(\d+)", txt)
    if mj and mn:
        return (int(mj.group(1)), int(mn.group(1)))
    return None


def _find_libs(libdir):
    """Return (name_prefix, name_suffix, version) such that lib<prefix>core<suffix>.so exists."""
    for path in sorted(glob.glob(os.path.join(libdir, "libns3*-core*.so"))):
        m = re.match(r"lib(ns3(?:\.(\d+))?(?:-dev)?-)core(-[a-z]+)?\.so$", os.path.basename(path))
        if m:
            version = (3, int(m.group(2))) if m.group(2) else None
            return m.group(1), m.group(3) or "", version
    return None


def _layout(prefix_inc, prefix_lib):
    """Find ns-3 headers (dir containing ns3/core-module.h) and libraries under the given dirs."""
    incdirs = [prefix_inc] + sorted(glob.glob(os.path.join(prefix_inc, "ns3.*")), reverse=True)
    inc = next((d for d in incdirs if os.path.exists(os.path.join(d, "ns3", "core-module.h"))), None)
    lib = None
    for d in prefix_lib:
        if os.path.isdir(d) and _find_libs(d):
            lib = d
            break
    return inc, lib


def _ns3_system(conf):
    pc = conf.find_program("pkg-config", var="PKGCONFIG", mandatory=False)
    candidates = []
    if pc:
        try:
            inc = conf.cmd_and_log(pc + ["--variable=includedir", "ns3-core"], quiet=Context.BOTH).strip()
            lib = conf.cmd_and_log(pc + ["--variable=libdir", "ns3-core"], quiet=Context.BOTH).strip()
            candidates.append((inc, [lib]))
        except Errors.WafError:
            pass
    multiarch = glob.glob("/usr/lib/*-linux-gnu")
    candidates.append(("/usr/include", multiarch + ["/usr/lib", "/usr/lib64"]))
    candidates.append(("/usr/local/include", ["/usr/local/lib", "/usr/local/lib64"]))
    for inc, libs in candidates:
        i, l = _layout(inc, libs)
        if i and l:
            return i, l
    return None


def _ns3_pypi(conf):
    py = sys.executable
    # --no-deps: we need the wheel's headers and C++ libraries only, not its Python bindings
    # (cppyy), which would be compiled from source.
    Logs.pprint("CYAN", "Installing/locating PyPI %s in %s (one download of ~70 MB the first time)" % (PYPI_NS3, sys.prefix))
    try:
        conf.cmd_and_log(
            [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", PYPI_NS3],
            output=Context.BOTH,
            quiet=Context.BOTH,
        )
    except Errors.WafError as e:
        conf.fatal(
            "could not install %s from PyPI with %s:\n%s\nIs the package index reachable? "
            "Or install Debian's ns-3: sudo apt-get install libns3-dev libgsl-dev, then ./waf configure --ns3=system"
            % (PYPI_NS3, py, getattr(e, "stderr", "") or e)
        )
    site = conf.cmd_and_log(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"], quiet=Context.BOTH
    ).strip()
    root = os.path.join(site, "ns3")
    i, l = _layout(os.path.join(root, "include"), [os.path.join(root, "lib64"), os.path.join(root, "lib")])
    if not (i and l):
        conf.fatal("the %s wheel is installed in %s but has no include/ and lib64/ there" % (PYPI_NS3, root))
    return i, l


def configure(conf):
    conf.load("compiler_cxx")
    spec = Options.options.ns3
    conf.msg("ns-3 requested", spec)
    found = None
    provider = spec
    if spec in ("auto", "system"):
        found = _ns3_system(conf)
        provider = "system"
        if not found and spec == "system":
            conf.fatal(
                "ns-3 not found on this system. On Debian/Ubuntu run:\n"
                "    sudo apt-get install libns3-dev libgsl-dev\n"
                "or build without root against PyPI's ns-3:  ./waf configure --ns3=pypi"
            )
    if not found and spec in ("auto", "pypi"):
        provider = "pypi"
        found = _ns3_pypi(conf)
    if not found and spec not in ("auto", "system", "pypi"):
        provider = "prefix"
        prefix = os.path.abspath(os.path.expanduser(spec))
        found = _layout(os.path.join(prefix, "include"), [os.path.join(prefix, "lib"), os.path.join(prefix, "lib64")])
        if not (found[0] and found[1]):
            conf.fatal(
                "--ns3=%s: no ns-3 installation there (expected include/[ns3.NN/]ns3/core-module.h "
                "and lib/ or lib64/ with libns3*-core*.so)" % spec
            )
    incdir, libdir = found
    libprefix, libsuffix, libversion = _find_libs(libdir)
    version = _version_from_headers(incdir) or libversion
    if not version:
        pcfile = os.path.join(libdir, "pkgconfig", "ns3-core.pc")
        if os.path.exists(pcfile):
            m = re.search(r"^Version:\s*(\d+)\.(\d+)", open(pcfile).read(), re.M)
            if m:
                version = (int(m.group(1)), int(m.group(2)))
    if not version:
        conf.fatal("cannot tell the ns-3 version of %s / %s" % (incdir, libdir))
    conf.msg("ns-3 provider", provider)
    conf.msg("ns-3 version", "%d.%d" % version)
    conf.msg("ns-3 headers", incdir)
    conf.msg("ns-3 libraries", libdir)

    std = Options.options.cxx_std or ("c++20" if version >= (3, 41) else "c++17")
    conf.msg("C++ standard", std)

    libs = []
    for m in NS3_MODULES:
        name = "%s%s%s" % (libprefix, m, libsuffix)
        if not os.path.exists(os.path.join(libdir, "lib%s.so" % name)):
            conf.fatal("ns-3 module library lib%s.so is missing in %s" % (name, libdir))
        libs.append(name)

    env = conf.env
    env.NS3_PROVIDER = provider
    env.NS3_VERSION = "%d.%d" % version
    env.NS3_LIBDIR = libdir
    env.CXX_STD = std
    env.INCLUDES_NS3 = [incdir]
    env.LIBPATH_NS3 = [libdir]
    env.LIB_NS3 = libs
    env.RPATH_NS3 = [libdir]
    # pkg-config does not pass these; without NS3_LOG_ENABLE, NS_LOG in our code is dead and
    # some ns-3 headers change layout relative to the libraries.
    env.DEFINES_NS3 = [
        "NS3_LOG_ENABLE",
        "NS3_ASSERT_ENABLE",
        "RDMACC_NS3_VERSION=%d" % (version[0] * 100 + version[1]),
    ]
    env.append_value("CXXFLAGS", ["-std=" + std, "-O2", "-g", "-fPIC", "-Wall", "-Wno-unused-parameter"])
    env.append_value("LINKFLAGS", ["-Wl,--as-needed"])

    conf.check_cxx(
        fragment="#include \"ns3/core-module.h\"\nint main() { ns3::Simulator::Now(); return 0; }\n",
        use="NS3",
        msg="Compiling and linking a program with ns-3",
        errmsg="failed (see build/config.log); the ns-3 installation looks incomplete",
    )

    cargo = conf.find_program("cargo", var="CARGO", mandatory=False)
    if not cargo:
        conf.fatal(
            "cargo not found: install a Rust toolchain (rustup, or on Debian/Ubuntu: "
            "sudo apt-get install cargo) and make sure cargo is on PATH"
        )
    env.CARGO_TARGET = os.path.join(conf.bldnode.abspath(), "cargo")


# ---------------------------------------------------------------------------------------------
# build


def _cargo_env(bld):
    e = dict(os.environ)
    e["CARGO_TARGET_DIR"] = bld.env.CARGO_TARGET
    e["RDMACC_CXX_STD"] = bld.env.CXX_STD
    return e


def _cargo_build(task):
    bld = task.generator.bld
    cmd = bld.env.CARGO + ["build", "--release", "--locked", "-p", "rdma-cc"]
    if Options.options.cargo_offline:
        cmd.append("--offline")
    return bld.exec_command(cmd, cwd=bld.path.abspath(), env=_cargo_env(bld))


def build(bld):
    env = bld.env
    rel = os.path.join(env.CARGO_TARGET, "release")
    rust_lib = os.path.join(rel, "librdma_cc.a")
    cxxbridge_inc = os.path.join(rel, "cxxbridge", "include")

    # group 1: Rust static library and the generated bridge headers; ns-3-style header copies
    bld(rule=_cargo_build, always=True, name="cargo", color="YELLOW")
    headers = bld.path.ant_glob("ns3-module/model/*.h ns3-module/helper/*.h")
    for h in headers:
        bld(features="subst", source=h, target="include/ns3/" + h.name, is_copy=True)
    module_header = bld.path.find_or_declare("include/ns3/rdma-cc-module.h")
    bld.env.RDMACC_HEADERS = sorted(h.name for h in headers)  # regenerate when the list changes
    bld(
        rule=lambda t: t.outputs[0].write(
            "// rdma-cc ns-3 module: every public header\n#ifndef RDMA_CC_MODULE_H\n#define RDMA_CC_MODULE_H\n"
            + "".join('#include "ns3/%s"\n' % h.name for h in sorted(headers, key=lambda n: n.name))
            + "#endif\n"
        ),
        target=module_header,
        vars=["NS3_VERSION", "RDMACC_HEADERS"],
    )
    bld.add_group()

    # group 2: the module library, the test runner, the examples
    inc = [bld.bldnode.make_node("include").abspath(), cxxbridge_inc, "ns3-module/model", "ns3-module/helper"]
    module_src = bld.path.ant_glob("ns3-module/model/*.cc ns3-module/helper/*.cc")
    lib = bld.shlib(
        source=module_src,
        target="lib/ns3-rdma-cc",
        includes=inc,
        use="NS3",
        stlib=["rdma_cc"],
        stlibpath=[rel],
        lib=["pthread", "dl", "m"],
        # no undefined symbols; the Rust library's symbols stay inside (not exported)
        linkflags=["-Wl,--no-undefined", "-Wl,--exclude-libs,ALL"],
        name="ns3-rdma-cc",
    )
    # relink when the Rust library changes
    bld.add_manual_dependency(bld.path.find_or_declare("lib/libns3-rdma-cc.so"), bld.root.make_node(rust_lib))

    rpath = [os.path.join(bld.bldnode.abspath(), "lib")] + env.RPATH_NS3
    tests = bld.path.ant_glob("ns3-module/test/*.cc")
    bld.program(
        source=tests,
        target="test-runner",
        includes=inc,
        use="ns3-rdma-cc NS3",
        rpath=rpath,
    )
    for src in bld.path.ant_glob("examples/*.cc"):
        name = src.name[:-3]
        bld.program(
            source=[src],
            target="examples/" + name,
            includes=inc,
            use="ns3-rdma-cc NS3",
            rpath=rpath,
        )

    if Options.options.run and bld.cmd == "build":
        bld.add_post_fun(_run_example)


def _examples(ctx):
    return sorted(n.name[:-3] for n in ctx.path.ant_glob("examples/*.cc"))


def _run_env(ctx):
    e = dict(os.environ)
    paths = [os.path.join(ctx.bldnode.abspath(), "lib")] + list(ctx.env.RPATH_NS3)
    if e.get("LD_LIBRARY_PATH"):
        paths.append(e["LD_LIBRARY_PATH"])
    e["LD_LIBRARY_PATH"] = os.pathsep.join(paths)
    return e


def _run_example(bld):
    argv = shlex.split(Options.options.run)
    name = argv[0]
    if name not in _examples(bld):
        Logs.error("unknown example %r; the examples are: %s" % (name, ", ".join(_examples(bld))))
        sys.exit(2)
    prog = os.path.join(bld.bldnode.abspath(), "examples", name)
    Logs.pprint("CYAN", "running %s" % " ".join([prog] + argv[1:]))
    rc = subprocess.call([prog] + argv[1:], env=_run_env(bld), cwd=bld.path.abspath())
    if rc != 0:
        sys.exit(rc)


# ---------------------------------------------------------------------------------------------
# compare: one scenario under several schemes, one table


class CompareContext(Build.BuildContext):
    """build, then run --run "EXAMPLE args" once per --schemes and print one table"""

    cmd = "compare"
    fun = "build"


COMPARE_COLUMNS = [
    ("flows done", lambda s: "%d/%d" % (s["flows_done"], s["flows_total"])),
    ("FCT avg us", lambda s: "%.1f" % (s["fct_ns"]["avg"] / 1e3)),
    ("FCT p99 us", lambda s: "%.1f" % (s["fct_ns"]["p99"] / 1e3)),
    ("slowdown p99", lambda s: "%.2f" % s["slowdown"]["p99"]),
    ("queue max KB", lambda s: "%.1f" % (s["queue_max_bytes"] / 1e3)),
    ("queue avg KB", lambda s: "%.1f" % (s["queue_avg_bytes"] / 1e3)),
    ("drops", lambda s: "%d" % s["drops_total"]),
    ("stable drops", lambda s: "%d" % s.get("stable_stage_drops", 0)),
    ("PAUSEs", lambda s: "%d" % s["pfc_pause_frames"]),
    ("retx KB", lambda s: "%.1f" % (s["retx_bytes"] / 1e3)),
    ("wall s", lambda s: "%.2f" % s["wall_s"]),
]


def _compare(bld):
    import json

    if not Options.options.run:
        Logs.error('compare needs --run "EXAMPLE args...", e.g. ./waf compare --run "ldcp-incast --senders=64"')
        sys.exit(2)
    argv = shlex.split(Options.options.run)
    name = argv[0]
    if name not in _examples(bld):
        Logs.error("unknown example %r; the examples are: %s" % (name, ", ".join(_examples(bld))))
        sys.exit(2)
    schemes = [x for x in Options.options.schemes.split(",") if x]
    prog = os.path.join(bld.bldnode.abspath(), "examples", name)
    rows = []
    for cc in schemes:
        out = os.path.join("results", "compare", "%s-%s" % (name, cc))
        cmd = [prog] + argv[1:] + ["--cc=" + cc, "--out=" + out]
        Logs.pprint("CYAN", " ".join(cmd))
        rc = subprocess.call(cmd, env=_run_env(bld), cwd=bld.path.abspath(), stdout=subprocess.DEVNULL)
        if rc != 0:
            Logs.error("%s failed with exit status %d" % (" ".join(cmd), rc))
            sys.exit(rc)
        with open(os.path.join(bld.path.abspath(), out, "summary.json")) as f:
            rows.append((cc, json.load(f)))
    head = ["scheme"] + [c for c, _ in COMPARE_COLUMNS]
    table = [head] + [[cc] + [fmt(s) for _, fmt in COMPARE_COLUMNS] for cc, s in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    print("")
    print("%s %s" % (name, " ".join(argv[1:])))
    for r in table:
        print("  ".join(x.rjust(w) for x, w in zip(r, widths)))
    print("outputs in results/compare/%s-SCHEME/" % name)


# ---------------------------------------------------------------------------------------------
# check: every test, one verdict line


class CheckContext(Build.BuildContext):
    """build, then run cargo tests, the ns-3 TestSuites, example smoke runs and tests/*.py"""

    cmd = "check"
    fun = "build"


def _check(bld):
    results = []  # (kind, name, ok, detail)
    t0 = time.time()

    # 1. cargo test --workspace
    Logs.pprint("CYAN", "== cargo test --workspace")
    cmd = bld.env.CARGO + ["test", "--workspace", "--locked"]
    if Options.options.cargo_offline:
        cmd.append("--offline")
    proc = subprocess.run(cmd, cwd=bld.path.abspath(), env=_cargo_env(bld), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    sys.stdout.write(proc.stdout)
    passed = failed = 0
    for m in re.finditer(r"test result: \w+\. (\d+) passed; (\d+) failed", proc.stdout):
        passed += int(m.group(1))
        failed += int(m.group(2))
    if proc.returncode != 0 and failed == 0:
        failed = 1  # build failure or a crash: count it
    results.append(("cargo", "cargo test", passed, failed))

    # 2. ns-3 TestSuites
    runner = os.path.join(bld.bldnode.abspath(), "test-runner")
    suites = subprocess.run([runner, "--list"], env=_run_env(bld), stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    suites = [s for s in suites if s.startswith("rdma-cc")]
    Logs.pprint("CYAN", "== ns-3 test suites: %s" % " ".join(suites))
    if not suites:
        results.append(("ns3", "no rdma-cc suites found", 0, 1))
    for s in suites:
        p = subprocess.run([runner, "--suite=" + s, "--verbose"], env=_run_env(bld), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        sys.stdout.write(p.stdout)
        ok_cases = len(re.findall(r"^\s+PASS ", p.stdout, re.M))
        bad_cases = len(re.findall(r"^\s+FAIL ", p.stdout, re.M))
        if p.returncode != 0 and bad_cases == 0:
            bad_cases = 1
        if ok_cases + bad_cases == 0:
            ok_cases = 1 if p.returncode == 0 else 0
            bad_cases = 0 if p.returncode == 0 else 1
        results.append(("ns3", s, ok_cases, bad_cases))

    # 3. example smoke runs
    Logs.pprint("CYAN", "== example smoke runs")
    smoke_names = set(n for n, _, _, _ in SMOKE)
    for name in _examples(bld):
        if name not in smoke_names:
            Logs.error("example %s has no smoke run in wscript SMOKE" % name)
            results.append(("smoke", name + " (no smoke run)", 0, 1))
    for name, args, want_rc, want_text in SMOKE:
        prog = os.path.join(bld.bldnode.abspath(), "examples", name)
        p = subprocess.run([prog] + shlex.split(args), env=_run_env(bld), cwd=bld.path.abspath(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600)
        ok = p.returncode == want_rc and want_text in p.stdout
        print("%s %s %s (exit %d, want %d; want text %r)" % ("PASS" if ok else "FAIL", name, args, p.returncode, want_rc, want_text))
        if not ok:
            sys.stdout.write(p.stdout[-4000:])
        results.append(("smoke", name + " " + args, int(ok), int(not ok)))

    # 4. tests/*.py end-to-end tests (unittest), each test method counts
    tests = sorted(bld.path.ant_glob("tests/test_*.py"), key=lambda n: n.name)
    if tests:
        Logs.pprint("CYAN", "== tests/")
        e = _run_env(bld)
        e["RDMACC_BUILD"] = bld.bldnode.abspath()
        e["RDMACC_ROOT"] = bld.path.abspath()
        for t in tests:
            p = subprocess.run([sys.executable, "-m", "unittest", "-v", t.abspath()], env=e, cwd=bld.path.abspath(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
            sys.stdout.write(p.stdout)
            ran = re.search(r"^Ran (\d+) test", p.stdout, re.M)
            n = int(ran.group(1)) if ran else 0
            fails = re.search(r"^FAILED \((.*)\)", p.stdout, re.M)
            bad = sum(int(x) for x in re.findall(r"(?:failures|errors)=(\d+)", fails.group(1))) if fails else 0
            if p.returncode != 0 and bad == 0:
                bad = 1
            results.append(("tests", t.name, n - min(bad, n), bad))

    total_pass = sum(r[2] for r in results)
    total_fail = sum(r[3] for r in results)
    print("")
    for kind, name, p, f in results:
        print("%-6s %-60s %4d passed %4d failed" % (kind, name[:60], p, f))
    print("check took %.0f s (ns-3 %s, %s)" % (time.time() - t0, bld.env.NS3_VERSION, bld.env.NS3_PROVIDER))
    print("%d passed, %d failed" % (total_pass, total_fail))
    sys.stdout.flush()
    # the verdict is the last line (waf would add "'check' finished successfully" after it;
    # the build state is already stored when post-build functions run)
    sys.exit(1 if total_fail else 0)


def _hook_check(bld):
    if bld.cmd == "check":
        bld.add_post_fun(_check)
    elif bld.cmd == "compare":
        bld.add_post_fun(_compare)


# run _check after the build when the command is "check"
_orig_build = build


def build(bld):  # noqa: F811 (wraps the build above)
    _orig_build(bld)
    _hook_check(bld)


def shutdown(ctx):
    # `./waf --run NAME` alone means build + run (waf's default command is build)
    pass
