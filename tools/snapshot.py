#!/usr/bin/env python3
"""Runs a fixed set of example invocations and records a digest of every output file.

Used to show that a change leaves results byte-identical (or to see exactly which outputs a
change moves):

    tools/snapshot.py build/snap-before          # on the old commit
    tools/snapshot.py build/snap-after           # on the new one
    tools/snapshot.py --diff build/snap-before build/snap-after

Each run's outputs go to DIR/RUN/; DIR/digests.txt lists `RUN/FILE sha256` per output file.
The keys that legitimately differ between two runs of the same seed are removed before hashing:
`wall_s` (summary.json), `rdma_cc_revision` (config.json: the commit that built the run) and
`profile` (config.json: the build profile, so that a default and a `--build-profile=fast` build
compare); the snapshot directory's own path in them is written as SNAPSHOT, so any two
directories compare.
Needs a built tree (./waf build); RDMACC_BUILD overrides the build directory.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402

ROOT = buildenv.ROOT

# (run name, example, arguments)
RUNS = [
    ("incast-default", "ldcp-incast", ""),
    ("incast-1000", "ldcp-incast", "--senders=1000 --size=16384"),
    ("incast-none", "ldcp-incast", "--cc=none"),
    ("incast-none-pfc", "ldcp-incast", "--cc=none --pfc=1"),
    ("incast-rate", "ldcp-incast", "--cc=ldcp-rate --cnpInterval=2us"),
    ("incast-nofs", "ldcp-incast", "--senders=64 --size=65536 --fastStart=0"),
    ("incast-ack4", "ldcp-incast", "--senders=8 --size=100000 --ackEvery=4"),
    ("churn", "ldcp-churn", "--churn=300us"),
    ("pfc-incast", "pfc-incast", "--senders=8 --size=1000000"),
    ("pfc-incast-off", "pfc-incast", "--senders=8 --size=500000 --pfc=0"),
    ("dumbbell-tcp", "red-ecn-dumbbell", "--senders=4 --transport=tcp --simTime=20ms"),
    ("dumbbell-udp", "red-ecn-dumbbell", "--transport=udp --notEct=ThresholdDrop --kfs=30000 --udpLoad=1.5 --simTime=20ms"),
    ("dcqcn-fairness", "dcqcn-fairness", "--duration=2ms"),
    ("dcqcn-convergence", "dcqcn-convergence", ""),
    ("chain", "ldcp-chain", ""),
    ("timely", "ldcp-incast", "--cc=timely"),
    ("dctcp", "ldcp-incast", "--cc=dctcp"),
    ("fat-tree-dcqcn", "fat-tree-workload", "--k=4 --load=0.5 --duration=200us --cdf=workloads/WebSearch_distribution.txt --cc=dcqcn"),
    ("fat-tree-ldcp", "fat-tree-workload", "--k=4 --load=0.6 --duration=200us --cdf=workloads/FbHdp_distribution.txt"),
    ("rcm-burst", "rcm-burst", ""),
    ("rcm-victim", "rcm-victim", ""),
    ("fat-tree", "fat-tree-workload", "--k=4 --load=0.5 --duration=200us"),
    ("hpcc", "ldcp-incast", "--cc=hpcc"),
    ("dcqcn-hpcc-sim", "ldcp-incast", "--cc=dcqcn --dcqcnPreset=hpcc-sim"),
    ("fat-tree-hpcc", "fat-tree-workload", "--k=4 --load=0.6 --duration=300us --cc=hpcc"),
    ("fat-tree-hpcc-sar", "fat-tree-workload", "--k=4 --load=0.6 --duration=300us --cc=hpcc --rcm=1 --rcmSarMode=packet --pattern=group"),
]

VOLATILE = {"wall_s", "rdma_cc_revision", "profile"}


def drop_volatile(obj):
    if isinstance(obj, dict):
        return {k: drop_volatile(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [drop_volatile(v) for v in obj]
    return obj


def digest(path, outdir):
    """sha256 of the file; of summary.json and config.json without the VOLATILE keys (at any
    depth) and with the snapshot directory's path written as SNAPSHOT, so that two snapshots
    taken into different directories compare"""
    data = open(path, "rb").read()
    if os.path.basename(path) in ("summary.json", "config.json"):
        obj = drop_volatile(json.loads(data))
        data = json.dumps(obj, sort_keys=True).replace(outdir.rstrip("/"), "SNAPSHOT").encode()
    return hashlib.sha256(data).hexdigest()


def snapshot(info, outdir, only):
    os.makedirs(outdir, exist_ok=True)
    env = buildenv.run_env(info)
    lines = []
    for run, ex, args in RUNS:
        if only and run not in only:
            continue
        d = os.path.join(outdir, run)
        cmd = [buildenv.program_path(info, ex)] + args.split() + ["--out=" + d]
        p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        with open(os.path.join(outdir, run + ".log"), "wb") as f:
            f.write(p.stdout)
        print("%-18s exit %d" % (run, p.returncode))
        lines.append("%s/exit %d" % (run, p.returncode))
        # every file under the run's directory (some examples write one subdirectory per
        # configuration they compare)
        for top, dirs, files in os.walk(d):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(top, name)
                lines.append("%s/%s %s" % (run, os.path.relpath(path, d), digest(path, outdir)))
    with open(os.path.join(outdir, "digests.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def diff(a, b):
    la = dict(l.rsplit(" ", 1) for l in open(os.path.join(a, "digests.txt")).read().split("\n") if l)
    lb = dict(l.rsplit(" ", 1) for l in open(os.path.join(b, "digests.txt")).read().split("\n") if l)
    same = 0
    changed = []
    for k in sorted(set(la) | set(lb)):
        if la.get(k) == lb.get(k):
            same += 1
        else:
            changed.append(k)
            print("differs: %s (%s -> %s)" % (k, la.get(k, "missing")[:12], lb.get(k, "missing")[:12]))
    print("%d identical, %d different" % (same, len(changed)))
    return 1 if changed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--diff", action="store_true", help="compare two snapshot directories")
    ap.add_argument("--only", default="", help="comma-separated run names")
    o = ap.parse_args()
    if o.diff:
        if len(o.dirs) != 2:
            ap.error("--diff needs two directories")
        sys.exit(diff(*o.dirs))
    build = os.environ.get("RDMACC_BUILD", os.path.join(ROOT, "build"))
    try:
        info = buildenv.load(build)
    except buildenv.BuildError:
        buildenv.error("%s is not a tree built by ./waf build: build it, or set RDMACC_BUILD to one" % build)
        sys.exit(2)
    snapshot(info, o.dirs[0], set(x for x in o.only.split(",") if x))


if __name__ == "__main__":
    main()
