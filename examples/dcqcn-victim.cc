/*
 * dcqcn-victim: a victim flow hurt by congestion that is not on its path, PFC
 * alone against DCQCN (Zhu et al., SIGCOMM 2015, Figure 4: cascading PAUSEs;
 * Figure 9: DCQCN keeps the victim's throughput).
 *
 *   ./waf --run dcqcn-victim
 *   ./waf --run "dcqcn-victim --extra=0,2 --duration=100ms"
 *
 * Topology (DCQCN Figure 2, every link 40 Gb/s): two pods of two ToRs and two
 * leaves, two spines, five hosts per ToR. H11-H14 under T1 send to R under T4
 * (an incast through the spines); the victim VS, also under T1, sends to VR
 * under T2 (through T1's uplinks and the pod's leaves only); 0, 1 or 2 more
 * senders under T3 (H31, H32) send to R. With PFC alone, T4's PAUSEs cascade
 * through the leaves and spines back to T1's uplinks and stall VS; more senders
 * under T3 make it worse. Each (scheme, extra senders) pair runs as its own
 * case (outputs in OUT/SCHEME-extraN/); every flow lasts the whole run;
 * throughputs are measured over its last half. Each case's summary.json lists
 * the flows that sent data on every link (flows_on_link: the paths ECMP chose),
 * from which the victim's max-min fair share follows: it rises with the senders
 * under T3, since the incast flows that share the victim's uplink of T1 get a
 * smaller share of R's link (README "DCQCN").
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
const char* const kName = "dcqcn-victim";
const char* const kHelp = "Victim flow on the 3-tier Clos of the DCQCN testbed "
                          "(4 ToRs, 4 leaves, 2 spines, 40 Gb/s): "
                          "H11-H14 under T1 send to R under T4, the victim VS "
                          "under T1 sends to VR under T2, and 0-2 "
                          "more senders under T3 send to R. Runs each scheme "
                          "of --schemes with each count of --extra "
                          "(PFC on) for --duration and prints the victim's "
                          "throughput over the last half.";

/// Declares the example's options on a scenario.
void
Declare(RdmaScenario& sc)
{
    sc.Opts()
        .Default("rate", "40Gbps")
        .Default("pfc", "true")
        .Default("sample", "10us")
        .ChoiceList("schemes",
                    "none,dcqcn",
                    sc.Opts().ChoicesOf("cc"),
                    "schemes to run, one case each (comma-separated; --cc=X runs "
                    "X alone)")
        .ChoiceList("extra",
                    "0,1,2",
                    {"0", "1", "2"},
                    "senders under T3 (0-2), one case each (comma-separated)")
        .Duration(
            "duration", "60ms", "simulated time of each case", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "100us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0))
        .Count("mappings",
               1,
               "ECMP mappings of the flows to paths to run each case over, "
               "--ecmpSeed=1..N "
               "(outputs in OUT/CASE/map-K/): the DCQCN paper's Fig. 4 is a "
               "spread over "
               "mappings; the table gives the mean and range. 1: one run, at "
               "--ecmpSeed",
               rdmacc::Options::Range::Closed(1, 64));
}

/// One case's result.
struct Result
{
    std::string scheme;
    uint32_t extra = 0;
    double victimBps = 0;  //!< VS -> VR (over several mappings: the mean)
    double incastBps = 0;  //!< every sender to R together (over several mappings: the mean)
    double victimLo = 0;   //!< over several mappings: the least victim throughput
    double victimHi = 0;   //!< ... and the most
    uint32_t mappings = 1; //!< the mappings run
    uint64_t pauses = 0;
    int status = 0;
};

Result
RunCase(const rdmacc::MultiCase& mc,
        const std::string& scheme,
        bool single,
        uint32_t extra,
        uint32_t mapping)
{
    rdmacc::MultiCase::Defaults defaults;
    if (!single)
    {
        defaults.emplace_back("cc", scheme);
    }
    if (mapping > 0)
    {
        defaults.emplace_back("ecmpSeed", std::to_string(mapping));
    }
    const auto owner =
        mc.Open((single ? std::string("") : scheme + "-") + "extra" + std::to_string(extra) +
                    (mapping > 0 ? "/map-" + std::to_string(mapping) : ""),
                defaults);
    RdmaScenario& sc = *owner;
    const Time duration = sc.Opts().GetTime("duration");
    // DCQCN Figure 2: 2 pods x (2 ToRs, 2 leaves), 2 spines; 5 hosts per ToR
    sc.BuildFabric([](FabricHelper& fh) { return fh.Clos(2, 2, 2, 2, 5); }, 7);
    // hosts: T1 {0-4}, T2 {5-9}, T3 {10-14}, T4 {15-19}
    const uint32_t receiver = 15;
    const uint32_t vs = 4;
    const uint32_t vr = 5;
    const uint64_t size = sc.OutlastingBytes(duration);
    rdmacc::FlowLinkLog log;
    auto add = [&](uint32_t src, uint32_t dst)
    {
        const uint32_t id = sc.AddFlow(src, dst, size, Seconds(0));
        log.AddFlow(src, sc.fabric.hosts.Get(src)->GetId(), id);
        return id;
    };
    const uint32_t victim = add(vs, vr);
    std::vector<uint32_t> incast;
    for (uint32_t h = 0; h < 4; h++) // H11-H14
    {
        incast.push_back(add(h, receiver));
    }
    for (uint32_t h = 10; h < 10 + extra; h++) // H31, H32
    {
        incast.push_back(add(h, receiver));
    }
    log.Connect(sc.fabric);
    // the bottleneck of the incast: T4's port toward R (switch index 9: spines
    // 0-1, pod 0 leaves 2-3 and ToRs 4-5, pod 1 leaves 6-7 and ToRs 8-9)
    Ptr<SwitchNode> t4 = sc.fabric.switches.at(9);
    sc.SetBottleneckToward(t4, receiver);
    sc.EnableRateSeries(sc.Opts().GetTime("rateSample"));
    sc.RunFor(duration);

    Result r;
    r.scheme = sc.Cc();
    r.extra = extra;
    const Time half = duration / 2;
    auto bps = [&](uint32_t id)
    {
        return sc.RateBetween(id, half, duration);
    };
    r.victimBps = bps(victim);
    for (uint32_t id : incast)
    {
        r.incastBps += bps(id);
    }
    rdmacc::JsonObject extraKeys;
    extraKeys.UInt("senders", incast.size())
        .UInt("victim_flow", victim)
        .UIntList("incast_flows", std::vector<uint64_t>(incast.begin(), incast.end()))
        .Obj("flows_on_link", log.ToJson()) // every link with the flows on it
        .UInt("extra_senders", extra)
        .UInt("duration_ns", duration.GetNanoSeconds())
        .Num("victim_bps", r.victimBps)
        .Num("incast_bps", r.incastBps);
    r.pauses = sc.PauseFrames();
    r.status = rdmacc::MultiCase::Close(sc, extraKeys);
    return r;
}
} // namespace

int
main(int argc, char* argv[])
{
    rdmacc::MultiCase mc(kName, kHelp, Declare, argc, argv);
    const bool single = mc.Alone({"cc"}, "schemes");
    mc.Opts().RefuseTogether("ecmpSeed", "mappings");
    const auto schemes =
        single ? std::vector<std::string>{mc.Probe().Cc()} : mc.Opts().GetList("schemes");
    std::vector<uint32_t> extras;
    for (const auto& e : mc.Opts().GetList("extra"))
    {
        extras.push_back(static_cast<uint32_t>(std::stoul(e)));
    }
    const auto mappings = static_cast<uint32_t>(mc.Opts().GetCount("mappings"));
    std::vector<Result> results;
    for (const auto& s : schemes)
    {
        for (uint32_t e : extras)
        {
            // one run, or one per mapping: the mean and range of the victim's
            // throughput
            Result r;
            for (uint32_t m = 1; m <= mappings; m++)
            {
                const Result one = RunCase(mc, s, single, e, mappings > 1 ? m : 0);
                r.victimLo = m == 1 ? one.victimBps : std::min(r.victimLo, one.victimBps);
                r.victimHi = m == 1 ? one.victimBps : std::max(r.victimHi, one.victimBps);
                r.victimBps += one.victimBps / mappings;
                r.incastBps += one.incastBps / mappings;
                r.pauses += one.pauses;
                r.status = std::max(r.status, one.status);
                r.scheme = one.scheme;
                r.extra = one.extra;
            }
            r.mappings = mappings;
            results.push_back(r);
        }
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\ndcqcn-victim: the victim's throughput over the last half of "
                 "the run, Gb/s "
                 "(DCQCN Fig. 4 vs Fig. 9)\n";
    if (mappings > 1)
    {
        std::cout << "  (the mean over " << mappings << " ECMP mappings, --ecmpSeed=1.." << mappings
                  << ", the victim's range beside it; PAUSEs summed)\n";
    }
    std::cout << "  scheme     senders under T3   victim VS->VR   incast to R   "
                 "PAUSEs\n";
    for (const auto& r : results)
    {
        std::cout << "  " << std::left << std::setw(10) << r.scheme << std::right << std::setw(17)
                  << r.extra << std::setw(16) << r.victimBps / 1e9 << std::setw(14)
                  << r.incastBps / 1e9 << std::setw(9) << r.pauses;
        if (r.mappings > 1)
        {
            std::cout << "   victim " << r.victimLo / 1e9 << "-" << r.victimHi / 1e9;
        }
        std::cout << "\n";
        rdmacc::JsonObject c;
        c.UInt("extra_senders", r.extra)
            .Num("victim_bps", r.victimBps)
            .Num("incast_bps", r.incastBps)
            .UInt("pfc_pause_frames", r.pauses)
            .Int("exit_status", r.status);
        if (r.mappings > 1)
        {
            c.UInt("mappings", r.mappings)
                .Num("victim_min_bps", r.victimLo)
                .Num("victim_max_bps", r.victimHi);
        }
        mc.Record(r.scheme + "-extra" + std::to_string(r.extra), c, r.status);
    }
    mc.Write(true);
    std::cout << "  wrote " << mc.Out() << "/summary.json and " << mc.Out() << "/CASE/\n";
    return mc.Status();
}
