/*
 * rcm-burst: an incast and a micro-burst at the last switch, DCQCN alone and
 * DCQCN with RCM (Liu et al., "Regional Congestion Mitigation in Lossless
 * Datacenter Networks", NPC 2017, section 4.2, Figure 6).
 *
 *   ./waf --run rcm-burst
 *   ./waf --run "rcm-burst --cases=rcm --rcmCfrMinHits=1"
 *
 * Topology (every link --rate, 100 Gb/s by default): four incast senders I1-I4
 * reach the last switch B through switch A (one port of B); the burst sender Hb
 * is on another port of B; every flow goes to D on B:
 *
 *     I1 I2 I3 I4 -- A --\
 *                          B -- D
 *                 Hb ----/
 *
 * The incast flows start at 0 and last the whole run; the burst starts at
 * --burstStart (150 us) with --burstBytes (250 KB: 20 us at 100 Gb/s). At B's
 * output to D, fair service of the two input ports gives the burst half of the
 * link (50 Gb/s) and each incast flow 12.5 Gb/s. With RCM, B's output queue
 * detects the congestion, recognises the burst as its congestion flow and cuts
 * its window by up to half: the burst drops to about 25 Gb/s at B and the
 * incast flows recover. With DCQCN alone the burst keeps 50 Gb/s until it ends
 * (its CNPs arrive too late) and the incast flows are marked too. Every flow's
 * throughput at D is sampled every --rateSample (1 us, rates.csv).
 *
 * The paper recognises congestion flows as the flows in the CAM; with a CAM of
 * 16 entries every flow through B's output is in it, so RCC could not tell the
 * burst from the incast flows. This example counts a flow as a congestion flow
 * when it fills a quarter of the CAM (--rcmCfrMinHits=4, the burst fills about
 * half of it), the project's decision for this case.
 *
 * The paper's switches have virtual output queues and serve their input ports in
 * turn (sections 4.1, 4.2), so --voq (attribute Voq: DRR over an egress queue's
 * input ports) is on here, off in every other example. --voq=false keeps one FIFO:
 * A then forwards the incast in runs of one flow and the cut misses 25 Gb/s (the
 * doc's "Fidelity: RCM"); --incastLinkRate=25Gbps interleaves it even so.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
const char* const kName = "rcm-burst";
const char* const kHelp = "Incast with a micro-burst (RCM, NPC 2017 Fig. 6): "
                          "I1-I4 send to D through switches A and B, "
                          "the burst sender Hb, on another port of B, sends "
                          "--burstBytes to D at --burstStart. Runs each "
                          "case of --cases (dcqcn: DCQCN alone; rcm: DCQCN "
                          "with RCM) and prints each flow's throughput "
                          "at D before, during and after the burst.";

/// Declares the example's options on a scenario.
void
Declare(RdmaScenario& sc)
{
    sc.Opts()
        .Default("rate", "100Gbps")
        .Default("pfc", "true")
        .Default("sample", "1us")
        // NPC 2017 section 4.1: 100 KB per queue; DCQCN with the Mellanox 100G defaults
        .AddSwitchParams({"xoffBeta", "xoffStatic", "voq"})
        .Default("xoffBeta", "0")
        .Default("xoffStatic", "100KB")
        // NPC 2017 section 4.1: input-and-output queued switches with VOQs, their
        // input ports served in turn
        .Default("voq", "true")
        .Default("dcqcnPreset", "mellanox")
        .Default("rcmCfrMinHits", "4")
        .ChoiceList("cases",
                    "dcqcn,rcm",
                    {"dcqcn", "rcm"},
                    "cases to run, one each (comma-separated): dcqcn "
                    "(--cc=dcqcn), rcm (--cc=dcqcn "
                    "--rcm=1); --rcm given runs that one case alone")
        .Duration(
            "burstStart", "150us", "when the burst starts", rdmacc::Options::Range::AtLeast(0))
        .Bytes("burstBytes",
               "250KB",
               "bytes of the burst (250 KB: 20 us at 100 Gb/s)",
               rdmacc::Options::Range::AtLeast(1))
        .Rate("incastLinkRate",
              "auto",
              "rate of the links I1-I4 to A (auto: --rate); 25Gbps makes the four incast "
              "flows reach B interleaved at a quarter of the link each even with --voq=false "
              "(FIFO switches), as NPC 2017 Fig. 6 draws them",
              rdmacc::Options::Range::Above(0),
              "--rate")
        .Duration(
            "duration", "400us", "simulated time of each case", rdmacc::Options::Range::Above(0))
        .Duration(
            "rateSample", "1us", "rates.csv sampling interval", rdmacc::Options::Range::Above(0));
}

/// One case's result.
struct Result
{
    std::string name;
    double burstBps = 0;        //!< the burst's throughput at D while it is active
    double incastBeforeBps = 0; //!< incast flows together, before the burst
    double incastDuringBps = 0; //!< incast flows together, while the burst is active
    double burstDoneUs = 0;     //!< when the burst finished, us (negative: not within the run)
    uint64_t retx = 0;
    int status = 0;
};

Result
RunCase(const rdmacc::MultiCase& mc, const std::string& name, bool single)
{
    const auto owner =
        mc.Open(single ? "" : name,
                single ? rdmacc::MultiCase::Defaults{}
                       : rdmacc::MultiCase::Defaults{{"cc", "dcqcn"},
                                                     {"rcm", name == "rcm" ? "true" : "false"}});
    RdmaScenario& sc = *owner;
    const Time duration = sc.Opts().GetTime("duration");
    const Time burstStart = sc.Opts().GetTime("burstStart");
    // hosts 0-3 I1-I4, 4 Hb, 5 D; switches A, B
    const DataRate incastLink = sc.Opts().IsAuto("incastLinkRate")
                                    ? DataRate(0)
                                    : DataRate(sc.Opts().GetRate("incastLinkRate"));
    sc.BuildFabric(
        [incastLink](FabricHelper& fh)
        {
            std::vector<Ptr<Node>> h;
            for (int i = 0; i < 6; i++)
            {
                h.push_back(fh.AddHost());
            }
            Ptr<SwitchNode> a = fh.AddSwitch();
            Ptr<SwitchNode> b = fh.AddSwitch();
            for (int i = 0; i < 4; i++)
            {
                fh.Connect(h[i], a, incastLink);
            }
            fh.Connect(h[4], b);
            fh.Connect(h[5], b);
            fh.Connect(a, b);
            return fh.Finalize();
        },
        5);
    const uint32_t d = 5;
    const uint64_t size = sc.OutlastingBytes(duration);
    std::vector<uint32_t> incast;
    for (uint32_t h = 0; h < 4; h++)
    {
        incast.push_back(sc.AddFlow(h, d, size, Seconds(0)));
    }
    const uint32_t burst = sc.AddFlow(4, d, sc.Opts().GetBytes("burstBytes"), burstStart);
    sc.SetBottleneckToward(sc.fabric.switches.at(1), d);
    const Time step = sc.Opts().GetTime("rateSample");
    sc.EnableRateSeries(step);
    sc.RunFor(duration);

    Result r;
    r.name = single ? (sc.Opts().GetBool("rcm") ? "rcm" : sc.Cc()) : name;
    Time done = Seconds(-1);
    for (const auto& f : sc.Flows())
    {
        if (f.flowId == burst && !f.finish.IsStrictlyNegative())
        {
            done = f.finish;
        }
    }
    r.burstDoneUs = done.IsStrictlyNegative() ? -1 : done.GetMicroSeconds();
    // whole sample intervals: from the first sample after the start to the last
    // before the end
    auto snap = [&](Time t)
    {
        return step * (t.GetNanoSeconds() / step.GetNanoSeconds());
    };
    const Time from = snap(burstStart) + step;
    const Time to = done.IsStrictlyNegative() ? snap(duration) : snap(done);
    const Time before = snap(burstStart);
    const Time before0 = before / 2;
    if (to > from)
    {
        r.burstBps = sc.RateBetween(burst, from, to);
        for (uint32_t id : incast)
        {
            r.incastDuringBps += sc.RateBetween(id, from, to);
        }
    }
    for (uint32_t id : incast)
    {
        r.incastBeforeBps += sc.RateBetween(id, before0, before);
    }
    rdmacc::JsonObject extraKeys;
    extraKeys.Str("case", r.name)
        .UInt("duration_ns", duration.GetNanoSeconds())
        .UInt("burst_start_ns", burstStart.GetNanoSeconds())
        .Int("burst_done_ns", done.IsStrictlyNegative() ? -1 : done.GetNanoSeconds())
        .UInt("burst_flow", burst)
        .Num("burst_bps", r.burstBps)
        .Num("incast_before_bps", r.incastBeforeBps)
        .Num("incast_during_bps", r.incastDuringBps);
    for (const auto& f : sc.Flows())
    {
        r.retx += f.retxBytes;
    }
    r.status = rdmacc::MultiCase::Close(sc, extraKeys);
    return r;
}
} // namespace

int
main(int argc, char* argv[])
{
    rdmacc::MultiCase mc(kName, kHelp, Declare, argc, argv);
    const bool single = mc.Alone({"rcm", "cc"}, "cases");
    // every name checked by the parser (a ChoiceList)
    const auto cases = single ? std::vector<std::string>{""} : mc.Opts().GetList("cases");
    std::vector<Result> results;
    for (const auto& c : cases)
    {
        results.push_back(RunCase(mc, c, single));
    }
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "\nrcm-burst: throughput at D, Gb/s (NPC 2017 Fig. 6: with RCM "
                 "the burst is cut to "
                 "about 25 at B and the incast recovers; DCQCN alone: the burst "
                 "keeps about 50)\n";
    std::cout << "  case    burst while active   incast before   incast during   "
                 "burst done us\n";
    for (const auto& r : results)
    {
        std::cout << "  " << std::left << std::setw(6) << r.name << std::right << std::setw(20)
                  << r.burstBps / 1e9 << std::setw(16) << r.incastBeforeBps / 1e9 << std::setw(16)
                  << r.incastDuringBps / 1e9 << std::setw(16) << r.burstDoneUs << "\n";
        rdmacc::JsonObject c;
        c.Num("burst_bps", r.burstBps)
            .Num("incast_before_bps", r.incastBeforeBps)
            .Num("incast_during_bps", r.incastDuringBps)
            .Num("burst_done_us", r.burstDoneUs)
            .UInt("retx_bytes", r.retx)
            .Int("exit_status", r.status);
        mc.Record(r.name, c, r.status);
    }
    mc.Write(!single);
    std::cout << "  wrote " << mc.Out() << "/summary.json and " << mc.Out() << "/CASE/\n";
    return mc.Status();
}
