/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-scenario.h"

#include "canonical-scheduler.h"
#include "progress-line.h"
#include "rdma-cc-error.h"

#include "ns3/boolean.h"
#ifdef NS3_MPI
#include <mpi.h>

#include "ns3/mpi-interface.h"
#endif
#include "ns3/data-rate.h"
#include "ns3/red-ecn-queue-disc.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// The help of an option's `auto`: how every scheme derives it (Rust's words).
std::string
AutoHelp(const char* field)
{
    return rdmacc::OrConfigFatal("RdmaScenario",
                                 [&] { return std::string(rdmacc_ffi::scheme_auto_help(field)); });
}

} // namespace

RdmaScenario::RdmaScenario(const std::string& n, const std::string& description) :
    m_name(n),
    m_opts(n, description)
{
    // the fabric, the switch and the outputs; every NIC parameter comes from Rust's tables
    m_opts.Rate("rate", "100Gbps", "rate of every link")
        .Duration("delay", "1us", "one-way propagation delay of every link")
        .Count("seed",
               1,
               "random seed (ns-3 run number): RED draws, random arrivals and sizes (the ECMP "
               "mapping of flows to paths is --ecmpSeed's)",
               rdmacc::Options::Range::Closed(1, 4294967295.0))
        .Text("out", "results/" + n, "output directory")
        .Bytes("kmin",
               "auto",
               "ECN marking threshold K_min of the data queue",
               rdmacc::Options::Range::Any(),
               AutoHelp("k_min"))
        .Bytes("kmax",
               "auto",
               "ECN marking: every ECT packet is marked from K_max on",
               rdmacc::Options::Range::Any(),
               AutoHelp("k_max"))
        .RealAuto("pmax",
                  "ECN marking probability just below K_max",
                  rdmacc::Options::Range::Closed(0, 1),
                  AutoHelp("p_max"))
        .Bytes("kfs",
               "auto",
               "WRED drop threshold of Not-ECT (LDCP first-RTT) packets on lossy runs",
               rdmacc::Options::Range::Any(),
               AutoHelp("k_fs"))
        .Text("ecnMap",
              "none",
              "per-link-speed marking GBPS:KMIN:KMAX:PMAX,... (bytes; a port uses the entry of "
              "the largest speed not above its rate, else --kmin/--kmax/--pmax), as deployed "
              "switches set it; none: --kmin/--kmax/--pmax everywhere")
        .Bytes("bufMax",
               "auto",
               "egress queue limit of the data priority when lossy (tail drop)",
               rdmacc::Options::Range::AtLeast(1),
               AutoHelp("buf_max"))
        .BoolAuto("pfc", "the data priority is lossless (PFC)", AutoHelp("pfc"))
        .BoolAuto("int",
                  "INT for HPCC: every switch egress appends a hop record (queue, bytes sent, "
                  "time, line rate) to the data packets, the receiver echoes them in its ACKs; "
                  "data packets and ACKs carry " +
                      std::to_string(rdmacc_ffi::int_bytes_on_wire()) +
                      " more bytes on the wire (ns3::SwitchNode::Int)",
                  AutoHelp("int"))
        .Duration("sample",
                  "1us",
                  "queue sampling interval (queue.csv, queue_avg_bytes)",
                  rdmacc::Options::Range::Above(0))
        .Duration("limit",
                  "1s",
                  "simulated-time limit: a run cut by it reports complete=false and fails",
                  rdmacc::Options::Range::Above(0))
        .Choice("eventOrder",
                "auto",
                {"auto", "insertion", "canonical"},
                "order of the events of one time stamp: insertion (ns-3's: the order they were "
                "scheduled in) or canonical (ns3::CanonicalScheduler: by the node that scheduled "
                "them and its count of events scheduled, the same in one process and in a "
                "distributed run); auto: canonical for a distributed (MPI) run, else insertion")
        .Bool("flowTrace", false, "write flows.csv: every flow's window, rate and srtt over time")
        .Duration("flowSample",
                  "0",
                  "with --flowTrace: sample every flow at this interval (0: a row whenever a "
                  "flow's window, rate or srtt changes)")
        .AddSwitchParams(
            {"buffer", "headroom", "allowHeadroomOverrun", "xoffBeta", "xoffStatic", "ecmpSeed"})
        .AddRcmParams()
        .AddNicParams();
    // attributes the fabric takes from the options above: a --ns3:: form of them is refused,
    // naming the option
    m_opts.Covers("ns3::QbbNetDevice::DataRate", "rate")
        .Covers("ns3::QbbChannel::Delay", "delay")
        .Covers("ns3::SwitchNode::PfcPriorities", "pfc")
        .Covers("ns3::SwitchNode::EgressLimit", "bufMax")
        .Covers("ns3::SwitchNode::MmuMtu", "mtu")
        .Covers("ns3::SwitchNode::Int", "int");
}

RdmaScenario::~RdmaScenario() = default;

rdmacc::Options&
RdmaScenario::Opts()
{
    return m_opts;
}

const rdmacc::Options&
RdmaScenario::Opts() const
{
    return m_opts;
}

std::string
RdmaScenario::Cc() const
{
    return m_opts.GetText("cc");
}

uint32_t
RdmaScenario::Seed() const
{
    return static_cast<uint32_t>(m_opts.GetCount("seed"));
}

std::string
RdmaScenario::Out() const
{
    const std::string base = m_rank > 0 ? m_opts.GetText("out") + "/rank-" + std::to_string(m_rank)
                                        : m_opts.GetText("out");
    return m_case.empty() ? base : base + "/" + m_case;
}

void
RdmaScenario::SetCase(const std::string& name)
{
    m_case = name;
}

void
RdmaScenario::SetQuiet(bool quiet)
{
    m_quiet = quiet;
}

uint64_t
RdmaScenario::Mtu() const
{
    return m_opts.GetBytes("mtu");
}

uint64_t
RdmaScenario::RateBps() const
{
    return m_opts.GetRate("rate");
}

bool
RdmaScenario::Lossless() const
{
    return m_lossless;
}

bool
RdmaScenario::IntOn() const
{
    return m_int;
}

rdmacc::JsonObject
RdmaScenario::Setup() const
{
    const std::string preset = Cc().substr(0, Cc().find('-')) + "Preset";
    rdmacc::JsonObject j;
    j.Str("scheme", Cc())
        .Str("preset", m_opts.Has(preset) ? m_opts.GetText(preset) : "none")
        .UInt("rate_bps", RateBps())
        .Int("delay_ns", m_opts.GetTime("delay").GetNanoSeconds())
        .Bool("pfc", Lossless())
        .UInt("priority", DataPriority())
        .UInt("mtu_bytes", Mtu())
        .UInt("buffer_bytes", m_opts.GetBytes("buffer"))
        .Bool("int", m_int)
        .UInt("seed", Seed());
    return j;
}

