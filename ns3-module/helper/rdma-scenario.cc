/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-scenario.h"

#include "rdma-cc-error.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/red-ecn-queue-disc.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>

namespace ns3
{

RdmaScenario::RdmaScenario(const std::string& n) :
    name(n),
    cc("ldcp"),
    rate("100Gbps"),
    delay("1us"),
    seed(1),
    out("results/" + n),
    alpha(1.0),
    beta(0.5),
    gamma(0.125),
    eta(0.5),
    iw(0),
    fastStart(true),
    subPacket(true),
    ackEvery(1),
    rto("0us"),
    cnpInterval("0us"),
    mtu(1000),
    kmin(-1),
    kmax(-1),
    pmax(0.2),
    kfs(-1),
    bufMax(2000000),
    buffer(12e6),
    headroom(32000),
    pfc(0),
    sample("1us")
{
}

RdmaScenario::~RdmaScenario() = default;

void
RdmaScenario::AddOptions(CommandLine& cmd)
{
    cmd.AddValue("cc", "congestion control: ldcp, ldcp-rate or none (line rate)", cc);
    cmd.AddValue("rate", "rate of every link", rate);
    cmd.AddValue("delay", "one-way delay of every link", delay);
    cmd.AddValue("seed", "random seed (run number)", seed);
    cmd.AddValue("out", "output directory", out);
    cmd.AddValue("alpha", "LDCP additive increase per RTT (packets, 0 < alpha <= 1)", alpha);
    cmd.AddValue("beta", "LDCP decrease per marked ACK (packets, 0 < beta <= 1)", beta);
    cmd.AddValue("gamma", "LDCP sub-packet step and floor (0 < gamma <= 1)", gamma);
    cmd.AddValue("eta", "LDCP decrease factor below one packet (0 < eta < 1)", eta);
    cmd.AddValue("iw", "LDCP initial window, packets (0: BDP of the path)", iw);
    cmd.AddValue("fastStart", "LDCP zero-RTT fast start", fastStart);
    cmd.AddValue("subPacket", "LDCP sub-packet regime (cw < 1)", subPacket);
    cmd.AddValue("ackEvery", "receiver: ACK every m unmarked packets (delayed ACK)", ackEvery);
    cmd.AddValue("rto",
                 "retransmission timeout floor (0: 4 x base RTT, or 1 ms with --pfc=1); the "
                 "timeout is max(floor, srtt + 4 rttvar), doubling on repeated timeouts",
                 rto);
    cmd.AddValue("cnpInterval", "receiver: minimum CNP interval per flow (ldcp-rate)", cnpInterval);
    cmd.AddValue("mtu", "payload bytes per packet", mtu);
    cmd.AddValue("kmin", "ECN K_min, bytes (-1: half the BDP of one hop)", kmin);
    cmd.AddValue("kmax", "ECN K_max, bytes (-1: 4 x K_min)", kmax);
    cmd.AddValue("pmax", "ECN P_max", pmax);
    cmd.AddValue(
        "kfs", "WRED drop threshold of Not-ECT (fast-start) packets, bytes (-1: K_min)", kfs);
    cmd.AddValue("bufMax", "egress queue limit of the data priority, bytes", bufMax);
    cmd.AddValue("buffer", "switch buffer, bytes", buffer);
    cmd.AddValue("headroom", "PFC headroom per port and priority, bytes (with --pfc=1)", headroom);
    cmd.AddValue("pfc", "1: data priority lossless (PFC), 0: lossy (LDCP is PFC-free)", pfc);
    cmd.AddValue("sample", "queue sampling interval (queue.csv, queue_avg_bytes)", sample);
}

void
RdmaScenario::Validate()
{
    try
    {
        rdmacc_ffi::scheme_code(cc);
    }
    catch (const rust::Error&)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --cc = " + cc + ": must be one of ldcp, ldcp-rate, none");
    }
    rdmacc::CheckAttributeValue("--rate", "ns3::QbbNetDevice", "DataRate", rate);
    m_linkDelay = NanoSeconds(rdmacc::CheckedTimeNs("--delay", delay));
    rdmacc::CheckedTimeNs("--rto", rto);
    rdmacc::CheckedTimeNs("--cnpInterval", cnpInterval);
    rdmacc::CheckedPositiveTimeNs("--sample", sample);
    auto finite = [](const std::string& f, double v)
    {
        if (!std::isfinite(v))
        {
            rdmacc::ConfigFatal("command line", "invalid " + f + ": must be a number");
        }
    };
    finite("--alpha", alpha);
    finite("--beta", beta);
    finite("--gamma", gamma);
    finite("--eta", eta);
    finite("--iw", iw);
    if (mtu == 0 || mtu > 9000)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --mtu = " + std::to_string(mtu) + ": must be in [1, 9000]");
    }
    if (pfc < 0 || pfc > 1)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --pfc = " + std::to_string(pfc) + ": must be 0 or 1");
    }
    const uint64_t bps = DataRate(rate).GetBitRate();
    const uint64_t hopBdp = bps / 8 * 2 * m_linkDelay.GetNanoSeconds() / 1000000000ULL;
    kMinB = kmin < 0 ? std::max<uint64_t>(hopBdp / 2, mtu + RoceHeader::DATA_OVERHEAD)
                     : rdmacc::CheckedBytes("--kmin", kmin);
    kMaxB = kmax < 0 ? 4 * kMinB : rdmacc::CheckedBytes("--kmax", kmax);
    kFsB = kfs < 0 ? kMinB : rdmacc::CheckedBytes("--kfs", kfs);
    rdmacc::CheckedBytes("--bufMax", bufMax);
    rdmacc::CheckedBytes("--buffer", buffer);
    rdmacc::CheckedBytes("--headroom", headroom);
    // the named errors of the Rust policies, before anything is built
    if (kMinB > kMaxB)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --kmin = " + std::to_string(kMinB) +
                                " B: must be <= --kmax (" + std::to_string(kMaxB) + " B)");
    }
    rdmacc::CheckedRange("--pmax", pmax, 0, 1);
    if (kFsB > uint64_t(bufMax))
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --kfs = " + std::to_string(kFsB) +
                                " B: must be <= --bufMax (" + std::to_string(uint64_t(bufMax)) +
                                " B)");
    }
}

