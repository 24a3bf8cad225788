/*
 * class-hol: a lossless storage class and a lossy class on one fabric, and the PFC
 * head-of-line blocking of the lossy class's traffic when it shares the storage class's
 * priority (docs/classes.md).
 *
 *   ./waf --run class-hol
 *   ./waf --run "class-hol --senders=16 --cc=dcqcn"
 *
 * Topology: a dumbbell, --senders hosts on switch A, 2 on switch B, one link of --abRate
 * (400 Gb/s) between the switches, the host links --rate. The storage class: every host under A
 * sends to R (the first host under B), an incast that lasts the whole run, on priority 3
 * (lossless, --pfc=3). The other flow, V, goes from the first host under A (which also sends a
 * storage flow) to the other host under B: nothing on its path is congested but its sender's
 * link and the link A-B, which it shares with the incast.
 *
 * Two cases, each in OUT/CASE/:
 *   one-class    V on priority 3 too (the fabric has one lossless class): the PAUSEs for R's
 *                queue stop V as well, at switch A and at its sender's NIC (head-of-line
 *                blocking)
 *   two-classes  V on --otherPriority (lossy): PFC pauses only priority 3, at the switches and
 *                at the NIC, whose paused storage class does not hold V back
 * The tables give each case's throughputs over the last half of the run (storage, other) and,
 * per class, the drops, PAUSE frames and paused time; each case's summary.json breaks FCT, drops
 * and PAUSEs down by class (`classes`) when it has two.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
const char* const kName = "class-hol";
const char* const kHelp =
    "A lossless storage class (priority 3: an incast of --senders to one host) and another "
    "flow on a dumbbell, run twice: the other flow on priority 3 as well (one lossless class: "
    "PFC's head-of-line blocking stops it) and on --otherPriority, lossy (two classes: it "
    "keeps sending). Prints each case's throughput, drops and PAUSEs per class.";

const uint8_t kStorage = 3; //!< the storage class's priority

void
Declare(RdmaScenario& sc)
{
    sc.Opts()
        .Default("cc", "none")
        .Default("pfc", "3")
        .Default("sample", "10us")
        .Count("senders", 8, "storage senders of the incast", rdmacc::Options::Range::Closed(2, 64))
        .Count("otherPriority",
               1,
               "two-classes case: the other flow's priority (lossy unless --pfc names it)",
               rdmacc::Options::Range::Closed(0, 7))
        .Rate("abRate", "400Gbps", "rate of the link between the two switches")
        .Duration(
            "duration", "2ms", "simulated time of each case", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "50us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0));
}

/// The throughput of one group of flows of one case.
struct FlowRow
{
    std::string caseName;
    std::string group;
    uint8_t prio = 0;
    double bps = 0;
};

/// One priority of one case.
struct ClassRow
{
    std::string caseName;
    uint8_t prio = 0;
    bool lossless = false;
    uint64_t drops = 0;
    uint64_t pauses = 0;
    double pausedUs = 0;
};

int
RunCase(rdmacc::MultiCase& mc,
        const std::string& name,
        bool shared,
        std::vector<FlowRow>& flowRows,
        std::vector<ClassRow>& classRows)
{
    const auto owner = mc.Open(name, {});
    RdmaScenario& sc = *owner;
    const Time duration = sc.Opts().GetTime("duration");
    const auto senders = static_cast<uint32_t>(sc.Opts().GetCount("senders"));
    const auto other =
        shared ? kStorage : static_cast<uint8_t>(sc.Opts().GetCount("otherPriority"));
    // hosts 0 .. senders - 1 on switch A, senders (R) and senders + 1 on switch B; the link
    // A-B is faster than the hosts' (--abRate): only PFC can hold the other flow back
    const DataRate ab(sc.Opts().GetRate("abRate"));
    sc.BuildFabric([&](FabricHelper& fh) { return fh.Dumbbell(senders, 2, ab); }, senders + 1);
    const uint32_t r = senders;
    const uint64_t size = sc.OutlastingBytes(duration);
    std::vector<uint32_t> storage;
    for (uint32_t h = 0; h < senders; h++)
    {
        storage.push_back(sc.AddFlow(h, r, size, Seconds(0), kStorage));
    }
    // V from host 0, whose NIC also sends a storage flow
    const uint32_t v = sc.AddFlow(0, senders + 1, size, Seconds(0), other);
    sc.SetBottleneckToward(sc.fabric.switches.at(1), r);
    sc.EnableRateSeries(sc.Opts().GetTime("rateSample"));
    sc.RunFor(duration);

    const Time half = duration / 2;
    double storageBps = 0;
    for (uint32_t id : storage)
    {
        storageBps += sc.RateBetween(id, half, duration);
    }
    const double otherBps = sc.RateBetween(v, half, duration);
    flowRows.push_back({name, "storage", kStorage, storageBps});
    flowRows.push_back({name, "other", other, otherBps});
    for (uint8_t p :
         shared ? std::vector<uint8_t>{kStorage} : std::vector<uint8_t>{kStorage, other})
    {
        classRows.push_back({name,
                             p,
                             ((sc.PfcMask() >> p) & 1u) != 0,
                             sc.dropsByPrio[p],
                             sc.PauseFrames(p),
                             double(sc.PausedTime(p).GetNanoSeconds()) / 1e3});
    }
    const uint64_t storagePauses = sc.PauseFrames(kStorage);
    // how long V's sender's NIC had its storage class paused by switch A
    const int64_t senderPausedNs =
        sc.fabric.hostDevices[0]->GetPausedTime(kStorage).GetNanoSeconds();
    rdmacc::JsonObject extra;
    extra.UInt("senders", senders)
        .UInt("other_priority", other)
        .UInt("duration_ns", duration.GetNanoSeconds())
        .Num("storage_bps", storageBps)
        .Num("other_bps", otherBps);
    const int status = rdmacc::MultiCase::Close(sc, extra);
    rdmacc::JsonObject c;
    c.UInt("other_priority", other)
        .Num("storage_bps", storageBps)
        .Num("other_bps", otherBps)
        .UInt("storage_pause_frames", storagePauses)
        .Int("sender_storage_paused_ns", senderPausedNs)
        .Int("exit_status", status);
    mc.Record(name, c, status);
    return status;
}
} // namespace

int
main(int argc, char* argv[])
{
    rdmacc::MultiCase mc(kName, kHelp, Declare, argc, argv);
    std::vector<FlowRow> flows;
    std::vector<ClassRow> classes;
    RunCase(mc, "one-class", true, flows, classes);
    RunCase(mc, "two-classes", false, flows, classes);
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\nclass-hol: throughput over the last half of the run, Gb/s\n"
              << "  case         flows      prio     Gb/s\n";
    for (const auto& x : flows)
    {
        std::cout << "  " << std::left << std::setw(13) << x.caseName << std::setw(9) << x.group
                  << std::right << std::setw(6) << int(x.prio) << std::setw(9) << x.bps / 1e9
                  << "\n";
    }
    std::cout << "per class (data priority), the whole run\n"
              << "  case         prio  PFC     drops   PAUSEs   paused us\n";
    for (const auto& x : classes)
    {
        std::cout << "  " << std::left << std::setw(13) << x.caseName << std::right << std::setw(4)
                  << int(x.prio) << std::setw(5) << (x.lossless ? "on" : "off") << std::setw(10)
                  << x.drops << std::setw(9) << x.pauses << std::setprecision(1) << std::setw(12)
                  << x.pausedUs << std::setprecision(2) << "\n";
    }
    mc.Write(true);
    std::cout << "  wrote " << mc.Out() << "/summary.json and " << mc.Out() << "/CASE/\n";
    return mc.Status();
}
