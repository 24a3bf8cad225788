/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-traces.h"

#include "rdma-cc-output.h"

#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{
namespace rdmacc
{

FlowTraces::FlowTraces(std::string out) :
    m_out(std::move(out))
{
}

void
FlowTraces::OpenRates()
{
    OpenPartial(m_ratesCsv, m_out + "/rates.csv");
    m_ratesCsv << "time_ns,flow_id,delivered_bytes,rate_bps\n";
}

bool
FlowTraces::RatesOpen() const
{
    return m_ratesCsv.is_open();
}

void
FlowTraces::RateRow(uint32_t id, uint64_t delivered)
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
FlowTraces::KeepRateSample(std::vector<uint64_t> delivered)
{
    m_rateTimes.push_back(Simulator::Now());
    m_rateDelivered.push_back(std::move(delivered));
}

Time
FlowTraces::LastSampleTime() const
{
    return m_rateTimes.empty() ? Seconds(-1) : m_rateTimes.back();
}

uint64_t
FlowTraces::DeliveredAt(uint32_t flowId, Time t) const
{
    uint64_t d = 0;
    for (size_t i = 0; i < m_rateTimes.size() && m_rateTimes[i] <= t; i++)
    {
        d = flowId < m_rateDelivered[i].size() ? m_rateDelivered[i][flowId] : 0;
    }
    return d;
}

void
FlowTraces::OpenFlows()
{
    OpenPartial(m_flowsCsv, m_out + "/flows.csv");
    m_flowsCsv << "time_ns,flow_id,cw,rate_bps,srtt_ns\n";
}

bool
FlowTraces::FlowsOpen() const
{
    return m_flowsCsv.is_open();
}

void
FlowTraces::OnFlowState(FlowTraces* self, uint32_t flowId, double cw, uint64_t rate, Time srtt)
{
    self->m_flowsCsv << Simulator::Now().GetNanoSeconds() << ',' << flowId << ',';
    if (std::isfinite(cw))
    {
        self->m_flowsCsv << cw;
    }
    self->m_flowsCsv << ',' << rate << ',' << srtt.GetNanoSeconds() << '\n';
}

void
FlowTraces::OpenRcc()
{
    OpenPartial(m_rccCsv, m_out + "/rcc.csv");
    m_rccCsv << "time_ns,node,port,prio,change,role,w_bytes,w_c_bytes\n";
}

void
FlowTraces::OnRccChange(FlowTraces* self,
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

void
FlowTraces::Commit()
{
    if (m_ratesCsv.is_open())
    {
        CommitPartial(m_ratesCsv, m_out + "/rates.csv");
    }
    if (m_flowsCsv.is_open())
    {
        CommitPartial(m_flowsCsv, m_out + "/flows.csv");
    }
    if (m_rccCsv.is_open())
    {
        CommitPartial(m_rccCsv, m_out + "/rcc.csv");
    }
}

} // namespace rdmacc
} // namespace ns3
