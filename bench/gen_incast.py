#!/usr/bin/env python3
"""Writes htsim's side of the ./waf bench incasts: a one-switch topology and the flows.

    bench/gen_incast.py SENDERS SIZE [--out bench/vs-htsim]

Our side is `ldcp-incast --senders=SENDERS --size=SIZE` (hosts 1..SENDERS send SIZE bytes each
to host 0 through one switch, all starting at 0). htsim's main_roce builds fat trees only, so the
one switch is a 2-tier fat tree file whose single ToR has every host below it and one uplink to
one (idle) spine; the flows never leave the ToR. Files (LABEL: 1MB for 1000000, 256KiB for 262144):

  star-N.topo          N = SENDERS + 1 hosts, 100 Gb/s, 1 us links, no switching latency
  incast-SxLABEL.cm    the connection matrix: 1->0 .. SENDERS->0, ids 1..SENDERS, start 0
"""

import argparse
import os
import sys

TOPO = """# ./waf bench: one switch with {n} hosts (bench/gen_incast.py), for htsim_roce -topo
Nodes {n}
Tiers 2
Podsize {n}

Tier 0
Downlink_speed_Gbps 100
Radix_Down {n}
Radix_Up 1
Downlink_Latency_ns 1000
Switch_Latency_ns 0
Oversubscribed {n}

Tier 1
Downlink_speed_Gbps 100
Radix_Down 1
Downlink_Latency_ns 1000
Switch_Latency_ns 0
"""


def label(size):
    if size % 1000000 == 0:
        return "%dMB" % (size // 1000000)
    if size % 1024 == 0:
        return "%dKiB" % (size // 1024)
    return "%dB" % size


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/gen_incast.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("senders", type=int)
    ap.add_argument("size", type=int, help="bytes per sender")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "vs-htsim"))
    a = ap.parse_args(argv)
    if a.senders < 1 or a.size < 1:
        print("gen_incast.py: SENDERS and SIZE must be >= 1", file=sys.stderr)
        return 2
    n = a.senders + 1
    os.makedirs(a.out, exist_ok=True)
    topo = os.path.join(a.out, "star-%d.topo" % n)
    with open(topo, "w") as f:
        f.write(TOPO.format(n=n))
    cm = os.path.join(a.out, "incast-%dx%s.cm" % (a.senders, label(a.size)))
    with open(cm, "w") as f:
        f.write("Nodes %d\nConnections %d\n" % (n, a.senders))
        for s in range(1, n):
            f.write("%d->0 id %d start 0 size %d\n" % (s, s, a.size))
    print("wrote %s and %s" % (topo, cm))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
