/*
 * rdma-cc: the results of a scenario run, from what it measured: the totals of its flow
 * records and of its switches, the invariants every run checks, the reports by class, and the
 * summary table on stdout. Nothing here runs or builds anything (RdmaScenario::Finish calls it).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_RESULTS_H
#define SCENARIO_RESULTS_H

#include "fabric-helper.h"
#include "flow-results.h"
#include "rdma-cc-output.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * The flow records of a run summed: bytes, completions, sender counters, FCT and slowdown.
 */
struct FlowTotals
{
    uint64_t sent = 0;                                      //!< bytes of every flow
    uint64_t delivered = 0;                                 //!< bytes delivered
    uint64_t retx = 0;                                      //!< bytes retransmitted
    uint64_t dup = 0;                                       //!< of them, received twice
    uint64_t done = 0;                                      //!< flows finished
    uint64_t subPacketSends = 0;                            //!< packets sent with cw < 1
    uint64_t packetsSent = 0;                               //!< data packets sent
    uint64_t probesSent = 0;                                //!< probes sent
    double minCw = std::numeric_limits<double>::infinity(); //!< smallest cw of any flow
    Percentiles fct;                                        //!< FCT, ns (finished flows)
    Percentiles slow;                                       //!< slowdown (finished flows)

    /// Counts flow `f` in the sums (sent ... minCw; one flow at a time, in flow-id order).
    void Add(const FlowRecord& f);
    /// Sets fct and slow from the finished flows of `flows`.
    void SetStatistics(const FlowColumns& flows);
};

/**
 * \ingroup rdma-cc
 * Every switch's counters together, and the data frames every device put on a link.
 */
struct FabricTotals
{
    uint64_t drops = 0;            //!< frames dropped
    uint64_t controlDrops = 0;     //!< control frames dropped
    uint64_t controlForwarded = 0; //!< control frames forwarded
    uint64_t marked = 0;           //!< ECN marks
    uint64_t dataFrameHops = 0;    //!< data frames put on a link (retransmissions included)
    std::vector<std::pair<std::string, uint64_t>> dropList; //!< drops by reason
    std::string accounting; //!< the first switch accounting failure ("": none)

    /// \return the totals of `fabric`
    static FabricTotals Of(const Fabric& fabric);
};

/**
 * \ingroup rdma-cc
 * The bottleneck queue and the goodput at its receiver.
 */
struct BottleneckFigures
{
    uint64_t qMax = 0;        //!< exact maximum over the run (bytes)
    uint64_t qStable = 0;     //!< exact maximum after every first RTT (bytes)
    double qAvg = 0;          //!< time average (bytes)
    double goodputActive = 0; //!< bit/s while every flow is active past its first RTT
    double span = 0;          //!< seconds goodputActive was measured over (0: none)
    double wireLimit = 0;     //!< payload bit/s the receiver's link carries at most
};

/**
 * \ingroup rdma-cc
 * \return the first failure of the per-flow invariants of flow `f` (with its idealFct), empty
 *         when they hold: delivered bytes within the size (all of it when finished), a READ's
 *         request within [post, finish], and an FCT not below the lower bound. A run reports
 *         the first failure of its flows in flow-id order.
 */
std::string FlowInvariantFailure(const FlowRecord& f);

/**
 * \ingroup rdma-cc
 * Adds to `inv` the invariants of the bottleneck: no congestion collapse (the buffer pinned
 * at `bufMax` while under 10 % of the wire limit arrives), and goodput within the wire limit
 * (plus one payload of `mtu` bytes per measured interval).
 */
void CheckBottleneckInvariants(Invariants& inv,
                               const BottleneckFigures& b,
                               uint64_t bufMax,
                               uint64_t mtu);

/**
 * \ingroup rdma-cc
 * \return summary.json's `fct_by_class`: per class of `order` (flows whose `classOf[flow id]`
 *         names it), then `all`; appends its stdout table to `table`
 */
JsonObject FctByClass(const FlowColumns& flows,
                      const std::vector<std::string>& classOf,
                      const std::vector<std::string>& order,
                      std::vector<std::string>& table);

/**
 * \ingroup rdma-cc
 * \return summary.json's `fct_by_size` (RCM, NPC 2017, Fig. 9: all, mice below 1 MB, medium,
 *         elephants above 10 MB); appends its stdout table to `table`
 */
JsonObject FctBySize(const FlowColumns& flows, std::vector<std::string>& table);

/**
 * \ingroup rdma-cc
 * What the summary table of a run prints (PrintRunTable).
 */
struct RunReport
{
    std::string name;             //!< example
    std::string caseName;         //!< case of a run of several ("": none)
    std::string cc;               //!< scheme
    std::string fabric;           //!< the fabric in words
    std::string out;              //!< output directory
    uint64_t flows = 0;           //!< flows of the run
    uint64_t kMin = 0;            //!< effective K_min
    uint64_t kMax = 0;            //!< effective K_max
    double pMax = 0;              //!< effective P_max
    uint64_t kFs = 0;             //!< effective K_fs
    bool lossless = false;        //!< PFC on
    int64_t stableFromUs = 0;     //!< when every first RTT was over (us)
    uint64_t stableDrops = 0;     //!< data frames dropped after the first RTT
    uint64_t firstRttDrops = 0;   //!< in the first RTT
    uint64_t pauses = 0;          //!< PFC PAUSE frames
    double wall = 0;              //!< wall-clock seconds
    uint64_t events = 0;          //!< simulator events
    bool buckets = false;         //!< buckets.csv was written
    FlowTotals totals;            //!< the flow records summed
    FabricTotals fabricTotals;    //!< the switches' counters summed
    BottleneckFigures bottleneck; //!< the bottleneck
};

/**
 * \ingroup rdma-cc
 * Prints the summary table of run `r` on stdout, `verdict` its invariants' and `tables` the
 * lines of its reports by size and class; with `quiet`, one line instead.
 */
void PrintRunTable(const RunReport& r,
                   const std::string& verdict,
                   const std::vector<std::string>& tables,
                   bool quiet);

} // namespace rdmacc
} // namespace ns3

#endif /* SCENARIO_RESULTS_H */
