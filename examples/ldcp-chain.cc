/*
 * ldcp-chain: a two-bottleneck chain ("parking lot"). Three switches S0 - S1 - S2 in a line;
 * a long flow A crosses both inter-switch links, flow B shares the first with it and flow C the
 * second. Every link has --rate and --delay, so both S0 -> S1 and S1 -> S2 are bottlenecks of
 * two flows each: max-min fairness gives every flow half a link; a scheme that counts each
 * bottleneck's marks separately gives A less (the multi-bottleneck beat-down the LDCP draft's
 * per-ACK rule must also face).
 *
 *   ./waf --run ldcp-chain
 *   ./waf --run "ldcp-chain --cc=dcqcn --duration=20ms"
 *
 * Hosts: 0 (A's source) and 1 (B's source) on S0, 2 (B's receiver) and 3 (C's source) on S1,
 * 4 (A's and C's receiver) on S2. The run lasts --duration exactly; the flows are long enough to
 * outlast it. Prints each flow's rate over the last half and each bottleneck link's use;
 * summary.json adds settled_rate_bps (flow id: 0 A, 1 B, 2 C), link_use (the two links'
 * payload rate over the last half, as a fraction of the wire limit) and long_flow_share (A's
 * rate over A's and B's). The reported queue is S0's port toward S1.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    RdmaScenario sc("ldcp-chain",
                    "Two-bottleneck chain S0 - S1 - S2: flow A (host 0 on S0 -> host 4 on S2) "
                    "crosses both inter-switch links, flow B (host 1 on S0 -> host 2 on S1) shares "
                    "the first, flow C (host 3 on S1 -> host 4) the second. The run lasts "
                    "--duration; prints each flow's rate and each link's use over the last half.");
    sc.Opts()
        .Duration("duration", "4ms", "simulated time of the run", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "10us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0));
    sc.Parse(argc, argv);
    const Time duration = sc.Opts().GetTime("duration");
    Ptr<SwitchNode> s0;
    sc.BuildFabric(
        [&s0](FabricHelper& fh)
        {
            s0 = fh.AddSwitch();
            Ptr<SwitchNode> s1 = fh.AddSwitch();
            Ptr<SwitchNode> s2 = fh.AddSwitch();
            fh.Connect(fh.AddHost(), s0); // host 0: A's source
            fh.Connect(fh.AddHost(), s0); // host 1: B's source
            fh.Connect(fh.AddHost(), s1); // host 2: B's receiver
            fh.Connect(fh.AddHost(), s1); // host 3: C's source
            fh.Connect(fh.AddHost(), s2); // host 4: A's and C's receiver
            fh.Connect(s0, s1);
            fh.Connect(s1, s2);
            return fh.Finalize();
        },
        4);
    const uint64_t size = sc.OutlastingBytes(duration);
    const uint32_t a = sc.AddFlow(0, 4, size, Seconds(0));
    const uint32_t b = sc.AddFlow(1, 2, size, Seconds(0));
    const uint32_t c = sc.AddFlow(3, 4, size, Seconds(0));
    sc.SetBottleneckToward(s0, 4);
    sc.EnableRateSeries(sc.Opts().GetTime("rateSample"));
    sc.RunFor(duration);

    const Time half = duration / 2;
    const double ra = sc.RateBetween(a, half, duration);
    const double rb = sc.RateBetween(b, half, duration);
    const double rc = sc.RateBetween(c, half, duration);
    const double limit = sc.PayloadLimit();
    const double use1 = (ra + rb) / limit;
    const double use2 = (ra + rc) / limit;
    const double share = ra + rb > 0 ? ra / (ra + rb) : 0;
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "ldcp-chain: cc=" << sc.Cc() << ", " << sc.Opts().GetAsText("rate")
              << " links, duration " << sc.Opts().GetAsText("duration") << "\n"
              << "  flow A (S0 -> S2, both links)  " << ra / 1e9 << " Gb/s\n"
              << "  flow B (S0 -> S1)              " << rb / 1e9 << " Gb/s\n"
              << "  flow C (S1 -> S2)              " << rc / 1e9 << " Gb/s\n"
              << "  link S0 -> S1 used " << 100 * use1 << " %, link S1 -> S2 used " << 100 * use2
              << " % of the wire limit; A's share of S0 -> S1 " << share << "\n";
    rdmacc::JsonObject rates;
    rates.Num(std::to_string(a), ra).Num(std::to_string(b), rb).Num(std::to_string(c), rc);
    rdmacc::JsonObject use;
    use.Num("s0_s1", use1).Num("s1_s2", use2);
    rdmacc::JsonObject extra;
    extra.UInt("duration_ns", duration.GetNanoSeconds())
        .Obj("settled_rate_bps", rates)
        .Obj("link_use", use)
        .Num("long_flow_share", share);
    sc.Finish(extra);
    const int status = sc.ExitStatus();
    Simulator::Destroy();
    return status;
}
