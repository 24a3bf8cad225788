/*
 * rdma-cc: the per-flow CSV traces of a scenario run: rates.csv (delivered bytes per flow at
 * a fixed interval, kept for DeliveredAt), flows.csv (every flow's window, rate and srtt) and
 * rcc.csv (RCM's budget changes). Rows only: when to write one is the scenario's call.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_TRACES_H
#define SCENARIO_TRACES_H

#include "ns3/nstime.h"

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * The CSV traces of flows (rates.csv, flows.csv, rcc.csv) of one run directory. Each is
 * written as a partial file and committed at the end of the run (rdmacc::CommitPartial).
 */
class FlowTraces
{
  public:
    /// \param out the run's output directory
    explicit FlowTraces(std::string out);

    /// Opens rates.csv (`time_ns,flow_id,delivered_bytes,rate_bps`).
    void OpenRates();
    /// \return whether rates.csv is open
    bool RatesOpen() const;
    /// rates.csv: flow `id`'s row now, `delivered` bytes (the rate since the last sample)
    void RateRow(uint32_t id, uint64_t delivered);
    /// Keeps the sample taken now: `delivered[flow id]` bytes.
    void KeepRateSample(std::vector<uint64_t> delivered);
    /// \return the time of the latest sample (negative: none)
    Time LastSampleTime() const;
    /// \return bytes flow `flowId` had delivered at the latest sample at or before `t`
    uint64_t DeliveredAt(uint32_t flowId, Time t) const;

    /// Opens flows.csv (`time_ns,flow_id,cw,rate_bps,srtt_ns`).
    void OpenFlows();
    /// \return whether flows.csv is open
    bool FlowsOpen() const;
    /// flows.csv: flow `flowId`'s row now (cw empty when not finite)
    static void OnFlowState(FlowTraces* self, uint32_t flowId, double cw, uint64_t rate, Time srtt);

    /// Opens rcc.csv (`time_ns,node,port,prio,change,role,w_bytes,w_c_bytes`).
    void OpenRcc();
    /// rcc.csv: a change of an output queue's RCC budget, as switch `node` reports it
    static void OnRccChange(FlowTraces* self,
                            uint32_t node,
                            uint32_t port,
                            uint8_t prio,
                            const char* change,
                            const char* role,
                            uint64_t w,
                            uint64_t wc);

    /// Commits every open trace (the end of the run).
    void Commit();

  private:
    std::string m_out;                                  //!< output directory
    std::ofstream m_ratesCsv;                           //!< rates.csv
    std::vector<Time> m_rateTimes;                      //!< times of the rate samples
    std::vector<std::vector<uint64_t>> m_rateDelivered; //!< [sample][flow] delivered bytes
    std::ofstream m_flowsCsv;                           //!< flows.csv
    std::ofstream m_rccCsv;                             //!< rcc.csv
};

} // namespace rdmacc
} // namespace ns3

#endif /* SCENARIO_TRACES_H */
