/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaScenario's fabric and flows: the fabric built from the options, a NIC per host, the
// flows with their lower bounds, the bottleneck, the estimates of memory.
#include "rdma-cc-error.h"
#include "rdma-scenario.h"

#include "ns3/boolean.h"
#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#endif
#include "ns3/data-rate.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/wire.rs.h"
#include "rust/cxx.h"

namespace ns3
{

namespace
{
// Memory of an RDMA run, measured with /usr/bin/time -v on ldcp-incast (ns-3.37, release):
// 2000 senders x 1000 B: 48 MB; 2000 x 256 KB: 65 MB; 8000 x 256 KB: 206 MB. Per host (node,
// device, NIC, its switch port) about 18 KB; per flow about 1 KB plus the sender's send-time
// log, 24 B per packet up to 1024 packets; a frame in a switch buffer about 600 B. The
// constants below round these up, so the estimate errs high (246 MB for the last run).
constexpr uint64_t kBaseBytes = 20000000;
constexpr uint64_t kPerHost = 20000;
constexpr uint64_t kPerFlow = 2000;
constexpr uint64_t kPerLoggedPacket = 24;
constexpr uint64_t kPerBufferedFrame = 700;
} // namespace

uint64_t
RdmaScenario::MemoryEstimate(uint64_t hosts) const
{
    // the buffer is not allocated: it holds at most the frames of the flows added so far
    const uint64_t frames = std::min<uint64_t>(
        m_opts.GetBytes("buffer") / rdmacc_ffi::data_frame_bytes(Mtu(), 0) + 1, m_packets);
    return kBaseBytes + hosts * kPerHost + m_flowMemory + frames * kPerBufferedFrame;
}

void
RdmaScenario::BuildSingleSwitch(uint32_t nHosts)
{
    rdmacc::CheckMemory(MemoryEstimate(nHosts),
                        std::to_string(nHosts) + " hosts",
                        "use fewer senders (--senders, --shortHosts)");
    BuildFabric([nHosts](FabricHelper& fh) { return fh.SingleSwitch(nHosts); }, nHosts);
    sw = fabric.switches[0];
    bottleneckSwitch = sw;
}

void
RdmaScenario::BuildFabric(const std::function<Fabric(FabricHelper&)>& build, uint32_t maxPorts)
{
    rdmacc::Options::SwitchLinks links;
    links.ratesBps.assign(maxPorts, RateBps());
    links.delaysNs.assign(maxPorts,
                          static_cast<uint64_t>(m_opts.GetTime("delay").GetNanoSeconds()));
    BuildFabric(build, std::vector<rdmacc::Options::SwitchLinks>{links});
}

void
RdmaScenario::BuildFabric(const std::function<Fabric(FabricHelper&)>& build,
                          const std::vector<rdmacc::Options::SwitchLinks>& switches)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(Seed());
    FabricHelper fh;
    fh.SetDeviceAttribute("DataRate", DataRateValue(DataRate(RateBps())));
    fh.SetChannelAttribute("Delay", TimeValue(m_opts.GetTime("delay")));
    // the switch options checked together on every switch's links (errors name the options),
    // then what every switch built below takes (SetSwitchOptions)
    // the data classes: every priority gets the queue policy (marked when one of --ecn's),
    // paused when one of --pfc's (a run of one class uses the NICs' priority alone)
    const uint64_t mmuMtu = rdmacc_ffi::largest_frame(Mtu(), IntBytes());
    m_opts.ApplySwitchDefaults(switches, m_pfcMask, mmuMtu, bufMaxB);
    fh.SetSwitchOptions(m_opts);
    fh.SetSwitchAttribute("EgressLimit", UintegerValue(bufMaxB));
    fh.SetSwitchAttribute("MmuMtu", UintegerValue(mmuMtu));
    if (m_int)
    {
        fh.SetSwitchAttribute("Int", BooleanValue(true));
    }
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(m_pfcMask));
    fh.SetQueuePriorities(0xFF);
    fh.SetMarkedPriorities(m_ecnMask);
    fh.SetEcn(kMinB, kMaxB, pMax);
    if (m_opts.GetText("ecnMap") != "none")
    {
        fh.SetEcnMap(m_opts.GetText("ecnMap"));
    }
    // Not-ECT (LDCP's first-RTT) packets: the scheme decides (ldcp, ldcp-rate: WRED threshold
    // drop at K_fs on lossy queues; the others accept them)
    fh.SetNotEct(m_marking->not_ect, kFsB);
    fh.SetNodeRanks(m_nodeRanks);
    fabric = build(fh);
    const uint32_t nHosts = fabric.hosts.GetN();
    rdmacc::CheckMemory(
        MemoryEstimate(nHosts), std::to_string(nHosts) + " hosts", "use a smaller fabric");
    for (const auto& s : fabric.switches)
    {
        s->AssignStreams(Seed());
        s->TraceConnectWithoutContext("Drop", MakeBoundCallback(&RdmaScenario::OnDrop, this));
    }
    m_traces = std::make_unique<rdmacc::FlowTraces>(Out());
    if (m_opts.GetBool("rcm"))
    {
        // RCM: every change of an output queue's RCC budget, as the switches report it
        m_traces->OpenRcc();
        for (const auto& s : fabric.switches)
        {
            s->TraceConnectWithoutContext(
                "RccChange",
                MakeBoundCallback(&rdmacc::FlowTraces::OnRccChange, m_traces.get(), s->GetId()));
        }
    }
    AttachNics();
    // every priority's queues (only the non-empty ones have rows)
    m_monitor = std::make_unique<FabricMonitor>(fabric, Out(), m_opts.GetTime("sample"), 0xFF);
    if (m_opts.GetBool("flowTrace"))
    {
        m_traces->OpenFlows();
        if (m_opts.GetTime("flowSample").IsStrictlyPositive())
        {
            Simulator::Schedule(
                Seconds(0), &RdmaScenario::SampleFlows, this, m_opts.GetTime("flowSample"));
        }
    }
}

