/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-helper.h"

#include "hpcc-files.h"
#include "rdma-cc-error.h"
#include "rdma-cc-log.h"
#include "rdma-cc-options.h"

#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/qbb-channel.h"
#include "ns3/roce-header.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/wire.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHelper");

/// The helper's egress policy (Rust RedEcnConfig), freed with its holder.
struct FabricHelper::Policy
{
    rust::Box<rdmacc_ffi::RedEcnParams> p = rdmacc_ffi::red_ecn_params_new();
};

FabricHelper::FabricHelper() :
    m_queuePrios(0xFF),
    m_policy(std::make_unique<Policy>()),
    m_printWarnings(true)
{
    NS_LOG_FUNCTION(this);
    rdmacc::SyncLog(); // the model's log gates follow the levels set so far
    m_switchFactory.SetTypeId("ns3::SwitchNode");
    m_deviceFactory.SetTypeId("ns3::QbbNetDevice");
    m_channelFactory.SetTypeId("ns3::QbbChannel");
}

FabricHelper::~FabricHelper() = default;

/**
 * While one of the helper's topologies is built (SingleSwitch, Dumbbell, Clos, FatTree,
 * FromTopology), no code of the caller runs between its Connects, so no attribute default can
 * change: NewDevice copies the first device the factory built instead of building each again.
 */
class FabricHelper::Building
{
  public:
    explicit Building(FabricHelper& h) :
        m_h(h)
    {
        m_h.m_building = true;
    }

    ~Building()
    {
        m_h.m_building = false;
        m_h.m_deviceLike = nullptr;
    }

    Building(const Building&) = delete;
    Building& operator=(const Building&) = delete;

  private:
    FabricHelper& m_h; //!< the helper
};

Ptr<QbbNetDevice>
FabricHelper::NewDevice()
{
    if (m_building && m_deviceLike)
    {
        return QbbNetDevice::CreateLike(*m_deviceLike);
    }
    Ptr<QbbNetDevice> d = m_deviceFactory.Create<QbbNetDevice>();
    if (m_building)
    {
        // a copy of it as it was built, before Connect sets its rate or attaches it
        m_deviceLike = QbbNetDevice::CreateLike(*d);
    }
    return d;
}

void
FabricHelper::SetSwitchAttribute(const std::string& n, const AttributeValue& v)
{
    m_switchFactory.Set(n, v);
}

void
FabricHelper::SetSwitchOptions(const rdmacc::Options& opts)
{
    m_switchOptions = &opts;
}

void
FabricHelper::SetDeviceAttribute(const std::string& n, const AttributeValue& v)
{
    m_deviceFactory.Set(n, v);
}

void
FabricHelper::SetChannelAttribute(const std::string& n, const AttributeValue& v)
{
    m_channelFactory.Set(n, v);
}

void
FabricHelper::SetQueuePriorities(uint8_t mask)
{
    m_queuePrios = mask;
}

void
FabricHelper::SetMarkedPriorities(uint8_t mask)
{
    m_markedPrios = mask;
}

void
FabricHelper::SetEcn(uint64_t kMin, uint64_t kMax, double pMax)
{
    m_policy->p->set_ecn(kMin, kMax, pMax);
}

void
FabricHelper::SetEcnMap(const std::string& map)
{
    try
    {
        rdmacc_ffi::ecn_map_lookup(map, 0);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("FabricHelper::SetEcnMap", e.what());
    }
    m_ecnMap = map;
}

void
FabricHelper::SetNotEct(rdmacc_ffi::NotEctMode mode, uint64_t kFs)
{
    try
    {
        m_policy->p->set_not_ect(mode, kFs);
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("FabricHelper::SetNotEct", e.what());
    }
}

void
FabricHelper::SetNodeRanks(std::vector<uint32_t> ranks)
{
#ifndef NS3_MPI
    if (!ranks.empty())
    {
        rdmacc::ConfigFatal("FabricHelper::SetNodeRanks",
                            "a distributed run needs an ns-3 built with MPI (./waf configure "
                            "--ns3=mpi)");
    }
#endif
    m_nodeRanks = std::move(ranks);
}

uint32_t
FabricHelper::NextRank() const
{
    const uint32_t id = NodeList::GetNNodes();
    return id < m_nodeRanks.size() ? m_nodeRanks[id] : 0;
}

Ptr<Node>
FabricHelper::AddHost()
{
    NS_LOG_FUNCTION(this);
    Ptr<Node> n = CreateObject<Node>(NextRank());
    m_hostIndex[n->GetId()] = m_fabric.hosts.GetN();
    m_fabric.hosts.Add(n);
    m_fabric.hostDevices.push_back(nullptr);
    NS_LOG_DEBUG("host " << m_fabric.hosts.GetN() - 1 << " is node " << n->GetId());
    return n;
}