rdmacc::JsonObject
RdmaScenario::Resolved() const
{
    rdmacc::JsonObject j = Setup();
    j.UInt("k_min_bytes", kMinB)
        .UInt("k_max_bytes", kMaxB)
        .UInt("k_fs_bytes", kFsB)
        .UInt("buf_max_bytes", bufMaxB)
        .Num("p_max", pMax)
        .Str("fabric",
             m_fabricText.empty()
                 ? m_opts.GetAsText("rate") + " links, " + m_opts.GetAsText("delay") + " delay"
                 : m_fabricText)
        .UInt("hosts", fabric.hosts.GetN())
        .UInt("switches", fabric.switches.size())
        .UInt("flows", m_nextFlowId);
    if (fabric.hosts.GetN() > 1)
    {
        j.Int("base_rtt_ns", BaseRtt(1, 0).GetNanoSeconds());
    }
    return j;
}

uint8_t
RdmaScenario::DataPriority() const
{
    return m_opts.DataPriority();
}

RdmaScenario::IntSummary
RdmaScenario::IntTotals() const
{
    IntSummary t;
    bool any = false;
    for (const auto& nic : nics)
    {
        const RdmaNic::IntStats n = nic->GetIntStats();
        if (n.acks == 0)
        {
            continue;
        }
        t.hopsMin = any ? std::min(t.hopsMin, n.hopsMin) : n.hopsMin;
        t.hopsMax = std::max(t.hopsMax, n.hopsMax);
        t.acks += n.acks;
        t.hopMismatch += n.hopMismatch;
        t.nonMonotone += n.nonMonotone;
        any = true;
    }
    return t;
}

uint64_t
RdmaScenario::PauseFrames() const
{
    return m_monitor ? m_monitor->PauseFrames() : 0;
}

uint64_t
RdmaScenario::HostRateBps(uint32_t host) const
{
    return host < fabric.hostDevices.size() ? fabric.HostRate(host).GetBitRate() : RateBps();
}

double
RdmaScenario::PayloadLimit() const
{
    return PayloadLimitAt(HostRateBps(m_bottleneckHost));
}

double
RdmaScenario::LinkPayloadLimit() const
{
    return rdmacc::PayloadLimitBps(HostRateBps(m_bottleneckHost), Mtu());
}

double
RdmaScenario::PayloadLimitAt(uint64_t rateBps) const
{
    // INT: every data frame is IntBytes() longer on the wire
    return rdmacc::PayloadLimitBps(rateBps, Mtu(), IntBytes());
}

void
RdmaScenario::SetFabricDescription(const std::string& text)
{
    m_fabricText = text;
}

void
RdmaScenario::Parse(int argc, char** argv)
{
    m_opts.Parse(argc, argv);
    m_lossless =
        m_opts.IsAuto("pfc")
            ? rdmacc::OrConfigFatal("command line",
                                    [&] { return rdmacc_ffi::scheme_lossless_by_default(Cc()); })
            : m_opts.GetBool("pfc");
    m_int = m_opts.IsAuto("int")
                ? rdmacc::OrConfigFatal("command line",
                                        [&] { return rdmacc_ffi::scheme_needs_int(Cc()); })
                : m_opts.GetBool("int");
    const uint64_t frame = Mtu() + RoceHeader::DATA_OVERHEAD;
    const Time delay = m_opts.GetTime("delay");
    const bool kminAuto = m_opts.IsAuto("kmin");
    const bool kmaxAuto = m_opts.IsAuto("kmax");
    const bool kfsAuto = m_opts.IsAuto("kfs");
    // the scheme's marking, from a given K_min (K_max and K_fs follow it) or its own; given
    // values win
    // (the scheme's preset may have its own: DCQCN's hpcc-sim marks as the HPCC simulator)
    const std::string presetOpt = Cc().substr(0, Cc().find('-')) + "Preset";
    const std::string preset = m_opts.Has(presetOpt) ? m_opts.GetText(presetOpt) : "none";
    const rdmacc_ffi::Marking m = rdmacc::OrConfigFatal(
        "command line",
        [&]
        {
            return kminAuto
                       ? rdmacc_ffi::scheme_marking(
                             Cc(), preset, RateBps(), delay.GetNanoSeconds(), frame)
                       : rdmacc_ffi::scheme_marking_from(Cc(), preset, m_opts.GetBytes("kmin"));
        });
    kMinB = m.k_min;
    kMaxB = kmaxAuto ? m.k_max : m_opts.GetBytes("kmax");
    kFsB = kfsAuto ? m.k_fs : m_opts.GetBytes("kfs");
    bufMaxB = m_opts.IsAuto("bufMax") ? m.buf_max : m_opts.GetBytes("bufMax");
    pMax = m_opts.IsAuto("pmax") ? m.p_max : m_opts.GetReal("pmax");
    rdmacc_ffi::Marking given{kMinB, kMaxB, pMax, kFsB, bufMaxB};
    // what the values not given follow: the given K_min, or the link (rate and delay)
    const std::string derivedFrom = kminAuto ? "--rate=" + m_opts.GetAsText("rate") +
                                                   " and --delay=" + m_opts.GetAsText("delay")
                                             : "--kmin=" + m_opts.GetAsText("kmin");
    rdmacc::OrConfigFatal(
        "command line",
        [&]
        { rdmacc_ffi::marking_check(given, bufMaxB, kminAuto, kmaxAuto, kfsAuto, derivedFrom); });
    const std::string map = m_opts.GetText("ecnMap");
    if (map != "none")
    {
        try
        {
            rdmacc_ffi::ecn_map_lookup(map, 0);
        }
        catch (const rust::Error& e)
        {
            rdmacc::ConfigFatal("command line",
                                "invalid --ecnMap = " + map + " (" + e.what() + ")");
        }
    }
    rdmacc::MakeOutputDir(Out());
}

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
        m_opts.GetBytes("buffer") / (Mtu() + RoceHeader::DATA_OVERHEAD) + 1, m_packets);
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
    // then the defaults of the switches built below
    // one data class, the NICs' priority: marked, and paused when the run is lossless
    const uint8_t dataMask = static_cast<uint8_t>(1u << DataPriority());
    const uint64_t mmuMtu = rdmacc_ffi::largest_frame(Mtu(), IntBytes());
    m_opts.ApplySwitchDefaults(switches, Lossless() ? dataMask : 0, mmuMtu, bufMaxB);
    fh.SetSwitchAttribute("EgressLimit", UintegerValue(bufMaxB));
    fh.SetSwitchAttribute("MmuMtu", UintegerValue(mmuMtu));
    if (m_int)
    {
        fh.SetSwitchAttribute("Int", BooleanValue(true));
    }
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(Lossless() ? dataMask : 0));
    fh.SetQueuePriorities(dataMask);
    fh.SetEcn(kMinB, kMaxB, pMax);
    if (m_opts.GetText("ecnMap") != "none")
    {
        fh.SetEcnMap(m_opts.GetText("ecnMap"));
    }
    // LDCP: Not-ECT (first-RTT) packets meet WRED threshold drop at K_fs (lossy only)
    fh.SetNotEct(rdmacc_ffi::NotEctMode::ThresholdDrop, kFsB);
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
    if (m_opts.GetBool("rcm"))
    {
        // RCM: every change of an output queue's RCC budget, as the switches report it
        rdmacc::OpenPartial(m_rccCsv, Out() + "/rcc.csv");
        m_rccCsv << "time_ns,node,port,prio,change,role,w_bytes,w_c_bytes\n";
        for (const auto& s : fabric.switches)
        {
            s->TraceConnectWithoutContext(
                "RccChange", MakeBoundCallback(&RdmaScenario::OnRccChange, this, s->GetId()));
        }
    }
    // the NIC parameters together on this fabric's host-to-host path (host 1 to host 0, at
    // host 1's link rate), then as the defaults of every NIC created below
    const uint32_t probe = nHosts > 1 ? 1 : 0;
    m_opts.ApplyNicDefaults(HostRateBps(probe), BaseRtt(probe, 0), Lossless(), m_int);
    const Time fabricRtt = fabric.LargestDataPathRtt(Mtu(), IntBytes()); // hpcc-sim presets
    for (uint32_t i = 0; i < nHosts; i++)
    {
        // the NIC parameters are the defaults the options set (Options::ApplyNicDefaults)
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
        fabric.hosts.Get(i)->AggregateObject(nic);
        nic->SetLocal(!m_distributed || fabric.hosts.Get(i)->GetSystemId() == m_rank);
        nic->SetFabricBaseRtt(fabricRtt);
        if (m_opts.GetBool("flowTrace") && m_opts.GetTime("flowSample").IsZero())
        {
            nic->TraceConnectWithoutContext("FlowState",
                                            MakeBoundCallback(&RdmaScenario::OnFlowState, this));
        }
        nics.push_back(nic);
    }
    m_monitor = std::make_unique<FabricMonitor>(fabric, Out(), m_opts.GetTime("sample"), dataMask);
    if (m_opts.GetBool("flowTrace"))
    {
        rdmacc::OpenPartial(m_flowsCsv, Out() + "/flows.csv");
        m_flowsCsv << "time_ns,flow_id,cw,rate_bps,srtt_ns\n";
        if (m_opts.GetTime("flowSample").IsStrictlyPositive())
        {
            Simulator::Schedule(
                Seconds(0), &RdmaScenario::SampleFlows, this, m_opts.GetTime("flowSample"));
        }
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

void
RdmaScenario::EnableRateSeries(Time every)
{
    m_rateEvery = every;
    rdmacc::OpenPartial(m_ratesCsv, Out() + "/rates.csv");
    m_ratesCsv << "time_ns,flow_id,delivered_bytes,rate_bps\n";
    Simulator::Schedule(Seconds(0), &RdmaScenario::SampleRates, this, every);
}

void
RdmaScenario::TakeRateSample()
{
    std::vector<uint64_t> delivered(m_nextFlowId, 0);
    for (const auto& nic : nics)
    {
        for (const auto& f : nic->GetFlowRecords())
        {
            delivered.at(f.flowId) = f.delivered;
        }
    }
    const Time now = Simulator::Now();
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        // a row only while the flow is active: from its start, until its finish (whose own
        // row OnFlowComplete writes)
        if (m_starts[id] <= now && !m_done[id])
        {
            WriteRateRow(id, delivered[id]);
        }
    }
    m_rateTimes.push_back(now);
    m_rateDelivered.push_back(std::move(delivered));
}

