/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Fabric: the built fabric's paths and their base RTTs (the formulas are rust/core's wire
 * module, through the bridge). Split from fabric-helper.cc, which builds the fabric.
 */
#include "fabric-helper.h"

#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/qbb-channel.h"
#include "ns3/roce-header.h"

#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/wire.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ns3
{

std::vector<uint32_t>
Fabric::NextHops(uint32_t node, uint32_t dst) const
{
    std::vector<uint32_t> out;
    if (topology)
    {
        for (auto p : topology->next_hops(node, dst))
        {
            out.push_back(p);
        }
    }
    return out;
}

std::vector<Fabric::PathLink>
Fabric::PathLinks(uint32_t srcHost, uint32_t dstHost) const
{
    NS_ABORT_MSG_IF(srcHost >= hosts.GetN() || dstHost >= hosts.GetN(),
                    "Fabric::PathLinks(" << srcHost << ", " << dstHost
                                         << "): host indices must be below " << hosts.GetN()
                                         << " (the fabric's hosts; not node ids)");
    std::vector<PathLink> out;
    const uint32_t dstNode = hosts.Get(dstHost)->GetId();
    uint32_t node = hosts.Get(srcHost)->GetId();
    for (int hops = 0; node != dstNode && hops < 64; hops++)
    {
        auto next = NextHops(node, dstNode);
        if (next.empty())
        {
            return {};
        }
        Ptr<Node> n = NodeList::GetNode(node);
        Ptr<QbbNetDevice> dev = DynamicCast<QbbNetDevice>(n->GetDevice(next[0]));
        out.push_back(PathLink{dev, dev->GetDataRate(), dev->GetDelay()});
        Ptr<QbbChannel> ch = DynamicCast<QbbChannel>(dev->GetChannel());
        node = ch->GetPeer(dev)->GetNode()->GetId();
    }
    return node == dstNode ? out : std::vector<PathLink>{};
}

Time
Fabric::BaseRtt(uint32_t srcHost, uint32_t dstHost, uint32_t frameBytes, uint32_t ackBytes) const
{
    return PathRtt(PathLinks(srcHost, dstHost), frameBytes, ackBytes);
}

Time
Fabric::PathRtt(const std::vector<PathLink>& links, uint32_t frameBytes, uint32_t ackBytes)
{
    if (links.empty())
    {
        return Seconds(-1);
    }
    // the formula is Rust's (rdma_cc_core::wire::base_rtt): the links are measured here
    std::vector<uint64_t> rates;
    std::vector<uint64_t> delays;
    for (const auto& l : links)
    {
        rates.push_back(l.rate.GetBitRate());
        delays.push_back(static_cast<uint64_t>(l.delay.GetNanoSeconds()));
    }
    return NanoSeconds(static_cast<int64_t>(
        rdmacc_ffi::base_rtt_ns(rust::Slice<const uint64_t>(rates.data(), rates.size()),
                                rust::Slice<const uint64_t>(delays.data(), delays.size()),
                                frameBytes,
                                ackBytes)));
}

Time
Fabric::DataPathRtt(const std::vector<PathLink>& links, uint64_t payload, uint64_t intBytes)
{
    return PathRtt(links,
                   static_cast<uint32_t>(rdmacc_ffi::data_frame_bytes(payload, intBytes)),
                   static_cast<uint32_t>(rdmacc_ffi::ack_frame_bytes(intBytes)));
}

Time
Fabric::LargestDataPathRtt(uint64_t payload, uint64_t intBytes) const
{
    // Hosts behind the same node over alike links have the same paths to and from every other
    // host (a host's one link is its only way in or out, and the shortest paths to a host are
    // those to its node): one pair per pair of such groups, not per pair of hosts (a k = 16 fat
    // tree: 16 K pairs instead of 1 M).
    std::map<std::tuple<uint32_t, uint64_t, uint64_t, int64_t>, std::vector<uint32_t>> groups;
    for (uint32_t i = 0; i < hosts.GetN() && i < hostDevices.size(); i++)
    {
        const Ptr<QbbNetDevice> dev = hostDevices[i];
        const Ptr<QbbChannel> ch = dev ? DynamicCast<QbbChannel>(dev->GetChannel()) : nullptr;
        if (!ch)
        {
            continue;
        }
        const Ptr<QbbNetDevice> peer = DynamicCast<QbbNetDevice>(ch->GetPeer(dev));
        groups[{peer->GetNode()->GetId(),
                dev->GetDataRate().GetBitRate(),
                peer->GetDataRate().GetBitRate(),
                dev->GetDelay().GetNanoSeconds()}]
            .push_back(i);
    }
    Time largest;
    for (const auto& [ka, a] : groups)
    {
        for (const auto& [kb, b] : groups)
        {
            const uint32_t dst = &a == &b ? (b.size() > 1 ? b[1] : a[0]) : b[0];
            if (dst != a[0])
            {
                largest = std::max(largest, DataPathRtt(PathLinks(a[0], dst), payload, intBytes));
            }
        }
    }
    return largest;
}

DataRate
Fabric::HostRate() const
{
    return hostDevices.empty() ? DataRate(0) : hostDevices[0]->GetDataRate();
}

DataRate
Fabric::HostRate(uint32_t host) const
{
    return hostDevices.at(host)->GetDataRate();
}

} // namespace ns3