Ptr<SwitchNode>
FabricHelper::AddSwitch()
{
    NS_LOG_FUNCTION(this);
    SwitchNode::SetNextSystemId(NextRank());
    Ptr<SwitchNode> s = m_switchFactory.Create<SwitchNode>();
    SwitchNode::SetNextSystemId(0);
    if (m_switchOptions)
    {
        m_switchOptions->ConfigureSwitch(*s);
    }
    m_fabric.switches.push_back(s);
    NS_LOG_DEBUG("switch " << m_fabric.switches.size() - 1 << " is node " << s->GetId());
    return s;
}

void
FabricHelper::Connect(Ptr<Node> a, Ptr<Node> b, DataRate rate, Time delay)
{
    NS_LOG_FUNCTION(this << a << b << rate << delay);
    Ptr<QbbChannel> ch;
#ifdef NS3_MPI
    if (a->GetSystemId() != b->GetSystemId())
    {
        // the attributes of the channel factory apply to the remote channel too
        ObjectFactory remote = m_channelFactory;
        remote.SetTypeId(QbbRemoteChannel::GetTypeId());
        ch = remote.Create<QbbChannel>();
    }
    else
#endif
    {
        ch = m_channelFactory.Create<QbbChannel>();
    }
    if (!delay.IsStrictlyNegative())
    {
        ch->SetAttribute("Delay", TimeValue(delay));
    }
    uint32_t ports[2];
    Ptr<Node> ends[2] = {a, b};
    for (int k = 0; k < 2; k++)
    {
        Ptr<QbbNetDevice> d = NewDevice();
        if (rate.GetBitRate() > 0)
        {
            d->SetAttribute("DataRate", DataRateValue(rate));
        }
        d->SetAddress(Mac48Address::Allocate());
        Ptr<SwitchNode> sw = DynamicCast<SwitchNode>(ends[k]);
        if (sw)
        {
            ports[k] = sw->AddPort(d);
        }
        else
        {
            // a host with a second link is reported at Finalize (a host has one port)
            ports[k] = ends[k]->AddDevice(d);
            auto host = m_hostIndex.find(ends[k]->GetId());
            if (host != m_hostIndex.end())
            {
                m_fabric.hostDevices[host->second] = d;
            }
        }
        d->Attach(ch);
    }
    Ptr<QbbNetDevice> d0 = DynamicCast<QbbNetDevice>(a->GetDevice(ports[0]));
    m_fabric.links.push_back(Fabric::Link{
        a->GetId(), ports[0], b->GetId(), ports[1], d0->GetDataRate(), ch->GetDelay()});
    NS_LOG_DEBUG("link: node " << a->GetId() << " port " << ports[0] << " <-> node " << b->GetId()
                               << " port " << ports[1] << ", " << d0->GetDataRate() << ", "
                               << ch->GetDelay().As(Time::NS));
}

Fabric
FabricHelper::Finalize()
{
    NS_LOG_FUNCTION(this);
    BuildTopology();
    m_warnings.clear();
    WarningsBySwitch byText; // warning, switch ids
    for (const auto& sw : m_fabric.switches)
    {
        sw->Setup(*m_fabric.topology);
        const auto [marking, minKMin] = SetPortPolicies(sw);
        CollectWarnings(sw, marking, minKMin, byText);
    }
    if (m_printWarnings)
    {
        PrintWarnings(byText);
    }
    NS_LOG_INFO("fabric: " << m_fabric.hosts.GetN() << " hosts, " << m_fabric.switches.size()
                           << " switches, " << m_fabric.links.size() << " links, routes computed");
    Fabric f = m_fabric;
    m_fabric = Fabric();
    m_hostIndex.clear();
    return f;
}

void
FabricHelper::BuildTopology()
{
    const uint32_t nNodes = NodeList::GetNNodes();
    if (nNodes >= (1u << 24))
    {
        rdmacc::ConfigFatal("FabricHelper::Finalize",
                            "too many nodes (" + std::to_string(nNodes) +
                                "): fabric addresses encode node ids in 24 bits");
    }
    rust::Box<rdmacc_ffi::Topology> topo = rdmacc_ffi::topology_new(nNodes);
    try
    {
        for (uint32_t i = 0; i < m_fabric.hosts.GetN(); i++)
        {
            topo->set_host(m_fabric.hosts.Get(i)->GetId());
        }
        for (const auto& l : m_fabric.links)
        {
            topo->add_link(l.a, l.aPort, l.b, l.bPort);
        }
        // one route table shared by every switch; rejects hosts without exactly one link
        topo->compute_routes();
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("FabricHelper::Finalize", e.what());
    }
    // shared by the fabric's copies: the holder owns the Box, the pointer aliases its Topology
    auto holder = std::make_shared<rust::Box<rdmacc_ffi::Topology>>(std::move(topo));
    m_fabric.topology = std::shared_ptr<rdmacc_ffi::Topology>(holder, &**holder);
}