void
RdmaScenario::WriteRateRow(uint32_t id, uint64_t delivered)
{
    const Time now = Simulator::Now();
    const bool first = m_rateTimes.empty();
    const double dt = first ? 0 : (now - m_rateTimes.back()).GetSeconds();
    const uint64_t prev =
        (first || id >= m_rateDelivered.back().size()) ? 0 : m_rateDelivered.back()[id];
    const double rate = dt > 0 ? double(delivered - prev) * 8 / dt : 0;
    m_ratesCsv << now.GetNanoSeconds() << ',' << id << ',' << delivered << ','
               << static_cast<uint64_t>(rate) << '\n';
}

void
RdmaScenario::SampleRates(Time every)
{
    TakeRateSample();
    Simulator::Schedule(every, &RdmaScenario::SampleRates, this, every);
}

double
RdmaScenario::RateBetween(uint32_t flowId, Time from, Time to) const
{
    return double(DeliveredAt(flowId, to) - DeliveredAt(flowId, from)) * 8 /
           (to - from).GetSeconds();
}

uint64_t
RdmaScenario::DeliveredAt(uint32_t flowId, Time t) const
{
    uint64_t d = 0;
    for (size_t i = 0; i < m_rateTimes.size() && m_rateTimes[i] <= t; i++)
    {
        d = flowId < m_rateDelivered[i].size() ? m_rateDelivered[i][flowId] : 0;
    }
    return d;
}

void
RdmaScenario::OnFlowState(RdmaScenario* self, uint32_t flowId, double cw, uint64_t rate, Time srtt)
{
    self->m_flowsCsv << Simulator::Now().GetNanoSeconds() << ',' << flowId << ',';
    if (std::isfinite(cw))
    {
        self->m_flowsCsv << cw;
    }
    self->m_flowsCsv << ',' << rate << ',' << srtt.GetNanoSeconds() << '\n';
}

void
RdmaScenario::WriteFlowRow(uint32_t id)
{
    const auto st = nics[m_flowSrc[id]]->GetFlowState(m_flowQp[id]);
    OnFlowState(this, id, st.cw, st.rate, st.srtt);
}

void
RdmaScenario::SampleFlows(Time every)
{
    // the flows past their first ACK and not finished: the cost of a sample is theirs alone
    for (const uint32_t id : m_sampled)
    {
        WriteFlowRow(id);
    }
    if (m_completed < m_nextFlowId)
    {
        Simulator::Schedule(every, &RdmaScenario::SampleFlows, this, every);
    }
}

void
RdmaScenario::OnDrop(
    RdmaScenario* self, Ptr<const Packet> p, uint32_t port, uint8_t prio, const char* reason)
{
    RoceHeader h;
    p->PeekHeader(h);
    if (h.kind == RoceHeader::DATA)
    {
        ((h.flags & RoceHeader::FLAG_FIRST_RTT) ? self->firstRttDrops : self->stableDrops)++;
        const int64_t id = self->FlowOf(RoceHeader::IpToNode(h.srcIp), h.flowId);
        if (id >= 0)
        {
            self->dropsByFlow[id]++;
        }
    }
}

