/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaScenario's run control: the checks before the run (limit, memory, output sizes), the
// run (until every flow is done, or for a duration), its progress and stop, and the traces
// the run feeds (rates.csv, flows.csv, drops by flow, the stable stage).
#include "rdma-cc-error.h"
#include "rdma-scenario.h"
#include "run-control.h"

#include "ns3/roce-header.h"
#include "ns3/simulator.h"

#ifdef NS3_MPI
#include <mpi.h>
#endif

#include <sstream>

namespace ns3
{

#ifdef NS3_MPI
namespace
{
/// CheckDoneGlobal's state (a distributed run's program runs one scenario)
struct GlobalDone
{
    MPI_Comm comm = MPI_COMM_NULL;          //!< a copy of MPI_COMM_WORLD for these sums alone
    MPI_Request request = MPI_REQUEST_NULL; //!< the sum in flight
    unsigned long long local = 0;           //!< this rank's finished flows at the last check
    unsigned long long sum = 0;             //!< every rank's, once the request completes
};

GlobalDone g_globalDone;
} // namespace
#endif

void
RdmaScenario::EnableRateSeries(Time every)
{
    m_traces->OpenRates();
    Simulator::Schedule(Seconds(0), &RdmaScenario::SampleRates, this, every);
}

void
RdmaScenario::TakeRateSample()
{
    std::vector<uint64_t> delivered(m_nextFlowId, 0);
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        // a flow handed over (RdmaNic::SetFlowHandOver) is no longer in GetFlowRecords: it
        // finished, and its receiver here had every byte (none on another process's host)
        if (m_done[id] && nics[m_flowDst[id]]->IsLocal())
        {
            delivered[id] = m_flowBytes[id];
        }
    }
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
        if (TimeStep(m_starts[id]) <= now && !m_done[id])
        {
            m_traces->RateRow(id, delivered[id]);
        }
    }
    m_traces->KeepRateSample(std::move(delivered));
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
    return m_traces->DeliveredAt(flowId, t);
}

void
RdmaScenario::WriteFlowRow(uint32_t id)
{
    const auto st = nics[m_flowSrc[id]]->GetFlowState(m_flowQp[id]);
    rdmacc::FlowTraces::OnFlowState(m_traces.get(), id, st.cw, st.rate, st.srtt);
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
    if (prio < self->dropsByPrio.size())
    {
        self->dropsByPrio[prio]++;
    }
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
        if (self->m_traces->RatesOpen())
        {
            // finished: its last byte is acknowledged, so every byte was delivered
            self->m_traces->RateRow(r.flowId, r.size);
        }
        // (sampled: the finish row; changes only: the last change is the last row)
        if (self->m_traces->FlowsOpen() && self->m_opts.GetTime("flowSample").IsStrictlyPositive())
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
    if (self->m_traces->FlowsOpen() && self->m_opts.GetTime("flowSample").IsStrictlyPositive() &&
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
        for (uint8_t p = 0; p < self->m_overallMaxByPrio.size(); p++)
        {
            self->m_overallMaxByPrio[p] =
                self->bottleneckSwitch->GetMaxEgressBytes(self->m_bottleneck, p);
        }
        self->bottleneckSwitch->ResetMaxEgress();
    }
}