void
RdmaScenario::BuildSingleSwitch(uint32_t nHosts)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    const bool lossless = pfc == 1;
    FabricHelper fh;
    fh.SetDeviceAttribute("DataRate", StringValue(rate));
    fh.SetChannelAttribute("Delay", TimeValue(m_linkDelay));
    fh.SetSwitchAttribute("BufferSize", UintegerValue(uint64_t(buffer)));
    fh.SetSwitchAttribute("Headroom", UintegerValue(uint64_t(headroom)));
    fh.SetSwitchAttribute("EgressLimit", UintegerValue(uint64_t(bufMax)));
    fh.SetSwitchAttribute("MmuMtu", UintegerValue(mtu + RoceHeader::DATA_OVERHEAD));
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(lossless ? 0x08 : 0));
    fh.SetQueuePriorities(0x08);
    fh.SetEcn(kMinB, kMaxB, pmax);
    // LDCP: Not-ECT (first-RTT) packets meet WRED threshold drop at K_fs (lossy only)
    fh.SetNotEct(1, kFsB);
    fabric = fh.SingleSwitch(nHosts);
    sw = fabric.switches[0];
    sw->AssignStreams(seed);
    for (uint32_t i = 0; i < nHosts; i++)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetAttribute("Scheme", StringValue(cc));
        nic->SetAttribute("Mtu", UintegerValue(mtu));
        nic->SetAttribute("Priority", UintegerValue(3));
        nic->SetAttribute("Alpha", DoubleValue(alpha));
        nic->SetAttribute("Beta", DoubleValue(beta));
        nic->SetAttribute("Gamma", DoubleValue(gamma));
        nic->SetAttribute("Eta", DoubleValue(eta));
        nic->SetAttribute("Iw", DoubleValue(iw));
        nic->SetAttribute("FastStart", BooleanValue(fastStart));
        nic->SetAttribute("SubPacket", BooleanValue(subPacket));
        nic->SetAttribute("AckEvery", UintegerValue(ackEvery));
        // on a lossless priority nothing is lost: a timeout could only fire spuriously behind
        // deep queues or PAUSEs, so the default floor is 1 ms there (RoCE NICs' local ACK
        // timeouts are milliseconds); lossy: 4 x base RTT
        Time rtoFloor = NanoSeconds(rdmacc::CheckedTimeNs("--rto", rto));
        if (rtoFloor.IsZero() && lossless)
        {
            rtoFloor = MilliSeconds(1);
        }
        nic->SetAttribute("Rto", TimeValue(rtoFloor));
        nic->SetAttribute(
            "CnpInterval",
            TimeValue(NanoSeconds(rdmacc::CheckedTimeNs("--cnpInterval", cnpInterval))));
        nic->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
        fabric.hosts.Get(i)->AggregateObject(nic);
        nics.push_back(nic);
    }
    sw->TraceConnectWithoutContext("Drop", MakeBoundCallback(&RdmaScenario::OnDrop, this));
    rdmacc::MakeOutputDir(out);
    m_monitor = std::make_unique<FabricMonitor>(
        fabric, out, NanoSeconds(rdmacc::CheckedTimeNs("--sample", sample)), 0x08);
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
        auto it = self->m_flowOf.find((uint64_t(RoceHeader::IpToNode(h.srcIp)) << 32) | h.flowId);
        if (it != self->m_flowOf.end())
        {
            self->dropsByFlow[it->second]++;
        }
    }
}

