/*
 * read-incast: one client READs a block striped over N servers, as distributed storage does;
 * every server answers at once, and the READ responses converge on the client's switch port
 * (an incast the client itself caused). Runs LDCP, DCQCN and PFC alone (--cc=none with PFC)
 * and prints, for each, the time the client has the block's last byte against the ideal, the
 * drops, the PAUSE frames and the client port's queue (docs/operations.md).
 *
 *   ./waf --run read-incast
 *   ./waf --run "read-incast --servers=32 --block=8MB --cases=ldcp"
 *
 * Topology: a single switch; host 0 is the client, hosts 1..N the servers. Server i holds
 * stripe i of the block (--block / N bytes, the remainder on the first ones) and the client
 * posts the N READs together at time 0. The ideal is the block's: the READ request's trip and
 * every byte of the block at the client's link rate, back to back (Rust's
 * wire::ideal_read_fct). Each case's outputs are in OUT/CASE/ (fct.csv has an op column).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
const char* const kName = "read-incast";
const char* const kHelp = "One client READs a block striped over --servers servers through one "
                          "switch: every server's READ responses converge on the client's port. "
                          "Runs each case of --cases (ldcp: LDCP, lossy; dcqcn: DCQCN on PFC; "
                          "pfc: no congestion control on PFC) and prints the block's last-byte "
                          "time against its ideal, drops, PAUSE frames and the client port's "
                          "queue.";

/// Declares the example's options on a scenario.
void
Declare(RdmaScenario& sc)
{
    using Range = rdmacc::Options::Range;
    sc.Opts()
        .Count(
            "servers", 16, "servers the block is striped over (hosts 1..N)", Range::Closed(1, 4096))
        .Bytes("block",
               "16MB",
               "bytes the client reads, striped evenly over the servers (at least one byte each)",
               Range::AtLeast(1))
        .ChoiceList("cases",
                    "ldcp,dcqcn,pfc",
                    {"ldcp", "dcqcn", "pfc"},
                    "cases to run, one each (comma-separated): ldcp (--cc=ldcp), dcqcn "
                    "(--cc=dcqcn), pfc (--cc=none --pfc=1); --cc given runs that one case alone");
}

/// One case's result.
struct Result
{
    std::string name;
    Time last = Seconds(-1); //!< when the client had every byte (negative: not all)
    Time ideal;              //!< the block's lower bound
    uint64_t drops = 0;
    uint64_t stableDrops = 0;
    uint64_t rereads = 0;
    uint64_t pauses = 0;
    uint64_t queueMax = 0; //!< the client port's queue after every first RTT, bytes
    int status = 0;
};

Result
RunCase(const rdmacc::MultiCase& mc, const std::string& name, bool single)
{
    rdmacc::MultiCase::Defaults defaults;
    if (!single)
    {
        defaults.emplace_back("cc", name == "pfc" ? "none" : name);
        if (name == "pfc")
        {
            defaults.emplace_back("pfc", "true");
        }
    }
    const auto owner = mc.Open(name, defaults);
    RdmaScenario& sc = *owner;
    const auto servers = static_cast<uint32_t>(sc.Opts().GetCount("servers"));
    const uint64_t block = sc.Opts().GetBytes("block");
    sc.BuildSingleSwitch(servers + 1);
    for (uint32_t i = 1; i <= servers; i++)
    {
        // stripe i: the block's bytes split evenly, the remainder on the first servers
        const uint64_t stripe = block / servers + (i <= block % servers ? 1 : 0);
        sc.AddFlow(i, 0, stripe, Seconds(0), RdmaOp::READ);
    }
    sc.Run(0); // the client's port is the bottleneck

    Result r;
    r.name = name;
    r.ideal = sc.IdealFct(1, 0, block, RdmaOp::READ);
    bool all = true;
    for (const auto& f : sc.Flows())
    {
        all = all && !f.finish.IsStrictlyNegative();
        r.last = std::max(r.last, f.finish);
        r.rereads += f.rereads;
    }
    if (!all)
    {
        r.last = Seconds(-1);
    }
    r.stableDrops = sc.stableDrops;
    r.drops = sc.stableDrops + sc.firstRttDrops;
    r.pauses = sc.PauseFrames();
    r.queueMax = sc.sw->GetMaxEgressBytes(sc.BottleneckPort(), sc.DataPriority());
    rdmacc::JsonObject extra;
    extra.Str("case", r.name)
        .UInt("servers", servers)
        .UInt("block_bytes", block)
        .Int("block_last_byte_ns", r.last.GetNanoSeconds())
        .Int("block_ideal_ns", r.ideal.GetNanoSeconds())
        .UInt("client_queue_max_stable_bytes", r.queueMax);
    r.status = rdmacc::MultiCase::Close(sc, extra);
    return r;
}
} // namespace

int
main(int argc, char* argv[])
{
    rdmacc::MultiCase mc(kName, kHelp, Declare, argc, argv);
    const bool single = mc.Alone({"cc"}, "cases");
    if (mc.Opts().GetBytes("block") < mc.Opts().GetCount("servers"))
    {
        // before any case runs: nothing is written
        rdmacc::ConfigFatal("command line",
                            "invalid --block = " + mc.Opts().GetAsText("block") +
                                ": must be at least --servers (" + mc.Opts().GetAsText("servers") +
                                ") bytes, one per stripe");
    }
    // --cc alone: one case, named after its scheme (pfc: none on a lossless priority)
    const std::string alone =
        mc.Probe().Cc() == "none" && mc.Probe().Lossless() ? "pfc" : mc.Probe().Cc();
    const auto cases = single ? std::vector<std::string>{alone} : mc.Opts().GetList("cases");
    std::vector<Result> results;
    for (const auto& c : cases)
    {
        results.push_back(RunCase(mc, c, single));
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\nread-incast: one client READs " << mc.Opts().GetAsText("block")
              << " B striped over " << mc.Opts().GetCount("servers")
              << " servers; the block's last byte against its ideal\n";
    std::cout << "  case    last byte us   ideal us   / ideal   drops (stable)   repeat reqs   "
                 "PAUSEs   queue max B\n";
    for (const auto& r : results)
    {
        const bool done = !r.last.IsStrictlyNegative();
        std::cout << "  " << std::left << std::setw(6) << r.name << std::right << std::setw(14);
        if (done)
        {
            std::cout << r.last.GetNanoSeconds() / 1e3;
        }
        else
        {
            std::cout << "unfinished";
        }
        std::cout << std::setw(11) << r.ideal.GetNanoSeconds() / 1e3 << std::setw(10)
                  << (done ? double(r.last.GetNanoSeconds()) / r.ideal.GetNanoSeconds() : 0)
                  << std::setw(8) << r.drops << " (" << r.stableDrops << ")" << std::setw(14)
                  << r.rereads << std::setw(9) << r.pauses << std::setw(14) << r.queueMax << "\n";
        rdmacc::JsonObject c;
        c.Int("block_last_byte_ns", r.last.GetNanoSeconds())
            .Int("block_ideal_ns", r.ideal.GetNanoSeconds())
            .UInt("drops", r.drops)
            .UInt("stable_stage_drops", r.stableDrops)
            .UInt("repeat_read_requests", r.rereads)
            .UInt("pfc_pause_frames", r.pauses)
            .UInt("client_queue_max_stable_bytes", r.queueMax)
            .Int("exit_status", r.status);
        mc.Record(r.name, c, r.status);
    }
    mc.Write(!single);
    std::cout << "  (queue max: the client's switch port once every first RTT is over)\n";
    std::cout << "  wrote " << mc.Out() << "/summary.json and " << mc.Out() << "/CASE/\n";
    return mc.Status();
}
