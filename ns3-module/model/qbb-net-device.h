/*
 * rdma-cc: IEEE 802.1Qbb point-to-point device with priority flow control.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QBB_NET_DEVICE_H
#define QBB_NET_DEVICE_H

#include "frame-pool.h"
#include "roce-header.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace rdmacc_ffi
{
struct EgressScheduler;
struct TxPacket;
} // namespace rdmacc_ffi

namespace ns3
{

class QbbChannel;
class PfcHeader;

/**
 * \ingroup rdma-cc
 * Something that hands a QbbNetDevice data frames of its flows when the link is free (a host
 * NIC's queue pairs). A flow the source declares ready (QbbNetDevice::AddReadyFlow) takes
 * turns in its priority's class of the device's scheduler; when its turn comes the device
 * calls PullData for it.
 */
class QbbDataSource
{
  public:
    virtual ~QbbDataSource() = default;
    /**
     * \param flow the handle given to QbbNetDevice::AddReadyFlow
     * \param h set to the frame's RoCE fields (RoceFields::Canonical), carried with the frame
     *        to the next device
     * \return the flow's next frame (the flow keeps its turn), or an empty Frame if it has
     *         nothing to send now: the flow then leaves the scheduler until the source adds it
     *         again. Its first h.Size() bytes are the header's place and need not be written
     *         (zeros from rdmacc::FramePool::MakeFrame(payload + h.Size())):
     *         RoceHeader::WriteInto writes them from `h` when something reads the frame's
     *         bytes (a trace sink, an RxHandler, MPI)
     */
    virtual rdmacc::Frame PullData(uint32_t flow, RoceFields& h) = 0;
};

class QbbNetDevice;

/**
 * \ingroup rdma-cc
 *
 * The owner of a device's frames (a switch, a host's NIC), called directly on the per-frame
 * path instead of through ns-3 Callbacks (QbbNetDevice::SetFrameSink). Whichever of the sink
 * and the RxHandler / DequeueHandler callbacks was set last is called.
 */
class QbbFrameSink
{
  public:
    virtual ~QbbFrameSink() = default;
    /**
     * A received non-PFC frame (as RxHandler), with its RoCE fields: those its sender queued
     * it with (carried beside the frame, not parsed again), else read from its bytes.
     * \param dev the device
     * \param f the frame, which the sink may take (std::move, e.g. to queue it again; else
     *        its life ends when this returns): when it came with its fields, its first
     *        `hdrBytes` bytes may be unwritten (the header's place; RoceHeader::WriteInto):
     *        read `h`, not the bytes, and f.Size(), not the Packet's size
     * \param h its fields (as RoceFields::PeekFrom reads them)
     * \param hdrBytes the header's serialised size (PeekFrom's answer: 0 when the frame is
     *        shorter than a RoCE header; `h` then holds the defaults)
     */
    virtual void ReceiveFrame(QbbNetDevice* dev,
                              rdmacc::Frame&& f,
                              const RoceFields& h,
                              uint32_t hdrBytes) = 0;

    /**
     * A queued frame leaving for the wire (as DequeueHandler; called only when the sink was
     * set with `dequeues`).
     * \param dev the device
     * \param t the metadata given at Enqueue
     */
    virtual void
    DequeueFrame(QbbNetDevice* dev, const rdmacc_ffi::TxPacket& t)
    {
    }
};

