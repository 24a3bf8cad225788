/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-node.h"

#include "cancel-event.h"
#include "detail/switch-egress-samples.h"
#include "lean-simulator-impl.h"
#include "rdma-cc-error.h"
#include "rdma-cc-log.h"
#include "red-ecn-queue-disc.h"
#include "roce-header.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include "rdma-cc/src/params.rs.h"
#include "rdma-cc/src/sched.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <optional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchNode");
NS_OBJECT_ENSURE_REGISTERED(SwitchNode);

// every line names its switch, as ns-3's models name their node ("[node 12] ")
// off, a statement costs one load and a branch (rdma-cc-log.h)
static rdmacc::LogGate g_logGate(g_log);
#undef NS_LOG_CONDITION
#define NS_LOG_CONDITION if (g_logGate.On())
#undef NS_LOG_APPEND_CONTEXT
#define NS_LOG_APPEND_CONTEXT rdmacc::WriteContext(std::clog, GetId());

namespace
{

/// Rust's names of RCM's event kinds and roles (indexed by code), as C strings for traces.
struct RcmNames
{
    std::vector<std::string> events; //!< by RcmEventKind
    std::vector<std::string> roles;  //!< by RcmRole

    RcmNames()
    {
        for (uint8_t k = 0; k <= static_cast<uint8_t>(rdmacc_ffi::RcmEventKind::RccRecover); k++)
        {
            events.emplace_back(
                rdmacc_ffi::rcm_event_name(static_cast<rdmacc_ffi::RcmEventKind>(k)));
        }
        for (uint8_t r = 0; r <= static_cast<uint8_t>(rdmacc_ffi::RcmRole::Inner); r++)
        {
            roles.emplace_back(rdmacc_ffi::rcm_role_name(static_cast<rdmacc_ffi::RcmRole>(r)));
        }
    }
};

const RcmNames&
Names()
{
    static const RcmNames names;
    return names;
}

} // namespace

TypeId
SwitchNode::GetTypeId()
{
    static TypeId tid = []()
    {
        TypeId t =
            TypeId("ns3::SwitchNode")
                .SetParent<Node>()
                .SetGroupName("RdmaCc")
                .AddConstructor<SwitchNode>()
                .AddAttribute("Int",
                              "INT for HPCC (Li et al., SIGCOMM 2019, section 3): every egress "
                              "port appends a hop record (bytes queued in its data classes "
                              "after the dequeue, frame bytes sent before the packet, dequeue "
                              "time, line rate) to each data packet of an INT flow it sends, up "
                              "to " +
                                  std::to_string(rdmacc_ffi::int_max_hops()) +
                                  " per packet. A flow is an INT flow when every switch on its "
                                  "path has Int: its data packets and ACKs then carry " +
                                  std::to_string(rdmacc_ffi::int_bytes_on_wire()) +
                                  " more bytes on the wire (RoceHeader::INT_BYTES). The "
                                  "examples' --int turns it on for every switch (auto: when the "
                                  "scheme needs INT, HPCC).",
                              BooleanValue(false),
                              MakeBooleanAccessor(&SwitchNode::m_int),
                              MakeBooleanChecker())
                .AddTraceSource("Drop",
                                "A frame was dropped: (frame, ingress port (for a frame the "
                                "switch originated: the port it was for), priority, reason).",
                                MakeTraceSourceAccessor(&SwitchNode::m_dropTrace),
                                "ns3::SwitchNode::DropTracedCallback")
                .AddTraceSource("ControlRx",
                                "A neighbour switch's control frame (RoceHeader SWITCH_CONTROL) "
                                "arrived for this switch: (frame, port).",
                                MakeTraceSourceAccessor(&SwitchNode::m_controlRxTrace),
                                "ns3::SwitchNode::ControlRxTracedCallback")
                .AddTraceSource("RccChange",
                                "RCM: the RCC of an output queue changed: (port, priority, on / "
                                "cut / flows (its congestion flows) / recover (W_c grew) / off, "
                                "role at on, window W, budget W_c).",
                                MakeTraceSourceAccessor(&SwitchNode::m_rccTrace),
                                "ns3::SwitchNode::RccChangeTracedCallback");
        rdmacc::AddRustAttributes(t, rdmacc::ParamTable::Switch, "ns3::SwitchNode");
        return t;
    }();
    return tid;
}

uint32_t SwitchNode::s_nextSystemId = 0;

