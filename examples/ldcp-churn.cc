/*
 * ldcp-churn: long flows in the stable stage plus a Poisson churn of short flows that use
 * zero-RTT fast start, all to one receiver through one switch.
 *
 *   ./waf --run ldcp-churn
 *   ./waf --run "ldcp-churn --long=4 --load=0.3 --minShort=4096 --maxShort=65536"
 *
 * Host 0 receives; hosts 1..L send the long flows (from t = 0); hosts L+1..L+S send the short
 * flows, which arrive as a Poisson process from --warmup on (when the long flows are in the
 * stable stage) for --churn, sizes uniform in [--minShort, --maxShort], at --load of the
 * bottleneck's payload capacity on top of the long flows. Outputs as ldcp-incast, plus
 * short/long statistics in summary.json.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <iomanip>
#include <iostream>
#include <memory>
#include <vector>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RdmaScenario sc("ldcp-churn",
                    "Long flows in the stable stage plus a Poisson churn of short flows with "
                    "zero-RTT fast start, all to one receiver through one switch. Host 0 "
                    "receives; hosts 1..L send the long flows from t = 0; hosts L+1..L+S send the "
                    "short flows, arriving from --warmup on for --churn, sizes uniform in "
                    "[--minShort, --maxShort], at --load of the bottleneck's payload capacity.");
    using Range = rdmacc::Options::Range;
    sc.Opts()
        .Count("long", 4, "number of long flows (hosts 1..L)", Range::Closed(0, 100000))
        .Count("shortHosts", 16, "hosts sending the short flows", Range::Closed(1, 100000))
        .Bytes("longSize", "4000000", "bytes per long flow", Range::AtLeast(1))
        .Bytes("minShort", "4096", "smallest short flow, bytes", Range::AtLeast(1))
        .Bytes("maxShort", "65536", "largest short flow, bytes", Range::AtLeast(1))
        .Real("load",
              0.3,
              "short-flow load, fraction of the bottleneck payload capacity",
              Range::Closed(0, 1))
        .Duration(
            "warmup", "200us", "short flows start after this (long flows reach the stable stage)")
        .Duration("churn", "1ms", "period during which short flows arrive")
        .Text("cdf",
              "none",
              "flow-size CDF file of the short flows (size_bytes cdf_percent a line, e.g. "
              "workloads/WebSearch_distribution.txt); none: uniform in [--minShort, --maxShort]");
    sc.Parse(argc, argv);
    const auto& o = sc.Opts();
    const uint32_t nLong = static_cast<uint32_t>(o.GetCount("long"));
    const uint32_t nShortHosts = static_cast<uint32_t>(o.GetCount("shortHosts"));
    const uint64_t longB = o.GetBytes("longSize");
    const uint64_t minB = o.GetBytes("minShort");
    const uint64_t maxB = o.GetBytes("maxShort");
    const double load = o.GetReal("load");
    const Time warmupT = o.GetTime("warmup");
    const Time churnT = o.GetTime("churn");
    if (uint64_t(nLong) + nShortHosts > 100000)
    {
        rdmacc::ConfigFatal(
            "command line",
            "invalid --long + --shortHosts = " + std::to_string(uint64_t(nLong) + nShortHosts) +
                ": must be <= 100000 hosts");
    }
    const std::string cdfPath = o.GetText("cdf");
    const bool fromCdf = cdfPath != "none";
    if (fromCdf && (o.Given("minShort") || o.Given("maxShort")))
    {
        rdmacc::ConfigFatal(
            "command line",
            "invalid --" + std::string(o.Given("minShort") ? "minShort" : "maxShort") +
                " with --cdf = " + cdfPath + ": the short flows' sizes come from the CDF");
    }
    std::unique_ptr<rdmacc::SizeCdf> cdf;
    if (fromCdf)
    {
        cdf = std::make_unique<rdmacc::SizeCdf>(cdfPath, "--cdf");
    }
    if (minB > maxB)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --minShort = " + std::to_string(minB) +
                                ": must be <= --maxShort (" + std::to_string(maxB) + ")");
    }
    sc.BuildSingleSwitch(1 + nLong + nShortHosts);

    std::vector<bool> isLong;
    for (uint32_t i = 1; i <= nLong; i++)
    {
        sc.AddFlow(i, 0, longB, Seconds(0));
        isLong.push_back(true);
    }
    // Poisson arrivals of short flows (ns-3 random streams: reproducible with --seed)
    const double meanSize = fromCdf ? cdf->MeanBytes() : (double(minB) + double(maxB)) / 2;
    // payload bytes/s of the bottleneck, the same for every scheme (INT's bytes not counted)
    const double capacity = sc.LinkPayloadLimit() / 8;
    // bounded work: the expected arrivals are checked before any is drawn
    rdmacc::CheckChurnArrivals(nLong, load, capacity * 8, meanSize, churnT, o.GetAsText("churn"));
    uint32_t nShort = 0;
    if (load > 0)
    {
        const double meanGapNs = meanSize / (load * capacity) * 1e9;
        Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
        gap->SetAttribute("Mean", DoubleValue(meanGapNs));
        gap->SetStream(1000);
        Ptr<UniformRandomVariable> size = CreateObject<UniformRandomVariable>();
        size->SetStream(1001);
        double t = warmupT.GetNanoSeconds();
        const double end = (warmupT + churnT).GetNanoSeconds();
        std::vector<int64_t> starts;
        while (true)
        {
            t += gap->GetValue();
            if (t >= end)
            {
                break;
            }
            starts.push_back(int64_t(t));
        }
        // sizes: the CDF's (Rust's sampler, seeded by --seed) or uniform (ns-3 stream 1001)
        const std::vector<uint64_t> cdfSizes =
            fromCdf ? cdf->Sample(starts.size(), sc.Seed()) : std::vector<uint64_t>();
        for (size_t i = 0; i < starts.size(); i++)
        {
            const uint64_t bytes = fromCdf ? cdfSizes[i]
                                           : static_cast<uint64_t>(std::llround(
                                                 size->GetValue(double(minB), double(maxB))));
            const uint32_t host = 1 + nLong + (nShort % nShortHosts);
            sc.AddFlow(host, 0, std::max<uint64_t>(bytes, 1), NanoSeconds(starts[i]));
            isLong.push_back(false);
            nShort++;
        }
    }
    rdmacc::CheckChurnFlows(nLong, nShort, o.GetAsText("churn"));
    sc.Run(0);

    const auto flows = sc.Flows();
    std::vector<FlowRecord> shortFlows;
    std::vector<FlowRecord> longFlows;
    uint64_t longDrops = 0;
    uint64_t shortDrops = 0;
    uint64_t longRetx = 0;
    for (const auto& f : flows)
    {
        if (isLong[f.flowId])
        {
            longFlows.push_back(f);
            longDrops += sc.dropsByFlow[f.flowId];
            longRetx += f.retxBytes;
        }
        else
        {
            shortFlows.push_back(f);
            shortDrops += sc.dropsByFlow[f.flowId];
        }
    }
    const auto sFct = rdmacc::Percentiles::Of(rdmacc::Fcts(shortFlows));
    const auto sSlow = rdmacc::Percentiles::Of(rdmacc::Slowdowns(shortFlows));
    rdmacc::JsonObject extra;
    extra.UInt("senders", nLong + nShortHosts)
        .UInt("long_flows", nLong)
        .UInt("short_flows", nShort)
        .UInt("long_flow_drops", longDrops)
        .UInt("long_retx_bytes", longRetx)
        .UInt("short_flow_drops", shortDrops)
        .Obj("short_fct_ns", sFct.ToJson())
        .Obj("short_slowdown", sSlow.ToJson())
        .UInt("base_rtt_ns", sc.BaseRtt(1, 0).GetNanoSeconds());
    sc.Finish(0, extra);
    std::cout << std::fixed << std::setprecision(1) << "  long flows        " << nLong
              << ": frames dropped " << longDrops << ", retransmitted " << longRetx << " B\n"
              << "  short flows       " << nShort << ": FCT us p50 " << sFct.p50 / 1e3 << " p99 "
              << sFct.p99 / 1e3 << "; slowdown p50 " << std::setprecision(2) << sSlow.p50 << " p99 "
              << sSlow.p99 << "; frames dropped " << shortDrops << "\n";
    const int status = sc.ExitStatus();
    Simulator::Destroy();
    return status;
}