Time
RdmaScenario::FirstStart() const
{
    Time first = Seconds(0);
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        first = id == 0 ? TimeStep(m_starts[id]) : std::min(first, TimeStep(m_starts[id]));
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
RdmaScenario::CheckDoneGlobal(Time every)
{
#ifdef NS3_MPI
    // Every rank runs this event at the same simulated times. The sum started at the previous
    // check has every rank's contribution once each has run that check, which every rank can:
    // a rank here has run everything before now, so it has told its neighbours (frames, null
    // messages, or a granted window) enough for them to reach the previous check. Stopped at the
    // same time on every rank: the sum is the same everywhere.
    GlobalDone& g = g_globalDone;
    if (g.request != MPI_REQUEST_NULL)
    {
        MPI_Wait(&g.request, MPI_STATUS_IGNORE);
        if (g.sum >= m_nextFlowId)
        {
            Simulator::Stop();
            return;
        }
    }
    g.local = m_completed;
    MPI_Iallreduce(&g.local, &g.sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, g.comm, &g.request);
    Simulator::Schedule(every, &RdmaScenario::CheckDoneGlobal, this, every);
#endif
}

void
RdmaScenario::EndCheckDoneGlobal()
{
#ifdef NS3_MPI
    GlobalDone& g = g_globalDone;
    if (g.request != MPI_REQUEST_NULL)
    {
        // started at the same check on every rank (a run stopped by --limit): completes
        MPI_Wait(&g.request, MPI_STATUS_IGNORE);
    }
    if (g.comm != MPI_COMM_NULL)
    {
        MPI_Comm_free(&g.comm);
    }
#endif
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
RdmaScenario::CheckLimit() const
{
    // a limit the flows cannot finish within is a configuration error, not a cut run: the
    // least a run takes is the latest flow's start plus its FCT lower bound, and the busiest
    // receiver's frames on its link (Rust's check, pfc-incast's too)
    std::vector<uint64_t> bounds;
    std::vector<uint32_t> receivers;
    std::vector<uint64_t> rates;
    std::map<uint32_t, uint32_t> receiverOf; // destination host -> index into rates
    for (uint32_t id = 0; id < m_nextFlowId; id++)
    {
        bounds.push_back((TimeStep(m_starts[id]) + TimeStep(m_idealFct[id])).GetNanoSeconds());
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
}

void
RdmaScenario::Run(uint32_t bottleneckPort)
{
    if (sw)
    {
        // a single switch: port i leads to host i
        SetBottleneck(sw, bottleneckPort, bottleneckPort);
    }
    CheckLimit();
    Simulator::Stop(m_opts.GetTime("limit"));
    // polled from the first start on: idle time before it costs no event
    if (!m_distributed)
    {
        Simulator::Schedule(
            FirstStart() + MicroSeconds(10), &RdmaScenario::CheckDone, this, MicroSeconds(10));
    }
    else
    {
#ifdef NS3_MPI
        // a distributed run stops one check (10 us) after one process would: the sum taken at
        // a check is read at the next
        MPI_Comm_dup(MPI_COMM_WORLD, &g_globalDone.comm);
        Simulator::Schedule(FirstStart() + MicroSeconds(10),
                            &RdmaScenario::CheckDoneGlobal,
                            this,
                            MicroSeconds(10));
#endif
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
        lastStart = std::max(lastStart, TimeStep(m_starts[id]));
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
    ConnectFlowTraces();
    // a progress line on a terminal (rdmacc::ProgressLine: no result changes)
    const bool timed = !m_duration.IsStrictlyNegative();
    rdmacc::ProgressLine progress(
        m_name,
        timed ? m_duration : m_opts.GetTime("limit"),
        timed ? "the run" : "--limit=" + m_opts.GetAsText("limit"),
        [this] { return std::make_pair(uint64_t(m_completed), uint64_t(m_nextFlowId)); });
    const rdmacc::RunStats stats = rdmacc::RunSimulator(progress);
    wall = stats.wall;
    events = stats.events;
    ties = stats.ties;
    if (m_distributed)
    {
        EndCheckDoneGlobal();
        GatherFlows();
    }
    CommitTraces();
}

void
RdmaScenario::ConnectFlowTraces()
{
    for (const auto& nic : nics)
    {
        nic->TraceConnectWithoutContext("FirstFeedback",
                                        MakeBoundCallback(&RdmaScenario::OnFirstFeedback, this));
        nic->TraceConnectWithoutContext("FlowComplete",
                                        MakeBoundCallback(&RdmaScenario::OnFlowComplete, this));
        // a flow's record leaves memory once it is final (memory follows the flows in progress)
        nic->SetFlowHandOver(MakeBoundCallback(&RdmaScenario::OnHandOver, this));
    }
}

void
RdmaScenario::OnHandOver(RdmaScenario* self, const FlowRecord& r)
{
    self->Store().Put(r);
}

void
RdmaScenario::CommitTraces()
{
    if (m_traces->RatesOpen() && m_traces->LastSampleTime() < Simulator::Now())
    {
        TakeRateSample(); // the end of the run
    }
    m_monitor->Finish();
    m_traces->Commit();
}

} // namespace ns3
