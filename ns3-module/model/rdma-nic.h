/*
 * rdma-cc: a RoCEv2-like host NIC: queue pairs, go-back-N, ACK/NACK/CNP, with one Rust
 * congestion controller per queue pair.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_NIC_H
#define RDMA_NIC_H

#include "qbb-net-device.h"
#include "rdma-cc-params.h"
#include "roce-header.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace rdmacc_ffi
{
struct Sender;
struct Receiver;
struct NicParams;
struct SenderInfo;
struct ParamValue;
} // namespace rdmacc_ffi

namespace ns3
{

/**
 * \ingroup rdma-cc
 * The RDMA operation of a flow (the codes of Rust's `rdma_cc_core::Operation`). A flow's bytes
 * always travel from its source to its destination; a READ is posted by the destination (the
 * requester), whose READ request starts the source's (the responder's) responses. WRITE and
 * SEND are the same in this model (docs/operations.md).
 */
enum class RdmaOp : uint8_t
{
    WRITE = 0, //!< RDMA WRITE: the source posts it and sends at once
    SEND = 1,  //!< RDMA SEND: as WRITE here
    READ = 2,  //!< RDMA READ: the destination requests, the source responds
};

/**
 * \ingroup rdma-cc
 * What is known about one finished (or unfinished) flow.
 */
struct FlowRecord
{
    uint32_t flowId = 0;               //!< global flow id (as given to AddFlow)
    uint32_t src = 0;                  //!< source node
    uint32_t dst = 0;                  //!< destination node
    uint64_t size = 0;                 //!< message bytes
    Time start;                        //!< start time
    Time finish;                       //!< last byte acknowledged (negative: not finished)
    Time idealFct;                     //!< lower bound of the FCT (set by whoever knows the path)
    uint64_t retxBytes = 0;            //!< retransmitted payload bytes
    uint64_t dupBytes = 0;             //!< payload bytes the receiver got twice (spurious retx)
    uint64_t bytesSent = 0;            //!< payload bytes put on the wire (retransmissions included)
    uint64_t delivered = 0;            //!< bytes delivered in order at the receiver
    double minCw = 0;                  //!< smallest window (packets; inf without a window)
    uint64_t subPacketSends = 0;       //!< packets sent while cw < 1
    uint64_t packetsSent = 0;          //!< data packets put on the wire (retransmissions included)
    uint64_t probesSent = 0;           //!< RTT probes sent (rate-based LDCP)
    uint64_t timeouts = 0;             //!< retransmission timeouts
    uint64_t nacks = 0;                //!< NACKs received (READ: repeat READ requests)
    std::string scheme;                //!< congestion control
    RdmaOp op = RdmaOp::WRITE;         //!< the operation
    Time requestArrived = Seconds(-1); //!< READ: when the responder got the READ request
                                       //!< (negative: never; WRITE/SEND: negative)
    uint64_t rereads = 0;              //!< READ: repeat READ requests the requester sent
    uint8_t priority = 0;              //!< the flow's data priority (its traffic class, 0-7)
};

/**
 * \ingroup rdma-cc
 *
 * The NIC of a host, attached to its QbbNetDevice. Each flow is a queue pair (QP): at the
 * source an rdmacc Sender (rust/transport: sequence numbers in bytes, go-back-N, RTO, pacing and
 * the congestion controller its scheme names), at the destination a Receiver (in-order
 * delivery, per-packet or delayed ACK with ECN echo, NACK on a gap, CNPs). The NIC only builds
 * and parses frames and keeps one timer event per QP, at the deadline the QP gives: every
 * decision is Rust's.
 *
 * A QP that can send is a ready flow of the device's scheduler, in its priority's class: ready
 * QPs take turns (round robin within the class, the classes shared by the device's
 * DataScheduler, paused classes skipped). When its turn comes the device pulls a frame; a QP
 * that is window-limited or waiting for its pacing/sub-packet time leaves the turn until an
 * ACK, NACK, CNP or its timer brings it back. ACK, NACK, CNP and probe responses go in the
 * device's control class (before data, never paused).
 *
 * The attributes are the parameters of the Rust table `NicConfig` (rust/schemes): the scheme
 * of new flows and every scheme's constants, the transport's timers and the receiver's ACK/CNP
 * policy, with their defaults, bounds and help. They apply to the flows added afterwards.
 */
