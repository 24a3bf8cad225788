/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-nic.h"

#include "rdma-cc-error.h"
#include "rdma-cc-log.h"
#include "roce-header.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

/// One queue pair at its source.
struct RdmaNic::Qp
{
    uint32_t flowId = 0;
    uint32_t dstNode = 0;
    uint64_t size = 0;
    Time start;
    Time baseRtt;
    uint8_t prio = 0;
    uint16_t srcPort = 0;
    uint8_t scheme = 0;
    std::string schemeName; // the Scheme attribute when the flow was added
    rdmacc_ffi::SenderParams params{};
    rdmacc_ffi::Sender* sender = nullptr; // owned
    bool inReady = false;
    bool done = false;
    bool gotFeedback = false;
    EventId timer;
    uint64_t timerAt = UINT64_MAX;
    EventId wake;
    uint64_t wakeAt = UINT64_MAX;
    Ptr<RdmaNic> dstNic;
    FlowRecord finalRecord;

    ~Qp()
    {
        if (sender)
        {
            (void)rust::Box<rdmacc_ffi::Sender>::from_raw(sender);
        }
    }
};

/// One flow at its destination.
struct RdmaNic::RxFlow
{
    rdmacc_ffi::Receiver* receiver = nullptr; // owned
    uint8_t prio = 0;
    uint16_t srcPort = 0;

    ~RxFlow()
    {
        if (receiver)
        {
            (void)rust::Box<rdmacc_ffi::Receiver>::from_raw(receiver);
        }
    }
};

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaNic")
            .SetParent<Object>()
            .SetGroupName("RdmaCc")
            .AddConstructor<RdmaNic>()
            .AddAttribute("Scheme",
                          "Congestion control of new flows: ldcp (window, per-ACK), ldcp-rate "
                          "(rate-based, RTT probes and CNPs), none (line rate).",
                          StringValue("ldcp"),
                          MakeStringAccessor(&RdmaNic::m_scheme),
                          MakeStringChecker())
            .AddAttribute("Mtu",
                          "Payload bytes per packet (frames add 62 B of headers).",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&RdmaNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(1, 9000))
            .AddAttribute("Priority",
                          "Priority class of new flows' data.",
                          UintegerValue(3),
                          MakeUintegerAccessor(&RdmaNic::m_prio),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("Alpha",
                          "LDCP additive increase per RTT, in packets (0 < alpha <= 1).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RdmaNic::m_alpha),
                          MakeDoubleChecker<double>())
            .AddAttribute("Beta",
                          "LDCP decrease per marked ACK, in packets (0 < beta <= 1).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RdmaNic::m_beta),
                          MakeDoubleChecker<double>())
            .AddAttribute("Gamma",
                          "LDCP sub-packet step and window floor (0 < gamma <= 1).",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&RdmaNic::m_gamma),
                          MakeDoubleChecker<double>())
            .AddAttribute("Eta",
                          "LDCP multiplicative decrease below one packet (0 < eta < 1).",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RdmaNic::m_eta),
                          MakeDoubleChecker<double>())
            .AddAttribute("Iw",
                          "LDCP initial window in packets; 0 = the path's BDP (line rate x "
                          "base RTT).",
                          DoubleValue(0),
                          MakeDoubleAccessor(&RdmaNic::m_iw),
                          MakeDoubleChecker<double>())
            .AddAttribute("FastStart",
                          "LDCP zero-RTT fast start (IW at line rate, Not-ECT first-RTT packets).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_fastStart),
                          MakeBooleanChecker())
            .AddAttribute("SubPacket",
                          "LDCP sub-packet regime (cw < 1 paced at RTT/cw); false floors cw at 1.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RdmaNic::m_subPacket),
                          MakeBooleanChecker())
            .AddAttribute("RttGain",
                          "EWMA gain of the smoothed RTT (1/8).",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&RdmaNic::m_rttGain),
                          MakeDoubleChecker<double>())
            .AddAttribute("Rto",
                          "Retransmission timeout; 0 = 4 x the flow's base RTT.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&RdmaNic::m_rto),
                          MakeTimeChecker())
            .AddAttribute("RtoBackoff",
                          "Most doublings of the RTO after consecutive timeouts.",
                          UintegerValue(6),
                          MakeUintegerAccessor(&RdmaNic::m_rtoBackoff),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AckEvery",
                          "Receiver: one ACK per at most this many unmarked packets (LDCP "
                          "delayed ACK m; marked packets are acknowledged at once).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaNic::m_ackEvery),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CnpInterval",
                          "Receiver: at most one CNP per flow per interval (0: one per marked "
                          "packet); used by ldcp-rate.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&RdmaNic::m_cnpInterval),
                          MakeTimeChecker())
            .AddTraceSource("FirstFeedback",
                            "A flow received its first ACK or NACK: its first RTT is over "
                            "(argument: flow id).",
                            MakeTraceSourceAccessor(&RdmaNic::m_firstFeedback),
                            "ns3::RdmaNic::FirstFeedbackCallback")
            .AddTraceSource("FlowComplete",
                            "A flow's last byte was acknowledged.",
                            MakeTraceSourceAccessor(&RdmaNic::m_flowComplete),
                            "ns3::RdmaNic::FlowCompleteCallback");
    return tid;
}

