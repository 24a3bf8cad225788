/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-options.h"

#include "rdma-cc-output.h"
#include "rdma-scenario.h"
#include "workload-helper.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rust/cxx.h"

#include <algorithm>

namespace ns3
{
namespace rdmacc
{

namespace
{
/// Stops the program (exit 2) if any of `options` was given: they belong to what `other`
/// replaces.
void
RefuseWith(const Options& o,
           const std::vector<std::string>& options,
           const std::string& other,
           const std::string& what)
{
    for (const auto& n : options)
    {
        if (o.Given(n))
        {
            ConfigFatal("command line",
                        "invalid --" + n + " = " + o.GetAsText(n) + ": applies to the " + what +
                            ", which " + other + " replaces");
        }
    }
}

/// \return the node ids of `hosts` (indexes into the fabric's hosts), as fct.csv names them
std::vector<uint64_t>
NodeIds(const RdmaScenario& sc, const std::vector<uint64_t>& hosts)
{
    std::vector<uint64_t> ids;
    for (uint64_t h : hosts)
    {
        ids.push_back(sc.fabric.hosts.Get(h)->GetId());
    }
    return ids;
}

/// --pattern=hotspot, RCM (NPC 2017) Fig. 8: a flow to a hot host is a hot flow, any other a
/// background flow (the generator sends a host's hot share to the hot hosts, the rest to the
/// others)
void
SetHotClasses(RdmaScenario& sc, const GeneratedWorkload& w)
{
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

/// Generates the flows of the generator's options and adds them to `sc`; records them in
/// `extra`.
void
AddGeneratorFlows(RdmaScenario& sc, JsonObject& extra)
{
    const auto& o = sc.Opts();
    GeneratorSettings g;
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
    g.readFraction = o.GetReal("readFraction");
    g.classes = o.GetText("classes");
    const GeneratedWorkload w = AddGeneratedFlows(sc, g);
    extra.Str("flows_from", "generator")
        .Str("pattern", g.pattern)
        .Str("cdf", g.cdfPath)
        .Num("load", g.load)
        .UInt("duration_ns", g.duration.GetNanoSeconds())
        .Num("cdf_mean_bytes", w.meanBytes)
        .Num("offered_load", w.offeredLoad)
        .UInt("generated_flows", w.flows)
        .UInt("generated_bytes", w.bytes);
    if (g.readFraction > 0)
    {
        // only then: runs without READs keep their outputs
        extra.Num("read_fraction", g.readFraction).UInt("generated_reads", w.reads);
    }
    if (g.classes != "none")
    {
        extra.Str("class_mix", g.classes);
    }
    if (g.pattern == "hotspot")
    {
        extra.UIntList("hot_hosts", NodeIds(sc, w.hotHosts));
        SetHotClasses(sc, w);
    }
    if (w.incastReceiver >= 0)
    {
        extra.UInt("incast_receiver", sc.fabric.hosts.Get(w.incastReceiver)->GetId())
            .UIntList("incast_senders", NodeIds(sc, w.incastSenders));
    }
}
} // namespace

void
DeclareTopologyOptions(Options& opts)
{
    using Range = Options::Range;
    opts.Count("k", 4, "fat tree: switch radix (even): k^3/4 hosts, 5k^2/4 switches")
        .Real("oversub",
              1,
              "fat tree: oversubscription of the edge switches, r:1 (the links above the edge "
              "run at --rate / r) when --fabricRate is auto",
              Range::Closed(1, 1000))
        .Rate("fabricRate",
              "auto",
              "fat tree: rate of the edge-aggregation and aggregation-core links",
              Range::Above(0),
              "--rate / --oversub")
        .Duration("fabricDelay",
                  "auto",
                  "fat tree: one-way delay of the edge-aggregation and aggregation-core links",
                  Range::AtLeast(0),
                  "--delay")
        .Rate("aggRate",
              "auto",
              "fat tree: rate of the edge-aggregation links (the tier above the edge switches)",
              Range::Above(0),
              "--fabricRate")
        .Duration("aggDelay",
                  "auto",
                  "fat tree: one-way delay of the edge-aggregation links",
                  Range::AtLeast(0),
                  "--fabricDelay")
        .Rate("coreRate",
              "auto",
              "fat tree: rate of the aggregation-core links (the tier between the pods)",
              Range::Above(0),
              "--fabricRate")
        .Duration("coreDelay",
                  "auto",
                  "fat tree: one-way delay of the aggregation-core links",
                  Range::AtLeast(0),
                  "--fabricDelay")
        .Text("topology",
              "none",
              "topology file of the HPCC simulator instead of the fat tree (none: the fat tree)");
}

void
DeclareFlowOptions(Options& opts)
{
    using Range = Options::Range;
    opts.Text("flows",
              "none",
              "flow file of the HPCC simulator for the topology, instead of the generator "
              "(none: generate)")
        .Count("maxFlows", 0, "--flows: run only the first N flows of the file (0: every flow)")
        .Real("load",
              0.3,
              "generator: payload each host offers, a fraction of its link rate (incast: of the "
              "receiver's)",
              Range::AboveAtMost(0, 1))
        .Text("cdf",
              "workloads/WebSearch_distribution.txt",
              "generator: flow-size CDF file (size_bytes cdf_percent a line)")
        .Choice("pattern",
                "uniform",
                {"uniform", "group", "hotspot", "incast"},
                "generator: destinations: uniform (any other host), group (within groups of "
                "--group hosts), hotspot (--hotspotTraffic of the flows to --hotspotHosts of the "
                "hosts), incast (--incastSenders hosts send to one together)")
        .Duration(
            "duration", "1ms", "generator: flows arrive during [0, duration)", Range::Above(0))
        .Count("group",
               4,
               "generator, group: hosts per group, at most the hosts (16 for --k=4, k^3/4)",
               Range::AtLeast(2))
        .Real("hotspotTraffic",
              0.5,
              "generator, hotspot: share of the flows that go to the hot hosts",
              Range::Closed(0, 1))
        .Real("hotspotHosts",
              0.1,
              "generator, hotspot: share of the hosts that are hot",
              Range::Open(0, 1))
        .Count("incastSenders",
               8,
               "generator, incast: senders of each burst, fewer than the hosts (at most 15 for "
               "--k=4)",
               Range::AtLeast(1))
        .Real("readFraction",
              0,
              "generator: probability that a flow is an RDMA READ (its destination requests, its "
              "source responds; docs/operations.md), drawn per flow from its own seeded stream: "
              "the flows' hosts, sizes and times do not change; 0: every flow a WRITE",
              Range::Closed(0, 1))
        .Text("classes",
              "none",
              "generator: traffic classes PRIORITY:SHARE,... (e.g. 3:0.7,5:0.3; shares sum to "
              "1): each flow's data priority is drawn with these shares (a draw of its own per "
              "flow and --seed: the flows stay as without it); none: every flow on --priority");
}

bool
ChosenTopology::FatTree() const
{
    return path == "none";
}

void
RefuseUnusedWorkloadOptions(const Options& o)
{
    if (o.GetText("flows") != "none")
    {
        RefuseWith(o,
                   {"load",
                    "cdf",
                    "pattern",
                    "duration",
                    "group",
                    "hotspotTraffic",
                    "hotspotHosts",
                    "incastSenders",
                    "readFraction",
                    "classes"},
                   "--flows",
                   "generator");
    }
    else
    {
        RefuseWith(o, {"maxFlows"}, "the generator (no --flows)", "flow file");
        if (o.GetText("classes") != "none")
        {
            // checked before anything runs (the error names --classes)
            OrConfigFatal(
                "command line",
                [&] { return rdmacc_ffi::class_mix_mask(o.GetText("classes"), "--classes"); });
        }
    }
    if (o.GetText("topology") != "none")
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
    }
    else if (!o.IsAuto("fabricRate") && o.Given("oversub"))
    {
        ConfigFatal("command line",
                    "invalid --oversub = " + o.GetAsText("oversub") +
                        ": give --oversub or --fabricRate, not both (--oversub sets the fabric's "
                        "rate to --rate / --oversub)");
    }
}

ChosenTopology
TopologyFromOptions(const Options& o)
{
    ChosenTopology t;
    t.path = o.GetText("topology");
    if (!t.FatTree())
    {
        t.topology = ReadHpccTopology(t.path, "--topology");
        t.name = t.path;
        return t;
    }
    t.k = static_cast<uint32_t>(std::min<uint64_t>(o.GetCount("k"), 1u << 31));
    const uint64_t rate = o.GetRate("rate");
    const uint64_t fabricRate = o.IsAuto("fabricRate")
                                    ? static_cast<uint64_t>(double(rate) / o.GetReal("oversub"))
                                    : o.GetRate("fabricRate");
    if (fabricRate == 0)
    {
        // the fabric's rate derived from the options given: name them, not --fabricRate
        ConfigFatal("command line",
                    "invalid --oversub = " + o.GetAsText("oversub") + ": --rate / --oversub = " +
                        o.GetAsText("rate") + " / " + o.GetAsText("oversub") +
                        " is below 1 bit/s (the fabric's links need a rate)");
    }
    // each tier: its own option, else the fabric's
    const uint64_t aggRate = o.IsAuto("aggRate") ? fabricRate : o.GetRate("aggRate");
    const uint64_t coreRate = o.IsAuto("coreRate") ? fabricRate : o.GetRate("coreRate");
    // the edge switches' oversubscription: host links against the links above them
    t.oversub = double(rate) / double(aggRate);
    const Time delay = o.GetTime("delay");
    const Time fabricDelay = o.IsAuto("fabricDelay") ? delay : o.GetTime("fabricDelay");
    const Time aggDelay = o.IsAuto("aggDelay") ? fabricDelay : o.GetTime("aggDelay");
    const Time coreDelay = o.IsAuto("coreDelay") ? fabricDelay : o.GetTime("coreDelay");
    t.topology =
        FatTreeTopology(t.k, FatTreeTiers{rate, aggRate, coreRate, delay, aggDelay, coreDelay});
    t.name = "fat tree k=" + std::to_string(t.k);
    return t;
}

void
AddFlowsFromOptions(RdmaScenario& sc, const std::vector<HpccFlow>& fileFlows, JsonObject& extra)
{
    const auto& o = sc.Opts();
    const std::string flowsPath = o.GetText("flows");
    if (flowsPath == "none")
    {
        AddGeneratorFlows(sc, extra);
        return;
    }
    const uint64_t maxFlows = o.GetCount("maxFlows");
    const size_t n =
        maxFlows == 0 ? fileFlows.size() : std::min<size_t>(fileFlows.size(), maxFlows);
    extra.Str("flows_from", flowsPath).UInt("flows_in_file", fileFlows.size());
    AddFileFlows(sc, fileFlows, n, flowsPath);
}

std::vector<uint64_t>
CoreDataBytes(const RdmaScenario& sc, uint32_t k)
{
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
    return coreBytes;
}

} // namespace rdmacc
} // namespace ns3
