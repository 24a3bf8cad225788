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

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

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
/// Longest --simTime: the default run (4 TCP senders at 10 Gb/s) simulates 100 ms in about
/// 5 s of wall-clock time on the development machine, so 100 s is more than an hour.
const Time MAX_SIM_TIME = Seconds(100);
/// Each sender-receiver pair sits on its own /30 (sender or receiver .1, router .2); the
/// senders' links are numbered in 10.0.0.0/9 and the receivers' in 10.128.0.0/9, so that each
/// router needs one route for the far side. A /9 holds 2^21 /30 networks.
const uint64_t MAX_SENDERS = uint64_t(1) << 21;

/*
 * Memory a run allocates, for the check made before anything is built. Measured with
 * `/usr/bin/time -v` (maximum resident set size) on the development machine (ns-3.37, release
 * build), in runs long enough for every sender to have started (--simTime = 3ms + 10us per
 * sender) at 1, 250, 500, 1000 and 2000 senders; the growth is linear in the senders:
 *   udp: 20.0, 32.6, 44.9, 70.7, 120.0 MB -> 51.2 KB per sender
 *   tcp: 25.8, 620.8, 1219.7, 2417.5, 4812.5 MB -> 2.45 MB per sender
 * - MEM_PER_PAIR: every sender/receiver pair (2 nodes with their IPv4 stacks, 2 links = 4
 *   devices with their queues and queue discs, 2 applications and their sockets): the UDP
 *   slope, 51.2 KB, rounded up.
 * - MEM_PER_TCP_SENDER: what a TCP sender adds: BulkSend fills the 4 MiB send buffer
 *   (ns3::TcpSocket::SndBufSize, set below) with 512-byte writes, 8192 ns-3 packets of about
 *   290 B each (the payload bytes are not allocated): the TCP slope minus the UDP one.
 * - MEM_PER_QUEUED_PACKET: a packet held in a queue (ns-3 packet and queue-disc item):
 *   400 MB of 1028-byte UDP packets queued at R1 (--notEct=Accept --bufMax=400MB
 *   --udpLoad=2 --simTime=400ms) took 150 MB more than the same run with --bufMax=400KB:
 *   404 B per packet, rounded up.
 * - MEM_BASE: the program with its libraries and the routers, 20 MB at one sender, plus what
 *   a long TCP run adds over time whatever the senders (packet buffers of ns-3's TCP receive
 *   path, TcpRxBuffer::Extract, by valgrind's massif): 4 TCP senders peak at 73 MB after
 *   100 ms, 104 MB after 500 ms.
 * Not counted: out-of-order data a TCP receiver holds after losses (at most its 4 MiB receive
 * buffer's worth of packets, about 1.3 MB).
 */
const uint64_t MEM_BASE = 120000000;
/// Bytes per sender-receiver pair (see MEM_BASE).
const uint64_t MEM_PER_PAIR = 52000;
/// Extra bytes per TCP sender (see MEM_BASE).
const uint64_t MEM_PER_TCP_SENDER = 2400000;
/// Bytes per packet held in a queue (see MEM_BASE).
const uint64_t MEM_PER_QUEUED_PACKET = 450;
/// Packets a host link's sending end can hold: ns-3's default root queue disc (pfifo_fast,
/// 1000 packets) and the point-to-point device queue (DropTailQueue, 100 packets).
const uint64_t LINK_QUEUE_PACKETS = 1100;

/// \return the number of decimal digits of v
uint64_t
Digits(uint64_t v)
{
    uint64_t d = 1;
    while (v >= 10)
    {
        v /= 10;
        d++;
    }
    return d;
}

