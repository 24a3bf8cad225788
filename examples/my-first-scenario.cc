/*
 * my-first-scenario: the shortest program with the shared scenario layer (RdmaScenario), the
 * starting point of docs/writing-a-scenario.md. Four hosts on one switch; each sends a
 * message to the next one around the ring, and host 0 also sends to host 2. Every option of
 * the RDMA examples works here (--cc, --rate, --alpha, --ns3::RdmaNic::..., --config, --help),
 * and the run writes the outputs every example writes (summary.json, fct.csv, config.json, ...).
 *
 *   ./waf --run my-first-scenario
 *   ./waf --run "my-first-scenario --cc=dcqcn --size=1MB"
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/rdma-cc-module.h"

using namespace ns3;

int
main(int argc, char* argv[])
{
    RdmaScenario sc("my-first-scenario",
                    "four hosts on one switch, each sending --size bytes to the next around a "
                    "ring, and host 0 to host 2 as well");
    sc.Opts().Bytes(
        "size", "262144", "message bytes of every flow", rdmacc::Options::Range::AtLeast(1));
    sc.Parse(argc, argv); // every option, checked; --help lists them
    const uint64_t size = sc.Opts().GetBytes("size");

    sc.BuildSingleSwitch(4); // hosts 0..3 on one switch, with NICs
    for (uint32_t i = 0; i < 4; i++)
    {
        sc.AddFlow(i, (i + 1) % 4, size, Seconds(0)); // host i -> host i + 1
    }
    sc.AddFlow(0, 2, size, MicroSeconds(10)); // a second flow into host 2, 10 us later

    sc.Run(2);                          // host 2's switch port is the bottleneck reported
    sc.Finish(2, rdmacc::JsonObject()); // prints the summary, writes the files
    const int status = sc.ExitStatus(); // 3 if an invariant failed
    Simulator::Destroy();
    return status;
}
