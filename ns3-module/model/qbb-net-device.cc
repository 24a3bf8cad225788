/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "qbb-net-device.h"

#include "cancel-event.h"
#include "lean-simulator-impl.h"
#include "pfc-header.h"
#include "qbb-channel.h"
#include "rdma-cc-error.h"
#include "rdma-cc-log.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/sched.rs.h"
#include "rdma-cc/src/wire.rs.h"
#include "rust/cxx.h"

#include <algorithm>

namespace ns3
{

namespace
{
// The RoCE header's kind codes are the bridge's PacketKind codes.
static_assert(uint8_t(rdmacc_ffi::PacketKind::Data) == RoceHeader::DATA, "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::Ack) == RoceHeader::ACK, "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::Nack) == RoceHeader::NACK, "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::Cnp) == RoceHeader::CNP, "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::Probe) == RoceHeader::PROBE, "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::ProbeResp) == RoceHeader::PROBE_RESP, "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::SwitchControl) == RoceHeader::SWITCH_CONTROL,
              "kind codes");
static_assert(uint8_t(rdmacc_ffi::PacketKind::ReadRequest) == RoceHeader::READ_REQ, "kind codes");
} // namespace

NS_LOG_COMPONENT_DEFINE("QbbNetDevice");
NS_OBJECT_ENSURE_REGISTERED(QbbNetDevice);

/// The Rust scheduler, freed with its holder.
struct QbbNetDevice::Scheduler
{
    rust::Box<rdmacc_ffi::EgressScheduler> s;
};

// every line names its node and port, as ns-3's models name their node ("[node 3 port 0] ")
// off, a statement costs one load and a branch (rdma-cc-log.h)
static rdmacc::LogGate g_logGate(g_log);
#undef NS_LOG_CONDITION
#define NS_LOG_CONDITION if (g_logGate.On())
#undef NS_LOG_APPEND_CONTEXT
#define NS_LOG_APPEND_CONTEXT                                                      \
    if (m_node)                                                                    \
    {                                                                              \
        std::clog << "[node " << m_node->GetId() << " port " << m_ifIndex << "] "; \
    }

TypeId
QbbNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::QbbNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("RdmaCc")
            .AddConstructor<QbbNetDevice>()
            .AddAttribute(
                "DataRate",
                "Link rate of this device.",
                DataRateValue(DataRate("100Gbps")),
                MakeDataRateAccessor(&QbbNetDevice::SetDataRate, &QbbNetDevice::GetDataRate),
                MakeDataRateChecker())
            .AddAttribute("Mtu",
                          "Largest payload the device carries (bytes; informational: frames "
                          "are built by the NIC and the switch).",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&QbbNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("PfcEnabled",
                          "Bit mask of the priorities for which received PAUSE frames are "
                          "obeyed (bit p = priority p). PAUSE frames for other priorities are "
                          "counted and ignored.",
                          UintegerValue(0xFF),
                          MakeUintegerAccessor(&QbbNetDevice::m_pfcEnabled),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time put in the PAUSE frames this device sends, in quanta of "
                          "512 bit times (65535 = the maximum, ~335 us at 100 Gb/s).",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&QbbNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PauseRefreshFraction",
                          "While a pause is wanted, the PAUSE frame is sent again after this "
                          "fraction of its pause time, so the peer never resumes early.",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&QbbNetDevice::m_refreshFraction),
                          MakeDoubleChecker<double>(0.01, 0.99))
            // default and help are the Rust policy's (DataPolicy)
            .AddAttribute("DataScheduler",
                          std::string(rdmacc_ffi::data_scheduler_help()),
                          StringValue(std::string(rdmacc_ffi::data_scheduler_default())),
                          MakeStringAccessor(&QbbNetDevice::SetDataScheduler,
                                             &QbbNetDevice::GetDataScheduler),
                          MakeStringChecker())
            .AddTraceSource("PhyTxBegin",
                            "A frame starts on the wire.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A non-PFC frame was received.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame was sent: (priority, quanta); quanta 0 = RESUME.",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_pfcTxTrace),
                            "ns3::QbbNetDevice::PfcTxCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received for an enabled priority: (priority, "
                            "quanta, pause duration; 0 = RESUME).",
                            MakeTraceSourceAccessor(&QbbNetDevice::m_pfcRxTrace),
                            "ns3::QbbNetDevice::PfcRxCallback");
    return tid;
}