/// \return the initial value (Config default) of attribute `attr` of `type`, as text
std::string
AttributeDefault(const std::string& type, const std::string& attr)
{
    TypeId::AttributeInformation info;
    TypeId tid = TypeId::LookupByName(type);
    NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(attr, &info), "no attribute " << attr);
    return info.initialValue->SerializeToString(info.checker);
}

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
    using Range = rdmacc::Options::Range;
    rdmacc::Options opts(
        "red-ecn-dumbbell",
        "N senders -> router R1 -> bottleneck -> router R2 -> N receivers on ns-3 point-to-point "
        "links, with ns3::RedEcnQueueDisc (RED/ECN marking and WRED drop decided in Rust) on "
        "R1's bottleneck port. Writes OUT/summary.json and OUT/queue.csv; exit status 3 when "
        "an invariant of the run fails.");
    opts.Count(
            "senders", 4, "number of sender/receiver pairs", Range::Closed(1, double(MAX_SENDERS)))
        .Choice("transport",
                "tcp",
                {"tcp", "udp"},
                "tcp: DCTCP senders (ECT packets); udp: constant-rate UDP (Not-ECT packets)")
        .Rate("accessRate", "10Gbps", "rate of every sender and receiver link")
        .Rate("bottleneckRate", "10Gbps", "rate of the R1-R2 link")
        .Duration("delay", "5us", "one-way propagation delay of every link")
        .Duration("simTime",
                  "100ms",
                  "simulated time; the senders start at 1ms, 10us apart, and stop at its end",
                  Range::AboveAtMost(double(FIRST_START.GetNanoSeconds()),
                                     double(MAX_SIM_TIME.GetNanoSeconds())))
        .AddRedEcnParams({"kmin", "kmax", "pmax", "notEct", "kfs", "bufMax"})
        // this dumbbell's marking (10 Gb/s links): K_min 20 KB, K_max 80 KB, P_max 10 %,
        // Not-ECT dropped at 20 KB, a 400 KB queue
        .Default("kmin", "20000")
        .Default("kmax", "80000")
        .Default("pmax", "0.1")
        .Default("notEct", "ThresholdDrop")
        .Default("kfs", "20000")
        .Default("bufMax", "400000")
        .Real("udpLoad",
              1.2,
              "transport=udp: offered load as a multiple of the bottleneck rate, shared by the "
              "senders",
              Range::AboveAtMost(0, 100))
        .Duration("sample",
                  "10us",
                  "queue sampling interval (queue.csv and the queue statistics)",
                  Range::Above(0))
        .Bytes("csvWarn",
               "1GB",
               "warn at the start when queue.csv will be larger than this (its size is "
               "--simTime / --sample rows)",
               Range::AtLeast(1))
        .Count("seed", 1, "random seed (ns-3 run number)", Range::Closed(1, 4294967295.0))
        .Text("out", "results/red-ecn-dumbbell", "output directory");
    // the attributes the links take from the options above
    opts.Covers("ns3::PointToPointNetDevice::DataRate", "accessRate or --bottleneckRate")
        .Covers("ns3::PointToPointChannel::Delay", "delay");
    opts.Parse(argc, argv);
    rdmacc::ChooseScheduler(); // before the simulator's first use

    const uint32_t senders = static_cast<uint32_t>(opts.GetCount("senders"));
    const std::string transport = opts.GetText("transport");
    const bool tcp = transport == "tcp";
    const uint64_t bottleneckBps = opts.GetRate("bottleneckRate");
    const Time linkDelay = opts.GetTime("delay");
    const Time simTime = opts.GetTime("simTime");
    const Time sampleEvery = opts.GetTime("sample");
    const double udpLoad = opts.GetReal("udpLoad");
    const uint32_t seed = static_cast<uint32_t>(opts.GetCount("seed"));
    const std::string out = opts.GetText("out");

    // The queue disc's values, checked together in Rust before anything is built (errors name
    // the options), then the defaults of the queue disc created below.
    opts.ApplyRedEcnDefaults();
    const uint64_t kMinB = opts.GetBytes("kmin");
    const uint64_t kMaxB = opts.GetBytes("kmax");
    const uint64_t kFsB = opts.GetBytes("kfs");
    const uint64_t bufB = opts.GetBytes("bufMax");
    const double pmax = opts.GetReal("pmax");
    const std::string notEct = opts.GetText("notEct");

    // UDP: each sender's constant rate, a whole number of bit/s (ns-3's DataRate). ns-3's
    // OnOffApplication sends one packet every payload/rate: a rate of 0 makes that interval
    // infinite (ns-3 then schedules in the past and never ends), one below 1 ns (ns-3's time
    // resolution) rounds to 0 and sends forever at the same instant.
    uint64_t udpRateBps = 0;
    if (!tcp)
    {
        udpRateBps = static_cast<uint64_t>(double(bottleneckBps) * udpLoad / senders);
        const uint64_t maxBps = uint64_t(UDP_PAYLOAD) * 8 * 1000000000ULL; // one packet per ns
        if (udpRateBps < 1 || udpRateBps > maxBps)
        {
            std::ostringstream os;
            os << "invalid --udpLoad = " << opts.GetAsText("udpLoad")
               << ": with --senders=" << senders
               << " and --bottleneckRate=" << opts.GetAsText("bottleneckRate")
               << " each sender would send " << udpRateBps << " bit/s; it must be in [1 bit/s, "
               << maxBps / 1000000000000ULL << "Tbps] (one " << UDP_PAYLOAD
               << " B packet per ns at most)";
            rdmacc::ConfigFatal("command line", os.str());
        }
    }

    // memory: refuse a run that cannot fit, before building anything (constants above)
    {
        // R1's queue disc holds at most --bufMax bytes of data packets (IP size: UDP payload +
        // 28 B, a full TCP segment 1500 B)
        const uint64_t queued =
            (bufB / (tcp ? 1500 : UDP_PAYLOAD + 28) + 1) * MEM_PER_QUEUED_PACKET;
        // a link's sending end queues only when more arrives than its rate: a UDP sender above
        // its access rate; R2 towards a receiver when the bottleneck is faster than the access
        const uint64_t accessBps = opts.GetRate("accessRate");
        const uint64_t linkQueues =
            (!tcp && udpRateBps > accessBps ? 1 : 0) + (bottleneckBps > accessBps ? 1 : 0);
        const uint64_t perSender = MEM_PER_PAIR + (tcp ? MEM_PER_TCP_SENDER : 0) +
                                   linkQueues * LINK_QUEUE_PACKETS * MEM_PER_QUEUED_PACKET;
        const uint64_t estimate = MEM_BASE + queued + uint64_t(senders) * perSender;
        const uint64_t available = rdmacc::AvailableMemoryBytes();
        std::string remedy = "use fewer --senders or a smaller --bufMax";
        if (available > MEM_BASE + queued + perSender)
        {
            remedy =
                "use --senders=" + std::to_string((available - MEM_BASE - queued) / perSender) +
                " or fewer (about " + rdmacc::FormatBytes(perSender) + " per sender)";
        }
        rdmacc::CheckMemory(estimate,
                            "--senders=" + std::to_string(senders) + " --transport=" + transport,
                            remedy,
                            available);
    }

    // queue.csv: one row per sample; warn when it will be large
    const Time sampled = simTime - FIRST_START;
    const uint64_t rows = uint64_t((sampled.GetNanoSeconds() + sampleEvery.GetNanoSeconds() - 1) /
                                   sampleEvery.GetNanoSeconds());
    const uint64_t csvBytes = rows * (Digits(simTime.GetNanoSeconds()) + 1 + Digits(bufB) + 1) + 14;
    if (csvBytes > opts.GetBytes("csvWarn"))
    {
        rdmacc::WarnCsvSize(out + "/queue.csv",
                            "about " + rdmacc::FormatBytes(csvBytes) + " (" + std::to_string(rows) +
                                " samples, one every --sample=" + opts.GetAsText("sample") +
                                " from 1ms to --simTime=" + opts.GetAsText("simTime") +
                                "), more than --csvWarn=" + opts.GetAsText("csvWarn"),
                            "a larger --sample writes less");
    }

    // --out before the simulation: the directory and the first file
    rdmacc::MakeOutputDir(out);
    rdmacc::QueueSampler sampler(sampleEvery, out + "/queue.csv");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(TCP_SEGMENT));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));

    NodeContainer left;
    NodeContainer right;
    NodeContainer routers;
    left.Create(senders);
    right.Create(senders);
    routers.Create(2);
    // IPv4 only. A host needs one default route (ns-3's static routing); a router computes
    // its routes from the addresses (DumbbellRouting). ns-3's global routing, used before,
    // computes routes between all pairs of nodes: time quadratic in the nodes.
    InternetStackHelper hostStack;
    hostStack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    hostStack.SetIpv6StackInstall(false);
    hostStack.Install(left);
    hostStack.Install(right);
    InternetStackHelper routerStack;
    routerStack.SetRoutingHelper(DumbbellRoutingHelper());
    routerStack.SetIpv6StackInstall(false);
    routerStack.Install(routers);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(opts.GetRate("accessRate"))));
    access.SetChannelAttribute("Delay", TimeValue(linkDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(bottleneckBps)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(linkDelay));
    // keep the device queue minimal so the queue builds in the queue disc
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    NetDeviceContainer core = bottleneck.Install(routers.Get(0), routers.Get(1));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedEcnQueueDisc"); // attributes: the options' defaults above
    QueueDiscContainer qdiscs = tch.Install(core.Get(0));
    Ptr<RedEcnQueueDisc> red = DynamicCast<RedEcnQueueDisc>(qdiscs.Get(0));
    red->AssignStreams(7);
    rdmacc::QueueDiscCounters counted;
    counted.Connect(red);

    const Ipv4Address leftBase("10.0.0.0");
    const Ipv4Address rightBase("10.128.0.0");
    const Ipv4Address coreBase("192.168.0.0");
    const uint32_t r1Core = rdmacc::AddInterface(core.Get(0), rdmacc::LinkAddress(coreBase, 0, 1));
    const uint32_t r2Core = rdmacc::AddInterface(core.Get(1), rdmacc::LinkAddress(coreBase, 0, 2));
    Ipv4StaticRoutingHelper routing;
    std::vector<Ipv4Address> dst;
    std::vector<uint32_t> r1If;
    std::vector<uint32_t> r2If;
    dst.reserve(senders);
    r1If.reserve(senders);
    r2If.reserve(senders);
    for (uint32_t i = 0; i < senders; i++)
    {
        NetDeviceContainer l = access.Install(left.Get(i), routers.Get(0));
        const uint32_t li = rdmacc::AddInterface(l.Get(0), rdmacc::LinkAddress(leftBase, i, 1));
        r1If.push_back(rdmacc::AddInterface(l.Get(1), rdmacc::LinkAddress(leftBase, i, 2)));
        routing.GetStaticRouting(left.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(rdmacc::LinkAddress(leftBase, i, 2), li);
        NetDeviceContainer r = access.Install(right.Get(i), routers.Get(1));
        const uint32_t ri = rdmacc::AddInterface(r.Get(0), rdmacc::LinkAddress(rightBase, i, 1));
        r2If.push_back(rdmacc::AddInterface(r.Get(1), rdmacc::LinkAddress(rightBase, i, 2)));
        routing.GetStaticRouting(right.Get(i)->GetObject<Ipv4>())
            ->SetDefaultRoute(rdmacc::LinkAddress(rightBase, i, 2), ri);
        dst.push_back(rdmacc::LinkAddress(rightBase, i, 1));
    }
    DynamicCast<DumbbellRouting>(routers.Get(0)->GetObject<Ipv4>()->GetRoutingProtocol())
        ->Configure(
            leftBase, std::move(r1If), rightBase, r1Core, rdmacc::LinkAddress(coreBase, 0, 2));
    DynamicCast<DumbbellRouting>(routers.Get(1)->GetObject<Ipv4>()->GetRoutingProtocol())
        ->Configure(
            rightBase, std::move(r2If), leftBase, r2Core, rdmacc::LinkAddress(coreBase, 0, 1));

    const uint16_t port = 5000;
    const std::string factory = tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<uint64_t> sent(senders, 0);
    for (uint32_t i = 0; i < senders; i++)
    {
        PacketSinkHelper sink(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        auto apps = sink.Install(right.Get(i));
        apps.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(apps.Get(0)));
        ApplicationContainer src;
        if (tcp)
        {
            BulkSendHelper bulk(factory, InetSocketAddress(dst[i], port));
            bulk.SetAttribute("MaxBytes", UintegerValue(0));
            src = bulk.Install(left.Get(i));
        }
        else
        {
            OnOffHelper onoff(factory, InetSocketAddress(dst[i], port));
            onoff.SetConstantRate(DataRate(udpRateBps), UDP_PAYLOAD);
            src = onoff.Install(left.Get(i));
        }
        src.Get(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountTx, &sent[i]));
        src.Start(FIRST_START + START_GAP * i);
        src.Stop(simTime);
    }

    sampler.Start(qdiscs.Get(0), FIRST_START);
    Simulator::Stop(simTime);
    rdmacc::ProgressLine line("red-ecn-dumbbell", simTime, "--simTime");
    const uint64_t ev0 = Simulator::GetEventCount();
    auto wall0 = std::chrono::steady_clock::now();
    line.Start();
    // every attribute the command line set holds in the built run; a dry run ends here
    opts.CheckBeforeRun();
    // every check passed: the warnings about the run, then the run
    rdmacc::FlushWarnings();
    Simulator::Run();
    line.Stop();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const uint64_t events = Simulator::GetEventCount() - ev0 - line.Events();
    sampler.Finish();

    // ---- results
    const auto& st = red->GetStats();
    const double dur = (simTime - FIRST_START).GetSeconds();
    uint64_t rxTotal = 0;
    uint64_t sentTotal = 0;
    for (uint32_t i = 0; i < senders; i++)
    {
        rxTotal += sinks[i]->GetTotalRx();
        sentTotal += sent[i];
    }
    const double util = rxTotal * 8.0 / dur / double(bottleneckBps);

    // The most application payload the bottleneck can carry: every packet on it is a PPP frame
    // (2 B header, ns-3 adds no preamble or gap) around an IPv4 packet (20 B header) around a
    // UDP datagram (8 B header, UDP_PAYLOAD B) or a TCP segment (20 B header plus 12 B with the
    // timestamp option, ns-3's default; at most SegmentSize B of payload). A smaller packet
    // carries proportionally less, so payload / (payload + headers) at the largest payload
    // bounds the payload rate over the time the senders run.
    const uint32_t ppp = 2;
    const uint32_t ip = 20;
    uint32_t payload = UDP_PAYLOAD;
    uint32_t headers = ppp + ip + 8;
    if (tcp)
    {
        payload = std::stoul(AttributeDefault("ns3::TcpSocket", "SegmentSize"));
        headers = ppp + ip + 20 +
                  (AttributeDefault("ns3::TcpSocketBase", "Timestamp") == "true" ? 12 : 0);
    }
    const double payloadLimit = double(bottleneckBps) * payload / (payload + headers);

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
    // QueueDisc::Stats: every packet received is enqueued or dropped, every packet enqueued is
    // dequeued or still queued, every drop has its reason; packet counts are 32-bit in ns-3,
    // so they are compared with the 64-bit counts modulo 2^32
    const uint32_t inQueue = red->GetNPackets();
    std::vector<std::pair<bool, std::string>> accounting = {
        {st.nTotalReceivedPackets ==
                 st.nTotalEnqueuedPackets + st.nTotalDroppedPacketsBeforeEnqueue &&
             st.nTotalReceivedBytes == st.nTotalEnqueuedBytes + st.nTotalDroppedBytesBeforeEnqueue,
         "received != enqueued + dropped before enqueue"},
        {uint32_t(st.nTotalEnqueuedPackets - st.nTotalDequeuedPackets) == inQueue &&
             st.nTotalEnqueuedBytes - st.nTotalDequeuedBytes == red->GetNBytes(),
         "enqueued != dequeued + in queue"},
        {st.nTotalDroppedPackets ==
             st.nTotalDroppedPacketsBeforeEnqueue + st.nTotalDroppedPacketsAfterDequeue,
         "dropped != dropped before enqueue + after dequeue"},
        {uint32_t(counted.enqueued) == st.nTotalEnqueuedPackets &&
             uint32_t(counted.dequeued) == st.nTotalDequeuedPackets &&
             uint32_t(counted.marks) == st.nTotalMarkedPackets &&
             uint32_t(counted.DropTotal()) == st.nTotalDroppedPackets,
         "trace counts differ from QueueDisc::Stats"},
        {counted.marks <= counted.enqueued, "more marks than enqueued packets"},
    };
    uint64_t namedDrops = 0;
    for (const auto& reason : RedEcnQueueDisc::DropReasonNames())
    {
        namedDrops += counted.Drops(reason);
        accounting.emplace_back(uint32_t(counted.Drops(reason)) == st.GetNDroppedPackets(reason),
                                "drops of " + reason + " differ from QueueDisc::Stats");
    }
    accounting.emplace_back(namedDrops == counted.DropTotal(), "drops with an unknown reason");
    for (const auto& [ok, what] : accounting)
    {
        inv.Check(ok, "RedEcnQueueDisc accounting: " + what);
    }

    std::cout << "red-ecn-dumbbell: " << senders << " x " << transport << " senders, "
              << opts.GetAsText("accessRate") << " access, " << opts.GetAsText("bottleneckRate")
              << " bottleneck, " << opts.GetAsText("delay") << " links, "
              << opts.GetAsText("simTime") << "\n";
    std::cout << "  RedEcnQueueDisc KMin=" << kMinB << " KMax=" << kMaxB << " PMax=" << pmax
              << " NotEctMode=" << notEct << " KFs=" << kFsB << " BufMax=" << bufB << "\n";
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
    std::vector<std::pair<std::string, uint64_t>> dropList;
    for (const auto& reason : RedEcnQueueDisc::DropReasonNames())
    {
        dropList.emplace_back(reason, counted.Drops(reason));
    }
    std::cout << rdmacc::DropCounts(dropList);
    std::cout << "\n  invariants " << inv.Verdict() << "\n";
    std::cout << "  wall " << std::setprecision(2) << wall << " s\n";

    // the shared keys (rdmacc::SummaryWriter) and this example's
    rdmacc::SummaryWriter w("red-ecn-dumbbell", tcp ? "tcp-dctcp" : "none", seed);
    w.Keys()
        .Str("transport", transport)
        .UInt("senders", senders)
        .Str("bottleneck_rate", opts.GetAsText("bottleneckRate"));
    // a run of fixed duration whose senders never finish: complete is false
    w.Run(simTime.GetNanoSeconds(), wall, events)
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