void
RdmaScenario::AttachNics()
{
    const uint32_t nHosts = fabric.hosts.GetN();
    // the NIC parameters together on this fabric's host-to-host path (host 1 to host 0, at
    // host 1's link rate), then what every NIC created below takes
    const uint32_t probe = nHosts > 1 ? 1 : 0;
    m_opts.ApplyNicDefaults(HostRateBps(probe), BaseRtt(probe, 0), Lossless(), m_int);
    const Time fabricRtt = fabric.LargestDataPathRtt(Mtu(), IntBytes()); // hpcc-sim presets
    // built together: one by ns-3's attribute construction, the others copies of it
    const std::vector<Ptr<RdmaNic>> built = RdmaNic::CreateMany(nHosts);
    for (uint32_t i = 0; i < nHosts; i++)
    {
        // the NIC parameters as the options parsed them (Options::ApplyNicDefaults)
        const Ptr<RdmaNic>& nic = built[i];
        m_opts.ConfigureNic(*nic);
        nic->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
        fabric.hosts.Get(i)->AggregateObject(nic);
        nic->SetLocal(!m_distributed || fabric.hosts.Get(i)->GetSystemId() == m_rank);
        nic->SetFabricBaseRtt(fabricRtt);
        if (m_opts.GetBool("flowTrace") && m_opts.GetTime("flowSample").IsZero())
        {
            nic->TraceConnectWithoutContext(
                "FlowState", MakeBoundCallback(&rdmacc::FlowTraces::OnFlowState, m_traces.get()));
        }
        nics.push_back(nic);
    }
}

void
RdmaScenario::SetBottleneck(Ptr<SwitchNode> s, uint32_t port, uint32_t receiverHost)
{
    bottleneckSwitch = s;
    m_bottleneck = port;
    m_bottleneckHost = receiverHost;
}

void
RdmaScenario::SetBottleneckToward(Ptr<SwitchNode> s, uint32_t receiverHost)
{
    const uint32_t node = fabric.hosts.Get(receiverHost)->GetId();
    SetBottleneck(s, fabric.NextHops(s->GetId(), node).at(0), receiverHost);
}