RdmaNic::RdmaNic() :
    m_nodeId(0),
    m_delivered(0),
    m_scheme("ldcp"),
    m_mtu(1000),
    m_prio(3),
    m_alpha(1),
    m_beta(0.5),
    m_gamma(0.125),
    m_eta(0.5),
    m_iw(0),
    m_fastStart(true),
    m_subPacket(true),
    m_rttGain(0.125),
    m_rtoBackoff(6),
    m_ackEvery(1)
{
}

RdmaNic::~RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    for (auto& q : m_qps)
    {
        q->timer.Cancel();
        q->wake.Cancel();
        q->dstNic = nullptr;
    }
    if (m_dev)
    {
        m_dev->SetDataSource(nullptr);
    }
    m_dev = nullptr;
    Object::DoDispose();
}

void
RdmaNic::Attach(Ptr<QbbNetDevice> dev, uint32_t nodeId)
{
    m_dev = dev;
    m_nodeId = nodeId;
    dev->SetDataSource(this);
    dev->SetRxHandler(MakeCallback(&RdmaNic::Receive, this));
}

Ptr<QbbNetDevice>
RdmaNic::GetDevice() const
{
    return m_dev;
}

uint32_t
RdmaNic::GetNodeId() const
{
    return m_nodeId;
}

std::string
RdmaNic::GetScheme() const
{
    return m_scheme;
}

uint32_t
RdmaNic::GetNQps() const
{
    return static_cast<uint32_t>(m_qps.size());
}

rdmacc_ffi::SenderParams
RdmaNic::Params(Time baseRtt) const
{
    rdmacc_ffi::SenderParams p{};
    try
    {
        p.scheme = rdmacc_ffi::scheme_code(m_scheme);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic::Scheme", e.what());
    }
    p.mtu = m_mtu;
    p.line_rate_bps = m_dev->GetDataRate().GetBitRate();
    p.base_rtt_ns = static_cast<uint64_t>(baseRtt.GetNanoSeconds());
    p.rto_ns = static_cast<uint64_t>(m_rto.GetNanoSeconds());
    p.rto_backoff = m_rtoBackoff;
    p.dup_nack_holdoff_ns = 0;
    p.alpha = m_alpha;
    p.beta = m_beta;
    p.gamma = m_gamma;
    p.eta = m_eta;
    p.iw = m_iw;
    p.fast_start = m_fastStart;
    p.rtt_gain = m_rttGain;
    p.sub_packet = m_subPacket;
    return p;
}

