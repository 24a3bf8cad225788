#!/usr/bin/env python3
"""Writes the k-ary fat tree permutation of ./waf bench in both simulators' formats.

    bench/gen_permutation.py [--k 8] [--size 2000000] [--seed 29] [--out bench/vs-htsim]

Every host sends SIZE bytes to one other host, every host receives one flow, all start at 0.
The permutation is drawn exactly as htsim's sim/datacenter/connection_matrices/gen_permutation.py
draws it (Python's random.seed(SEED), shuffle the sources, shuffle the destinations, swap a
self-send with the next destination), so `python3 gen_permutation.py perm.cm 128 128 2000000 0 29`
there gives the same connections. Two files, the same flows in the same order (SIZE: 2MB for
2000000, else in bytes, 200000B):

  perm-kK-NxSIZE.flows    the HPCC simulator's flow file for `fat-tree-workload --k=K --flows=`:
                          line 1 the count, then `src dst priority dport bytes start_seconds`,
                          src and dst are fat-tree node ids (cores first, then pod by pod the
                          aggregation switches, then each edge switch followed by its hosts: the
                          numbering of rust/workload/src/fat_tree.rs)
  perm-kK-NxSIZE.cm       htsim's connection matrix for `htsim_roce -nodes N -tm`: hosts 0..N-1
                          (host h under ToR h / (k/2), in pod h / (k^2/4), as in both simulators)
"""

import argparse
import os
import random
import sys


def permutation(nodes, seed):
    """(src, dst) host pairs, htsim's gen_permutation.py algorithm with random.seed(seed)."""
    srcs = list(range(nodes))
    dsts = list(range(nodes))
    random.seed(seed)
    random.shuffle(srcs)
    random.shuffle(dsts)
    for n in range(nodes):
        if srcs[n] == dsts[n]:
            i = (n + 1) % nodes
            dsts[n], dsts[i] = dsts[i], dsts[n]
    pairs = list(zip(srcs, dsts))
    if any(s == d for s, d in pairs):
        raise SystemExit("gen_permutation.py: seed %d leaves a host sending to itself; pick another --seed" % seed)
    return pairs


def node_id(k, host):
    """The fat-tree node id of host index HOST (rust/workload/src/fat_tree.rs numbering)."""
    h = k // 2
    pod, in_pod = divmod(host, h * h)
    edge, slot = divmod(in_pod, h)
    pod_base = h * h + pod * (h + h * (1 + h))
    return pod_base + h + edge * (1 + h) + 1 + slot


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/gen_permutation.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=8, help="fat tree radix (even, >= 2)")
    ap.add_argument("--size", type=int, default=2000000, help="bytes per flow")
    ap.add_argument("--seed", type=int, default=29, help="random.seed of the permutation (not 0)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "vs-htsim"), help="output directory")
    a = ap.parse_args(argv)
    if a.k < 2 or a.k % 2:
        print("gen_permutation.py: invalid --k %d: must be even and >= 2" % a.k, file=sys.stderr)
        return 2
    if a.size < 1:
        print("gen_permutation.py: invalid --size %d: must be >= 1" % a.size, file=sys.stderr)
        return 2
    if a.seed == 0:
        print("gen_permutation.py: invalid --seed 0: htsim's script takes 0 as 'unseeded'", file=sys.stderr)
        return 2
    nodes = a.k**3 // 4
    pairs = permutation(nodes, a.seed)
    label = "%dMB" % (a.size // 1000000) if a.size % 1000000 == 0 else "%dB" % a.size
    base = os.path.join(a.out, "perm-k%d-%dx%s" % (a.k, nodes, label))
    with open(base + ".flows", "w") as f:
        f.write("%d\n" % len(pairs))
        for s, d in pairs:
            f.write("%d %d 3 100 %d 0\n" % (node_id(a.k, s), node_id(a.k, d), a.size))
    with open(base + ".cm", "w") as f:
        f.write("Nodes %d\nConnections %d\n" % (nodes, len(pairs)))
        for n, (s, d) in enumerate(pairs):
            f.write("%d->%d id %d start 0 size %d\n" % (s, d, n + 1, a.size))
    print("wrote %s.flows and %s.cm (%d flows)" % (base, base, len(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
