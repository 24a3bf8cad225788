/*
 * bench-bridge: the cost of crossing the cxx bridge per packet (README "Performance").
 *
 *   ./waf --run "bench-bridge --calls=10000000"
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/rdma-cc-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint64_t calls = 2000000;
    CommandLine cmd(__FILE__);
    cmd.AddValue("calls", "calls of each kind", calls);
    cmd.Parse(argc, argv);
    if (calls == 0)
    {
        rdmacc::ConfigFatal("command line", "invalid --calls = 0: must be > 0");
    }
    const auto c = rdmacc::MeasureBridgeCost(calls);
    std::cout << std::fixed << std::setprecision(1);
    std::cout << "bench-bridge: " << calls << " calls each (wall clock; machine-dependent)\n";
    std::cout << "  RED/ECN verdict (on_enqueue)                  " << c.redEnqueueNs << " ns\n";
    std::cout << "  switch packet (on_arrival + on_departure)     " << c.switchNs << " ns\n";
    std::cout << "  QP data packet (poll + on_data + on_ack)      " << c.senderNs << " ns\n";
    std::cout << "  port scheduler (enqueue + next, DWRR)         " << c.schedNs << " ns\n";
    std::cout << "  (checksum " << c.checksum << ")\n";
    return 0;
}
