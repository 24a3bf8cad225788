/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-files.h"

#include "rdma-cc-output.h"

#include "rdma-cc/src/workload.rs.h"
#include "rust/cxx.h"

namespace ns3
{
namespace rdmacc
{

std::string
ReadTextFile(const std::string& path, const std::string& option, const std::string& what)
{
    return std::string(
        OrConfigFatal(what, [&] { return rdmacc_ffi::read_text_file(path, option); }));
}

namespace
{
/// The bridge's topology, as parsed (for the flow file's check).
rdmacc_ffi::HpccTopology
ToFfi(const HpccTopology& t)
{
    rdmacc_ffi::HpccTopology f;
    f.nodes = t.nodes;
    for (uint32_t s : t.switches)
    {
        f.switches.push_back(s);
    }
    for (const auto& l : t.links)
    {
        f.links.push_back(rdmacc_ffi::HpccLink{
            l.a, l.b, l.rateBps, static_cast<uint64_t>(l.delay.GetNanoSeconds()), l.line});
    }
    return f;
}

/// The module's topology, from the bridge's.
HpccTopology
FromFfi(const rdmacc_ffi::HpccTopology& f)
{
    HpccTopology t;
    t.nodes = f.nodes;
    t.isSwitch.assign(f.nodes, false);
    for (uint32_t s : f.switches)
    {
        t.switches.push_back(s);
        t.isSwitch.at(s) = true;
    }
    for (const auto& l : f.links)
    {
        t.links.push_back(
            HpccLink{l.a, l.b, l.rate_bps, NanoSeconds(static_cast<int64_t>(l.delay_ns)), l.line});
    }
    return t;
}
} // namespace

HpccTopology
ReadHpccTopology(const std::string& path, const std::string& option)
{
    const std::string text = ReadTextFile(path, option, "topology file");
    return FromFfi(OrConfigFatal("topology file",
                                 [&] { return rdmacc_ffi::hpcc_topology_parse(path, text); }));
}

HpccTopology
FatTreeTopology(uint32_t k, const FatTreeTiers& tiers)
{
    const rdmacc_ffi::FatTreeParams p{k,
                                      tiers.hostRateBps,
                                      tiers.edgeRateBps,
                                      tiers.coreRateBps,
                                      static_cast<uint64_t>(tiers.hostDelay.GetNanoSeconds()),
                                      static_cast<uint64_t>(tiers.edgeDelay.GetNanoSeconds()),
                                      static_cast<uint64_t>(tiers.coreDelay.GetNanoSeconds())};
    return FromFfi(OrConfigFatal("command line", [&] { return rdmacc_ffi::fat_tree_topology(p); }));
}

std::vector<HpccFlow>
ReadHpccFlows(const std::string& path, const HpccTopology& topology, const std::string& option)
{
    const std::string text = ReadTextFile(path, option, "flow file");
    const rdmacc_ffi::HpccTopology t = ToFfi(topology);
    const rust::Vec<rdmacc_ffi::HpccFlow> f =
        OrConfigFatal("flow file", [&] { return rdmacc_ffi::hpcc_flows_parse(path, text, t); });
    std::vector<HpccFlow> out;
    out.reserve(f.size());
    for (const auto& x : f)
    {
        out.push_back(HpccFlow{x.src,
                               x.dst,
                               x.priority,
                               x.dport,
                               x.bytes,
                               NanoSeconds(static_cast<int64_t>(x.start_ns)),
                               x.line,
                               x.op});
    }
    return out;
}

} // namespace rdmacc
} // namespace ns3
