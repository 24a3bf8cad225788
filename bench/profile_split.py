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
  ns-3 callbacks      std::function handlers and ns3::Callback (how ns-3 calls a handler)
  ns-3 other          the rest of libns3-* (objects, nodes, attributes, ...)
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
    r"^(malloc|free|calloc|realloc|cfree|_int_malloc|_int_free|malloc_consolidate|unlink_chunk|tcache_\w+"
    r"|__libc_(malloc|free|calloc)|_int_realloc|sysmalloc|operator new|operator delete)"
)
LOG = re.compile(r"^ns3::(LogComponent::|Log[A-Z]\w*|ParameterLogger)")
REF = re.compile(r"::(Ref|Unref)$|^ns3::(Ptr<|SimpleRefCount<|Create<|PeekPointer<)")
PACKET = re.compile(
    r"^ns3::(Packet|Buffer|PacketMetadata|ByteTagList|PacketTagList|ByteTagIterator|PacketTagIterator|Tag"
    r"|TagBuffer|Chunk|Header|Trailer|EthernetHeader|EthernetTrailer|Ipv4Header|UdpHeader|PppHeader)(::|$)"
    r"|::(Serialize|Deserialize|GetSerializedSize|PeekHeader|RemoveHeader|AddHeader)$"
)
SCHED = re.compile(
    r"^ns3::(Simulator|SimulatorImpl|DefaultSimulatorImpl|DistributedSimulatorImpl|NullMessageSimulatorImpl"
    r"|\w*Scheduler|Scheduler|EventImpl|EventId|Time|int64x64_t|MakeEvent|Timer|TimerImpl)(::|<|$)"
    r"|^ns3::(MakeEvent|EventMemberImpl|EventFunctionImpl)|Event\w*Impl\w*::Notify$|^operator[<>=!]+$"
)
CALLBACK = re.compile(r"^std::(_Function_handler|_Function_base|function)<|^ns3::(Callback|CallbackBase|MakeCallback)")
MEMCPY = re.compile(r"^_*(mem(cpy|move|set|cmp)|mempcpy)")
ORDER = [
    "allocation",
    "logging checks",
    "reference counting",
    "Rust crates",
    "ns-3 packet/header",
    "our C++",
    "ns-3 scheduler",
    "ns-3 callbacks",
    "ns-3 other",
    "memcpy/memset",
    "other",
]


def qualified(fn):
    """A function's qualified name without its arguments (and callgrind's 'N recursion mark)."""
    fn = fn.split("'")[0].strip()
    depth = 0
    for i, c in enumerate(fn):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth <= 0 and not fn.startswith("(anonymous", i):
            return fn[:i]
    return fn


def category(fn, fl, ob):
    """The category of a named function ("" for an unnamed one: its heaviest caller's)."""
    q = qualified(fn)
    if q.startswith("0x"):
        return ""
    if ALLOC.search(q):
        return "allocation"
    if LOG.search(q):
        return "logging checks"
    if REF.search(q):
        return "reference counting"
    if fl.endswith(".rs") or q.startswith("rdmacc_ffi$"):
        return "Rust crates"
    if PACKET.search(q):
        return "ns-3 packet/header"
    if "/ns3-module/" in fl or "/examples/" in fl or fl.startswith(("ns3-module/", "examples/")) or "cxxbridge" in fl:
        return "our C++"
    if SCHED.search(q):
        return "ns-3 scheduler"
    if CALLBACK.search(q):
        return "ns-3 callbacks"
    if "libns3" in ob:
        return "ns-3 other"
    if MEMCPY.search(q):
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
    callers = collections.defaultdict(collections.Counter)
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
                cost = int(parts[1]) if len(parts) > 1 else 0
                if cfn != fn:
                    incl[cfn] += cost
                    callers[cfn][fn] += cost
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
    return total, self_cost, incl, calls, callers


def categories(self_cost, callers):
    """Category of every function: its own rule, or (unnamed) its heaviest caller's."""
    own = {}
    for fn, fl, ob in self_cost:
        if fn not in own or not own[fn]:
            own[fn] = category(fn, fl, ob)

    def resolve(fn, seen):
        if own.get(fn):
            return own[fn]
        if fn in seen or not callers.get(fn):
            return "other"
        seen.add(fn)
        return resolve(callers[fn].most_common(1)[0][0], seen)

    return {fn: resolve(fn, set()) for fn in own}


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/profile_split.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("profile")
    ap.add_argument("--hops", type=int, default=0, help="data packet-hops of the run (summary.json data_frame_hops)")
    ap.add_argument("--events", type=int, default=0, help="events of the run (summary.json events)")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args(argv)
    total, self_cost, incl, _, callers = parse(a.profile)
    fn_cat = categories(self_cost, callers)
    by_cat = collections.Counter()
    by_fn_self = collections.Counter()
    for (fn, fl, ob), c in self_cost.items():
        by_cat[fn_cat[fn]] += c
        by_fn_self[fn] += c

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
    print("top %d functions by inclusive instructions (below the wrappers of the whole run):" % a.top)
    print("| function | inclusive | self | category |")
    print("| --- | ---: | ---: | --- |")
    shown = 0
    for fn, c in incl.most_common():
        if fn in ("main", "(below main)", "__libc_start_main", "__libc_start_call_main", "0x0000000000000000", "_start"):
            continue
        if "0x" in fn[:4] or fn.startswith("_dl_") or fn == "" or c > 0.995 * total:
            # unnamed, the loader, and the wrappers of the whole run (main, Simulator::Run, ...)
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
