/*
 * rdma-cc: full-duplex point-to-point channel between two QbbNetDevices.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QBB_CHANNEL_H
#define QBB_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

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
    void Attach(Ptr<QbbNetDevice> device);

    /**
     * Puts a frame on the wire.
     * \param p the frame
     * \param src the sending device
     * \param txTime its serialisation time; the peer receives it txTime + Delay from now
     */
    void TransmitStart(Ptr<Packet> p, Ptr<QbbNetDevice> src, Time txTime);

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

} // namespace ns3

#endif /* QBB_CHANNEL_H */
