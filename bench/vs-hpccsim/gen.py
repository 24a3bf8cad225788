#!/usr/bin/env python3
"""Writes the HPCC simulator's input files for one `./waf bench` scenario.

    bench/vs-hpccsim/gen.py NAME DIR

NAME: incast-16x1MB, incast-64x1MB, incast-256x256KB, incast-1000x64KB or fattree320-dcqcn.
Writes DIR/config.txt (the simulator's `mix/config.txt` format, every path in it absolute),
DIR/trace.txt (no node traced) and, for the incasts, DIR/topology.txt and DIR/flows.txt;
fattree320-dcqcn uses workloads/fat-tree-320.txt and workloads/websearch-320hosts-load30-5ms.flows
unchanged (both are in the simulator's formats). Run the simulator as
`LD_LIBRARY_PATH=simulation/build simulation/build/scratch/third DIR/config.txt` (bench/README.md,
"Against the HPCC simulator").

The incasts: N senders (hosts 1..N) each send SIZE bytes to host 0 through one switch (node N + 1),
100 Gb/s, 1 us links, 1000 B payload, all starting at 0, at line rate (CC_MODE 0: none of the
simulator's schemes, no window, ECN marking off) on the lossless priority 3 with the simulator's
dynamic PFC threshold (1/8 of the free shared buffer, as our XoffBeta 8). Its switch buffer is a
whole number of MiB (BUFFER_SIZE) and it sets aside 3 x rate x delay / 8 of headroom and 4 KiB of
reserve per port (third.cc, switch-mmu.cc): BUFFER_SIZE is the smallest that leaves a shared pool at
least ours (our bench row's buffer less our 28 310 B headroom per port, docs/fabric.md).

fattree320-dcqcn: the simulator's run.py `--cc dcqcn --bw 100` settings (DCQCN, CC_MODE 1): alpha
every 1 us, a cut per 4 us at most, rate-increase timer 300 us, g 1/256, F 1, R_AI 20 Mb/s, R_HAI
200 Mb/s, floor 1 Gb/s, an ACK per packet, ACKs first at the NIC, K_min/K_max/P_max 400/1600 KB/0.2
at 100 Gb/s and 1600/6400 KB/0.2 at 400 Gb/s, 32 MB buffers: what our --dcqcnPreset=hpcc-sim with
its --ecnMap and --buffer=32MB reproduce (ns3-module/doc/rdma-cc.rst).

Both: packet tracing off, the queue-length monitor off (it samples every switch port every 100 ns,
hard-coded; QLEN_MON_START is set after the stop time, so it never runs).
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RATE_BPS = 100_000_000_000
DELAY_NS = 1000
PAYLOAD = 1000
MIB = 1024 * 1024
# ours (docs/fabric.md, "Headroom rule"): 2 x rate x delay + 2 x (MmuMtu + 20) + MmuMtu + 84
OUR_MMU_MTU = PAYLOAD + 62
OUR_HEADROOM = 2 * RATE_BPS * DELAY_NS // 8 // 1_000_000_000 + 2 * (OUR_MMU_MTU + 20) + OUR_MMU_MTU + 84
# the simulator's (third.cc: rate * delay / 8 / 1e9 * 3; switch-mmu.cc: reserve 4 KiB)
PEER_HEADROOM = RATE_BPS * DELAY_NS // 8 // 1_000_000_000 * 3
PEER_RESERVE = 4 * 1024

# name: (senders, bytes each, our bench row's switch buffer in bytes)
INCASTS = {
    "incast-16x1MB": (16, 1_000_000, 12_000_000),
    "incast-64x1MB": (64, 1_000_000, 12_000_000),
    "incast-256x256KB": (256, 262_144, 12_000_000),
    "incast-1000x64KB": (1000, 65_536, 32_000_000),
}
FATTREE = {
    "fattree320-dcqcn": ("workloads/fat-tree-320.txt", "workloads/websearch-320hosts-load30-5ms.flows"),
}
NAMES = list(INCASTS) + list(FATTREE)

# run.py's template, the keys third.cc reads; {..} filled per scenario
CONFIG = """ENABLE_QCN {qcn}
USE_DYNAMIC_PFC_THRESHOLD 1