namespace
{

/// The end of a frame's serialisation: one object per device, rescheduled for every frame
/// instead of a new MakeEvent per frame (a device serialises one frame at a time).
class TransmitCompleteEvent : public EventImpl
{
  public:
    explicit TransmitCompleteEvent(QbbNetDevice* dev) :
        m_dev(dev)
    {
    }

  protected:
    void
    Notify() override
    {
        m_dev->TransmitCompleteNow();
    }

  private:
    QbbNetDevice* m_dev; //!< its device (which owns it)
};

} // namespace

QbbNetDevice::QbbNetDevice() :
    m_ifIndex(0),
    m_mtu(1500),
    m_pfcEnabled(0xFF),
    m_pauseQuanta(0xFFFF),
    m_refreshFraction(0.5),
    m_busy(false),
    m_psCarry(0),
    m_sched(),
    m_source(nullptr)
{
    m_txComplete = Ptr<EventImpl>(new TransmitCompleteEvent(this), false);
    // m_sched is built by the DataScheduler attribute, which the object's construction
    // (CreateObject, ObjectFactory) sets before the device can be used
}

QbbNetDevice::QbbNetDevice(const QbbNetDevice& built) :
    NetDevice(built), // Object's: its TypeId
    m_ifIndex(0),
    m_mtu(built.m_mtu),
    m_pfcEnabled(built.m_pfcEnabled),
    m_pauseQuanta(built.m_pauseQuanta),
    m_refreshFraction(built.m_refreshFraction),
    m_busy(false),
    m_psCarry(0),
    m_sched(),
    m_source(nullptr)
{
    NS_ASSERT_MSG(!built.m_node && !built.m_channel && built.m_slots.empty() &&
                      built.m_pfcQueue.empty() && built.m_sched && built.m_sched->s->is_empty(),
                  "QbbNetDevice::CreateLike: only a device not yet used is copied");
    m_txComplete = Ptr<EventImpl>(new TransmitCompleteEvent(this), false);
    // the attributes with setters, as their accessors set them
    SetDataRate(built.m_rate);
    SetDataScheduler(built.m_policy);
}

QbbNetDevice::~QbbNetDevice()
{
}

Ptr<QbbNetDevice>
QbbNetDevice::CreateLike(const QbbNetDevice& built)
{
    return Ptr<QbbNetDevice>(new QbbNetDevice(built), false);
}

void
QbbNetDevice::SetDataScheduler(std::string policy)
{
    NS_LOG_FUNCTION(this << policy);
    try
    {
        auto s = rdmacc_ffi::egress_scheduler_new(policy);
        if (m_sched)
        {
            NS_ABORT_MSG_UNLESS(m_sched->s->is_empty(),
                                "QbbNetDevice::DataScheduler changed while frames or flows "
                                "are queued: set it before the device carries traffic");
        }
        m_sched = std::make_unique<Scheduler>(Scheduler{std::move(s)});
        m_sched->s->set_input_fair(m_inputFair);
        m_policy = policy;
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::QbbNetDevice", e.what());
    }
}

std::string
QbbNetDevice::GetDataScheduler() const
{
    return m_policy;
}

void
QbbNetDevice::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_node = nullptr;
    m_channel = nullptr;
    m_source = nullptr;
    m_pfcQueue.clear();
    for (const Slot& s : m_slots)
    {
        if (s.p != nullptr)
        {
            s.p->Unref(); // the slot's reference
        }
    }
    m_slots.clear();
    m_freeSlots.clear();
    rdmacc::CancelEvent(m_schedWake);
    m_rxHandler = RxHandler();
    m_dequeueHandler = DequeueHandler();
    m_rxSink = nullptr;
    m_dequeueSink = nullptr;
    NetDevice::DoDispose();
}

void
QbbNetDevice::Attach(Ptr<QbbChannel> ch)
{
    NS_LOG_FUNCTION(this << ch);
    m_channel = ch;
    ch->Attach(this);
}

void
QbbNetDevice::SetRxHandler(RxHandler h)
{
    m_rxHandler = h;
    m_rxSink = nullptr;
}

void
QbbNetDevice::SetDequeueHandler(DequeueHandler h)
{
    m_dequeueHandler = h;
    m_dequeueSink = nullptr;
}

