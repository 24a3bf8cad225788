/*
 * ldcp-incast: N senders -> 1 receiver through one switch, all starting together, with any
 * congestion control (--cc=ldcp, ldcp-rate, none). The project's main example.
 *
 *   ./waf --run ldcp-incast
 *   ./waf --run "ldcp-incast --senders=64 --size=65536 --cc=ldcp"
 *   ./waf --run "ldcp-incast --cc=none"            # line rate, PFC off: the losses LDCP avoids
 *
 * Prints a summary table and writes OUT/summary.json, OUT/fct.csv, OUT/queue.csv, OUT/pfc.csv,
 * OUT/drops.csv (README "Outputs"). Defaults: 16 senders, 100 Gb/s, 1 us links, 256 KB each.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    RdmaScenario sc("ldcp-incast");
    uint32_t senders = 16;
    double size = 256 * 1024;
    std::string limit = "1s";

    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders (hosts 1..N send to host 0)", senders);
    cmd.AddValue("size", "message bytes per sender", size);
    cmd.AddValue("limit", "simulated time limit (the run ends when every flow is done)", limit);
    sc.AddOptions(cmd);
    cmd.Parse(argc, argv);

    if (senders == 0 || senders > 100000)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --senders = " + std::to_string(senders) +
                                ": must be in [1, 100000]");
    }
    const uint64_t sizeB = rdmacc::CheckedBytes("--size", size, 1);
    const Time limitT = NanoSeconds(rdmacc::CheckedTimeNs("--limit", limit));
    sc.Validate();
    sc.BuildSingleSwitch(senders + 1);
    for (uint32_t i = 1; i <= senders; i++)
    {
        sc.AddFlow(i, 0, sizeB, Seconds(0));
    }
    const Time baseRtt = sc.BaseRtt(1, 0);
    sc.Run(limitT, 0); // host 0's switch port is the bottleneck

    rdmacc::JsonObject extra;
    extra.UInt("senders", senders)
        .UInt("size_bytes", sizeB)
        .UInt("base_rtt_ns", baseRtt.GetNanoSeconds())
        .UInt("iw_bytes", sc.IwBytes(baseRtt));
    sc.Finish(0, extra);
    Simulator::Destroy();
    return 0;
}