std::pair<bool, uint64_t>
FabricHelper::SetPortPolicies(Ptr<SwitchNode> sw) const
{
    bool marking = false;
    uint64_t minKMin = UINT64_MAX;
    UintegerValue limit;
    sw->GetAttribute("EgressLimit", limit); // the switch's, read once (not per port)
    for (uint32_t port = 0; port < sw->GetNPorts(); port++)
    {
        // this port's policy: the helper's, with the thresholds of the port's speed if a
        // map gives them, limited by the switch's EgressLimit
        rust::Box<rdmacc_ffi::RedEcnParams> policy = m_policy->p->snapshot();
        if (!m_ecnMap.empty())
        {
            auto t =
                rdmacc_ffi::ecn_map_lookup(m_ecnMap, sw->GetPort(port)->GetDataRate().GetBitRate());
            if (t.found)
            {
                policy->set_ecn(t.k_min, t.k_max, t.p_max);
            }
        }
        policy->set_buf_max(limit.Get());
        // a lossless priority's policy is the switch core's rule (Not-ECT accepted)
        rust::Box<rdmacc_ffi::RedEcnParams> lossless = policy->lossless();
        // a priority that does not mark (SetMarkedPriorities): the same policy without marking
        rust::Box<rdmacc_ffi::RedEcnParams> unmarked = policy->unmarked();
        rust::Box<rdmacc_ffi::RedEcnParams> unmarkedLossless = unmarked->lossless();
        for (uint8_t prio = 0; prio < QbbNetDevice::N_PRIO; prio++)
        {
            if (!(m_queuePrios & (1u << prio)))
            {
                continue;
            }
            const bool isLossless = sw->GetPfcPriorities() & (1u << prio);
            if (!(m_markedPrios & (1u << prio)))
            {
                sw->SetQueuePolicy(port, prio, isLossless ? *unmarkedLossless : *unmarked);
                continue;
            }
            marking = true;
            minKMin = std::min(minKMin, policy->k_min());
            sw->SetQueuePolicy(port, prio, isLossless ? *lossless : *policy);
        }
    }
    return {marking, marking ? minKMin : 0};
}

void
FabricHelper::CollectWarnings(Ptr<SwitchNode> sw,
                              bool marking,
                              uint64_t minKMin,
                              WarningsBySwitch& byText)
{
    for (const auto& w : sw->ConfigWarnings(marking, minKMin))
    {
        NS_LOG_WARN("switch " << sw->GetId() << ": " << w);
        const std::string msg = "switch " + std::to_string(sw->GetId()) + ": " + w;
        if (std::find(m_warnings.begin(), m_warnings.end(), msg) == m_warnings.end())
        {
            m_warnings.push_back(msg);
            // printed once per text, with the switches that gave it
            auto it = std::find_if(
                byText.begin(), byText.end(), [&w](const auto& e) { return e.first == w; });
            if (it == byText.end())
            {
                byText.emplace_back(w, std::vector<uint32_t>());
                it = std::prev(byText.end());
            }
            it->second.push_back(sw->GetId());
        }
    }
}

void
FabricHelper::PrintWarnings(const WarningsBySwitch& byText)
{
    for (const auto& [text, ids] : byText)
    {
        std::string line = std::string("rdma-cc: warning: switch") + (ids.size() > 1 ? "es " : " ");
        const size_t shown = std::min<size_t>(ids.size(), 8);
        for (size_t i = 0; i < shown; i++)
        {
            line += (i ? ", " : "") + std::to_string(ids[i]);
        }
        if (ids.size() > shown)
        {
            line += " and " + std::to_string(ids.size() - shown) + " more";
        }
        rdmacc::Warn(line + ": " + text);
    }
}

Fabric
FabricHelper::SingleSwitch(uint32_t nHosts)
{
    NS_LOG_FUNCTION(this << nHosts);
    Building building(*this);
    Ptr<SwitchNode> sw = AddSwitch();
    for (uint32_t i = 0; i < nHosts; i++)
    {
        Connect(AddHost(), sw);
    }
    return Finalize();
}

