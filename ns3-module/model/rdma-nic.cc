/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-nic.h"

#include "cancel-event.h"
#include "frame-pool.h"
#include "lean-simulator-impl.h"
#include "rdma-cc-error.h"
#include "rdma-cc-log.h"
#include "rdma-cc-params.h"
#include "rearmed-timer.h"
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

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <optional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

// every line names its host, as ns-3's models do ("[node 3] "); lines about a flow name it
// off, a statement costs one load and a branch (rdma-cc-log.h)
static rdmacc::LogGate g_logGate(g_log);
#undef NS_LOG_CONDITION
#define NS_LOG_CONDITION if (g_logGate.On())
#undef NS_LOG_APPEND_CONTEXT
#define NS_LOG_APPEND_CONTEXT rdmacc::WriteContext(std::clog, m_nodeId);

/// The NIC's parameters (the Rust NicConfig behind the attributes).
struct RdmaNic::Params
{
    rust::Box<rdmacc_ffi::NicParams> p = rdmacc_ffi::nic_params_new();
    /// A copy of `p` as the last AddFlow saw it, shared by every flow added since (one copy
    /// per attribute change, not one per flow); dropped when an attribute is set.
    std::shared_ptr<const rust::Box<rdmacc_ffi::NicParams>> snapshot;
};

/// What a queue pair holds only while it sends (made when it starts, freed when it finishes).
struct RdmaNic::Live
{
    rust::Box<rdmacc_ffi::Sender> sender;
    bool inReady = false;
    bool gotFeedback = false;
    ReArmedTimer timer;              // the QP's one timer (its next deadline)
    FlowState last;                  // last state reported by the traces
    IntTag lastInt;                  // INT: the previous ACK's records
    uint64_t requestAt = UINT64_MAX; // READ: when the READ request arrived (ns)
    uint64_t readDone = UINT64_MAX;  // READ: when the requester had every byte (ns)
};

/// What a finished queue pair keeps: its sender's final counters (the sender is freed).
struct RdmaNic::Ended
{
    Time finish;
    uint64_t retxBytes = 0;
    uint64_t bytesSent = 0;
    double minCw = 0;
    uint64_t subPacketSends = 0;
    uint64_t packetsSent = 0;
    uint64_t probesSent = 0;
    uint64_t timeouts = 0;
    uint64_t nacks = 0;
    Time requestArrived = Seconds(-1); // READ: when the READ request arrived
    FlowState finalState;              // the sender's state when the flow finished
    // the receiver's counts, once it is retired (RetireReceiver)
    uint64_t rxDelivered = 0;
    uint64_t rxDuplicates = 0;
    uint64_t rxRereads = 0;
    bool rxRetired = false;
};

RdmaNic::Ended
RdmaNic::SenderCounters(const rdmacc_ffi::SenderInfo& i)
{
    Ended e;
    e.finish = i.done_ns != UINT64_MAX ? NanoSeconds(static_cast<int64_t>(i.done_ns)) : Seconds(-1);
    e.retxBytes = i.retx_bytes;
    e.bytesSent = i.bytes_sent;
    e.minCw = i.min_cw;
    e.subPacketSends = i.sub_packet_sends;
    e.packetsSent = i.packets_sent;
    e.probesSent = i.probes_sent;
    e.timeouts = i.timeouts;
    e.nacks = i.nacks;
    return e;
}

/// What a queue pair needs to start (freed when it starts).
struct RdmaNic::Pending
{
    rdmacc_ffi::PathInfo path{};
    // the attributes when added (shared by the flows added while they did not change)
    std::shared_ptr<const rust::Box<rdmacc_ffi::NicParams>> params;
};

/// One queue pair at its source: a compact record (64 bytes) with what it needs to start until
/// it starts (Pending), its sender while it sends (Live), its final counters once it finished
/// (Ended) until they are handed over (SetFlowHandOver).
struct RdmaNic::Qp
{
    uint32_t flowId = 0;
    uint32_t dstNode = 0;
    uint64_t size = 0;
    int64_t start = 0; // its start, a time step (no ns3::Time per flow: see AddFlow)
    uint8_t prio = 0;
    rdmacc_ffi::Scheme scheme{}; // the Scheme attribute when the flow was added
    bool done = false;
    bool handedOver = false; // its final record went to SetFlowHandOver's callback
    uint8_t intHops = 0;     // INT: records each ACK should carry (0: no INT)
    uint16_t srcPort = 0;    // the UDP source port of the flow's packets (its ECMP entropy, Rust's)
    RdmaOp op = RdmaOp::WRITE;
    Ptr<RdmaNic> dstNic;
    std::unique_ptr<Pending> pending; // until it starts
    std::unique_ptr<Live> live;       // from the start to the finish
    std::unique_ptr<Ended> ended;     // after the finish
};

/// One flow at its destination.
struct RdmaNic::RxFlow
{
    rust::Box<rdmacc_ffi::Receiver> receiver;
    ReArmedTimer timer;   //!< the receiver's timer (a deferred CNP, READ's re-request)
    uint32_t peer = 0;    //!< the sender's node
    uint32_t qp = 0;      //!< the sender's QP
    uint8_t prio = 0;     //!< the flow's priority
    uint16_t srcPort = 0; //!< the flow's UDP source port
    /// data packets the sender sent in all, once it finished (UINT64_MAX before)
    uint64_t sentPackets = UINT64_MAX;
    RdmaNic* srcNic = nullptr;    //!< the sender's NIC, once it finished
    RdmaNic* responder = nullptr; //!< READ: the responder's NIC (this host is the requester)
    bool readDone = false;        //!< READ: the responder was told of the last byte
};

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid = []()
    {
        TypeId t = TypeId("ns3::RdmaNic")
                       .SetParent<Object>()
                       .SetGroupName("RdmaCc")
                       .AddConstructor<RdmaNic>()
                       .AddTraceSource("FirstFeedback",
                                       "A flow received its first ACK or NACK: its first RTT "
                                       "is over (argument: flow id).",
                                       MakeTraceSourceAccessor(&RdmaNic::m_firstFeedback),
                                       "ns3::RdmaNic::FirstFeedbackCallback")
                       .AddTraceSource("FlowComplete",
                                       "A flow's last byte was acknowledged.",
                                       MakeTraceSourceAccessor(&RdmaNic::m_flowComplete),
                                       "ns3::RdmaNic::FlowCompleteCallback")
                       .AddTraceSource("Window",
                                       "A flow's congestion window changed: (flow id, window in "
                                       "packets; infinite for schemes without a window).",
                                       MakeTraceSourceAccessor(&RdmaNic::m_windowTrace),
                                       "ns3::RdmaNic::WindowCallback")
                       .AddTraceSource("Rate",
                                       "A flow's pacing rate changed: (flow id, bit/s; 0 = not "
                                       "paced).",
                                       MakeTraceSourceAccessor(&RdmaNic::m_rateTrace),
                                       "ns3::RdmaNic::RateCallback")
                       .AddTraceSource("Srtt",
                                       "A flow's smoothed RTT changed: (flow id, srtt).",
                                       MakeTraceSourceAccessor(&RdmaNic::m_srttTrace),
                                       "ns3::RdmaNic::SrttCallback")
                       .AddTraceSource("FlowState",
                                       "Once per event that changed a flow's window, rate or "
                                       "srtt: (flow id, window, rate in bit/s, srtt).",
                                       MakeTraceSourceAccessor(&RdmaNic::m_state),
                                       "ns3::RdmaNic::FlowStateCallback");
        rdmacc::AddRustAttributes(t, rdmacc::ParamTable::Nic, "ns3::RdmaNic");
        return t;
    }();
    return tid;
}