uint64_t
RdmaScenario::DeliveredNow() const
{
    uint64_t d = 0;
    for (const auto& nic : nics)
    {
        d += nic->GetDeliveredBytes();
    }
    return d;
}

void
RdmaScenario::OnFlowComplete(RdmaScenario* self, const FlowRecord& r)
{
    self->m_completed++;
    if (self->firstDone.IsStrictlyNegative())
    {
        self->firstDone = Simulator::Now();
        self->deliveredAtFirstDone = self->DeliveredNow();
    }
}

void
RdmaScenario::OnFirstFeedback(RdmaScenario* self, uint32_t flowId)
{
    if (++self->m_firstFeedbacks == self->m_nextFlowId)
    {
        self->stableFrom = Simulator::Now();
        self->deliveredAtStable = self->DeliveredNow();
        self->m_overallMax = self->sw->GetMaxEgressBytes(self->m_bottleneck, 3);
        self->sw->ResetMaxEgress();
    }
}

Time
RdmaScenario::BaseRtt(uint32_t srcHost, uint32_t dstHost) const
{
    return fabric.BaseRtt(fabric.hosts.Get(srcHost)->GetId(),
                          fabric.hosts.Get(dstHost)->GetId(),
                          mtu + RoceHeader::DATA_OVERHEAD,
                          RoceHeader::DATA_OVERHEAD + RoceHeader::AETH);
}

uint64_t
RdmaScenario::IwBytes(Time baseRtt) const
{
    if (iw > 0)
    {
        return uint64_t(iw * mtu);
    }
    return DataRate(rate).GetBitRate() / 8 * baseRtt.GetNanoSeconds() / 1000000000ULL;
}

