/*
 * rdma-cc: a queue disc watched: its byte count sampled into a CSV with exact statistics
 * (QueueSampler), and what it did counted from its trace sources (QueueDiscCounters), checked
 * against its own stats (CheckRedEcnAccounting). For programs on ns-3's traffic-control queue
 * discs (red-ecn-dumbbell's ns3::RedEcnQueueDisc).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QUEUE_DISC_MONITOR_H
#define QUEUE_DISC_MONITOR_H

#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * A queue disc, sampled every `every` into a CSV (`time_ns,bytes`, streamed: nothing is kept
 * per sample) and into exact running statistics. The maximum and the mean come from a running
 * maximum and a running sum. The p99 is exact too with bounded memory: a queue length is a
 * whole number of bytes in [0, BufMax], so counting the samples per distinct length (a map from
 * length to count) keeps the whole distribution; its size is the number of distinct lengths
 * seen, at most BufMax + 1 and in practice a few thousand (sums of a few packet sizes), never
 * the number of samples.
 */
class QueueSampler
{
  public:
    /// Creates the CSV as a partial file (stops with an error naming --out if it cannot).
    /// \param every sampling interval \param path the CSV (e.g. OUT/queue.csv)
    QueueSampler(Time every, const std::string& path);
    /// Samples `q` at `at`, then every interval.
    void Start(Ptr<QueueDisc> q, Time at);
    /// Completes the CSV (renamed from its partial name).
    void Finish();
    /// \return the number of samples
    uint64_t Samples() const;
    /// \return the largest sample
    uint64_t Max() const;
    /// \return the mean of the samples (0 without samples)
    double Mean() const;
    /**
     * \return the sample at rank min(n - 1, floor(n * 99 / 100)) (0-based) of the sorted
     * samples: the 99th percentile, exactly as sorting every sample would give it
     */
    uint64_t P99() const;

  private:
    void Sample();

    Ptr<QueueDisc> m_q;                   //!< sampled queue disc
    Time m_every;                         //!< sampling interval
    std::string m_path;                   //!< final name of the CSV
    std::ofstream m_csv;                  //!< the partial CSV
    uint64_t m_n = 0;                     //!< samples taken
    uint64_t m_sum = 0;                   //!< sum of the samples
    uint64_t m_max = 0;                   //!< largest sample
    std::map<uint64_t, uint64_t> m_count; //!< samples per queue length
};

/**
 * \ingroup rdma-cc
 * What a queue disc did, counted from its trace sources in 64 bits (ns-3's QueueDisc::Stats
 * counts packets in 32 bits, which a long run at a high rate wraps), and the exact peak of its
 * byte count.
 */
struct QueueDiscCounters
{
    uint64_t enqueued = 0;                              //!< packets enqueued
    uint64_t dequeued = 0;                              //!< packets dequeued
    uint64_t marks = 0;                                 //!< packets marked CE
    std::map<std::string, uint64_t, std::less<>> drops; //!< packets dropped, by reason
    uint64_t peakBytes = 0;                             //!< largest byte count at any instant

    /// Connects to `q`'s trace sources.
    void Connect(Ptr<QueueDisc> q);
    /// \return every drop
    uint64_t DropTotal() const;
    /// \return the drops of `reason`
    uint64_t Drops(const std::string& reason) const;

  private:
    static void OnEnqueue(QueueDiscCounters* self, Ptr<const QueueDiscItem>);
    static void OnDequeue(QueueDiscCounters* self, Ptr<const QueueDiscItem>);
    static void OnDrop(QueueDiscCounters* self, Ptr<const QueueDiscItem>, const char* reason);
    static void OnMark(QueueDiscCounters* self, Ptr<const QueueDiscItem>, const char*);
    static void OnBytes(QueueDiscCounters* self, uint32_t, uint32_t now);
};

class Invariants;

/**
 * \ingroup rdma-cc
 * \return the drops of `counted` (RedEcnQueueDisc's counters) by RedEcnQueueDisc's drop reasons,
 * in their order
 */
std::vector<std::pair<std::string, uint64_t>> RedEcnDropList(const QueueDiscCounters& counted);

/**
 * \ingroup rdma-cc
 * Checks a RedEcnQueueDisc's accounting after a run (QueueDisc::Stats): every packet received is
 * enqueued or dropped, every packet enqueued is dequeued or still queued, every drop has its
 * reason, and the trace counts in `counted` agree with the stats; packet counts are 32-bit in
 * ns-3, so they are compared with the 64-bit counts modulo 2^32. A failure goes to `inv`.
 */
void CheckRedEcnAccounting(Invariants& inv, Ptr<QueueDisc> red, const QueueDiscCounters& counted);

} // namespace rdmacc
} // namespace ns3

#endif /* QUEUE_DISC_MONITOR_H */