uint64_t
RdmaScenario::DeliveredNow() const
{
    return m_bottleneckHost < nics.size() ? nics[m_bottleneckHost]->GetDeliveredBytes() : 0;
}

void
RdmaScenario::OnFlowComplete(RdmaScenario* self, const FlowRecord& r)
{
    self->m_completed++;
    if (r.flowId < self->m_done.size())
    {
        self->m_done[r.flowId] = true;
        self->m_sampled.erase(r.flowId);
        // every trace's last row of a flow is at its finish
        if (self->m_ratesCsv.is_open())
        {
            // finished: its last byte is acknowledged, so every byte was delivered
            self->WriteRateRow(r.flowId, r.size);
        }
        // (sampled: the finish row; changes only: the last change is the last row)
        if (self->m_flowsCsv.is_open() && self->m_opts.GetTime("flowSample").IsStrictlyPositive())
        {
            self->WriteFlowRow(r.flowId);
        }
    }
    if (self->firstDone.IsStrictlyNegative())
    {
        self->firstDone = Simulator::Now();
        self->deliveredAtFirstDone = self->DeliveredNow();
    }
}

void
RdmaScenario::OnFirstFeedback(RdmaScenario* self, uint32_t flowId)
{
    if (self->m_flowsCsv.is_open() && self->m_opts.GetTime("flowSample").IsStrictlyPositive() &&
        flowId < self->m_done.size() && !self->m_done[flowId])
    {
        self->m_sampled.insert(flowId);
    }
    if (++self->m_firstFeedbacks == self->m_nextFlowId)
    {
        self->stableFrom = Simulator::Now();
        self->deliveredAtStable = self->DeliveredNow();
        self->m_overallMax =
            self->bottleneckSwitch->GetMaxEgressBytes(self->m_bottleneck, self->DataPriority());
        self->bottleneckSwitch->ResetMaxEgress();
    }
}

Time
RdmaScenario::BaseRtt(uint32_t srcHost, uint32_t dstHost) const
{
    return PathRtt(fabric.PathLinks(srcHost, dstHost));
}

Time
RdmaScenario::PathRtt(const std::vector<Fabric::PathLink>& links) const
{
    return Fabric::PathRtt(links,
                           Mtu() + RoceHeader::DATA_OVERHEAD + IntBytes(),
                           RoceHeader::DATA_OVERHEAD + RoceHeader::AETH + IntBytes());
}

uint32_t
RdmaScenario::IntBytes() const
{
    return m_int ? RoceHeader::INT_BYTES : 0;
}

uint32_t
RdmaScenario::AddFlow(uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start)
{
    const uint32_t id = m_nextFlowId++;
    std::vector<uint64_t> rates;
    std::vector<uint64_t> delays;
    std::vector<uint64_t> buffers;
    uint32_t switchHops = 0; // switch egresses on the path
    bool intAll = true;      // every one of them writes INT
    const auto links = fabric.PathLinks(srcHost, dstHost);
    for (const auto& l : links)
    {
        rates.push_back(l.rate.GetBitRate());
        delays.push_back(static_cast<uint64_t>(l.delay.GetNanoSeconds()));
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
                                               Lossless(),
                                               maxQueueing,
                                               intAll && switchHops > 0 ? switchHops : 0);
    const uint32_t srcNode = nics[srcHost]->GetNodeId();
    if (srcNode >= m_hostOfNode.size())
    {
        m_hostOfNode.resize(srcNode + 1, UINT32_MAX);
    }
    m_hostOfNode[srcNode] = srcHost;
    m_flowQp.push_back(qp);
    m_flowSrc.push_back(srcHost);
    m_done.push_back(false);
    dropsByFlow.push_back(0);
    m_bytesTo[dstHost] += bytes;
    m_starts.push_back(start);
    m_flowMemory +=
        kPerFlow + kPerLoggedPacket * std::min<uint64_t>(1024, (bytes + Mtu() - 1) / Mtu());
    m_packets += (bytes + Mtu() - 1) / Mtu();
    m_idealFct.push_back(NanoSeconds(static_cast<int64_t>(
        rdmacc_ffi::ideal_fct_ns(rust::Slice<const uint64_t>(rates.data(), rates.size()),
                                 rust::Slice<const uint64_t>(delays.data(), delays.size()),
                                 bytes,
                                 Mtu()))));
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

Time
RdmaScenario::FirstStart() const
{
    Time first = Seconds(0);
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        first = id == 0 ? m_starts[id] : std::min(first, m_starts[id]);
    }
    return first;
}

void
RdmaScenario::CheckDone(Time every)
{
    if (m_completed < m_nextFlowId)
    {
        Simulator::Schedule(every, &RdmaScenario::CheckDone, this, every);
        return;
    }
    Simulator::Stop();
}

void
RdmaScenario::WarnOutputSize(Time lastStart, double busiestSeconds) const
{
    // queue.csv: a row per sample per non-empty queue. A single switch's queues form at the
    // ports of the receivers; a run lasts at least from its first start to its last plus the
    // busiest receiver's bytes at line rate (more when queues drain slowly: this is a lower
    // estimate, stated as such). flows.csv on change: about one row per data packet (one ACK each).
    const double rowBytes = 32;
    // sampled from the first start on (StartRun)
    const double seconds = std::min((m_opts.GetTime("limit") - FirstStart()).GetSeconds(),
                                    (lastStart - FirstStart()).GetSeconds() + busiestSeconds);
    const double queueCsv =
        seconds / m_opts.GetTime("sample").GetSeconds() * double(m_bytesTo.size()) * rowBytes;
    double flowsCsv = 0;
    if (m_opts.GetBool("flowTrace"))
    {
        const Time every = m_opts.GetTime("flowSample");
        flowsCsv = every.IsZero() ? double(m_packets) * rowBytes
                                  : seconds / every.GetSeconds() * double(m_nextFlowId) * rowBytes;
    }
    const double limit = 1e9;
    if (queueCsv > limit)
    {
        std::ostringstream size;
        size << "at least " << queueCsv / 1e9
             << " GB (a row per --sample=" << m_opts.GetAsText("sample")
             << " per busy queue for at least " << seconds * 1e3 << " ms)";
        rdmacc::WarnCsvSize("queue.csv", size.str(), "raise --sample to make it smaller");
    }
    if (flowsCsv > limit)
    {
        std::ostringstream size;
        size << "about " << flowsCsv / 1e9 << " GB";
        rdmacc::WarnCsvSize(
            "flows.csv", size.str(), "set --flowSample to a period, or --flowTrace=0");
    }
    rdmacc::WarnEventCsvSize(m_packets, Lossless(), "use fewer or shorter flows");
}

