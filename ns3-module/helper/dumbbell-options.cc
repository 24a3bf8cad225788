/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dumbbell-options.h"

#include "rdma-cc-output.h"

#include "ns3/abort.h"
#include "ns3/type-id.h"

#include <sstream>

namespace ns3
{
namespace rdmacc
{

namespace
{

/// Longest --simTime, ns: the default run (4 TCP senders at 10 Gb/s) simulates 100 ms in about
/// 5 s of wall-clock time on the development machine, so 100 s is more than an hour.
const double MAX_SIM_TIME_NS = 100e9;
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
 *   (ns3::TcpSocket::SndBufSize, set by the example) with 512-byte writes, 8192 ns-3 packets of
 *   about 290 B each (the payload bytes are not allocated): the TCP slope minus the UDP one.
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

} // namespace

void
DeclareDumbbellOptions(Options& opts, Time firstStart)
{
    using Range = Options::Range;
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
                  Range::AboveAtMost(double(firstStart.GetNanoSeconds()), MAX_SIM_TIME_NS))
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
}

uint64_t
DumbbellUdpRate(const Options& opts, uint32_t payload)
{
    const uint64_t senders = opts.GetCount("senders");
    const uint64_t udpRateBps =
        static_cast<uint64_t>(double(opts.GetRate("bottleneckRate")) * opts.GetReal("udpLoad") /
                              static_cast<uint32_t>(senders));
    const uint64_t maxBps = uint64_t(payload) * 8 * 1000000000ULL; // one packet per ns
    if (udpRateBps < 1 || udpRateBps > maxBps)
    {
        std::ostringstream os;
        os << "invalid --udpLoad = " << opts.GetAsText("udpLoad") << ": with --senders=" << senders
           << " and --bottleneckRate=" << opts.GetAsText("bottleneckRate")
           << " each sender would send " << udpRateBps << " bit/s; it must be in [1 bit/s, "
           << maxBps / 1000000000000ULL << "Tbps] (one " << payload << " B packet per ns at most)";
        ConfigFatal("command line", os.str());
    }
    return udpRateBps;
}

void
CheckDumbbellMemory(const Options& opts, uint64_t udpRateBps, uint32_t udpPayload)
{
    const uint32_t senders = static_cast<uint32_t>(opts.GetCount("senders"));
    const bool tcp = opts.GetText("transport") == "tcp";
    const uint64_t accessBps = opts.GetRate("accessRate");
    const uint64_t bottleneckBps = opts.GetRate("bottleneckRate");
    // R1's queue disc holds at most --bufMax bytes of data packets (IP size: UDP payload +
    // 28 B, a full TCP segment 1500 B)
    const uint64_t queued =
        (opts.GetBytes("bufMax") / (tcp ? 1500 : udpPayload + 28) + 1) * MEM_PER_QUEUED_PACKET;
    // a link's sending end queues only when more arrives than its rate: a UDP sender above
    // its access rate; R2 towards a receiver when the bottleneck is faster than the access
    const uint64_t linkQueues =
        (!tcp && udpRateBps > accessBps ? 1 : 0) + (bottleneckBps > accessBps ? 1 : 0);
    const uint64_t perSender = MEM_PER_PAIR + (tcp ? MEM_PER_TCP_SENDER : 0) +
                               linkQueues * LINK_QUEUE_PACKETS * MEM_PER_QUEUED_PACKET;
    const uint64_t estimate = MEM_BASE + queued + uint64_t(senders) * perSender;
    const uint64_t available = AvailableMemoryBytes();
    std::string remedy = "use fewer --senders or a smaller --bufMax";
    if (available > MEM_BASE + queued + perSender)
    {
        remedy = "use --senders=" + std::to_string((available - MEM_BASE - queued) / perSender) +
                 " or fewer (about " + FormatBytes(perSender) + " per sender)";
    }
    CheckMemory(estimate,
                "--senders=" + std::to_string(senders) +
                    " --transport=" + opts.GetText("transport"),
                remedy,
                available);
}

void
WarnQueueCsvSize(const Options& opts, Time firstStart)
{
    const Time simTime = opts.GetTime("simTime");
    const Time sampleEvery = opts.GetTime("sample");
    const Time sampled = simTime - firstStart;
    const uint64_t rows = uint64_t((sampled.GetNanoSeconds() + sampleEvery.GetNanoSeconds() - 1) /
                                   sampleEvery.GetNanoSeconds());
    const uint64_t csvBytes =
        rows * (Digits(simTime.GetNanoSeconds()) + 1 + Digits(opts.GetBytes("bufMax")) + 1) + 14;
    if (csvBytes > opts.GetBytes("csvWarn"))
    {
        WarnCsvSize(opts.GetText("out") + "/queue.csv",
                    "about " + FormatBytes(csvBytes) + " (" + std::to_string(rows) +
                        " samples, one every --sample=" + opts.GetAsText("sample") +
                        " from 1ms to --simTime=" + opts.GetAsText("simTime") +
                        "), more than --csvWarn=" + opts.GetAsText("csvWarn"),
                    "a larger --sample writes less");
    }
}

double
DumbbellPayloadLimit(bool tcp, uint64_t bottleneckBps, uint32_t udpPayload)
{
    const uint32_t ppp = 2;
    const uint32_t ip = 20;
    uint32_t payload = udpPayload;
    uint32_t headers = ppp + ip + 8;
    if (tcp)
    {
        payload = std::stoul(AttributeDefault("ns3::TcpSocket", "SegmentSize"));
        headers = ppp + ip + 20 +
                  (AttributeDefault("ns3::TcpSocketBase", "Timestamp") == "true" ? 12 : 0);
    }
    return double(bottleneckBps) * payload / (payload + headers);
}

} // namespace rdmacc
} // namespace ns3
