/*
 * rdma-cc: the links each flow's data frames take (ECMP picks one of the
 * shortest paths per flow), recorded from the switch ports' transmissions, so
 * that a test can compute each flow's max-min share from the outputs.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_LINK_LOG_H
#define FLOW_LINK_LOG_H

#include "fabric-helper.h"
#include "rdma-cc-output.h"

#include "ns3/packet.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * A link's name ("H<host>" for a host's own link, "S<switch index>:<port>" for
 * a switch port)
 * -> the flows that sent data on it. Every source host sends one flow.
 */
class FlowLinkLog
{
  public:
    /// Records flow `flowId` of host `host` (node id `node`): its own link
    /// carries it.
    void AddFlow(uint32_t host, uint32_t node, uint32_t flowId);
    /// Logs the data frames every port of every switch of `fabric` sends (after
    /// AddFlow).
    void Connect(const Fabric& fabric);
    /// \return every link with the flows on it (summary.json's `flows_on_link`)
    JsonObject ToJson() const;

  private:
    /// PhyTxBegin of port `port` of switch `sw` (its index in the fabric).
    void OnTx(uint32_t sw, uint32_t port, Ptr<const Packet> p);
    std::map<uint32_t, uint32_t> m_flowOfSrc;            //!< source node -> flow (one each)
    std::map<std::string, std::set<uint32_t>> m_flowsOn; //!< link -> flows
};

} // namespace rdmacc
} // namespace ns3

#endif /* FLOW_LINK_LOG_H */
