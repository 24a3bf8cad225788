/*
 * rdma-cc: full-duplex point-to-point channel between two QbbNetDevices.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QBB_CHANNEL_H
#define QBB_CHANNEL_H

#include "frame-pool.h"
#include "roce-header.h"

#include "ns3/channel.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

class QbbNetDevice;

/**
 * \ingroup rdma-cc
 *
 * A full-duplex link: each direction carries one frame at a time (the sending device
 * serialises), and a frame reaches the peer `Delay` after its last bit left the sender.
 * (ns-3's PointToPointChannel only accepts PointToPointNetDevices, hence this small twin.)
 */
class QbbChannel : public Channel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    QbbChannel();

    /// Connects a device (at most two).
    virtual void Attach(Ptr<QbbNetDevice> device);

    /**
     * Puts a frame on the wire.
     * \param f the frame, handed over to its arrival
     * \param src the sending device
     * \param txTime its serialisation time; the peer receives it txTime + Delay from now
     * \param h the frame's RoCE fields, handed to the peer with it
     * \param hdrBytes their serialised size; 0: none known (the peer reads the frame)
     */
    virtual void TransmitStart(
        rdmacc::Frame f, QbbNetDevice* src, Time txTime, const RoceFields& h, uint32_t hdrBytes);

    /// \return the one-way propagation delay
    Time GetDelay() const;
    /// \return the device at the other end from `d`
    Ptr<QbbNetDevice> GetPeer(Ptr<const QbbNetDevice> d) const;

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

  private:
    Time m_delay;               //!< propagation delay
    Ptr<QbbNetDevice> m_dev[2]; //!< the two ends
    std::size_t m_nDevices;     //!< attached so far
    uint32_t m_ctx[2];          //!< each end's node id (the event context), once known
};

#ifdef NS3_MPI
/**
 * \ingroup rdma-cc
 *
 * A QbbChannel whose two devices are simulated by different MPI ranks (ns-3's distributed
 * simulation, like PointToPointRemoteChannel): a frame for the device of the other rank goes
 * through MpiInterface::SendPacket with its arrival time (txTime + Delay from now), and the
 * other rank's device receives it through the MpiReceiver the channel aggregates to it. Data,
 * PFC and control frames (ACK, NACK, CNP, RCM's CN) all cross this way; the link's delay is the
 * lookahead of the two ranks. For the canonical event order (CanonicalScheduler) a frame
 * carries its arrival's key in 8 bytes in front of it, and ns-3's MpiReceiver event runs one
 * time step before the arrival, which it schedules with that key. Only built against an ns-3
 * with MPI (NS3_MPI).
 */
class QbbRemoteChannel : public QbbChannel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// Connects a device and gives it the MpiReceiver a frame from the other rank arrives by.
    void Attach(Ptr<QbbNetDevice> device) override;

    void TransmitStart(rdmacc::Frame f,
                       QbbNetDevice* src,
                       Time txTime,
                       const RoceFields& h,
                       uint32_t hdrBytes) override;
};
#endif

} // namespace ns3

#endif /* QBB_CHANNEL_H */