RdmaNic::RdmaNic() :
    m_nodeId(0),
    m_delivered(0),
    m_params(std::make_unique<Params>())
{
}

RdmaNic::RdmaNic(const RdmaNic& built) :
    Object(built), // its TypeId
    QbbDataSource(),
    RustParamOwner(),
    QbbFrameSink(),
    m_nodeId(0),
    m_delivered(0),
    m_params(std::make_unique<Params>(Params{built.m_params->p->snapshot()}))
{
    NS_ASSERT_MSG(!built.m_dev && built.m_qps.empty() && built.m_rx.empty(),
                  "RdmaNic: only a NIC just built is copied");
}

RdmaNic::~RdmaNic() = default;

std::vector<Ptr<RdmaNic>>
RdmaNic::CreateMany(uint32_t n)
{
    std::vector<Ptr<RdmaNic>> nics;
    nics.reserve(n);
    if (n > 0)
    {
        nics.push_back(CreateObject<RdmaNic>());
    }
    for (uint32_t i = 1; i < n; i++)
    {
        // what ConstructSelf would set again: the first's values, which nothing can have
        // changed since (no other code runs in between)
        nics.push_back(Ptr<RdmaNic>(new RdmaNic(*nics[0]), false));
    }
    return nics;
}

void
RdmaNic::SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v)
{
    m_params->p->set(index, v);
    m_params->snapshot.reset();
}

void
RdmaNic::TakeParams(const rdmacc_ffi::NicParams& from, const std::vector<std::size_t>& indices)
{
    try
    {
        m_params->p->take(from, rust::Slice<const std::size_t>(indices.data(), indices.size()));
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic", e.what());
    }
    m_params->snapshot.reset();
}

void
RdmaNic::GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const
{
    out = m_params->p->get(index);
}

bool
RdmaNic::SameRustParams(const RustParamOwner& other) const
{
    const auto* nic = dynamic_cast<const RdmaNic*>(&other);
    return nic != nullptr && m_params->p->same(*nic->m_params->p);
}

void
RdmaNic::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_startToken++; // a start event still scheduled does nothing
    for (auto& q : m_qps)
    {
        if (q.live)
        {
            q.live->timer.Cancel();
        }
        q.dstNic = nullptr;
    }
    for (auto& [key, rx] : m_rx)
    {
        rx->timer.Cancel();
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
    NS_LOG_FUNCTION(this << dev << nodeId);
    m_dev = dev;
    m_nodeId = nodeId;
    dev->SetDataSource(this);
    dev->SetFrameSink(this, false);
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
    return std::string(m_params->p->scheme_name());
}

uint32_t
RdmaNic::GetNQps() const
{
    return static_cast<uint32_t>(m_qps.size());
}

uint32_t
RdmaNic::AddFlow(Ptr<RdmaNic> dst,
                 uint64_t size,
                 Time start,
                 Time baseRtt,
                 uint32_t flowId,
                 bool lossless,
                 Time maxQueueing,
                 uint32_t intHops,
                 int priority,
                 RdmaOp op)
{
    NS_LOG_FUNCTION(this << dst << size << start << baseRtt << flowId << lossless << maxQueueing
                         << intHops << priority << int(op));
    NS_ABORT_MSG_UNLESS(m_dev && dst && dst->m_dev, "RdmaNic::AddFlow before Attach");
    if (size == 0)
    {
        rdmacc::ConfigFatal("flow " + std::to_string(flowId), "invalid size = 0: must be > 0");
    }
    if (op == RdmaOp::READ && m_local != dst->m_local)
    {
        rdmacc::ConfigFatal("flow " + std::to_string(flowId),
                            "invalid op = read: a READ needs its requester and responder "
                            "simulated by one process (not supported with --mpi)");
    }
    if (priority > 7)
    {
        rdmacc::ConfigFatal("flow " + std::to_string(flowId),
                            "invalid priority = " + std::to_string(priority) +
                                ": must be a priority 0-7");
    }
    auto pending = std::make_unique<Pending>();
    rdmacc_ffi::PathInfo& path = pending->path;
    path.line_rate_bps = m_dev->GetDataRate().GetBitRate();
    path.base_rtt_ns = static_cast<uint64_t>(std::max<int64_t>(0, baseRtt.GetNanoSeconds()));
    path.lossless = lossless;
    path.max_queueing_ns =
        static_cast<uint64_t>(std::max<int64_t>(0, maxQueueing.GetNanoSeconds()));
    path.int_telemetry = intHops > 0;
    path.fabric_base_rtt_ns =
        static_cast<uint64_t>(std::max<int64_t>(0, m_fabricBaseRtt.GetNanoSeconds()));
    try
    {
        m_params->p->validate(path);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic", e.what());
    }
    if (!m_params->snapshot)
    {
        m_params->snapshot =
            std::make_shared<const rust::Box<rdmacc_ffi::NicParams>>(m_params->p->snapshot());
    }
    pending->params = m_params->snapshot;
    const uint32_t idx = static_cast<uint32_t>(m_qps.size());
    Qp& q = m_qps.emplace_back();
    q.flowId = flowId;
    q.dstNode = dst->m_nodeId;
    q.size = size;
    // a time step, not an ns3::Time: until the simulator runs ns-3 records every Time object
    // alive in a set (for a change of resolution), about 40 more bytes per flow
    q.start = start.GetTimeStep();
    q.prio = priority >= 0 ? static_cast<uint8_t>(priority) : m_params->p->priority();
    q.scheme = m_params->p->scheme();
    q.srcPort = rdmacc_ffi::flow_source_port(flowId);
    q.intHops = static_cast<uint8_t>(std::min<uint32_t>(intHops, IntTag::MAX_HOPS));
    q.dstNic = dst;
    q.op = op;
    NS_LOG_DEBUG("flow " << flowId << " added as QP " << idx << ": to node " << q.dstNode << ", "
                         << size << " B at " << start.As(Time::US) << ", "
                         << rdmacc_ffi::scheme_name_of(q.scheme) << ", priority " << int(q.prio)
                         << (lossless ? ", lossless" : ", lossy") << ", base RTT "
                         << baseRtt.As(Time::US)
                         << (m_local ? "" : " (host of another process: not started here)"));
    if (m_local)
    {
        q.pending = std::move(pending); // a flow of another process's host never starts here
    }
    // the receiver comes into being from the flow's first data packet (which carries the size
    // and the scheme): the destination may be simulated by another process (MPI)
    if (m_local && op == RdmaOp::READ)
    {
        // a READ starts at its requester: the READ request starts this host's responses
        rdmacc::ScheduleWithContext(
            dst->m_nodeId, start - rdmacc::Now(), &RdmaNic::PostRead, dst, Ptr<RdmaNic>(this), idx);
    }
    else if (m_local)
    {
        QueueStart(idx, start);
    }
    return idx;
}

