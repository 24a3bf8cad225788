/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-control.h"

#include "canonical-scheduler.h"
#include "rdma-cc-error.h"

#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <chrono>
#include <cstdlib>

namespace ns3
{
namespace rdmacc
{

void
ChooseScheduler(const std::string& eventOrder)
{
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    const std::string global = env != nullptr ? env : "";
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    const bool distributed = impl.Get() == "ns3::DistributedSimulatorImpl" ||
                             impl.Get() == "ns3::NullMessageSimulatorImpl";
    // ns-3's default implementation, event for event, with less work per event (the user's
    // choice in NS_GLOBAL_VALUE stays)
    if (impl.Get() == "ns3::DefaultSimulatorImpl" &&
        global.find("SimulatorImplementationType") == std::string::npos)
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::LeanSimulatorImpl"));
    }
    if (global.find("SchedulerType") != std::string::npos)
    {
        return; // the user's
    }
    const bool canonical = eventOrder == "canonical" || (eventOrder == "auto" && distributed);
    GlobalValue::Bind("SchedulerType",
                      StringValue(canonical ? "ns3::CanonicalScheduler" : "ns3::WindowScheduler"));
}

RunStats
RunSimulator(ProgressLine& progress)
{
    RunStats r;
    const uint64_t ev0 = Simulator::GetEventCount();
    auto t0 = std::chrono::steady_clock::now();
    progress.Start();
    // every check passed: the warnings about the run, then the run
    FlushWarnings();
    Simulator::Run();
    progress.Stop();
    r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.events = Simulator::GetEventCount() - ev0 - progress.Events();
    r.ties = CanonicalScheduler::TiesRun();
    return r;
}

} // namespace rdmacc
} // namespace ns3
