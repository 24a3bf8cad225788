/*
 * rdma-cc: the shared writers of results: summary.json (SummaryWriter: the keys every example's
 * summary has), per-flow results (fct.csv) and FCT statistics, so that every example writes the
 * same formats.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_RESULTS_H
#define FLOW_RESULTS_H

#include "rdma-cc-output.h"

#include "ns3/rdma-nic.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Percentiles of a sample (nearest rank; 0 for an empty sample).
 */
struct Percentiles
{
    double avg = 0; //!< mean
    double p50 = 0; //!< median
    double p95 = 0; //!< 95th percentile
    double p99 = 0; //!< 99th percentile
    double max = 0; //!< largest
    size_t n = 0;   //!< sample size

    /// \return the statistics of `v`
    static Percentiles Of(std::vector<double> v);
    /**
     * \return the `percent`-th percentile by floor rank of samples kept as a histogram (value ->
     *         how many times it was seen): the sample at 0-based rank min(n - 1, floor(n *
     *         percent / 100)) of the sorted samples, as sorting every sample would give it; 0
     *         without samples (Rust's rdma_cc_workload::histogram_floor_rank)
     */
    static uint64_t OfHistogram(const std::map<uint64_t, uint64_t>& histogram, uint64_t percent);
    /// \return the JSON object {avg, p50, p95, p99, max}
    JsonObject ToJson() const;
};

/**
 * \ingroup rdma-cc
 * What the statistics of a run need of each flow, by flow id, as compact columns (no
 * FlowRecord per flow): the sizes, lower bounds and priorities the flows were added with (the
 * scenario's own arrays, not copied) and each flow's FCT.
 */
struct FlowColumns
{
    /// fct's value of an unfinished flow
    static constexpr int64_t UNFINISHED = std::numeric_limits<int64_t>::min();

    const std::vector<uint64_t>* size = nullptr;    //!< message bytes, by flow id
    const std::vector<int64_t>* ideal = nullptr;    //!< FCT lower bound (time step), by flow id
    const std::vector<uint8_t>* priority = nullptr; //!< data priority, by flow id
    std::vector<int64_t> fct;                       //!< FCT ns (finish - start), or UNFINISHED

    /// \return the number of flows
    size_t
    Flows() const
    {
        return fct.size();
    }

    /// \return whether flow `id` finished
    bool
    Done(size_t id) const
    {
        return fct[id] != UNFINISHED;
    }

    /// \return whether flow `id` has a slowdown: finished, with a positive lower bound
    bool
    HasSlowdown(size_t id) const
    {
        return Done(id) && TimeStep((*ideal)[id]).IsStrictlyPositive();
    }

    /// \return flow `id`'s slowdown, FCT / lower bound (HasSlowdown)
    double
    Slowdown(size_t id) const
    {
        return double(fct[id]) / TimeStep((*ideal)[id]).GetNanoSeconds();
    }

    /// \return fct's value for record `r`: its FCT in ns, or UNFINISHED
    static int64_t FctOf(const FlowRecord& r);
};

/**
 * \ingroup rdma-cc
 * The figures of a class of flows (e.g. the hot flows of a hot-spot workload, or the flows
 * below 1 MB): how many, how many unfinished, their bytes, and over the finished ones the FCT
 * (ns) and each flow's mean throughput (size x 8 / FCT, bit/s).
 */
struct ClassFigures
{
    size_t flows = 0;       //!< flows of the class
    size_t unfinished = 0;  //!< of which not finished
    uint64_t bytes = 0;     //!< their message bytes
    Percentiles fct;        //!< FCT, ns (finished flows)
    Percentiles throughput; //!< size x 8 / FCT, bit/s (finished flows)

    /// \return the figures of the flows of `flows` whose flow id `in` holds for
    static ClassFigures Of(const FlowColumns& flows, const std::function<bool(size_t)>& in);
    /// \return the JSON object {flows, unfinished, bytes, fct_ns, throughput_bps}
    JsonObject ToJson() const;
};

/**
 * \ingroup rdma-cc
 * The lines of a table of classes for stdout: `title` over one row per class (flows,
 * unfinished, FCT avg and p99 in us, mean throughput in Gb/s).
 */
std::vector<std::string> ClassTable(const std::string& title,
                                    const std::vector<std::string>& names,
                                    const std::vector<ClassFigures>& figures);

/**
 * \ingroup rdma-cc
 * Writes `buckets.csv`: the FCT slowdowns of `flows` per flow-size bucket (Rust
 * `rdma_cc_workload::slowdown_buckets`: < 10 KB, 10-100 KB, 100 KB-1 MB, 1-10 MB, >= 10 MB,
 * decimal units; nearest-rank percentiles of the finished flows), header
 * `bucket,min_bytes,max_bytes,flows,unfinished,avg,p50,p95,p99,max` (max_bytes: the first size
 * above the bucket, empty for the last), one row per bucket.
 * \param path the file
 * \param flows the flows
 * \param table filled with the lines of a table for stdout
 * \return the same statistics as a JSON object keyed by the bucket labels
 */
