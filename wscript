# -*- mode: python -*-
"""rdma-cc build: Rust crates + cxx bridge + the ns-3 module, against an installed ns-3.

  ./waf configure [--ns3=auto|system|pypi|mpi|PREFIX]  find ns-3 (auto: system, else PyPI wheel)
                  [--build-profile=default|fast]     fast: NS_LOG/NS_ASSERT out of our C++, -O3
  ./waf build                                        cargo (release) + module + examples + tests
  ./waf --run "NAME args..."                         build if needed, run examples/NAME.cc
  ./waf check [--long] [--only PATTERN]              every test; ends with "N passed, M failed"
  ./waf compare --run "NAME args" [--schemes=...] [--seeds=1,2,3]  one example under several schemes, one table
  ./waf sweep --run "NAME args" --grid N=v1,v2 ...   one example over a grid x seeds, one table
  ./waf plot [--dirs=DIR,DIR...] [--flows=ID,...] [--svg]  PDF/PNG figures from output directories
  ./waf bench [--quick] [--callgrind] [--htsim=PATH] [--hpccsim=PATH [--hpccsim-wide=PATH]]  the benchmark suite (tools/bench.py)
  ./waf docs                                         regenerate docs/reference/ (tools/gen_reference.py)
  ./waf fidelity [--quick] [-j N]                    rerun the papers' claims, write docs/fidelity.md

wscript only builds and runs: `check`, `compare` and `sweep` build, then hand over to
tools/check.py, tools/compare.py and tools/sweep.py; `plot` hands over to tools/plot.py (also runnable by hand on a built tree, see
their --help). See README.md for what each step needs and produces.
"""

import glob
import json
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys

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

# Build profiles (./waf configure --build-profile=NAME): our C++'s defines and optimisation, and
# the cargo profile of the Rust crates (Cargo.toml's [profile.fast]). "fast" compiles NS_LOG and
# NS_ASSERT out of rdma-cc's own C++ and of the ns-3 header code inlined into it
# (Buffer::Iterator's asserts), as ns-3's optimized profile does; invariant checks, ConfigFatal
# and NS_ABORT/NS_FATAL_ERROR stay.
# ns-3's own libraries keep whatever they were built with (configure says what that is).
PROFILES = {
    "default": {"defines": ["NS3_LOG_ENABLE", "NS3_ASSERT_ENABLE"], "opt": "-O2", "cargo": "release"},
    "fast": {"defines": ["NDEBUG"], "opt": "-O3", "cargo": "fast"},
}


def _jobs_option(option, opt_str, value, parser):
    parser.values.jobs = value
    parser.values.sweep_jobs = value