/**
 * \ingroup rdma-cc
 *
 * Full-duplex point-to-point device with 8 priority classes and PFC (IEEE 802.1Qbb).
 *
 * Transmit order: PFC frames first (MAC control), then what the port's Rust scheduler
 * (rust/switch/src/sched.rs) picks: the control class (ACK, NACK, CNP, probe responses,
 * switch-originated frames: strict priority, never paused), then the data classes that are
 * not paused, shared by the DataScheduler policy (round robin by default, DWRR or strict
 * priority). A data class holds queued frames and, on a host, the ready flows of the attached
 * QbbDataSource, which the device asks for a frame when their turn comes. Frames wait in a
 * slot table here; the scheduler keeps their metadata. A frame on the wire is never cut: a
 * PAUSE only stops the next frame of its class. Serialisation time counts the frame padded to 64 B
 * plus 20 B of preamble and inter-frame gap, and is kept exact over time (sub-nanosecond remainders
 * are carried, so the long-run rate is exactly DataRate).
 *
 * Received PAUSE frames stop the enabled classes (attribute PfcEnabled) for
 * quanta × 512 bit times; a zero time resumes at once. SendPfc() sends PAUSE frames on behalf of
 * the node (a switch's MMU decides when) and refreshes them while the pause is wanted, every
 * PauseRefreshFraction of the pause time, until SendPfc(prio, false) sends the RESUME.
 */
class QbbNetDevice : public NetDevice
{
  public:
    /// Number of priority classes.
    static constexpr uint8_t N_PRIO = 8;

    /// Handler for received (non-PFC) frames.
    typedef Callback<void, Ptr<QbbNetDevice>, Ptr<Packet>> RxHandler;
    /// Called when a queued frame (control or data) leaves for the wire, with the metadata
    /// given at Enqueue (ingress port, priority, size, kind, flow, arrival time; `control`:
    /// it was in the control class).
    typedef Callback<void, Ptr<QbbNetDevice>, const rdmacc_ffi::TxPacket&> DequeueHandler;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    QbbNetDevice();
    ~QbbNetDevice() override;

    /**
     * A new device holding the attribute values of `built` (DataRate, Mtu, PfcEnabled,
     * PauseQuanta, PauseRefreshFraction, DataScheduler) and its TypeId, and nothing else of it:
     * what building `built` again would give while no attribute default changes, without ns-3's
     * attribute construction (ObjectBase::ConstructSelf visits every attribute of every object
     * it builds: most of a device's construction). A helper that builds many alike devices in a
     * row (FabricHelper's topologies) builds the first by its ObjectFactory and copies it.
     * \param built a device not yet used: no node, no channel, nothing queued
     * \return the copy
     */
    static Ptr<QbbNetDevice> CreateLike(const QbbNetDevice& built);

    /// Connects the device to a channel.
    void Attach(Ptr<QbbChannel> ch);
    /// Sets the handler of received non-PFC frames (in place of a frame sink's ReceiveFrame).
    void SetRxHandler(RxHandler h);
    /// Sets the handler told about every queued frame leaving for the wire (in place of a
    /// frame sink's DequeueFrame).
    void SetDequeueHandler(DequeueHandler h);
    /**
     * Sets the owner of received non-PFC frames (in place of the RxHandler) and, with
     * `dequeues`, of dequeues (in place of the DequeueHandler). Not owned.
     * \param sink the sink
     * \param dequeues whether it is told about frames leaving for the wire
     */
    void SetFrameSink(QbbFrameSink* sink, bool dequeues);
    /// Sets the source whose ready flows are asked for frames (not owned).
    void SetDataSource(QbbDataSource* src);