uint32_t
RdmaNic::AddFlow(Ptr<RdmaNic> dst, uint64_t size, Time start, Time baseRtt, uint32_t flowId)
{
    NS_ABORT_MSG_UNLESS(m_dev && dst && dst->m_dev, "RdmaNic::AddFlow before Attach");
    if (size == 0)
    {
        rdmacc::ConfigFatal("flow " + std::to_string(flowId), "invalid size = 0: must be > 0");
    }
    if (m_rto.IsStrictlyNegative() || m_cnpInterval.IsStrictlyNegative())
    {
        rdmacc::ConfigFatal("ns3::RdmaNic", "Rto and CnpInterval must be >= 0");
    }
    auto q = std::make_unique<Qp>();
    q->flowId = flowId;
    q->dstNode = dst->m_nodeId;
    q->size = size;
    q->start = start;
    q->baseRtt = baseRtt;
    q->prio = m_prio;
    q->srcPort = static_cast<uint16_t>(10000 + flowId % 50000);
    q->params = Params(baseRtt);
    q->scheme = q->params.scheme;
    q->schemeName = m_scheme;
    q->dstNic = dst;
    try
    {
        rdmacc_ffi::sender_params_validate(q->params);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic", e.what());
    }
    q->finalRecord.finish = Seconds(-1);
    const uint32_t idx = static_cast<uint32_t>(m_qps.size());
    m_qps.push_back(std::move(q));
    dst->ExpectFlow(m_nodeId, idx, size, m_qps[idx]->scheme);
    Simulator::Schedule(start - Simulator::Now(), &RdmaNic::StartQp, this, idx);
    return idx;
}

void
RdmaNic::ExpectFlow(uint32_t srcNode, uint32_t qp, uint64_t size, uint8_t scheme)
{
    rdmacc_ffi::ReceiverParams p{};
    p.ack_every = m_ackEvery;
    p.cnp_interval_ns = static_cast<uint64_t>(m_cnpInterval.GetNanoSeconds());
    p.send_cnp = scheme == 1; // ldcp-rate
    p.mtu = m_mtu;
    auto rx = std::make_unique<RxFlow>();
    try
    {
        rx->receiver = rdmacc_ffi::receiver_new(p, size).into_raw();
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic (receiver)", e.what());
    }
    m_rx[(uint64_t(srcNode) << 32) | qp] = std::move(rx);
}

void
RdmaNic::StartQp(uint32_t idx)
{
    Qp& q = *m_qps[idx];
    const uint64_t now = Simulator::Now().GetNanoSeconds();
    rdmacc::SyncLog();
    try
    {
        q.sender = rdmacc_ffi::sender_new(q.params, q.size, now).into_raw();
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic", e.what());
    }
    MakeReady(idx);
}

void
RdmaNic::MakeReady(uint32_t idx)
{
    Qp& q = *m_qps[idx];
    if (q.inReady || q.done || !q.sender)
    {
        return;
    }
    q.inReady = true;
    m_dev->AddReadyFlow(q.prio, idx);
}

void
RdmaNic::UpdateTimer(uint32_t idx)
{
    Qp& q = *m_qps[idx];
    const uint64_t t = q.sender->next_timer();
    if (t == q.timerAt && !q.timer.IsExpired())
    {
        return;
    }
    q.timer.Cancel();
    q.timerAt = t;
    if (t == UINT64_MAX)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetNanoSeconds();
    const int64_t delay = std::max<int64_t>(0, static_cast<int64_t>(t) - now);
    q.timer = Simulator::Schedule(NanoSeconds(delay), &RdmaNic::OnTimer, this, idx);
}

void
RdmaNic::OnTimer(uint32_t idx)
{
    Qp& q = *m_qps[idx];
    q.timerAt = UINT64_MAX;
    if (q.done)
    {
        return;
    }
    q.sender->on_timer(Simulator::Now().GetNanoSeconds());
    AfterFeedback(idx);
}

void
RdmaNic::OnWake(uint32_t idx)
{
    m_qps[idx]->wakeAt = UINT64_MAX;
    MakeReady(idx);
}

void
RdmaNic::AfterFeedback(uint32_t idx)
{
    Qp& q = *m_qps[idx];
    if (q.sender->is_done())
    {
        Finish(idx);
        return;
    }
    MakeReady(idx);
    UpdateTimer(idx);
}