def options(opt):
    opt.load("compiler_cxx")
    opt.add_option(
        "--ns3",
        action="store",
        default="auto",
        dest="ns3",
        help="ns-3 to build against: system (pkg-config / Debian libns3-dev), pypi (the ns3 "
        "wheel installed into .waf-env), mpi (ns-3 3.37 with MPI built from Debian's source "
        "package by tools/ns3-source into ~/.cache/rdma-cc/ns3-src/install: distributed runs), "
        "a PREFIX of an ns-3 installed from source, or auto (system if present, else pypi) "
        "[default: auto]",
    )
    opt.add_option(
        "--build-profile",
        action="store",
        default=None,
        dest="build_profile",
        help="with \"configure\": the build profile: default (NS_LOG and NS_ASSERT on in rdma-cc's "
        "C++, -O2, cargo profile release) or fast (both compiled out of rdma-cc's C++, -O3, NDEBUG, "
        "cargo profile fast: today release as it is); results are the same bytes. "
        "ns-3's own libraries keep their logging and asserts (configure says which) [default: default]",
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
        "--ranks",
        action="store",
        type="int",
        default=0,
        dest="ranks",
        help='with --run: run the example on N MPI ranks (mpirun -np N ... --mpi; needs a build '
        "configured with --ns3=mpi, e.g. --out=build-mpi; see docs/mpi.md)",
    )
    opt.add_option(
        "--schemes",
        action="store",
        default="ldcp,ldcp-rate,dcqcn,hpcc,timely,dctcp,none",
        dest="schemes",
        help='with "compare": comma-separated --cc values to run the example with (SCHEME+rcm: with RCM in the switches)',
    )
    opt.add_option(
        "--grid",
        action="append",
        default=[],
        dest="grid",
        metavar="NAME=v1,v2,...",
        help='with "sweep": an option of the example (no dashes) and its values; repeatable',
    )
    opt.add_option(
        "--seeds",
        action="store",
        default="",
        dest="seeds",
        help='with "sweep": comma-separated --seed values of each grid point [default: 1]; with "compare": run each scheme once per seed (mean and 95%% interval)',
    )
    opt.add_option(
        "--metrics",
        action="store",
        default="",
        dest="metrics",
        help='with "sweep": comma-separated dotted keys into summary.json (see tools/sweep.py --help)',
    )
    # waf's own -j/--jobs (parallel build tasks), redefined to also tell "sweep" and "compare"
    # that the user asked for N runs at a time (their default is the machine's cores)
    opt.add_option(
        "-j",
        "--jobs",
        action="callback",
        callback=_jobs_option,
        type="int",
        default=opt.jobs(),
        dest="jobs",
        help='amount of parallel jobs (%r); with "sweep" and "compare" also runs at a time [default: the cores]; with "fidelity" [default: 2]' % opt.jobs(),
    )
    opt.add_option(
        "--quick",
        action="store_true",
        default=False,
        dest="quick",
        help="with \"bench\": the incasts only; with \"fidelity\": the quick claims",
    )
    opt.add_option(
        "--callgrind",
        action="store_true",
        default=False,
        dest="callgrind",
        help="with \"bench\": also run each scenario under valgrind --tool=callgrind (instructions per event and per packet-hop)",
    )
    opt.add_option(
        "--htsim",
        action="store",
        default="",
        dest="htsim",
        help="with \"bench\": the htsim_roce binary; also run htsim's side of the htsim-* scenarios (bench/README.md)",
    )
    opt.add_option(
        "--hpccsim",
        action="store",
        default="",
        dest="hpccsim",
        help="with \"bench\": the HPCC simulator's built simulation/ directory (or its third program); also run its side of the four incasts and fattree320-dcqcn (bench/README.md)",
    )
    opt.add_option(
        "--hpccsim-wide",
        action="store",
        default="",
        dest="hpccsim_wide",
        help="with \"bench\" and --hpccsim: a build of the HPCC simulator whose switches take 1024 ports, for the incasts of more than 255 senders (bench/README.md)",
    )
    opt.add_option(
        "--long",
        action="store_true",
        default=False,
        dest="long",
        help="with \"check\": also run the long tests (RDMACC_LONG=1)",
    )
    opt.add_option(
        "--only",
        action="store",
        default="",
        dest="only",
        help="with \"check\": only the checks whose name contains PATTERN (see tools/check.py --help); with \"bench\": only these comma-separated scenarios",
    )
    opt.add_option(
        "--dirs",
        action="store",
        default="",
        dest="plot_dirs",
        help='with "plot": comma-separated output directories to draw [default: results/]',
    )
    opt.add_option(
        "--flows",
        action="store",
        default="",
        dest="plot_flows",
        help='with "plot": comma-separated flow ids of the per-run throughput and window figures [default: the 8 longest-lived]',
    )
    opt.add_option(
        "--svg",
        action="store_true",
        default=False,
        dest="plot_svg",
        help='with "plot": write SVG beside PDF and PNG',
    )
    opt.add_option(
        "--cargo-offline",
        action="store_true",
        default=False,
        dest="cargo_offline",
        help="pass --offline to cargo",
    )


def init(ctx):
    """Before any command: refuse an unknown --build-profile in one line, before configure
    writes anything (optparse's choices would print the whole help first)."""
    profile = getattr(Options.options, "build_profile", None)
    if profile is not None and profile not in PROFILES:
        sys.stderr.write("invalid --build-profile = %s: must be %s\n" % (profile, " or ".join(sorted(PROFILES))))
        sys.exit(2)


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


def _ns3_library_checks(libdir, libprefix, libsuffix):
    """What ns-3's own network library was compiled with, read from its bytes: (logging, asserts).

    Logging: it imports LogComponent::IsEnabled (every NS_LOG statement calls it). Asserts: it
    holds NS_ASSERT's message ('assert failed. cond="' up to 3.40, 'NS_ASSERT failed, cond="'
    after). Either is compiled in or out when ns-3 is built (its debug/default profiles: in; its
    release/optimized profiles: out), whatever our build does."""
    path = os.path.join(libdir, "lib%snetwork%s.so" % (libprefix, libsuffix))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None, None
    logging = b"_ZNK3ns312LogComponent9IsEnabledENS_8LogLevelE" in data
    asserts = b'assert failed. cond="' in data or b'NS_ASSERT failed, cond="' in data
    return logging, asserts


