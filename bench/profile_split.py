#!/usr/bin/env python3
"""Splits a callgrind profile of an rdma-cc run into where the instructions go.

    bench/profile_split.py CALLGRIND_OUT [--hops N] [--events N] [--top 15]

Every function's self instructions (callgrind's exclusive Ir: the calls it makes are counted in
the callees) go to the first category whose rule matches, in this order:

  allocation          malloc, free, operator new/delete and glibc's allocator internals
  logging checks      ns3::LogComponent (the NS_LOG enabled tests) and ns-3's log helpers
  reference counting  Ref/Unref, ns3::Ptr copies and destructors, SimpleRefCount
  Rust crates         functions whose source file is a .rs file (the crates and the bridge's
                      Rust side)
  our C++             functions from ns3-module/ or examples/ (devices, switch, NIC, helpers;
                      the bridge's generated C++ side)
  ns-3 scheduler      ns3::Simulator*, the simulator implementation, the schedulers, EventImpl,
                      EventId, MakeEvent's event classes, Time and int64x64
  ns-3 packet/header  ns3::Packet, Buffer, the headers' (de)serialisation, packet metadata,
                      byte and packet tags, Tag/TagBuffer, Chunk/Header/Trailer
  ns-3 other          the rest of libns3-* (callbacks, objects, nodes, attributes, ...)
  memcpy/memset       libc's memory copies (most are a Buffer's bytes)
  other               the rest (libc, libstdc++, the dynamic loader, set-up)

Prints the split (instructions, share, and per packet-hop / per event with --hops / --events) and
the top functions by inclusive instructions (callgrind_annotate --inclusive=yes gives the same
numbers; this reads the file itself).
"""

import argparse
import collections
import re
import sys

ALLOC = re.compile(
    r"^(malloc|free|calloc|realloc|cfree|_int_malloc|_int_free|malloc_consolidate|unlink_chunk"
    r"|tcache_\w+|__libc_(malloc|free|calloc)|operator new|operator delete|_?int_realloc|sysmalloc)\b"
)
LOG = re.compile(r"ns3::LogComponent::|ns3::(LogTimePrinter|LogNodePrinter|ParameterLogger)|^ns3::Log\w*\(")
REF = re.compile(
    r"::Ref\(\) const|::Unref\(\) const|ns3::SimpleRefCount<|ns3::Ptr<[^(]*>::(Ptr|~Ptr|operator=|Acquire)"
    r"|^ns3::Ptr<|ns3::PeekPointer|ns3::Create<"
)
SCHED = re.compile(
    r"ns3::(Simulator|SimulatorImpl|DefaultSimulatorImpl|DistributedSimulatorImpl|NullMessageSimulatorImpl"
    r"|\w*Scheduler|EventImpl|EventId|Time\b|Time::|int64x64|MakeEvent|EventGarbageCollector|Timer)"
    r"|ns3::MakeEvent|EventMemberImpl|EventFunctionImpl|EventImpl"
)
PACKET = re.compile(
    r"ns3::(Packet|Buffer|PacketMetadata|ByteTagList|PacketTagList|ByteTagIterator|PacketTagIterator"
    r"|Tag\b|TagBuffer|Chunk|Header|Trailer|\w+Header::|\w+Trailer::|EthernetHeader|Ipv4Header|UdpHeader"
    r"|PppHeader|Address|Mac48Address|Ipv4Address|Nix)"
    r"|::Serialize\(|::Deserialize\(|::GetSerializedSize\("
)
MEMCPY = re.compile(r"^(__)?mem(cpy|move|set|cmp)|^__memcpy|^__memmove|^__memset|^__memcmp|^__mempcpy")
ORDER = [
    "allocation",
    "logging checks",
    "reference counting",
    "Rust crates",
    "our C++",
    "ns-3 scheduler",
    "ns-3 packet/header",
    "ns-3 other",
    "memcpy/memset",
    "other",
]


def category(fn, fl, ob):
    base = fn.split("'")[0]
    if ALLOC.search(base):
        return "allocation"
    if LOG.search(base):
        return "logging checks"
    if REF.search(base):
        return "reference counting"
    if fl.endswith(".rs"):
        return "Rust crates"
    if "/ns3-module/" in fl or "/examples/" in fl or fl.startswith(("ns3-module/", "examples/")) or "cxxbridge" in fl:
        return "our C++"
    if SCHED.search(base):
        return "ns-3 scheduler"
    if PACKET.search(base):
        return "ns-3 packet/header"
    if "libns3" in ob:
        return "ns-3 other"
    if MEMCPY.search(base):
        return "memcpy/memset"
    return "other"