void
QbbNetDevice::SetFrameSink(QbbFrameSink* sink, bool dequeues)
{
    m_rxSink = sink;
    m_rxHandler = RxHandler();
    if (dequeues)
    {
        m_dequeueSink = sink;
        m_dequeueHandler = DequeueHandler();
    }
}

void
QbbNetDevice::SetDataSource(QbbDataSource* src)
{
    m_source = src;
}

inline uint32_t
QbbNetDevice::StoreSlot(rdmacc::Frame&& f, const RoceFields* h, uint32_t hdrBytes)
{
    uint32_t i;
    if (m_freeSlots.empty())
    {
        i = static_cast<uint32_t>(m_slots.size());
        m_slots.emplace_back();
    }
    else
    {
        i = m_freeSlots.back();
        m_freeSlots.pop_back();
    }
    Slot& s = m_slots[i];
    s.size = f.Size();
    s.pristine = f.Pristine();
    s.p = f.Detach(); // the slot's reference
    s.hdrBytes = static_cast<uint16_t>(h != nullptr ? hdrBytes : 0);
    if (h != nullptr)
    {
        s.h = *h;
    }
    return i;
}

inline QbbNetDevice::Slot
QbbNetDevice::TakeSlot(uint32_t handle)
{
    NS_ASSERT_MSG(handle < m_slots.size() && m_slots[handle].p, "scheduler returned a bad handle");
    const Slot s = m_slots[handle];
    m_slots[handle].p = nullptr; // its reference goes with the copy
    m_freeSlots.push_back(handle);
    return s;
}

void
QbbNetDevice::Enqueue(
    const Ptr<Packet>& p, uint8_t prio, RoceHeader::Kind kind, uint64_t flow, uint32_t inPort)
{
    DoEnqueue(rdmacc::Frame(p), prio, kind, flow, inPort, nullptr, 0);
}

void
QbbNetDevice::Enqueue(const Ptr<Packet>& p, const RoceFields& h, uint32_t inPort)
{
    DoEnqueue(rdmacc::Frame(p), h.prio & 7, h.kind, h.FlowKey(), inPort, &h, h.Size());
}

void
QbbNetDevice::Enqueue(rdmacc::Frame f, const RoceFields& h, uint32_t inPort)
{
    DoEnqueue(std::move(f), h.prio & 7, h.kind, h.FlowKey(), inPort, &h, h.Size());
}

inline void
QbbNetDevice::DoEnqueue(rdmacc::Frame&& f,
                        uint8_t prio,
                        RoceHeader::Kind kind,
                        uint64_t flow,
                        uint32_t inPort,
                        const RoceFields* h,
                        uint32_t hdrBytes)
{
    NS_LOG_FUNCTION(this << f.Peek() << int(prio) << int(kind) << flow << inPort);
    NS_ASSERT(prio < N_PRIO);
    const Time now = rdmacc::Now();
    rdmacc_ffi::TxPacket m{};
    m.size = f.Size();
    m.handle = StoreSlot(std::move(f), h, hdrBytes);
    m.kind = static_cast<rdmacc_ffi::PacketKind>(kind);
    m.prio = prio;
    m.flow = flow;
    m.arrival_ns = static_cast<uint64_t>(rdmacc::ToNs(now));
    m.in_port = inPort;
    m_sched->s->enqueue(m);
    TryTransmitAt(now);
}

void
QbbNetDevice::SetRcc(uint8_t prio,
                     bool on,
                     uint64_t w,
                     uint64_t wc,
                     const uint64_t* flows,
                     size_t nFlows,
                     uint64_t periodNs)
{
    NS_LOG_FUNCTION(this << int(prio) << on << w << wc << periodNs);
    NS_ASSERT(prio < N_PRIO);
    m_sched->s->set_rcc(prio, on, w, wc, rust::Slice<const uint64_t>(flows, nFlows), periodNs);
    TryTransmit();
}

void
QbbNetDevice::SetInputFair(bool on)
{
    NS_LOG_FUNCTION(this << on);
    m_inputFair = on;
    m_sched->s->set_input_fair(on);
}

uint64_t
QbbNetDevice::GetRccQueued(uint8_t prio) const
{
    return m_sched->s->rcc_len(prio);
}