void
RdmaNic::QueueStart(uint32_t idx, Time start)
{
    if (idx > 0 && start < m_lastQueuedStart)
    {
        m_startDirty = true; // NextToStart sorts the waiting QPs
    }
    else if (m_startSorted && !m_startDirty)
    {
        m_startOrder.push_back(idx); // in start order: appended
    }
    m_lastQueuedStart = std::max(m_lastQueuedStart, start);
    if (m_startPending && m_startAt <= start)
    {
        return; // the host's start event comes first
    }
    // (an event already scheduled for a later start is left to do nothing: its token is old)
    m_startPending = true;
    m_startAt = start;
    // in the host's context (the event order of ns3::CanonicalScheduler keys it by the host)
    rdmacc::ScheduleWithContext(
        m_nodeId, start - rdmacc::Now(), &RdmaNic::OnStartEvent, this, ++m_startToken);
}

uint32_t
RdmaNic::NextToStart()
{
    if (m_startDirty)
    {
        // some QP was added before an earlier-added one's start: the waiting ones in start
        // order (equal starts in the order they were added)
        std::vector<uint32_t> waiting;
        for (uint32_t i = 0; i < m_qps.size(); i++)
        {
            const Qp& q = m_qps[i];
            if (q.pending && q.op != RdmaOp::READ)
            {
                waiting.push_back(i);
            }
        }
        std::stable_sort(waiting.begin(),
                         waiting.end(),
                         [this](uint32_t a, uint32_t b)
                         { return m_qps[a].start < m_qps[b].start; });
        m_startOrder = std::move(waiting);
        m_nextStart = 0;
        m_startSorted = true;
        m_startDirty = false;
    }
    if (m_startSorted)
    {
        if (m_nextStart < m_startOrder.size())
        {
            return m_startOrder[m_nextStart];
        }
        // every QP queued has started: back to the order they are added in
        m_startOrder.clear();
        m_startOrder.shrink_to_fit();
        m_startSorted = false;
        m_nextStart = static_cast<uint32_t>(m_qps.size());
        return UINT32_MAX;
    }
    // in the order added: READs start at their requester, not here
    while (m_nextStart < m_qps.size() && m_qps[m_nextStart].op == RdmaOp::READ)
    {
        m_nextStart++;
    }
    return m_nextStart < m_qps.size() ? m_nextStart : UINT32_MAX;
}

void
RdmaNic::OnStartEvent(uint64_t token)
{
    if (token != m_startToken)
    {
        return; // replaced by an event for an earlier start
    }
    m_startPending = false;
    const Time now = rdmacc::Now();
    uint32_t idx = NextToStart();
    while (idx != UINT32_MAX && m_qps[idx].start <= now.GetTimeStep())
    {
        m_nextStart++;
        StartQp(idx);
        idx = NextToStart();
    }
    if (idx != UINT32_MAX)
    {
        // (in this host's context, as this event)
        m_startPending = true;
        m_startAt = TimeStep(m_qps[idx].start);
        rdmacc::Schedule(m_startAt - now, &RdmaNic::OnStartEvent, this, ++m_startToken);
    }
}

void
RdmaNic::SetLocal(bool local)
{
    NS_LOG_FUNCTION(this << local);
    m_local = local;
}

void
RdmaNic::SetFabricBaseRtt(Time rtt)
{
    NS_LOG_FUNCTION(this << rtt);
    m_fabricBaseRtt = rtt;
}

bool
RdmaNic::IsLocal() const
{
    return m_local;
}

RdmaNic::RxFlow*
RdmaNic::NewReceiver(uint32_t srcNode, uint32_t qp, uint64_t size, uint8_t schemeCode)
{
    try
    {
        // a code that names no scheme is refused (the error names it)
        const rdmacc_ffi::Scheme scheme = rdmacc_ffi::scheme_from_code(schemeCode);
        auto rx = std::make_unique<RxFlow>(
            RxFlow{rdmacc_ffi::receiver_new(*m_params->p, scheme, size, m_nodeId)});
        NS_LOG_DEBUG("receiver for node " << srcNode << " QP " << qp << ": " << size << " B, "
                                          << rdmacc_ffi::scheme_name_of(scheme));
        rx->peer = srcNode;
        rx->qp = qp;
        RxFlow* r = rx.get();
        m_rx[(uint64_t(srcNode) << 32) | qp] = std::move(rx);
        return r;
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic (receiver)", e.what());
    }
    return nullptr;
}

