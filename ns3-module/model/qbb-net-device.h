/*
 * rdma-cc: IEEE 802.1Qbb point-to-point device with priority flow control.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QBB_NET_DEVICE_H
#define QBB_NET_DEVICE_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>

namespace ns3
{

class QbbChannel;

/**
 * \ingroup rdma-cc
 * Something that can hand a QbbNetDevice its next data frame when the link is free (a host
 * NIC's queue pairs). The device calls PullData only when it has no frame of its own queued.
 */
class QbbDataSource
{
  public:
    virtual ~QbbDataSource() = default;
    /**
     * \param pausedMask bit p set: priority p is paused by the peer and must not be sent
     * \return the next frame to transmit, or nullptr if none is ready now (call
     *         QbbNetDevice::TriggerTransmit when one becomes ready)
     */
    virtual Ptr<Packet> PullData(uint8_t pausedMask) = 0;
};

/**
 * \ingroup rdma-cc
 *
 * Full-duplex point-to-point device with 8 priority classes and PFC (fabric.md).
 *
 * Transmit order: PFC frames first, then control frames (ACK, NACK, CNP, probes: never paused),
 * then data classes in round-robin among the classes that have frames and are not paused,
 * then the attached QbbDataSource. A frame on the wire is never cut: a PAUSE only stops the
 * next frame of its class. Serialisation time counts the frame padded to 64 B plus 20 B of
 * preamble and inter-frame gap, and is kept exact over time (sub-nanosecond remainders are
 * carried, so the long-run rate is exactly DataRate).
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
    /// Preamble, start-of-frame delimiter and inter-frame gap, bytes.
    static constexpr uint32_t PREAMBLE_IFG = 20;
    /// Minimum frame size, bytes.
    static constexpr uint32_t MIN_FRAME = 64;

    /// Handler for received (non-PFC) frames.
    typedef Callback<void, Ptr<QbbNetDevice>, Ptr<Packet>> RxHandler;
    /// Called when a queued data frame leaves its class queue for the wire:
    /// (device, priority, the meta value given to EnqueueData, frame size).
    typedef Callback<void, Ptr<QbbNetDevice>, uint8_t, uint32_t, uint32_t> DequeueHandler;

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    QbbNetDevice();
    ~QbbNetDevice() override;

    /// Connects the device to a channel.
    void Attach(Ptr<QbbChannel> ch);
    /// Sets the handler of received non-PFC frames.
    void SetRxHandler(RxHandler h);
    /// Sets the handler told about every data frame leaving a class queue.
    void SetDequeueHandler(DequeueHandler h);
    /// Sets the source asked for data when nothing is queued (not owned).
    void SetDataSource(QbbDataSource* src);

    /// Queues a data frame in class `prio`; `meta` is passed back to the dequeue handler.
    void EnqueueData(uint8_t prio, Ptr<Packet> p, uint32_t meta);
    /// Queues a control frame (sent before data, never paused).
    void EnqueueControl(Ptr<Packet> p);
    /// Starts (pause = true) or ends (false) a PFC pause of the peer's class `prio`.
    void SendPfc(uint8_t prio, bool pause);
    /// Sends one PFC frame for `prio` with the given time in quanta (tests, manual control).
    void SendPfcFrame(uint8_t prio, uint16_t quanta);
    /// Asks the device to transmit if it is idle (e.g. the data source has data again).
    void TriggerTransmit();
    /// Called by the channel when a frame has fully arrived.
    void Receive(Ptr<Packet> p);

    /// \return whether class `prio` is currently paused by the peer
    bool IsPaused(uint8_t prio) const;
    /// \return whether this device currently asks the peer to pause class `prio`
    bool IsPausingPeer(uint8_t prio) const;
    /// \return bytes queued in data class `prio`
    uint64_t GetQueueBytes(uint8_t prio) const;
    /// \return the link rate
    DataRate GetDataRate() const;
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

  protected:
    void DoDispose() override;

  private:
    /// A queued data frame.
    struct Entry
    {
        Ptr<Packet> packet; //!< the frame
        uint32_t meta;      //!< owner's value (a switch: the ingress port)
    };

    void TryTransmit();
    void TransmitStart(Ptr<Packet> p);
    void TransmitComplete();
    void ReceivePfc(Ptr<Packet> p);
    void RefreshPause(uint8_t prio);
    uint8_t PausedMask() const;

    Ptr<Node> m_node;                             //!< owner
    Ptr<QbbChannel> m_channel;                    //!< link
    uint32_t m_ifIndex;                           //!< interface index
    Mac48Address m_address;                       //!< MAC (unused by the fabric)
    uint16_t m_mtu;                               //!< MTU attribute
    DataRate m_rate;                              //!< DataRate attribute
    uint8_t m_pfcEnabled;                         //!< PfcEnabled attribute (class mask)
    uint16_t m_pauseQuanta;                       //!< PauseQuanta attribute
    double m_refreshFraction;                     //!< PauseRefreshFraction attribute
    bool m_busy;                                  //!< a frame is being serialised
    uint64_t m_psCarry;                           //!< sub-ns serialisation remainder (ps)
    std::deque<Ptr<Packet>> m_pfcQueue;           //!< PFC frames to send
    std::deque<Ptr<Packet>> m_ctrlQueue;          //!< control frames to send
    std::array<std::deque<Entry>, N_PRIO> m_data; //!< data class queues
    std::array<uint64_t, N_PRIO> m_dataBytes{};   //!< bytes per data class queue
    uint8_t m_rrNext;                             //!< next class in the round robin
    QbbDataSource* m_source;                      //!< host data source (not owned)
    std::array<Time, N_PRIO> m_pausedUntil;       //!< peer's pause per class
    std::array<Time, N_PRIO> m_pauseSince;        //!< start of the current pause interval
    std::array<bool, N_PRIO> m_pauseOpen{};       //!< a pause interval is being accounted
    std::array<Time, N_PRIO> m_pausedTotal;       //!< closed pause time per class
    std::array<EventId, N_PRIO> m_wakeEvent;      //!< resume transmission at pause expiry
    std::array<bool, N_PRIO> m_pausingPeer{};     //!< we want the peer paused
    std::array<EventId, N_PRIO> m_refreshEvent;   //!< PAUSE refresh timers
    RxHandler m_rxHandler;                        //!< received frames go here
    DequeueHandler m_dequeueHandler;              //!< data leaving class queues
    Stats m_stats;                                //!< counters

    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;  //!< frame starts on the wire
    TracedCallback<Ptr<const Packet>> m_macRxTrace;       //!< frame received (non-PFC)
    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace;       //!< PFC frame sent (prio, quanta)
    TracedCallback<uint8_t, uint16_t, Time> m_pfcRxTrace; //!< PFC received (prio, quanta, duration)
};

} // namespace ns3

#endif /* QBB_NET_DEVICE_H */
