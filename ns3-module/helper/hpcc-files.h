/*
 * rdma-cc: reads the HPCC simulator's topology and flow files (the text is parsed and checked
 * in Rust, rdma-cc-workload).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_FILES_H
#define HPCC_FILES_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 * One link of an HPCC topology file.
 */
struct HpccLink
{
    uint32_t a;       //!< one end: a node id of the file (`src`)
    uint32_t b;       //!< the other end (`dst`)
    uint64_t rateBps; //!< rate, bit/s
    Time delay;       //!< one-way delay
    uint64_t line;    //!< the line of the file it is on
};

/**
 * \ingroup rdma-cc
 * A topology file of the HPCC simulator, checked (rdmacc::ReadHpccTopology). Node ids
 * `0..nodes`; `isSwitch[id]` for the switches (line 2 of the file), every other id is a host.
 */
struct HpccTopology
{
    uint32_t nodes = 0;             //!< number of nodes
    std::vector<uint32_t> switches; //!< the switch ids, in the file's order
    std::vector<bool> isSwitch;     //!< isSwitch[id]: node id is a switch (as `switches` says)
    std::vector<HpccLink> links;    //!< the links, in the file's order
};

/**
 * \ingroup rdma-cc
 * One flow of an HPCC flow file.
 */
struct HpccFlow
{
    uint32_t src;     //!< sending host (node id of the topology file)
    uint32_t dst;     //!< receiving host
    uint8_t priority; //!< the priority the file asks for (0-7): the flow's data priority
    uint16_t dport;   //!< the destination port the file gives (recorded)
    uint64_t bytes;   //!< message bytes (>= 1)
    Time start;       //!< start time
    uint64_t line;    //!< the line of the file it is on
    uint8_t op = 0;   //!< the operation (RdmaOp code; the optional seventh column, else WRITE)
};

namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * \return the whole text of file `path`, read as bytes and checked by Rust (the one reader of
 *         every example's input files: `read_text_file`). When it cannot be read or is not
 *         text, stops the program (exit 2) with one line: "configuration error in WHAT:
 *         invalid OPTION = PATH: is a directory, not a file" (missing, unreadable, a
 *         directory, too large, changed while read) or "...: PATH:3: invalid text = byte 0xFF
 *         at column 7: must be UTF-8 text ..." (invalid UTF-8, a byte-order mark, a NUL byte).
 * \param path the file
 * \param option the option that named it (e.g. "--topo")
 * \param what what the file is, for the message (e.g. "topology file")
 */
std::string ReadTextFile(const std::string& path,
                         const std::string& option,
                         const std::string& what);

/**
 * \ingroup rdma-cc
 * Reads and parses the HPCC topology file `path` (format and checks: README, `hpcc-run`; Rust
 * `rdma_cc_workload::Topology`: counts, ids, switch ids distinct, no self or duplicate link,
 * one link per host, error rate 0, connected). A bad file stops the program (exit 2) with one
 * line naming the file, the line, the field and the value: "configuration error in topology
 * file: fat-tree.txt:17: invalid rate = 100Gbs: must be ...".
 * \param path the file
 * \param option the option that named it, for a file that cannot be read
 * \return the topology
 */
HpccTopology ReadHpccTopology(const std::string& path, const std::string& option);

/**
 * \ingroup rdma-cc
 * Reads and parses the HPCC flow file `path` for `topology` (Rust
 * `rdma_cc_workload::parse_flows`: the count matches, src and dst are distinct hosts, priority
 * 0-7, dport 0-65535, bytes >= 1, start >= 0 s). A bad file stops the program (exit 2) with one
 * line naming the file, the line, the field and the value ("configuration error in flow file:
 * w.flows:12: invalid dst = 400: ...").
 * \param path the file
 * \param topology the topology the flows run on
 * \param option the option that named it, for a file that cannot be read
 * \return the flows, in file order
 */
std::vector<HpccFlow> ReadHpccFlows(const std::string& path,
                                    const HpccTopology& topology,
                                    const std::string& option);

/**
 * \ingroup rdma-cc
 * Rates and delays of the three tiers of a k-ary fat tree.
 */
struct FatTreeTiers
{
    uint64_t hostRateBps; //!< host-edge links
    uint64_t edgeRateBps; //!< edge-aggregation links
    uint64_t coreRateBps; //!< aggregation-core links
    Time hostDelay;       //!< host-edge links
    Time edgeDelay;       //!< edge-aggregation links
    Time coreDelay;       //!< aggregation-core links
};

/**
 * \ingroup rdma-cc
 * \return the k-ary fat tree (Rust `rdma_cc_workload::FatTreeSpec`) as a topology whose node
 *         ids and link order are those FabricHelper::FatTree creates, so FabricHelper::
 *         FromTopology builds the same fabric; a bad k stops the program (exit 2, "invalid
 *         --k = 3: ...")
 * \param k switch radix (even, at least 2)
 * \param tiers the rate and delay of each tier
 */
HpccTopology FatTreeTopology(uint32_t k, const FatTreeTiers& tiers);

} // namespace rdmacc
} // namespace ns3

#endif /* HPCC_FILES_H */
