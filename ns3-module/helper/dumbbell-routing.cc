/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dumbbell-routing.h"

#include "ns3/data-rate.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-interface-address.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/string.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/traffic-control-layer.h"

namespace ns3
{

TypeId
DumbbellRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RedEcnDumbbellRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<DumbbellRouting>();
    return tid;
}

void
DumbbellRouting::Configure(Ipv4Address nearBase,
                           std::vector<uint32_t> linkIf,
                           Ipv4Address farBase,
                           uint32_t coreIf,
                           Ipv4Address coreGateway)
{
    m_near = nearBase;
    m_linkIf = std::move(linkIf);
    m_far = farBase;
    m_coreIf = coreIf;
    m_coreGateway = coreGateway;
}

Ptr<Ipv4Route>
DumbbellRouting::RouteOutput(Ptr<Packet> p,
                             const Ipv4Header& header,
                             Ptr<NetDevice> oif,
                             Socket::SocketErrno& sockerr)
{
    Ptr<Ipv4Route> r = Lookup(header.GetDestination());
    sockerr = r ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return r;
}

bool
DumbbellRouting::RouteInput(
    Ptr<const Packet> p,
    const Ipv4Header& header,
    Ptr<const NetDevice> idev,
    UnicastForwardCallback ucb,
    MulticastForwardCallback mcb,
    LocalDeliverCallback lcb,
    ErrorCallback ecb) // NOLINT: overrides in ns-3 releases with by-value callbacks
{
    return Input(p, header, idev, ucb, lcb, ecb);
}

bool
DumbbellRouting::RouteInput(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            const UnicastForwardCallback& ucb,
                            const MulticastForwardCallback& mcb,
                            const LocalDeliverCallback& lcb,
                            const ErrorCallback& ecb) // overrides in releases with const references
{
    return Input(p, header, idev, ucb, lcb, ecb);
}

bool
DumbbellRouting::Input(Ptr<const Packet> p,
                       const Ipv4Header& header,
                       Ptr<const NetDevice> idev,
                       const UnicastForwardCallback& ucb,
                       const LocalDeliverCallback& lcb,
                       const ErrorCallback& ecb)
{
    const Ipv4Address dst = header.GetDestination();
    const int32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    for (uint32_t i = 0; i < m_ipv4->GetNAddresses(iif); i++)
    {
        if (m_ipv4->GetAddress(iif, i).GetLocal() == dst)
        {
            lcb(p, header, iif);
            return true;
        }
    }
    Ptr<Ipv4Route> r = Lookup(dst);
    if (!r)
    {
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    ucb(r, p, header);
    return true;
}

void
DumbbellRouting::NotifyInterfaceUp(uint32_t)
{
}

void
DumbbellRouting::NotifyInterfaceDown(uint32_t)
{
}

void
DumbbellRouting::NotifyAddAddress(uint32_t, Ipv4InterfaceAddress)
{
}

void
DumbbellRouting::NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress)
{
}

void
DumbbellRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

void
DumbbellRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit) const
{
    *stream->GetStream() << m_near << "/9 by link (" << m_linkIf.size() << " links), " << m_far
                         << "/9 via " << m_coreGateway << " on interface " << m_coreIf << "\n";
}

Ptr<Ipv4Route>
DumbbellRouting::Lookup(Ipv4Address dst) const
{
    static const Ipv4Mask slash9("255.128.0.0");
    uint32_t oif;
    Ipv4Address gateway = Ipv4Address::GetZero(); // on the link: the destination itself
    if (slash9.IsMatch(dst, m_near))
    {
        const uint32_t offset = dst.Get() - m_near.Get();
        if (offset / 4 >= m_linkIf.size() || offset % 4 != 1)
        {
            return nullptr;
        }
        oif = m_linkIf[offset / 4];
    }
    else if (slash9.IsMatch(dst, m_far) || dst == m_coreGateway)
    {
        oif = m_coreIf;
        gateway = dst == m_coreGateway ? gateway : m_coreGateway;
    }
    else
    {
        return nullptr;
    }
    Ptr<Ipv4Route> r = Create<Ipv4Route>();
    r->SetDestination(dst);
    r->SetSource(m_ipv4->GetAddress(oif, 0).GetLocal());
    r->SetGateway(gateway);
    r->SetOutputDevice(m_ipv4->GetNetDevice(oif));
    return r;
}

