/*
 * rdma-cc: the command line of a workload run (fat-tree-workload): the topology (a k-ary fat
 * tree or a topology file) and the flows (the Poisson generator or a flow file) chosen by
 * options, on the workload layer of workload-helper.h.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WORKLOAD_OPTIONS_H
#define WORKLOAD_OPTIONS_H

#include "hpcc-files.h"
#include "rdma-cc-options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RdmaScenario;

namespace rdmacc
{

class JsonObject;

/**
 * \ingroup rdma-cc
 * Declares the topology's options: the fat tree's (--k, --oversub, --fabricRate, --fabricDelay,
 * --aggRate, --aggDelay, --coreRate, --coreDelay) and --topology (a file instead).
 */
void DeclareTopologyOptions(Options& opts);

/**
 * \ingroup rdma-cc
 * Declares the flows' options: --flows and --maxFlows (a flow file), the generator's (--load,
 * --cdf, --pattern, --duration, --group, --hotspotTraffic, --hotspotHosts, --incastSenders).
 */
void DeclareFlowOptions(Options& opts);

/**
 * \ingroup rdma-cc
 * The topology the options chose (after Parse).
 */
struct ChosenTopology
{
    HpccTopology topology; //!< the fat tree, or the file's topology
    std::string path;      //!< --topology ("none": the fat tree)
    std::string name;      //!< the file, or "fat tree k=K"
    uint32_t k = 0;        //!< fat tree: --k
    double oversub = 1;    //!< fat tree: the edge switches' oversubscription

    /// \return whether it is the fat tree
    bool FatTree() const;
};

/**
 * \ingroup rdma-cc
 * Stops the program (exit 2, one line naming the option) when an option of the source of flows
 * or of the topology that was not chosen was given (a generator option with --flows, --maxFlows
 * without, a fat tree option with --topology), or both --oversub and --fabricRate.
 */
void RefuseUnusedWorkloadOptions(const Options& opts);

/**
 * \ingroup rdma-cc
 * Makes the fat tree of the options (each tier's rate and delay: its own option, else
 * --fabricRate (else --rate / --oversub) and --fabricDelay (else --delay)) or reads --topology.
 * A fabric rate below 1 bit/s stops the program (exit 2).
 */
ChosenTopology TopologyFromOptions(const Options& opts);

/**
 * \ingroup rdma-cc
 * Adds the flows the options ask for to `sc` (its fabric built): the first --maxFlows of
 * `fileFlows` (read from --flows), or the generator's flows; records where they come from in
 * `extra` (and with --pattern=hotspot the hot hosts, the flows' classes hot and background; with
 * --pattern=incast the receiver and the senders, by node id).
 */
void AddFlowsFromOptions(RdmaScenario& sc,
                         const std::vector<HpccFlow>& fileFlows,
                         JsonObject& extra);

/**
 * \ingroup rdma-cc
 * \return the data bytes each core switch of a k-ary fat tree's fabric sent (the cores are its
 * first (k/2)^2 switches)
 */
std::vector<uint64_t> CoreDataBytes(const RdmaScenario& sc, uint32_t k);

} // namespace rdmacc
} // namespace ns3

#endif /* WORKLOAD_OPTIONS_H */
