/*
 * rdma-cc: the workload layer of the RDMA examples: a topology (a file of the HPCC simulator
 * or a k-ary fat tree, both as an HpccTopology) built as an RdmaScenario's fabric, and flows
 * from a flow file or from the Poisson generator (rdma-cc-workload, through the bridge).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WORKLOAD_HELPER_H
#define WORKLOAD_HELPER_H

#include "hpcc-files.h"
#include "rdma-cc-options.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RdmaScenario;

namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Sets the defaults of --rate and --delay to the rate and delay of the link of the topology's
 * lowest-numbered host (before Parse): the marking's automatic starting point follows them.
 */
void DefaultLinkOf(Options& opts, const HpccTopology& topology);

/**
 * \ingroup rdma-cc
 * Builds `topology` as the fabric of `sc` (after Parse) with FabricHelper::FromTopology: the
 * switch options are checked on every switch with its own links (labelled "switch ID of
 * NAME"), the fabric is described as "NAME (H hosts, S switches, L links)".
 */
void BuildTopology(RdmaScenario& sc, const HpccTopology& topology, const std::string& name);

/**
 * \ingroup rdma-cc
 * Splits `topology` among `ranks` processes (distributed runs): the hosts in node-id order into
 * `ranks` equal runs (a fat tree's pods, whose hosts are numbered together), a switch with
 * hosts goes with its lowest-numbered host, a switch linked to such a switch with the
 * lowest-numbered of those (a pod's aggregation switches), the other switches (a fat tree's
 * cores) in equal runs by node id.
 * \return the rank of node i at i
 */
std::vector<uint32_t> PartitionTopology(const HpccTopology& topology, uint32_t ranks);

/**
 * \ingroup rdma-cc
 * Adds the first `n` flows of `flows` (a flow file of `sc`'s topology, ids mapped through
 * Fabric::hostOfFileId), each at its own start time and on the data priority (traffic class)
 * of the file's priority column. `path` is the file's name (kept for callers).
 */
void AddFileFlows(RdmaScenario& sc,
                  const std::vector<HpccFlow>& flows,
                  size_t n,
                  const std::string& path);

/**
 * \ingroup rdma-cc
 * The Poisson flow generator's settings (Rust `rdma_cc_workload::GeneratorConfig`; the
 * checks and their messages are Rust's, naming fat-tree-workload's options).
 */
struct GeneratorSettings
{
    std::string cdfPath;        //!< flow-size CDF file
    std::string cdfOption;      //!< the option that named it (for a file that cannot be read)
    std::string pattern;        //!< uniform, group, hotspot or incast
    double load = 0;            //!< offered payload load, fraction of a host's link rate
    Time start;                 //!< first instant of the arrivals
    Time duration;              //!< arrivals in [start, start + duration)
    uint64_t seed = 1;          //!< the generator's seed
    uint32_t group = 0;         //!< group: hosts per group
    double hotspotTraffic = 0;  //!< hotspot: share of flows to the hot hosts
    double hotspotHosts = 0;    //!< hotspot: share of the hosts that are hot
    uint32_t incastSenders = 0; //!< incast: senders
    double readFraction = 0;    //!< probability that a flow is a READ (0: every flow a WRITE)
    /// traffic classes PRIORITY:SHARE,... (each flow drawn into one, a draw of its own per
    /// flow: the flows themselves stay as they were); "none": every flow on the NICs' priority
    std::string classes = "none";
};

/**
 * \ingroup rdma-cc
 * What the generator made and added.
 */
struct GeneratedWorkload
{
    uint64_t flows = 0;                  //!< flows added
    uint64_t bytes = 0;                  //!< their payload bytes
    std::vector<uint64_t> hotHosts;      //!< hotspot: hot host indexes
    std::vector<uint64_t> incastSenders; //!< incast: sender host indexes
    int64_t incastReceiver = -1;         //!< incast: the receiver's host index (else -1)
    double meanBytes = 0;                //!< the CDF's mean size (bytes)
    double offeredLoad = 0;              //!< the realised load (Rust Workload::offered_load)
    uint32_t firstFlowId = 0;            //!< flow id of the first flow added
    uint64_t reads = 0;                  //!< READ flows among them
    std::vector<uint32_t> dstHosts;      //!< destination host index of each flow, in order
};

/**
 * \ingroup rdma-cc
 * Generates flows for the hosts of `sc`'s fabric (after it is built; each host's rate is its
 * link's) and adds them. A CDF file that cannot be read or parsed, or a bad setting, stops the
 * program (exit 2) with one line naming the file and line, or the option.
 */
GeneratedWorkload AddGeneratedFlows(RdmaScenario& sc, const GeneratorSettings& settings);

/**
 * \ingroup rdma-cc
 * ldcp-churn, before its short flows are drawn (bounded work, no empty run): stops the program
 * (exit 2, one line naming the option and the estimate) when the expected arrivals exceed the
 * workload crate's MAX_EXPECTED_FLOWS, or when no flow at all would run (Rust
 * `churn_arrivals_check`).
 * \param longFlows the long flows
 * \param load the short flows' load, a fraction of `capacityBps`
 * \param capacityBps the bottleneck's payload bit/s
 * \param meanBytes the short flows' mean size
 * \param churn the arrival window
 * \param churnText --churn as written
 */
void CheckChurnArrivals(uint64_t longFlows,
                        double load,
                        double capacityBps,
                        double meanBytes,
                        Time churn,
                        const std::string& churnText);

/**
 * \ingroup rdma-cc
 * ldcp-churn, after drawing: stops the program (exit 2) when no flow was made.
 * \param longFlows the long flows
 * \param shortFlows the short flows drawn
 * \param churnText --churn as written
 */
void CheckChurnFlows(uint64_t longFlows, uint64_t shortFlows, const std::string& churnText);

/**
 * A flow-size CDF file, read and checked once (a bad file stops the run: exit 2, one line
 * naming the file, the line and the field; a missing file names `option`).
 */
class SizeCdf
{
  public:
    /// Reads and checks `path` (`option` names it in errors, e.g. `--cdf`).
    SizeCdf(const std::string& path, const std::string& option);
    /// \return the mean message size, bytes
    double MeanBytes() const;
    /// \return `n` sizes drawn from the CDF with random numbers seeded by `seed`
    std::vector<uint64_t> Sample(uint64_t n, uint64_t seed) const;

  private:
    std::string m_path; //!< the file
    std::string m_text; //!< its text
    double m_mean;      //!< its mean size
};

} // namespace rdmacc
} // namespace ns3

#endif /* WORKLOAD_HELPER_H */
