/*
 * rdma-cc: the shared writer of per-flow results (fct.csv) and FCT statistics, so that every
 * example writes the same formats.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_RESULTS_H
#define FLOW_RESULTS_H

#include "rdma-cc-output.h"

#include "ns3/rdma-nic.h"

#include <functional>
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
    /// \return the JSON object {avg, p50, p95, p99, max}
    JsonObject ToJson() const;
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

    /// \return the figures of the flows of `flows` for which `in` holds
    static ClassFigures Of(const std::vector<FlowRecord>& flows,
                           const std::function<bool(const FlowRecord&)>& in);
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
 * Writes `fct.csv`: header `flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,
 * slowdown,retx_bytes,scheme`, one row per flow in flow-id order; unfinished flows have empty
 * finish_ns, fct_ns and slowdown. With `classOf` (a class name per flow id, e.g. from
 * RdmaScenario::SetFlowClasses) a last column `class` names each flow's. Written as
 * fct.csv.partial and renamed when complete.
 */
void WriteFctCsv(const std::string& path,
                 const std::vector<FlowRecord>& flows,
                 const std::vector<std::string>* classOf = nullptr);

/**
 * \ingroup rdma-cc
 * Writes `buckets.csv`: the FCT slowdowns of `flows` per flow-size bucket (Rust
 * `rdma_cc_workload::slowdown_buckets`: < 10 KB, 10-100 KB, 100 KB-1 MB, 1-10 MB, >= 10 MB,
 * decimal units; nearest-rank percentiles of the finished flows), header
 * `bucket,min_bytes,max_bytes,flows,unfinished,avg,p50,p95,p99,max` (max_bytes: the first size
 * above the bucket, empty for the last), one row per bucket.
 * \param path the file
 * \param flows the flows (with their ideal FCTs)
 * \param table filled with the lines of a table for stdout
 * \return the same statistics as a JSON object keyed by the bucket labels
 */
JsonObject WriteSlowdownBuckets(const std::string& path,
                                const std::vector<FlowRecord>& flows,
                                std::vector<std::string>& table);

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

} // namespace rdmacc
} // namespace ns3

#endif /* FLOW_RESULTS_H */