Ptr<Packet>
RdmaNic::PullData(uint32_t idx)
{
    const uint64_t now = Simulator::Now().GetNanoSeconds();
    Qp& q = *m_qps[idx];
    if (q.done)
    {
        q.inReady = false;
        return nullptr;
    }
    const rdmacc_ffi::PollOut o = q.sender->poll(now);
    if (o.kind == 0 || o.kind == 1)
    {
        RoceHeader h;
        h.prio = q.prio;
        h.srcIp = RoceHeader::NodeToIp(m_nodeId);
        h.dstIp = RoceHeader::NodeToIp(q.dstNode);
        h.srcPort = q.srcPort;
        h.flowId = idx;
        h.seq = o.seq;
        Ptr<Packet> p;
        if (o.kind == 0)
        {
            h.kind = RoceHeader::DATA;
            h.ecn = o.ecn;
            h.flags = static_cast<uint8_t>((o.last ? RoceHeader::FLAG_LAST : 0) |
                                           (o.retx ? RoceHeader::FLAG_RETX : 0) |
                                           (o.ack_req ? RoceHeader::FLAG_ACKREQ : 0) |
                                           (q.gotFeedback ? 0 : RoceHeader::FLAG_FIRST_RTT));
            p = Create<Packet>(o.len);
        }
        else
        {
            h.kind = RoceHeader::PROBE;
            h.ecn = 2;
            p = Create<Packet>();
        }
        p->AddHeader(h);
        UpdateTimer(idx);
        return p; // the QP keeps its turn
    }
    q.inReady = false; // leaves the turn until feedback, its timer or its wake time
    if (o.kind == 2)
    {
        if (o.time_ns < q.wakeAt)
        {
            q.wake.Cancel();
            q.wakeAt = o.time_ns;
            q.wake = Simulator::Schedule(
                NanoSeconds(o.time_ns - std::min(o.time_ns, now)), &RdmaNic::OnWake, this, idx);
        }
        UpdateTimer(idx);
    }
    else if (o.kind == 3)
    {
        UpdateTimer(idx);
    }
    else
    {
        Finish(idx);
    }
    return nullptr;
}

void
RdmaNic::Finish(uint32_t idx)
{
    Qp& q = *m_qps[idx];
    if (q.done)
    {
        return;
    }
    q.done = true;
    q.timer.Cancel();
    q.wake.Cancel();
    q.finalRecord = Record(q);
    m_flowComplete(q.finalRecord);
}

FlowRecord
RdmaNic::Record(const Qp& q) const
{
    FlowRecord r;
    r.flowId = q.flowId;
    r.src = m_nodeId;
    r.dst = q.dstNode;
    r.size = q.size;
    r.start = q.start;
    r.finish = Seconds(-1);
    r.scheme = q.schemeName;
    // ideal: every frame of the message at line rate, plus the base RTT
    const uint64_t frames = (q.size + m_mtu - 1) / m_mtu;
    const uint64_t wire =
        q.size + frames * (RoceHeader::DATA_OVERHEAD + QbbNetDevice::PREAMBLE_IFG);
    const uint64_t bps = m_dev->GetDataRate().GetBitRate();
    r.idealFct = NanoSeconds((wire * 8 * 1000000000ULL + bps - 1) / bps) + q.baseRtt;
    if (q.sender)
    {
        const auto i = q.sender->info();
        if (i.done_ns != UINT64_MAX)
        {
            r.finish = NanoSeconds(static_cast<int64_t>(i.done_ns));
        }
        r.retxBytes = i.retx_bytes;
        r.bytesSent = i.bytes_sent;
        r.minCw = i.min_cw;
        r.subPacketSends = i.sub_packet_sends;
        r.timeouts = i.timeouts;
        r.nacks = i.nacks;
        r.fastStartExit = i.fast_start_exit;
    }
    return r;
}

std::vector<FlowRecord>
RdmaNic::GetFlowRecords() const
{
    std::vector<FlowRecord> out;
    for (uint32_t i = 0; i < m_qps.size(); i++)
    {
        const Qp& q = *m_qps[i];
        FlowRecord r = q.done ? q.finalRecord : Record(q);
        if (q.dstNic)
        {
            auto it = q.dstNic->m_rx.find((uint64_t(m_nodeId) << 32) | i);
            if (it != q.dstNic->m_rx.end())
            {
                r.delivered = it->second->receiver->received();
            }
        }
        out.push_back(r);
    }
    return out;
}