void
SwitchNode::SetNextSystemId(uint32_t systemId)
{
    s_nextSystemId = systemId;
}

/// The Rust side of a switch.
struct SwitchNode::Rust
{
    rust::Box<rdmacc_ffi::SwitchParams> params = rdmacc_ffi::switch_params_new(); //!< attributes
    std::optional<rust::Box<rdmacc_ffi::SwitchCore>> core; //!< the core (after Setup)
};

namespace
{
/// The RED draws of ns-3's stream `stream` (its numbering) under the current seed and run.
rdmacc::Mrg32k3a
RedDraws(uint64_t stream)
{
    return rdmacc::Mrg32k3a(RngSeedManager::GetSeed(), stream, RngSeedManager::GetRun());
}
} // namespace

SwitchNode::SwitchNode() :
    Node(s_nextSystemId),
    m_rust(std::make_unique<Rust>()),
    // the automatic stream an ns-3 UniformRandomVariable made here would take
    m_draws(RedDraws(RngSeedManager::GetNextStreamIndex()))
{
}

void
SwitchNode::SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v)
{
    m_rust->params->set(index, v);
}

void
SwitchNode::TakeParams(const rdmacc_ffi::SwitchParams& from,
                       const std::vector<std::size_t>& indices)
{
    NS_ABORT_MSG_IF(m_rust->core, "SwitchNode::TakeParams after Setup");
    try
    {
        m_rust->params->take(from, rust::Slice<const std::size_t>(indices.data(), indices.size()));
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::SwitchNode", e.what());
    }
}

void
SwitchNode::GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const
{
    out = m_rust->params->get(index);
}

SwitchNode::~SwitchNode() = default;

void
SwitchNode::DoDispose()
{
    NS_LOG_FUNCTION(this);
    rdmacc::CancelEvent(m_rcmTimer);
    m_ports.clear();
    Node::DoDispose();
}

uint32_t
SwitchNode::AddPort(Ptr<QbbNetDevice> dev)
{
    NS_LOG_FUNCTION(this << dev);
    AddDevice(dev);
    m_ports.push_back(dev);
    dev->SetFrameSink(this, true);
    dev->SetIntTelemetry(m_int);
    return static_cast<uint32_t>(m_ports.size() - 1);
}

uint32_t
SwitchNode::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<QbbNetDevice>
SwitchNode::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
SwitchNode::PortLinks() const
{
    std::vector<uint64_t> rates;
    std::vector<uint64_t> delays;
    for (const auto& port : m_ports)
    {
        rates.push_back(port->GetDataRate().GetBitRate());
        delays.push_back(
            static_cast<uint64_t>(std::max<int64_t>(0, port->GetDelay().GetNanoSeconds())));
    }
    return {rates, delays};
}

std::string
SwitchNode::ValidateConfig() const
{
    const auto [rates, delays] = PortLinks();
    try
    {
        m_rust->params->validate_options(rust::Slice<const rust::String>(),
                                         m_rust->params->pfc_priorities(),
                                         0,
                                         0,
                                         rust::Slice<const uint64_t>(rates.data(), rates.size()),
                                         rust::Slice<const uint64_t>(delays.data(), delays.size()));
    }
    catch (const rust::Error& e)
    {
        return e.what();
    }
    return "";
}

void
SwitchNode::Setup(const rdmacc_ffi::Topology& topo)
{
    NS_LOG_FUNCTION(this);
    rdmacc::SyncLog();
    // each port's link: its PFC headroom follows from the rate and the delay
    const auto [rates, delays] = PortLinks();
    try
    {
        m_rust->core =
            rdmacc_ffi::switch_core_new(*m_rust->params,
                                        rust::Slice<const uint64_t>(rates.data(), rates.size()),
                                        rust::Slice<const uint64_t>(delays.data(), delays.size()),
                                        topo,
                                        GetId());
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::SwitchNode " + std::to_string(GetId()), e.what());
    }
    m_rcm = (*m_rust->core)->rcm_enabled();
    NS_LOG_DEBUG("set up: " << m_ports.size() << " ports, buffer " << m_rust->params->buffer_size()
                            << " B, PFC priorities 0x" << std::hex
                            << int(m_rust->params->pfc_priorities()) << std::dec
                            << (m_rcm ? ", RCM" : "") << (m_int ? ", INT" : ""));
    const bool voq = m_rust->params->voq();
    for (const auto& port : m_ports)
    {
        port->SetIntTelemetry(m_int);
        port->SetInputFair(voq);
    }
}

