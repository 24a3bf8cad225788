/*
 * rdma-cc: a host that sends raw RoCE data frames at line rate with no transport and no
 * congestion control, and counts what it receives. For fabric tests (PFC, ECMP, buffers) and
 * as background traffic.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RAW_HOST_H
#define RAW_HOST_H

#include "qbb-net-device.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Raw line-rate traffic on one QbbNetDevice of a host. Each flow sends `bytes` of payload to
 * a destination node in frames of `Payload` bytes (+62 B of RoCE headers), starting at a given
 * time, as fast as the link and PFC allow; each started flow is a ready flow of the device's
 * scheduler in its priority's class (flows of one class take turns; the classes share the link
 * by the device's DataScheduler). No ACKs, no retransmission: a dropped frame is lost (use it
 * with PFC, or to measure loss).
 */
class RawHost
    : public Object
    , public QbbDataSource
    , private QbbFrameSink
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RawHost();

    /// Attaches to the host's device (sets itself as data source and receive handler).
    void Attach(Ptr<QbbNetDevice> dev, uint32_t nodeId);

    /**
     * Adds a flow.
     * \param dstNode destination node id
     * \param prio priority class
     * \param bytes payload bytes to send
     * \param start start time
     * \param srcPort UDP source port (ECMP entropy)
     * \return the flow's index
     */
    uint32_t AddFlow(uint32_t dstNode, uint8_t prio, uint64_t bytes, Time start, uint16_t srcPort);

    /// Per-flow sender state and counters.
    struct Flow
    {
        uint32_t dstNode; //!< destination
        uint8_t prio;     //!< priority
        uint64_t bytes;   //!< payload to send
        uint64_t sent;    //!< payload sent
        uint16_t srcPort; //!< UDP source port
        Time start;       //!< start time
        Time firstTx;     //!< first frame sent
        Time lastTx;      //!< last frame started
        bool started;     //!< start time reached
    };

    /// \return the flows
    const std::vector<Flow>& GetFlows() const;
    /// \return payload bytes received from each source node
    const std::map<uint32_t, uint64_t>& GetReceivedBySource() const;
    /// \return payload bytes received in total
    uint64_t GetReceivedBytes() const;
    /// \return frames received in total
    uint64_t GetReceivedFrames() const;
    /// \return time of the first and last received data frame
    std::pair<Time, Time> GetReceiveWindow() const;
    /// \return payload bytes of the first data frame received (0 before any): what arrived
    ///         by the start of GetReceiveWindow, for goodput over that window
    uint64_t GetFirstReceivedPayload() const;

    /// Rx trace signature: (source node, payload bytes) of a data frame received.
    typedef void (*RxTracedCallback)(uint32_t, uint64_t);

    rdmacc::Frame PullData(uint32_t flow, RoceFields& h) override;

  protected:
    void DoDispose() override;

  private:
    void StartFlow(uint32_t i);
    void ReceiveFrame(QbbNetDevice* dev,
                      rdmacc::Frame&& f,
                      const RoceFields& h,
                      uint32_t hdrBytes) override;

    Ptr<QbbNetDevice> m_dev;                      //!< the host's device
    uint32_t m_nodeId;                            //!< this host
    uint32_t m_payload;                           //!< Payload attribute
    std::vector<Flow> m_flows;                    //!< flows
    std::map<uint32_t, uint64_t> m_rxBySource;    //!< payload received per source
    uint64_t m_rxBytes;                           //!< payload received
    uint64_t m_rxFrames;                          //!< frames received
    Time m_firstRx;                               //!< first data frame received
    Time m_lastRx;                                //!< last data frame received
    uint64_t m_firstRxPayload;                    //!< payload of the first data frame received
    TracedCallback<uint32_t, uint64_t> m_rxTrace; //!< every data frame received
};

} // namespace ns3

#endif /* RAW_HOST_H */
