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

using namespace ns3;

int
main(int argc, char* argv[])
{
    RdmaScenario sc("ldcp-churn");
    uint32_t nLong = 4;
    uint32_t nShortHosts = 16;
    double longSize = 4e6;
    double minShort = 4096;
    double maxShort = 65536;
    double load = 0.3;
    std::string warmup = "200us";
    std::string churn = "1ms";
    std::string limit = "1s";

    CommandLine cmd(__FILE__);
    cmd.AddValue("long", "number of long flows (hosts 1..L)", nLong);
    cmd.AddValue("shortHosts", "hosts sending the short flows", nShortHosts);
    cmd.AddValue("longSize", "bytes per long flow", longSize);
    cmd.AddValue("minShort", "smallest short flow, bytes", minShort);
    cmd.AddValue("maxShort", "largest short flow, bytes", maxShort);
    cmd.AddValue("load", "short-flow load, fraction of the bottleneck payload capacity", load);
    cmd.AddValue(
        "warmup", "short flows start after this (long flows reach the stable stage)", warmup);
    cmd.AddValue("churn", "period during which short flows arrive", churn);
    cmd.AddValue("limit", "simulated time limit (the run ends when every flow is done)", limit);
    sc.AddOptions(cmd);
    cmd.Parse(argc, argv);

    if (nShortHosts == 0 || nLong + nShortHosts > 100000)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --shortHosts: must be >= 1 (and hosts <= 100000)");
    }
    const uint64_t longB = rdmacc::CheckedBytes("--longSize", longSize, nLong > 0 ? 1 : 0);
    const uint64_t minB = rdmacc::CheckedBytes("--minShort", minShort);
    const uint64_t maxB = rdmacc::CheckedBytes("--maxShort", maxShort);
    if (minB == 0 || minB > maxB)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --minShort = " + std::to_string(minB) +
                                ": must be in [1, --maxShort (" + std::to_string(maxB) + ")]");
    }
    rdmacc::CheckedRange("--load", load, 0, 1);
    const Time warmupT = NanoSeconds(rdmacc::CheckedTimeNs("--warmup", warmup));
    const Time churnT = NanoSeconds(rdmacc::CheckedTimeNs("--churn", churn));
    const Time limitT = NanoSeconds(rdmacc::CheckedTimeNs("--limit", limit));
    sc.Validate();
    sc.BuildSingleSwitch(1 + nLong + nShortHosts);

    std::vector<bool> isLong;
    for (uint32_t i = 1; i <= nLong; i++)
    {
        sc.AddFlow(i, 0, longB, Seconds(0));
        isLong.push_back(true);
    }
    // Poisson arrivals of short flows (ns-3 random streams: reproducible with --seed)
    const double meanSize = (double(minB) + double(maxB)) / 2;
    const double capacity = DataRate(sc.rate).GetBitRate() * double(sc.mtu) /
                            (sc.mtu + RoceHeader::DATA_OVERHEAD + QbbNetDevice::PREAMBLE_IFG) / 8;
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
        while (true)
        {
            t += gap->GetValue();
            if (t >= end)
            {
                break;
            }
            const uint64_t bytes =
                static_cast<uint64_t>(std::llround(size->GetValue(double(minB), double(maxB))));
            const uint32_t host = 1 + nLong + (nShort % nShortHosts);
            sc.AddFlow(host, 0, std::max<uint64_t>(bytes, 1), NanoSeconds(int64_t(t)));
            isLong.push_back(false);
            nShort++;
        }
    }
    sc.Run(limitT, 0);

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
    Simulator::Destroy();
    return 0;
}
