/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-monitor.h"

#include "rdma-cc-output.h"

#include "ns3/callback.h"
#include "ns3/simulator.h"

namespace ns3
{

FabricMonitor::FabricMonitor(const Fabric& fabric,
                             const std::string& outDir,
                             Time interval,
                             uint8_t prioMask) :
    m_fabric(fabric),
    m_dir(outDir),
    m_interval(interval),
    m_prios(prioMask),
    m_samples(0),
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
    const uint64_t durationNs = uint64_t(quanta) * 512 * 1000000000ULL / bps;
    self->m_pfc << Simulator::Now().GetNanoSeconds() << ',' << node << ',' << port << ','
                << int(prio) << ',' << (quanta ? "pause" : "resume") << ',' << quanta << ','
                << durationNs << '\n';
}

void
FabricMonitor::OnDrop(FabricMonitor* self,
                      uint32_t node,
                      Ptr<const Packet> p,
                      uint32_t port,
                      uint8_t prio,
                      const char* reason)
{
    self->m_drops << Simulator::Now().GetNanoSeconds() << ',' << node << ',' << port << ','
                  << int(prio) << ',' << reason << ',' << p->GetSize() << '\n';
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
    for (const auto& sw : m_fabric.switches)
    {
        const uint32_t id = sw->GetId();
        sw->SampleEgress(m_prios, m_sample);
        for (const auto& e : m_sample)
        {
            auto& s = m_q[{id, e.port, e.prio}];
            s.sum += e.bytes;
            s.max = std::max(s.max, e.bytes);
            m_queue << now << ',' << id << ',' << e.port << ',' << int(e.prio) << ',' << e.bytes
                    << '\n';
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

uint64_t
FabricMonitor::MaxQueue(uint32_t node, uint32_t port, uint8_t prio) const
{
    auto it = m_q.find({node, port, prio});
    return it == m_q.end() ? 0 : it->second.max;
}

double
FabricMonitor::AvgQueue(uint32_t node, uint32_t port, uint8_t prio) const
{
    auto it = m_q.find({node, port, prio});
    return (it == m_q.end() || m_samples == 0) ? 0 : it->second.sum / m_samples;
}

uint64_t
FabricMonitor::MaxQueueAnywhere() const
{
    uint64_t m = 0;
    for (const auto& [k, s] : m_q)
    {
        m = std::max(m, s.max);
    }
    return m;
}

uint64_t
FabricMonitor::PauseFrames() const
{
    return m_pauses;
}

uint64_t
FabricMonitor::ResumeFrames() const
{
    return m_resumes;
}

} // namespace ns3