    /**
     * Queues a frame. The scheduler puts control kinds (RoceHeader ACK, NACK, CNP,
     * PROBE_RESP, SWITCH_CONTROL) in the control class and the others in data class `prio`.
     * \param p the frame
     * \param prio its priority
     * \param kind its kind
     * \param flow fabric-wide flow id (RoceHeader::FlowKey), for per-flow scheduling
     * \param inPort the port it arrived on (a switch's; passed back to the dequeue handler)
     */
    void Enqueue(
        const Ptr<Packet>& p, uint8_t prio, RoceHeader::Kind kind, uint64_t flow, uint32_t inPort);
    /**
     * Queues a RoCE frame whose fields the caller has (priority h.prio & 7, kind, flow
     * h.FlowKey()): they travel with it to the receiving device, whose sink gets them without
     * parsing the frame. The frame's first h.Size() bytes are its header's place and need not
     * be written: the fields are the frame's truth, and RoceHeader::WriteInto writes them
     * there when something reads the bytes (the PhyTxBegin and MacRx trace sinks, an
     * RxHandler, another MPI process).
     * \param p the frame
     * \param h its fields exactly as its header reads back (RoceFields::PeekFrom or Canonical)
     * \param inPort the port it arrived on (a switch's; passed back to the dequeue handler)
     */
    void Enqueue(const Ptr<Packet>& p, const RoceFields& h, uint32_t inPort);
    /// Enqueue(p, h, inPort) for a frame handed over as it is (a switch forwarding what it
    /// received: its Packet is not touched)
    void Enqueue(rdmacc::Frame f, const RoceFields& h, uint32_t inPort);
    /// Queues a RoCE frame built by this node, reading priority, kind and flow from its header.
    void Enqueue(Ptr<Packet> p);
    /// Flow `flow` of the data source is ready: it takes turns in data class `prio` until its
    /// PullData returns an empty Frame. Add a flow only when it is not already in the scheduler.
    void AddReadyFlow(uint8_t prio, uint32_t flow);
    /// Holds data class `prio` until `until`: its frames and flows are not sent before then
    /// (the scheduler answers WaitUntil and the device wakes itself; a seam for shapers and
    /// RCM, unused by the built-in policies).
    void HoldClass(uint8_t prio, Time until);
    /**
     * RCM: sets the RCC of data class `prio` as the switch decided it: a window of `w` bytes of
     * which the congestion flows `flows` may send `wc` (`on`), or none (`!on`: every frame may
     * go). The scheduler enforces it (rust/switch sched.rs).
     */
    void SetRcc(uint8_t prio,
                bool on,
                uint64_t w,
                uint64_t wc,
                const uint64_t* flows,
                size_t nFlows,
                uint64_t periodNs = 0);
    /// \return RCM: frames of data class `prio` waiting in its congestion-flow FIFO
    uint64_t GetRccQueued(uint8_t prio) const;
    /**
     * Input-fair service (a switch's Voq attribute, set by its SwitchNode): each data class
     * serves its frames by DRR over their ingress ports instead of in arrival order
     * (rust/switch sched.rs). Off by default; kept when DataScheduler changes.
     */
    void SetInputFair(bool on);
    /**
     * INT (HPCC): when on (a switch's port whose switch has the Int attribute), every data
     * frame carrying an IntTag gets this port's hop record appended when it is dequeued for
     * the wire: the bytes queued in the data classes after the dequeue, the frame bytes sent
     * before it, the time, the line rate (nothing once the tag holds IntTag::MAX_HOPS). Off by
     * default (hosts).
     */
    void SetIntTelemetry(bool on);
    /// Starts (pause = true) or ends (false) a PFC pause of the peer's class `prio`.
    void SendPfc(uint8_t prio, bool pause);
    /// Sends one PFC frame for `prio` with the given time in quanta (tests, manual control).
    void SendPfcFrame(uint8_t prio, uint16_t quanta);
    /// Called by the channel when a frame has fully arrived (its fields are read from it).
    void Receive(Ptr<Packet> p);
    /**
     * Called by the channel when a frame has fully arrived, with the fields it was sent with.
     * \param f the frame
     * \param h its RoCE fields
     * \param hdrBytes their serialised size; 0: not known (read from the frame)
     */
    void Receive(rdmacc::Frame f, const RoceFields& h, uint32_t hdrBytes);

    /// \return whether class `prio` is currently paused by the peer
    bool IsPaused(uint8_t prio) const;
    /// \return whether this device currently asks the peer to pause class `prio`
    bool IsPausingPeer(uint8_t prio) const;
    /// \return bytes queued in data class `prio`
    uint64_t GetQueueBytes(uint8_t prio) const;
    /// \return "" when the scheduler's byte accounting holds, else what is wrong
    std::string CheckSchedulerInvariants() const;
    /// \return the link rate
    DataRate GetDataRate() const;
    /// Sets the link rate (the DataRate attribute).
    /// \param rate the rate
    void SetDataRate(DataRate rate);
    /// \return the one-way delay of the attached channel (0 if none)
    Time GetDelay() const;
    /// \return the time on the wire of a frame of `frameBytes` (padding, preamble, gap)
    Time WireTime(uint32_t frameBytes) const;