void
QbbNetDevice::Enqueue(Ptr<Packet> p)
{
    RoceFields h;
    const uint32_t n = h.PeekFrom(*p);
    DoEnqueue(rdmacc::Frame(p), h.prio & 7, h.kind, h.FlowKey(), 0, n != 0 ? &h : nullptr, n);
}

void
QbbNetDevice::AddReadyFlow(uint8_t prio, uint32_t flow)
{
    NS_ASSERT(prio < N_PRIO);
    m_sched->s->add_flow(prio, flow);
    TryTransmit();
}

void
QbbNetDevice::HoldClass(uint8_t prio, Time until)
{
    NS_LOG_FUNCTION(this << int(prio) << until);
    NS_ASSERT(prio < N_PRIO);
    m_sched->s->hold(prio, static_cast<uint64_t>(std::max<int64_t>(0, until.GetNanoSeconds())));
    TryTransmit();
}

void
QbbNetDevice::SendPfcFrame(uint8_t prio, uint16_t quanta)
{
    PfcHeader h;
    h.classEnable = static_cast<uint16_t>(1u << prio);
    h.quanta[prio] = quanta;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    if (quanta > 0)
    {
        m_stats.pfcTx[prio]++;
        NS_LOG_INFO("PAUSE sent: priority " << int(prio) << ", " << quanta << " quanta");
    }
    else
    {
        m_stats.resumeTx[prio]++;
        NS_LOG_INFO("RESUME sent: priority " << int(prio));
    }
    m_pfcTxTrace(prio, quanta);
    m_pfcQueue.push_back(p);
    TryTransmit();
}

void
QbbNetDevice::SendPfc(uint8_t prio, bool pause)
{
    NS_LOG_FUNCTION(this << int(prio) << pause);
    NS_ASSERT(prio < N_PRIO);
    if (pause)
    {
        m_pausingPeer[prio] = true;
        SendPfcFrame(prio, m_pauseQuanta);
        rdmacc::CancelEvent(m_refreshEvent[prio]);
        // the refresh delay, computed again only when the rate, quanta or fraction change
        // (DataRate's and Time's double arithmetic: ~1 500 instructions per PAUSE)
        const uint64_t bps = m_rate.GetBitRate();
        if (m_refresh.bps != bps || m_refresh.quanta != m_pauseQuanta ||
            m_refresh.fraction != m_refreshFraction)
        {
            const Time pauseTime =
                m_rate.CalculateBytesTxTime(uint32_t(m_pauseQuanta) * PfcHeader::QUANTUM_BITS / 8);
            m_refresh = {bps,
                         m_pauseQuanta,
                         m_refreshFraction,
                         (pauseTime * m_refreshFraction).GetTimeStep()};
        }
        m_refreshEvent[prio] =
            rdmacc::Schedule(TimeStep(m_refresh.delay), &QbbNetDevice::RefreshPause, this, prio);
    }
    else if (!m_pausingPeer[prio])
    {
        NS_LOG_LOGIC("RESUME for priority " << int(prio) << " not sent: not pausing");
    }
    else
    {
        m_pausingPeer[prio] = false;
        rdmacc::CancelEvent(m_refreshEvent[prio]);
        SendPfcFrame(prio, 0);
    }
}

void
QbbNetDevice::RefreshPause(uint8_t prio)
{
    if (m_pausingPeer[prio])
    {
        NS_LOG_LOGIC("priority " << int(prio) << " still paused: PAUSE refreshed");
        SendPfc(prio, true);
    }
}

bool
QbbNetDevice::IsPaused(uint8_t prio) const
{
    return rdmacc::Now().GetTimeStep() < m_pausedUntil[prio];
}

bool
QbbNetDevice::IsPausingPeer(uint8_t prio) const
{
    return m_pausingPeer[prio];
}

inline uint8_t
QbbNetDevice::PausedMask(Time nowTime) const
{
    const int64_t now = nowTime.GetTimeStep();
    if (!(now < m_pausedUntilMax))
    {
        return 0; // no class paused (the common case, checked once instead of per class)
    }
    uint8_t m = 0;
    for (uint8_t p = 0; p < N_PRIO; p++)
    {
        if (now < m_pausedUntil[p])
        {
            m |= static_cast<uint8_t>(1u << p);
        }
    }
    return m;
}