std::vector<RdmaNic::RxRecord>
RdmaNic::GetRxRecords() const
{
    std::vector<RdmaNic::RxRecord> out;
    for (const auto& [key, rx] : m_rx)
    {
        const auto ri = rx->receiver->info();
        out.push_back(RxRecord{rx->peer, rx->qp, ri.received, ri.duplicate_bytes});
    }
    std::sort(out.begin(),
              out.end(),
              [](const RxRecord& a, const RxRecord& b)
              { return a.srcNode != b.srcNode ? a.srcNode < b.srcNode : a.qp < b.qp; });
    return out;
}

void
RdmaNic::StartQp(uint32_t idx)
{
    NS_LOG_FUNCTION(this << idx);
    Qp& q = m_qps[idx];
    const uint64_t now = rdmacc::NowNs();
    rdmacc::SyncLog();
    NS_LOG_INFO("flow " << q.flowId << " start: node " << m_nodeId << " -> node " << q.dstNode
                        << ", " << q.size << " B, " << rdmacc_ffi::scheme_name_of(q.scheme));
    try
    {
        q.live = std::make_unique<Live>(Live{rdmacc_ffi::sender_new(
            **q.pending->params, q.pending->path, q.size, now, m_nodeId, q.flowId)});
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic", e.what());
    }
    q.pending.reset();
    if (q.op == RdmaOp::READ)
    {
        q.live->requestAt = now;
    }
    EmitState(q);
    MakeReady(idx);
}

void
RdmaNic::PostRead(Ptr<RdmaNic> responder, uint32_t idx)
{
    NS_LOG_FUNCTION(this << responder << idx);
    const Qp& q = responder->m_qps[idx];
    const uint64_t key = (uint64_t(responder->m_nodeId) << 32) | idx;
    try
    {
        // the receiver of the responses (this host's ACK/CNP policy, the responder's scheme)
        auto rx = std::make_unique<RxFlow>(
            RxFlow{rdmacc_ffi::read_requester_new(*m_params->p, q.scheme, q.size, m_nodeId)});
        rx->peer = responder->m_nodeId;
        rx->qp = idx;
        rx->prio = q.prio;
        rx->srcPort = q.srcPort;
        rx->responder = PeekPointer(responder);
        m_rx[key] = std::move(rx);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RdmaNic (READ requester)", e.what());
    }
    rdmacc::SyncLog();
    NS_LOG_INFO("flow " << q.flowId << " READ posted: node " << m_nodeId << " reads " << q.size
                        << " B from node " << responder->m_nodeId);
    SendControl(RoceHeader::READ_REQ, responder->m_nodeId, idx, 0, 0, q.prio, q.srcPort);
}

void
RdmaNic::OnReadRequest(const RoceFields& h, uint64_t now)
{
    if (h.flowId >= m_qps.size() || m_qps[h.flowId].op != RdmaOp::READ)
    {
        NS_LOG_WARN("READ request for QP " << h.flowId << ", which is no READ");
        return;
    }
    Qp& q = m_qps[h.flowId];
    if (q.pending)
    {
        StartQp(h.flowId); // the first request: the responses start now
        return;
    }
    if (q.done || !q.live)
    {
        NS_LOG_LOGIC("flow " << q.flowId << ": READ request after the finish ignored");
        return;
    }
    // a repeat from the first missing byte: the responder goes back to it as it does for a
    // NACK (LDCP draft section 3.1: READ responses need no NAK)
    if (!q.live->gotFeedback)
    {
        q.live->gotFeedback = true;
        m_firstFeedback(q.flowId);
    }
    NS_LOG_LOGIC("flow " << q.flowId << " repeat READ request from seq " << h.seq);
    const bool ece = h.flags & RoceHeader::FLAG_ECE;
    AfterFeedback(h.flowId, q.live->sender->on_nack(now, h.seq, ece, h.ts));
}

void
RdmaNic::ReadDone(uint32_t idx, uint64_t now)
{
    Qp& q = m_qps[idx];
    if (q.live && q.live->readDone == UINT64_MAX)
    {
        q.live->readDone = now;
    }
}

void
RdmaNic::MakeReady(uint32_t idx)
{
    Qp& q = m_qps[idx];
    if (q.done || !q.live || q.live->inReady)
    {
        return;
    }
    q.live->inReady = true;
    m_dev->AddReadyFlow(q.prio, idx);
}

void
RdmaNic::SetTimer(uint32_t idx, uint64_t at)
{
    m_qps[idx].live->timer.Set(
        at,
        [this, idx](uint64_t delay, uint32_t token)
        { return rdmacc::Schedule(rdmacc::FromNs(delay), &RdmaNic::OnTimer, this, idx, token); });
}

void
RdmaNic::OnTimer(uint32_t idx, uint32_t token)
{
    Qp& q = m_qps[idx];
    if (q.done ||
        !q.live->timer.Due(
            token,
            [this, idx](uint64_t delay, uint32_t t)
            { return rdmacc::Schedule(rdmacc::FromNs(delay), &RdmaNic::OnTimer, this, idx, t); }))
    {
        return;
    }
    // one event per QP for every deadline it has (RTO, probe timeout, pacing / sub-packet
    // wait, the controller's own timers): the sender handles what has expired
    rdmacc_ffi::Sender& s = *q.live->sender;
    if (!RDMACC_LOG_ENABLED(LOG_INFO))
    {
        AfterFeedback(idx, s.on_timer(rdmacc::NowNs()));
        return;
    }
    const rdmacc_ffi::SenderInfo before = s.info();
    const uint64_t next = s.on_timer(rdmacc::NowNs());
    const rdmacc_ffi::SenderInfo after = s.info();
    if (after.timeouts > before.timeouts)
    {
        NS_LOG_INFO("flow " << q.flowId << " retransmits from seq " << after.snd_una
                            << " (timeout; sent up to " << before.snd_una + before.in_flight
                            << ")");
    }
    AfterFeedback(idx, next);
}

void
RdmaNic::AfterFeedback(uint32_t idx, uint64_t nextTimer)
{
    Qp& q = m_qps[idx];
    if (q.live->sender->is_done())
    {
        EmitState(q);
        Finish(idx);
        return;
    }
    SetTimer(idx, nextTimer);
    EmitState(q);
    MakeReady(idx);
}