Fabric
FabricHelper::Dumbbell(uint32_t nLeft, uint32_t nRight, DataRate bottleneck)
{
    NS_LOG_FUNCTION(this << nLeft << nRight << bottleneck);
    Building building(*this);
    Ptr<SwitchNode> l = AddSwitch();
    Ptr<SwitchNode> r = AddSwitch();
    for (uint32_t i = 0; i < nLeft; i++)
    {
        Connect(AddHost(), l);
    }
    for (uint32_t i = 0; i < nRight; i++)
    {
        Connect(AddHost(), r);
    }
    Connect(l, r, bottleneck);
    return Finalize();
}

Fabric
FabricHelper::Clos(uint32_t pods,
                   uint32_t torsPerPod,
                   uint32_t leavesPerPod,
                   uint32_t spines,
                   uint32_t hostsPerTor,
                   DataRate fabricRate)
{
    NS_LOG_FUNCTION(this << pods << torsPerPod << leavesPerPod << spines << hostsPerTor
                         << fabricRate);
    Building building(*this);
    std::vector<Ptr<SwitchNode>> spineNodes;
    for (uint32_t s = 0; s < spines; s++)
    {
        spineNodes.push_back(AddSwitch());
    }
    for (uint32_t p = 0; p < pods; p++)
    {
        std::vector<Ptr<SwitchNode>> leaves;
        for (uint32_t l = 0; l < leavesPerPod; l++)
        {
            leaves.push_back(AddSwitch());
            for (auto& s : spineNodes)
            {
                Connect(leaves.back(), s, fabricRate);
            }
        }
        for (uint32_t t = 0; t < torsPerPod; t++)
        {
            Ptr<SwitchNode> tor = AddSwitch();
            for (auto& l : leaves)
            {
                Connect(tor, l, fabricRate);
            }
            for (uint32_t h = 0; h < hostsPerTor; h++)
            {
                Connect(AddHost(), tor);
            }
        }
    }
    return Finalize();
}

Fabric
FabricHelper::FatTree(uint32_t k, DataRate hostRate, DataRate fabricRate)
{
    NS_LOG_FUNCTION(this << k << hostRate << fabricRate);
    Building building(*this);
    if (k < 2 || k % 2 != 0)
    {
        rdmacc::ConfigFatal("FabricHelper::FatTree",
                            "invalid k = " + std::to_string(k) +
                                ": a k-ary fat tree needs an even k, at least 2");
    }
    const uint32_t half = k / 2;
    std::vector<Ptr<SwitchNode>> cores;
    for (uint32_t c = 0; c < half * half; c++)
    {
        cores.push_back(AddSwitch());
    }
    for (uint32_t pod = 0; pod < k; pod++)
    {
        std::vector<Ptr<SwitchNode>> aggs;
        for (uint32_t j = 0; j < half; j++)
        {
            aggs.push_back(AddSwitch());
            for (uint32_t i = 0; i < half; i++)
            {
                Connect(aggs.back(), cores[j * half + i], fabricRate);
            }
        }
        for (uint32_t e = 0; e < half; e++)
        {
            Ptr<SwitchNode> edge = AddSwitch();
            for (auto& a : aggs)
            {
                Connect(edge, a, fabricRate);
            }
            for (uint32_t h = 0; h < half; h++)
            {
                Connect(AddHost(), edge, hostRate);
            }
        }
    }
    return Finalize();
}

Fabric
FabricHelper::FromTopology(const HpccTopology& topology)
{
    NS_LOG_FUNCTION(this << &topology);
    Building building(*this);
    // from the switch ids (a topology built by hand need not fill isSwitch)
    std::vector<bool> isSwitch(topology.nodes, false);
    for (uint32_t s : topology.switches)
    {
        isSwitch.at(s) = true;
    }
    std::vector<Ptr<Node>> nodes;
    std::vector<int32_t> hostOf(topology.nodes, -1);
    std::vector<int32_t> switchOf(topology.nodes, -1);
    for (uint32_t id = 0; id < topology.nodes; id++)
    {
        if (isSwitch.at(id))
        {
            switchOf[id] = static_cast<int32_t>(m_fabric.switches.size());
            nodes.push_back(AddSwitch());
        }
        else
        {
            hostOf[id] = static_cast<int32_t>(m_fabric.hosts.GetN());
            nodes.push_back(AddHost());
        }
    }
    for (const auto& l : topology.links)
    {
        Connect(nodes.at(l.a), nodes.at(l.b), DataRate(l.rateBps), l.delay);
    }
    Fabric f = Finalize();
    f.hostOfFileId = std::move(hostOf);
    f.switchOfFileId = std::move(switchOf);
    return f;
}

const std::vector<std::string>&
FabricHelper::GetWarnings() const
{
    return m_warnings;
}

void
FabricHelper::SetPrintWarnings(bool on)
{
    m_printWarnings = on;
}

} // namespace ns3
