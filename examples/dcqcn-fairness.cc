/*
 * dcqcn-fairness: 4 senders -> 1 receiver on the 3-tier Clos of the DCQCN testbed, PFC alone
 * against DCQCN (Zhu et al., SIGCOMM 2015, Figure 3: PFC's parking-lot unfairness; Figure 8:
 * DCQCN's equal shares).
 *
 *   ./waf --run dcqcn-fairness
 *   ./waf --run "dcqcn-fairness --duration=200ms --seed=3"
 *
 * Topology (DCQCN Figure 2, every link 40 Gb/s): two pods of two ToRs and two leaves (every
 * ToR to both leaves of its pod), every leaf to both of two spines, two hosts per ToR. H1, H2
 * and H3 sit under ToRs T1, T2 and T3, H4 and the receiver R under T4: H4 enters T4 on its own
 * port while H1-H3 share T4's two uplinks (per-flow ECMP), so PFC pausing T4's ingress ports
 * round-robin gives H4 more. Each scheme of --schemes runs as its own case (outputs in
 * OUT/SCHEME/); every flow lasts the whole run; throughputs are measured over its last half.
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
const char* const kName = "dcqcn-fairness";
const char* const kHelp =
    "4 senders -> 1 receiver on the 3-tier Clos of the DCQCN testbed (4 ToRs, 4 leaves, 2 "
    "spines, 40 Gb/s): H1-H3 under ToRs T1-T3, H4 and the receiver under T4. Runs each scheme of "
    "--schemes (PFC on: the lossless fabric DCQCN is deployed on) for --duration and prints each "
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
                    "schemes to run, one case each (comma-separated; --cc=X runs X alone)")
        .Duration(
            "duration", "100ms", "simulated time of each case", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "100us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0));
}

/// One case's result.
struct Result
{
    std::string scheme;
    std::vector<double> bps; //!< H1..H4
    double jain = 0;
    uint64_t pauses = 0;
    int status = 0;
};

Result
RunCase(int argc, char** argv, const std::string& scheme, bool single)
{
    RdmaScenario sc(kName, kHelp);
    Declare(sc);
    if (!single)
    {
        sc.Opts().Default("cc", scheme);
        sc.SetCase(scheme);
    }
    sc.SetQuiet(true);
    sc.Parse(argc, argv);
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
    // the bottleneck: T4's port toward R (switch index 9: spines 0-1, pod 0 leaves 2-3 and
    // ToRs 4-5, pod 1 leaves 6-7 and ToRs 8-9)
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
    sc.Finish(extra);
    r.status = sc.ExitStatus();
    r.pauses = sc.PauseFrames();
    Simulator::Destroy();
    return r;
}
} // namespace

int
main(int argc, char* argv[])
{
    // the first parse checks the command line (and answers --help); the cases parse it again
    std::vector<std::string> schemes;
    std::string out;
    bool single = false;
    RdmaScenario probe(kName, kHelp);
    {
        Declare(probe);
        probe.Opts().Parse(argc, argv);
        single = probe.Opts().Given("cc");
        probe.Opts().RefuseTogether("cc", "schemes");
        schemes = single ? std::vector<std::string>{probe.Cc()} : probe.Opts().GetList("schemes");
        out = probe.Out();
    }
    std::vector<Result> results;
    int status = 0;
    for (const auto& s : schemes)
    {
        results.push_back(RunCase(argc, argv, s, single));
        status = std::max(status, results.back().status);
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\ndcqcn-fairness: throughput over the last half of the run, Gb/s (DCQCN Fig. 3 "
                 "vs Fig. 8)\n";
    std::cout << "  scheme        H1      H2      H3      H4   Jain's index   PAUSEs\n";
    rdmacc::JsonObject all;
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
        all.Obj(r.scheme, c);
    }
    if (!single)
    {
        all.WriteFile(out + "/summary.json");
        // the run's own config.json (each case's directory has the case's)
        probe.Opts().WriteConfig(out, rdmacc::JsonObject().StrList("cases", all.Keys()));
        std::cout << "  wrote " << out << "/summary.json and " << out << "/SCHEME/\n";
    }
    return status;
}
