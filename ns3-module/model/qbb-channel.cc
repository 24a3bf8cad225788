/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "qbb-channel.h"

#include "canonical-scheduler.h"
#include "frame-pool.h"
#include "lean-simulator-impl.h"
#include "qbb-net-device.h"

#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <vector>
#ifdef NS3_MPI
#include "ns3/header.h"
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QbbChannel");
NS_OBJECT_ENSURE_REGISTERED(QbbChannel);

TypeId
QbbChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QbbChannel")
                            .SetParent<Channel>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<QbbChannel>()
                            .AddAttribute("Delay",
                                          "One-way propagation delay of the link.",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&QbbChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

QbbChannel::QbbChannel() :
    m_nDevices(0),
    m_ctx{UINT32_MAX, UINT32_MAX}
{
}

void
QbbChannel::Attach(Ptr<QbbNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "a QbbChannel joins exactly two devices");
    m_dev[m_nDevices++] = device;
}

namespace
{

/**
 * A frame's arrival at the far end of a link: the event ns-3's MakeEvent would build for
 * QbbNetDevice::Receive (same scheduling call, same time and context, so the event order is
 * that of MakeEvent's). Arrival events are kept and used again, without ns-3's EventImpl
 * constructor and destructor: the next frame takes the event that ran last (Take), most likely
 * still in the cache, where the oldest event of the link (which a ring of each link's events
 * reused before) has long left it. Every event holds a reference of the pool's, so the
 * simulator's Unref after it ran never frees it.
 */
class ArrivalEvent : public EventImpl
{
  public:
    /**
     * \param dst the receiving device
     * \param f the frame
     * \param h its fields
     * \param hdrBytes their serialised size (0: none known)
     * \return an event carrying them, with the simulator's reference taken: the one that ran
     *         last, else a new one
     */
    static ArrivalEvent*
    Take(QbbNetDevice* dst, rdmacc::Frame&& f, const RoceFields& h, uint32_t hdrBytes)
    {
        Events& e = TheEvents();
        if (e.ran.empty() && e.all.size() >= e.nextSweep)
        {
            e.Sweep();
        }
        ArrivalEvent* ev;
        if (!e.ran.empty())
        {
            ev = e.ran.back();
            e.ran.pop_back();
        }
        else
        {
            ev = new ArrivalEvent; // its first reference: the pool's
            e.all.push_back(ev);
        }
        ev->m_dst = dst;
        ev->m_f = std::move(f);
        ev->m_h = h;
        ev->m_hdrBytes = hdrBytes;
        ev->m_ran = false;
        ev->Ref(); // the simulator's
        return ev;
    }

    ArrivalEvent(const ArrivalEvent&) = delete;
    ArrivalEvent& operator=(const ArrivalEvent&) = delete;

  protected:
    void
    Notify() override
    {
        // the frame goes on to the device, which hands it to its sink: when that does not keep
        // it, its life ends there (to the pool, which keeps it for a later frame)
        m_dst->Receive(std::move(m_f), m_h, m_hdrBytes);
        // free for the next frame (the simulator lets its reference go after this returns)
        m_ran = true;
        TheEvents().ran.push_back(this);
    }

  private:
    ArrivalEvent() = default;

    /// Every arrival event, and those free for the next frame.
    struct Events
    {
        std::vector<ArrivalEvent*> all; //!< every event (each with the pool's reference)
        std::vector<ArrivalEvent*> ran; //!< those free, the last to run at the back
        std::size_t nextSweep = 1024;   //!< Sweep when `all` has grown to this

        /**
         * Takes back the events a simulator let go without running them (Simulator::Destroy
         * of a run that ended with frames in flight): not run, and only the pool's reference
         * left. Called each time `all` has doubled, so its cost per event is constant.
         */
        void
        Sweep()
        {
            for (ArrivalEvent* ev : all)
            {
                if (!ev->m_ran && ev->GetReferenceCount() == 1)
                {
                    ev->m_f = rdmacc::Frame(); // its frame's life ends
                    ev->m_ran = true;
                    ran.push_back(ev);
                }
            }
            nextSweep = 2 * all.size();
        }
    };

    /// \return the events (never destroyed: a simulator may let its events go after static
    ///         destructors ran)
    static Events&
    TheEvents()
    {
        static auto* events = new Events;
        return *events;
    }

    QbbNetDevice* m_dst = nullptr; //!< receiving device (outlives the frame's arrival)
    rdmacc::Frame m_f;             //!< the frame (or none)
    RoceFields m_h;                //!< its fields
    uint32_t m_hdrBytes = 0;       //!< their serialised size; 0: not known
    bool m_ran = true;             //!< it ran (or was taken back): free for the next frame
};

} // namespace

void
QbbChannel::TransmitStart(
    rdmacc::Frame f, QbbNetDevice* src, Time txTime, const RoceFields& h, uint32_t hdrBytes)
{
    NS_ASSERT(m_nDevices == 2);
    const int d = (m_dev[0] == src) ? 1 : 0;
    if (m_ctx[d] == UINT32_MAX)
    {
        m_ctx[d] = m_dev[d]->GetNode()->GetId();
    }
    rdmacc::ScheduleWithContext(
        m_ctx[d],
        txTime + m_delay,
        ArrivalEvent::Take(PeekPointer(m_dev[d]), std::move(f), h, hdrBytes));
}

Time
QbbChannel::GetDelay() const
{
    return m_delay;
}

Ptr<QbbNetDevice>
QbbChannel::GetPeer(Ptr<const QbbNetDevice> d) const
{
    return m_dev[0] == d ? m_dev[1] : m_dev[0];
}

