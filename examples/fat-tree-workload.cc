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
/// Stops the program (exit 2) if any of `options` was given: they belong to what `other`
/// replaces.
void
RefuseWith(const rdmacc::Options& o,
           const std::vector<std::string>& options,
           const std::string& other,
           const std::string& what)
{
    for (const auto& n : options)
    {
        if (o.Given(n))
        {
            rdmacc::ConfigFatal("command line",
                                "invalid --" + n + " = " + o.GetAsText(n) + ": applies to the " +
                                    what + ", which " + other + " replaces");
        }
    }
}

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

/// Declares the example's options on a scenario.
void
Declare(RdmaScenario& sc)
{
    sc.Opts()
        .Count("k", 4, "fat tree: switch radix (even): k^3/4 hosts, 5k^2/4 switches")
        .Real("oversub",
              1,
              "fat tree: oversubscription of the edge switches, r:1 (the links above the edge "
              "run at --rate / r) when --fabricRate is auto",
              rdmacc::Options::Range::Closed(1, 1000))
        .Rate("fabricRate",
              "auto",
              "fat tree: rate of the edge-aggregation and aggregation-core links",
              rdmacc::Options::Range::Above(0),
              "--rate / --oversub")
        .Duration("fabricDelay",
                  "auto",
                  "fat tree: one-way delay of the edge-aggregation and aggregation-core links",
                  rdmacc::Options::Range::AtLeast(0),
                  "--delay")
        .Rate("aggRate",
              "auto",
              "fat tree: rate of the edge-aggregation links (the tier above the edge switches)",
              rdmacc::Options::Range::Above(0),
              "--fabricRate")
        .Duration("aggDelay",
                  "auto",
                  "fat tree: one-way delay of the edge-aggregation links",
                  rdmacc::Options::Range::AtLeast(0),
                  "--fabricDelay")
        .Rate("coreRate",
              "auto",
              "fat tree: rate of the aggregation-core links (the tier between the pods)",
              rdmacc::Options::Range::Above(0),
              "--fabricRate")
        .Duration("coreDelay",
                  "auto",
                  "fat tree: one-way delay of the aggregation-core links",
                  rdmacc::Options::Range::AtLeast(0),
                  "--fabricDelay")
        .Text("topology",
              "none",
              "topology file of the HPCC simulator instead of the fat tree (none: the fat tree)")
        .Text("flows",
              "none",
              "flow file of the HPCC simulator for the topology, instead of the generator "
              "(none: generate)")
        .Count("maxFlows", 0, "--flows: run only the first N flows of the file (0: every flow)")
        .Real("load",
              0.3,
              "generator: payload each host offers, a fraction of its link rate (incast: of the "
              "receiver's)",
              rdmacc::Options::Range::AboveAtMost(0, 1))
        .Text("cdf",
              "workloads/WebSearch_distribution.txt",
              "generator: flow-size CDF file (size_bytes cdf_percent a line)")
        .Choice("pattern",
                "uniform",
                {"uniform", "group", "hotspot", "incast"},
                "generator: destinations: uniform (any other host), group (within groups of "
                "--group hosts), hotspot (--hotspotTraffic of the flows to --hotspotHosts of the "
                "hosts), incast (--incastSenders hosts send to one together)")
        .Duration("duration",
                  "1ms",
                  "generator: flows arrive during [0, duration)",
                  rdmacc::Options::Range::Above(0))
        .Count("group",
               4,
               "generator, group: hosts per group, at most the hosts (16 for --k=4, k^3/4)",
               rdmacc::Options::Range::AtLeast(2))
        .Real("hotspotTraffic",
              0.5,
              "generator, hotspot: share of the flows that go to the hot hosts",
              rdmacc::Options::Range::Closed(0, 1))
        .Real("hotspotHosts",
              0.1,
              "generator, hotspot: share of the hosts that are hot",
              rdmacc::Options::Range::Open(0, 1))
        .Count("incastSenders",
               8,
               "generator, incast: senders of each burst, fewer than the hosts (at most 15 for "
               "--k=4)",
               rdmacc::Options::Range::AtLeast(1))
        .Duration("rateSample",
                  "0",
                  "write rates.csv: every flow's delivered bytes and rate at this interval (0: "
                  "no rates.csv)",
                  rdmacc::Options::Range::AtLeast(0))
        .Bool("mpi",
              false,
              "distributed run on ns-3's MPI engine (start with mpirun -np N; needs ./waf "
              "configure --ns3=mpi): the fabric split by pod among the ranks; ends at --limit")
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
    std::string topoPath;
    std::string flowsPath;
    HpccTopology topo;
    uint32_t k = 0;
    double oversub = 1;
    {
        RdmaScenario probe(kName, kHelp);
        Declare(probe);
        auto& o = probe.Opts();
        o.Parse(argc, argv);
        topoPath = o.GetText("topology");
        flowsPath = o.GetText("flows");
        if (flowsPath != "none")
        {
            RefuseWith(o,
                       {"load",
                        "cdf",
                        "pattern",
                        "duration",
                        "group",
                        "hotspotTraffic",
                        "hotspotHosts",
                        "incastSenders"},
                       "--flows",
                       "generator");
        }
        else
        {
            RefuseWith(o, {"maxFlows"}, "the generator (no --flows)", "flow file");
        }
        if (topoPath != "none")
        {
            RefuseWith(o,
                       {"k",
                        "oversub",
                        "fabricRate",
                        "fabricDelay",
                        "aggRate",
                        "aggDelay",
                        "coreRate",
                        "coreDelay"},
                       "--topology",
                       "fat tree");
            topo = rdmacc::ReadHpccTopology(topoPath, "--topology");
        }
        else
        {
            if (!o.IsAuto("fabricRate") && o.Given("oversub"))
            {
                rdmacc::ConfigFatal("command line",
                                    "invalid --oversub = " + o.GetAsText("oversub") +
                                        ": give --oversub or --fabricRate, not both (--oversub "
                                        "sets the fabric's rate to --rate / --oversub)");
            }
            k = static_cast<uint32_t>(std::min<uint64_t>(o.GetCount("k"), 1u << 31));
            const uint64_t rate = o.GetRate("rate");
            const uint64_t fabricRate =
                o.IsAuto("fabricRate") ? static_cast<uint64_t>(double(rate) / o.GetReal("oversub"))
                                       : o.GetRate("fabricRate");
            if (fabricRate == 0)
            {
                // the fabric's rate derived from the options given: name them, not --fabricRate
                rdmacc::ConfigFatal("command line",
                                    "invalid --oversub = " + o.GetAsText("oversub") +
                                        ": --rate / --oversub = " + o.GetAsText("rate") + " / " +
                                        o.GetAsText("oversub") +
                                        " is below 1 bit/s (the fabric's links need a rate)");
            }
            // each tier: its own option, else the fabric's
            const uint64_t aggRate = o.IsAuto("aggRate") ? fabricRate : o.GetRate("aggRate");
            const uint64_t coreRate = o.IsAuto("coreRate") ? fabricRate : o.GetRate("coreRate");
            // the edge switches' oversubscription: host links against the links above them
            oversub = double(rate) / double(aggRate);
            const Time delay = o.GetTime("delay");
            const Time fabricDelay = o.IsAuto("fabricDelay") ? delay : o.GetTime("fabricDelay");
            const Time aggDelay = o.IsAuto("aggDelay") ? fabricDelay : o.GetTime("aggDelay");
            const Time coreDelay = o.IsAuto("coreDelay") ? fabricDelay : o.GetTime("coreDelay");
            topo = rdmacc::FatTreeTopology(
                k, rdmacc::FatTreeTiers{rate, aggRate, coreRate, delay, aggDelay, coreDelay});
        }
    }
    const std::string topoName = topoPath != "none" ? topoPath : "fat tree k=" + std::to_string(k);
    std::vector<HpccFlow> fileFlows;
    if (flowsPath != "none")
    {
        fileFlows = rdmacc::ReadHpccFlows(flowsPath, topo, "--flows");
    }

    RdmaScenario sc(kName, kHelp);
    Declare(sc);
    if (topoPath != "none")
    {
        rdmacc::DefaultLinkOf(sc.Opts(), topo);
    }
    sc.Parse(argc, argv);
    const auto& o = sc.Opts();
#ifdef NS3_MPI
    if (mpi)
    {
        sc.SetDistributed(rdmacc::PartitionTopology(topo, MpiInterface::GetSize()));
    }
#endif
    rdmacc::BuildTopology(sc, topo, topoName);
    sc.EnableSizeBuckets();
    sc.EnableSizeClasses();
    if (o.GetTime("rateSample").IsStrictlyPositive())
    {
        sc.EnableRateSeries(o.GetTime("rateSample"));
    }

    rdmacc::JsonObject extra;
    extra.Str("topology", topoName);
    if (topoPath == "none")
    {
        extra.UInt("k", k).Num("oversub", oversub);
    }
    extra.UInt("hosts", sc.fabric.hosts.GetN())
        .UInt("switches", sc.fabric.switches.size())
        .UInt("links", topo.links.size());
    if (flowsPath != "none")
    {
        const uint64_t maxFlows = o.GetCount("maxFlows");
        const size_t n =
            maxFlows == 0 ? fileFlows.size() : std::min<size_t>(fileFlows.size(), maxFlows);
        extra.Str("flows_from", flowsPath)
            .UInt("flows_in_file", fileFlows.size())
            .UInt("file_priority_not_honoured", rdmacc::AddFileFlows(sc, fileFlows, n, flowsPath));
    }
    else
    {
        rdmacc::GeneratorSettings g;
        g.cdfPath = o.GetText("cdf");
        g.cdfOption = "--cdf";
        g.pattern = o.GetText("pattern");
        g.load = o.GetReal("load");
        g.start = Seconds(0);
        g.duration = o.GetTime("duration");
        g.seed = sc.Seed();
        g.group = static_cast<uint32_t>(std::min<uint64_t>(o.GetCount("group"), UINT32_MAX));
        g.hotspotTraffic = o.GetReal("hotspotTraffic");
        g.hotspotHosts = o.GetReal("hotspotHosts");
        g.incastSenders =
            static_cast<uint32_t>(std::min<uint64_t>(o.GetCount("incastSenders"), UINT32_MAX));
        const rdmacc::GeneratedWorkload w = rdmacc::AddGeneratedFlows(sc, g);
        extra.Str("flows_from", "generator")
            .Str("pattern", g.pattern)
            .Str("cdf", g.cdfPath)
            .Num("load", g.load)
            .UInt("duration_ns", g.duration.GetNanoSeconds())
            .Num("cdf_mean_bytes", w.meanBytes)
            .Num("offered_load", w.offeredLoad)
            .UInt("generated_flows", w.flows)
            .UInt("generated_bytes", w.bytes);
        // hosts by node id, as fct.csv names them
        auto nodeIds = [&sc](const std::vector<uint64_t>& hosts)
        {
            std::vector<uint64_t> ids;
            for (uint64_t h : hosts)
            {
                ids.push_back(sc.fabric.hosts.Get(h)->GetId());
            }
            return ids;
        };
        if (g.pattern == "hotspot")
        {
            extra.UIntList("hot_hosts", nodeIds(w.hotHosts));
            // RCM (NPC 2017) Fig. 8: a flow to a hot host is a hot flow, any other a background
            // flow (the generator sends a host's hot share to the hot hosts, the rest to the
            // others)
            std::vector<bool> hot(sc.fabric.hosts.GetN(), false);
            for (uint64_t h : w.hotHosts)
            {
                hot.at(h) = true;
            }
            std::vector<std::string> classOf(w.firstFlowId + w.dstHosts.size());
            for (size_t i = 0; i < w.dstHosts.size(); i++)
            {
                classOf[w.firstFlowId + i] = hot.at(w.dstHosts[i]) ? "hot" : "background";
            }
            sc.SetFlowClasses(std::move(classOf), {"hot", "background"});
        }
        if (w.incastReceiver >= 0)
        {
            extra.UInt("incast_receiver", sc.fabric.hosts.Get(w.incastReceiver)->GetId())
                .UIntList("incast_senders", nodeIds(w.incastSenders));
        }
    }
    const uint32_t busiest = sc.SetBottleneckAtBusiestReceiver();
    extra.UInt("bottleneck_host", sc.fabric.hosts.Get(busiest)->GetId())
        .UInt("bottleneck_switch", sc.bottleneckSwitch->GetId())
        .UInt("bottleneck_port", sc.BottleneckPort());

    sc.Run();

    if (topoPath == "none")
    {
        // data bytes each core switch sent (ECMP's spread over the core): the cores are the
        // first (k/2)^2 switches
        std::vector<uint64_t> coreBytes;
        for (uint32_t c = 0; c < (k / 2) * (k / 2); c++)
        {
            const Ptr<SwitchNode> s = sc.fabric.switches.at(c);
            uint64_t b = 0;
            for (uint32_t p = 0; p < s->GetNPorts(); p++)
            {
                b += s->GetPort(p)->GetStats().txDataBytes;
            }
            coreBytes.push_back(b);
        }
        extra.UIntList("core_data_bytes", coreBytes);
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
