/*
 * ldcp-incast: N senders -> 1 receiver through one switch, all starting together, with any
 * congestion control (--cc=ldcp, ldcp-rate, dcqcn, none). The project's main example.
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
    RdmaScenario sc("ldcp-incast",
                    "N senders -> 1 receiver through one switch, all starting together, with any "
                    "congestion control (--cc). Hosts 1..N send --size bytes each to host 0; "
                    "--reverse=M adds M flows of the same size from host 0 to hosts 1..M.");
    sc.Opts()
        .Count("senders",
               16,
               "number of senders (hosts 1..N send to host 0)",
               rdmacc::Options::Range::Closed(1, 100000))
        .Bytes("size", "262144", "message bytes per sender", rdmacc::Options::Range::AtLeast(1))
        .Count("reverse",
               0,
               "flows in the other direction: host 0 sends --size bytes to each of hosts 1..M "
               "(M <= --senders)",
               rdmacc::Options::Range::Closed(0, 100000));
    sc.Parse(argc, argv);
    const uint32_t senders = static_cast<uint32_t>(sc.Opts().GetCount("senders"));
    const uint64_t size = sc.Opts().GetBytes("size");
    const uint32_t reverse = static_cast<uint32_t>(sc.Opts().GetCount("reverse"));
    if (reverse > senders)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --reverse = " + std::to_string(reverse) +
                                ": must be <= --senders (" + std::to_string(senders) + ")");
    }
    sc.BuildSingleSwitch(senders + 1);
    for (uint32_t i = 1; i <= senders; i++)
    {
        sc.AddFlow(i, 0, size, Seconds(0));
    }
    for (uint32_t i = 1; i <= reverse; i++)
    {
        sc.AddFlow(0, i, size, Seconds(0));
    }
    const Time baseRtt = sc.BaseRtt(1, 0);
    sc.Run(0); // host 0's switch port is the bottleneck

    rdmacc::JsonObject extra;
    extra.UInt("senders", senders)
        .UInt("size_bytes", size)
        .UInt("reverse_flows", reverse)
        .UInt("base_rtt_ns", baseRtt.GetNanoSeconds());
    sc.Finish(0, extra);
    const int status = sc.ExitStatus();
    Simulator::Destroy();
    return status;
}
