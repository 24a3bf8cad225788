/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "queue-disc-monitor.h"

#include "flow-results.h"
#include "rdma-cc-output.h"

#include "ns3/abort.h"
#include "ns3/red-ecn-queue-disc.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{
namespace rdmacc
{

QueueSampler::QueueSampler(Time every, const std::string& path) :
    m_every(every),
    m_path(path)
{
    OpenPartial(m_csv, m_path);
    m_csv << "time_ns,bytes\n";
}

void
QueueSampler::Start(Ptr<QueueDisc> q, Time at)
{
    m_q = q;
    Simulator::Schedule(at, &QueueSampler::Sample, this);
}

void
QueueSampler::Finish()
{
    CommitPartial(m_csv, m_path);
}

uint64_t
QueueSampler::Samples() const
{
    return m_n;
}

uint64_t
QueueSampler::Max() const
{
    return m_max;
}

double
QueueSampler::Mean() const
{
    return m_n ? double(m_sum) / m_n : 0;
}

uint64_t
QueueSampler::P99() const
{
    return Percentiles::OfHistogram(m_count, 99);
}

void
QueueSampler::Sample()
{
    const uint64_t b = m_q->GetNBytes();
    m_csv << Simulator::Now().GetNanoSeconds() << ',' << b << '\n';
    m_n++;
    m_sum += b;
    m_max = std::max(m_max, b);
    m_count[b]++;
    Simulator::Schedule(m_every, &QueueSampler::Sample, this);
}

void
QueueDiscCounters::Connect(Ptr<QueueDisc> q)
{
    const bool ok =
        q->TraceConnectWithoutContext("Enqueue",
                                      MakeBoundCallback(&QueueDiscCounters::OnEnqueue, this)) &&
        q->TraceConnectWithoutContext("Dequeue",
                                      MakeBoundCallback(&QueueDiscCounters::OnDequeue, this)) &&
        q->TraceConnectWithoutContext("DropBeforeEnqueue",
                                      MakeBoundCallback(&QueueDiscCounters::OnDrop, this)) &&
        q->TraceConnectWithoutContext("DropAfterDequeue",
                                      MakeBoundCallback(&QueueDiscCounters::OnDrop, this)) &&
        q->TraceConnectWithoutContext("Mark",
                                      MakeBoundCallback(&QueueDiscCounters::OnMark, this)) &&
        q->TraceConnectWithoutContext("BytesInQueue",
                                      MakeBoundCallback(&QueueDiscCounters::OnBytes, this));
    NS_ABORT_MSG_UNLESS(ok, "QueueDisc trace sources not found");
}

uint64_t
QueueDiscCounters::DropTotal() const
{
    uint64_t n = 0;
    for (const auto& [reason, count] : drops)
    {
        n += count;
    }
    return n;
}

uint64_t
QueueDiscCounters::Drops(const std::string& reason) const
{
    auto it = drops.find(reason);
    return it == drops.end() ? 0 : it->second;
}

void
QueueDiscCounters::OnEnqueue(QueueDiscCounters* self, Ptr<const QueueDiscItem>)
{
    self->enqueued++;
}

void
QueueDiscCounters::OnDequeue(QueueDiscCounters* self, Ptr<const QueueDiscItem>)
{
    self->dequeued++;
}

void
QueueDiscCounters::OnDrop(QueueDiscCounters* self, Ptr<const QueueDiscItem>, const char* reason)
{
    auto it = self->drops.find(reason);
    if (it == self->drops.end())
    {
        it = self->drops.emplace(reason, 0).first;
    }
    it->second++;
}

void
QueueDiscCounters::OnMark(QueueDiscCounters* self, Ptr<const QueueDiscItem>, const char*)
{
    self->marks++;
}

void
QueueDiscCounters::OnBytes(QueueDiscCounters* self, uint32_t, uint32_t now)
{
    self->peakBytes = std::max<uint64_t>(self->peakBytes, now);
}

std::vector<std::pair<std::string, uint64_t>>
RedEcnDropList(const QueueDiscCounters& counted)
{
    std::vector<std::pair<std::string, uint64_t>> dropList;
    for (const auto& reason : RedEcnQueueDisc::DropReasonNames())
    {
        dropList.emplace_back(reason, counted.Drops(reason));
    }
    return dropList;
}

void
CheckRedEcnAccounting(Invariants& inv, Ptr<QueueDisc> red, const QueueDiscCounters& counted)
{
    const auto& st = red->GetStats();
    const uint32_t inQueue = red->GetNPackets();
    std::vector<std::pair<bool, std::string>> accounting = {
        {st.nTotalReceivedPackets ==
                 st.nTotalEnqueuedPackets + st.nTotalDroppedPacketsBeforeEnqueue &&
             st.nTotalReceivedBytes == st.nTotalEnqueuedBytes + st.nTotalDroppedBytesBeforeEnqueue,
         "received != enqueued + dropped before enqueue"},
        {uint32_t(st.nTotalEnqueuedPackets - st.nTotalDequeuedPackets) == inQueue &&
             st.nTotalEnqueuedBytes - st.nTotalDequeuedBytes == red->GetNBytes(),
         "enqueued != dequeued + in queue"},
        {st.nTotalDroppedPackets ==
             st.nTotalDroppedPacketsBeforeEnqueue + st.nTotalDroppedPacketsAfterDequeue,
         "dropped != dropped before enqueue + after dequeue"},
        {uint32_t(counted.enqueued) == st.nTotalEnqueuedPackets &&
             uint32_t(counted.dequeued) == st.nTotalDequeuedPackets &&
             uint32_t(counted.marks) == st.nTotalMarkedPackets &&
             uint32_t(counted.DropTotal()) == st.nTotalDroppedPackets,
         "trace counts differ from QueueDisc::Stats"},
        {counted.marks <= counted.enqueued, "more marks than enqueued packets"},
    };
    uint64_t namedDrops = 0;
    for (const auto& reason : RedEcnQueueDisc::DropReasonNames())
    {
        namedDrops += counted.Drops(reason);
        accounting.emplace_back(uint32_t(counted.Drops(reason)) == st.GetNDroppedPackets(reason),
                                "drops of " + reason + " differ from QueueDisc::Stats");
    }
    accounting.emplace_back(namedDrops == counted.DropTotal(), "drops with an unknown reason");
    for (const auto& [ok, what] : accounting)
    {
        inv.Check(ok, "RedEcnQueueDisc accounting: " + what);
    }
}

} // namespace rdmacc
} // namespace ns3