bool
SwitchNode::GetIntTelemetry() const
{
    return m_int;
}

void
SwitchNode::SetQueuePolicy(uint32_t port, uint8_t prio, const rdmacc_ffi::RedEcnParams& policy)
{
    NS_ABORT_MSG_UNLESS(m_rust->core, "SwitchNode::SetQueuePolicy before Setup");
    try
    {
        (*m_rust->core)->set_queue_policy(port, prio, policy);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::SwitchNode " + std::to_string(GetId()) + " port " +
                                std::to_string(port) + " priority " + std::to_string(prio),
                            e.what());
    }
    NS_LOG_DEBUG("port " << port << " priority " << int(prio) << ": RED/ECN policy, K_min "
                         << policy.k_min() << " B, buffer max " << policy.buf_max() << " B");
}

int64_t
SwitchNode::AssignStreams(int64_t stream)
{
    NS_ABORT_MSG_IF(stream < -1, "SwitchNode::AssignStreams: stream " << stream << " < -1");
    m_draws = RedDraws(stream == -1 ? RngSeedManager::GetNextStreamIndex()
                                    : rdmacc::Mrg32k3a::ASSIGNED_STREAMS + stream);
    return 1;
}

void
SwitchNode::ReceiveFrame(QbbNetDevice* dev,
                         rdmacc::Frame&& f,
                         const RoceFields& fields,
                         uint32_t hdrBytes)
{
    NS_LOG_FUNCTION(this << dev << f.Peek());
    NS_ASSERT_MSG(m_rust->core, "SwitchNode " << GetId() << " received a frame before Setup");
    NS_ABORT_MSG_IF(hdrBytes == 0,
                    "SwitchNode " << GetId() << ": a frame shorter than a RoCE header");
    // the fields the frame came with (its header's bytes are not read; a CE mark changes the
    // fields it leaves with, not its bytes); `out`: what it leaves with
    const RoceFields& h = fields;
    const RoceFields* out = &fields;
    std::optional<RoceFields> marked; // built only for a CE mark
    const uint32_t inPort = dev->GetIfIndex();
    rdmacc_ffi::SwitchPacket m{};
    m.in_port = inPort;
    m.prio = h.prio;
    m.dst_node = RoceHeader::IpToNode(h.dstIp);
    m.src_ip = h.srcIp;
    m.dst_ip = h.dstIp;
    m.src_port = h.srcPort;
    m.dst_port = h.dstPort;
    m.protocol = 17;
    m.size = f.Size();
    m.ecn = h.ecn;
    m.kind = static_cast<rdmacc_ffi::PacketKind>(h.kind);
    m.draw = m_draws.Next();
    m.flow = h.FlowKey();
    m.now_ns = rdmacc::NowNs();
    const rdmacc_ffi::SwitchDecision d = (*m_rust->core)->on_arrival(m);
    if (d.pfc != rdmacc_ffi::PfcAction::None)
    {
        ApplyPfc(inPort, h.prio, d.pfc == rdmacc_ffi::PfcAction::Pause);
    }
    switch (d.action)
    {
    case rdmacc_ffi::Action::Drop:
    {
        const char* reason = RedEcnQueueDisc::DropReasonName(d.reason);
        NS_LOG_INFO("drop (" << reason << ") from port " << inPort << " priority " << int(h.prio)
                             << ", " << m.size << " B: " << h);
        if (!m_dropTrace.IsEmpty())
        {
            RoceHeader::WriteInto(*f, h, hdrBytes); // a sink reads the bytes
            m_dropTrace(f.Share(), inPort, h.prio, reason);
        }
        return;
    }
    case rdmacc_ffi::Action::Local:
        if (m_rcm)
        {
            // the frame's payload (a CN) is Rust's to read
            Ptr<Packet> body = f->Copy();
            body->RemoveAtStart(hdrBytes);
            std::vector<uint8_t> bytes(body->GetSize());
            body->CopyData(bytes.data(), bytes.size());
            (*m_rust->core)
                ->on_control(
                    m.now_ns, inPort, rust::Slice<const uint8_t>(bytes.data(), bytes.size()));
            DrainRcm();
        }
        if (!m_controlRxTrace.IsEmpty())
        {
            RoceHeader::WriteInto(*f, h, hdrBytes); // a sink reads the bytes
            m_controlRxTrace(f.Share(), inPort);
        }
        return;
    case rdmacc_ffi::Action::Mark:
        // the fields travel with the frame and are its truth: its bytes are written only
        // when something reads them (RoceHeader::WriteInto)
        marked = h;
        marked->ecn = 3;
        out = &*marked;
        NS_LOG_LOGIC("port " << inPort << " -> " << d.out_port << ", marked CE: " << *marked);
        break;
    default:
        NS_LOG_LOGIC("port " << inPort << " -> " << d.out_port << ": " << h);
        break;
    }
    if (m_rcm)
    {
        // budgets first: the packet joins a scheduler that knows its port's RCC
        DrainRcm();
    }
    m_ports[d.out_port]->Enqueue(std::move(f), *out, inPort);
}