void
RdmaScenario::Run(uint32_t bottleneckPort)
{
    if (sw)
    {
        // a single switch: port i leads to host i
        SetBottleneck(sw, bottleneckPort, bottleneckPort);
    }
    // a limit the flows cannot finish within is a configuration error, not a cut run: the
    // least a run takes is the latest flow's start plus its FCT lower bound, and the busiest
    // receiver's frames on its link (Rust's check, pfc-incast's too)
    std::vector<uint64_t> bounds;
    std::vector<uint32_t> receivers;
    std::vector<uint64_t> rates;
    std::map<uint32_t, uint32_t> receiverOf; // destination host -> index into rates
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        bounds.push_back((m_starts[id] + m_idealFct[id]).GetNanoSeconds());
        const auto [it, added] = receiverOf.emplace(m_flowDst[id], rates.size());
        if (added)
        {
            rates.push_back(HostRateBps(m_flowDst[id]));
        }
        receivers.push_back(it->second);
    }
    rdmacc::CheckRunLimit(m_opts.GetTime("limit").GetNanoSeconds(),
                          bounds,
                          m_flowBytes,
                          receivers,
                          rates,
                          Mtu(),
                          IntBytes());
    Simulator::Stop(m_opts.GetTime("limit"));
    if (!m_distributed)
    {
        // polled from the first start on: idle time before it costs no event
        Simulator::Schedule(
            FirstStart() + MicroSeconds(10), &RdmaScenario::CheckDone, this, MicroSeconds(10));
    }
    StartRun();
}

void
RdmaScenario::RunFor(Time duration)
{
    m_duration = duration;
    Simulator::Stop(duration);
    StartRun();
}

void
RdmaScenario::StartRun()
{
    Time lastStart = Seconds(0);
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        lastStart = std::max(lastStart, m_starts[id]);
    }
    double busiestSeconds = 0;
    for (const auto& [dst, bytes] : m_bytesTo)
    {
        busiestSeconds = std::max(busiestSeconds, double(bytes) * 8 / double(HostRateBps(dst)));
    }
    rdmacc::CheckMemory(MemoryEstimate(nics.size()),
                        std::to_string(nics.size()) + " hosts and " + std::to_string(m_nextFlowId) +
                            " flows",
                        "use fewer or shorter flows");
    // every attribute the command line set holds in the built run (or the run stops, naming
    // it); a dry run ends here
    m_opts.CheckBeforeRun();
    WarnOutputSize(lastStart, busiestSeconds);
    if (FirstStart().IsStrictlyPositive())
    {
        // no queue to sample before the first flow starts
        m_monitor->StartSamplingAt(FirstStart());
    }
    for (const auto& nic : nics)
    {
        nic->TraceConnectWithoutContext("FirstFeedback",
                                        MakeBoundCallback(&RdmaScenario::OnFirstFeedback, this));
        nic->TraceConnectWithoutContext("FlowComplete",
                                        MakeBoundCallback(&RdmaScenario::OnFlowComplete, this));
    }
    // a progress line on a terminal (rdmacc::ProgressLine: no result changes)
    const bool timed = !m_duration.IsStrictlyNegative();
    rdmacc::ProgressLine progress(
        m_name,
        timed ? m_duration : m_opts.GetTime("limit"),
        timed ? "the run" : "--limit=" + m_opts.GetAsText("limit"),
        [this] { return std::make_pair(uint64_t(m_completed), uint64_t(m_nextFlowId)); });
    const uint64_t ev0 = Simulator::GetEventCount();
    auto t0 = std::chrono::steady_clock::now();
    progress.Start();
    // every check passed: the warnings about the run, then the run
    rdmacc::FlushWarnings();
    Simulator::Run();
    progress.Stop();
    if (m_distributed)
    {
        GatherFlows();
    }
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    events = Simulator::GetEventCount() - ev0 - progress.Events();
    ties = CanonicalScheduler::TiesRun();
    if (m_ratesCsv.is_open())
    {
        if (m_rateTimes.empty() || m_rateTimes.back() < Simulator::Now())
        {
            TakeRateSample(); // the end of the run
        }
        rdmacc::CommitPartial(m_ratesCsv, Out() + "/rates.csv");
    }
    m_monitor->Finish();
    if (m_flowsCsv.is_open())
    {
        rdmacc::CommitPartial(m_flowsCsv, Out() + "/flows.csv");
    }
    if (m_rccCsv.is_open())
    {
        rdmacc::CommitPartial(m_rccCsv, Out() + "/rcc.csv");
    }
}

void
RdmaScenario::OnRccChange(RdmaScenario* self,
                          uint32_t node,
                          uint32_t port,
                          uint8_t prio,
                          const char* change,
                          const char* role,
                          uint64_t w,
                          uint64_t wc)
{
    self->m_rccCsv << Simulator::Now().GetNanoSeconds() << ',' << node << ',' << port << ','
                   << unsigned(prio) << ',' << change << ',' << role << ',' << w << ',' << wc
                   << '\n';
}

rdmacc::JsonObject
RdmaScenario::RcmSummary() const
{
    SwitchNode::RcmCounters t{};
    for (const auto& s : fabric.switches)
    {
        const auto c = s->GetRcmCounters();
        t.enabled = t.enabled || c.enabled;
        t.cn_sent += c.cn_sent;
        t.cn_received += c.cn_received;
        t.detections += c.detections;
        t.rcc_activations += c.rcc_activations;
        t.rcc_cuts += c.rcc_cuts;
        t.detours += c.detours;
        t.moves += c.moves;
    }
    rdmacc::JsonObject o;
    o.Bool("enabled", t.enabled)
        .UInt("cn_sent", t.cn_sent)
        .UInt("cn_received", t.cn_received)
        .UInt("detections", t.detections)
        .UInt("rcc_activations", t.rcc_activations)
        .UInt("rcc_cuts", t.rcc_cuts)
        .UInt("sar_detours", t.detours)
        .UInt("sar_moves", t.moves);
    return o;
}