class RdmaNic
    : public Object
    , public QbbDataSource
    , public RustParamOwner
    , private QbbFrameSink
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /**
     * Builds `n` NICs as `n` calls of CreateObject<RdmaNic>() in a row would: the first by
     * ns-3's attribute construction (ObjectBase::ConstructSelf: each attribute from
     * NS_ATTRIBUTE_DEFAULT, else its initial value, which Config::SetDefault sets), the others
     * as copies of the first's attributes (its Rust parameters), made before anything can
     * change a default. ConstructSelf visits every attribute of every object it builds, ~5 000
     * instructions each (a NIC has ~60); a copy copies one Rust struct.
     * \param n how many
     * \return the NICs, in the order they were built
     */
    static std::vector<Ptr<RdmaNic>> CreateMany(uint32_t n);

    /// Attaches to the host's device (data source and receive handler).
    void Attach(Ptr<QbbNetDevice> dev, uint32_t nodeId);
    /// \return the device
    Ptr<QbbNetDevice> GetDevice() const;
    /// \return this host's node id
    uint32_t GetNodeId() const;

    /**
     * Adds a flow from this host to `dst` (whose receiver comes into being from its first data
     * packet). The parameters are
     * validated now: a bad one stops the program with a message naming it.
     * \param dst the destination's NIC
     * \param size message bytes (> 0)
     * \param start start time
     * \param baseRtt the path's base RTT (LDCP's IW = BDP, srtt before the first sample, RTO)
     * \param flowId a global id, reported in the flow records and traces
     * \param lossless whether the flow's data priority is lossless (PFC) along its path: its
     *        retransmission timeout then only guards against failures (see the README)
     * \param maxQueueing lossless: the longest a packet can queue on the path without being
     *        lost (every switch's buffer drained at its port rate; 0: unknown), the default
     *        floor of the retransmission timeout
     * \param intHops INT (HPCC): the number of switches on the path when every one of them
     *        writes INT hop records (SwitchNode attribute Int), else 0. Non-zero: the flow's
     *        data packets and ACKs carry the INT header (RoceHeader::INT_BYTES more on the
     *        wire), the sender's controller gets the records of every ACK, and each ACK's
     *        records are checked (GetIntStats): min(intHops, IntTag::MAX_HOPS) of them, each
     *        hop's bytes and timestamp never below the previous ACK's.
     * \param priority the flow's data priority (traffic class) 0-7; -1 (the default): the
     *        Priority attribute. The data packets go in that class of the device (paused only
     *        by PAUSE frames naming it); its ACKs, NACKs and CNPs carry it in their header and
     *        travel in the control class.
     * \param op the operation: RdmaOp::READ makes `dst` the requester, which posts the READ
     *        at `start` (its READ request starts this host's responses); a READ needs both
     *        hosts simulated by this process (not with MPI)
     * \return the local QP index
     */
    uint32_t AddFlow(Ptr<RdmaNic> dst,
                     uint64_t size,
                     Time start,
                     Time baseRtt,
                     uint32_t flowId,
                     bool lossless = false,
                     Time maxQueueing = Time(0),
                     uint32_t intHops = 0,
                     int priority = -1,
                     RdmaOp op = RdmaOp::WRITE);

    /// What the INT records of the ACKs this host's flows received showed (all zero without
    /// INT flows).
    struct IntStats
    {
        uint64_t acks = 0;        //!< ACKs carrying INT records
        uint64_t hopsMin = 0;     //!< fewest records in one ACK (0 without any)
        uint64_t hopsMax = 0;     //!< most records in one ACK
        uint64_t hopMismatch = 0; //!< ACKs whose record count differs from the path's switches
        uint64_t nonMonotone = 0; //!< ACKs with a hop's bytes or timestamp below the previous
                                  //!< ACK's record of that hop
    };

    /// \return the INT statistics of this host's flows
    IntStats GetIntStats() const;

    /// \return records of the flows this host sent (finish < 0: not finished), but those
    ///         handed over (SetFlowHandOver)
    std::vector<FlowRecord> GetFlowRecords() const;
    /**
     * Hands each flow's record over once it is final instead of keeping it (memory follows
     * the flows in progress): `handOver` gets the record of a finished flow once no packet of
     * it can arrive any more (its receiver retired, whose counts the record then carries:
     * delivered, dupBytes, rereads), or at its finish when its destination is simulated by
     * another process (no receiver counts); the NIC then frees the flow's final counters, and
     * GetFlowRecords, GetRetiredRxRecords and GetFlowState no longer know it. A flow not handed
     * over (unfinished, or its receiver kept because packets were lost) stays in
     * GetFlowRecords. Without a callback (the default) every record stays in the NIC.
     * \param handOver called once per flow, with its record (idealFct not set)
     */
    void SetFlowHandOver(Callback<void, const FlowRecord&> handOver);
    /// What the receiver of one flow knows.
    struct RxRecord
    {
        uint32_t srcNode;    //!< the sender's node
        uint32_t qp;         //!< the sender's QP index
        uint64_t delivered;  //!< bytes delivered in order
        uint64_t duplicates; //!< payload bytes received twice
    };

    /// \return the receivers of this host (one per flow that sent it data), by (source, QP),
    ///         but those retired (see GetRetiredRxRecords)
    std::vector<RxRecord> GetRxRecords() const;
    /**
     * \return the counts of the retired receivers of this host's flows (a finished flow's
     *         receiver on the same process, freed once no packet of the flow could arrive any
     *         more): srcNode is this host
     */
    std::vector<RxRecord> GetRetiredRxRecords() const;
    /**
     * Whether this host is simulated by this process (default true). A host of another MPI rank
     * keeps its flows' records (AddFlow on every rank gives every rank the same flow table) but
     * does not start them.
     * \param local whether this process simulates the host
     */
    void SetLocal(bool local);
    /// \return whether this process simulates the host (SetLocal)
    bool IsLocal() const;
    /**
     * The largest base RTT between any two hosts of the fabric (Fabric::LargestDataPathRtt),
     * given to every flow added afterwards beside its own path's; the schemes' `hpcc-sim`
     * presets use it (the HPCC simulator's GLOBAL_T 1). Zero (the default): unknown.
     * \param rtt the fabric's largest base RTT
     */
    void SetFabricBaseRtt(Time rtt);
    /// \return payload bytes delivered in order to this host, all flows
    uint64_t GetDeliveredBytes() const;
    /// \return the number of QPs
    uint32_t GetNQps() const;
    /// \return the scheme name of flows added from now on
    std::string GetScheme() const;

    /// State of one flow's sender, as the traces report it.
    struct FlowState
    {
        double cw = 0;     //!< congestion window, packets (infinite without a window)
        uint64_t rate = 0; //!< pacing rate, bit/s (0: not paced)
        Time srtt;         //!< smoothed RTT
    };

    /// \return the current state of QP `qp` (zeros before it starts; its last state once
    ///         finished, until it is handed over: SetFlowHandOver)
    FlowState GetFlowState(uint32_t qp) const;
    /// \return the global flow id of QP `qp`
    uint32_t GetFlowId(uint32_t qp) const;

    /// Flow completion trace: (flow record).
    typedef void (*FlowCompleteCallback)(const FlowRecord&);
    /// First-feedback trace: (flow id): the flow's first RTT is over.
    typedef void (*FirstFeedbackCallback)(uint32_t);
    /// Window trace: (flow id, congestion window in packets).
    typedef void (*WindowCallback)(uint32_t, double);
    /// Rate trace: (flow id, pacing rate in bit/s; 0 = not paced).
    typedef void (*RateCallback)(uint32_t, uint64_t);
    /// Srtt trace: (flow id, smoothed RTT).
    typedef void (*SrttCallback)(uint32_t, Time);
    /// Flow-state trace: (flow id, window, rate, srtt), once per event that changed any.
    typedef void (*FlowStateCallback)(uint32_t, double, uint64_t, Time);

    rdmacc::Frame PullData(uint32_t flow, RoceFields& h) override;

    /**
     * Takes parameters `indices` of `from` as they are: values the command line's options
     * parsed once, in Rust (rdmacc::Options::ConfigureNic), copied into this NIC's parameters
     * by Rust, with no ns-3 attribute in between. A value this NIC cannot hold stops the
     * program with a message naming the attribute (exit status 2).
     * \param from the options' NIC parameters
     * \param indices the parameters to take (the options given, or whose default the example
     *        chose)
     */
    void TakeParams(const rdmacc_ffi::NicParams& from, const std::vector<std::size_t>& indices);

    // RustParamOwner
    void SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v) override;
    void GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const override;
    bool SameRustParams(const RustParamOwner& other) const override;

  protected:
    void DoDispose() override;

  private:
    /**
     * A NIC holding the attributes (the Rust parameters) of `built`, a NIC just built and not
     * yet used, and nothing else of it: see CreateMany.
     * \param built the NIC to copy
     */
    RdmaNic(const RdmaNic& built);

    struct Qp;
    struct Pending;
    struct Live;
    struct Ended;

    /// The counters a flow record reports (finish time, bytes, packets, ...) from a sender's
    /// `info()`: kept as the flow's Ended record when it finishes, read live before.
    static Ended SenderCounters(const rdmacc_ffi::SenderInfo& i);
    struct RxFlow;
    struct Params;

    /**
     * The sender of QP `qp` of `src` finished after sending `packets` data packets: once
     * they have all arrived here and no receiver timer is pending, no packet of the flow can
     * come any more, and its receiver is retired (RetireIfQuiet).
     */
    void SenderDone(RdmaNic* src, uint32_t qp, uint64_t packets);
    /**
     * Retires the receiver of key `key` when its sender finished, every data packet it sent has
     * arrived and no timer is pending: its counts go to the sender's record, its state is freed
     * (memory follows the flows in progress).
     */
    void RetireIfQuiet(uint64_t key);

    /// Makes the receiver of the sender `srcNode`'s QP `qp` (from its first data packet).
    /// `schemeCode`: the header's code of the sender's scheme (rdmacc_ffi::Scheme).
    RxFlow* NewReceiver(uint32_t srcNode, uint32_t qp, uint64_t size, uint8_t schemeCode);
    void StartQp(uint32_t qp);
    /// Queues WRITE/SEND QP `qp` (just added, starting at `start`) for its start: the host's
    /// one start event is at its earliest waiting start (lazy flow starts).
    void QueueStart(uint32_t qp, Time start);
    /// The host's start event: starts every waiting QP due now (in start order, equal starts
    /// in the order they were added), then schedules itself at the next waiting start. An
    /// event whose `token` is not the latest was replaced by an earlier one: it does nothing.
    void OnStartEvent(uint64_t token);
    /// \return the next waiting QP in start order (UINT32_MAX: none), sorting the waiting QPs
    ///         first when some were added out of start order
    uint32_t NextToStart();
    /// READ: the requester (this host) posts the READ of QP `qp` of `responder`: it makes the
    /// receiver of the responses and sends the READ request.
    void PostRead(Ptr<RdmaNic> responder, uint32_t qp);
    /// READ: a READ request for QP `qp` arrived (the first starts its responses, a repeat
    /// goes back to its sequence).
    void OnReadRequest(const RoceFields& h, uint64_t now);
    /// READ: the requester has every byte of QP `qp`'s responses (its completion time).
    void ReadDone(uint32_t qp, uint64_t now);
    void MakeReady(uint32_t qp);
    void SetTimer(uint32_t qp, uint64_t at);
    /// An event of QP `qp`'s timer (ReArmedTimer: `token` names which of its events)
    void OnTimer(uint32_t qp, uint32_t token);
    /// Arms the receiver's timer of `rx` at `at` ns (UINT64_MAX: none).
    void SetRxTimer(RxFlow& rx, uint64_t at);
    /// An event of the receiver's timer of `rx` (a deferred CNP; `token`: see OnTimer).
    void OnRxTimer(RxFlow* rx, uint32_t token);
    void Finish(uint32_t qp);
    /// Hands the final record of finished QP `qp` over (SetFlowHandOver) and frees its
    /// counters; nothing without a callback.
    void HandOver(uint32_t qp);
    void AfterFeedback(uint32_t qp, uint64_t nextTimer);
    void EmitState(Qp& q);
    void ReceiveFrame(QbbNetDevice* dev,
                      rdmacc::Frame&& f,
                      const RoceFields& fields,
                      uint32_t hdrBytes) override;
    void SendControl(uint8_t kind,
                     uint32_t dstNode,
                     uint32_t flowId,
                     uint64_t seq,
                     uint8_t flags,
                     uint8_t prio,
                     uint16_t srcPort,
                     uint64_t ts = 0,
                     const IntTag* intRecords = nullptr);
    /// Logs what a NACK did to `q`'s sender (its info() before and after): a retransmission
    /// (LOG_INFO) or nothing (LOG_LOGIC).
    void LogNack(const Qp& q,
                 uint64_t seq,
                 const rdmacc_ffi::SenderInfo& before,
                 const rdmacc_ffi::SenderInfo& after) const;
    /// A NACK of `q`'s sender, with the INT records of its packet `p` when it echoes them.
    uint64_t Nack(Qp& q, uint64_t now, const RoceFields& h, bool ece, const Packet& p);
    /// INT: checks the records of an ACK of `q` (IntStats) and passes them to its sender.
    uint64_t AckWithInt(Qp& q, uint64_t now, const RoceFields& h, bool ece, const IntTag& tag);
    FlowRecord Record(const Qp& q) const;

    Ptr<QbbNetDevice> m_dev; //!< the host's device
    uint32_t m_nodeId;       //!< this host
    std::deque<Qp> m_qps;    //!< flows sent by this host (a deque: a QP never moves)
    std::unordered_map<uint64_t, std::unique_ptr<RxFlow>> m_rx; //!< (src, qp) -> receiver
    uint64_t m_delivered;                                       //!< bytes delivered to this host
    IntStats m_int;                                             //!< INT records seen
    bool m_local = true;                                        //!< simulated by this process
    Time m_fabricBaseRtt;                                       //!< SetFabricBaseRtt
    std::unique_ptr<Params> m_params;                           //!< the attributes (Rust)
    Callback<void, const FlowRecord&> m_handOver;               //!< SetFlowHandOver
    // lazy flow starts: one pending start event per host, not one per flow
    bool m_startPending = false;        //!< the host's start event is scheduled (at m_startAt)
    Time m_startAt;                     //!< when it fires
    uint64_t m_startToken = 0;          //!< the token of the latest start event
    uint32_t m_nextStart = 0;           //!< the next QP to start: index into m_qps or m_startOrder
    std::vector<uint32_t> m_startOrder; //!< the QPs in start order, when added out of it
    bool m_startSorted = false;         //!< m_startOrder is in use
    bool m_startDirty = false;          //!< a QP was added before the last queued one's start
    Time m_lastQueuedStart;             //!< the start of the last QP queued

    TracedCallback<const FlowRecord&> m_flowComplete;         //!< FlowComplete trace
    TracedCallback<uint32_t> m_firstFeedback;                 //!< FirstFeedback trace
    TracedCallback<uint32_t, double> m_windowTrace;           //!< Window trace
    TracedCallback<uint32_t, uint64_t> m_rateTrace;           //!< Rate trace
    TracedCallback<uint32_t, Time> m_srttTrace;               //!< Srtt trace
    TracedCallback<uint32_t, double, uint64_t, Time> m_state; //!< FlowState trace
};

} // namespace ns3

#endif /* RDMA_NIC_H */