void
RdmaNic::EmitState(Qp& q)
{
    if (m_state.IsEmpty() && m_windowTrace.IsEmpty() && m_rateTrace.IsEmpty() &&
        m_srttTrace.IsEmpty())
    {
        return;
    }
    Live& l = *q.live;
    const auto i = l.sender->info();
    const Time srtt = NanoSeconds(static_cast<int64_t>(i.srtt_ns));
    const bool cw = i.cw != l.last.cw;
    const bool rate = i.rate_bps != l.last.rate;
    const bool rtt = srtt != l.last.srtt;
    l.last = FlowState{i.cw, i.rate_bps, srtt};
    if (cw)
    {
        m_windowTrace(q.flowId, i.cw);
    }
    if (rate)
    {
        m_rateTrace(q.flowId, i.rate_bps);
    }
    if (rtt)
    {
        m_srttTrace(q.flowId, srtt);
    }
    if (cw || rate || rtt)
    {
        m_state(q.flowId, i.cw, i.rate_bps, srtt);
    }
}

RdmaNic::FlowState
RdmaNic::GetFlowState(uint32_t qp) const
{
    const Qp& q = m_qps.at(qp);
    if (q.done)
    {
        NS_ABORT_MSG_IF(!q.ended, "RdmaNic::GetFlowState: flow " << q.flowId << " handed over");
        return q.ended->finalState;
    }
    if (!q.live)
    {
        return FlowState{};
    }
    const auto i = q.live->sender->info();
    return FlowState{i.cw, i.rate_bps, NanoSeconds(static_cast<int64_t>(i.srtt_ns))};
}

uint32_t
RdmaNic::GetFlowId(uint32_t qp) const
{
    return m_qps.at(qp).flowId;
}

rdmacc::Frame
RdmaNic::PullData(uint32_t idx, RoceFields& fields)
{
    const uint64_t now = rdmacc::NowNs();
    Qp& q = m_qps[idx];
    if (q.done)
    {
        return rdmacc::Frame();
    }
    const rdmacc_ffi::PollOut o = q.live->sender->poll(now);
    SetTimer(idx, o.next_timer_ns);
    if (o.kind == rdmacc_ffi::PollKind::Send || o.kind == rdmacc_ffi::PollKind::Probe)
    {
        RoceFields h;
        h.prio = q.prio;
        h.srcIp = RoceHeader::NodeToIp(m_nodeId);
        h.dstIp = RoceHeader::NodeToIp(q.dstNode);
        h.srcPort = q.srcPort;
        h.flowId = idx;
        h.seq = o.seq;
        h.ts = now; // the send timestamp the receiver echoes in its (N)ACK
        h.msgSize = q.size;
        h.scheme = static_cast<uint8_t>(q.scheme);
        rdmacc::Frame p;
        if (o.kind == rdmacc_ffi::PollKind::Send)
        {
            h.kind = RoceHeader::DATA;
            h.ecn = o.ecn;
            h.flags = static_cast<uint8_t>((o.last ? RoceHeader::FLAG_LAST : 0) |
                                           (o.retx ? RoceHeader::FLAG_RETX : 0) |
                                           (o.ack_req ? RoceHeader::FLAG_ACKREQ : 0) |
                                           (q.live->gotFeedback ? 0 : RoceHeader::FLAG_FIRST_RTT));
            NS_LOG_LOGIC("flow " << q.flowId << " sends seq " << o.seq << " len " << o.len
                                 << (o.retx ? " (retransmission)" : "") << (o.last ? " last" : ""));
            if (q.intHops > 0)
            {
                // INT: the switches fill the records in; the header counts on the wire
                h.flags |= RoceHeader::FLAG_INT;
            }
            // the header's place is left unwritten: its fields travel with the frame
            // (RoceHeader::WriteInto writes them when something reads the bytes)
            p = rdmacc::FramePool::MakeFrame(o.len + h.Size());
            if (q.intHops > 0)
            {
                p->AddPacketTag(IntTag());
            }
        }
        else
        {
            NS_LOG_LOGIC("flow " << q.flowId << " sends RTT probe " << o.seq);
            h.kind = RoceHeader::PROBE;
            h.ecn = o.ecn; // ECT(0): Rust's PROBE_ECN
            p = rdmacc::FramePool::MakeFrame(h.Size());
        }
        fields = h.Canonical();
        return p; // the QP keeps its turn
    }
    // Wait: the QP's one timer is at the end of the wait (next_timer_ns includes it);
    // Blocked: feedback or a timer brings it back
    q.live->inReady = false;
    if (o.kind == rdmacc_ffi::PollKind::Done)
    {
        Finish(idx);
    }
    return rdmacc::Frame();
}

void
RdmaNic::Finish(uint32_t idx)
{
    Qp& q = m_qps[idx];
    if (q.done)
    {
        return;
    }
    const FlowState state = GetFlowState(idx); // before done: read from the sender
    q.live->timer.Cancel();
    auto e = std::make_unique<Ended>(SenderCounters(q.live->sender->info()));
    e->finalState = state;
    if (q.op == RdmaOp::READ)
    {
        // a READ completes when the requester has the last byte, not at the responder's ACK
        if (q.live->readDone != UINT64_MAX)
        {
            e->finish = NanoSeconds(static_cast<int64_t>(q.live->readDone));
        }
        e->requestArrived = NanoSeconds(static_cast<int64_t>(q.live->requestAt));
    }
    q.ended = std::move(e);
    q.done = true;
    // a finished flow keeps its counters, not its sender: memory follows the flows in
    // progress (a 400 000-flow run no longer holds 400 000 senders)
    q.live.reset();
    const FlowRecord r = Record(q);
    NS_LOG_INFO("flow " << r.flowId << " finish: node " << r.src << " -> node " << r.dst << ", "
                        << r.size << " B, FCT " << (r.finish - r.start).GetNanoSeconds() << " ns"
                        << ", retransmitted " << r.retxBytes << " B, " << r.timeouts
                        << " timeouts, " << r.nacks << " NACKs");
    m_flowComplete(r);
    // then the receiver may retire, and the record be handed over (the trace's listeners may
    // still read the flow's final state)
    if (q.dstNic && q.dstNic->m_local)
    {
        q.dstNic->SenderDone(this, idx, q.ended->packetsSent);
    }
    else
    {
        HandOver(idx); // no receiver on this process: the record is final now
    }
}

void
RdmaNic::SetFlowHandOver(Callback<void, const FlowRecord&> handOver)
{
    m_handOver = handOver;
}