void
SwitchNode::DrainRcm()
{
    while (true)
    {
        const rdmacc_ffi::RcmEvent e = (*m_rust->core)->rcm_pop_event();
        switch (e.kind)
        {
        case rdmacc_ffi::RcmEventKind::SendCn:
        {
            const rust::Slice<const uint8_t> body = (*m_rust->core)->rcm_cn_payload();
            Ptr<Packet> p = Create<Packet>(body.data(), static_cast<uint32_t>(body.size()));
            RoceHeader h;
            h.kind = RoceHeader::SWITCH_CONTROL;
            h.prio = e.prio;
            h.srcIp = RoceHeader::NodeToIp(GetId());
            p->AddHeader(h);
            NS_LOG_LOGIC("RCM: CN to port " << e.port << " priority " << int(e.prio) << ", degree "
                                            << int(e.degree) << ", " << e.flows << " flows");
            SendControlFrame(e.port, p);
            break;
        }
        case rdmacc_ffi::RcmEventKind::RccOn:
        case rdmacc_ffi::RcmEventKind::RccCut:
        case rdmacc_ffi::RcmEventKind::RccFlows:
        case rdmacc_ffi::RcmEventKind::RccRecover:
        case rdmacc_ffi::RcmEventKind::RccOff:
        {
            const bool on = e.kind != rdmacc_ffi::RcmEventKind::RccOff;
            const auto flows = (*m_rust->core)->rcm_event_flows();
            m_ports[e.port]->SetRcc(e.prio,
                                    on,
                                    e.w,
                                    e.w_c,
                                    flows.data(),
                                    flows.size(),
                                    (*m_rust->core)->rcm_rcc_period_ns(e.port, e.prio));
            const RcmNames& n = Names();
            const char* role = e.kind == rdmacc_ffi::RcmEventKind::RccOn
                                   ? n.roles.at(static_cast<uint8_t>(e.role)).c_str()
                                   : "";
            NS_LOG_LOGIC("RCM: RCC " << n.events.at(static_cast<uint8_t>(e.kind)) << " port "
                                     << e.port << " priority " << int(e.prio) << " " << role
                                     << " W " << e.w << " W_c " << e.w_c);
            m_rccTrace(e.port,
                       e.prio,
                       n.events.at(static_cast<uint8_t>(e.kind)).c_str(),
                       role,
                       e.w,
                       e.w_c);
            break;
        }
        default:
        {
            const uint64_t next = (*m_rust->core)->rcm_next_timeout();
            if (next == UINT64_MAX)
            {
                return;
            }
            const Time at = NanoSeconds(static_cast<int64_t>(next));
            // pending: its event has not run (OnRcmTimer clears it; ns-3's IsExpired is not
            // right for this under the canonical order, see cancel-event.h)
            if (m_rcmTimer.PeekEventImpl() == nullptr || at < TimeStep(m_rcmTimer.GetTs()))
            {
                rdmacc::CancelEvent(m_rcmTimer);
                m_rcmTimer = rdmacc::Schedule(
                    std::max(at - rdmacc::Now(), Time(0)), &SwitchNode::OnRcmTimer, this);
            }
            return;
        }
        }
    }
}

void
SwitchNode::OnRcmTimer()
{
    m_rcmTimer = EventId(); // run: no longer pending
    (*m_rust->core)->rcm_on_timeout(rdmacc::NowNs());
    DrainRcm();
}

SwitchNode::RcmCounters
SwitchNode::GetRcmCounters() const
{
    return m_rust->core ? (*m_rust->core)->rcm_counters() : RcmCounters{};
}

