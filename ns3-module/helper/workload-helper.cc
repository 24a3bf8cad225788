/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "workload-helper.h"

#include "rdma-cc-output.h"
#include "rdma-scenario.h"

#include "ns3/uinteger.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rdma-cc/src/workload.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <iostream>

namespace ns3
{
namespace rdmacc
{

void
DefaultLinkOf(Options& opts, const HpccTopology& topology)
{
    const HpccLink* hostLink = nullptr;
    uint32_t lowestHost = topology.nodes;
    for (const auto& l : topology.links)
    {
        for (uint32_t end : {l.a, l.b})
        {
            if (!topology.isSwitch[end] && end < lowestHost)
            {
                lowestHost = end;
                hostLink = &l;
            }
        }
    }
    if (hostLink)
    {
        opts.Default("rate", std::to_string(hostLink->rateBps) + "bps")
            .Default("delay", std::to_string(hostLink->delay.GetNanoSeconds()) + "ns");
    }
}

void
BuildTopology(RdmaScenario& sc, const HpccTopology& topology, const std::string& name)
{
    // the switch options are checked against every switch's own links (its ports, in the
    // order FromTopology connects them: the topology's link order)
    std::vector<Options::SwitchLinks> switchLinks(topology.switches.size());
    std::vector<int32_t> switchIndex(topology.nodes, -1);
    int32_t next = 0;
    for (uint32_t id = 0; id < topology.nodes; id++)
    {
        if (topology.isSwitch[id])
        {
            switchIndex[id] = next;
            switchLinks[next].label = "switch " + std::to_string(id) + " of " + name;
            next++;
        }
    }
    for (const auto& l : topology.links)
    {
        for (uint32_t end : {l.a, l.b})
        {
            if (topology.isSwitch[end])
            {
                auto& s = switchLinks[switchIndex[end]];
                s.ratesBps.push_back(l.rateBps);
                s.delaysNs.push_back(static_cast<uint64_t>(l.delay.GetNanoSeconds()));
            }
        }
    }
    sc.BuildFabric([&topology](FabricHelper& fh) { return fh.FromTopology(topology); },
                   switchLinks);
    sc.SetFabricDescription(name + " (" + std::to_string(sc.fabric.hosts.GetN()) + " hosts, " +
                            std::to_string(sc.fabric.switches.size()) + " switches, " +
                            std::to_string(topology.links.size()) + " links)");
}

std::vector<uint32_t>
PartitionTopology(const HpccTopology& topology, uint32_t ranks)
{
    const uint32_t none = UINT32_MAX;
    std::vector<uint32_t> rank(topology.nodes, none);
    std::vector<std::vector<uint32_t>> adj(topology.nodes);
    for (const auto& l : topology.links)
    {
        adj.at(l.a).push_back(l.b);
        adj.at(l.b).push_back(l.a);
    }
    for (auto& a : adj)
    {
        std::sort(a.begin(), a.end());
    }
    std::vector<uint32_t> hosts;
    for (uint32_t id = 0; id < topology.nodes; id++)
    {
        if (!topology.isSwitch[id])
        {
            hosts.push_back(id);
        }
    }
    for (size_t i = 0; i < hosts.size(); i++)
    {
        rank[hosts[i]] = static_cast<uint32_t>(uint64_t(i) * ranks / hosts.size());
    }
    // switches with hosts, then switches next to those
    for (int pass = 0; pass < 2; pass++)
    {
        std::vector<uint32_t> next = rank;
        for (uint32_t id = 0; id < topology.nodes; id++)
        {
            if (!topology.isSwitch[id] || rank[id] != none)
            {
                continue;
            }
            for (uint32_t n : adj[id])
            {
                if (rank[n] != none && (pass == 0) == !topology.isSwitch[n])
                {
                    next[id] = rank[n];
                    break;
                }
            }
        }
        rank = next;
    }
    std::vector<uint32_t> rest;
    for (uint32_t id = 0; id < topology.nodes; id++)
    {
        if (rank[id] == none)
        {
            rest.push_back(id);
        }
    }
    for (size_t i = 0; i < rest.size(); i++)
    {
        rank[rest[i]] = static_cast<uint32_t>(uint64_t(i) * ranks / rest.size());
    }
    return rank;
}

void
AddFileFlows(RdmaScenario& sc,
             const std::vector<HpccFlow>& flows,
             size_t n,
             const std::string& /* path */)
{
    n = std::min(n, flows.size());
    for (size_t i = 0; i < n; i++)
    {
        const auto& f = flows[i];
        // the file's priority column is the flow's data priority (traffic class)
        sc.AddFlow(static_cast<uint32_t>(sc.fabric.hostOfFileId.at(f.src)),
                   static_cast<uint32_t>(sc.fabric.hostOfFileId.at(f.dst)),
                   f.bytes,
                   f.start,
                   f.priority,
                   static_cast<RdmaOp>(f.op));
    }
}

SizeCdf::SizeCdf(const std::string& path, const std::string& option) :
    m_path(path),
    m_text(ReadTextFile(path, option, "CDF file")),
    m_mean(OrConfigFatal("CDF file", [&] { return rdmacc_ffi::cdf_mean_bytes(m_path, m_text); }))
{
}

double
SizeCdf::MeanBytes() const
{
    return m_mean;
}

std::vector<uint64_t>
SizeCdf::Sample(uint64_t n, uint64_t seed) const
{
    const rust::Vec<uint64_t> v = OrConfigFatal(
        "CDF file", [&] { return rdmacc_ffi::cdf_sample_sizes(m_path, m_text, n, seed); });
    return std::vector<uint64_t>(v.begin(), v.end());
}

void
CheckChurnArrivals(uint64_t longFlows,
                   double load,
                   double capacityBps,
                   double meanBytes,
                   Time churn,
                   const std::string& churnText)
{
    OrConfigFatal("command line",
                  [&]
                  {
                      rdmacc_ffi::churn_arrivals_check(
                          longFlows,
                          load,
                          capacityBps,
                          meanBytes,
                          static_cast<uint64_t>(std::max<int64_t>(0, churn.GetNanoSeconds())),
                          churnText);
                  });
}

void
CheckChurnFlows(uint64_t longFlows, uint64_t shortFlows, const std::string& churnText)
{
    OrConfigFatal("command line",
                  [&] { rdmacc_ffi::churn_flows_check(longFlows, shortFlows, churnText); });
}

GeneratedWorkload
AddGeneratedFlows(RdmaScenario& sc, const GeneratorSettings& s)
{
    const std::string text = ReadTextFile(s.cdfPath, s.cdfOption, "CDF file");
    OrConfigFatal("CDF file", [&] { return rdmacc_ffi::cdf_mean_bytes(s.cdfPath, text); });
    const uint32_t nHosts = sc.fabric.hosts.GetN();
    std::vector<uint64_t> rates(nHosts);
    for (uint32_t h = 0; h < nHosts; h++)
    {
        rates[h] = sc.fabric.HostRate(h).GetBitRate();
    }
    rdmacc_ffi::GeneratorParams p;
    p.pattern = s.pattern;
    p.load = s.load;
    p.start_ns = static_cast<uint64_t>(s.start.GetNanoSeconds());
    p.duration_ns = static_cast<uint64_t>(s.duration.GetNanoSeconds());
    p.seed = s.seed;
    p.group = s.group;
    p.hotspot_traffic = s.hotspotTraffic;
    p.hotspot_hosts = s.hotspotHosts;
    p.incast_senders = s.incastSenders;
    p.read_fraction = s.readFraction;
    const rdmacc_ffi::GenWorkload w = OrConfigFatal(
        "command line",
        [&]
        {
            return rdmacc_ffi::generate_flows(
                s.cdfPath, text, p, rust::Slice<const uint64_t>(rates.data(), rates.size()));
        });
    // the flows' classes (--classes): drawn apart from the flows, which stay as they were
    std::vector<int> prio(w.flows.size(), -1);
    if (s.classes != "none")
    {
        const rust::Vec<uint8_t> drawn =
            OrConfigFatal("command line",
                          [&] {
                              return rdmacc_ffi::class_mix_priorities(
                                  s.classes, "--classes", s.seed, w.flows.size());
                          });
        std::copy(drawn.begin(), drawn.end(), prio.begin());
    }
    GeneratedWorkload out;
    bool first = true;
    for (size_t i = 0; i < w.flows.size(); i++)
    {
        const auto& f = w.flows[i];
        const uint32_t id = sc.AddFlow(f.src,
                                       f.dst,
                                       f.bytes,
                                       NanoSeconds(static_cast<int64_t>(f.start_ns)),
                                       prio[i],
                                       static_cast<RdmaOp>(f.op));
        out.reads += f.op == static_cast<uint8_t>(RdmaOp::READ);
        if (first)
        {
            out.firstFlowId = id;
            first = false;
        }
        out.dstHosts.push_back(f.dst);
        out.bytes += f.bytes;
    }
    out.flows = w.flows.size();
    out.hotHosts.assign(w.hot_hosts.begin(), w.hot_hosts.end());
    out.incastSenders.assign(w.incast_senders.begin(), w.incast_senders.end());
    out.incastReceiver = w.has_incast_receiver ? int64_t(w.incast_receiver) : -1;
    out.meanBytes = w.mean_bytes;
    out.offeredLoad = w.offered_load;
    return out;
}

} // namespace rdmacc
} // namespace ns3