def configure(conf):
    conf.load("compiler_cxx")
    profile = getattr(Options.options, "build_profile", None) or "default"
    prof = PROFILES[profile]
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
    mpi = spec == "mpi"
    if mpi:
        # ns-3 3.37 with MPI from Debian's source package, provisioned and built once into a
        # cached prefix by tools/ns3-source (the build tools/dropin-check uses too)
        tool = os.path.join(conf.path.abspath(), "tools", "ns3-source")
        Logs.pprint("CYAN", "tools/ns3-source: ns-3 3.37 with MPI (a cold build takes ~6 min on 2 cores)")
        try:
            out = conf.cmd_and_log([tool, "--quiet"], quiet=Context.BOTH)
        except Errors.WafError as e:
            conf.fatal(
                "--ns3=mpi: tools/ns3-source failed:\n%s\n(see its log, ~/.cache/rdma-cc/ns3-src.log)"
                % ((getattr(e, "stdout", "") or "") + (getattr(e, "stderr", "") or ""))
            )
        m = re.search(r"^ns3-source: prefix (.+)$", out, re.M)
        if not m:
            conf.fatal("--ns3=mpi: tools/ns3-source printed no prefix:\n" + out)
        spec = m.group(1).strip()
    if not found and spec not in ("auto", "system", "pypi"):
        provider = "mpi" if mpi else "prefix"
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
    conf.msg(
        "Build profile",
        profile
        + (
            " (NS_LOG and NS_ASSERT compiled out of rdma-cc's C++, %s, NDEBUG; cargo profile %s)"
            % (prof["opt"], prof["cargo"])
            if profile == "fast"
            else " (NS_LOG and NS_ASSERT on in rdma-cc's C++, %s; cargo profile %s)" % (prof["opt"], prof["cargo"])
        ),
    )
    ns3_logging, ns3_asserts = _ns3_library_checks(libdir, libprefix, libsuffix)
    if ns3_logging is None:
        conf.msg("ns-3's own libraries", "cannot tell their logging and asserts", color="YELLOW")
    else:
        kept = [w for w, on in (("logging", ns3_logging), ("asserts", ns3_asserts)) if on]
        conf.msg(
            "ns-3's own libraries",
            "logging %s, asserts %s" % ("on" if ns3_logging else "off", "on" if ns3_asserts else "off"),
            color="YELLOW" if kept else "GREEN",
        )
        if profile == "fast" and kept:
            how = {
                "system": "Debian's package is built that way",
                "pypi": "PyPI's wheel is built that way",
            }.get(provider, "that ns-3 was built that way")
            Logs.pprint(
                "YELLOW",
                "--build-profile=fast: what remains: ns-3's own libraries keep their %s (%s): the "
                "fast profile compiles NS_LOG and NS_ASSERT out of rdma-cc's code and of the ns-3 "
                "header code inlined into it only. An ns-3 built with its own "
                "--build-profile=optimized (then ./waf configure --ns3=PREFIX) has neither."
                % (" and ".join(kept), how),
            )

    libs = []
    for m in NS3_MODULES + (["mpi"] if mpi else []):
        name = "%s%s%s" % (libprefix, m, libsuffix)
        if not os.path.exists(os.path.join(libdir, "lib%s.so" % name)):
            conf.fatal("ns-3 module library lib%s.so is missing in %s" % (name, libdir))
        libs.append(name)

    env = conf.env
    env.RDMACC_PROFILE = profile
    env.CARGO_PROFILE = prof["cargo"]
    env.NS3_PROVIDER = provider
    env.NS3_VERSION = "%d.%d" % version
    env.NS3_LIBDIR = libdir
    env.CXX_STD = std
    env.INCLUDES_NS3 = [incdir]
    env.LIBPATH_NS3 = [libdir]
    env.LIB_NS3 = libs
    env.RPATH_NS3 = [libdir]
    # pkg-config does not pass these; without NS3_LOG_ENABLE, NS_LOG in our code is dead
    # (--build-profile=fast: on purpose). The one ns-3 header whose layout depends on it,
    # udp-client.h (3.37 to 3.44), is not used here.
    env.DEFINES_NS3 = prof["defines"] + [
        "RDMACC_NS3_VERSION=%d" % (version[0] * 100 + version[1]),
    ]
    env.NS3_MPI = mpi
    if mpi:
        # QbbRemoteChannel and the distributed runs; MPI's flags from its compiler wrapper
        env.DEFINES_NS3.append("NS3_MPI")
        mpicxx = conf.find_program("mpicxx", var="MPICXX", mandatory=False)
        if not mpicxx:
            conf.fatal("--ns3=mpi: mpicxx not found (apt-get install libopenmpi-dev openmpi-bin)")
        comp = conf.cmd_and_log(mpicxx + ["--showme:compile"], quiet=Context.BOTH).split()
        link = conf.cmd_and_log(mpicxx + ["--showme:link"], quiet=Context.BOTH).split()
        env.append_value("INCLUDES_NS3", [f[2:] for f in comp if f.startswith("-I")])
        env.append_value("CXXFLAGS_NS3", [f for f in comp if not f.startswith("-I")])
        env.append_value("LIBPATH_NS3", [f[2:] for f in link if f.startswith("-L")])
        env.append_value("LIB_NS3", [f[2:] for f in link if f.startswith("-l")])
        env.append_value("LINKFLAGS_NS3", [f for f in link if not f.startswith(("-L", "-l"))])
    env.append_value("CXXFLAGS", ["-std=" + std, prof["opt"], "-g", "-fPIC", "-Wall", "-Wno-unused-parameter"])
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


