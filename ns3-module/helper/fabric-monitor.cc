/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-monitor.h"

#include "../model/detail/switch-egress-samples.h"
#include "rdma-cc-output.h"

#include "ns3/callback.h"
#include "ns3/cancel-event.h"
#include "ns3/simulator.h"

namespace ns3
{

/// One switch's egress sample, reused from one sampling to the next.
struct FabricMonitor::EgressBuffer
{
    SwitchNode::EgressSamples s;
};

FabricMonitor::FabricMonitor(const Fabric& fabric,
                             const std::string& outDir,
                             Time interval,
                             uint8_t prioMask) :
    m_fabric(fabric),
    m_dir(outDir),
    m_interval(interval),
    m_prios(prioMask),
    m_samples(0),
    m_sample(std::make_unique<EgressBuffer>()),
    m_pauses(0),
    m_resumes(0),
    m_finished(false)
{
    // registered partial files: a run stopped by ConfigFatal leaves none behind
    rdmacc::OpenPartial(m_pfc, m_dir + "/pfc.csv");
    rdmacc::OpenPartial(m_drops, m_dir + "/drops.csv");
    m_pfc << "time_ns,node,port,prio,kind,quanta,duration_ns\n";
    m_drops << "time_ns,node,port,prio,reason,bytes\n";
    if (m_interval.IsStrictlyPositive())
    {
        rdmacc::OpenPartial(m_queue, m_dir + "/queue.csv");
        m_queue << "time_ns,node,port,prio,bytes\n";
        m_next = Simulator::Schedule(Seconds(0), &FabricMonitor::Sample, this);
    }
    for (const auto& sw : fabric.switches)
    {
        const uint32_t id = sw->GetId();
        m_switchIndex[id] = static_cast<uint32_t>(m_q.size());
        m_q.emplace_back(std::size_t(sw->GetNPorts()) * 8);
        for (uint32_t port = 0; port < sw->GetNPorts(); port++)
        {
            sw->GetPort(port)->TraceConnectWithoutContext(
                "PfcTx",
                MakeBoundCallback(&FabricMonitor::OnPfcTx,
                                  this,
                                  id,
                                  port,
                                  sw->GetPort(port)->GetDataRate().GetBitRate()));
        }
        sw->TraceConnectWithoutContext("Drop", MakeBoundCallback(&FabricMonitor::OnDrop, this, id));
    }
    for (const auto& d : fabric.hostDevices)
    {
        d->TraceConnectWithoutContext("PfcTx",
                                      MakeBoundCallback(&FabricMonitor::OnPfcTx,
                                                        this,
                                                        d->GetNode()->GetId(),
                                                        0u,
                                                        d->GetDataRate().GetBitRate()));
    }
}

FabricMonitor::~FabricMonitor()
{
    // files of a run that did not reach Finish() keep their .partial names (ConfigFatal
    // removes them: they are registered)
}

void
FabricMonitor::OnPfcTx(
    FabricMonitor* self, uint32_t node, uint32_t port, uint64_t bps, uint8_t prio, uint16_t quanta)
{
    (quanta ? self->m_pauses : self->m_resumes)++;
    if (quanta && prio < self->m_pausesByPrio.size())
    {
        self->m_pausesByPrio[prio]++;
    }
    const uint64_t durationNs = uint64_t(quanta) * 512 * 1000000000ULL / bps;
    rdmacc::CsvRow r;
    r << Simulator::Now().GetNanoSeconds() << ',' << node << ',' << port << ',' << int(prio) << ','
      << (quanta ? "pause" : "resume") << ',' << quanta << ',' << durationNs << '\n';
    r.WriteTo(self->m_pfc);
}

void
FabricMonitor::OnDrop(FabricMonitor* self,
                      uint32_t node,
                      Ptr<const Packet> p,
                      uint32_t port,
                      uint8_t prio,
                      const char* reason)
{
    rdmacc::CsvRow r;
    r << Simulator::Now().GetNanoSeconds() << ',' << node << ',' << port << ',' << int(prio) << ','
      << reason << ',' << p->GetSize() << '\n';
    r.WriteTo(self->m_drops);
}

void
FabricMonitor::Sample()
{
    if (m_finished)
    {
        return;
    }
    m_samples++;
    const int64_t now = Simulator::Now().GetNanoSeconds();
    // only the non-empty queues (an empty one adds nothing to a sum or a maximum, and has no
    // row): the cost is what is recorded, not switches x ports x priorities
    for (std::size_t i = 0; i < m_fabric.switches.size(); i++)
    {
        const auto& sw = m_fabric.switches[i];
        const uint32_t id = sw->GetId();
        sw->SampleEgress(m_prios, m_sample->s);
        auto& stats = m_q[i];
        for (const auto& e : m_sample->s.v)
        {
            const std::size_t k = std::size_t(e.port) * 8 + e.prio;
            if (k >= stats.size())
            {
                stats.resize(k + 1); // a port added after the monitor was made
            }
            auto& s = stats[k];
            s.sum += e.bytes;
            s.max = std::max(s.max, e.bytes);
            rdmacc::CsvRow r;
            r << now << ',' << id << ',' << e.port << ',' << int(e.prio) << ',' << e.bytes << '\n';
            r.WriteTo(m_queue);
        }
    }
    m_next = Simulator::Schedule(m_interval, &FabricMonitor::Sample, this);
}

void
FabricMonitor::StartSamplingAt(Time at)
{
    if (m_interval.IsStrictlyPositive() && m_samples == 0)
    {
        Simulator::Remove(m_next);
        rdmacc::CancelEvent(m_next); // Remove skips an event it calls expired
        m_next = Simulator::Schedule(at - Simulator::Now(), &FabricMonitor::Sample, this);
    }
}

void
FabricMonitor::Finish()
{
    if (m_finished)
    {
        return;
    }
    m_finished = true;
    rdmacc::CommitPartial(m_pfc, m_dir + "/pfc.csv");
    rdmacc::CommitPartial(m_drops, m_dir + "/drops.csv");
    if (m_queue.is_open())
    {
        rdmacc::CommitPartial(m_queue, m_dir + "/queue.csv");
    }
}

const FabricMonitor::QueueStat*
FabricMonitor::Find(uint32_t node, uint32_t port, uint8_t prio) const
{
    auto it = m_switchIndex.find(node);
    if (it == m_switchIndex.end() || prio >= 8)
    {
        return nullptr;
    }
    const auto& stats = m_q[it->second];
    const std::size_t k = std::size_t(port) * 8 + prio;
    return k < stats.size() ? &stats[k] : nullptr;
}

uint64_t
FabricMonitor::MaxQueue(uint32_t node, uint32_t port, uint8_t prio) const
{
    const QueueStat* s = Find(node, port, prio);
    return s ? s->max : 0;
}

double
FabricMonitor::AvgQueue(uint32_t node, uint32_t port, uint8_t prio) const
{
    const QueueStat* s = Find(node, port, prio);
    return (s == nullptr || m_samples == 0) ? 0 : s->sum / m_samples;
}

uint64_t
FabricMonitor::MaxQueueAnywhere() const
{
    uint64_t m = 0;
    for (const auto& stats : m_q)
    {
        for (const auto& s : stats)
        {
            m = std::max(m, s.max);
        }
    }
    return m;
}

uint64_t
FabricMonitor::PauseFrames() const
{
    return m_pauses;
}

uint64_t
FabricMonitor::PauseFrames(uint8_t prio) const
{
    return prio < m_pausesByPrio.size() ? m_pausesByPrio[prio] : 0;
}

uint64_t
FabricMonitor::ResumeFrames() const
{
    return m_resumes;
}

} // namespace ns3
