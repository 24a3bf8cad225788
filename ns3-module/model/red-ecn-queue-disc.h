/*
 * rdma-cc: RED/ECN marking on the instantaneous queue with WRED threshold drop of Not-ECT
 * packets, as an ns-3 traffic-control queue disc. The decisions are made by the Rust policy
 * rdma_cc_switch::red behind the cxx bridge.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RED_ECN_QUEUE_DISC_H
#define RED_ECN_QUEUE_DISC_H

#include "rdma-cc-params.h"

#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace rdmacc_ffi
{
struct RedEcn;
struct RedEcnParams;
enum class DropReason : std::uint8_t;
} // namespace rdmacc_ffi

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * FIFO queue disc that marks ECN-capable packets with a probability that grows linearly with
 * the instantaneous queue length between KMin and KMax (1 at and above KMax), and treats
 * Not-ECT packets by NotEctMode: accept, drop at or above KFs (LDCP fast start's WRED
 * threshold drop), or drop where an ECN-capable packet would be marked (classic RED).
 * Any packet that would take the queue past BufMax bytes is tail-dropped.
 *
 * The queue length used is the queue disc's byte count before the arriving packet is added.
 * Every decision is taken by the Rust policy (rust/switch/src/red.rs); this class converts the
 * packet to (queue bytes, size, ECN bits, random draw) and acts on the verdict. The attributes
 * (KMin, KMax, PMax, NotEctMode, KFs, BufMax) are the parameters of the Rust table: names,
 * defaults, bounds and help are defined there; a value out of its bounds stops the program
 * with a message naming the attribute (exit status 2), and the settings are checked together
 * when the queue disc is initialised.
 *
 * Drops are reported through the QueueDisc "Drop"/"DropBeforeEnqueue" trace sources and
 * QueueDisc::Stats with the reasons in DropReasonName(); marks through "Mark" with reason
 * MARK_REASON.
 */
class RedEcnQueueDisc
    : public QueueDisc
    , public RustParamOwner
{
  public:
    /// Mark reason reported to QueueDisc::Stats.
    static constexpr const char* MARK_REASON = "ecn_mark";

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    RedEcnQueueDisc();
    ~RedEcnQueueDisc() override;

    /**
     * Checks the attributes with the Rust validation.
     * \return "" when valid, else the message naming the attribute, its value and the rule.
     */
    std::string ValidateConfig() const;

    /**
     * \param q queue length in bytes
     * \return the marking probability of an ECN-capable packet arriving at queue length q
     */
    double MarkProbability(uint64_t q) const;

    /**
     * \param reason a drop reason of the Rust switch policies
     * \return its stable name, used in traces, QueueDisc::Stats and output files (from Rust:
     *         "queue_full", "buffer_full", "not_ect_threshold", "red_early_drop",
     *         "headroom_overrun", "no_route", "control"; "unknown" for DropReason::None)
     */
    static const char* DropReasonName(rdmacc_ffi::DropReason reason);

    /// \return the name of every drop reason, in the order of every listing (from Rust)
    static const std::vector<std::string>& DropReasonNames();

    /**
     * Assign a fixed random variable stream number to the random variables used by this model.
     * \param stream first stream index to use
     * \return the number of stream indices assigned by this model
     */
    int64_t AssignStreams(int64_t stream);

    /**
     * Takes parameters `indices` of `from` as they are (before the queue disc is initialised):
     * values the command line's options parsed once, in Rust
     * (rdmacc::Options::ConfigureRedEcn), copied value by value as Rust holds them, with no
     * ns-3 attribute in between. A value this queue disc cannot hold stops the program with a
     * message naming the attribute (exit status 2).
     * \param from the options' RED/ECN parameters
     * \param indices the parameters to take (the options given, or whose default the example
     *        chose)
     */
    void TakeParams(const rdmacc_ffi::RedEcnParams& from, const std::vector<std::size_t>& indices);

    // RustParamOwner
    void SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v) override;
    void GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const override;

  private:
    struct Params;
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    Ptr<const QueueDiscItem> DoPeek() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// \return the ECN bits of the item's IP header (Not-ECT for non-IP items)
    static uint8_t EcnBits(Ptr<const QueueDiscItem> item);

    std::unique_ptr<Params> m_params; //!< the attributes (Rust RedEcnConfig)
    Ptr<UniformRandomVariable> m_uv;  //!< marking draws
    struct Policy;                    //!< holds the Rust policy (defined with the code)
    std::unique_ptr<Policy> m_policy; //!< the Rust policy (built at InitializeParams)
};

} // namespace ns3

#endif /* RED_ECN_QUEUE_DISC_H */
