/*
 * hpcc-run: runs the HPCC simulator's input files unchanged — a topology file and a flow file
 * (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019; the files of its public
 * simulator) — under any scheme of this module.
 *
 *   ./waf --run hpcc-run                              # fat-tree-320 + 3201 web-search flows
 *   ./waf --run "hpcc-run --cc=dcqcn --maxFlows=50"
 *   ./waf --run "hpcc-run --topo=my-topology.txt --flows=my.flows --cc=none --pfc=1"
 *
 * The files are parsed and checked in Rust (rdma-cc-workload); a bad file stops the run before
 * anything is built or written (exit 2, one line naming the file, the line, the field and the
 * value). Every node of the topology file is created in id order (so ns-3 node ids, and the
 * src/dst of fct.csv, are the file's ids); every link gets its own rate and delay. Each flow
 * starts at its own time between its two hosts; the file's priority and dport are recorded,
 * not honoured (every flow runs in the NIC's data priority; ports are the NIC's). The reported
 * bottleneck is the egress port toward the receiver of the most bytes.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <iostream>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
const char* const kName = "hpcc-run";
const char* const kHelp =
    "Runs a topology file and a flow file of the HPCC simulator unchanged: --topo (line 1: nodes "
    "switches links; line 2: the switch ids; then src dst rate delay error_rate a line) and "
    "--flows (line 1: the count; then src dst priority dport bytes start_seconds a line). Each "
    "flow starts at its time; the run ends when every flow is done. --rate and --delay default "
    "to the link of the topology's lowest-numbered host (they set the marking's starting point; "
    "every link has the file's rate and delay).";

/// Declares the example's options on a scenario.
void
Declare(RdmaScenario& sc)
{
    sc.Opts()
        .Text("topo",
              "workloads/fat-tree-320.txt",
              "topology file of the HPCC simulator (a path relative to the current directory; "
              "./waf --run runs in the checkout)")
        .Text("flows",
              "workloads/websearch-320hosts-load30-5ms.flows",
              "flow file of the HPCC simulator, for the hosts of --topo")
        .Count("maxFlows", 0, "run only the first N flows of the file (0: every flow)")
        .Default("limit", "3s");
}
} // namespace

int
main(int argc, char* argv[])
{
    // the first parse checks the command line (and answers --help) and names the files
    std::string topoPath;
    std::string flowsPath;
    {
        RdmaScenario probe(kName, kHelp);
        Declare(probe);
        probe.Opts().Parse(argc, argv);
        topoPath = probe.Opts().GetText("topo");
        flowsPath = probe.Opts().GetText("flows");
    }
    // both files are checked whole before anything is built or written
    const HpccTopology topo = rdmacc::ReadHpccTopology(topoPath, "--topo");
    const std::vector<HpccFlow> fileFlows = rdmacc::ReadHpccFlows(flowsPath, topo, "--flows");
    RdmaScenario sc(kName, kHelp);
    Declare(sc);
    // --rate and --delay: those of the lowest-numbered host's link (the marking's starting
    // point follows them; given values win)
    rdmacc::DefaultLinkOf(sc.Opts(), topo);
    sc.Parse(argc, argv);
    const uint64_t maxFlows = sc.Opts().GetCount("maxFlows");
    const size_t nFlows =
        maxFlows == 0 ? fileFlows.size() : std::min<size_t>(fileFlows.size(), maxFlows);
    rdmacc::BuildTopology(sc, topo, topoPath);
    const Fabric& fabric = sc.fabric;
    // the flows, at their times, each on the data priority of the file's priority column
    rdmacc::AddFileFlows(sc, fileFlows, nFlows, flowsPath);

    // the reported bottleneck: the egress port toward the receiver of the most bytes (the
    // lowest file id among equals: host indexes follow the file ids), on the switch its one
    // link leads to
    const int32_t busiestHost = static_cast<int32_t>(sc.SetBottleneckAtBusiestReceiver());
    uint32_t busiest = 0;
    uint32_t tor = 0;
    for (uint32_t id = 0; id < topo.nodes; id++)
    {
        if (fabric.hostOfFileId[id] == busiestHost)
        {
            busiest = id;
        }
        if (fabric.switchOfFileId[id] >= 0 &&
            fabric.switches[fabric.switchOfFileId[id]] == sc.bottleneckSwitch)
        {
            tor = id;
        }
    }

    sc.Run();

    rdmacc::JsonObject extra;
    extra.Str("topology_file", topoPath)
        .Str("flow_file", flowsPath)
        .UInt("hosts", fabric.hosts.GetN())
        .UInt("switches", fabric.switches.size())
        .UInt("links", topo.links.size())
        .UInt("flows_in_file", fileFlows.size())
        .UInt("bottleneck_host", busiest)
        .UInt("bottleneck_switch", tor)
        .UInt("bottleneck_port", sc.BottleneckPort());
    sc.Finish(extra);
    const int status = sc.ExitStatus();
    Simulator::Destroy();
    return status;
}
