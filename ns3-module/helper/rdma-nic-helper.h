/*
 * rdma-cc: RdmaNicHelper installs an RdmaNic on every host of a fabric, the way ns-3's helpers
 * install protocol stacks, and adds flows between them with the path's base RTT.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_NIC_HELPER_H
#define RDMA_NIC_HELPER_H

#include "fabric-helper.h"

#include "ns3/attribute.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/rdma-nic.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Creates one ns3::RdmaNic per host of a Fabric (FabricHelper), attaches it to the host's
 * QbbNetDevice and aggregates it to the host's node, as ns-3's stack helpers do. Attributes set
 * with SetNicAttribute (any attribute of ns3::RdmaNic: "Scheme", "Alpha", "Priority", ...) are
 * given to every NIC created afterwards; Config::SetDefault works too.
 *
 * \code
 *   FabricHelper fabricHelper;
 *   Fabric fabric = fabricHelper.SingleSwitch(17);
 *   RdmaNicHelper nicHelper;
 *   nicHelper.SetNicAttribute("Scheme", StringValue("dcqcn"));
 *   nicHelper.Install(fabric);
 *   nicHelper.AddFlow(fabric, 1, 0, 262144, Seconds(0));
 * \endcode
 */
class RdmaNicHelper
{
  public:
    RdmaNicHelper();

    /**
     * Sets an attribute of every NIC installed afterwards.
     * \param name an attribute of ns3::RdmaNic
     * \param value its value (checked by the attribute's own rule)
     */
    void SetNicAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Installs a NIC on one host.
     * \param device the host's QbbNetDevice (its only port)
     * \return the NIC, aggregated to the device's node
     */
    Ptr<RdmaNic> Install(Ptr<QbbNetDevice> device) const;

    /**
     * Installs a NIC on every host of a fabric, in host order.
     * \param fabric a fabric built by FabricHelper
     * \return the NICs: element i is host i's
     */
    std::vector<Ptr<RdmaNic>> Install(const Fabric& fabric);

    /// \return the NICs installed by Install(fabric), host i's at i
    const std::vector<Ptr<RdmaNic>>& GetNics() const;

    /**
     * Adds a flow between two hosts of the fabric whose NICs this helper installed. The base
     * RTT, whether the flow's data priority is lossless (every switch on its path pauses the
     * NIC's Priority), the longest a packet can queue and the INT hops come from the path.
     * \param fabric the fabric given to Install
     * \param srcHost the sender's host index
     * \param dstHost the receiver's host index
     * \param bytes message bytes (> 0)
     * \param start start time
     * \return the flow id (0, 1, ... in the order of AddFlow)
     */
    uint32_t AddFlow(
        const Fabric& fabric, uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start);

    /**
     * \return the most payload bit/s host `host`'s link carries with the NICs' Mtu: its rate x
     *         payload / (payload + the RoCEv2 framing), summary.json's wire_limit_bps
     * \param fabric the fabric given to Install
     * \param host a host index
     */
    double WireLimitBps(const Fabric& fabric, uint32_t host) const;

  private:
    ObjectFactory m_factory;          //!< the NICs
    std::vector<Ptr<RdmaNic>> m_nics; //!< installed by Install(fabric)
    uint32_t m_nextFlowId;            //!< AddFlow
};

} // namespace ns3

#endif /* RDMA_NIC_HELPER_H */
