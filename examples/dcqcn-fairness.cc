/*
 * dcqcn-fairness: 4 senders -> 1 receiver on the 3-tier Clos of the DCQCN
 * testbed, PFC alone against DCQCN (Zhu et al., SIGCOMM 2015, Figure 3: PFC's
 * parking-lot unfairness; Figure 8: DCQCN's equal shares).
 *
 *   ./waf --run dcqcn-fairness
 *   ./waf --run "dcqcn-fairness --duration=200ms --seed=3"
 *
 * Topology (DCQCN Figure 2, every link 40 Gb/s): two pods of two ToRs and two
 * leaves (every ToR to both leaves of its pod), every leaf to both of two
 * spines, two hosts per ToR. H1, H2 and H3 sit under ToRs T1, T2 and T3, H4 and
 * the receiver R under T4: H4 enters T4 on its own port while H1-H3 share T4's
 * two uplinks (per-flow ECMP), so PFC pausing T4's ingress ports round-robin
 * gives H4 more. Each scheme of --schemes runs as its own case (outputs in
 * OUT/SCHEME/); every flow lasts the whole run; throughputs are measured over
 * its last half.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

namespace
{
const char* const kName = "dcqcn-fairness";
const char* const kHelp =
    "4 senders -> 1 receiver on the 3-tier Clos of the DCQCN testbed (4 ToRs, "
    "4 leaves, 2 "
    "spines, 40 Gb/s): H1-H3 under ToRs T1-T3, H4 and the receiver under T4. "
    "Runs each scheme of "
    "--schemes (PFC on: the lossless fabric DCQCN is deployed on) for "
    "--duration and prints each "
    "sender's throughput over the last half and Jain's index.";

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
        .Duration(
            "duration", "100ms", "simulated time of each case", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "100us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0))
        .Count("mappings",
               1,
               "ECMP mappings of the flows to paths to run each case over, "
               "--ecmpSeed=1..N "
               "(outputs in OUT/SCHEME/map-K/): the DCQCN paper's Fig. 3 is a "
               "spread over "
               "mappings; the table gives each sender's mean and range. 1: one "
               "run, at --ecmpSeed",
               rdmacc::Options::Range::Closed(1, 64));
}

/// One case's result.
struct Result
{
    std::string scheme;
    std::vector<double> bps; //!< H1..H4 (over several mappings: their means)
    std::vector<double> lo;  //!< over several mappings: each sender's least
    std::vector<double> hi;  //!< ... and most
    double jainLo = 0;       //!< over several mappings: the least Jain's index
    double jainHi = 0;       //!< ... and the most
    uint32_t mappings = 1;   //!< the mappings run
    double jain = 0;
    uint64_t pauses = 0;
    int status = 0;
};

Result
RunCase(const rdmacc::MultiCase& mc, const std::string& scheme, bool single, uint32_t mapping)
{
    const std::string map = mapping > 0 ? "map-" + std::to_string(mapping) : "";
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
        mc.Open(single ? map : (mapping > 0 ? scheme + "/" + map : scheme), defaults);
    RdmaScenario& sc = *owner;
    const Time duration = sc.Opts().GetTime("duration");
    // DCQCN Figure 2: 2 pods x (2 ToRs, 2 leaves), 2 spines; 2 hosts per ToR
    sc.BuildFabric([](FabricHelper& fh) { return fh.Clos(2, 2, 2, 2, 2); }, 4);
    // hosts: T1 {0, 1}, T2 {2, 3}, T3 {4, 5}, T4 {6, 7}
    const uint32_t senders[4] = {0, 2, 4, 6};
    const uint32_t receiver = 7;
    const uint64_t size = sc.OutlastingBytes(duration);
    for (uint32_t h : senders)
    {
        sc.AddFlow(h, receiver, size, Seconds(0));
    }
    // the bottleneck: T4's port toward R (switch index 9: spines 0-1, pod 0
    // leaves 2-3 and ToRs 4-5, pod 1 leaves 6-7 and ToRs 8-9)
    Ptr<SwitchNode> t4 = sc.fabric.switches.at(9);
    sc.SetBottleneckToward(t4, receiver);
    sc.EnableRateSeries(sc.Opts().GetTime("rateSample"));
    sc.RunFor(duration);

    Result r;
    r.scheme = sc.Cc();
    const Time half = duration / 2;
    rdmacc::JsonObject tput;
    for (uint32_t id = 0; id < 4; id++)
    {
        r.bps.push_back(sc.RateBetween(id, half, duration));
        tput.Num("H" + std::to_string(id + 1), r.bps.back());
    }
    r.jain = rdmacc::JainIndex(r.bps);
    rdmacc::JsonObject extra;
    extra.UInt("senders", 4)
        .UInt("duration_ns", duration.GetNanoSeconds())
        .Obj("throughput_bps", tput)
        .Num("jain_index", r.jain);
    r.pauses = sc.PauseFrames();
    r.status = rdmacc::MultiCase::Close(sc, extra);
    return r;
}

/// The runs of one scheme over several mappings as one result: each sender's
/// mean and range.
Result
OverMappings(const std::vector<Result>& runs)
{
    Result r = runs.front();
    r.mappings = static_cast<uint32_t>(runs.size());
    r.lo = r.hi = r.bps;
    r.jainLo = r.jainHi = r.jain;
    for (size_t k = 1; k < runs.size(); k++)
    {
        for (size_t i = 0; i < r.bps.size(); i++)
        {
            r.bps[i] += runs[k].bps[i];
            r.lo[i] = std::min(r.lo[i], runs[k].bps[i]);
            r.hi[i] = std::max(r.hi[i], runs[k].bps[i]);
        }
        r.jain += runs[k].jain;
        r.jainLo = std::min(r.jainLo, runs[k].jain);
        r.jainHi = std::max(r.jainHi, runs[k].jain);
        r.pauses += runs[k].pauses;
        r.status = std::max(r.status, runs[k].status);
    }
    for (auto& b : r.bps)
    {
        b /= double(runs.size());
    }
    r.jain /= double(runs.size());
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
    const auto mappings = static_cast<uint32_t>(mc.Opts().GetCount("mappings"));
    std::vector<Result> results;
    for (const auto& s : schemes)
    {
        std::vector<Result> runs;
        for (uint32_t m = 1; m <= mappings; m++)
        {
            runs.push_back(RunCase(mc, s, single, mappings > 1 ? m : 0));
        }
        results.push_back(mappings > 1 ? OverMappings(runs) : runs.front());
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\ndcqcn-fairness: throughput over the last half of the run, "
                 "Gb/s (DCQCN Fig. 3 "
                 "vs Fig. 8)\n";
    if (mappings > 1)
    {
        std::cout << "  (the mean over " << mappings << " ECMP mappings, --ecmpSeed=1.." << mappings
                  << "; the range below each; PAUSEs summed)\n";
    }
    std::cout << "  scheme        H1      H2      H3      H4   Jain's index   PAUSEs\n";
    for (const auto& r : results)
    {
        std::cout << "  " << std::left << std::setw(10) << r.scheme << std::right;
        rdmacc::JsonObject o;
        for (size_t i = 0; i < r.bps.size(); i++)
        {
            std::cout << std::setw(8) << r.bps[i] / 1e9;
            o.Num("H" + std::to_string(i + 1), r.bps[i]);
        }
        std::cout << std::setw(15) << std::setprecision(4) << r.jain << std::setprecision(2)
                  << std::setw(9) << r.pauses << "\n";
        rdmacc::JsonObject c;
        c.Obj("throughput_bps", o)
            .Num("jain_index", r.jain)
            .UInt("pfc_pause_frames", r.pauses)
            .Int("exit_status", r.status);
        if (r.mappings > 1)
        {
            std::cout << "  " << std::setw(10) << "";
            rdmacc::JsonObject lo;
            rdmacc::JsonObject hi;
            for (size_t i = 0; i < r.bps.size(); i++)
            {
                std::ostringstream range;
                range << std::fixed << std::setprecision(1) << r.lo[i] / 1e9 << "-"
                      << r.hi[i] / 1e9;
                std::cout << std::setw(8) << range.str();
                lo.Num("H" + std::to_string(i + 1), r.lo[i]);
                hi.Num("H" + std::to_string(i + 1), r.hi[i]);
            }
            std::cout << std::setw(9) << std::setprecision(3) << r.jainLo << "-" << r.jainHi
                      << std::setprecision(2) << "\n";
            c.UInt("mappings", r.mappings)
                .Obj("throughput_min_bps", lo)
                .Obj("throughput_max_bps", hi)
                .Num("jain_index_min", r.jainLo)
                .Num("jain_index_max", r.jainHi);
        }
        mc.Record(r.scheme, c, r.status);
    }
    if (!single || mappings > 1)
    {
        mc.Write(true);
        std::cout << "  wrote " << mc.Out() << "/summary.json and " << mc.Out() << "/SCHEME/\n";
    }
    return mc.Status();
}