    /// Counters of one device.
    struct Stats
    {
        uint64_t txFrames = 0;                   //!< frames sent (all kinds)
        uint64_t txBytes = 0;                    //!< frame bytes sent
        uint64_t txDataBytes = 0;                //!< data frame bytes sent (queued + source)
        uint64_t txControlFrames = 0;            //!< frames sent in the control class
        uint64_t txControlBytes = 0;             //!< bytes sent in the control class
        uint64_t rxFrames = 0;                   //!< frames received (all kinds)
        uint64_t rxBytes = 0;                    //!< frame bytes received
        std::array<uint64_t, N_PRIO> pfcTx{};    //!< PAUSE frames (time > 0) sent per class
        std::array<uint64_t, N_PRIO> resumeTx{}; //!< RESUME frames (time 0) sent per class
        std::array<uint64_t, N_PRIO> pfcRx{};    //!< PAUSE frames (time > 0) received
        std::array<uint64_t, N_PRIO> resumeRx{}; //!< RESUME frames received
    };

    /// \return the counters
    const Stats& GetStats() const;
    /// \return total time class `prio` has been paused by the peer so far
    Time GetPausedTime(uint8_t prio) const;

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /// The frame being serialised has left (the transmit-complete event; not for users).
    void TransmitCompleteNow();

  protected:
    void DoDispose() override;

  private:
    /// CreateLike's copy of `built`'s attributes
    QbbNetDevice(const QbbNetDevice& built);
    void SetDataScheduler(std::string policy);
    std::string GetDataScheduler() const;
    /// A queued frame and the fields it travels with (hdrBytes 0: none, read at the receiver):
    /// one cache line, the only one of the frame a dequeue reads
    struct alignas(64) Slot
    {
        Packet* p = nullptr;   //!< the frame: the reference StoreSlot took over
        uint32_t size = 0;     //!< its size
        uint16_t hdrBytes = 0; //!< its fields' serialised size, 0 if not known
        bool pristine = false; //!< rdmacc::Frame::Pristine
        RoceFields h;          //!< its fields
    };

    uint32_t StoreSlot(rdmacc::Frame&& f, const RoceFields* h, uint32_t hdrBytes);
    /// \return the slot (its frame's reference handed over: rdmacc::Frame::Adopt(s.p, s.size))
    Slot TakeSlot(uint32_t handle);
    /// Enqueue's work: `h` (with `hdrBytes`) or nullptr (none known)
    void DoEnqueue(rdmacc::Frame&& f,
                   uint8_t prio,
                   RoceHeader::Kind kind,
                   uint64_t flow,
                   uint32_t inPort,
                   const RoceFields* h,
                   uint32_t hdrBytes);
    void TryTransmit();
    /// m_schedWake's event: clears it (no longer pending), then TryTransmit
    void OnSchedWake();
    /// TryTransmit at `now`, the current time the caller has already read
    void TryTransmitAt(Time now);
    /// Puts `f` on the wire with its fields (`hdrBytes` 0: none known).
    void TransmitStart(rdmacc::Frame f, const RoceFields& h, uint32_t hdrBytes);
    /// INT: appends this port's hop record to `p`'s IntTag, if it has one with room.
    void AppendIntRecord(Packet& p, uint64_t nowNs);
    void ReceivePfc(const PfcHeader& h);
    void RefreshPause(uint8_t prio);
    uint8_t PausedMask(Time now) const;

