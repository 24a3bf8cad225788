/*
 * rdma-cc: a RoCEv2-like host NIC: queue pairs, go-back-N, ACK/NACK/CNP, with one Rust
 * congestion controller per queue pair.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "qbb-net-device.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rdmacc_ffi
{
struct Sender;
struct Receiver;
struct SenderParams;
} // namespace rdmacc_ffi

namespace ns3
{

/**
 * \ingroup rdma-cc
 * What is known about one finished (or unfinished) flow.
 */
struct FlowRecord
{
    uint32_t flowId = 0;         //!< global flow id (as given to AddFlow)
    uint32_t src = 0;            //!< source node
    uint32_t dst = 0;            //!< destination node
    uint64_t size = 0;           //!< message bytes
    Time start;                  //!< start time
    Time finish;                 //!< last byte acknowledged (negative: not finished)
    Time idealFct;               //!< size on the wire at line rate + base RTT
    uint64_t retxBytes = 0;      //!< retransmitted payload bytes
    uint64_t bytesSent = 0;      //!< payload bytes put on the wire (retransmissions included)
    uint64_t delivered = 0;      //!< bytes delivered in order at the receiver
    double minCw = 0;            //!< smallest window (packets; inf without a window)
    uint64_t subPacketSends = 0; //!< packets sent while cw < 1
    uint64_t timeouts = 0;       //!< retransmission timeouts
    uint64_t nacks = 0;          //!< NACKs received
    uint8_t fastStartExit = 0;   //!< 0 none, 1 all IW acknowledged, 2 loss
    std::string scheme;          //!< congestion control
};

/**
 * \ingroup rdma-cc
 *
 * The NIC of a host, attached to its QbbNetDevice. Each flow is a queue pair (QP): at the
 * source an rdmacc Sender (rust/transport: sequence numbers in bytes, go-back-N, RTO, pacing and
 * the congestion controller chosen by Scheme), at the destination a Receiver (in-order
 * delivery, per-packet or delayed ACK with ECN echo, NACK on a gap, CNPs). The NIC only builds
 * and parses frames and schedules the one timer each QP asks for: every decision is Rust's.
 *
 * A QP that can send is a ready flow of the device's scheduler, in its priority's class: ready
 * QPs take turns (round robin within the class, the classes shared by the device's
 * DataScheduler, paused classes skipped). When its turn comes the device pulls a frame; a QP
 * that is window-limited or waiting for its pacing/sub-packet time leaves the turn until an
 * ACK, NACK, CNP or its timer brings it back. ACK, NACK, CNP and probe responses go in the
 * device's control class (before data, never paused).
 *
 * Attributes set the congestion-control parameters of the flows added afterwards.
 */
class RdmaNic
    : public Object
    , public QbbDataSource
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /// Attaches to the host's device (data source and receive handler).
    void Attach(Ptr<QbbNetDevice> dev, uint32_t nodeId);
    /// \return the device
    Ptr<QbbNetDevice> GetDevice() const;
    /// \return this host's node id
    uint32_t GetNodeId() const;

    /**
     * Adds a flow from this host to `dst` (whose NIC is told to expect it). The parameters are
     * validated now: a bad one stops the program with a message naming it.
     * \param dst the destination's NIC
     * \param size message bytes (> 0)
     * \param start start time
     * \param baseRtt the path's base RTT (for LDCP's IW = BDP, srtt init, RTO, ideal FCT)
     * \param flowId a global id, reported in the flow records
     * \return the local QP index
     */
    uint32_t AddFlow(Ptr<RdmaNic> dst, uint64_t size, Time start, Time baseRtt, uint32_t flowId);

    /// \return records of the flows this host sent (finish < 0: not finished)
    std::vector<FlowRecord> GetFlowRecords() const;
    /// \return payload bytes delivered in order to this host, all flows
    uint64_t GetDeliveredBytes() const;
    /// \return the current window of QP `qp` (packets), for traces
    double GetCw(uint32_t qp) const;
    /// \return the number of QPs
    uint32_t GetNQps() const;
    /// \return the scheme name of flows added from now on
    std::string GetScheme() const;

    /// Flow completion trace: (flow record).
    typedef void (*FlowCompleteCallback)(const FlowRecord&);
    /// First-feedback trace: (flow id): the flow's first RTT is over.
    typedef void (*FirstFeedbackCallback)(uint32_t);

    Ptr<Packet> PullData(uint32_t flow) override;

  protected:
    void DoDispose() override;

  private:
    struct Qp;
    struct RxFlow;

    void ExpectFlow(uint32_t srcNode, uint32_t qp, uint64_t size, uint8_t scheme);
    void StartQp(uint32_t qp);
    void MakeReady(uint32_t qp);
    void UpdateTimer(uint32_t qp);
    void OnTimer(uint32_t qp);
    void OnWake(uint32_t qp);
    void Finish(uint32_t qp);
    void AfterFeedback(uint32_t qp);
    void Receive(Ptr<QbbNetDevice> dev, Ptr<Packet> p);
    void SendControl(uint8_t kind,
                     uint32_t dstNode,
                     uint32_t flowId,
                     uint64_t seq,
                     uint8_t flags,
                     uint8_t prio,
                     uint16_t srcPort);
    rdmacc_ffi::SenderParams Params(Time baseRtt) const;
    FlowRecord Record(const Qp& q) const;

    Ptr<QbbNetDevice> m_dev;                                    //!< the host's device
    uint32_t m_nodeId;                                          //!< this host
    std::vector<std::unique_ptr<Qp>> m_qps;                     //!< flows sent by this host
    std::unordered_map<uint64_t, std::unique_ptr<RxFlow>> m_rx; //!< (src, qp) -> receiver
    uint64_t m_delivered;                                       //!< bytes delivered to this host

    // attributes
    std::string m_scheme;  //!< Scheme
    uint32_t m_mtu;        //!< Mtu (payload bytes per packet)
    uint8_t m_prio;        //!< Priority
    double m_alpha;        //!< Alpha
    double m_beta;         //!< Beta
    double m_gamma;        //!< Gamma
    double m_eta;          //!< Eta
    double m_iw;           //!< Iw (0: BDP)
    bool m_fastStart;      //!< FastStart
    bool m_subPacket;      //!< SubPacket
    double m_rttGain;      //!< RttGain
    Time m_rto;            //!< Rto (0: 4 x base RTT)
    uint32_t m_rtoBackoff; //!< RtoBackoff
    uint32_t m_ackEvery;   //!< AckEvery
    Time m_cnpInterval;    //!< CnpInterval

    TracedCallback<const FlowRecord&> m_flowComplete; //!< FlowComplete trace
    TracedCallback<uint32_t> m_firstFeedback;         //!< FirstFeedback trace
};

} // namespace ns3

#endif /* RDMA_NIC_H */