DumbbellRoutingHelper*
DumbbellRoutingHelper::Copy() const
{
    return new DumbbellRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
DumbbellRoutingHelper::Create(Ptr<Node>) const
{
    return CreateObject<DumbbellRouting>();
}

namespace rdmacc
{

uint32_t
AddInterface(Ptr<NetDevice> dev, Ipv4Address a)
{
    Ptr<Node> node = dev->GetNode();
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    const int32_t i = ipv4->AddInterface(dev);
    ipv4->AddAddress(i, Ipv4InterfaceAddress(a, Ipv4Mask("255.255.255.252")));
    ipv4->SetMetric(i, 1);
    ipv4->SetUp(i);
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    if (tc && !tc->GetRootQueueDiscOnDevice(dev))
    {
        if (Ptr<NetDeviceQueueInterface> ndqi = dev->GetObject<NetDeviceQueueInterface>())
        {
            TrafficControlHelper::Default(ndqi->GetNTxQueues()).Install(dev);
        }
    }
    return static_cast<uint32_t>(i);
}

Ipv4Address
LinkAddress(Ipv4Address base, uint64_t link, uint32_t k)
{
    return Ipv4Address(base.Get() + static_cast<uint32_t>(4 * link) + k);
}

DumbbellNetwork::DumbbellNetwork(uint32_t pairs)
{
    senders.Create(pairs);
    receivers.Create(pairs);
    routers.Create(2);
    InternetStackHelper hostStack;
    hostStack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    hostStack.SetIpv6StackInstall(false);
    hostStack.Install(senders);
    hostStack.Install(receivers);
    InternetStackHelper routerStack;
    routerStack.SetRoutingHelper(DumbbellRoutingHelper());
    routerStack.SetIpv6StackInstall(false);
    routerStack.Install(routers);
}

NetDeviceContainer
DumbbellNetwork::AddBottleneck(uint64_t rateBps, Time delay)
{
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateBps)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(delay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    m_core = bottleneck.Install(routers.Get(0), routers.Get(1));
    return m_core;
}

void
DumbbellNetwork::AddAccessLinks(uint64_t rateBps, Time delay)
{
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateBps)));
    access.SetChannelAttribute("Delay", TimeValue(delay));
    const Ipv4Address leftBase("10.0.0.0");
    const Ipv4Address rightBase("10.128.0.0");
    const Ipv4Address coreBase("192.168.0.0");
    const uint32_t r1Core = AddInterface(m_core.Get(0), LinkAddress(coreBase, 0, 1));
    const uint32_t r2Core = AddInterface(m_core.Get(1), LinkAddress(coreBase, 0, 2));
    Ipv4StaticRoutingHelper routing;
    const uint32_t pairs = senders.GetN();
    std::vector<uint32_t> r1If;
    std::vector<uint32_t> r2If;
    receiverAddress.reserve(pairs);
    r1If.reserve(pairs);
    r2If.reserve(pairs);
    for (uint32_t i = 0; i < pairs; i++)
    {
        NetDeviceContainer l = access.Install(senders.Get(i), routers.Get(0));
        const uint32_t li = AddInterface(l.Get(0), LinkAddress(leftBase, i, 1));
        r1If.push_back(AddInterface(l.Get(1), LinkAddress(leftBase, i, 2)));
        routing.GetStaticRouting(senders.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(LinkAddress(leftBase, i, 2), li);
        NetDeviceContainer r = access.Install(receivers.Get(i), routers.Get(1));
        const uint32_t ri = AddInterface(r.Get(0), LinkAddress(rightBase, i, 1));
        r2If.push_back(AddInterface(r.Get(1), LinkAddress(rightBase, i, 2)));
        routing.GetStaticRouting(receivers.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(LinkAddress(rightBase, i, 2), ri);
        receiverAddress.push_back(LinkAddress(rightBase, i, 1));
    }
    DynamicCast<DumbbellRouting>(routers.Get(0)->GetObject<Ipv4>()->GetRoutingProtocol())
        ->Configure(leftBase, std::move(r1If), rightBase, r1Core, LinkAddress(coreBase, 0, 2));
    DynamicCast<DumbbellRouting>(routers.Get(1)->GetObject<Ipv4>()->GetRoutingProtocol())
        ->Configure(rightBase, std::move(r2If), leftBase, r2Core, LinkAddress(coreBase, 0, 1));
}

} // namespace rdmacc
} // namespace ns3
