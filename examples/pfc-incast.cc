/*
 * pfc-incast: N raw line-rate senders -> 1 receiver through one switch, with PFC on or off
 * and no congestion control. Shows PAUSE frames, paused time, drops by reason and goodput, and
 * checks its invariants (every byte delivered or, on a lossy priority, counted as dropped; no
 * drop on a lossless priority; goodput within the wire limit; the switch's accounting): a
 * failure is named on stderr and the exit status is 3.
 *
 *   ./waf --run "pfc-incast --senders=8 --pfc=1"
 *
 * Outputs in --out (default results/pfc-incast): summary.json, pfc.csv, drops.csv, queue.csv
 * (formats in README.md).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    using Range = rdmacc::Options::Range;
    rdmacc::Options opts("pfc-incast",
                         "N raw line-rate senders (no congestion control) -> 1 receiver through "
                         "one SwitchNode, with PFC on or off for the data priority. The run "
                         "ends when every byte is delivered (or dropped, on a lossy priority), "
                         "or at --limit, which it reports as a failure.");
    opts.Count("senders",
               8,
               "senders (host 0 receives, hosts 1..N send; UDP source ports 10001..10000+N)",
               Range::Closed(1, 55535))
        .Bool("pfc",
              true,
              "the data priority is lossless (SwitchNode::PfcPriorities); false: lossy, tail "
              "drop at --egressLimit")
        .Rate("rate", "100Gbps", "rate of every link")
        .Duration("delay", "1us", "one-way propagation delay of every link")
        .Bytes("size",
               "4000000",
               "payload bytes per sender (frames of 1000 B payload + 62 B headers)",
               Range::AtLeast(1))
        .AddSwitchParams(
            {"buffer", "headroom", "allowHeadroomOverrun", "xoffBeta", "xoffStatic", "egressLimit"})
        .AddRcmParams()
        .Count("prio", 3, "priority of the data", Range::Closed(0, 7))
        .Duration("jitter",
                  "1us",
                  "each sender starts at a uniform random time in [0, jitter), whole ns, from an "
                  "ns-3 random stream of --seed (0: all start at once)")
        .Duration("sample",
                  "1us",
                  "queue sampling interval (queue.csv, queue_avg_bytes)",
                  Range::Above(0))
        .Duration("limit",
                  "1s",
                  "simulated-time limit: a run it cuts reports complete=false and fails (a "
                  "limit below the time the bytes need on the receiver's link is an error)",
                  Range::Above(0))
        .Count("seed",
               1,
               "random seed (ns-3 run number): the senders' start jitter",
               Range::Closed(1, 4294967295.0))
        .Text("out", "results/pfc-incast", "output directory");
    // the attributes the fabric takes from the options above
    opts.Covers("ns3::QbbNetDevice::DataRate", "rate")
        .Covers("ns3::QbbChannel::Delay", "delay")
        .Covers("ns3::SwitchNode::PfcPriorities", "pfc");
    opts.Parse(argc, argv);
    rdmacc::ChooseScheduler(); // before the simulator's first use

    const auto senders = static_cast<uint32_t>(opts.GetCount("senders"));
    const bool pfc = opts.GetBool("pfc");
    const uint64_t rateBps = opts.GetRate("rate");
    const Time delay = opts.GetTime("delay");
    const uint64_t size = opts.GetBytes("size");
    const auto prio = static_cast<uint8_t>(opts.GetCount("prio"));
    const Time jitter = opts.GetTime("jitter");
    const Time limit = opts.GetTime("limit");
    const auto seed = static_cast<uint32_t>(opts.GetCount("seed"));
    const std::string out = opts.GetText("out");
    const uint8_t pfcMask = pfc ? static_cast<uint8_t>(1u << prio) : 0;
    UintegerValue payloadValue;
    CreateObject<RawHost>()->GetAttribute("Payload", payloadValue);
    const uint64_t payload = payloadValue.Get();
    rdmacc::CheckIncastLimit(limit.GetNanoSeconds(), rateBps, senders, size, payload);
    // the switch options together, on this fabric's ports (one per host, all alike)
    opts.ApplySwitchDefaults(senders + 1, rateBps, delay, pfcMask);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Ptr<UniformRandomVariable> startJitter = CreateObject<UniformRandomVariable>();
    startJitter->SetStream(0);

    FabricHelper fh;
    fh.SetDeviceAttribute("DataRate", DataRateValue(DataRate(rateBps)));
    fh.SetChannelAttribute("Delay", TimeValue(delay));
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(pfcMask));
    fh.SetSwitchOptions(opts); // --buffer, --headroom, ... as parsed
    fh.SetQueuePriorities(0);  // no ECN marking: raw senders do not react
    Fabric fabric = fh.SingleSwitch(senders + 1);
    Ptr<SwitchNode> sw = fabric.switches[0];
    sw->AssignStreams(seed);
    rdmacc::MakeOutputDir(out);

    // host 0 receives, hosts 1..N send
    std::vector<Ptr<RawHost>> raw;
    for (uint32_t i = 0; i < fabric.hosts.GetN(); i++)
    {
        Ptr<RawHost> h = CreateObject<RawHost>();
        h->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
        fabric.hosts.Get(i)->AggregateObject(h);
        raw.push_back(h);
    }
    const uint32_t rxId = fabric.hosts.Get(0)->GetId();
    const double jitterNs = double(jitter.GetNanoSeconds());
    for (uint32_t i = 1; i <= senders; i++)
    {
        const Time start =
            NanoSeconds(jitterNs > 0 ? int64_t(std::floor(startJitter->GetValue(0, jitterNs))) : 0);
        raw[i]->AddFlow(rxId, prio, size, start, static_cast<uint16_t>(10000 + i));
    }
    rdmacc::IncastLedger progress;
    progress.total = uint64_t(senders) * size;
    progress.Connect(raw[0], sw);

    // every attribute the command line set holds in the built run; a dry run ends here
    opts.CheckBeforeRun();
    // queue.csv: a row per --sample while the receiver's port is busy, which it is for at least
    // the senders' bytes at the link's payload rate (a lower estimate)
    {
        const double seconds = std::min(limit.GetSeconds(),
                                        double(senders) * double(size) * 8 /
                                            rdmacc::PayloadLimitBps(rateBps, payload));
        const double bytes = seconds / opts.GetTime("sample").GetSeconds() * 32;
        if (bytes > 1e9)
        {
            std::ostringstream size;
            size << "at least " << bytes / 1e9
                 << " GB (a row per --sample=" << opts.GetAsText("sample") << " for at least "
                 << seconds * 1e3 << " ms)";
            rdmacc::WarnCsvSize("queue.csv", size.str(), "raise --sample to make it smaller");
        }
        rdmacc::WarnEventCsvSize(
            static_cast<uint64_t>(
                std::min(1e18, double(senders) * std::ceil(double(size) / double(payload)))),
            pfc,
            "use fewer senders or a smaller --size");
    }
    FabricMonitor mon(fabric, out, opts.GetTime("sample"), static_cast<uint8_t>(1u << prio));
    Simulator::Stop(limit);
    rdmacc::ProgressLine line("pfc-incast", limit, "--limit=" + opts.GetAsText("limit"));
    const rdmacc::RunStats stats = rdmacc::RunSimulator(line);
    const double wall = stats.wall;
    const uint64_t events = stats.events;
    mon.Finish();

    // ---- results
    const auto f = rdmacc::RawIncastFigures::Of(fabric, raw, senders, prio, rateBps, payload);
    const auto inv = rdmacc::CheckRawIncast(f, progress, pfc, opts.GetAsText("limit"));

    std::cout << "pfc-incast: " << senders << " senders -> 1 receiver, " << opts.GetAsText("rate")
              << ", " << opts.GetAsText("delay") << " links, " << size << " B each, PFC "
              << (pfc ? "on" : "off") << " (priority " << int(prio) << ", headroom " << f.headroom
              << " B)\n";
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "  delivered " << f.rx << " of " << f.sent << " B sent ("
              << (f.sent ? 100.0 * f.rx / f.sent : 0) << " %), dropped " << progress.dropped
              << " B; " << (progress.complete ? "complete" : "INCOMPLETE (--limit)") << "\n";
    std::cout << "  receiver goodput " << f.goodput / 1e9 << " Gb/s; wire-efficiency limit "
              << f.wireLimit / 1e9 << " Gb/s ("
              << (f.wireLimit > 0 ? 100 * f.goodput / f.wireLimit : 0) << " %)\n";
    std::cout << "  PAUSE frames sent by the switch " << mon.PauseFrames() << ", RESUME "
              << mon.ResumeFrames() << "; received by senders " << f.pauseRx << "\n";
    std::cout << "  paused time per sender: mean "
              << f.pausedSum.GetMicroSeconds() / double(senders) << " us, max "
              << f.pausedMax.GetMicroSeconds() << " us\n";
    std::cout << "  drops " << f.drops << rdmacc::DropCounts(f.dropList);
    std::cout << "\n  switch buffer max " << f.bufferMax << " B; receiver port queue max "
              << f.queueMax << " B; headroom max used " << f.headroomMaxUsed << " B\n";
    std::cout << "  invariants " << inv.Verdict() << "\n";
    std::cout << "  wall " << wall << " s, " << events << " events (" << std::setprecision(0)
              << (wall > 0 ? events / wall : 0) << " events/s)\n";

    // the shared keys (rdmacc::SummaryWriter) and this example's; raw senders have no
    // congestion control: scheme "none"
    rdmacc::SummaryWriter w("pfc-incast", "none", seed);
    w.Keys()
        .UInt("senders", senders)
        .UInt("pfc", pfc)
        .Str("rate", opts.GetAsText("rate"))
        .UInt("size_bytes", size);
    w.Run(Simulator::Now().GetNanoSeconds(), wall, events)
        .Ending(progress.complete, rdmacc::RunEnds::FlowsDone)
        .Bytes(f.sent, f.rx);
    // goodput over the receive window (first frame to last), not the RDMA examples'
    // goodput_active_bps (while every flow is active past its first RTT)
    w.Keys().Num("goodput_bps", f.goodput);
    w.WireLimit(f.wireLimit);
    w.Keys()
        .UInt("pfc_pause_frames", mon.PauseFrames())
        .UInt("pfc_resume_frames", mon.ResumeFrames())
        .UInt("pause_frames_received", f.pauseRx)
        .Num("paused_time_mean_us", f.pausedSum.GetMicroSeconds() / double(senders))
        .Num("paused_time_max_us", f.pausedMax.GetMicroSeconds());
    w.Drops(f.dropList).Marks(f.marked);
    w.Keys().UInt("switch_buffer_max_bytes", f.bufferMax);
    w.Queue(f.queueMax, mon.AvgQueue(sw->GetId(), 0, prio));
    w.Keys()
        .UInt("headroom_bytes", f.headroom)
        .UInt("headroom_max_used_bytes", f.headroomMaxUsed)
        .UInt("switch_occupancy_end_bytes", f.occupancy);
    rdmacc::JsonObject setup;
    setup.Str("scheme", "none")
        .Str("preset", "none")
        .UInt("rate_bps", rateBps)
        .Int("delay_ns", delay.GetNanoSeconds())
        .Bool("pfc", pfc)
        .UInt("priority", prio)
        .UInt("mtu_bytes", payload)
        .UInt("buffer_bytes", opts.GetBytes("buffer"))
        .Bool("int", false)
        .UInt("seed", seed);
    w.Keys().Obj("setup", setup);
    w.Write(out + "/summary.json", inv);
    opts.WriteConfig(out, setup);
    std::cout << "  wrote " << out << "/{summary.json,config.json,pfc.csv,drops.csv,queue.csv}\n";
    const int status = inv.Report();
    Simulator::Destroy();
    return status;
}