def _buildenv(ctx):
    """tools/buildenv.py: how cargo and the built programs are run (by the build, --run, tools)."""
    tools = os.path.join(ctx.path.abspath(), "tools")
    if tools not in sys.path:
        sys.path.insert(0, tools)
    import buildenv

    return buildenv


def _build_info(ctx):
    """What tools/ need to run cargo and the built programs (BUILD/rdma-cc-build.json)."""
    env = ctx.env
    return {
        "cargo": list(env.CARGO),
        "cargo_target": env.CARGO_TARGET,
        "cxx_std": env.CXX_STD,
        "ns3_libdirs": list(env.RPATH_NS3),
        "ns3_version": env.NS3_VERSION,
        "ns3_provider": env.NS3_PROVIDER,
        "profile": env.RDMACC_PROFILE or "default",
    }


def _write_build_info(bld):
    text = json.dumps(_build_info(bld), indent=1, sort_keys=True) + "\n"
    node = bld.bldnode.make_node(_buildenv(bld).INFO_FILE)
    if not os.path.exists(node.abspath()) or node.read() != text:
        node.write(text)


def _write_revision(bld):
    """BUILD/include/rdma-cc-revision.h: the checkout's revision (git describe --always --dirty)
    and the build profile (./waf configure --build-profile), that config.json records; rewritten
    only when it changed, so that only
    helper/rdma-cc-revision.cc is compiled again."""
    try:
        rev = subprocess.check_output(
            ["git", "-C", bld.path.abspath(), "describe", "--always", "--dirty", "--abbrev=12"],
            stderr=subprocess.DEVNULL,
        ).decode().strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown"
    text = '#define RDMACC_REVISION "%s"\n#define RDMACC_PROFILE "%s"\n' % (
        rev.replace('"', ""),
        bld.env.RDMACC_PROFILE or "default",
    )
    node = bld.bldnode.make_node("include/rdma-cc-revision.h")
    if not os.path.exists(node.abspath()) or node.read() != text:
        node.parent.mkdir()
        node.write(text)
    return node


def _cargo_profile(env):
    """The cargo profile of this build directory's profile (its target/ subdirectory's name)."""
    return env.CARGO_PROFILE or "release"


def _cargo_build(task):
    bld = task.generator.bld
    cmd = bld.env.CARGO + ["build", "--profile", _cargo_profile(bld.env), "--locked", "-p", "rdma-cc"]
    if Options.options.cargo_offline:
        cmd.append("--offline")
    return bld.exec_command(cmd, cwd=bld.path.abspath(), env=_buildenv(bld).cargo_env(_build_info(bld)))


