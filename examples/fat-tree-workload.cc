/*
 * fat-tree-workload: any topology, any flows, any scheme. The topology is a k-ary fat tree
 * (--k, with --oversub or --fabricRate and --fabricDelay for the upper tiers, or each tier's own
 * --aggRate --aggDelay --coreRate --coreDelay) or a topology file
 * of the HPCC simulator (--topology); the flows come from the Poisson generator (--load --cdf
 * --pattern --duration --seed: flow sizes from a CDF file, destinations by pattern) or from a
 * flow file of the HPCC simulator (--flows). The run ends when every flow is done; besides the
 * shared outputs it reports the FCT slowdown per flow-size bucket (buckets.csv, and a table),
 * the FCT and throughput of mice (< 1 MB), medium and elephant (> 10 MB) flows (summary.json's
 * fct_by_size, as the RCM paper's Fig. 9), and with --pattern=hotspot those of the hot and the
 * background flows (fct.csv's class column and fct_by_class, as its Fig. 8).
 *
 *   ./waf --run "fat-tree-workload --k=4 --load=0.3 --duration=1ms"
 *   ./waf --run "fat-tree-workload --k=8 --oversub=2 --pattern=hotspot --cc=dcqcn"
 *   ./waf --run "fat-tree-workload --topology=workloads/fat-tree-320.txt
 *                --flows=workloads/websearch-320hosts-load30-5ms.flows --cc=dcqcn"
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#endif

#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
const char* const kName = "fat-tree-workload";
const char* const kHelp =
    "Any topology, any flows, any scheme (--cc). Topology: a k-ary fat tree (--k; upper tiers "
    "--fabricRate or --oversub, --fabricDelay; per tier --aggRate, --aggDelay (edge-"
    "aggregation), --coreRate, --coreDelay (aggregation-core)) or --topology=FILE (the HPCC "
    "simulator's format). Flows: Poisson arrivals per host for --duration whose payload is "
    "--load of the host's link rate, sizes from --cdf, destinations by --pattern, random "
    "numbers from --seed; "
    "or --flows=FILE (the HPCC simulator's format). The run ends when every flow is done; "
    "outputs summary.json, fct.csv, buckets.csv (FCT slowdown p50/p95/p99 per flow-size "
    "bucket) and the fabric's CSVs.";

/// Declares the example's options on a scenario: the topology's, the flows', and its own.
void
Declare(RdmaScenario& sc)
{
    rdmacc::DeclareTopologyOptions(sc.Opts());
    rdmacc::DeclareFlowOptions(sc.Opts());
    sc.Opts()
        .Duration("rateSample",
                  "0",
                  "write rates.csv: every flow's delivered bytes and rate at this interval (0: "
                  "no rates.csv)",
                  rdmacc::Options::Range::AtLeast(0))
        .Bool("mpi",
              false,
              "distributed run on ns-3's MPI engine (start with mpirun -np N; needs ./waf "
              "configure --ns3=mpi): the fabric split by pod among the ranks; ends 10 us after "
              "the last flow (the ranks sum their finished flows every 10 us), or at --limit")
        .Choice("mpiScheduler",
                "distributed",
                {"distributed", "nullmessage"},
                "--mpi: ns-3's distributed simulator: distributed (granted time windows, "
                "DistributedSimulatorImpl) or nullmessage (NullMessageSimulatorImpl)")
        .Default("limit", "10s");
}
} // namespace

int
main(int argc, char* argv[])
{
    // --mpi: MPI and ns-3's distributed simulator before anything touches the simulator (the
    // options are checked again by the parse below)
    bool mpi = false;
    std::string mpiScheduler = "distributed";
    for (int i = 1; i < argc; i++)
    {
        const std::string a = argv[i];
        if (a == "--mpi" || a == "--mpi=1" || a == "--mpi=true")
        {
            mpi = true;
        }
        else if (a.rfind("--mpiScheduler=", 0) == 0)
        {
            mpiScheduler = a.substr(15);
        }
    }
    if (mpi)
    {
#ifdef NS3_MPI
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue(mpiScheduler == "nullmessage"
                                          ? "ns3::NullMessageSimulatorImpl"
                                          : "ns3::DistributedSimulatorImpl"));
        MpiInterface::Enable(&argc, &argv);
#else
        rdmacc::ConfigFatal("command line",
                            "invalid --mpi = 1: this build has no MPI (build against an ns-3 "
                            "with MPI: ./waf configure --ns3=mpi)");
#endif
    }
    // the first parse checks the command line (and answers --help); the topology is made or
    // read, and the flow file checked, before anything is built or written
    rdmacc::ChosenTopology topo;
    std::vector<HpccFlow> fileFlows;
    {
        RdmaScenario probe(kName, kHelp);
        Declare(probe);
        probe.Opts().Parse(argc, argv);
        rdmacc::RefuseUnusedWorkloadOptions(probe.Opts());
        topo = rdmacc::TopologyFromOptions(probe.Opts());
        const std::string flowsPath = probe.Opts().GetText("flows");
        if (flowsPath != "none")
        {
            fileFlows = rdmacc::ReadHpccFlows(flowsPath, topo.topology, "--flows");
        }
    }
    RdmaScenario sc(kName, kHelp);
    Declare(sc);
    if (!topo.FatTree())
    {
        rdmacc::DefaultLinkOf(sc.Opts(), topo.topology);
    }
    sc.Parse(argc, argv);
    const auto& o = sc.Opts();
#ifdef NS3_MPI
    if (mpi)
    {
        sc.SetDistributed(rdmacc::PartitionTopology(topo.topology, MpiInterface::GetSize()));
    }
#endif
    rdmacc::BuildTopology(sc, topo.topology, topo.name);
    sc.EnableSizeBuckets();
    sc.EnableSizeClasses();
    if (o.GetTime("rateSample").IsStrictlyPositive())
    {
        sc.EnableRateSeries(o.GetTime("rateSample"));
    }

    // what summary.json says about the workload, besides the shared keys
    rdmacc::JsonObject extra;
    extra.Str("topology", topo.name);
    if (topo.FatTree())
    {
        extra.UInt("k", topo.k).Num("oversub", topo.oversub);
    }
    extra.UInt("hosts", sc.fabric.hosts.GetN())
        .UInt("switches", sc.fabric.switches.size())
        .UInt("links", topo.topology.links.size());
    // the flows: the first --maxFlows of --flows, or the generator's
    rdmacc::AddFlowsFromOptions(sc, fileFlows, extra);
    const uint32_t busiest = sc.SetBottleneckAtBusiestReceiver();
    extra.UInt("bottleneck_host", sc.fabric.hosts.Get(busiest)->GetId())
        .UInt("bottleneck_switch", sc.bottleneckSwitch->GetId())
        .UInt("bottleneck_port", sc.BottleneckPort());

    sc.Run();

    if (topo.FatTree())
    {
        // data bytes each core switch sent: ECMP's spread over the core
        extra.UIntList("core_data_bytes", rdmacc::CoreDataBytes(sc, topo.k));
    }
    sc.Finish(extra);
    const int status = sc.ExitStatus();
    Simulator::Destroy();
#ifdef NS3_MPI
    if (mpi)
    {
        MpiInterface::Disable();
    }
#endif
    return status;
}