int
RdmaScenario::ExitStatus() const
{
    return m_exitStatus;
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

void
RdmaScenario::GatherFlows()
{
#ifdef NS3_MPI
    // this rank's part: the sender records of its hosts' flows, the receiver counts of the
    // flows its hosts received; one text line each (exact: doubles in hex)
    std::ostringstream mine;
    mine << std::hexfloat;
    for (const auto& nic : nics)
    {
        if (!nic->IsLocal())
        {
            continue;
        }
        for (const auto& f : nic->GetFlowRecords())
        {
            mine << "S " << f.flowId << ' ' << f.src << ' ' << f.dst << ' ' << f.size << ' '
                 << f.start.GetTimeStep() << ' ' << f.finish.GetTimeStep() << ' ' << f.retxBytes
                 << ' ' << f.bytesSent << ' ' << f.minCw << ' ' << f.subPacketSends << ' '
                 << f.packetsSent << ' ' << f.probesSent << ' ' << f.timeouts << ' ' << f.nacks
                 << ' ' << f.scheme << '\n';
        }
        // the receivers of this host, and those of its own flows retired on this rank
        for (const auto& rs : {nic->GetRxRecords(), nic->GetRetiredRxRecords()})
        {
            for (const auto& r : rs)
            {
                const int64_t id = FlowOf(r.srcNode, r.qp);
                if (id >= 0)
                {
                    mine << "R " << id << ' ' << r.delivered << ' ' << r.duplicates << '\n';
                }
            }
        }
    }
    const std::string text = mine.str();
    int n = static_cast<int>(text.size());
    const int ranks = static_cast<int>(MpiInterface::GetSize());
    std::vector<int> sizes(ranks);
    MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets(ranks, 0);
    for (int r = 1; r < ranks; r++)
    {
        offsets[r] = offsets[r - 1] + sizes[r - 1];
    }
    std::string all(static_cast<size_t>(offsets[ranks - 1] + sizes[ranks - 1]), '\0');
    MPI_Allgatherv(
        text.data(), n, MPI_CHAR, &all[0], sizes.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    std::map<uint32_t, FlowRecord> byId;
    std::vector<std::pair<uint32_t, std::pair<uint64_t, uint64_t>>> rx;
    std::istringstream in(all);
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream l(line);
        std::string tag;
        l >> tag;
        if (tag == "S")
        {
            FlowRecord f;
            int64_t start = 0;
            int64_t finish = 0;
            std::string cw;
            l >> f.flowId >> f.src >> f.dst >> f.size >> start >> finish >> f.retxBytes >>
                f.bytesSent >> cw >> f.subPacketSends >> f.packetsSent >> f.probesSent >>
                f.timeouts >> f.nacks >> f.scheme;
            f.minCw = std::strtod(cw.c_str(), nullptr);
            f.start = TimeStep(start);
            f.finish = TimeStep(finish);
            byId[f.flowId] = f;
        }
        else if (tag == "R")
        {
            uint32_t id = 0;
            uint64_t delivered = 0;
            uint64_t dup = 0;
            l >> id >> delivered >> dup;
            rx.push_back({id, {delivered, dup}});
        }
    }
    for (const auto& [id, d] : rx)
    {
        auto it = byId.find(id);
        if (it != byId.end())
        {
            it->second.delivered = d.first;
            it->second.dupBytes = d.second;
        }
    }
    m_gathered.clear();
    for (auto& [id, f] : byId)
    {
        f.idealFct = m_idealFct.at(id);
        m_gathered.push_back(f);
    }
#endif
}

std::vector<FlowRecord>
RdmaScenario::Flows() const
{
    if (m_distributed)
    {
        return m_gathered;
    }
    std::vector<FlowRecord> all;
    size_t n = 0;
    for (const auto& nic : nics)
    {
        n += nic->GetNQps();
    }
    all.reserve(n); // no copy of every record as the vector grows
    for (const auto& nic : nics)
    {
        for (const auto& f : nic->GetFlowRecords())
        {
            all.push_back(f);
        }
    }
    std::sort(all.begin(),
              all.end(),
              [](const FlowRecord& a, const FlowRecord& b) { return a.flowId < b.flowId; });
    for (auto& f : all)
    {
        f.idealFct = m_idealFct.at(f.flowId);
    }
    return all;
}

void
RdmaScenario::Finish(uint32_t bottleneckPort, const rdmacc::JsonObject& extra)
{
    if (sw)
    {
        SetBottleneck(sw, bottleneckPort, bottleneckPort);
    }
    Finish(extra);
}

void
RdmaScenario::Finish(const rdmacc::JsonObject& extra)
{
    const uint32_t bottleneckPort = m_bottleneck;
    const auto flows = Flows();
    uint64_t sent = 0;
    uint64_t delivered = 0;
    uint64_t retx = 0;
    uint64_t dup = 0;
    uint64_t done = 0;
    uint64_t subPacketSends = 0;
    uint64_t packetsSent = 0;
    uint64_t probesSent = 0;
    double minCw = std::numeric_limits<double>::infinity();
    for (const auto& f : flows)
    {
        sent += f.size;
        delivered += f.delivered;
        retx += f.retxBytes;
        dup += f.dupBytes;
        done += !f.finish.IsStrictlyNegative();
        subPacketSends += f.subPacketSends;
        packetsSent += f.packetsSent;
        probesSent += f.probesSent;
        minCw = std::min(minCw, f.minCw);
    }
    const auto fct = rdmacc::Percentiles::Of(rdmacc::Fcts(flows));
    const auto slow = rdmacc::Percentiles::Of(rdmacc::Slowdowns(flows));
    // every switch's counters together
    uint64_t dropTotal = 0;
    uint64_t controlDrops = 0;
    uint64_t controlForwarded = 0;
    uint64_t marked = 0;
    std::vector<std::pair<std::string, uint64_t>> dropList;
    std::string acc;
    // data frames put on a link, at every host NIC and switch port (retransmissions included,
    // PFC and control-class frames not): each is one packet-hop
    uint64_t dataFrameHops = 0;
    auto dataFrames = [&dataFrameHops](const QbbNetDevice& d)
    {
        const auto& st = d.GetStats();
        uint64_t other = st.txControlFrames;
        for (size_t p = 0; p < st.pfcTx.size(); p++)
        {
            other += st.pfcTx[p] + st.resumeTx[p];
        }
        dataFrameHops += st.txFrames - std::min(other, st.txFrames);
    };
    for (const auto& d : fabric.hostDevices)
    {
        dataFrames(*d);
    }
    for (const auto& s : fabric.switches)
    {
        for (uint32_t i = 0; i < s->GetNDevices(); i++)
        {
            if (const auto d = DynamicCast<QbbNetDevice>(s->GetDevice(i)))
            {
                dataFrames(*d);
            }
        }
    }
    for (const auto& s : fabric.switches)
    {
        const auto c = s->GetCounters();
        dropTotal += c.drops_total;
        controlDrops += c.drops.control;
        controlForwarded += c.control_forwarded;
        marked += c.marked;
        const auto list = s->GetDropList();
        if (dropList.empty())
        {
            dropList = list;
        }
        else
        {
            for (size_t i = 0; i < list.size() && i < dropList.size(); i++)
            {
                dropList[i].second += list[i].second;
            }
        }
        const std::string a = s->CheckInvariants();
        if (!a.empty() && acc.empty())
        {
            acc =
                (fabric.switches.size() > 1 ? "node " + std::to_string(s->GetId()) + ": " : "") + a;
        }
    }
    const Ptr<SwitchNode> bsw = bottleneckSwitch;
    const uint32_t sid = bsw->GetId();
    // exact maxima: overall = before and after the reset at the end of the first RTTs
    const uint64_t qStable = bsw->GetMaxEgressBytes(bottleneckPort, DataPriority());
    const uint64_t qMax = std::max(m_overallMax, qStable);
    const double qAvg = m_monitor->AvgQueue(sid, bottleneckPort, DataPriority());

    // goodput at the bottleneck's receiver while every flow is active and past its first RTT:
    // from stableFrom to the first completion (0 when that interval does not exist)
    double goodputActive = 0;
    double span = 0; // seconds the goodput was measured over
    if (!stableFrom.IsStrictlyNegative() && firstDone > stableFrom)
    {
        span = (firstDone - stableFrom).GetSeconds();
        goodputActive = double(deliveredAtFirstDone - deliveredAtStable) * 8 / span;
    }
    else if (!stableFrom.IsStrictlyNegative() && firstDone.IsStrictlyNegative() &&
             Simulator::Now() > stableFrom)
    {
        // a run of fixed duration that ended with every flow active
        span = (Simulator::Now() - stableFrom).GetSeconds();
        goodputActive = double(DeliveredNow() - deliveredAtStable) * 8 / span;
    }
    const double wireLimit = PayloadLimit();

    // every run checks its own invariants; any failure is reported and makes the exit status 3
    rdmacc::Invariants inv;
    inv.Check(acc.empty(), "switch accounting: " + acc);
    const bool timed = !m_duration.IsStrictlyNegative();
    if (done < flows.size() && !timed)
    {
        inv.Fail(std::to_string(flows.size() - done) + " of " + std::to_string(flows.size()) +
                 " flows unfinished when --limit=" + m_opts.GetAsText("limit") +
                 " ended the run (" + std::to_string(sent - delivered) + " B undelivered)");
    }
    for (const auto& f : flows)
    {
        const bool finished = !f.finish.IsStrictlyNegative();
        if (f.delivered > f.size || (finished && f.delivered != f.size))
        {
            inv.Fail("flow " + std::to_string(f.flowId) + " delivered " +
                     std::to_string(f.delivered) + " of " + std::to_string(f.size) + " B" +
                     (finished ? " but completed" : ""));
            break;
        }
        if (finished && f.finish - f.start < f.idealFct)
        {
            inv.Fail("flow " + std::to_string(f.flowId) + " finished in " +
                     std::to_string((f.finish - f.start).GetNanoSeconds()) +
                     " ns, below its lower bound " + std::to_string(f.idealFct.GetNanoSeconds()) +
                     " ns");
            break;
        }
    }
    if (Lossless() && dropTotal > 0)
    {
        inv.Fail("the data priority is lossless (--pfc=1) but " + std::to_string(dropTotal) +
                 " frames were dropped");
    }
    if (m_int)
    {
        // INT: every ACK of an INT flow carries one record per switch of its path, and each
        // hop's counters never go back from one ACK to the next (RdmaNic::GetIntStats)
        const IntSummary is = IntTotals();
        inv.Check(is.hopMismatch == 0,
                  std::to_string(is.hopMismatch) + " ACKs with INT records not one per switch of "
                                                   "their path");
        inv.Check(is.nonMonotone == 0,
                  std::to_string(is.nonMonotone) +
                      " ACKs with a hop's INT bytes or timestamp below the previous ACK's");
    }
    if (controlDrops > 0)
    {
        inv.Fail(std::to_string(controlDrops) + " control frames dropped (control pool exhausted)");
    }
    // congestion collapse: the bottleneck's buffer pinned full (time average >= 90 % of
    // --bufMax) while under 10 % of the wire limit is delivered. No run of a working scheme
    // does that; a rate-based LDCP incast did, and passed as "invariants ok" (issue 25)
    if (span > 0 && goodputActive < 0.10 * wireLimit && qAvg >= 0.90 * double(bufMaxB))
    {
        inv.Fail("congestion collapse: goodput " + std::to_string(goodputActive) +
                 " bit/s below 10 % of the wire limit " + std::to_string(wireLimit) +
                 " bit/s with the bottleneck queue pinned at its buffer (average " +
                 std::to_string(uint64_t(qAvg)) + " of " + std::to_string(bufMaxB) + " B)");
    }
    // a packet's bytes count when its last bit arrives: an interval of T holds at most
    // T / frame time + 1 packets, so the bound is the wire limit plus one payload per T
    if (span > 0 && goodputActive > wireLimit * (1 + 1e-9) + double(Mtu()) * 8 / span)
    {
        inv.Fail("goodput " + std::to_string(goodputActive) + " bit/s above the wire limit " +
                 std::to_string(wireLimit) + " bit/s");
    }
    // example, scheme and seed first, then the example's keys (senders, ...), then the shared
    // ones (rdmacc::SummaryWriter: the keys of every example's summary, and this scenario's)
    rdmacc::SummaryWriter w(m_name, Cc(), Seed());
    auto& s = w.Keys();
    s.Merge(extra);
    w.Run(Simulator::Now().GetNanoSeconds(), wall, events);
    if (CanonicalScheduler::IsActive())
    {
        // only then: the outputs of the default order stay as they were
        s.Str("event_order", "canonical").UInt("equal_time_events", ties);
    }
    s.UInt("flows_total", flows.size()).UInt("flows_done", done);
    w.Ending(done == flows.size(), timed ? rdmacc::RunEnds::Duration : rdmacc::RunEnds::FlowsDone)
        .Bytes(sent, delivered)
        .Drops(dropList);
    s.UInt("stable_stage_drops", stableDrops)
        .UInt("first_rtt_drops", firstRttDrops)
        .Int("stable_from_ns", stableFrom.GetNanoSeconds())
        .Int("first_done_ns", firstDone.GetNanoSeconds())
        .Num("goodput_active_bps", goodputActive);
    w.WireLimit(wireLimit);
    s.UInt("pfc_pause_frames", m_monitor->PauseFrames()).UInt("control_frames", controlForwarded);
    w.Marks(marked).Queue(qMax, qAvg);
    s.UInt("queue_max_stable_bytes", stableFrom.IsStrictlyNegative() ? 0 : qStable)
        .Obj("fct_ns", fct.ToJson())
        .Obj("slowdown", slow.ToJson())
        .UInt("retx_bytes", retx)
        .UInt("spurious_retx_bytes", dup)
        .Num("cw_min", std::isfinite(minCw) ? minCw : -1)
        .UInt("sub_packet_sends", subPacketSends)
        .UInt("data_packets_sent", packetsSent)
        .UInt("data_frame_hops", dataFrameHops)
        .UInt("probes_sent", probesSent)
        .UInt("k_min_bytes", kMinB)
        .UInt("k_max_bytes", kMaxB)
        .UInt("k_fs_bytes", kFsB)
        .UInt("buf_max_bytes", bufMaxB)
        .Obj("rcm", RcmSummary())
        .Obj("setup", Setup());
    if (m_int)
    {
        // only with INT: runs without it keep their outputs
        const IntSummary is = IntTotals();
        rdmacc::JsonObject io;
        io.UInt("bytes_on_wire", IntBytes())
            .UInt("acks", is.acks)
            .UInt("hops_min", is.hopsMin)
            .UInt("hops_max", is.hopsMax)
            .UInt("hop_mismatch", is.hopMismatch)
            .UInt("non_monotone", is.nonMonotone);
        s.Obj("int", io);
    }
    auto& merged = s;
    std::vector<std::string> bucketTable;
    if (m_buckets)
    {
        merged.Obj("slowdown_buckets",
                   rdmacc::WriteSlowdownBuckets(Out() + "/buckets.csv", flows, bucketTable));
    }
    // by class (SetFlowClasses) and by size class (EnableSizeClasses): only when asked for, so
    // that other runs keep their outputs
    std::vector<std::string> classTable;
    const bool classes = !m_classOrder.empty();
    if (classes)
    {
        rdmacc::JsonObject byClass;
        std::vector<std::string> names;
        std::vector<rdmacc::ClassFigures> figs;
        for (const auto& c : m_classOrder)
        {
            figs.push_back(rdmacc::ClassFigures::Of(flows,
                                                    [&](const FlowRecord& f) {
                                                        return f.flowId < m_classOf.size() &&
                                                               m_classOf[f.flowId] == c;
                                                    }));
            names.push_back(c);
            byClass.Obj(c, figs.back().ToJson());
        }
        figs.push_back(rdmacc::ClassFigures::Of(flows, [](const FlowRecord&) { return true; }));
        names.emplace_back("all");
        byClass.Obj("all", figs.back().ToJson());
        merged.Obj("fct_by_class", byClass);
        classTable = rdmacc::ClassTable("by class", names, figs);
    }
    if (m_sizeClasses)
    {
        // RCM (NPC 2017) Fig. 9: mice below 1 MB, elephants above 10 MB
        const std::vector<std::string> names = {"all", "mice", "medium", "elephants"};
        const std::vector<std::string> labels = {
            "all", "mice <1MB", "medium 1-10MB", "elephants >10MB"};
        const std::vector<std::function<bool(const FlowRecord&)>> in = {
            [](const FlowRecord&) { return true; },
            [](const FlowRecord& f) { return f.size < 1000000; },
            [](const FlowRecord& f) { return f.size >= 1000000 && f.size <= 10000000; },
            [](const FlowRecord& f)
            {
                return f.size > 10000000;
            }};
        rdmacc::JsonObject bySize;
        std::vector<rdmacc::ClassFigures> figs;
        for (size_t i = 0; i < names.size(); i++)
        {
            figs.push_back(rdmacc::ClassFigures::Of(flows, in[i]));
            bySize.Obj(names[i], figs.back().ToJson());
        }
        merged.Obj("fct_by_size", bySize);
        const auto t = rdmacc::ClassTable("by size", labels, figs);
        classTable.insert(classTable.end(), t.begin(), t.end());
    }
    w.Write(Out() + "/summary.json", inv);
    rdmacc::WriteFctCsv(Out() + "/fct.csv", flows, classes ? &m_classOf : nullptr);
    m_opts.WriteConfig(Out(), Resolved(), m_case);

    if (m_quiet)
    {
        std::cout << m_name << (m_case.empty() ? "" : " [" + m_case + "]") << ": cc=" << Cc()
                  << ", " << done << "/" << flows.size() << " flows done, "
                  << m_monitor->PauseFrames() << " PAUSEs, " << dropTotal << " drops, invariants "
                  << inv.Verdict() << "; wrote " << Out() << "/\n";
    }
    else
    {
        std::cout << std::fixed;
        std::cout << m_name << ": cc=" << Cc() << ", " << flows.size() << " flows, "
                  << (m_fabricText.empty() ? m_opts.GetAsText("rate") + " links, " +
                                                 m_opts.GetAsText("delay") + " delay"
                                           : m_fabricText)
                  << ", K_min/K_max/P_max " << kMinB << "/" << kMaxB << "/" << std::setprecision(2)
                  << pMax << ", K_fs " << kFsB << ", PFC " << (Lossless() ? "on" : "off") << "\n";
        std::cout << "  flows done        " << done << " / " << flows.size() << "\n";
        std::cout << "  bytes delivered   " << delivered << " / " << sent << " (retransmitted "
                  << retx << ", of which received twice " << dup << ")\n";
        std::cout << std::setprecision(1);
        std::cout << "  FCT us            avg " << fct.avg / 1e3 << "  p50 " << fct.p50 / 1e3
                  << "  p95 " << fct.p95 / 1e3 << "  p99 " << fct.p99 / 1e3 << "  max "
                  << fct.max / 1e3 << "\n";
        std::cout << std::setprecision(2);
        std::cout << "  slowdown          avg " << slow.avg << "  p50 " << slow.p50 << "  p95 "
                  << slow.p95 << "  p99 " << slow.p99 << "  max " << slow.max << "\n";
        std::cout << "  bottleneck queue  max " << qMax << " B, after every first RTT ("
                  << stableFrom.GetMicroSeconds() << " us) max " << qStable << " B, avg "
                  << std::setprecision(0) << qAvg << " B\n";
        std::cout << "  drops             " << dropTotal << " (stable stage " << stableDrops
                  << ", first RTT " << firstRttDrops << ")";
        std::cout << rdmacc::DropCounts(dropList) << "\n"
                  << std::setprecision(1) << "  goodput           " << goodputActive / 1e9
                  << " Gb/s while every flow is active after its first RTT (wire limit "
                  << wireLimit / 1e9 << " Gb/s)\n";
        std::cout << "  ECN marks         " << marked << "; PFC pauses " << m_monitor->PauseFrames()
                  << "; control frames " << controlForwarded << "\n";
        std::cout << std::setprecision(3) << "  smallest cw       "
                  << (std::isfinite(minCw) ? minCw : -1)
                  << " packets; sent with cw < 1: " << subPacketSends << "\n";
        std::cout << "  invariants        " << inv.Verdict() << "\n";
        std::cout << std::setprecision(2) << "  wall " << wall << " s, " << events << " events ("
                  << std::setprecision(0) << (wall > 0 ? events / wall : 0) << " events/s)\n";
        for (const auto& line : bucketTable)
        {
            std::cout << line << "\n";
        }
        for (const auto& line : classTable)
        {
            std::cout << line << "\n";
        }
        std::cout << "  wrote " << Out() << "/summary.json, " << Out() << "/fct.csv"
                  << (m_buckets ? ", " + Out() + "/buckets.csv" : "") << "\n";
    }
    m_exitStatus = inv.Report();
}

} // namespace ns3