uint32_t
RdmaScenario::AddFlow(uint32_t srcHost, uint32_t dstHost, uint64_t bytes, Time start)
{
    const uint32_t id = m_nextFlowId++;
    const uint32_t qp =
        nics[srcHost]->AddFlow(nics[dstHost], bytes, start, BaseRtt(srcHost, dstHost), id);
    m_flowOf[(uint64_t(nics[srcHost]->GetNodeId()) << 32) | qp] = id;
    dropsByFlow.push_back(0);
    return id;
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
RdmaScenario::Run(Time limit, uint32_t bottleneckPort)
{
    m_bottleneck = bottleneckPort;
    Simulator::Stop(limit);
    Simulator::Schedule(MicroSeconds(10), &RdmaScenario::CheckDone, this, MicroSeconds(10));
    for (const auto& nic : nics)
    {
        nic->TraceConnectWithoutContext("FirstFeedback",
                                        MakeBoundCallback(&RdmaScenario::OnFirstFeedback, this));
        nic->TraceConnectWithoutContext("FlowComplete",
                                        MakeBoundCallback(&RdmaScenario::OnFlowComplete, this));
    }
    const uint64_t ev0 = Simulator::GetEventCount();
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    events = Simulator::GetEventCount() - ev0;
    m_monitor->Finish();
}

std::vector<FlowRecord>
RdmaScenario::Flows() const
{
    std::vector<FlowRecord> all;
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
    return all;
}

void
RdmaScenario::Finish(uint32_t bottleneckPort, const rdmacc::JsonObject& extra)
{
    const auto flows = Flows();
    uint64_t sent = 0;
    uint64_t delivered = 0;
    uint64_t retx = 0;
    uint64_t done = 0;
    uint64_t subPacketSends = 0;
    double minCw = std::numeric_limits<double>::infinity();
    for (const auto& f : flows)
    {
        sent += f.size;
        delivered += f.delivered;
        retx += f.retxBytes;
        done += !f.finish.IsStrictlyNegative();
        subPacketSends += f.subPacketSends;
        minCw = std::min(minCw, f.minCw);
    }
    const auto fct = rdmacc::Percentiles::Of(rdmacc::Fcts(flows));
    const auto slow = rdmacc::Percentiles::Of(rdmacc::Slowdowns(flows));
    const auto c = sw->GetCounters();
    const auto dropList = sw->GetDropList();
    rdmacc::JsonObject drops;
    for (const auto& [reason, n] : dropList)
    {
        drops.UInt(reason, n);
    }
    const uint64_t dropTotal = c.drops_total;
    const uint32_t sid = sw->GetId();
    // exact maxima: overall = before and after the reset at the end of the first RTTs
    const uint64_t qStable = sw->GetMaxEgressBytes(bottleneckPort, 3);
    const uint64_t qMax = std::max(m_overallMax, qStable);
    const double qAvg = m_monitor->AvgQueue(sid, bottleneckPort, 3);
    const std::string inv = sw->CheckInvariants();

    // goodput while every flow is active and past its first RTT: from stableFrom to the first
    // completion (0 when that interval does not exist)
    double goodputActive = 0;
    if (!stableFrom.IsStrictlyNegative() && firstDone > stableFrom)
    {
        goodputActive = double(deliveredAtFirstDone - deliveredAtStable) * 8 /
                        (firstDone - stableFrom).GetSeconds();
    }
    const double wireLimit = DataRate(rate).GetBitRate() * double(mtu) /
                             (mtu + RoceHeader::DATA_OVERHEAD + QbbNetDevice::PREAMBLE_IFG);
    rdmacc::JsonObject s;
    s.Str("scheme", cc)
        .UInt("seed", seed)
        .UInt("sim_time_ns", Simulator::Now().GetNanoSeconds())
        .Num("wall_s", wall)
        .UInt("events", events)
        .UInt("flows_total", flows.size())
        .UInt("flows_done", done)
        .Bool("complete", done == flows.size())
        .UInt("bytes_sent", sent)
        .UInt("bytes_delivered", delivered)
        .Obj("drops", drops)
        .UInt("drops_total", dropTotal)
        .UInt("stable_stage_drops", stableDrops)
        .UInt("first_rtt_drops", firstRttDrops)
        .Int("stable_from_ns", stableFrom.GetNanoSeconds())
        .Int("first_done_ns", firstDone.GetNanoSeconds())
        .Num("goodput_active_bps", goodputActive)
        .Num("wire_limit_bps", wireLimit)
        .UInt("pfc_pause_frames", m_monitor->PauseFrames())
        .UInt("control_frames", c.control_forwarded)
        .UInt("marks", c.marked)
        .UInt("queue_max_bytes", qMax)
        .UInt("queue_max_stable_bytes", stableFrom.IsStrictlyNegative() ? 0 : qStable)
        .Num("queue_avg_bytes", qAvg)
        .Obj("fct_ns", fct.ToJson())
        .Obj("slowdown", slow.ToJson())
        .UInt("retx_bytes", retx)
        .Num("cw_min", std::isfinite(minCw) ? minCw : -1)
        .UInt("sub_packet_sends", subPacketSends)
        .UInt("k_min_bytes", kMinB)
        .UInt("k_max_bytes", kMaxB)
        .UInt("k_fs_bytes", kFsB)
        .Str("invariants", inv.empty() ? "ok" : inv);
    // scheme and seed first, then the example's keys (senders, ...), then the shared ones
    rdmacc::JsonObject merged;
    merged.Str("scheme", cc).UInt("seed", seed);
    merged.Merge(extra);
    merged.Merge(s);
    merged.WriteFile(out + "/summary.json");
    rdmacc::WriteFctCsv(out + "/fct.csv", flows);

    std::cout << std::fixed;
    std::cout << name << ": cc=" << cc << ", " << flows.size() << " flows, " << rate << " links, "
              << delay << " delay, K_min/K_max/P_max " << kMinB << "/" << kMaxB << "/"
              << std::setprecision(2) << pmax << ", K_fs " << kFsB << ", PFC "
              << (pfc == 1 ? "on" : "off") << "\n";
    std::cout << "  flows done        " << done << " / " << flows.size() << "\n";
    if (done < flows.size())
    {
        std::cerr << "rdma-cc: WARNING: the time limit ended the run with " << flows.size() - done
                  << " flows unfinished (summary.json: \"complete\": false; raise --limit)\n";
    }
    std::cout << "  bytes delivered   " << delivered << " / " << sent << " (retransmitted " << retx
              << ")\n";
    std::cout << std::setprecision(1);
    std::cout << "  FCT us            avg " << fct.avg / 1e3 << "  p50 " << fct.p50 / 1e3
              << "  p95 " << fct.p95 / 1e3 << "  p99 " << fct.p99 / 1e3 << "  max " << fct.max / 1e3
              << "\n";
    std::cout << std::setprecision(2);
    std::cout << "  slowdown          avg " << slow.avg << "  p50 " << slow.p50 << "  p95 "
              << slow.p95 << "  p99 " << slow.p99 << "  max " << slow.max << "\n";
    std::cout << "  bottleneck queue  max " << qMax << " B, after every first RTT ("
              << stableFrom.GetMicroSeconds() << " us) max " << qStable << " B, avg "
              << std::setprecision(0) << qAvg << " B\n";
    std::cout << "  drops             " << dropTotal << " (stable stage " << stableDrops
              << ", first RTT " << firstRttDrops << ")";
    for (const auto& [reason, n] : dropList)
    {
        if (n)
        {
            std::cout << " " << reason << "=" << n;
        }
    }
    std::cout << "\n"
              << std::setprecision(1) << "  goodput           " << goodputActive / 1e9
              << " Gb/s while every flow is active after its first RTT (wire limit "
              << wireLimit / 1e9 << " Gb/s)\n";
    std::cout << "  ECN marks         " << c.marked << "; PFC pauses " << m_monitor->PauseFrames()
              << "; control frames " << c.control_forwarded << "\n";
    std::cout << std::setprecision(3) << "  smallest cw       "
              << (std::isfinite(minCw) ? minCw : -1)
              << " packets; sent with cw < 1: " << subPacketSends << "\n";
    std::cout << "  accounting        " << (inv.empty() ? "ok" : inv) << "\n";
    std::cout << std::setprecision(2) << "  wall " << wall << " s, " << events << " events ("
              << std::setprecision(0) << (wall > 0 ? events / wall : 0) << " events/s)\n";
    std::cout << "  wrote " << out << "/summary.json, " << out << "/fct.csv\n";
}

} // namespace ns3