uint32_t
RdmaScenario::SetBottleneckAtBusiestReceiver()
{
    uint32_t busiest = 0;
    uint64_t most = 0;
    for (const auto& [dst, bytes] : m_bytesTo)
    {
        if (bytes > most)
        {
            busiest = dst;
            most = bytes;
        }
    }
    const uint32_t node = fabric.hosts.Get(busiest)->GetId();
    uint32_t peer = node;
    for (const auto& l : fabric.links)
    {
        if (l.a == node || l.b == node)
        {
            peer = l.a == node ? l.b : l.a;
            break;
        }
    }
    for (const auto& s : fabric.switches)
    {
        if (s->GetId() == peer)
        {
            SetBottleneckToward(s, busiest);
        }
    }
    return busiest;
}

void
RdmaScenario::EnableSizeBuckets()
{
    m_buckets = true;
}

void
RdmaScenario::SetFlowClasses(std::vector<std::string> classOf, std::vector<std::string> order)
{
    m_classOf = std::move(classOf);
    m_classOrder = std::move(order);
}

void
RdmaScenario::EnableSizeClasses()
{
    m_sizeClasses = true;
}

uint32_t
RdmaScenario::BottleneckPort() const
{
    return m_bottleneck;
}

uint64_t
RdmaScenario::OutlastingBytes(Time duration) const
{
    return static_cast<uint64_t>(double(RateBps()) / 8 * duration.GetSeconds()) + 1;
}

Time
RdmaScenario::BaseRtt(uint32_t srcHost, uint32_t dstHost) const
{
    return PathRtt(fabric.PathLinks(srcHost, dstHost));
}

Time
RdmaScenario::PathRtt(const std::vector<Fabric::PathLink>& links) const
{
    return Fabric::DataPathRtt(links, Mtu(), IntBytes());
}

uint32_t
RdmaScenario::IntBytes() const
{
    return m_int ? RoceHeader::INT_BYTES : 0;
}

namespace
{
/// The rates (bit/s) and one-way delays (ns) of `links`, as Rust's wire formulas take them.
struct PathVectors
{
    std::vector<uint64_t> rates;  //!< bit/s
    std::vector<uint64_t> delays; //!< ns

    explicit PathVectors(const std::vector<Fabric::PathLink>& links)
    {
        for (const auto& l : links)
        {
            rates.push_back(l.rate.GetBitRate());
            delays.push_back(static_cast<uint64_t>(l.delay.GetNanoSeconds()));
        }
    }

    rust::Slice<const uint64_t>
    Rates() const
    {
        return {rates.data(), rates.size()};
    }

    rust::Slice<const uint64_t>
    Delays() const
    {
        return {delays.data(), delays.size()};
    }
};
} // namespace

Time
RdmaScenario::IdealFct(uint32_t srcHost, uint32_t dstHost, uint64_t bytes, RdmaOp op) const
{
    return IdealFctOn(fabric.PathLinks(srcHost, dstHost), srcHost, dstHost, bytes, op);
}

Time
RdmaScenario::IdealFctOn(const std::vector<Fabric::PathLink>& links,
                         uint32_t srcHost,
                         uint32_t dstHost,
                         uint64_t bytes,
                         RdmaOp op) const
{
    const PathVectors data(links);
    if (op != RdmaOp::READ)
    {
        return NanoSeconds(static_cast<int64_t>(
            rdmacc_ffi::ideal_fct_ns(data.Rates(), data.Delays(), bytes, Mtu())));
    }
    // the READ request's trip from the requester first (docs/operations.md)
    const PathVectors request(fabric.PathLinks(dstHost, srcHost));
    return NanoSeconds(static_cast<int64_t>(rdmacc_ffi::ideal_read_fct_ns(
        request.Rates(), request.Delays(), data.Rates(), data.Delays(), bytes, Mtu())));
}