    Ptr<Node> m_node;                   //!< owner
    Ptr<QbbChannel> m_channel;          //!< link
    uint32_t m_ifIndex;                 //!< interface index
    Mac48Address m_address;             //!< MAC (unused by the fabric)
    uint16_t m_mtu;                     //!< MTU attribute
    DataRate m_rate;                    //!< DataRate attribute
    uint8_t m_pfcEnabled;               //!< PfcEnabled attribute (class mask)
    uint16_t m_pauseQuanta;             //!< PauseQuanta attribute
    double m_refreshFraction;           //!< PauseRefreshFraction attribute
    bool m_busy;                        //!< a frame is being serialised
    Ptr<EventImpl> m_txComplete;        //!< the transmit-complete event (reused)
    bool m_int{false};                  //!< INT: append hop records (SetIntTelemetry)
    uint64_t m_psCarry;                 //!< sub-ns serialisation remainder (ps)
    uint64_t m_bps = 0;                 //!< m_rate in bit/s
    uint64_t m_psPerBit = 0;            //!< ps per bit at m_rate, when whole (else 0)
    std::deque<Ptr<Packet>> m_pfcQueue; //!< PFC frames to send
    // Pause state is held in time steps (Time::GetTimeStep), not in ns3::Time: ns-3 records
    // every Time built before Simulator::Run in a set (Time::Mark), ~50 per device otherwise.
    /// A time per priority class, in time steps.
    using ClassSteps = std::array<int64_t, N_PRIO>;
    /// A pause-derived delay, kept with what it was computed from.
    struct PauseDelay
    {
        uint64_t bps = 0;    //!< the rate
        uint16_t quanta = 0; //!< the quanta
        double fraction = 0; //!< the fraction of the pause time
        int64_t delay = 0;   //!< the delay (time steps)
    };
    PauseDelay m_refresh;     //!< SendPfc's refresh delay (PauseQuanta, PauseRefreshFraction)
    PauseDelay m_received;    //!< the pause time of the quanta last received
    std::string m_policy;     //!< DataScheduler attribute
    bool m_inputFair = false; //!< SetInputFair
    struct Scheduler;         //!< holds the Rust scheduler (in the code)
    std::unique_ptr<Scheduler> m_sched; //!< the Rust scheduler (DataScheduler)
    std::vector<Slot> m_slots;          //!< queued frames by handle
    std::vector<uint32_t> m_freeSlots;  //!< unused handles
    EventId m_schedWake;                //!< a held class becomes eligible (cleared when it runs)
    QbbDataSource* m_source;            //!< host data source (not owned)
    ClassSteps m_pausedUntil{};         //!< peer's pause per class
    int64_t m_pausedUntilMax = 0;       //!< at or after every m_pausedUntil
    ClassSteps m_pauseSince{};          //!< start of the current pause interval
    std::array<bool, N_PRIO> m_pauseOpen{};     //!< a pause interval is being accounted
    ClassSteps m_pausedTotal{};                 //!< closed pause time per class
    std::array<EventId, N_PRIO> m_wakeEvent;    //!< resume transmission at pause expiry
    std::array<bool, N_PRIO> m_pausingPeer{};   //!< we want the peer paused
    std::array<EventId, N_PRIO> m_refreshEvent; //!< PAUSE refresh timers
    RxHandler m_rxHandler;                      //!< received frames go here
    DequeueHandler m_dequeueHandler;            //!< data leaving class queues
    QbbFrameSink* m_rxSink = nullptr;           //!< received frames go here instead
    QbbFrameSink* m_dequeueSink = nullptr;      //!< told about dequeues instead
    Stats m_stats;                              //!< counters

    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;  //!< frame starts on the wire
    TracedCallback<Ptr<const Packet>> m_macRxTrace;       //!< frame received (non-PFC)
    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace;       //!< PFC frame sent (prio, quanta)
    TracedCallback<uint8_t, uint16_t, Time> m_pfcRxTrace; //!< PFC received (prio, quanta, duration)
};

} // namespace ns3

#endif /* QBB_NET_DEVICE_H */