uint64_t
RdmaNic::GetDeliveredBytes() const
{
    return m_delivered;
}

double
RdmaNic::GetCw(uint32_t qp) const
{
    const Qp& q = *m_qps.at(qp);
    return q.sender ? q.sender->info().cw : 0;
}

void
RdmaNic::SendControl(uint8_t kind,
                     uint32_t dstNode,
                     uint32_t flowId,
                     uint64_t seq,
                     uint8_t flags,
                     uint8_t prio,
                     uint16_t srcPort)
{
    RoceHeader h;
    h.kind = static_cast<RoceHeader::Kind>(kind);
    h.prio = prio;
    h.ecn = 0;
    h.flags = flags;
    h.srcIp = RoceHeader::NodeToIp(m_nodeId);
    h.dstIp = RoceHeader::NodeToIp(dstNode);
    h.srcPort = srcPort;
    h.flowId = flowId;
    h.seq = seq;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    m_dev->Enqueue(p); // control kinds go in the device's control class
}

void
RdmaNic::Receive(Ptr<QbbNetDevice> dev, Ptr<Packet> p)
{
    RoceHeader h;
    p->RemoveHeader(h);
    const uint64_t now = Simulator::Now().GetNanoSeconds();
    const uint32_t peer = RoceHeader::IpToNode(h.srcIp);
    switch (h.kind)
    {
    case RoceHeader::DATA:
    {
        auto it = m_rx.find((uint64_t(peer) << 32) | h.flowId);
        if (it == m_rx.end())
        {
            NS_LOG_WARN("node " << m_nodeId << ": data of an unknown flow " << h);
            return;
        }
        RxFlow& rx = *it->second;
        const rdmacc_ffi::RxOut o = rx.receiver->on_data(now,
                                                         h.seq,
                                                         p->GetSize(),
                                                         h.ecn == 3,
                                                         h.flags & RoceHeader::FLAG_LAST,
                                                         h.flags & RoceHeader::FLAG_ACKREQ);
        m_delivered += o.delivered;
        const rdmacc_ffi::AckInfo acks[2] = {o.ack1, o.ack2};
        for (uint8_t k = 0; k < o.n_acks; k++)
        {
            SendControl(acks[k].nack ? RoceHeader::NACK : RoceHeader::ACK,
                        peer,
                        h.flowId,
                        acks[k].seq,
                        acks[k].ece ? RoceHeader::FLAG_ECE : 0,
                        h.prio,
                        h.srcPort);
        }
        if (o.cnp)
        {
            SendControl(RoceHeader::CNP, peer, h.flowId, 0, 0, h.prio, h.srcPort);
        }
        break;
    }
    case RoceHeader::PROBE:
        SendControl(RoceHeader::PROBE_RESP, peer, h.flowId, h.seq, 0, h.prio, h.srcPort);
        break;
    case RoceHeader::ACK:
    case RoceHeader::NACK:
    case RoceHeader::CNP:
    case RoceHeader::PROBE_RESP:
    {
        if (h.flowId >= m_qps.size())
        {
            return;
        }
        Qp& q = *m_qps[h.flowId];
        if (q.done || !q.sender)
        {
            return;
        }
        const bool ece = h.flags & RoceHeader::FLAG_ECE;
        if (!q.gotFeedback && (h.kind == RoceHeader::ACK || h.kind == RoceHeader::NACK))
        {
            q.gotFeedback = true;
            m_firstFeedback(q.flowId);
        }
        if (h.kind == RoceHeader::ACK)
        {
            q.sender->on_ack(now, h.seq, ece);
        }
        else if (h.kind == RoceHeader::NACK)
        {
            q.sender->on_nack(now, h.seq, ece);
        }
        else if (h.kind == RoceHeader::CNP)
        {
            q.sender->on_cnp(now);
        }
        else
        {
            q.sender->on_probe_response(now, h.seq);
        }
        AfterFeedback(h.flowId);
        break;
    }
    default:
        break;
    }
}

} // namespace ns3