JsonObject WriteSlowdownBuckets(const std::string& path,
                                const FlowColumns& flows,
                                std::vector<std::string>& table);

/**
 * \ingroup rdma-cc
 * How a run ends (summary.json's `run_ends`).
 */
enum class RunEnds
{
    FlowsDone, //!< "flows_done": when every flow is done (or, failing, at --limit)
    Duration,  //!< "duration": after a fixed simulated time, flows still sending are expected
};

/**
 * \ingroup rdma-cc
 * The one writer of summary.json, used by every example. Every summary has the shared keys,
 * with one meaning and unit wherever they appear (README "Outputs: the keys every
 * summary.json has"):
 *
 *   example, scheme, seed                    the constructor
 *   sim_time_ns, wall_s, events              Run()
 *   complete, run_ends                       Ending()
 *   bytes_sent, bytes_delivered              Bytes()
 *   drops (by reason, packets), drops_total  Drops()
 *   wire_limit_bps                           WireLimit()
 *   marks                                    Marks()
 *   queue_max_bytes, queue_avg_bytes         Queue()
 *   invariants                               Write(), last
 *
 * and the example's own keys, added to Keys() between them, in the order the example wants.
 * Write() stops the program (a programming error) if a shared key is missing or a key repeats.
 */
class SummaryWriter
{
  public:
    /**
     * Starts the summary with the run's identity.
     * \param example the example's name (e.g. "ldcp-incast")
     * \param scheme the senders' congestion control: --cc of the RDMA examples, "none" for
     *        senders without one, "tcp-dctcp" for ns-3's TcpDctcp
     * \param seed the run number (--seed)
     */
    SummaryWriter(const std::string& example, const std::string& scheme, uint64_t seed);

    /// \return the object, to add the example's own keys at the current position
    JsonObject& Keys();
    /// sim_time_ns (simulated time at the end), wall_s (wall-clock seconds of the run, the
    /// only key that varies between runs of the same seed), events (simulator events run)
    SummaryWriter& Run(uint64_t simTimeNs, double wallS, uint64_t events);
    /// complete (every flow finished: its last byte acknowledged, or for raw senders every
    /// byte delivered or dropped), run_ends (what ends the run)
    SummaryWriter& Ending(bool complete, RunEnds ends);
    /// bytes_sent (payload bytes the senders had to send, or their applications handed to
    /// their sockets), bytes_delivered (payload bytes the receivers got, in order)
    SummaryWriter& Bytes(uint64_t sent, uint64_t delivered);
    /// drops (object: packets dropped by reason, every reason listed, in its order) and
    /// drops_total (their sum)
    SummaryWriter& Drops(const std::vector<std::pair<std::string, uint64_t>>& byReason);
    /// wire_limit_bps: the most payload bit/s the bottleneck link carries, its rate x payload /
    /// (payload + the bytes each packet adds on that link's wire), at the largest payload
    SummaryWriter& WireLimit(double bps);
    /// marks: packets marked CE (ECN) by the switches or queue discs
    SummaryWriter& Marks(uint64_t marks);
    /// queue_max_bytes (the bottleneck queue's exact maximum, every change counted, not only
    /// the samples), queue_avg_bytes (the mean of its samples, one every --sample)
    SummaryWriter& Queue(uint64_t maxBytes, double avgBytes);
    /**
     * Appends invariants (ok, or the failures) and writes the summary to `path` (atomically).
     * Stops the program if a shared key is missing or a key appears twice.
     */
    void Write(const std::string& path, const Invariants& inv);

    /// \return the keys every summary.json has, in the order Write() expects them
    static const std::vector<std::string>& SharedKeys();

  private:
    JsonObject m_obj; //!< the summary so far
};

/**
 * \return Jain's fairness index of `x`, (sum x)^2 / (n sum x^2): 1 when every value is equal,
 *         1/n when one takes everything (R. Jain, D. Chiu, W. Hawe, DEC-TR-301, 1984); 0 for
 *         an empty or all-zero sample
 */
double JainIndex(const std::vector<double>& x);

/// \return the FCTs (ns) of the finished flows
std::vector<double> Fcts(const std::vector<FlowRecord>& flows);
/// \return the slowdowns (fct / ideal fct) of the finished flows
std::vector<double> Slowdowns(const std::vector<FlowRecord>& flows);
/// \return the FCTs (ns) of the finished flows, in flow-id order
std::vector<double> Fcts(const FlowColumns& flows);
/// \return the slowdowns (fct / ideal fct) of the finished flows with a lower bound, in
///         flow-id order (those whose flow id `in` holds for, when given)
std::vector<double> Slowdowns(const FlowColumns& flows,
                              const std::function<bool(size_t)>& in = nullptr);

} // namespace rdmacc
} // namespace ns3

#endif /* FLOW_RESULTS_H */
