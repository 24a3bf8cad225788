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

namespace
{

/// Where every payload byte of the incast is: delivered, dropped, or still on its way. The run
/// ends when every byte is delivered or dropped (or at --limit).
struct Progress
{
    uint64_t total = 0;     //!< payload bytes the senders send
    uint64_t delivered = 0; //!< payload bytes the receiver got
    uint64_t dropped = 0;   //!< payload bytes of data frames the switch dropped
    bool complete = false;  //!< every byte delivered or dropped

    void
    Check()
    {
        if (!complete && delivered + dropped >= total)
        {
            complete = true;
            Simulator::Stop();
        }
    }

    static void
    OnRx(Progress* self, uint32_t /* src */, uint64_t payload)
    {
        self->delivered += payload;
        self->Check();
    }

    static void
    OnDrop(Progress* self, Ptr<const Packet> p, uint32_t, uint8_t, const char*)
    {
        RoceHeader h;
        p->PeekHeader(h);
        if (h.kind == RoceHeader::DATA)
        {
            self->dropped += p->GetSize() - h.GetSerializedSize();
            self->Check();
        }
    }
};

} // namespace

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
    fh.SetQueuePriorities(0); // no ECN marking: raw senders do not react
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
    Progress progress;
    progress.total = uint64_t(senders) * size;
    raw[0]->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Progress::OnRx, &progress));
    sw->TraceConnectWithoutContext("Drop", MakeBoundCallback(&Progress::OnDrop, &progress));

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
    const auto c = sw->GetCounters();
    uint64_t sent = 0;
    for (uint32_t i = 1; i <= senders; i++)
    {
        sent += raw[i]->GetFlows()[0].sent;
    }
    const uint64_t rx = raw[0]->GetReceivedBytes();
    // goodput at the receiver: the bytes after the first frame over the time from that frame's
    // arrival to the last one's (the first frame's own bytes arrived before the window opened)
    const auto [t0, t1] = raw[0]->GetReceiveWindow();
    const Time window = t1 - t0;
    const uint64_t windowBytes = rx - raw[0]->GetFirstReceivedPayload();
    const double goodput =
        window.IsStrictlyPositive() ? double(windowBytes) * 8 / window.GetSeconds() : 0;
    const double wireLimit = rdmacc::PayloadLimitBps(rateBps, payload);
    const uint64_t drops = c.drops_total;
    const auto dropList = sw->GetDropList();
    Time pausedMax = Seconds(0);
    Time pausedSum = Seconds(0);
    uint64_t pauseRx = 0;
    for (uint32_t i = 1; i <= senders; i++)
    {
        const Time t = fabric.hostDevices[i]->GetPausedTime(prio);
        pausedSum += t;
        pausedMax = std::max(pausedMax, t);
        pauseRx += fabric.hostDevices[i]->GetStats().pfcRx[prio];
    }
    const uint64_t queueMax = sw->GetMaxEgressBytes(0, prio);
    const uint64_t headroom = sw->GetHeadroom(1); // a sender's port (all alike)

    // every run checks its invariants; a failure is named and makes the exit status 3
    rdmacc::Invariants inv;
    const std::string acc = sw->CheckInvariants();
    inv.Check(acc.empty(), "switch accounting: " + acc);
    if (!progress.complete)
    {
        inv.Fail(std::to_string(progress.total - rx - progress.dropped) + " of " +
                 std::to_string(progress.total) + " B neither delivered nor dropped when " +
                 "--limit=" + opts.GetAsText("limit") + " ended the run");
    }
    if (rx != progress.delivered || rx + progress.dropped > sent || sent > progress.total ||
        (progress.complete && (sent != progress.total || rx + progress.dropped != sent)))
    {
        inv.Fail("bytes not conserved: sent " + std::to_string(sent) + " of " +
                 std::to_string(progress.total) + " B, delivered " + std::to_string(rx) +
                 " B, dropped " + std::to_string(progress.dropped) + " B");
    }
    if (pfc && drops > 0)
    {
        inv.Fail("the data priority is lossless (--pfc=1) but " + std::to_string(drops) +
                 " frames were dropped (" + rdmacc::DropCounts(dropList).substr(1) + ")");
    }
    // the clock has whole nanoseconds while serialisation is exact to the picosecond: the
    // window can be up to 1 ns short of the bytes' wire time
    if (window.IsStrictlyPositive() &&
        double(windowBytes) * 8 > wireLimit * (window + NanoSeconds(1)).GetSeconds())
    {
        inv.Fail("goodput " + std::to_string(goodput) + " bit/s above the wire limit " +
                 std::to_string(wireLimit) + " bit/s");
    }
    if (progress.complete && c.occupancy != 0)
    {
        inv.Fail(std::to_string(c.occupancy) + " B left in the switch after the last byte");
    }

    std::cout << "pfc-incast: " << senders << " senders -> 1 receiver, " << opts.GetAsText("rate")
              << ", " << opts.GetAsText("delay") << " links, " << size << " B each, PFC "
              << (pfc ? "on" : "off") << " (priority " << int(prio) << ", headroom " << headroom
              << " B)\n";
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "  delivered " << rx << " of " << sent << " B sent ("
              << (sent ? 100.0 * rx / sent : 0) << " %), dropped " << progress.dropped << " B; "
              << (progress.complete ? "complete" : "INCOMPLETE (--limit)") << "\n";
    std::cout << "  receiver goodput " << goodput / 1e9 << " Gb/s; wire-efficiency limit "
              << wireLimit / 1e9 << " Gb/s (" << (wireLimit > 0 ? 100 * goodput / wireLimit : 0)
              << " %)\n";
    std::cout << "  PAUSE frames sent by the switch " << mon.PauseFrames() << ", RESUME "
              << mon.ResumeFrames() << "; received by senders " << pauseRx << "\n";
    std::cout << "  paused time per sender: mean " << pausedSum.GetMicroSeconds() / double(senders)
              << " us, max " << pausedMax.GetMicroSeconds() << " us\n";
    std::cout << "  drops " << drops << rdmacc::DropCounts(dropList);
    std::cout << "\n  switch buffer max " << c.max_occupancy << " B; receiver port queue max "
              << queueMax << " B; headroom max used " << c.max_headroom_used << " B\n";
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
        .Bytes(sent, rx);
    // goodput over the receive window (first frame to last), not the RDMA examples'
    // goodput_active_bps (while every flow is active past its first RTT)
    w.Keys().Num("goodput_bps", goodput);
    w.WireLimit(wireLimit);
    w.Keys()
        .UInt("pfc_pause_frames", mon.PauseFrames())
        .UInt("pfc_resume_frames", mon.ResumeFrames())
        .UInt("pause_frames_received", pauseRx)
        .Num("paused_time_mean_us", pausedSum.GetMicroSeconds() / double(senders))
        .Num("paused_time_max_us", pausedMax.GetMicroSeconds());
    w.Drops(dropList).Marks(c.marked);
    w.Keys().UInt("switch_buffer_max_bytes", c.max_occupancy);
    w.Queue(queueMax, mon.AvgQueue(sw->GetId(), 0, prio));
    w.Keys()
        .UInt("headroom_bytes", headroom)
        .UInt("headroom_max_used_bytes", c.max_headroom_used)
        .UInt("switch_occupancy_end_bytes", c.occupancy);
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
