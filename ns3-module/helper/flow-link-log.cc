/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-link-log.h"

#include "ns3/roce-header.h"

#include <vector>

namespace ns3
{
namespace rdmacc
{

void
FlowLinkLog::AddFlow(uint32_t host, uint32_t node, uint32_t flowId)
{
    m_flowOfSrc[node] = flowId;
    // the host's own link to its ToR (every source sends one flow)
    m_flowsOn["H" + std::to_string(host)].insert(flowId);
}

void
FlowLinkLog::Connect(const Fabric& fabric)
{
    for (uint32_t s = 0; s < fabric.switches.size(); s++)
    {
        Ptr<SwitchNode> sw = fabric.switches[s];
        for (uint32_t port = 0; port < sw->GetNPorts(); port++)
        {
            sw->GetPort(port)->TraceConnectWithoutContext(
                "PhyTxBegin", MakeCallback(&FlowLinkLog::OnTx, this).Bind(s, port));
        }
    }
}

void
FlowLinkLog::OnTx(uint32_t sw, uint32_t port, Ptr<const Packet> p)
{
    RoceHeader h;
    p->PeekHeader(h);
    if (h.kind != RoceHeader::DATA)
    {
        return;
    }
    auto it = m_flowOfSrc.find(RoceHeader::IpToNode(h.srcIp));
    if (it != m_flowOfSrc.end())
    {
        m_flowsOn["S" + std::to_string(sw) + ":" + std::to_string(port)].insert(it->second);
    }
}

JsonObject
FlowLinkLog::ToJson() const
{
    JsonObject links;
    for (const auto& [name, flows] : m_flowsOn)
    {
        links.UIntList(name, std::vector<uint64_t>(flows.begin(), flows.end()));
    }
    return links;
}

} // namespace rdmacc
} // namespace ns3
