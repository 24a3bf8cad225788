/*
 * rdma-cc: run control of a simulation: the event scheduler, and one run of the simulator with
 * a progress line, measured (wall time, events).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RUN_CONTROL_H
#define RUN_CONTROL_H

#include "progress-line.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Chooses the event scheduler (call after the options are parsed, before the simulator's first
 * use). Unless NS_GLOBAL_VALUE names one: ns3::WindowScheduler (ns-3's order from a heap of
 * the current 4 us window and unsorted buckets of later windows: no allocation per event, and
 * cancelled timers far in the future stay out of the heap); every ns-3 scheduler runs the
 * events of one time stamp in insertion order, so that choice changes speed, never results
 * (docs/performance.md). With
 * `eventOrder` "canonical", or "auto" in a distributed (MPI) run: ns3::CanonicalScheduler (by
 * the node that scheduled the events and its count of events scheduled).
 * The simulator implementation: ns3::LeanSimulatorImpl (ns-3's default one, event for event,
 * with less work per event) unless NS_GLOBAL_VALUE names SimulatorImplementationType or the
 * run is distributed.
 * \param eventOrder the value of --eventOrder ("insertion" for a program without it)
 */
void ChooseScheduler(const std::string& eventOrder = "insertion");

/**
 * \ingroup rdma-cc
 * What one run of the simulator took.
 */
struct RunStats
{
    double wall = 0;     //!< wall-clock seconds
    uint64_t events = 0; //!< simulator events executed (the progress line's own not counted)
    uint64_t ties = 0;   //!< of them, at the previous one's time (canonical order)
};

/**
 * \ingroup rdma-cc
 * Runs the simulator (Simulator::Run) with a progress line on a terminal (no result changes),
 * after printing the warnings gathered so far (rdmacc::FlushWarnings).
 * \param progress the progress line
 * \return the run's wall time and events
 */
RunStats RunSimulator(ProgressLine& progress);

} // namespace rdmacc
} // namespace ns3

#endif /* RUN_CONTROL_H */