void
RdmaNic::HandOver(uint32_t idx)
{
    Qp& q = m_qps[idx];
    if (m_handOver.IsNull() || !q.ended || q.handedOver)
    {
        return;
    }
    FlowRecord r = Record(q);
    if (q.ended->rxRetired)
    {
        r.delivered = q.ended->rxDelivered;
        r.dupBytes = q.ended->rxDuplicates;
        r.rereads = q.ended->rxRereads;
    }
    q.handedOver = true;
    q.ended.reset();
    m_handOver(r);
}

FlowRecord
RdmaNic::Record(const Qp& q) const
{
    FlowRecord r;
    r.flowId = q.flowId;
    r.src = m_nodeId;
    r.dst = q.dstNode;
    r.size = q.size;
    r.start = TimeStep(q.start);
    r.finish = Seconds(-1);
    r.scheme = std::string(rdmacc_ffi::scheme_name_of(q.scheme));
    r.op = q.op;
    r.priority = q.prio;
    if (q.ended || q.live)
    {
        // a finished flow's kept counters, or a running sender's current ones
        Ended e = q.ended ? *q.ended : SenderCounters(q.live->sender->info());
        if (!q.ended && q.op == RdmaOp::READ)
        {
            e.requestArrived = NanoSeconds(static_cast<int64_t>(q.live->requestAt));
            e.finish = q.live->readDone != UINT64_MAX
                           ? NanoSeconds(static_cast<int64_t>(q.live->readDone))
                           : Seconds(-1);
        }
        r.finish = e.finish;
        r.requestArrived = e.requestArrived;
        r.retxBytes = e.retxBytes;
        r.bytesSent = e.bytesSent;
        r.minCw = e.minCw;
        r.subPacketSends = e.subPacketSends;
        r.packetsSent = e.packetsSent;
        r.probesSent = e.probesSent;
        r.timeouts = e.timeouts;
        r.nacks = e.nacks;
    }
    return r;
}

std::vector<FlowRecord>
RdmaNic::GetFlowRecords() const
{
    std::vector<FlowRecord> out;
    out.reserve(m_qps.size());
    for (uint32_t i = 0; i < m_qps.size(); i++)
    {
        const Qp& q = m_qps[i];
        if (q.handedOver)
        {
            continue;
        }
        FlowRecord r = Record(q);
        if (q.ended && q.ended->rxRetired)
        {
            r.delivered = q.ended->rxDelivered;
            r.dupBytes = q.ended->rxDuplicates;
            r.rereads = q.ended->rxRereads;
        }
        else if (q.dstNic)
        {
            auto it = q.dstNic->m_rx.find((uint64_t(m_nodeId) << 32) | i);
            if (it != q.dstNic->m_rx.end())
            {
                const auto ri = it->second->receiver->info();
                r.delivered = ri.received;
                r.dupBytes = ri.duplicate_bytes;
                r.rereads = ri.rereads;
            }
        }
        out.push_back(r);
    }
    return out;
}

std::vector<RdmaNic::RxRecord>
RdmaNic::GetRetiredRxRecords() const
{
    std::vector<RxRecord> out;
    for (uint32_t i = 0; i < m_qps.size(); i++)
    {
        const Qp& q = m_qps[i];
        if (q.ended && q.ended->rxRetired)
        {
            out.push_back(RxRecord{m_nodeId, i, q.ended->rxDelivered, q.ended->rxDuplicates});
        }
    }
    return out;
}

void
RdmaNic::SenderDone(RdmaNic* src, uint32_t qp, uint64_t packets)
{
    const uint64_t key = (uint64_t(src->m_nodeId) << 32) | qp;
    auto it = m_rx.find(key);
    if (it == m_rx.end())
    {
        return;
    }
    it->second->sentPackets = packets;
    it->second->srcNic = src;
    RetireIfQuiet(key);
}

void
RdmaNic::RetireIfQuiet(uint64_t key)
{
    auto it = m_rx.find(key);
    if (it == m_rx.end())
    {
        return;
    }
    RxFlow& rx = *it->second;
    if (rx.sentPackets == UINT64_MAX || rx.timer.At() != UINT64_MAX)
    {
        return;
    }
    const auto ri = rx.receiver->info();
    if (ri.packets < rx.sentPackets)
    {
        return; // data still in flight (or lost: the receiver then stays)
    }
    NS_LOG_DEBUG("receiver for node " << rx.peer << " QP " << rx.qp << " retired: " << ri.received
                                      << " B delivered, " << ri.duplicate_bytes << " B duplicate");
    Ended& e = *rx.srcNic->m_qps.at(rx.qp).ended;
    e.rxDelivered = ri.received;
    e.rxDuplicates = ri.duplicate_bytes;
    e.rxRereads = ri.rereads;
    e.rxRetired = true;
    RdmaNic* src = rx.srcNic;
    const uint32_t qp = rx.qp;
    rx.timer.Cancel(); // a spare event may still be queued
    m_rx.erase(it);
    src->HandOver(qp); // the flow's record is final
}

uint64_t
RdmaNic::GetDeliveredBytes() const
{
    return m_delivered;
}

void
RdmaNic::SetRxTimer(RxFlow& rx, uint64_t at)
{
    RxFlow* r = &rx;
    rx.timer.Set(
        at,
        [this, r](uint64_t delay, uint32_t token)
        { return rdmacc::Schedule(rdmacc::FromNs(delay), &RdmaNic::OnRxTimer, this, r, token); });
}

void
RdmaNic::OnRxTimer(RxFlow* rx, uint32_t token)
{
    if (!rx->timer.Due(
            token,
            [this, rx](uint64_t delay, uint32_t t)
            { return rdmacc::Schedule(rdmacc::FromNs(delay), &RdmaNic::OnRxTimer, this, rx, t); }))
    {
        return;
    }
    const uint64_t now = rdmacc::NowNs();
    if (rx->receiver->on_timer(now))
    {
        // DCQCN's NP: the CNP deferred to the end of its interval
        NS_LOG_LOGIC("CNP to node " << rx->peer << " QP " << rx->qp << " (deferred)");
        SendControl(RoceHeader::CNP, rx->peer, rx->qp, 0, 0, rx->prio, rx->srcPort);
    }
    const uint64_t next = rx->receiver->next_timer();
    if (next != UINT64_MAX)
    {
        SetRxTimer(*rx, next);
    }
    else if (rx->sentPackets != UINT64_MAX)
    {
        RetireIfQuiet((uint64_t(rx->peer) << 32) | rx->qp);
    }
}

