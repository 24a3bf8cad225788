/*
 * rdma-cc: a datacenter switch: forwarding with per-flow ECMP, shared-buffer MMU with PFC and
 * RED/ECN egress policies, all decided by the Rust switch core.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_NODE_H
#define SWITCH_NODE_H

#include "qbb-net-device.h"
#include "rdma-cc-params.h"

#include "ns3/mrg32k3a.h"
#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

// the bridge's types this header names (rdma-cc/src/switch.rs.h defines them; include it to
// read GetCounters' or GetRcmCounters' fields)
namespace rdmacc_ffi
{
struct Topology;
struct SwitchParams;
struct RedEcnParams;
struct SwitchCounters;
struct RcmCounters;
struct TxPacket;
struct ParamValue;
} // namespace rdmacc_ffi

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * A switch node. Its ports are its QbbNetDevices, in the order they were added (port i =
 * device i). For each arriving RoCE frame the switch asks the Rust switch core
 * (rust/switch/src/core.rs) for the egress port (shortest paths, per-flow ECMP on the
 * 5-tuple with the EcmpSeed), the egress policy's verdict (RED/ECN mark, WRED Not-ECT drop,
 * queue limit) and the MMU's admission and PFC action, and carries them out: drop, mark CE,
 * queue at the egress port, send PAUSE/RESUME on the ingress port. When a frame leaves an
 * egress queue the core is told, and may answer RESUME.
 *
 * Control frames (ACK, NACK, CNP, probe responses) are routed like data but bypass the egress
 * policy, the MMU and PFC: they are accounted in a separate control pool (ControlBuffer) and
 * sent in the ports' control class (strict priority, never paused). The switch can also send
 * a frame it built on a port (SendControlFrame), and hands frames a neighbour switch built
 * for it to the ControlRx trace.
 *
 * RCM (attribute Rcm; Liu et al., NPC 2017): the core samples every data packet's input and
 * output queue, chooses among equal-cost ports (SAR) and says whether the packet belongs to a
 * congestion flow that the output port's RCC may hold (queued apart in the port's scheduler).
 * The node carries out what RCM asks: CNs to neighbour switches (a SWITCH_CONTROL frame whose
 * payload Rust encodes, in the control class), RCC budgets set at its ports' schedulers
 * (QbbNetDevice::SetRcc, traced by RccChange); a neighbour's CN goes to the core; RCM's timer
 * is one event at the core's next deadline.
 *
 * The attributes are the parameters of the Rust switch table (rust/switch/src/mmu.rs and
 * core.rs: names, defaults, bounds and help are defined there): the buffer (DCQCN, SIGCOMM
 * 2015, section 4) BufferSize, Reserve, Headroom (default: each port's need from its link),
 * AllowHeadroomOverrun, XoffBeta (dynamic XOFF) or XoffStatic, XonDelta, PfcPriorities
 * (lossless priorities, IEEE 802.1Qbb), EgressLimit (lossy tail drop), MmuMtu; EcmpSeed;
 * ControlBuffer (the control pool); Rcm and RCM's parameters (rust/rcm/src/config.rs).
 *
 * INT (attribute Int, for HPCC): the ports append a hop record to each data packet of an INT
 * flow they send (QbbNetDevice::SetIntTelemetry, IntTag).
 */