def _bridge_headers_sig(inc_dir):
    """A function giving the digest of every cxx-generated bridge header under INC_DIR (the
    generated files and the links to them), read when waf computes the signatures of the C++
    tasks, after cargo has run. waf does not scan headers that no task of its own produced, so
    without it a changed bridge struct would leave objects compiled against the old layout:
    C++ and Rust would disagree on the struct's size, silently."""
    cache = {}

    def sig():
        if "sig" not in cache:
            h = hashlib.sha1()
            for root, dirs, files in os.walk(inc_dir, followlinks=True):
                dirs.sort()
                for f in sorted(files):
                    path = os.path.join(root, f)
                    h.update(os.path.relpath(path, inc_dir).encode())
                    with open(path, "rb") as fh:
                        h.update(fh.read())
            cache["sig"] = h.digest()
        return cache["sig"]

    return sig


def build(bld):
    env = bld.env
    asked = getattr(Options.options, "build_profile", None)
    if asked and asked != (env.RDMACC_PROFILE or "default"):
        # --build-profile is configure's: refuse it rather than build another profile than asked
        Logs.error(
            "--build-profile=%s: %s is configured with --build-profile=%s; run ./waf configure --build-profile=%s%s first"
            % (
                asked,
                bld.bldnode.abspath(),
                env.RDMACC_PROFILE or "default",
                asked,
                " --out=" + Options.options.out if Options.options.out else "",
            )
        )
        sys.exit(2)
    rel = os.path.join(env.CARGO_TARGET, _cargo_profile(env))
    rust_lib = os.path.join(rel, "librdma_cc.a")
    cxxbridge_inc = os.path.join(rel, "cxxbridge", "include")
    _write_build_info(bld)
    revision = _write_revision(bld)

    # group 1: Rust static library and the generated bridge headers; ns-3-style headers: as in
    # ns-3's own CMake build (>= 3.36), include/ns3/NAME.h is a stub that includes the source
    # header, so a header's own quoted includes resolve from its source directory exactly as
    # they do when the module is built inside an ns-3 tree (a model header is "ns3/NAME.h"
    # from helper/, whatever build compiles it)
    bld(rule=_cargo_build, always=True, name="cargo", color="YELLOW")
    headers = bld.path.ant_glob("ns3-module/model/*.h ns3-module/helper/*.h")
    stub_dir = bld.bldnode.make_node("include/ns3")
    for h in headers:
        rel_src = os.path.relpath(h.abspath(), stub_dir.abspath())
        bld(
            rule=lambda t, src=rel_src: t.outputs[0].write('#include "%s"\n' % src),
            target="include/ns3/" + h.name,
            vars=["RDMACC_STUB_" + h.name.replace("-", "_").replace(".", "_")],
        )
        bld.env["RDMACC_STUB_" + h.name.replace("-", "_").replace(".", "_")] = rel_src
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

    # group 2: the module library, the test runner, the examples, the benchmarks
    # as in ns3-module/CMakeLists.txt: the module's sources see model/ and helper/; its users
    # (tests, examples, benchmarks) only include/ns3/ and the bridge headers
    inc = [bld.bldnode.make_node("include").abspath(), cxxbridge_inc]
    module_src = bld.path.ant_glob("ns3-module/model/*.cc ns3-module/helper/*.cc")
    bld.shlib(
        source=module_src,
        target="lib/ns3-rdma-cc",
        includes=inc + ["ns3-module/model", "ns3-module/helper"],
        use="NS3",
        stlib=["rdma_cc"],
        stlibpath=[rel],
        lib=["pthread", "dl", "m"],
        # no undefined symbols; the Rust library's symbols stay inside (not exported)
        linkflags=["-Wl,--no-undefined", "-Wl,--exclude-libs,ALL"],
        defines=["RDMACC_HAS_REVISION"],
        name="ns3-rdma-cc",
    )
    bld.add_manual_dependency(bld.path.find_node("ns3-module/helper/rdma-cc-revision.cc"), revision)
    # relink when the Rust library changes
    bld.add_manual_dependency(bld.path.find_or_declare("lib/libns3-rdma-cc.so"), bld.root.make_node(rust_lib))
    # recompile every C++ file when a bridge header changes (see _bridge_headers_sig)
    bridge_sig = _bridge_headers_sig(cxxbridge_inc)
    for src in module_src + bld.path.ant_glob("ns3-module/test/*.cc examples/*.cc bench/*.cc"):
        bld.add_manual_dependency(src, bridge_sig)

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
    # bench/NAME.cc: programs that call the bridge directly (not through the module, whose
    # Rust symbols are hidden), so they link the Rust static library themselves
    for src in bld.path.ant_glob("bench/*.cc"):
        name = src.name[:-3]
        bld.program(
            source=[src],
            target="bench/" + name,
            includes=inc,
            use="ns3-rdma-cc NS3",
            stlib=["rdma_cc"],
            stlibpath=[rel],
            lib=["pthread", "dl", "m"],
            rpath=rpath,
        )
        bld.add_manual_dependency(bld.path.find_or_declare("bench/" + name), bld.root.make_node(rust_lib))

    if Options.options.ranks and not (Options.options.run and bld.cmd == "build"):
        Logs.error('--ranks=%d: only with --run "EXAMPLE args" (see docs/mpi.md)' % Options.options.ranks)
        sys.exit(2)
    if Options.options.run and bld.cmd == "build":
        bld.add_post_fun(_run_program)
    elif bld.cmd == "check":
        bld.add_post_fun(_check)
    elif bld.cmd == "compare":
        bld.add_post_fun(_compare)
    elif bld.cmd == "sweep":
        bld.add_post_fun(_sweep)
    elif bld.cmd == "bench":
        bld.add_post_fun(_bench)
    elif bld.cmd == "docs":
        bld.add_post_fun(_docs)
    elif bld.cmd == "fidelity":
        bld.add_post_fun(_fidelity)


