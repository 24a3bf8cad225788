/*
 * rdma-cc: RdmaNicHelper (see rdma-nic-helper.h).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-nic-helper.h"

#include "rdma-cc-error.h"

#include "ns3/log.h"
#include "ns3/roce-header.h"
#include "ns3/switch-node.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rust/cxx.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNicHelper");

RdmaNicHelper::RdmaNicHelper() :
    m_nextFlowId(0)
{
    m_factory.SetTypeId("ns3::RdmaNic");
}

void
RdmaNicHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

Ptr<RdmaNic>
RdmaNicHelper::Install(Ptr<QbbNetDevice> device) const
{
    NS_LOG_FUNCTION(this << device);
    Ptr<Node> node = device->GetNode();
    Ptr<RdmaNic> nic = m_factory.Create<RdmaNic>();
    nic->Attach(device, node->GetId());
    node->AggregateObject(nic);
    return nic;
}

std::vector<Ptr<RdmaNic>>
RdmaNicHelper::Install(const Fabric& fabric)
{
    // the fabric's largest base RTT, with the frames AddFlow's paths use (INT when every switch
    // writes it); the hpcc-sim presets take it for every flow (the HPCC simulator's GLOBAL_T 1)
    UintegerValue mtu;
    Ptr<RdmaNic> probe = m_factory.Create<RdmaNic>();
    probe->GetAttribute("Mtu", mtu);
    bool intAll = !fabric.switches.empty();
    for (const auto& s : fabric.switches)
    {
        intAll = intAll && s->GetIntTelemetry();
    }
    const Time largest = fabric.LargestDataPathRtt(mtu.Get(), intAll ? RoceHeader::INT_BYTES : 0);
    for (const auto& device : fabric.hostDevices)
    {
        m_nics.push_back(Install(device));
        m_nics.back()->SetFabricBaseRtt(largest);
    }
    return m_nics;
}

const std::vector<Ptr<RdmaNic>>&
RdmaNicHelper::GetNics() const
{
    return m_nics;
}

double
RdmaNicHelper::WireLimitBps(const Fabric& fabric, uint32_t host) const
{
    UintegerValue mtu;
    m_nics.at(host)->GetAttribute("Mtu", mtu);
    return rdmacc_ffi::payload_limit_bps(fabric.HostRate(host).GetBitRate(), mtu.Get(), 0);
}

uint32_t
RdmaNicHelper::AddFlow(
    const Fabric& fabric, uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start)
{
    NS_LOG_FUNCTION(this << srcHost << dstHost << bytes << start);
    if (srcHost >= m_nics.size() || dstHost >= m_nics.size() || srcHost == dstHost)
    {
        rdmacc::ConfigFatal("RdmaNicHelper",
                            "invalid flow " + std::to_string(srcHost) + " -> " +
                                std::to_string(dstHost) + ": needs two distinct hosts among the " +
                                std::to_string(m_nics.size()) + " with a NIC (Install first)");
    }
    const Ptr<RdmaNic> src = m_nics[srcHost];
    UintegerValue priority;
    UintegerValue mtu;
    src->GetAttribute("Priority", priority);
    src->GetAttribute("Mtu", mtu);
    const auto links = fabric.PathLinks(srcHost, dstHost);
    std::vector<uint64_t> rates;
    std::vector<uint64_t> buffers;
    uint32_t switches = 0;
    bool lossless = true;
    bool intAll = true;
    for (const auto& l : links)
    {
        rates.push_back(l.rate.GetBitRate());
        Ptr<SwitchNode> s = DynamicCast<SwitchNode>(l.device->GetNode());
        buffers.push_back(s ? s->GetBufferSize() : 0);
        if (s)
        {
            switches++;
            lossless = lossless && ((s->GetPfcPriorities() >> priority.Get()) & 1u) != 0;
            intAll = intAll && s->GetIntTelemetry();
        }
    }
    const bool withInt = intAll && switches > 0;
    const uint32_t intBytes = withInt ? RoceHeader::INT_BYTES : 0;
    const Time baseRtt = Fabric::DataPathRtt(links, mtu.Get(), intBytes);
    const Time maxQueueing = NanoSeconds(static_cast<int64_t>(
        rdmacc_ffi::max_queueing_ns(rust::Slice<const uint64_t>(rates.data(), rates.size()),
                                    rust::Slice<const uint64_t>(buffers.data(), buffers.size()))));
    const uint32_t id = m_nextFlowId++;
    src->AddFlow(m_nics[dstHost],
                 bytes,
                 start,
                 baseRtt,
                 id,
                 lossless && switches > 0,
                 maxQueueing,
                 withInt ? switches : 0);
    return id;
}

} // namespace ns3
