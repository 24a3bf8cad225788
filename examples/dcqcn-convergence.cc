/*
 * dcqcn-convergence: N long flows (default 2) share one 40 Gb/s bottleneck, starting --stagger
 * apart: per-flow rate and queue over time, the settled queue and rates (DCQCN, Zhu et al.
 * SIGCOMM 2015, section 5: the fluid model converges to fair rates and a stable queue near
 * K_min).
 *
 *   ./waf --run dcqcn-convergence
 *   ./waf --run "dcqcn-convergence --flows=4 --stagger=2ms --duration=100ms"
 *
 * Hosts 1..N send to host 0 through one switch; the run lasts --duration exactly. Writes
 * OUT/rates.csv (every flow's delivered bytes and rate every --rateSample), OUT/queue.csv,
 * OUT/pfc.csv and the shared outputs; summary.json adds settled_queue_bytes (the bottleneck
 * queue's mean over the last half of the run), settled_rate_bps (per flow, over the last half)
 * and their Jain's index.
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
/// Samples the bottleneck queue from the middle of the run to its end.
struct QueueMean
{
    Ptr<SwitchNode> sw;
    uint32_t port = 0;
    uint8_t prio = 0; //!< the data priority
    double sum = 0;
    uint64_t n = 0;

    void
    Sample(Time every)
    {
        sum += double(sw->GetEgressBytes(port, prio));
        n++;
        Simulator::Schedule(every, &QueueMean::Sample, this, every);
    }
};
} // namespace

int
main(int argc, char* argv[])
{
    RdmaScenario sc("dcqcn-convergence",
                    "N long flows share one bottleneck (hosts 1..N -> host 0 through one switch), "
                    "starting --stagger apart; the run lasts --duration. Prints the settled "
                    "queue (mean over the last half) and each flow's settled rate.");
    sc.Opts()
        .Default("cc", "dcqcn")
        .Default("rate", "40Gbps")
        .Default("sample", "10us")
        .Count("flows",
               2,
               "long flows (hosts 1..N send to host 0)",
               rdmacc::Options::Range::Closed(1, 1000))
        .Duration("stagger", "5ms", "flow i starts at i x stagger", rdmacc::Options::Range::Any())
        .Duration("duration", "60ms", "simulated time of the run", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "10us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0));
    sc.Parse(argc, argv);
    const uint32_t flows = static_cast<uint32_t>(sc.Opts().GetCount("flows"));
    const Time stagger = sc.Opts().GetTime("stagger");
    const Time duration = sc.Opts().GetTime("duration");
    if (stagger * int64_t(flows - 1) >= duration / 2)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --stagger = " + sc.Opts().GetAsText("stagger") +
                                ": every flow must start in the first half of --duration = " +
                                sc.Opts().GetAsText("duration") +
                                " (the settled values are measured over the second half)");
    }
    sc.BuildSingleSwitch(flows + 1);
    const uint64_t size = sc.OutlastingBytes(duration);
    for (uint32_t i = 1; i <= flows; i++)
    {
        sc.AddFlow(i, 0, size, stagger * int64_t(i - 1));
    }
    sc.SetBottleneck(sc.sw, 0, 0); // host 0's switch port
    sc.EnableRateSeries(sc.Opts().GetTime("rateSample"));
    QueueMean q{sc.sw, 0, sc.DataPriority()};
    const Time half = duration / 2;
    Simulator::Schedule(half, &QueueMean::Sample, &q, sc.Opts().GetTime("sample"));
    sc.RunFor(duration);

    const double settledQueue = q.n ? q.sum / double(q.n) : 0;
    rdmacc::JsonObject rates;
    std::vector<double> settled;
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "dcqcn-convergence: " << flows << " flows, cc=" << sc.Cc() << ", "
              << sc.Opts().GetAsText("rate") << ", stagger " << sc.Opts().GetAsText("stagger")
              << ", duration " << sc.Opts().GetAsText("duration") << "\n";
    for (uint32_t id = 0; id < flows; id++)
    {
        const double bps = sc.RateBetween(id, half, duration);
        settled.push_back(bps);
        rates.Num(std::to_string(id), bps);
        std::cout << "  flow " << id << " (starts " << (stagger * int64_t(id)).GetMicroSeconds()
                  << " us)  settled rate " << bps / 1e9 << " Gb/s\n";
    }
    const double jain = rdmacc::JainIndex(settled);
    std::cout << "  settled queue     " << std::setprecision(0) << settledQueue
              << " B (mean over the last half; K_min " << sc.kMinB << " B, K_max " << sc.kMaxB
              << " B)\n"
              << std::setprecision(4) << "  Jain's index      " << jain << "\n";
    rdmacc::JsonObject extra;
    extra.UInt("senders", flows)
        .UInt("stagger_ns", stagger.GetNanoSeconds())
        .UInt("duration_ns", duration.GetNanoSeconds())
        .Num("settled_queue_bytes", settledQueue)
        .Obj("settled_rate_bps", rates)
        .Num("jain_index", jain);
    sc.Finish(extra);
    const int status = sc.ExitStatus();
    Simulator::Destroy();
    return status;
}
