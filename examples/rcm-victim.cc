/*
 * rcm-victim: a victim flow behind an incast, PFC alone, DCQCN, and DCQCN with
 * RCM (Liu et al., "Regional Congestion Mitigation in Lossless Datacenter
 * Networks", NPC 2017, section 4.2, Figure 7).
 *
 *   ./waf --run rcm-victim
 *   ./waf --run "rcm-victim --cases=rcm --duration=5ms"
 *
 * Topology (every link --rate, 100 Gb/s by default): S1-S4 send to D0 and Sv
 * sends to Dv. S1, S2 and the victim Sv share their first-hop switch E0 and its
 * uplink to the aggregation switch A0 (the paper's SW_L0_0 and SW_L1_0); S3 and
 * S4 reach D0 through E1 and A1 (the paper's ECMP puts them on SW_L1_5; here
 * the split is made by the topology, so that it does not depend on a hash). A0
 * and A1 lead to Ed, the first-hop switch of D0 and Dv:
 *
 *     S1 S2 Sv -- E0 -- A0 --\
 *                              Ed -- D0, Dv
 *     S3 S4 ----- E1 -- A1 --/
 *
 * D0's link is the incast's bottleneck: ideally each incast flow gets 25 Gb/s
 * and the victim 50 (the rest of E0's uplink). With PFC alone, Ed's PAUSEs stop
 * A0's link to Ed, which the victim shares, and spread to E0: the victim gets
 * about 25 Gb/s (head-of-line blocking). With RCM the congestion is reported
 * hop by hop with the incast flows' IDs, A0 and E0 hold those flows only, and
 * the victim keeps nearly 50 Gb/s. Each case runs for --duration; throughputs
 * are measured over its last half.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include "rdma-cc/src/switch.rs.h" // the fields of SwitchNode's counters (Rust's structs)

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
const char* const kName = "rcm-victim";
const char* const kHelp = "Victim flow behind an incast (RCM, NPC 2017 Fig. "
                          "7): S1-S4 send to D0, the victim Sv to Dv; "
                          "S1, S2 and Sv share their first-hop switch and its "
                          "uplink. Runs each case of --cases (pfc: "
                          "PFC alone; dcqcn: DCQCN; rcm: DCQCN with RCM in "
                          "every switch) for --duration and prints each "
                          "flow's throughput over the last half.";

/// Declares the example's options on a scenario.
void
Declare(RdmaScenario& sc)
{
    sc.Opts()
        .Default("rate", "100Gbps")
        .Default("pfc", "true")
        .Default("sample", "10us")
        // NPC 2017 section 4.1: 100 KB per queue; DCQCN with the Mellanox 100G
        // defaults
        .AddSwitchParams({"xoffBeta", "xoffStatic"})
        .Default("xoffBeta", "0")
        .Default("xoffStatic", "100KB")
        .Default("dcqcnPreset", "mellanox")
        .ChoiceList("cases",
                    "pfc,dcqcn,rcm",
                    {"pfc", "dcqcn", "rcm"},
                    "cases to run, one each (comma-separated): pfc (--cc=none), dcqcn "
                    "(--cc=dcqcn), rcm "
                    "(--cc=dcqcn --rcm=1); --cc or --rcm given run that one case alone")
        .Duration(
            "duration", "10ms", "simulated time of each case", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "100us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0));
}

/// One case's result.
struct Result
{
    std::string name;
    double victimBps = 0;            //!< Sv -> Dv
    std::vector<double> incastBps{}; //!< S1..S4 -> D0
    uint64_t pauses = 0;
    uint64_t cns = 0;
    int status = 0;
};

Result
RunCase(const rdmacc::MultiCase& mc, const std::string& name, bool single)
{
    const auto owner =
        mc.Open(single ? "" : name,
                single ? rdmacc::MultiCase::Defaults{}
                       : rdmacc::MultiCase::Defaults{{"cc", name == "pfc" ? "none" : "dcqcn"},
                                                     {"rcm", name == "rcm" ? "true" : "false"}});
    RdmaScenario& sc = *owner;
    const Time duration = sc.Opts().GetTime("duration");
    // hosts 0-3 S1-S4, 4 Sv, 5 D0, 6 Dv; switches E0, E1, A0, A1, Ed
    sc.BuildFabric(
        [](FabricHelper& fh)
        {
            std::vector<Ptr<Node>> h;
            for (int i = 0; i < 7; i++)
            {
                h.push_back(fh.AddHost());
            }
            Ptr<SwitchNode> e0 = fh.AddSwitch();
            Ptr<SwitchNode> e1 = fh.AddSwitch();
            Ptr<SwitchNode> a0 = fh.AddSwitch();
            Ptr<SwitchNode> a1 = fh.AddSwitch();
            Ptr<SwitchNode> ed = fh.AddSwitch();
            for (int i : {0, 1, 4})
            {
                fh.Connect(h[i], e0);
            }
            for (int i : {2, 3})
            {
                fh.Connect(h[i], e1);
            }
            fh.Connect(h[5], ed);
            fh.Connect(h[6], ed);
            fh.Connect(e0, a0);
            fh.Connect(e1, a1);
            fh.Connect(a0, ed);
            fh.Connect(a1, ed);
            return fh.Finalize();
        },
        5);
    const uint32_t d0 = 5;
    const uint64_t size = sc.OutlastingBytes(duration);
    const uint32_t victim = sc.AddFlow(4, 6, size, Seconds(0));
    std::vector<uint32_t> incast;
    for (uint32_t h = 0; h < 4; h++)
    {
        incast.push_back(sc.AddFlow(h, d0, size, Seconds(0)));
    }
    sc.SetBottleneckToward(sc.fabric.switches.at(4), d0);
    sc.EnableRateSeries(sc.Opts().GetTime("rateSample"));
    sc.RunFor(duration);

    Result r;
    r.name =
        single ? (sc.Opts().GetBool("rcm") ? "rcm" : (sc.Cc() == "none" ? "pfc" : sc.Cc())) : name;
    const Time half = duration / 2;
    r.victimBps = sc.RateBetween(victim, half, duration);
    rdmacc::JsonObject incastJson;
    for (uint32_t id : incast)
    {
        r.incastBps.push_back(sc.RateBetween(id, half, duration));
        incastJson.Num("s" + std::to_string(r.incastBps.size()), r.incastBps.back());
    }
    rdmacc::JsonObject extraKeys;
    extraKeys.Str("case", r.name)
        .UInt("duration_ns", duration.GetNanoSeconds())
        .Num("victim_bps", r.victimBps)
        .Obj("incast_bps", incastJson);
    r.pauses = sc.PauseFrames();
    for (const auto& s : sc.fabric.switches)
    {
        r.cns += s->GetRcmCounters().cn_sent;
    }
    r.status = rdmacc::MultiCase::Close(sc, extraKeys);
    return r;
}
} // namespace

int
main(int argc, char* argv[])
{
    rdmacc::MultiCase mc(kName, kHelp, Declare, argc, argv);
    const bool single = mc.Alone({"cc", "rcm"}, "cases");
    // every name checked by the parser (a ChoiceList)
    const auto cases = single ? std::vector<std::string>{""} : mc.Opts().GetList("cases");
    std::vector<Result> results;
    for (const auto& c : cases)
    {
        results.push_back(RunCase(mc, c, single));
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\nrcm-victim: throughput over the last half of the run, Gb/s "
                 "(NPC 2017 Fig. 7; "
                 "ideal: victim 50, incast 25 each)\n";
    std::cout << "  case     victim Sv->Dv   S1->D0   S2->D0   S3->D0   S4->D0   "
                 "PAUSEs      CNs\n";
    for (const auto& r : results)
    {
        std::cout << "  " << std::left << std::setw(7) << r.name << std::right << std::setw(15)
                  << r.victimBps / 1e9;
        rdmacc::JsonObject incastJson;
        for (size_t i = 0; i < r.incastBps.size(); i++)
        {
            std::cout << std::setw(9) << r.incastBps[i] / 1e9;
            incastJson.Num("s" + std::to_string(i + 1), r.incastBps[i]);
        }
        std::cout << std::setw(9) << r.pauses << std::setw(9) << r.cns << "\n";
        rdmacc::JsonObject c;
        c.Num("victim_bps", r.victimBps)
            .Obj("incast_bps", incastJson)
            .UInt("pfc_pause_frames", r.pauses)
            .UInt("rcm_cn_sent", r.cns)
            .Int("exit_status", r.status);
        mc.Record(r.name, c, r.status);
    }
    mc.Write(!single);
    std::cout << "  wrote " << mc.Out() << "/summary.json and " << mc.Out() << "/CASE/\n";
    return mc.Status();
}