def parse(path):
    """(total, self cost by (fn, fl, ob), inclusive cost by fn as seen by its callers, calls)."""
    names = {"fn": {}, "fl": {}, "ob": {}}

    def resolve(kind, spec):
        m = re.match(r"\((\d+)\)(?:\s+(.*))?$", spec.strip())
        if not m:
            return spec.strip()
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), "")

    self_cost = collections.Counter()
    incl = collections.Counter()
    calls = collections.Counter()
    fn = fl = ob = ""
    cfn = ""
    total = None
    after_call = False
    # a recursive function's calls to itself would count twice in its inclusive cost: skipped
    with open(path, errors="replace") as f:
        for line in f:
            if after_call:
                after_call = False
                parts = line.split()
                if cfn != fn:
                    incl[cfn] += int(parts[1]) if len(parts) > 1 else 0
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                if len(parts) > 1:
                    self_cost[(fn, fl, ob)] += int(parts[1])
            elif line.startswith("fn="):
                fn = resolve("fn", line[3:])
            elif line.startswith("fl="):
                fl = resolve("fl", line[3:])
            elif line.startswith(("fi=", "fe=")):
                resolve("fl", line[3:])
            elif line.startswith("ob="):
                ob = resolve("ob", line[3:])
            elif line.startswith("cob="):
                resolve("ob", line[4:])
            elif line.startswith(("cfi=", "cfl=")):
                resolve("fl", line[4:])
            elif line.startswith("cfn="):
                cfn = resolve("fn", line[4:])
            elif line.startswith("calls="):
                after_call = True
                calls[cfn] += int(line[6:].split()[0])
            elif line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split(":", 1)[1].split()[0])
    if total is None:
        total = sum(self_cost.values())
    return total, self_cost, incl, calls


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/profile_split.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("profile")
    ap.add_argument("--hops", type=int, default=0, help="data packet-hops of the run (summary.json data_frame_hops)")
    ap.add_argument("--events", type=int, default=0, help="events of the run (summary.json events)")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args(argv)
    total, self_cost, incl, _ = parse(a.profile)
    by_cat = collections.Counter()
    by_fn_self = collections.Counter()
    fn_cat = {}
    for (fn, fl, ob), c in self_cost.items():
        cat = category(fn, fl, ob)
        by_cat[cat] += c
        by_fn_self[fn] += c
        fn_cat.setdefault(fn, cat)

    def per(c):
        cols = []
        if a.hops:
            cols.append("%.0f" % (c / a.hops))
        if a.events:
            cols.append("%.0f" % (c / a.events))
        return cols

    head = ["category", "instructions", "share"] + (["per packet-hop"] if a.hops else []) + (["per event"] if a.events else [])

    def row(cells):
        print("| " + " | ".join(cells) + " |")

    row(head)
    print("| --- |" + " ---: |" * (len(head) - 1))
    for cat in ORDER:
        c = by_cat[cat]
        row([cat, "{:,}".format(c), "%.1f %%" % (100.0 * c / total)] + per(c))
    row(["total", "{:,}".format(total), "100 %"] + per(total))
    print()
    print("top %d functions by inclusive instructions (self in parentheses):" % a.top)
    print("| function | inclusive | self | category |")
    print("| --- | ---: | ---: | --- |")
    shown = 0
    for fn, c in incl.most_common():
        if fn in ("main", "(below main)", "__libc_start_main", "__libc_start_call_main", "0x0000000000000000", "_start"):
            continue
        if "0x" in fn[:4] or fn.startswith("_dl_") or fn == "":
            continue
        print(
            "| `%s` | %.1f %% | %.1f %% | %s |"
            % (fn[:110], 100.0 * c / total, 100.0 * by_fn_self[fn] / total, fn_cat.get(fn, "-"))
        )
        shown += 1
        if shown >= a.top:
            break
    print()
    print("top %d functions by self instructions:" % a.top)
    print("| function | self | category |")
    print("| --- | ---: | --- |")
    for fn, c in by_fn_self.most_common(a.top):
        print("| `%s` | %.1f %% | %s |" % (fn[:110], 100.0 * c / total, fn_cat.get(fn, "-")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
