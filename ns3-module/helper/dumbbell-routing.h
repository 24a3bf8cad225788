/*
 * rdma-cc: IPv4 routing of a dumbbell's two routers by address arithmetic, the interface
 * set-up of its /30 links (red-ecn-dumbbell: thousands of sender/receiver pairs, where ns-3's
 * static routing and address helper cost time quadratic in the links), and the dumbbell built
 * on them (DumbbellNetwork).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DUMBBELL_ROUTING_H
#define DUMBBELL_ROUTING_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 * Routing of a dumbbell router. Its host links are the /30 networks numbered from `near`
 * (link i: host .1, router .2), everything under `far` (the other side's /9) is behind the
 * core link. The output interface is computed from the destination address: constant time per
 * packet and nothing to build, where ns-3's static routing keeps one route per link, scans
 * them for every packet and for every route added (time quadratic in the links to set up).
 */
class DumbbellRouting : public Ipv4RoutingProtocol
{
  public:
    /// \return the TypeId
    static TypeId GetTypeId();

    /**
     * \param nearBase first address of the router's host links
     * \param linkIf interface of each host link, by link number
     * \param farBase first address of the other side's /9
     * \param coreIf interface of the core link
     * \param coreGateway the other router's address on the core link
     */
    void Configure(Ipv4Address nearBase,
                   std::vector<uint32_t> linkIf,
                   Ipv4Address farBase,
                   uint32_t coreIf,
                   Ipv4Address coreGateway);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;

    // ns-3 passes RouteInput's callbacks by value up to some release and by const reference
    // after (3.37 and 3.44 differ); both overloads are declared, so whichever the installed
    // ns-3 declares pure virtual is overridden, with no version test
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb); // NOLINT: overrides in releases with by-value callbacks
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    const UnicastForwardCallback& ucb,
                    const MulticastForwardCallback& mcb,
                    const LocalDeliverCallback& lcb,
                    const ErrorCallback& ecb); // overrides in releases with const references

    void NotifyInterfaceUp(uint32_t) override;
    void NotifyInterfaceDown(uint32_t) override;
    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override;
    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit) const override;

  private:
    /// Both RouteInput overloads.
    bool Input(Ptr<const Packet> p,
               const Ipv4Header& header,
               Ptr<const NetDevice> idev,
               const UnicastForwardCallback& ucb,
               const LocalDeliverCallback& lcb,
               const ErrorCallback& ecb);
    /// \return the route to `dst`, or null
    Ptr<Ipv4Route> Lookup(Ipv4Address dst) const;

    Ptr<Ipv4> m_ipv4;               //!< the router's IPv4
    Ipv4Address m_near;             //!< first address of the host links
    std::vector<uint32_t> m_linkIf; //!< interface of each host link
    Ipv4Address m_far;              //!< first address of the other side
    uint32_t m_coreIf = 0;          //!< core interface
    Ipv4Address m_coreGateway;      //!< the other router on the core link
};

/**
 * \ingroup rdma-cc
 * Gives each router a DumbbellRouting (configured once the links exist).
 */
class DumbbellRoutingHelper : public Ipv4RoutingHelper
{
  public:
    DumbbellRoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node>) const override;
};

namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Gives `dev` an IPv4 interface with address `a`/30, as Ipv4AddressHelper::Assign does
 * (including ns-3's default root queue disc on a device that has none), without its address
 * registry, whose duplicate check costs time linear in the addresses already given.
 * \return the interface index
 */
uint32_t AddInterface(Ptr<NetDevice> dev, Ipv4Address a);

/// \return the `k`-th address of the `link`-th /30 network from `base`
Ipv4Address LinkAddress(Ipv4Address base, uint64_t link, uint32_t k);

/**
 * \ingroup rdma-cc
 * A dumbbell of ns-3 point-to-point links, IPv4 only: N senders -> router R1 -> bottleneck ->
 * router R2 -> N receivers. Each sender-receiver pair's links sit on their own /30 (host .1,
 * router .2), the senders' in 10.0.0.0/9 and the receivers' in 10.128.0.0/9, the bottleneck on
 * 192.168.0.0/30. A host has one default route (ns-3's static routing); a router computes its
 * routes from the addresses (DumbbellRouting): ns-3's global routing computes routes between all
 * pairs of nodes, in time quadratic in the nodes.
 */
class DumbbellNetwork
{
  public:
    /// Creates the senders, the receivers and the two routers, with their IPv4 stacks.
    explicit DumbbellNetwork(uint32_t pairs);
    /**
     * Links R1 to R2, with a device queue of one packet so that the queue builds in the queue
     * disc of R1's device (install it before AddAccessLinks).
     * \return the bottleneck's devices, R1's first
     */
    NetDeviceContainer AddBottleneck(uint64_t rateBps, Time delay);
    /// Links each sender to R1 and each receiver to R2, numbers every link and sets the routes.
    void AddAccessLinks(uint64_t rateBps, Time delay);

    NodeContainer senders;                    //!< sender i sends to receiver i
    NodeContainer receivers;                  //!< the receivers
    NodeContainer routers;                    //!< R1, R2
    std::vector<Ipv4Address> receiverAddress; //!< receiver i's address (after AddAccessLinks)

  private:
    NetDeviceContainer m_core; //!< the bottleneck's devices
};

} // namespace rdmacc
} // namespace ns3

#endif /* DUMBBELL_ROUTING_H */