void
RdmaNic::SendControl(uint8_t kind,
                     uint32_t dstNode,
                     uint32_t flowId,
                     uint64_t seq,
                     uint8_t flags,
                     uint8_t prio,
                     uint16_t srcPort,
                     uint64_t ts,
                     const IntTag* intRecords)
{
    RoceFields h;
    h.kind = static_cast<RoceHeader::Kind>(kind);
    h.prio = prio;
    h.ecn = 0;
    h.flags = flags;
    h.srcIp = RoceHeader::NodeToIp(m_nodeId);
    h.dstIp = RoceHeader::NodeToIp(dstNode);
    h.srcPort = srcPort;
    h.flowId = flowId;
    h.seq = seq;
    h.ts = ts;
    if (intRecords)
    {
        // INT: the data packet's records, echoed (the INT header counts on the wire)
        h.flags |= RoceHeader::FLAG_INT;
    }
    // the header's place is left unwritten: its fields travel with the frame
    rdmacc::Frame p = rdmacc::FramePool::MakeFrame(h.Size());
    if (intRecords)
    {
        p->AddPacketTag(*intRecords);
    }
    // control kinds go in the device's control class
    m_dev->Enqueue(std::move(p), h.Canonical(), 0);
}

namespace
{
/// The name of a feedback kind, for the log.
const char*
FeedbackName(uint8_t kind)
{
    switch (kind)
    {
    case RoceHeader::ACK:
        return "ACK";
    case RoceHeader::NACK:
        return "NACK";
    case RoceHeader::CNP:
        return "CNP";
    default:
        return "probe response";
    }
}
} // namespace

void
RdmaNic::ReceiveFrame(QbbNetDevice* dev, rdmacc::Frame&& f, const RoceFields& h, uint32_t hdrBytes)
{
    NS_LOG_FUNCTION(this << dev << f.Peek());
    // the fields the frame came with: the frame ends here, only its payload's length and its
    // tags are used
    NS_ABORT_MSG_IF(hdrBytes == 0, "RdmaNic: a frame shorter than a RoCE header");
    const uint32_t payload = f.Size() - hdrBytes;
    const uint64_t now = rdmacc::NowNs();
    const uint32_t peer = RoceHeader::IpToNode(h.srcIp);
    switch (h.kind)
    {
    case RoceHeader::DATA:
    {
        auto it = m_rx.find((uint64_t(peer) << 32) | h.flowId);
        RxFlow& rx =
            it != m_rx.end() ? *it->second : *NewReceiver(peer, h.flowId, h.msgSize, h.scheme);
        const rdmacc_ffi::RxOut o = rx.receiver->on_data(now,
                                                         h.seq,
                                                         payload,
                                                         h.ecn == 3,
                                                         h.flags & RoceHeader::FLAG_LAST,
                                                         h.flags & RoceHeader::FLAG_ACKREQ);
        m_delivered += o.delivered;
        NS_LOG_LOGIC("data from node " << peer << " QP " << h.flowId << ": seq " << h.seq << " len "
                                       << payload << (h.ecn == 3 ? " CE" : "")
                                       << (o.accepted ? "" : " (out of order)") << ", "
                                       << int(o.n_acks) << " (N)ACKs" << (o.cnp ? ", CNP" : ""));
        const rdmacc_ffi::AckInfo acks[2] = {o.ack1, o.ack2};
        // INT: an ACK echoes the records of the data packet that triggered it
        IntTag records;
        const bool withInt =
            (h.flags & RoceHeader::FLAG_INT) && o.n_acks > 0 && f->PeekPacketTag(records);
        for (uint8_t k = 0; k < o.n_acks; k++)
        {
            if (acks[k].reread)
            {
                // READ responses out of order: the request again, from the first missing byte
                NS_LOG_LOGIC("repeat READ request to node " << peer << " QP " << h.flowId
                                                            << " from seq " << acks[k].seq);
                SendControl(RoceHeader::READ_REQ,
                            peer,
                            h.flowId,
                            acks[k].seq,
                            RoceHeader::FLAG_RETX | (acks[k].ece ? RoceHeader::FLAG_ECE : 0),
                            h.prio,
                            h.srcPort,
                            h.ts);
                continue;
            }
            SendControl(acks[k].nack ? RoceHeader::NACK : RoceHeader::ACK,
                        peer,
                        h.flowId,
                        acks[k].seq,
                        acks[k].ece ? RoceHeader::FLAG_ECE : 0,
                        h.prio,
                        h.srcPort,
                        h.ts,
                        withInt && acks[k].echo_int ? &records : nullptr);
        }
        if (o.cnp)
        {
            SendControl(RoceHeader::CNP, peer, h.flowId, 0, 0, h.prio, h.srcPort);
        }
        if (rx.responder && !rx.readDone && o.accepted && rx.receiver->info().complete)
        {
            // READ: the requester has the last byte, the flow's completion
            rx.readDone = true;
            rx.responder->ReadDone(h.flowId, now);
        }
        if (o.next_timer_ns != rx.timer.At())
        {
            rx.prio = h.prio;
            rx.srcPort = h.srcPort;
            SetRxTimer(rx, o.next_timer_ns);
        }
        if (rx.sentPackets != UINT64_MAX)
        {
            RetireIfQuiet((uint64_t(peer) << 32) | h.flowId); // a late packet of a finished flow
        }
        break;
    }
    case RoceHeader::PROBE:
        SendControl(RoceHeader::PROBE_RESP, peer, h.flowId, h.seq, 0, h.prio, h.srcPort);
        break;
    case RoceHeader::READ_REQ:
        OnReadRequest(h, now);
        break;
    case RoceHeader::ACK:
    case RoceHeader::NACK:
    case RoceHeader::CNP:
    case RoceHeader::PROBE_RESP:
    {
        if (h.flowId >= m_qps.size())
        {
            NS_LOG_WARN("feedback (kind " << int(h.kind) << ") from node " << peer << " for QP "
                                          << h.flowId << ", which does not exist");
            return;
        }
        Qp& q = m_qps[h.flowId];
        if (q.done || !q.live)
        {
            NS_LOG_LOGIC("flow " << q.flowId << ": feedback after the finish (kind " << int(h.kind)
                                 << ") ignored");
            return;
        }
        rdmacc_ffi::Sender& s = *q.live->sender;
        const bool ece = h.flags & RoceHeader::FLAG_ECE;
        if (!q.live->gotFeedback && (h.kind == RoceHeader::ACK || h.kind == RoceHeader::NACK))
        {
            q.live->gotFeedback = true;
            m_firstFeedback(q.flowId);
        }
        uint64_t next;
        IntTag records;
        NS_LOG_LOGIC("flow " << q.flowId << " " << FeedbackName(h.kind) << " seq " << h.seq
                             << (ece ? " ECE" : ""));
        if (h.kind == RoceHeader::ACK && (h.flags & RoceHeader::FLAG_INT) &&
            f->PeekPacketTag(records))
        {
            next = AckWithInt(q, now, h, ece, records);
        }
        else if (h.kind == RoceHeader::ACK)
        {
            next = s.on_ack(now, h.seq, ece, h.ts);
        }
        else if (h.kind == RoceHeader::NACK)
        {
            if (RDMACC_LOG_ENABLED(LOG_INFO) || RDMACC_LOG_ENABLED(LOG_LOGIC))
            {
                const rdmacc_ffi::SenderInfo before = s.info();
                next = Nack(q, now, h, ece, *f);
                LogNack(q, h.seq, before, s.info());
            }
            else
            {
                next = Nack(q, now, h, ece, *f);
            }
        }
        else if (h.kind == RoceHeader::CNP)
        {
            NS_LOG_LOGIC("flow " << q.flowId << " CNP");
            next = s.on_cnp(now);
        }
        else
        {
            next = s.on_probe_response(now, h.seq);
        }
        AfterFeedback(h.flowId, next);
        break;
    }
    default:
        break;
    }
}

