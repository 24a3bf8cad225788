/*
 * pfc-incast: N raw line-rate senders -> 1 receiver through one switch, with PFC on or off
 * and no congestion control. Shows PAUSE frames, paused time, drops by reason and goodput.
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

#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
/// Stops the simulation shortly after every sender has sent everything and the switch is empty.
void
CheckDone(std::vector<Ptr<RawHost>>* raw, Ptr<SwitchNode> sw, Time every, Time grace)
{
    bool done = sw->GetCounters().occupancy == 0;
    for (size_t i = 1; done && i < raw->size(); i++)
    {
        const auto& f = (*raw)[i]->GetFlows()[0];
        done = f.sent == f.bytes;
    }
    if (done)
    {
        Simulator::Stop(grace);
        return;
    }
    Simulator::Schedule(every, &CheckDone, raw, sw, every, grace);
}
} // namespace

int
main(int argc, char* argv[])
{
    uint32_t senders = 8;
    bool pfc = true;
    std::string rate = "100Gbps";
    std::string delay = "1us";
    double size = 4e6;
    double buffer = 12e6;
    double headroom = 32000;
    double xoffBeta = 8;
    double xoffStatic = 0;
    double egressLimit = 375000;
    uint32_t prio = 3;
    std::string sample = "1us";
    uint32_t seed = 1;
    std::string out = "results/pfc-incast";

    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders (each to the one receiver)", senders);
    cmd.AddValue("pfc", "1: the data priority is lossless (PFC); 0: lossy (tail drop)", pfc);
    cmd.AddValue("rate", "rate of every link", rate);
    cmd.AddValue("delay", "one-way delay of every link", delay);
    cmd.AddValue("size", "payload bytes per sender", size);
    cmd.AddValue("buffer", "switch buffer (SwitchNode::BufferSize), bytes", buffer);
    cmd.AddValue("headroom", "PFC headroom per port and priority (SwitchNode::Headroom)", headroom);
    cmd.AddValue(
        "xoffBeta", "dynamic PFC threshold beta (SwitchNode::XoffBeta); 0: static", xoffBeta);
    cmd.AddValue("xoffStatic", "static PFC threshold, bytes (with --xoffBeta=0)", xoffStatic);
    cmd.AddValue("egressLimit", "lossy egress queue limit (SwitchNode::EgressLimit)", egressLimit);
    cmd.AddValue("prio", "priority of the data", prio);
    cmd.AddValue("sample", "queue sampling interval (queue.csv)", sample);
    cmd.AddValue("seed", "random seed (run number)", seed);
    cmd.AddValue("out", "output directory", out);
    cmd.Parse(argc, argv);

    if (senders == 0 || senders > 60000)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --senders = " + std::to_string(senders) +
                                ": must be in [1, 60000]");
    }
    if (prio > 7)
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --prio = " + std::to_string(prio) + ": must be in [0, 7]");
    }
    rdmacc::CheckAttributeValue("--rate", "ns3::QbbNetDevice", "DataRate", rate);
    const Time linkDelay = NanoSeconds(rdmacc::CheckedTimeNs("--delay", delay));
    const Time sampleEvery = NanoSeconds(rdmacc::CheckedPositiveTimeNs("--sample", sample));
    const uint64_t sizeB = rdmacc::CheckedBytes("--size", size, 1);
    rdmacc::CheckedRange("--xoffBeta", xoffBeta, 0, 1e6);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    FabricHelper fh;
    fh.SetDeviceAttribute("DataRate", StringValue(rate));
    fh.SetChannelAttribute("Delay", TimeValue(linkDelay));
    fh.SetSwitchAttribute("BufferSize", UintegerValue(rdmacc::CheckedBytes("--buffer", buffer)));
    fh.SetSwitchAttribute("Headroom", UintegerValue(rdmacc::CheckedBytes("--headroom", headroom)));
    fh.SetSwitchAttribute("XoffBeta", DoubleValue(xoffBeta));
    fh.SetSwitchAttribute("XoffStatic",
                          UintegerValue(rdmacc::CheckedBytes("--xoffStatic", xoffStatic)));
    fh.SetSwitchAttribute("EgressLimit",
                          UintegerValue(rdmacc::CheckedBytes("--egressLimit", egressLimit)));
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(pfc ? (1u << prio) : 0));
    fh.SetQueuePriorities(0); // no ECN marking: raw senders do not react
    Fabric fabric = fh.SingleSwitch(senders + 1);
    Ptr<SwitchNode> sw = fabric.switches[0];
    sw->AssignStreams(seed);

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
    for (uint32_t i = 1; i <= senders; i++)
    {
        raw[i]->AddFlow(rxId, static_cast<uint8_t>(prio), sizeB, Seconds(0), 10000 + i);
    }

    rdmacc::MakeOutputDir(out);
    FabricMonitor mon(fabric, out, sampleEvery, static_cast<uint8_t>(1u << prio));

    const DataRate r(rate);
    const uint32_t payload = 1000;
    const uint32_t frame = payload + RoceHeader::DATA_OVERHEAD;
    const double efficiency = double(payload) / (frame + QbbNetDevice::PREAMBLE_IFG);
    const double ideal = double(senders) * sizeB / (r.GetBitRate() * efficiency / 8);
    Simulator::Stop(Seconds(ideal * 10 + 1e-3)); // safety net; CheckDone ends the run
    Simulator::Schedule(
        MicroSeconds(1), &CheckDone, &raw, sw, MicroSeconds(1), 2 * linkDelay + MicroSeconds(1));
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    mon.Finish();

    // ---- results
    const auto c = sw->GetCounters();
    const std::string inv = sw->CheckInvariants();
    uint64_t sent = 0;
    for (uint32_t i = 1; i <= senders; i++)
    {
        sent += raw[i]->GetFlows()[0].sent;
    }
    const uint64_t rx = raw[0]->GetReceivedBytes();
    const auto [t0, t1] = raw[0]->GetReceiveWindow();
    const double rxTime = (t1 - t0).GetSeconds();
    // the first frame's own serialisation is not in the window: count frames - 1
    const double goodput =
        rxTime > 0 ? (rx - double(rx) / raw[0]->GetReceivedFrames()) * 8 / rxTime : 0;
    const double limit = r.GetBitRate() * efficiency;
    const uint64_t drops = c.drops_total;
    const auto dropList = sw->GetDropList();
    rdmacc::JsonObject dropObj;
    for (const auto& [reason, n] : dropList)
    {
        dropObj.UInt(reason, n);
    }
    Time pausedMax = Seconds(0);
    Time pausedSum = Seconds(0);
    uint64_t pauseRx = 0;
    for (uint32_t i = 1; i <= senders; i++)
    {
        const Time t = fabric.hostDevices[i]->GetPausedTime(static_cast<uint8_t>(prio));
        pausedSum += t;
        pausedMax = std::max(pausedMax, t);
        pauseRx += fabric.hostDevices[i]->GetStats().pfcRx[prio];
    }

    std::cout << "pfc-incast: " << senders << " senders -> 1 receiver, " << rate << ", " << delay
              << " links, " << sizeB << " B each, PFC " << (pfc ? "on" : "off") << " (priority "
              << prio << ")\n";
    std::cout << std::fixed << std::setprecision(2);
    std::cout << "  delivered " << rx << " of " << sent << " B sent ("
              << (sent ? 100.0 * rx / sent : 0) << " %)\n";
    std::cout << "  receiver goodput " << goodput / 1e9 << " Gb/s; wire-efficiency limit "
              << limit / 1e9 << " Gb/s (" << (limit > 0 ? 100 * goodput / limit : 0) << " %)\n";
    std::cout << "  PAUSE frames sent by the switch " << mon.PauseFrames() << ", RESUME "
              << mon.ResumeFrames() << "; received by senders " << pauseRx << "\n";
    std::cout << "  paused time per sender: mean " << pausedSum.GetMicroSeconds() / double(senders)
              << " us, max " << pausedMax.GetMicroSeconds() << " us\n";
    std::cout << "  drops " << drops;
    for (const auto& [reason, n] : dropList)
    {
        if (n)
        {
            std::cout << " " << reason << "=" << n;
        }
    }
    std::cout << "\n  switch buffer max " << c.max_occupancy << " B; receiver port queue max "
              << mon.MaxQueue(sw->GetId(), 0, static_cast<uint8_t>(prio)) << " B\n";
    const uint64_t overrun = c.drops.headroom_overrun;
    if (overrun)
    {
        std::cerr << "rdma-cc: ERROR: " << overrun
                  << " lossless frames dropped by PFC headroom overrun: the headroom (" << headroom
                  << " B) is too small for these links (configuration error)\n";
    }
    std::cout << "  accounting invariants: " << (inv.empty() ? "ok" : inv) << "\n";
    std::cout << "  wall " << wall << " s\n";

    rdmacc::JsonObject s;
    s.Str("example", "pfc-incast")
        .UInt("seed", seed)
        .UInt("senders", senders)
        .UInt("pfc", pfc)
        .Str("rate", rate)
        .UInt("size_bytes", sizeB)
        .UInt("sim_time_ns", Simulator::Now().GetNanoSeconds())
        .Num("wall_s", wall)
        .UInt("bytes_sent", sent)
        .UInt("bytes_delivered", rx)
        .Num("goodput_bps", goodput)
        .Num("wire_limit_bps", limit)
        .UInt("pfc_pause_frames", mon.PauseFrames())
        .UInt("pfc_resume_frames", mon.ResumeFrames())
        .UInt("pause_frames_received", pauseRx)
        .Num("paused_time_mean_us", pausedSum.GetMicroSeconds() / double(senders))
        .Num("paused_time_max_us", pausedMax.GetMicroSeconds())
        .UInt("drops_total", drops)
        .Obj("drops", dropObj)
        .UInt("switch_buffer_max_bytes", c.max_occupancy)
        .UInt("queue_max_bytes", mon.MaxQueue(sw->GetId(), 0, static_cast<uint8_t>(prio)))
        .Num("queue_avg_bytes", mon.AvgQueue(sw->GetId(), 0, static_cast<uint8_t>(prio)))
        .UInt("headroom_max_used_bytes", c.max_headroom_used)
        .UInt("switch_occupancy_end_bytes", c.occupancy)
        .Str("invariants", inv.empty() ? "ok" : inv);
    s.WriteFile(out + "/summary.json");
    std::cout << "  wrote " << out << "/{summary.json,pfc.csv,drops.csv,queue.csv}\n";
    Simulator::Destroy();
    return inv.empty() ? 0 : 3;
}