class SwitchNode
    : public Node
    , public RustParamOwner
    , private QbbFrameSink
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    SwitchNode();
    ~SwitchNode() override;

    /**
     * The system id (MPI rank) the next SwitchNode is created with (ns-3's Node takes it at
     * construction only; FabricHelper sets it before each switch it creates). Default 0.
     * \param systemId the rank that simulates the next switch
     */
    static void SetNextSystemId(uint32_t systemId);

    /// Adds a port (the device is added to the node; its index is the port number).
    uint32_t AddPort(Ptr<QbbNetDevice> dev);
    /// \return the number of ports
    uint32_t GetNPorts() const;
    /// \return port `i`
    Ptr<QbbNetDevice> GetPort(uint32_t i) const;

    /**
     * Builds the switch core: validates the attributes against the ports' links (each port's
     * PFC headroom follows from the rate and delay of its link; a bad value stops the program
     * with a message naming the attribute, exit status 2) and takes this node's routes from
     * `topo`.
     */
    void Setup(const rdmacc_ffi::Topology& topo);

    /**
     * Checks the attributes against the ports' links as Setup does (e.g. an explicit Headroom
     * below what a port's link needs, a BufferSize that cannot hold every port's headroom),
     * without stopping the program.
     * \return "" when valid, else the message naming the attribute, its value and the rule
     */
    std::string ValidateConfig() const;

    /**
     * Installs a RED/ECN + WRED policy on egress queue (port, prio) (after Setup). A bad value
     * stops the program with a message naming the attribute (exit status 2).
     */
    void SetQueuePolicy(uint32_t port, uint8_t prio, const rdmacc_ffi::RedEcnParams& policy);

    /// Counters of the switch (the Rust core's; drops by reason in named fields).
    typedef rdmacc_ffi::SwitchCounters Counters;

    /// \return the counters
    Counters GetCounters() const;
    /// \return (reason name, frames dropped) for every drop reason, in Rust's order
    std::vector<std::pair<std::string, uint64_t>> GetDropList() const;

    /**
     * Sends a frame the switch built (a RoceHeader of a control kind, e.g. SWITCH_CONTROL) on
     * `port`, in the control class, accounted in the control pool.
     * \return whether it was queued (false: the control pool was full; counted as a drop with
     *         reason control)
     */
    bool SendControlFrame(uint32_t port, Ptr<Packet> p);
    /// \return "" when every MMU accounting invariant holds, else what is wrong
    std::string CheckInvariants() const;

    /// RCM counters of the switch (all zero, `enabled` false, without the Rcm attribute).
    typedef rdmacc_ffi::RcmCounters RcmCounters;
    /// \return RCM's counters (CNs sent and received, detections, RCC activations and cuts,
    ///         SAR detours and moves)
    RcmCounters GetRcmCounters() const;
    /// \return RCM: the flow ids in the CFR CAM of output queue (port, prio), slot order
    std::vector<uint64_t> GetRcmCam(uint32_t port, uint8_t prio) const;
    /// \return bytes in egress queue (port, prio), as accounted by the MMU
    uint64_t GetEgressBytes(uint32_t port, uint8_t prio) const;
    /// \return the largest egress queue (port, prio) reached since the start or the last
    ///         ResetMaxEgress(), in bytes (exact: the Rust core updates it at every admission)
    uint64_t GetMaxEgressBytes(uint32_t port, uint8_t prio) const;
    /// Restarts the maxima of GetMaxEgressBytes at the queues' current lengths (e.g. after
    /// the first RTT: a queue that only drains from then on reports its length at the reset).
    void ResetMaxEgress();
    /// Rows of (port, prio, bytes) SampleEgress fills (the Rust core's; defined in
    /// detail/switch-egress-samples.h), reused from one sample to the next.
    struct EgressSamples;
    /**
     * Replaces `out` with the non-empty egress queues of the priorities in `prioMask`, by
     * ascending (port, priority). The Rust core keeps the list of non-empty queues at every
     * admission and departure, so a sample costs what it records, not the port count.
     * \param prioMask priorities to report (bit p = priority p)
     * \param out receives (port, prio, bytes) rows; reused between calls
     */
    void SampleEgress(uint8_t prioMask, EgressSamples& out) const;

    /// \return whether the ports append INT hop records (attribute Int)
    bool GetIntTelemetry() const;
    /// \return the lossless priority mask (attribute PfcPriorities)
    uint8_t GetPfcPriorities() const;
    /// \return the total buffer (attribute BufferSize), bytes
    uint64_t GetBufferSize() const;
    /// \return the PFC headroom of each lossless ingress queue of `port` (after Setup; 0
    ///         without lossless priorities)
    uint64_t GetHeadroom(uint32_t port) const;
    /**
     * \return start-up warnings for this switch's buffer settings (after Setup): whether ECN
     * (the smallest threshold kMin of its egress policies, when `marking`) triggers before PFC
     * (DCQCN section 4), and an explicit headroom below a port's need that AllowHeadroomOverrun
     * accepted.
     */
    std::vector<std::string> ConfigWarnings(bool marking, uint64_t kMin) const;

    /**
     * Assign a fixed random variable stream number to the random variables used by this model
     * (the RED draws: the numbers of ns-3's UniformRandomVariable on that stream; until then,
     * those of the automatic stream it would have taken when the switch was made).
     * \param stream first stream index to use (-1: a new automatic one)
     * \return the number of stream indices assigned by this model
     */
    int64_t AssignStreams(int64_t stream);

    /// Drop trace signature: (frame, ingress port, priority, reason name).
    typedef void (*DropTracedCallback)(Ptr<const Packet>, uint32_t, uint8_t, const char*);
    /// ControlRx trace signature: (frame, port it arrived on).
    typedef void (*ControlRxTracedCallback)(Ptr<const Packet>, uint32_t);
    /// RccChange trace signature: (port, priority, change "on" / "cut" / "flows" / "off", role
    /// of the point at "on" ("" otherwise), window W, budget W_c (bytes; 0 at "off")).
    typedef void (*RccChangeTracedCallback)(
        uint32_t, uint8_t, const char*, const char*, uint64_t, uint64_t);

    /**
     * Takes parameters `indices` of `from` as they are (before Setup): values the command
     * line's options parsed once, in Rust (rdmacc::Options::ConfigureSwitch), copied into this
     * switch's parameters by Rust, with no ns-3 attribute in between. A value this switch
     * cannot hold stops the program with a message naming the attribute (exit status 2).
     * \param from the options' switch parameters
     * \param indices the parameters to take (the options given, or whose default the example
     *        chose)
     */
    void TakeParams(const rdmacc_ffi::SwitchParams& from, const std::vector<std::size_t>& indices);

    // RustParamOwner
    void SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v) override;
    void GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const override;

  protected:
    void DoDispose() override;

  private:
    static uint32_t s_nextSystemId; //!< see SetNextSystemId
    /// The rate (bit/s) and one-way delay (ns) of every port's link, in port order.
    std::pair<std::vector<uint64_t>, std::vector<uint64_t>> PortLinks() const;
    void ReceiveFrame(QbbNetDevice* dev,
                      rdmacc::Frame&& f,
                      const RoceFields& fields,
                      uint32_t hdrBytes) override;
    void DequeueFrame(QbbNetDevice* dev, const rdmacc_ffi::TxPacket& t) override;
    /// Sends PAUSE (`pause`) or RESUME for priority `prio` on `port`.
    void ApplyPfc(uint32_t port, uint8_t prio, bool pause);
    /// Carries out what RCM asks (CNs to send, RCC budgets to set), then re-arms its timer.
    void DrainRcm();
    /// RCM's timer.
    void OnRcmTimer();

    /// The Rust side: the attributes (SwitchConfig) and the core (after Setup).
    struct Rust;

    std::vector<Ptr<QbbNetDevice>> m_ports; //!< ports
    std::unique_ptr<Rust> m_rust;           //!< the attributes and the core (Rust)
    rdmacc::Mrg32k3a m_draws;               //!< RED draws (ns-3's UniformRandomVariable's)

    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t, const char*> m_dropTrace; //!< drops
    TracedCallback<Ptr<const Packet>, uint32_t> m_controlRxTrace; //!< frames for this switch
    TracedCallback<uint32_t, uint8_t, const char*, const char*, uint64_t, uint64_t>
        m_rccTrace;     //!< RCM: RCC changes
    bool m_rcm{false};  //!< RCM runs (the core says so after Setup)
    bool m_int{false};  //!< INT: the ports append hop records (attribute Int)
    EventId m_rcmTimer; //!< RCM's next deadline
};

} // namespace ns3

#endif /* SWITCH_NODE_H */