namespace
{
/// Whether two INT tags with the same number of records crossed the same switch ports.
bool
SamePath(const IntTag& a, const IntTag& b)
{
    for (uint8_t j = 0; j < a.nHops && j < IntTag::MAX_HOPS; j++)
    {
        if (a.hops[j].node != b.hops[j].node || a.hops[j].port != b.hops[j].port)
        {
            return false;
        }
    }
    return true;
}

/// The records of `tag` as the bridge's hop records (the first min(nHops, MAX_HOPS) are set).
std::array<rdmacc_ffi::IntHop, IntTag::MAX_HOPS>
HopsOf(const IntTag& tag)
{
    std::array<rdmacc_ffi::IntHop, IntTag::MAX_HOPS> hops{};
    for (uint8_t j = 0; j < tag.nHops && j < IntTag::MAX_HOPS; j++)
    {
        hops[j].qlen_bytes = tag.hops[j].qlenBytes;
        hops[j].tx_bytes = tag.hops[j].txBytes;
        hops[j].ts_ns = tag.hops[j].tsNs;
        hops[j].line_rate_bps = tag.hops[j].lineRateBps;
        hops[j].port_id = (uint64_t{tag.hops[j].node} << 32) | tag.hops[j].port;
    }
    return hops;
}
} // namespace

uint64_t
RdmaNic::AckWithInt(Qp& q, uint64_t now, const RoceFields& h, bool ece, const IntTag& tag)
{
    const uint8_t n = std::min(tag.nHops, IntTag::MAX_HOPS);
    m_int.hopsMin = m_int.acks == 0 ? n : std::min<uint64_t>(m_int.hopsMin, n);
    m_int.hopsMax = std::max<uint64_t>(m_int.hopsMax, n);
    m_int.acks++;
    if (n != q.intHops)
    {
        m_int.hopMismatch++;
        NS_LOG_WARN("flow " << q.flowId << ": ACK with " << int(n) << " INT records, the path has "
                            << int(q.intHops) << " switches");
    }
    // one path, FIFO at every hop: each port's counters only grow from one ACK to the next
    // (compared when both ACKs' packets crossed the same ports: with adaptive routing a flow's
    // packets may take different paths, and one that left a shared first hop earlier can
    // arrive later)
    IntTag& lastInt = q.live->lastInt;
    if (lastInt.nHops == n && SamePath(tag, lastInt))
    {
        for (uint8_t j = 0; j < n; j++)
        {
            if (tag.hops[j].txBytes < lastInt.hops[j].txBytes ||
                tag.hops[j].tsNs < lastInt.hops[j].tsNs)
            {
                m_int.nonMonotone++;
                NS_LOG_WARN("flow " << q.flowId << ": INT record of hop " << int(j)
                                    << " below the previous ACK's");
                break;
            }
        }
    }
    lastInt = tag;
    const auto hops = HopsOf(tag);
    return q.live->sender->on_ack_int(
        now, h.seq, ece, h.ts, rust::Slice<const rdmacc_ffi::IntHop>(hops.data(), n));
}

uint64_t
RdmaNic::Nack(Qp& q, uint64_t now, const RoceFields& h, bool ece, const Packet& p)
{
    IntTag tag;
    if ((h.flags & RoceHeader::FLAG_INT) && p.PeekPacketTag(tag))
    {
        // a NACK that echoes INT (the hpcc-sim presets, as the HPCC simulator's)
        const uint8_t n = std::min(tag.nHops, IntTag::MAX_HOPS);
        const auto hops = HopsOf(tag);
        return q.live->sender->on_nack_int(
            now, h.seq, ece, h.ts, rust::Slice<const rdmacc_ffi::IntHop>(hops.data(), n));
    }
    return q.live->sender->on_nack(now, h.seq, ece, h.ts);
}

void
RdmaNic::LogNack(const Qp& q,
                 uint64_t seq,
                 const rdmacc_ffi::SenderInfo& before,
                 const rdmacc_ffi::SenderInfo& after) const
{
    if (after.nacks_ignored > before.nacks_ignored)
    {
        NS_LOG_LOGIC("flow " << q.flowId << " NACK for seq " << seq
                             << " ignored (below the acknowledged bytes or a duplicate)");
    }
    else if (after.done_ns == UINT64_MAX)
    {
        // go-back-N restarts at the NACKed sequence, now the lowest unacknowledged byte
        NS_LOG_INFO("flow " << q.flowId << " retransmits from seq " << after.snd_una
                            << " (NACK; sent up to " << before.snd_una + before.in_flight << ")");
    }
}

RdmaNic::IntStats
RdmaNic::GetIntStats() const
{
    return m_int;
}

} // namespace ns3