def _run_program(bld):
    be = _buildenv(bld)
    info = dict(_build_info(bld), build=bld.bldnode.abspath())
    argv = shlex.split(Options.options.run)
    name = argv[0]
    prog = be.program_path(info, name, bld.path.abspath())
    if not prog:
        names = sorted(be.programs(bld.path.abspath()))
        Logs.error("unknown example %r; the examples are: %s" % (name, ", ".join(names)))
        sys.exit(2)
    cmd, env = [prog] + argv[1:], be.run_env(info)
    if Options.options.ranks:
        cmd, env = _mpi_command(bld, info, cmd, env)
    Logs.pprint("CYAN", "running %s" % " ".join(cmd))
    rc = subprocess.call(cmd, env=env, cwd=bld.path.abspath())
    if rc != 0:
        sys.exit(rc)


def _mpi_command(bld, info, cmd, env):
    """--ranks=N: the mpirun command line that runs CMD on N ranks with --mpi (one line and exit
    status 2 when the build or the example cannot run distributed)."""
    n = Options.options.ranks
    if n < 1:
        Logs.error("--ranks=%d: must be at least 1" % n)
        sys.exit(2)
    if info.get("ns3_provider") != "mpi":
        Logs.error(
            '--ranks=%d: %s is built against ns-3 without MPI (%s); configure an MPI build and run it: '
            './waf configure --ns3=mpi --out=build-mpi && ./waf --run "..." --ranks=%d --out=build-mpi'
            % (n, bld.bldnode.abspath(), info.get("ns3_provider"), n)
        )
        sys.exit(2)
    mpirun = shutil.which("mpirun")
    if not mpirun:
        Logs.error("--ranks=%d: mpirun not found (apt-get install openmpi-bin)" % n)
        sys.exit(2)
    helptext = subprocess.run([cmd[0], "--help"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              universal_newlines=True).stdout
    if "--mpi" not in helptext:
        Logs.error("--ranks=%d: %s does not run distributed (fat-tree-workload does, see docs/mpi.md)"
                   % (n, os.path.basename(cmd[0])))
        sys.exit(2)
    # the MPI build finds its ns-3 by RUNPATH, which LD_LIBRARY_PATH would override
    env = {k: v for k, v in env.items() if k != "LD_LIBRARY_PATH"}
    root = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    mpi = [] if any(a == "--mpi" or a.startswith("--mpi=") for a in cmd[1:]) else ["--mpi"]
    return [mpirun, "-np", str(n), "--oversubscribe"] + root + cmd + mpi, env


# ---------------------------------------------------------------------------------------------
# check, compare and sweep: build, then hand over to the tools (tools/check.py, compare.py,
# sweep.py)


class CheckContext(Build.BuildContext):
    """build, then run cargo tests, the ns-3 TestSuites, program smoke runs and tests/*.py"""

    cmd = "check"
    fun = "build"


class CompareContext(Build.BuildContext):
    """build, then run --run "EXAMPLE args" once per --schemes and print one table"""

    cmd = "compare"
    fun = "build"


class BenchContext(Build.BuildContext):
    """build, then run the benchmark suite (tools/bench.py; --quick: the incasts only)"""

    cmd = "bench"
    fun = "build"


class SweepContext(Build.BuildContext):
    """build, then run --run "EXAMPLE args" over every --grid value x --seeds and print one table"""

    cmd = "sweep"
    fun = "build"


class DocsContext(Build.BuildContext):
    """build, then regenerate docs/reference/ and rdma-cc.rst's attribute list (tools/gen_reference.py)"""

    cmd = "docs"
    fun = "build"


class FidelityContext(Build.BuildContext):
    """build, then rerun the papers' claims and write docs/fidelity.md (tools/fidelity.py)"""

    cmd = "fidelity"
    fun = "build"


def _tool(bld, script, args):
    """Runs tools/SCRIPT on this build directory with the Python running waf; returns its status.

    The tool reads everything else it needs (cargo, its target directory, the library paths)
    from the build directory's description, as when it is run by hand."""
    cmd = [sys.executable, os.path.join(bld.path.abspath(), "tools", script), "--build", bld.bldnode.abspath()]
    sys.stdout.flush()
    sys.stderr.flush()
    return subprocess.call(cmd + args, cwd=bld.path.abspath())


def _check(bld):
    o = Options.options
    args = ["--cargo-offline"] if o.cargo_offline else []
    args += ["--long"] if o.long else []
    args += ["--only", o.only] if o.only else []
    # the verdict is the tool's last line: exit here, before waf would add "'check' finished
    # successfully" (the build state is already stored when post-build functions run)
    sys.exit(_tool(bld, "check.py", args))


def _compare(bld):
    o = Options.options
    args = (["--run", o.run] if o.run else []) + ["--schemes", o.schemes] + (["--seeds", o.seeds] if o.seeds else [])
    args += ["--jobs", str(o.sweep_jobs)] if getattr(o, "sweep_jobs", None) else []
    rc = _tool(bld, "compare.py", args)
    if rc != 0:
        sys.exit(rc)


class PlotContext(Context.Context):
    """turn output directories (--dirs, default results/) into PDF and PNG figures (tools/plot.py)"""

    cmd = "plot"
    fun = "plot"


def plot(ctx):
    # no build needed: the figures come from the outputs; matplotlib goes into .waf-env (the
    # Python running waf) on first use
    o = Options.options
    dirs = [d for d in o.plot_dirs.split(",") if d]
    extra = (["--flows=" + o.plot_flows] if o.plot_flows else []) + (["--svg"] if o.plot_svg else [])
    cmd = [sys.executable, os.path.join(ctx.path.abspath(), "tools", "plot.py")] + extra + dirs
    sys.stdout.flush()
    rc = subprocess.call(cmd, cwd=ctx.path.abspath())
    if rc != 0:
        sys.exit(rc)


def _bench(bld):
    o = Options.options
    args = (["--quick"] if o.quick else []) + (["--only", o.only] if o.only else [])
    args += (["--callgrind"] if o.callgrind else []) + (["--htsim", o.htsim] if o.htsim else [])
    args += ["--hpccsim", o.hpccsim] if o.hpccsim else []
    args += ["--hpccsim-wide", o.hpccsim_wide] if o.hpccsim_wide else []
    rc = _tool(bld, "bench.py", args)
    if rc != 0:
        sys.exit(rc)


def _docs(bld):
    rc = _tool(bld, "gen_reference.py", [])
    if rc != 0:
        sys.exit(rc)


def _fidelity(bld):
    o = Options.options
    args = (["--quick"] if o.quick else []) + ["--jobs", str(getattr(o, "sweep_jobs", None) or 2)]
    rc = _tool(bld, "fidelity.py", args)
    if rc != 0:
        sys.exit(rc)


def _sweep(bld):
    o = Options.options
    if o.out and os.path.abspath(o.out) != bld.bldnode.abspath():
        # waf's --out is the build directory; the sweep's output directory is the tool's
        Logs.error(
            "./waf sweep: --out is waf's build directory; for another output directory than "
            "results/sweep/EXAMPLE/ run tools/sweep.py --out DIR (same options)"
        )
        sys.exit(2)
    args = ["--run", o.run] if o.run else []
    for g in o.grid:
        args += ["--grid", g]
    args += ["--seeds", o.seeds] if o.seeds else []
    args += ["--metrics", o.metrics] if o.metrics else []
    args += ["--jobs", str(o.sweep_jobs)] if getattr(o, "sweep_jobs", None) else []
    rc = _tool(bld, "sweep.py", args)
    if rc != 0:
        sys.exit(rc)
