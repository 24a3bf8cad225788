/*
 * red-ecn-dumbbell: N senders -> router R1 -> bottleneck -> router R2 -> N receivers, on
 * mainline ns-3 point-to-point links, with the Rust RED/ECN + WRED policy as the queue disc on
 * R1's bottleneck port.
 *
 *   ./waf --run "red-ecn-dumbbell --senders=4 --transport=tcp --simTime=200ms"
 *
 * transport=tcp: DCTCP senders (ECT packets, marked by RED/ECN, the window reacts).
 * transport=udp: constant-rate UDP (Not-ECT packets) offering `--udpLoad` times the bottleneck,
 *                so Not-ECT packets meet the WRED threshold KFs (or RED drop / tail drop).
 *
 * Prints per-flow goodput, the bottleneck queue (max, mean, p99 of the samples taken every
 * --sample), marks and drops by reason, checks its invariants (exit status 3 naming the failure)
 * and writes OUT/summary.json and OUT/queue.csv (see README "Outputs").
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/traffic-control-module.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("RedEcnDumbbell");

namespace
{

/// The senders start 1 ms into the run, 10 us apart (sampling starts with the first).
const Time FIRST_START = MilliSeconds(1);
/// Gap between the starts of consecutive senders.
const Time START_GAP = MicroSeconds(10);
/// UDP payload bytes per packet (transport=udp).
const uint32_t UDP_PAYLOAD = 1000;
/// TCP segment size (transport=tcp), ns3::TcpSocket::SegmentSize.
const uint32_t TCP_SEGMENT = 1448;

/// Adds `bytes` to `*total` (an application's Tx trace).
void
CountTx(uint64_t* total, Ptr<const Packet> p)
{
    *total += p->GetSize();
}

} // namespace

int
main(int argc, char* argv[])
{
    // the options (rdmacc::DeclareDumbbellOptions lists them, with their ranges and defaults)
    rdmacc::Options opts(
        "red-ecn-dumbbell",
        "N senders -> router R1 -> bottleneck -> router R2 -> N receivers on ns-3 point-to-point "
        "links, with ns3::RedEcnQueueDisc (RED/ECN marking and WRED drop decided in Rust) on "
        "R1's bottleneck port. Writes OUT/summary.json and OUT/queue.csv; exit status 3 when "
        "an invariant of the run fails.");
    rdmacc::DeclareDumbbellOptions(opts, FIRST_START);
    opts.Parse(argc, argv);
    rdmacc::ChooseScheduler(); // before the simulator's first use

    const uint32_t senders = static_cast<uint32_t>(opts.GetCount("senders"));
    const std::string transport = opts.GetText("transport");
    const bool tcp = transport == "tcp";
    const uint64_t bottleneckBps = opts.GetRate("bottleneckRate");
    const Time linkDelay = opts.GetTime("delay");
    const Time simTime = opts.GetTime("simTime");
    const uint32_t seed = static_cast<uint32_t>(opts.GetCount("seed"));
    const std::string out = opts.GetText("out");

    // The queue disc's values, checked together in Rust before anything is built (errors name
    // the options), then what the queue disc created below takes (ConfigureRedEcn).
    opts.ApplyRedEcnDefaults();
    const uint64_t bufB = opts.GetBytes("bufMax");

    // before anything is built: each UDP sender's rate, the memory the run needs (refused when
    // it cannot fit), the size of queue.csv (a warning)
    const uint64_t udpRateBps = tcp ? 0 : rdmacc::DumbbellUdpRate(opts, UDP_PAYLOAD);
    rdmacc::CheckDumbbellMemory(opts, udpRateBps, UDP_PAYLOAD);
    rdmacc::WarnQueueCsvSize(opts, FIRST_START);

    // --out before the simulation: the directory and the first file
    rdmacc::MakeOutputDir(out);
    rdmacc::QueueSampler sampler(opts.GetTime("sample"), out + "/queue.csv");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(TCP_SEGMENT));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));

    // the dumbbell, with the RED/ECN queue disc (the options' values) on R1's bottleneck end
    rdmacc::DumbbellNetwork net(senders);
    NetDeviceContainer core = net.AddBottleneck(bottleneckBps, linkDelay);
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedEcnQueueDisc");
    QueueDiscContainer qdiscs = tch.Install(core.Get(0));
    Ptr<RedEcnQueueDisc> red = DynamicCast<RedEcnQueueDisc>(qdiscs.Get(0));
    opts.ConfigureRedEcn(*red);
    red->AssignStreams(7);
    rdmacc::QueueDiscCounters counted;
    counted.Connect(red);
    net.AddAccessLinks(opts.GetRate("accessRate"), linkDelay);

    const uint16_t port = 5000;
    const std::string factory = tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<uint64_t> sent(senders, 0);
    for (uint32_t i = 0; i < senders; i++)
    {
        PacketSinkHelper sink(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        auto apps = sink.Install(net.receivers.Get(i));
        apps.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(apps.Get(0)));
        ApplicationContainer src;
        if (tcp)
        {
            BulkSendHelper bulk(factory, InetSocketAddress(net.receiverAddress[i], port));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            src = bulk.Install(net.senders.Get(i));
        }
        else
        {
            OnOffHelper onoff(factory, InetSocketAddress(net.receiverAddress[i], port));
            onoff.SetConstantRate(DataRate(udpRateBps), UDP_PAYLOAD);
            src = onoff.Install(net.senders.Get(i));
        }
        src.Get(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountTx, &sent[i]));
        src.Start(FIRST_START + START_GAP * i);
        src.Stop(simTime);
    }

    sampler.Start(qdiscs.Get(0), FIRST_START);
    Simulator::Stop(simTime);
    // every attribute the command line set holds in the built run; a dry run ends here
    opts.CheckBeforeRun();
    rdmacc::ProgressLine line("red-ecn-dumbbell", simTime, "--simTime");
    const rdmacc::RunStats run = rdmacc::RunSimulator(line);
    sampler.Finish();

    // ---- results
    const double dur = (simTime - FIRST_START).GetSeconds();
    uint64_t rxTotal = 0;
    uint64_t sentTotal = 0;
    for (uint32_t i = 0; i < senders; i++)
    {
        rxTotal += sinks[i]->GetTotalRx();
        sentTotal += sent[i];
    }
    const double util = rxTotal * 8.0 / dur / double(bottleneckBps);
    const double payloadLimit = rdmacc::DumbbellPayloadLimit(tcp, bottleneckBps, UDP_PAYLOAD);

    // every run checks its own invariants; any failure is reported and makes the exit status 3
    rdmacc::Invariants inv;
    for (uint32_t i = 0; i < senders; i++)
    {
        if (sinks[i]->GetTotalRx() > sent[i])
        {
            inv.Fail("flow " + std::to_string(i) + " delivered " +
                     std::to_string(sinks[i]->GetTotalRx()) + " B, more than the " +
                     std::to_string(sent[i]) + " B its application sent");
            break;
        }
    }
    if (rxTotal * 8.0 / dur > payloadLimit * (1 + 1e-9))
    {
        inv.Fail("goodput " + std::to_string(rxTotal * 8.0 / dur) +
                 " bit/s above the bottleneck's wire limit " + std::to_string(payloadLimit) +
                 " bit/s");
    }
    if (counted.peakBytes > bufB)
    {
        inv.Fail("the queue reached " + std::to_string(counted.peakBytes) +
                 " B, above --bufMax=" + std::to_string(bufB));
    }
    rdmacc::CheckRedEcnAccounting(inv, red, counted);

    std::cout << "red-ecn-dumbbell: " << senders << " x " << transport << " senders, "
              << opts.GetAsText("accessRate") << " access, " << opts.GetAsText("bottleneckRate")
              << " bottleneck, " << opts.GetAsText("delay") << " links, "
              << opts.GetAsText("simTime") << "\n";
    std::cout << "  RedEcnQueueDisc KMin=" << opts.GetBytes("kmin")
              << " KMax=" << opts.GetBytes("kmax") << " PMax=" << opts.GetReal("pmax")
              << " NotEctMode=" << opts.GetText("notEct") << " KFs=" << opts.GetBytes("kfs")
              << " BufMax=" << bufB << "\n";
    std::cout << "  flow  goodput_Mbps\n";
    for (uint32_t i = 0; i < senders; i++)
    {
        std::cout << "  " << std::setw(4) << i << "  " << std::fixed << std::setprecision(1)
                  << sinks[i]->GetTotalRx() * 8.0 / dur / 1e6 << "\n";
    }
    std::cout << "  total goodput " << std::setprecision(1) << rxTotal * 8.0 / dur / 1e6
              << " Mbps (" << std::setprecision(3) << util << " of the bottleneck, payload limit "
              << payloadLimit / double(bottleneckBps) << ")\n";
    std::cout << "  queue bytes: max " << sampler.Max() << ", mean " << std::setprecision(0)
              << sampler.Mean() << ", p99 " << sampler.P99() << " (" << sampler.Samples()
              << " samples); peak " << counted.peakBytes << "\n";
    std::cout << "  enqueued " << counted.enqueued << " packets, marks " << counted.marks
              << ", drops " << counted.DropTotal();
    const auto dropList = rdmacc::RedEcnDropList(counted);
    std::cout << rdmacc::DropCounts(dropList);
    std::cout << "\n  invariants " << inv.Verdict() << "\n";
    std::cout << "  wall " << std::setprecision(2) << run.wall << " s\n";

    // the shared keys (rdmacc::SummaryWriter) and this example's
    rdmacc::SummaryWriter w("red-ecn-dumbbell", tcp ? "tcp-dctcp" : "none", seed);
    w.Keys()
        .Str("transport", transport)
        .UInt("senders", senders)
        .Str("bottleneck_rate", opts.GetAsText("bottleneckRate"));
    // a run of fixed duration whose senders never finish: complete is false
    w.Run(simTime.GetNanoSeconds(), run.wall, run.events)
        .Ending(false, rdmacc::RunEnds::Duration)
        .Bytes(sentTotal, rxTotal);
    w.Keys().Num("bottleneck_utilisation", util);
    // the bottleneck's payload limit in the PPP framing of these links: the RDMA examples'
    // wire limit in theirs
    w.WireLimit(payloadLimit);
    w.Keys().UInt("enqueued", counted.enqueued);
    w.Marks(counted.marks).Drops(dropList);
    // the exact maximum (every change of the byte count), as every example's queue_max_bytes
    w.Queue(counted.peakBytes, sampler.Mean());
    w.Keys()
        .UInt("queue_max_sampled_bytes", sampler.Max())
        .UInt("queue_p99_bytes", sampler.P99())
        .UInt("queue_samples", sampler.Samples());
    rdmacc::JsonObject setup;
    setup.Str("scheme", tcp ? "tcp-dctcp" : "none")
        .Str("preset", "none")
        .UInt("rate_bps", opts.GetRate("accessRate"))
        .UInt("bottleneck_rate_bps", bottleneckBps)
        .Int("delay_ns", linkDelay.GetNanoSeconds())
        .Bool("pfc", false)
        .UInt("seed", seed);
    w.Keys().Obj("setup", setup);
    w.Write(out + "/summary.json", inv);
    opts.WriteConfig(out, setup);
    std::cout << "  wrote " << out << "/summary.json, " << out << "/config.json, " << out
              << "/queue.csv\n";
    const int status = inv.Report();
    Simulator::Destroy();
    return status;
}