void
QbbNetDevice::OnSchedWake()
{
    m_schedWake = EventId();
    TryTransmit();
}

void
QbbNetDevice::TryTransmit()
{
    if (m_busy || !m_channel)
    {
        return;
    }
    TryTransmitAt(rdmacc::Now());
}

void
QbbNetDevice::TryTransmitAt(Time nowTime)
{
    // the caller's time: one rdmacc::Now() per event instead of one per use
    if (m_busy || !m_channel)
    {
        return;
    }
    if (!m_pfcQueue.empty())
    {
        rdmacc::Frame f(m_pfcQueue.front());
        m_pfcQueue.pop_front();
        m_busy = true;
        TransmitStart(std::move(f), RoceFields(), 0);
        return;
    }
    const uint8_t paused = PausedMask(nowTime);
    const uint64_t now = static_cast<uint64_t>(rdmacc::ToNs(nowTime));
    // each round either sends, stops, or removes a flow that had nothing to send
    while (true)
    {
        const rdmacc_ffi::SchedPick pick = m_sched->s->next(now, paused);
        switch (pick.kind)
        {
        case rdmacc_ffi::PickKind::Packet:
        {
            const rdmacc_ffi::TxPacket& t = pick.packet;
            const Slot s = TakeSlot(t.handle);
            // the slot's reference, handed on without touching the Packet
            rdmacc::Frame f = rdmacc::Frame::Adopt(s.p, s.size, s.pristine);
            if (t.control)
            {
                m_stats.txControlFrames++;
                m_stats.txControlBytes += t.size;
            }
            else
            {
                m_stats.txDataBytes += t.size;
            }
            if (m_int && !t.control && t.kind == rdmacc_ffi::PacketKind::Data)
            {
                AppendIntRecord(*f, now);
            }
            // busy before the handler runs: it may queue a RESUME on this very device
            m_busy = true;
            if (m_dequeueSink != nullptr)
            {
                m_dequeueSink->DequeueFrame(this, t);
            }
            else if (!m_dequeueHandler.IsNull())
            {
                m_dequeueHandler(this, t);
            }
            TransmitStart(std::move(f), s.h, s.hdrBytes);
            return;
        }
        case rdmacc_ffi::PickKind::Flow:
        {
            rdmacc::Frame f;
            RoceFields h;
            if (m_source)
            {
                m_busy = true; // the source must not re-enter TryTransmit
                f = m_source->PullData(pick.flow, h);
                m_busy = false;
            }
            m_sched->s->flow_served(pick.prio, pick.flow, bool(f), f.Size());
            if (!f)
            {
                continue;
            }
            m_stats.txDataBytes += f.Size();
            m_busy = true;
            TransmitStart(std::move(f), h, h.Size());
            return;
        }
        case rdmacc_ffi::PickKind::WaitUntil:
        {
            const Time at = rdmacc::FromNs(static_cast<int64_t>(pick.wait_until_ns));
            // a pending wake-up runs at its event's time stamp
            // pending: its event has not run (OnSchedWake clears it; ns-3's IsExpired is not
            // right for this under the canonical order, see cancel-event.h)
            if (m_schedWake.PeekEventImpl() == nullptr || at < TimeStep(m_schedWake.GetTs()))
            {
                rdmacc::CancelEvent(m_schedWake);
                m_schedWake = rdmacc::Schedule(at - nowTime, &QbbNetDevice::OnSchedWake, this);
            }
            return;
        }
        default:
            return;
        }
    }
}

void
QbbNetDevice::SetIntTelemetry(bool on)
{
    m_int = on;
}

void
QbbNetDevice::AppendIntRecord(Packet& p, uint64_t nowNs)
{
    IntTag tag;
    if (!p.PeekPacketTag(tag) || tag.nHops >= IntTag::MAX_HOPS)
    {
        return;
    }
    uint64_t queued = 0;
    for (uint8_t c = 0; c < N_PRIO; c++)
    {
        queued += m_sched->s->queue_bytes(c);
    }
    IntTag::Hop& h = tag.hops[tag.nHops++];
    h.qlenBytes = queued;
    h.txBytes = m_stats.txBytes;
    h.tsNs = nowNs;
    h.lineRateBps = m_bps;
    h.node = GetNode()->GetId();
    h.port = GetIfIndex();
    // the tag is the packet's own (not shared with a copy): written over in place
    p.ReplacePacketTag(tag);
}

