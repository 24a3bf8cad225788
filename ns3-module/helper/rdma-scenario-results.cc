/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaScenario's results: the flow records (every rank's, in a distributed run), the totals
// and invariants of the run, and its files (summary.json, fct.csv, config.json) and table.
#include "canonical-scheduler.h"
#include "rdma-scenario.h"

#include "ns3/simulator.h"

#include "rdma-cc/src/switch.rs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <iterator>
#include <sstream>

namespace ns3
{

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
RdmaScenario::Finish(uint32_t bottleneckPort, const rdmacc::JsonObject& extra)
{
    if (sw)
    {
        SetBottleneck(sw, bottleneckPort, bottleneckPort);
    }
    Finish(extra);
}

rdmacc::BottleneckFigures
RdmaScenario::MeasureBottleneck() const
{
    rdmacc::BottleneckFigures b;
    const Ptr<SwitchNode> bsw = bottleneckSwitch;
    const uint32_t sid = bsw->GetId();
    // exact maxima: overall = before and after the reset at the end of the first RTTs
    b.qStable = bsw->GetMaxEgressBytes(m_bottleneck, DataPriority());
    b.qMax = std::max(m_overallMax, b.qStable);
    b.qAvg = m_monitor->AvgQueue(sid, m_bottleneck, DataPriority());
    // goodput at the bottleneck's receiver while every flow is active and past its first RTT:
    // from stableFrom to the first completion (0 when that interval does not exist)
    if (!stableFrom.IsStrictlyNegative() && firstDone > stableFrom)
    {
        b.span = (firstDone - stableFrom).GetSeconds();
        b.goodputActive = double(deliveredAtFirstDone - deliveredAtStable) * 8 / b.span;
    }
    else if (!stableFrom.IsStrictlyNegative() && firstDone.IsStrictlyNegative() &&
             Simulator::Now() > stableFrom)
    {
        // a run of fixed duration that ended with every flow active
        b.span = (Simulator::Now() - stableFrom).GetSeconds();
        b.goodputActive = double(DeliveredNow() - deliveredAtStable) * 8 / b.span;
    }
    b.wireLimit = PayloadLimit();
    return b;
}

rdmacc::Invariants
RdmaScenario::CheckInvariants(const FlowPass& flows, const rdmacc::RunReport& r) const
{
    // every run checks its own invariants; any failure is reported and makes the exit status 3
    rdmacc::Invariants inv;
    inv.Check(r.fabricTotals.accounting.empty(), "switch accounting: " + r.fabricTotals.accounting);
    const bool timed = !m_duration.IsStrictlyNegative();
    if (r.totals.done < flows.flows && !timed)
    {
        inv.Fail(
            std::to_string(flows.flows - r.totals.done) + " of " + std::to_string(flows.flows) +
            " flows unfinished when --limit=" + m_opts.GetAsText("limit") + " ended the run (" +
            std::to_string(r.totals.sent - r.totals.delivered) + " B undelivered)");
    }
    if (!flows.failure.empty())
    {
        inv.Fail(flows.failure);
    }
    if (!MultiClass() && Lossless() && r.fabricTotals.drops > 0)
    {
        inv.Fail("the data priority is lossless (--pfc=1) but " +
                 std::to_string(r.fabricTotals.drops) + " frames were dropped");
    }
    if (MultiClass())
    {
        // several classes: no frame of a lossless priority is lost (the lossy ones may drop)
        for (uint8_t p = 0; p < dropsByPrio.size(); p++)
        {
            if (((m_pfcMask >> p) & 1u) && dropsByPrio[p] > 0)
            {
                inv.Fail("priority " + std::to_string(p) + " is lossless (--pfc) but " +
                         std::to_string(dropsByPrio[p]) + " of its frames were dropped");
            }
        }
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
    if (r.fabricTotals.controlDrops > 0)
    {
        inv.Fail(std::to_string(r.fabricTotals.controlDrops) +
                 " control frames dropped (control pool exhausted)");
    }
    rdmacc::CheckBottleneckInvariants(inv, r.bottleneck, bufMaxB, Mtu());
    return inv;
}

namespace
{

/// summary.json's `int`: INT's figures (only with INT: runs without it keep their outputs)
rdmacc::JsonObject
IntJson(uint32_t bytesOnWire, const RdmaNic::IntStats& is)
{
    rdmacc::JsonObject io;
    io.UInt("bytes_on_wire", bytesOnWire)
        .UInt("acks", is.acks)
        .UInt("hops_min", is.hopsMin)
        .UInt("hops_max", is.hopsMax)
        .UInt("hop_mismatch", is.hopMismatch)
        .UInt("non_monotone", is.nonMonotone);
    return io;
}

/// summary.json's `reads`: the READ flows' figures
rdmacc::JsonObject
ReadsJson(uint64_t reads, uint64_t done, uint64_t bytesDelivered, uint64_t repeatRequests)
{
    rdmacc::JsonObject ro;
    ro.UInt("flows", reads)
        .UInt("done", done)
        .UInt("bytes_delivered", bytesDelivered)
        .UInt("repeat_requests", repeatRequests);
    return ro;
}

} // namespace

void
RdmaScenario::WriteResults(const rdmacc::JsonObject& extra,
                           const FlowPass& flows,
                           const rdmacc::RunReport& r,
                           const rdmacc::Invariants& inv,
                           std::vector<std::string>& tables) const
{
    const rdmacc::FlowTotals& t = r.totals;
    const rdmacc::FabricTotals& f = r.fabricTotals;
    const rdmacc::BottleneckFigures& b = r.bottleneck;
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
    s.UInt("flows_total", flows.flows).UInt("flows_done", t.done);
    const bool timed = !m_duration.IsStrictlyNegative();
    w.Ending(t.done == flows.flows, timed ? rdmacc::RunEnds::Duration : rdmacc::RunEnds::FlowsDone)
        .Bytes(t.sent, t.delivered)
        .Drops(f.dropList);
    s.UInt("stable_stage_drops", stableDrops)
        .UInt("first_rtt_drops", firstRttDrops)
        .Int("stable_from_ns", stableFrom.GetNanoSeconds())
        .Int("first_done_ns", firstDone.GetNanoSeconds())
        .Num("goodput_active_bps", b.goodputActive);
    w.WireLimit(b.wireLimit);
    s.UInt("pfc_pause_frames", r.pauses).UInt("control_frames", f.controlForwarded);
    w.Marks(f.marked).Queue(b.qMax, b.qAvg);
    s.UInt("queue_max_stable_bytes", stableFrom.IsStrictlyNegative() ? 0 : b.qStable)
        .Obj("fct_ns", t.fct.ToJson())
        .Obj("slowdown", t.slow.ToJson())
        .UInt("retx_bytes", t.retx)
        .UInt("spurious_retx_bytes", t.dup)
        .Num("cw_min", std::isfinite(t.minCw) ? t.minCw : -1)
        .UInt("sub_packet_sends", t.subPacketSends)
        .UInt("data_packets_sent", t.packetsSent)
        .UInt("data_frame_hops", f.dataFrameHops)
        .UInt("probes_sent", t.probesSent)
        .UInt("k_min_bytes", kMinB)
        .UInt("k_max_bytes", kMaxB)
        .UInt("k_fs_bytes", kFsB)
        .UInt("buf_max_bytes", bufMaxB)
        .Obj("rcm", RcmSummary())
        .Obj("setup", Setup());
    if (m_int)
    {
        s.Obj("int", IntJson(IntBytes(), IntTotals()));
    }
    if (flows.reads > 0)
    {
        // only with READs: other runs keep their outputs
        s.Obj("reads", ReadsJson(flows.reads, flows.readsDone, flows.readBytes, flows.rereads));
    }
    if (m_buckets)
    {
        s.Obj("slowdown_buckets",
              rdmacc::WriteSlowdownBuckets(Out() + "/buckets.csv", flows.columns, tables));
    }
    // by class (SetFlowClasses) and by size class (EnableSizeClasses): only when asked for, so
    // that other runs keep their outputs
    const bool classes = !m_classOrder.empty();
    if (classes)
    {
        s.Obj("fct_by_class", rdmacc::FctByClass(flows.columns, m_classOf, m_classOrder, tables));
    }
    if (m_sizeClasses)
    {
        s.Obj("fct_by_size", rdmacc::FctBySize(flows.columns, tables));
    }
    // by traffic class (data priority): only when the flows use several (or not the NICs'
    // default), so that one-class runs keep their outputs
    const bool multiClass = MultiClass();
    if (multiClass)
    {
        s.Obj("classes", ClassSummary(flows.columns, tables));
    }
    w.Write(Out() + "/summary.json", inv);
    WriteFct(classes, multiClass, flows.ops);
    m_opts.WriteConfig(Out(), Resolved(), m_case);
}

rdmacc::JsonObject
RdmaScenario::ClassSummary(const rdmacc::FlowColumns& flows, std::vector<std::string>& tables) const
{
    rdmacc::JsonObject classes;
    tables.emplace_back("  by class (data priority)");
    std::ostringstream head;
    head << "  " << std::setw(4) << "prio" << std::setw(6) << "PFC" << std::setw(5) << "ECN"
         << std::setw(8) << "flows" << std::setw(12) << "unfinished" << std::setw(13)
         << "FCT avg us" << std::setw(13) << "FCT p99 us" << std::setw(15) << "slowdown p99"
         << std::setw(8) << "drops" << std::setw(9) << "PAUSEs" << std::setw(13) << "paused us";
    tables.push_back(head.str());
    for (uint8_t p = 0; p < 8; p++)
    {
        const auto& prio = *flows.priority;
        const bool hasFlows = std::any_of(
            prio.begin(), prio.begin() + flows.Flows(), [p](uint8_t q) { return q == p; });
        const uint64_t pauses = m_monitor->PauseFrames(p);
        if (!hasFlows && dropsByPrio[p] == 0 && pauses == 0)
        {
            continue; // a class without flows, drops or PAUSEs has nothing to report
        }
        const rdmacc::ClassFigures c =
            rdmacc::ClassFigures::Of(flows, [&prio, p](size_t id) { return prio[id] == p; });
        const rdmacc::Percentiles slow = rdmacc::Percentiles::Of(
            rdmacc::Slowdowns(flows, [&prio, p](size_t id) { return prio[id] == p; }));
        const bool lossless = (m_pfcMask >> p) & 1u;
        const bool marked = (m_ecnMask >> p) & 1u;
        rdmacc::JsonObject o;
        o.Bool("lossless", lossless)
            .Bool("ecn", marked)
            .Merge(c.ToJson())
            .Obj("slowdown", slow.ToJson())
            .UInt("bottleneck_queue_max_bytes",
                  std::max(m_overallMaxByPrio[p],
                           bottleneckSwitch->GetMaxEgressBytes(m_bottleneck, p)))
            .UInt("drops", dropsByPrio[p])
            .UInt("pfc_pause_frames", pauses)
            .Int("paused_ns", PausedTime(p).GetNanoSeconds());
        classes.Obj(std::to_string(p), o);
        std::ostringstream row;
        row << "  " << std::setw(4) << int(p) << std::setw(6) << (lossless ? "on" : "off")
            << std::setw(5) << (marked ? "on" : "off") << std::setw(8) << c.flows << std::setw(12)
            << c.unfinished << std::fixed << std::setprecision(1) << std::setw(13)
            << c.fct.avg / 1e3 << std::setw(13) << c.fct.p99 / 1e3 << std::setprecision(2)
            << std::setw(15) << slow.p99 << std::setw(8) << dropsByPrio[p] << std::setw(9) << pauses
            << std::setprecision(1) << std::setw(13)
            << double(PausedTime(p).GetNanoSeconds()) / 1e3;
        tables.push_back(row.str());
    }
    return classes;
}

void
RdmaScenario::Finish(const rdmacc::JsonObject& extra)
{
    const FlowPass flows = PassOverFlows();
    rdmacc::RunReport r;
    r.name = m_name;
    r.caseName = m_case;
    r.cc = Cc();
    r.fabric = m_fabricText.empty()
                   ? m_opts.GetAsText("rate") + " links, " + m_opts.GetAsText("delay") + " delay"
                   : m_fabricText;
    r.out = Out();
    r.flows = flows.flows;
    r.kMin = kMinB;
    r.kMax = kMaxB;
    r.pMax = pMax;
    r.kFs = kFsB;
    r.lossless = Lossless();
    r.stableFromUs = stableFrom.GetMicroSeconds();
    r.stableDrops = stableDrops;
    r.firstRttDrops = firstRttDrops;
    r.pauses = m_monitor->PauseFrames();
    r.wall = wall;
    r.events = events;
    r.buckets = m_buckets;
    r.totals = flows.totals;
    r.fabricTotals = rdmacc::FabricTotals::Of(fabric);
    r.bottleneck = MeasureBottleneck();
    const rdmacc::Invariants inv = CheckInvariants(flows, r);
    std::vector<std::string> tables;
    WriteResults(extra, flows, r, inv, tables);
    // fct.csv is complete: the records' temporary file goes
    if (m_store)
    {
        m_store->Remove();
    }
    m_finished = true;
    rdmacc::PrintRunTable(r, inv.Verdict(), tables, m_quiet);
    m_exitStatus = inv.Report();
}

} // namespace ns3