uint32_t
RdmaScenario::AddFlow(
    uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start, int priority, RdmaOp op)
{
    const uint32_t id = m_nextFlowId++;
    if (priority > 7)
    {
        rdmacc::ConfigFatal("flow " + std::to_string(id),
                            "invalid priority = " + std::to_string(priority) +
                                ": must be a priority 0-7");
    }
    const uint8_t prio = priority >= 0 ? static_cast<uint8_t>(priority) : DataPriority();
    if (op == RdmaOp::READ && m_distributed)
    {
        // the ranks exchange WRITE-shaped flow records only (GatherFlows)
        rdmacc::ConfigFatal("flow " + std::to_string(id),
                            "invalid op = read: READ flows are not supported in a distributed "
                            "run (--mpi)");
    }
    std::vector<uint64_t> rates;
    std::vector<uint64_t> buffers;
    uint32_t switchHops = 0; // switch egresses on the path
    bool intAll = true;      // every one of them writes INT
    const auto links = fabric.PathLinks(srcHost, dstHost);
    for (const auto& l : links)
    {
        rates.push_back(l.rate.GetBitRate());
        // a switch's egress: the most it can hold for this hop is its whole buffer
        Ptr<SwitchNode> s = DynamicCast<SwitchNode>(l.device->GetNode());
        buffers.push_back(s ? s->GetBufferSize() : 0);
        if (s)
        {
            switchHops++;
            intAll = intAll && s->GetIntTelemetry();
        }
    }
    const Time maxQueueing = NanoSeconds(static_cast<int64_t>(
        rdmacc_ffi::max_queueing_ns(rust::Slice<const uint64_t>(rates.data(), rates.size()),
                                    rust::Slice<const uint64_t>(buffers.data(), buffers.size()))));
    const uint32_t qp = nics[srcHost]->AddFlow(nics[dstHost],
                                               bytes,
                                               start,
                                               PathRtt(links),
                                               id,
                                               ((m_pfcMask >> prio) & 1u) != 0,
                                               maxQueueing,
                                               intAll && switchHops > 0 ? switchHops : 0,
                                               prio,
                                               op);
    const uint32_t srcNode = nics[srcHost]->GetNodeId();
    if (srcNode >= m_hostOfNode.size())
    {
        m_hostOfNode.resize(srcNode + 1, UINT32_MAX);
    }
    m_hostOfNode[srcNode] = srcHost;
    m_flowQp.push_back(qp);
    m_flowPrio.push_back(prio);
    m_flowSrc.push_back(srcHost);
    m_done.push_back(false);
    dropsByFlow.push_back(0);
    m_bytesTo[dstHost] += bytes;
    m_starts.push_back(start.GetTimeStep());
    m_flowMemory +=
        kPerFlow + kPerLoggedPacket * std::min<uint64_t>(1024, (bytes + Mtu() - 1) / Mtu());
    m_packets += (bytes + Mtu() - 1) / Mtu();
    m_idealFct.push_back(IdealFctOn(links, srcHost, dstHost, bytes, op).GetTimeStep());
    m_flowBytes.push_back(bytes);
    m_flowDst.push_back(dstHost);
    return id;
}

int64_t
RdmaScenario::FlowOf(uint32_t srcNode, uint32_t qp) const
{
    if (srcNode >= m_hostOfNode.size() || m_hostOfNode[srcNode] == UINT32_MAX)
    {
        return -1;
    }
    const Ptr<RdmaNic>& nic = nics[m_hostOfNode[srcNode]];
    return qp < nic->GetNQps() ? int64_t(nic->GetFlowId(qp)) : -1;
}

void
RdmaScenario::SetDistributed(std::vector<uint32_t> nodeRanks)
{
#ifdef NS3_MPI
    m_distributed = true;
    m_rank = MpiInterface::GetSystemId();
    m_nodeRanks = std::move(nodeRanks);
    rdmacc::MakeOutputDir(Out());
#else
    rdmacc::ConfigFatal("command line",
                        "a distributed run needs an ns-3 built with MPI (./waf configure "
                        "--ns3=mpi)");
#endif
}

} // namespace ns3