std::vector<uint64_t>
SwitchNode::GetRcmCam(uint32_t port, uint8_t prio) const
{
    std::vector<uint64_t> out;
    if (m_rust->core)
    {
        for (uint64_t f : (*m_rust->core)->rcm_cam(port, prio))
        {
            out.push_back(f);
        }
    }
    return out;
}

bool
SwitchNode::SendControlFrame(uint32_t port, Ptr<Packet> p)
{
    NS_ABORT_MSG_UNLESS(m_rust->core, "SwitchNode::SendControlFrame before Setup");
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "SwitchNode::SendControlFrame: no port " << port);
    RoceHeader h;
    p->PeekHeader(h);
    NS_ABORT_MSG_UNLESS(
        rdmacc_ffi::packet_kind_is_control(static_cast<rdmacc_ffi::PacketKind>(h.kind)),
        "SwitchNode::SendControlFrame: a frame of a control kind is needed, got " << h);
    const rdmacc_ffi::SwitchDecision d = (*m_rust->core)->originate(port, p->GetSize());
    if (d.action == rdmacc_ffi::Action::Drop)
    {
        const char* reason = RedEcnQueueDisc::DropReasonName(d.reason);
        NS_LOG_INFO("drop (" << reason << ") of its own control frame for port " << port << ": "
                             << h);
        m_dropTrace(p, port, h.prio, reason);
        return false;
    }
    m_ports[port]->Enqueue(p, h, port);
    return true;
}

uint64_t
SwitchNode::GetMaxEgressBytes(uint32_t port, uint8_t prio) const
{
    return m_rust->core ? (*m_rust->core)->max_egress_bytes(port, prio) : 0;
}

void
SwitchNode::ResetMaxEgress()
{
    if (m_rust->core)
    {
        (*m_rust->core)->reset_max_egress();
    }
}

void
SwitchNode::SampleEgress(uint8_t prioMask, EgressSamples& out) const
{
    if (m_rust->core)
    {
        (*m_rust->core)->sample_egress(prioMask, out.v);
    }
    else
    {
        out.v.clear();
    }
}

void
SwitchNode::DequeueFrame(QbbNetDevice* dev, const rdmacc_ffi::TxPacket& t)
{
    const rdmacc_ffi::PfcAction a = (*m_rust->core)->on_departure(t, dev->GetIfIndex());
    if (a != rdmacc_ffi::PfcAction::None)
    {
        ApplyPfc(t.in_port, t.prio, a == rdmacc_ffi::PfcAction::Pause);
    }
}

void
SwitchNode::ApplyPfc(uint32_t port, uint8_t prio, bool pause)
{
    NS_LOG_LOGIC((pause ? "PAUSE" : "RESUME") << " port " << port << " priority " << int(prio)
                                              << " (the MMU's ingress accounting)");
    m_ports[port]->SendPfc(prio, pause);
}

SwitchNode::Counters
SwitchNode::GetCounters() const
{
    return m_rust->core ? (*m_rust->core)->counters() : Counters{};
}

std::vector<std::pair<std::string, uint64_t>>
SwitchNode::GetDropList() const
{
    std::vector<std::pair<std::string, uint64_t>> out;
    for (const auto& d : rdmacc_ffi::drop_list(GetCounters().drops))
    {
        out.emplace_back(std::string(d.name), d.count);
    }
    return out;
}

std::string
SwitchNode::CheckInvariants() const
{
    return m_rust->core ? std::string((*m_rust->core)->check_invariants())
                        : std::string("not set up");
}

uint64_t
SwitchNode::GetEgressBytes(uint32_t port, uint8_t prio) const
{
    return m_rust->core ? (*m_rust->core)->egress_bytes(port, prio) : 0;
}

uint8_t
SwitchNode::GetPfcPriorities() const
{
    return m_rust->params->pfc_priorities();
}

uint64_t
SwitchNode::GetBufferSize() const
{
    return m_rust->params->buffer_size();
}

uint64_t
SwitchNode::GetHeadroom(uint32_t port) const
{
    return m_rust->core ? (*m_rust->core)->headroom(port) : 0;
}

std::vector<std::string>
SwitchNode::ConfigWarnings(bool marking, uint64_t kMin) const
{
    std::vector<std::string> out;
    if (m_rust->core)
    {
        for (const auto& w : (*m_rust->core)->warnings(marking, kMin))
        {
            out.emplace_back(w);
        }
    }
    return out;
}

} // namespace ns3