Time
QbbNetDevice::WireTime(uint32_t frameBytes) const
{
    return m_rate.CalculateBytesTxTime(
        static_cast<uint32_t>(rdmacc_ffi::frame_on_wire(frameBytes)));
}

void
QbbNetDevice::TransmitStart(rdmacc::Frame f, const RoceFields& h, uint32_t hdrBytes)
{
    NS_LOG_FUNCTION(this << f.Peek());
    NS_ASSERT(m_busy);
    const uint64_t size = f.Size();
    // the frame's bytes on the wire are Rust's (padding, preamble and gap): one call per frame,
    // about 11 instructions more than the formula written out here (callgrind: this function
    // +1.1 %, a 64-sender incast's whole run unchanged)
    const uint64_t wireBits = rdmacc_ffi::frame_on_wire(size) * 8;
    // exact serialisation in picoseconds, carried over so the long-run rate is exact
    const uint64_t ps = m_psPerBit != 0
                            ? wireBits * m_psPerBit
                            : static_cast<uint64_t>(static_cast<unsigned __int128>(wireBits) *
                                                    1000000000000ULL / m_bps);
    const uint64_t total = ps + m_psCarry;
    const uint64_t ns = total / 1000;
    m_psCarry = total % 1000;
    const Time txTime = rdmacc::FromNs(static_cast<int64_t>(ns));
    NS_LOG_LOGIC("sends a frame of " << size << " B in " << txTime.As(Time::NS));
    m_stats.txFrames++;
    m_stats.txBytes += size;
    if (!m_phyTxBeginTrace.IsEmpty())
    {
        RoceHeader::WriteInto(*f, h, hdrBytes); // a sink reads the bytes
        m_phyTxBeginTrace(f.Share());
    }
    m_channel->TransmitStart(std::move(f), this, txTime, h, hdrBytes);
    rdmacc::ScheduleNoId(txTime, m_txComplete);
}

void
QbbNetDevice::TransmitCompleteNow()
{
    m_busy = false;
    TryTransmit();
}

void
QbbNetDevice::Receive(Ptr<Packet> p)
{
    Receive(rdmacc::Frame(p), RoceFields(), 0);
}

void
QbbNetDevice::Receive(rdmacc::Frame f, const RoceFields& h, uint32_t hdrBytes)
{
    NS_LOG_FUNCTION(this << f.Peek());
    m_stats.rxFrames++;
    m_stats.rxBytes += f.Size();
    // a PFC frame comes without RoCE fields and is exactly PfcHeader::FRAME_SIZE bytes: the
    // others are not copied to look
    uint8_t b[PfcHeader::PARSE_BYTES];
    if (hdrBytes == 0 && f.Size() == PfcHeader::FRAME_SIZE &&
        f->CopyData(b, sizeof(b)) == sizeof(b) && b[12] == 0x88 && b[13] == 0x08)
    {
        PfcHeader pfc;
        pfc.Parse(b);
        ReceivePfc(pfc);
        return;
    }
    if (!m_macRxTrace.IsEmpty())
    {
        RoceHeader::WriteInto(*f, h, hdrBytes); // a sink reads the bytes
        m_macRxTrace(f.Share());
    }
    if (m_rxSink != nullptr)
    {
        if (hdrBytes != 0)
        {
            m_rxSink->ReceiveFrame(this, std::move(f), h, hdrBytes);
            return;
        }
        // sent without its fields (a generic Send, another process): read here
        RoceFields read;
        const uint32_t n = read.PeekFrom(*f);
        m_rxSink->ReceiveFrame(this, std::move(f), read, n);
    }
    else if (!m_rxHandler.IsNull())
    {
        RoceHeader::WriteInto(*f, h, hdrBytes); // the handler reads the bytes
        m_rxHandler(this, f.Share());
    }
}

