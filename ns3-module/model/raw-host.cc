/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "raw-host.h"

#include "frame-pool.h"
#include "lean-simulator-impl.h"
#include "roce-header.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RawHost");
NS_OBJECT_ENSURE_REGISTERED(RawHost);

TypeId
RawHost::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RawHost")
                            .SetParent<Object>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<RawHost>()
                            .AddAttribute("Payload",
                                          "Payload bytes per frame (the MTU of the flows).",
                                          UintegerValue(1000),
                                          MakeUintegerAccessor(&RawHost::m_payload),
                                          MakeUintegerChecker<uint32_t>(1, 9000))
                            .AddTraceSource("Rx",
                                            "A data frame arrived: (source node, payload bytes).",
                                            MakeTraceSourceAccessor(&RawHost::m_rxTrace),
                                            "ns3::RawHost::RxTracedCallback");
    return tid;
}

RawHost::RawHost() :
    m_nodeId(0),
    m_payload(1000),
    m_rxBytes(0),
    m_rxFrames(0),
    m_firstRx(Seconds(-1)),
    m_lastRx(Seconds(0)),
    m_firstRxPayload(0)
{
}

void
RawHost::DoDispose()
{
    if (m_dev)
    {
        m_dev->SetDataSource(nullptr);
    }
    m_dev = nullptr;
    Object::DoDispose();
}

void
RawHost::Attach(Ptr<QbbNetDevice> dev, uint32_t nodeId)
{
    m_dev = dev;
    m_nodeId = nodeId;
    dev->SetDataSource(this);
    dev->SetFrameSink(this, false);
}

uint32_t
RawHost::AddFlow(uint32_t dstNode, uint8_t prio, uint64_t bytes, Time start, uint16_t srcPort)
{
    Flow f{dstNode, prio, bytes, 0, srcPort, start, Seconds(0), Seconds(0), false};
    m_flows.push_back(f);
    const uint32_t i = static_cast<uint32_t>(m_flows.size() - 1);
    rdmacc::Schedule(start - rdmacc::Now(), &RawHost::StartFlow, this, i);
    return i;
}

void
RawHost::StartFlow(uint32_t i)
{
    m_flows[i].started = true;
    m_dev->AddReadyFlow(m_flows[i].prio, i);
}

rdmacc::Frame
RawHost::PullData(uint32_t i, RoceFields& fields)
{
    Flow& f = m_flows[i];
    if (f.sent >= f.bytes)
    {
        return rdmacc::Frame(); // done: the flow leaves the scheduler
    }
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(m_payload, f.bytes - f.sent));
    RoceFields h;
    h.kind = RoceHeader::DATA;
    h.prio = f.prio;
    h.ecn = 2; // ECT(0)
    h.srcIp = RoceHeader::NodeToIp(m_nodeId);
    h.dstIp = RoceHeader::NodeToIp(f.dstNode);
    h.srcPort = f.srcPort;
    h.flowId = i;
    h.seq = f.sent;
    f.sent += len;
    if (f.sent == f.bytes)
    {
        h.flags |= RoceHeader::FLAG_LAST;
    }
    if (f.firstTx.IsZero())
    {
        f.firstTx = rdmacc::Now();
    }
    f.lastTx = rdmacc::Now();
    // the header's place is left unwritten: its fields travel with the frame
    rdmacc::Frame p = rdmacc::FramePool::MakeFrame(len + h.Size());
    fields = h.Canonical();
    return p;
}

void
RawHost::ReceiveFrame(QbbNetDevice* dev, rdmacc::Frame&& f, const RoceFields& h, uint32_t hdrBytes)
{
    NS_ABORT_MSG_IF(hdrBytes == 0, "RawHost: a frame shorter than a RoCE header");
    if (h.kind != RoceHeader::DATA)
    {
        return;
    }
    const uint64_t len = f.Size() - hdrBytes;
    m_rxBySource[RoceHeader::IpToNode(h.srcIp)] += len;
    m_rxBytes += len;
    m_rxFrames++;
    if (m_firstRx.IsStrictlyNegative())
    {
        m_firstRx = rdmacc::Now();
        m_firstRxPayload = len;
    }
    m_lastRx = rdmacc::Now();
    m_rxTrace(RoceHeader::IpToNode(h.srcIp), len);
}

uint64_t
RawHost::GetFirstReceivedPayload() const
{
    return m_firstRxPayload;
}

const std::vector<RawHost::Flow>&
RawHost::GetFlows() const
{
    return m_flows;
}

const std::map<uint32_t, uint64_t>&
RawHost::GetReceivedBySource() const
{
    return m_rxBySource;
}

uint64_t
RawHost::GetReceivedBytes() const
{
    return m_rxBytes;
}

uint64_t
RawHost::GetReceivedFrames() const
{
    return m_rxFrames;
}

std::pair<Time, Time>
RawHost::GetReceiveWindow() const
{
    return {m_firstRx, m_lastRx};
}

} // namespace ns3