PACKET_PAYLOAD_SIZE {payload}

TOPOLOGY_FILE {topo}
FLOW_FILE {flows}
TRACE_FILE {dir}/trace.txt
TRACE_OUTPUT_FILE {dir}/mix.tr
FCT_OUTPUT_FILE {dir}/fct.txt
PFC_OUTPUT_FILE {dir}/pfc.txt

SIMULATOR_STOP_TIME {stop}

CC_MODE {mode}
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI 20Mb/s
RATE_HAI 200Mb/s
MIN_RATE 1000Mb/s
DCTCP_RATE_AI 1000Mb/s

ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0

HAS_WIN 0
GLOBAL_T 1
VAR_WIN 0
FAST_REACT 0
U_TARGET 0.95
MI_THRESH 0
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.01
PINT_PROB 1.0

RATE_BOUND 1

ACK_HIGH_PRIO 1

LINK_DOWN 0 0 0

ENABLE_TRACE 0

KMAX_MAP 2 100000000000 1600 400000000000 6400
KMIN_MAP 2 100000000000 400 400000000000 1600
PMAX_MAP 2 100000000000 0.20 400000000000 0.20
BUFFER_SIZE {buffer}
QLEN_MON_FILE {dir}/qlen.txt
QLEN_MON_START {mon}
QLEN_MON_END {mon}
"""


def peer_buffer_mib(ports, our_buffer):
    """The smallest whole MiB whose shared pool (less the simulator's headroom and reserve per
    port) is at least ours (our buffer less our headroom per port)."""
    ours_shared = our_buffer - ports * OUR_HEADROOM
    need = ours_shared + ports * (PEER_HEADROOM + PEER_RESERVE)
    return -(-need // MIB)


def flows_of(name):
    """[(src, dst, bytes, start s)] of scenario NAME, as the simulator's flow file holds them."""
    if name in INCASTS:
        n, size, _ = INCASTS[name]
        return [(s, 0, size, 0.0) for s in range(1, n + 1)]
    flows = []
    with open(os.path.join(ROOT, FATTREE[name][1])) as f:
        count = int(f.readline().split()[0])
        for line in f:
            p = line.split()
            if len(p) >= 6:
                flows.append((int(p[0]), int(p[1]), int(p[4]), float(p[5])))
    if len(flows) != count:
        raise ValueError("%s: %d flows, its first line says %d" % (FATTREE[name][1], len(flows), count))
    return flows


def write(name, out):
    """Writes scenario NAME's files into OUT; returns the path of its config.txt."""
    out = os.path.abspath(out)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "trace.txt"), "w") as f:
        f.write("0\n")
    if name in INCASTS:
        n, size, our_buffer = INCASTS[name]
        switch = n + 1
        topo = os.path.join(out, "topology.txt")
        with open(topo, "w") as f:
            f.write("%d 1 %d\n%d\n" % (n + 2, n + 1, switch))
            for h in range(n + 1):
                f.write("%d %d 100Gbps %dns 0\n" % (h, switch, DELAY_NS))
        flows = os.path.join(out, "flows.txt")
        with open(flows, "w") as f:
            f.write("%d\n" % n)
            for s, d, b, t in flows_of(name):
                f.write("%d %d 3 100 %d %.9f\n" % (s, d, b, t))
        fill = {"qcn": 0, "mode": 0, "stop": "1.00", "buffer": peer_buffer_mib(n + 1, our_buffer), "mon": 2_000_000_000}
    elif name in FATTREE:
        topo, flows = (os.path.join(ROOT, p) for p in FATTREE[name])
        fill = {"qcn": 1, "mode": 1, "stop": "4.00", "buffer": 32, "mon": 5_000_000_000}
    else:
        raise KeyError(name)
    config = os.path.join(out, "config.txt")
    with open(config, "w") as f:
        f.write(CONFIG.format(payload=PAYLOAD, topo=topo, flows=flows, dir=out, **fill))
    return config


def main(argv):
    if len(argv) != 2 or argv[0] not in NAMES:
        print("usage: bench/vs-hpccsim/gen.py NAME DIR, NAME one of: %s" % ", ".join(NAMES), file=sys.stderr)
        return 2
    print(write(argv[0], argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
