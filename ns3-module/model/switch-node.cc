/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-node.h"

#include "rdma-cc-error.h"
#include "rdma-cc-log.h"
#include "red-ecn-queue-disc.h"
#include "roce-header.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/sched.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rust/cxx.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchNode");
NS_OBJECT_ENSURE_REGISTERED(SwitchNode);

TypeId
SwitchNode::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchNode")
            .SetParent<Node>()
            .SetGroupName("RdmaCc")
            .AddConstructor<SwitchNode>()
            .AddAttribute("BufferSize",
                          "Total shared buffer B of the switch, bytes (DCQCN: 12 MB).",
                          UintegerValue(12000000),
                          MakeUintegerAccessor(&SwitchNode::m_bufferSize),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Reserve",
                          "Reserved (guaranteed) bytes per ingress (port, priority) queue.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchNode::m_reserve),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Headroom",
                          "PFC headroom per ingress (port, lossless priority), bytes: absorbs "
                          "what arrives after a PAUSE is sent (DCQCN t_flight; needs 2 x link "
                          "BDP + 2 MTU + one PAUSE frame).",
                          UintegerValue(22400),
                          MakeUintegerAccessor(&SwitchNode::m_headroom),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("XoffBeta",
                          "Dynamic PFC threshold: an ingress queue pauses its peer when its "
                          "shared-buffer use exceeds XoffBeta x (free shared buffer) / 8 "
                          "(DCQCN section 4, beta = 8). 0 selects the static XoffStatic.",
                          DoubleValue(8.0),
                          MakeDoubleAccessor(&SwitchNode::m_xoffBeta),
                          MakeDoubleChecker<double>())
            .AddAttribute("XoffStatic",
                          "Static PFC threshold on an ingress queue's shared-buffer use, bytes "
                          "(used when XoffBeta = 0).",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&SwitchNode::m_xoffStatic),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("XonDelta",
                          "Hysteresis: a paused ingress queue resumes its peer when its shared "
                          "use falls to XOFF - XonDelta, bytes (DCQCN: 2 MTU).",
                          UintegerValue(3000),
                          MakeUintegerAccessor(&SwitchNode::m_xonDelta),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("PfcPriorities",
                          "Bit mask of the lossless priorities (PFC enabled; bit p = priority "
                          "p). Other priorities are lossy: tail drop at EgressLimit.",
                          UintegerValue(0x08),
                          MakeUintegerAccessor(&SwitchNode::m_pfcPriorities),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("EgressLimit",
                          "Egress queue limit of lossy priorities (buf_max), bytes.",
                          UintegerValue(375000),
                          MakeUintegerAccessor(&SwitchNode::m_egressLimit),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("MmuMtu",
                          "Largest frame, bytes, used for the XON hysteresis checks and the "
                          "headroom estimate (1000 B payload + 62 B headers by default).",
                          UintegerValue(1062),
                          MakeUintegerAccessor(&SwitchNode::m_mtu),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcmpSeed",
                          "Seed of this switch's ECMP hash (0: derived from the node id, so "
                          "switches hash differently).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&SwitchNode::m_ecmpSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("ControlBuffer",
                          "Bytes of the control pool, apart from BufferSize: control frames "
                          "(ACK, NACK, CNP, probe responses, frames the switch originates) are "
                          "accounted here, never in the data MMU, and dropped (reason "
                          "control) only when it is full. Control frames have strict priority "
                          "at every port, so a port's control queue only holds what arrives "
                          "while one frame is on the wire (about one control frame per "
                          "ingress port), and control traffic is a few percent of the data "
                          "rate that causes it (a 66 B ACK per 1062 B data frame): the "
                          "default, 1 MB, holds about 15000 ACKs and never fills in a normal "
                          "run.",
                          UintegerValue(rdmacc_ffi::control_buffer_default()),
                          MakeUintegerAccessor(&SwitchNode::m_controlBuffer),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("Drop",
                            "A frame was dropped: (frame, ingress port (for a frame the switch "
                            "originated: the port it was for), priority, reason).",
                            MakeTraceSourceAccessor(&SwitchNode::m_dropTrace),
                            "ns3::SwitchNode::DropTracedCallback")
            .AddTraceSource("ControlRx",
                            "A neighbour switch's control frame (RoceHeader SWITCH_CONTROL) "
                            "arrived for this switch: (frame, port).",
                            MakeTraceSourceAccessor(&SwitchNode::m_controlRxTrace),
                            "ns3::SwitchNode::ControlRxTracedCallback");
    return tid;
}

SwitchNode::SwitchNode() :
    m_core(nullptr),
    m_uv(CreateObject<UniformRandomVariable>()),
    m_controlBuffer(rdmacc_ffi::control_buffer_default())
{
}

SwitchNode::~SwitchNode()
{
    if (m_core)
    {
        (void)rust::Box<rdmacc_ffi::SwitchCore>::from_raw(m_core);
        m_core = nullptr;
    }
}

void
SwitchNode::DoDispose()
{
    m_ports.clear();
    Node::DoDispose();
}

uint32_t
SwitchNode::AddPort(Ptr<QbbNetDevice> dev)
{
    AddDevice(dev);
    m_ports.push_back(dev);
    dev->SetRxHandler(MakeCallback(&SwitchNode::ReceiveFromPort, this));
    dev->SetDequeueHandler(MakeCallback(&SwitchNode::OnDequeue, this));
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

rdmacc_ffi::MmuParams
SwitchNode::GetMmuParams() const
{
    rdmacc_ffi::MmuParams p{};
    p.buffer_size = m_bufferSize;
    p.ports = static_cast<uint32_t>(m_ports.size());
    p.mtu = m_mtu;
    p.reserve = m_reserve;
    p.headroom = m_headroom;
    p.xoff_dynamic = m_xoffBeta > 0;
    p.xoff_static = m_xoffStatic;
    p.xoff_beta = m_xoffBeta;
    p.xon_delta = m_xonDelta;
    p.lossless_mask = m_pfcPriorities;
    p.egress_limit = m_egressLimit;
    p.control_buffer = m_controlBuffer;
    return p;
}

void
SwitchNode::Setup(const rdmacc_ffi::Topology& topo)
{
    rdmacc::SyncLog();
    const std::string where = "ns3::SwitchNode " + std::to_string(GetId());
    if (m_xoffBeta < 0)
    {
        rdmacc::ConfigFatal(where,
                            "invalid XoffBeta = " + std::to_string(m_xoffBeta) + ": must be >= 0");
    }
    uint64_t seed = m_ecmpSeed ? m_ecmpSeed : 0x9E3779B97F4A7C15ULL * (GetId() + 1);
    try
    {
        auto core = rdmacc_ffi::switch_core_new(GetMmuParams(), topo, GetId(), seed);
        if (m_core)
        {
            (void)rust::Box<rdmacc_ffi::SwitchCore>::from_raw(m_core);
        }
        m_core = core.into_raw();
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal(where, e.what());
    }
}

void
SwitchNode::SetQueuePolicy(uint32_t port,
                           uint8_t prio,
                           uint64_t kMin,
                           uint64_t kMax,
                           double pMax,
                           uint8_t notEct,
                           uint64_t kFs,
                           uint64_t bufMax)
{
    NS_ABORT_MSG_UNLESS(m_core, "SwitchNode::SetQueuePolicy before Setup");
    rdmacc_ffi::RedEcnParams p{};
    p.k_min = kMin;
    p.k_max = kMax;
    p.p_max = pMax;
    p.not_ect = static_cast<rdmacc_ffi::NotEctMode>(notEct);
    p.k_fs = kFs;
    p.buf_max = bufMax;
    try
    {
        m_core->set_queue_policy(port, prio, p);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::SwitchNode " + std::to_string(GetId()) + " port " +
                                std::to_string(port) + " priority " + std::to_string(prio),
                            e.what());
    }
}

int64_t
SwitchNode::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

void
SwitchNode::ReceiveFromPort(Ptr<QbbNetDevice> dev, Ptr<Packet> p)
{
    NS_ASSERT_MSG(m_core, "SwitchNode " << GetId() << " received a frame before Setup");
    RoceHeader h;
    p->PeekHeader(h);
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
    m.size = p->GetSize();
    m.ecn = h.ecn;
    m.kind = static_cast<rdmacc_ffi::PacketKind>(h.kind);
    m.draw = m_uv->GetValue();
    const rdmacc_ffi::SwitchDecision d = m_core->on_arrival(m);
    if (d.pfc != rdmacc_ffi::PfcAction::None)
    {
        ApplyPfc(inPort, h.prio, d.pfc);
    }
    switch (d.action)
    {
    case rdmacc_ffi::Action::Drop:
    {
        const char* reason = RedEcnQueueDisc::DropReasonName(d.reason);
        NS_LOG_LOGIC("switch " << GetId() << " drop " << reason << " " << h);
        m_dropTrace(p, inPort, h.prio, reason);
        return;
    }
    case rdmacc_ffi::Action::Local:
        m_controlRxTrace(p, inPort);
        return;
    case rdmacc_ffi::Action::Mark:
        p->RemoveHeader(h);
        h.ecn = 3;
        p->AddHeader(h);
        break;
    default:
        break;
    }
    m_ports[d.out_port]->Enqueue(p, h.prio & 7, h.kind, h.FlowKey(), inPort);
}

bool
SwitchNode::SendControlFrame(uint32_t port, Ptr<Packet> p)
{
    NS_ABORT_MSG_UNLESS(m_core, "SwitchNode::SendControlFrame before Setup");
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "SwitchNode::SendControlFrame: no port " << port);
    RoceHeader h;
    p->PeekHeader(h);
    NS_ABORT_MSG_UNLESS(
        rdmacc_ffi::packet_kind_is_control(static_cast<rdmacc_ffi::PacketKind>(h.kind)),
        "SwitchNode::SendControlFrame: a frame of a control kind is needed, got " << h);
    const rdmacc_ffi::SwitchDecision d = m_core->originate(port, p->GetSize());
    if (d.action == rdmacc_ffi::Action::Drop)
    {
        m_dropTrace(p, port, h.prio, RedEcnQueueDisc::DropReasonName(d.reason));
        return false;
    }
    m_ports[port]->Enqueue(p, h.prio & 7, h.kind, h.FlowKey(), port);
    return true;
}

uint64_t
SwitchNode::GetMaxEgressBytes(uint32_t port, uint8_t prio) const
{
    return m_core ? m_core->max_egress_bytes(port, prio) : 0;
}

void
SwitchNode::ResetMaxEgress()
{
    if (m_core)
    {
        m_core->reset_max_egress();
    }
}

void
SwitchNode::SampleEgress(uint8_t prioMask, rust::Vec<rdmacc_ffi::EgressSample>& out) const
{
    if (m_core)
    {
        m_core->sample_egress(prioMask, out);
    }
    else
    {
        out.clear();
    }
}

void
SwitchNode::OnDequeue(Ptr<QbbNetDevice> dev, const rdmacc_ffi::TxPacket& t)
{
    const rdmacc_ffi::PfcAction a = m_core->on_departure(t, dev->GetIfIndex());
    if (a != rdmacc_ffi::PfcAction::None)
    {
        ApplyPfc(t.in_port, t.prio, a);
    }
}

void
SwitchNode::ApplyPfc(uint32_t port, uint8_t prio, rdmacc_ffi::PfcAction action)
{
    m_ports[port]->SendPfc(prio, action == rdmacc_ffi::PfcAction::Pause);
}

SwitchNode::Counters
SwitchNode::GetCounters() const
{
    return m_core ? m_core->counters() : Counters{};
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
    return m_core ? std::string(m_core->check_invariants()) : std::string("not set up");
}

uint64_t
SwitchNode::GetEgressBytes(uint32_t port, uint8_t prio) const
{
    return m_core ? m_core->egress_bytes(port, prio) : 0;
}

uint8_t
SwitchNode::GetPfcPriorities() const
{
    return m_pfcPriorities;
}

std::vector<std::string>
SwitchNode::ConfigWarnings(uint64_t kMin) const
{
    std::vector<std::string> out;
    const auto params = GetMmuParams();
    // one check per distinct (rate, delay) among the ports
    std::vector<std::pair<uint64_t, int64_t>> seen;
    for (const auto& port : m_ports)
    {
        std::pair<uint64_t, int64_t> key{port->GetDataRate().GetBitRate(),
                                         port->GetDelay().GetNanoSeconds()};
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
        {
            continue;
        }
        seen.push_back(key);
        for (const auto& w : rdmacc_ffi::mmu_warnings(params, kMin, key.first, key.second))
        {
            std::string s(w);
            if (std::find(out.begin(), out.end(), s) == out.end())
            {
                out.push_back(s);
            }
        }
    }
    return out;
}

} // namespace ns3