void
QbbNetDevice::ReceivePfc(const PfcHeader& h)
{
    const Time nowTime = rdmacc::Now();
    const int64_t now = nowTime.GetTimeStep();
    for (uint8_t c = 0; c < N_PRIO; c++)
    {
        if (!(h.classEnable & (1u << c)))
        {
            continue;
        }
        if (!(m_pfcEnabled & (1u << c)))
        {
            NS_LOG_LOGIC("PFC frame for priority " << int(c) << " ignored: PfcEnabled is off");
            continue;
        }
        // close the pause interval that is running (or that expired unnoticed)
        if (m_pauseOpen[c])
        {
            m_pausedTotal[c] += std::min(now, m_pausedUntil[c]) - m_pauseSince[c];
            m_pauseOpen[c] = false;
        }
        const uint16_t q = h.quanta[c];
        if (q == 0)
        {
            NS_LOG_INFO("RESUME received: priority " << int(c));
            m_stats.resumeRx[c]++;
            m_pausedUntil[c] = now;
            m_pfcRxTrace(c, 0, Seconds(0));
            continue;
        }
        m_stats.pfcRx[c]++;
        // the pause time, computed again only when the rate or the quanta change
        const uint64_t bps = m_rate.GetBitRate();
        if (m_received.bps != bps || m_received.quanta != q)
        {
            m_received = {bps,
                          q,
                          1.0,
                          m_rate.CalculateBytesTxTime(uint32_t(q) * PfcHeader::QUANTUM_BITS / 8)
                              .GetTimeStep()};
        }
        const Time d = TimeStep(m_received.delay);
        NS_LOG_INFO("PAUSE received: priority " << int(c) << ", " << q << " quanta ("
                                                << d.As(Time::NS) << ")");
        m_pausedUntil[c] = now + m_received.delay;
        m_pausedUntilMax = std::max(m_pausedUntilMax, m_pausedUntil[c]);
        m_pauseSince[c] = now;
        m_pauseOpen[c] = true;
        m_pfcRxTrace(c, q, d);
        rdmacc::CancelEvent(m_wakeEvent[c]);
        m_wakeEvent[c] = rdmacc::Schedule(d, &QbbNetDevice::TryTransmit, this);
    }
    TryTransmitAt(nowTime);
}

Time
QbbNetDevice::GetPausedTime(uint8_t prio) const
{
    int64_t t = m_pausedTotal[prio];
    if (m_pauseOpen[prio])
    {
        t += std::min(rdmacc::Now().GetTimeStep(), m_pausedUntil[prio]) - m_pauseSince[prio];
    }
    return TimeStep(t);
}

const QbbNetDevice::Stats&
QbbNetDevice::GetStats() const
{
    return m_stats;
}

uint64_t
QbbNetDevice::GetQueueBytes(uint8_t prio) const
{
    return m_sched->s->queue_bytes(prio);
}

std::string
QbbNetDevice::CheckSchedulerInvariants() const
{
    return std::string(m_sched->s->check_invariants());
}

DataRate
QbbNetDevice::GetDataRate() const
{
    return m_rate;
}

void
QbbNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
    // what TransmitStart needs per frame, kept here: a rate that divides 1 Tb/s (100 Gb/s:
    // 10 ps per bit) needs no 128-bit division
    m_bps = rate.GetBitRate();
    m_psPerBit = m_bps != 0 && 1000000000000ULL % m_bps == 0 ? 1000000000000ULL / m_bps : 0;
}

Time
QbbNetDevice::GetDelay() const
{
    return m_channel ? m_channel->GetDelay() : Seconds(0);
}

void
QbbNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
QbbNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
QbbNetDevice::GetChannel() const
{
    return m_channel;
}

void
QbbNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
QbbNetDevice::GetAddress() const
{
    return m_address;
}

bool
QbbNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
QbbNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
QbbNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
QbbNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
}

bool
QbbNetDevice::IsBroadcast() const
{
    return false;
}

Address
QbbNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
QbbNetDevice::IsMulticast() const
{
    return false;
}

Address
QbbNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
QbbNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
QbbNetDevice::IsBridge() const
{
    return false;
}

bool
QbbNetDevice::IsPointToPoint() const
{
    return true;
}

bool
QbbNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    // generic ns-3 sends go out as data of class 0
    Enqueue(packet, 0, RoceHeader::DATA, 0, 0);
    return true;
}

bool
QbbNetDevice::SendFrom(Ptr<Packet> packet,
                       const Address& source,
                       const Address& dest,
                       uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

Ptr<Node>
QbbNetDevice::GetNode() const
{
    return m_node;
}

void
QbbNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
QbbNetDevice::NeedsArp() const
{
    return false;
}

void
QbbNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
}

void
QbbNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
}

bool
QbbNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