std::size_t
QbbChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
QbbChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? Ptr<NetDevice>(m_dev[i]) : nullptr;
}

#ifdef NS3_MPI
/**
 * \ingroup rdma-cc
 *
 * The canonical key of a frame's arrival (CanonicalScheduler), in front of a frame crossing to
 * another process: the sender's process gives the arrival the key it would get in one process,
 * the receiver's process schedules the arrival with it.
 */
class QbbRemoteKeyHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId
    GetTypeId()
    {
        static TypeId tid = TypeId("ns3::QbbRemoteKeyHeader")
                                .SetParent<Header>()
                                .SetGroupName("RdmaCc")
                                .AddConstructor<QbbRemoteKeyHeader>();
        return tid;
    }

    TypeId
    GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t
    GetSerializedSize() const override
    {
        return 8;
    }

    void
    Serialize(Buffer::Iterator start) const override
    {
        start.WriteHtonU64(key);
    }

    uint32_t
    Deserialize(Buffer::Iterator start) override
    {
        key = start.ReadNtohU64();
        return 8;
    }

    void
    Print(std::ostream& os) const override
    {
        os << "key=" << (key >> 32) << ":" << (key & 0xffffffff);
    }

    uint64_t key = 0; //!< the arrival's canonical key
};

NS_OBJECT_ENSURE_REGISTERED(QbbRemoteKeyHeader);
NS_OBJECT_ENSURE_REGISTERED(QbbRemoteChannel);

TypeId
QbbRemoteChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QbbRemoteChannel")
                            .SetParent<QbbChannel>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<QbbRemoteChannel>();
    return tid;
}

namespace
{
/// A frame from another process, handed over by the MpiReceiver event ns-3 inserted one time
/// step before its arrival: the arrival is scheduled with the key the sender gave it.
void
ArriveFromOtherProcess(Ptr<QbbNetDevice> dev, Ptr<Packet> p)
{
    // an MpiReceiver event not recognised as foreign would have advanced a node's sequence
    NS_ABORT_MSG_IF(CanonicalScheduler::IsActive() && !CanonicalScheduler::RunningForeign(),
                    "QbbRemoteChannel: ns-3's MpiReceiver event is not the type "
                    "CanonicalScheduler was given (a different ns-3?)");
    QbbRemoteKeyHeader h;
    p->RemoveHeader(h);
    CanonicalScheduler::UseKey(h.key);
    Simulator::ScheduleWithContext(
        dev->GetNode()->GetId(),
        TimeStep(1),
        ArrivalEvent::Take(PeekPointer(dev), rdmacc::Frame(p), RoceFields(), 0));
}
} // namespace

void
QbbRemoteChannel::Attach(Ptr<QbbNetDevice> device)
{
    QbbChannel::Attach(device);
    // the events ns-3 inserts for MPI messages received (MpiReceiver::Receive, made as
    // GrantedTimeWindowMpiInterface and NullMessageMpiInterface make them) are no node's
    static bool once = false;
    if (!once)
    {
        once = true;
        EventImpl* probe = MakeEvent(&MpiReceiver::Receive, Ptr<MpiReceiver>(), Ptr<Packet>());
        CanonicalScheduler::AddForeignType(typeid(*probe));
        probe->Unref();
    }
    Ptr<MpiReceiver> rx = CreateObject<MpiReceiver>();
    rx->SetReceiveCallback(MakeBoundCallback(&ArriveFromOtherProcess, device));
    device->AggregateObject(rx);
}

void
QbbRemoteChannel::TransmitStart(
    rdmacc::Frame f, QbbNetDevice* src, Time txTime, const RoceFields& fields, uint32_t hdrBytes)
{
    Ptr<QbbNetDevice> dst = GetPeer(src);
    if (dst->GetNode()->GetSystemId() == MpiInterface::GetSystemId())
    {
        QbbChannel::TransmitStart(std::move(f), src, txTime, fields, hdrBytes);
        return;
    }
    // the frame's fields stay here: the other process reads them from the frame
    // ns-3 inserts the MpiReceiver event when the message is received, in an order of its own:
    // it runs one time step before the arrival, which it schedules with the key the arrival
    // gets in one process (the lookahead, the link's delay, still holds: a frame takes at
    // least one time step to serialise)
    NS_ABORT_MSG_IF(txTime < TimeStep(1),
                    "QbbRemoteChannel: a frame serialised in less than one time step");
    QbbRemoteKeyHeader h;
    h.key = CanonicalScheduler::TakeKey(dst->GetNode()->GetId());
    RoceHeader::WriteInto(*f, fields, hdrBytes); // the other process reads the bytes
    Ptr<Packet> copy = f->Copy();
    copy->AddHeader(h);
    // ns-3's MPI interfaces receive into 2000-byte buffers (MAX_MPI_MSG_SIZE, 16 bytes of it
    // theirs) and do not check what they send
    const uint32_t bytes = f.Size();
    NS_ABORT_MSG_IF(copy->GetSerializedSize() + 16 > 2000,
                    "QbbRemoteChannel: a " << bytes << "-byte frame is too large for ns-3's "
                                           << "MPI messages (2000 bytes): lower --mtu");
    // what the MPI interface schedules (the null messages) is no node's
    CanonicalScheduler::BeginForeign();
    MpiInterface::SendPacket(copy,
                             Simulator::Now() + txTime + GetDelay() - TimeStep(1),
                             dst->GetNode()->GetId(),
                             dst->GetIfIndex());
    CanonicalScheduler::EndForeign();
}
#endif

} // namespace ns3
