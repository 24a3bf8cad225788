/*
 * red-ecn-dumbbell: N senders -> router R1 -> bottleneck -> router R2 -> N receivers, on
 * mainline ns-3 point-to-point links, with the Rust RED/ECN + WRED policy as the queue disc on
 * R1's bottleneck port.
 *
 *   ./waf --run "red-ecn-dumbbell --senders=4 --transport=tcp --simTime=0.2"
 *
 * transport=tcp: DCTCP senders (ECT packets, marked by RED/ECN, the window reacts).
 * transport=udp: constant-rate UDP (Not-ECT packets) offering `--udpLoad` times the bottleneck,
 *                so Not-ECT packets meet the WRED threshold KFs (or RED drop / tail drop).
 *
 * Prints per-flow goodput, the bottleneck queue (max, mean, p99 from samples every --sample),
 * marks and drops by reason, and writes OUT/summary.json (see README "Outputs").
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

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("RedEcnDumbbell");

namespace
{
std::vector<uint32_t> g_qSamples; //!< bottleneck queue samples (bytes)

void
SampleQueue(Ptr<QueueDisc> q, Time interval)
{
    g_qSamples.push_back(q->GetNBytes());
    Simulator::Schedule(interval, &SampleQueue, q, interval);
}
} // namespace

int
main(int argc, char* argv[])
{
    uint32_t senders = 4;
    std::string transport = "tcp";
    std::string accessRate = "10Gbps";
    std::string bottleneckRate = "10Gbps";
    std::string delay = "5us";
    double simTime = 0.1;
    double kmin = 20000;
    double kmax = 80000;
    double pmax = 0.1;
    std::string notEct = "ThresholdDrop";
    double kfs = 20000;
    double bufMax = 400000;
    double udpLoad = 1.2;
    std::string sample = "10us";
    uint32_t seed = 1;
    std::string out = "results/red-ecn-dumbbell";

    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of sender/receiver pairs", senders);
    cmd.AddValue("transport", "tcp (DCTCP, ECT) or udp (constant rate, Not-ECT)", transport);
    cmd.AddValue("accessRate", "sender and receiver link rate", accessRate);
    cmd.AddValue("bottleneckRate", "R1-R2 link rate", bottleneckRate);
    cmd.AddValue("delay", "one-way propagation delay of every link", delay);
    cmd.AddValue("simTime", "simulated seconds", simTime);
    cmd.AddValue("kmin", "RedEcnQueueDisc::KMin, bytes", kmin);
    cmd.AddValue("kmax", "RedEcnQueueDisc::KMax, bytes", kmax);
    cmd.AddValue("pmax", "RedEcnQueueDisc::PMax", pmax);
    cmd.AddValue("notEct", "RedEcnQueueDisc::NotEctMode: Accept, ThresholdDrop, RedDrop", notEct);
    cmd.AddValue("kfs", "RedEcnQueueDisc::KFs, bytes", kfs);
    cmd.AddValue("bufMax", "RedEcnQueueDisc::BufMax, bytes", bufMax);
    cmd.AddValue("udpLoad", "udp: offered load as a multiple of the bottleneck rate", udpLoad);
    cmd.AddValue("sample", "queue sampling interval", sample);
    cmd.AddValue("seed", "random seed (run number)", seed);
    cmd.AddValue("out", "output directory", out);
    cmd.Parse(argc, argv);

    if (transport != "tcp" && transport != "udp")
    {
        rdmacc::ConfigFatal("command line",
                            "invalid --transport = " + transport + ": must be tcp or udp");
    }
    if (senders == 0)
    {
        rdmacc::ConfigFatal("command line", "invalid --senders = 0: must be >= 1");
    }
    rdmacc::CheckAttributeValue("--notEct", "ns3::RedEcnQueueDisc", "NotEctMode", notEct);
    rdmacc::CheckAttributeValue(
        "--accessRate", "ns3::PointToPointNetDevice", "DataRate", accessRate);
    rdmacc::CheckAttributeValue(
        "--bottleneckRate", "ns3::PointToPointNetDevice", "DataRate", bottleneckRate);
    const Time linkDelay = NanoSeconds(rdmacc::CheckedTimeNs("--delay", delay));
    const Time sampleEvery = NanoSeconds(rdmacc::CheckedPositiveTimeNs("--sample", sample));
    rdmacc::CheckedRange("--simTime", simTime, 1e-6, 1e6);
    rdmacc::CheckedRange("--udpLoad", udpLoad, 0, 100);
    const uint64_t kMinB = rdmacc::CheckedBytes("--kmin", kmin);
    const uint64_t kMaxB = rdmacc::CheckedBytes("--kmax", kmax);
    const uint64_t kFsB = rdmacc::CheckedBytes("--kfs", kfs);
    const uint64_t bufB = rdmacc::CheckedBytes("--bufMax", bufMax);
    if (std::max({kMinB, kMaxB, kFsB, bufB}) > UINT32_MAX)
    {
        rdmacc::ConfigFatal("command line", "thresholds must be below 4 GB");
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));

    NodeContainer left;
    NodeContainer right;
    NodeContainer routers;
    left.Create(senders);
    right.Create(senders);
    routers.Create(2);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", TimeValue(linkDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(linkDelay));
    // keep the device queue minimal so the queue builds in the queue disc
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedEcnQueueDisc",
                         "KMin",
                         UintegerValue(kMinB),
                         "KMax",
                         UintegerValue(kMaxB),
                         "PMax",
                         DoubleValue(pmax),
                         "NotEctMode",
                         StringValue(notEct),
                         "KFs",
                         UintegerValue(kFsB),
                         "BufMax",
                         UintegerValue(bufB));
    QueueDiscContainer qdiscs = tch.Install(core.Get(0));
    Ptr<RedEcnQueueDisc> red = DynamicCast<RedEcnQueueDisc>(qdiscs.Get(0));
    red->AssignStreams(7);

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.0");
    addr.Assign(core);
    std::vector<Ipv4Address> dst;
    for (uint32_t i = 0; i < senders; i++)
    {
        addr.NewNetwork();
        addr.Assign(access.Install(left.Get(i), routers.Get(0)));
        addr.NewNetwork();
        auto ifs = addr.Assign(access.Install(right.Get(i), routers.Get(1)));
        dst.push_back(ifs.GetAddress(0));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    std::vector<Ptr<PacketSink>> sinks;
    const double start = 0.001;
    for (uint32_t i = 0; i < senders; i++)
    {
        std::string factory =
            transport == "tcp" ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        PacketSinkHelper sink(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        auto apps = sink.Install(right.Get(i));
        apps.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(apps.Get(0)));
        ApplicationContainer src;
        if (transport == "tcp")
        {
            BulkSendHelper bulk(factory, InetSocketAddress(dst[i], port));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            src = bulk.Install(left.Get(i));
        }
        else
        {
            OnOffHelper onoff(factory, InetSocketAddress(dst[i], port));
            double perFlow = DataRate(bottleneckRate).GetBitRate() * udpLoad / senders;
            onoff.SetConstantRate(DataRate(static_cast<uint64_t>(perFlow)), 1000);
            src = onoff.Install(left.Get(i));
        }
        src.Start(Seconds(start + 1e-5 * i));
        src.Stop(Seconds(simTime));
    }

    Simulator::Schedule(Seconds(start), &SampleQueue, qdiscs.Get(0), sampleEvery);
    Simulator::Stop(Seconds(simTime));
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    // ---- results
    const auto& st = red->GetStats();
    uint64_t marks = st.GetNMarkedPackets(RedEcnQueueDisc::MARK_REASON);
    std::vector<uint32_t> qs = g_qSamples;
    std::sort(qs.begin(), qs.end());
    double qMean = 0;
    for (auto v : g_qSamples)
    {
        qMean += v;
    }
    qMean = g_qSamples.empty() ? 0 : qMean / g_qSamples.size();
    uint32_t qMax = qs.empty() ? 0 : qs.back();
    uint32_t qP99 = qs.empty() ? 0 : qs[std::min(qs.size() - 1, qs.size() * 99 / 100)];
    double dur = simTime - start;
    uint64_t rxTotal = 0;

    std::cout << "red-ecn-dumbbell: " << senders << " x " << transport << " senders, " << accessRate
              << " access, " << bottleneckRate << " bottleneck, " << delay << " links, " << simTime
              << " s\n";
    std::cout << "  RedEcnQueueDisc KMin=" << kMinB << " KMax=" << kMaxB << " PMax=" << pmax
              << " NotEctMode=" << notEct << " KFs=" << kFsB << " BufMax=" << bufB << "\n";
    std::cout << "  flow  goodput_Mbps\n";
    for (uint32_t i = 0; i < senders; i++)
    {
        uint64_t rx = sinks[i]->GetTotalRx();
        rxTotal += rx;
        std::cout << "  " << std::setw(4) << i << "  " << std::fixed << std::setprecision(1)
                  << rx * 8.0 / dur / 1e6 << "\n";
    }
    double util = rxTotal * 8.0 / dur / DataRate(bottleneckRate).GetBitRate();
    rdmacc::JsonObject drops;
    uint64_t dropTotal = 0;
    for (const auto& reason : RedEcnQueueDisc::DropReasonNames())
    {
        uint64_t n = st.GetNDroppedPackets(reason);
        dropTotal += n;
        drops.UInt(reason, n);
    }
    std::cout << "  total goodput " << std::setprecision(1) << rxTotal * 8.0 / dur / 1e6
              << " Mbps (" << std::setprecision(3) << util << " of the bottleneck)\n";
    std::cout << "  queue bytes: max " << qMax << ", mean " << std::setprecision(0) << qMean
              << ", p99 " << qP99 << " (" << g_qSamples.size() << " samples)\n";
    std::cout << "  enqueued " << st.nTotalEnqueuedPackets << " packets, marks " << marks
              << ", drops " << dropTotal;
    for (const auto& reason : RedEcnQueueDisc::DropReasonNames())
    {
        uint64_t n = st.GetNDroppedPackets(reason);
        if (n)
        {
            std::cout << " " << reason << "=" << n;
        }
    }
    std::cout << "\n  wall " << std::setprecision(2) << wall << " s\n";

    rdmacc::MakeOutputDir(out);
    rdmacc::JsonObject summary;
    summary.Str("example", "red-ecn-dumbbell")
        .Str("transport", transport)
        .UInt("seed", seed)
        .UInt("senders", senders)
        .Str("bottleneck_rate", bottleneckRate)
        .UInt("sim_time_ns", Seconds(simTime).GetNanoSeconds())
        .Num("wall_s", wall)
        .UInt("bytes_delivered", rxTotal)
        .Num("bottleneck_utilisation", util)
        .UInt("enqueued", st.nTotalEnqueuedPackets)
        .UInt("marks", marks)
        .Obj("drops", drops)
        .UInt("queue_max_bytes", qMax)
        .Num("queue_avg_bytes", qMean)
        .UInt("queue_p99_bytes", qP99);
    summary.WriteFile(out + "/summary.json");
    std::cout << "  wrote " << out << "/summary.json\n";
    Simulator::Destroy();
    return 0;
}
