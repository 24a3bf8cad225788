/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "queue-disc-monitor.h"

#include "flow-results.h"
#include "rdma-cc-output.h"

#include "ns3/abort.h"
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

} // namespace rdmacc
} // namespace ns3
