/*
 * Tests of the lossless fabric: PFC timing on a QbbNetDevice, incast through a SwitchNode with
 * and without PFC, the default headroom from the links, headroom errors and allowed overruns,
 * ECMP over a Clos, Clos routes and base RTT, the fat tree and a topology file's fabric, and the
 * MMU accounting invariants.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include "rdma-cc/src/switch.rs.h" // the fields of SwitchNode's counters (Rust's structs)

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

const uint32_t kPayload = 1000;
const uint32_t kFrame = kPayload + RoceHeader::DATA_OVERHEAD; // 1062
/// IEEE 802.3 preamble, start-of-frame delimiter and inter-frame gap (bytes): the test's own
/// expectation, not the model's (Rust's) constant
const uint32_t kPreambleIfg = 20;
const double kEfficiency = double(kPayload) / (kFrame + kPreambleIfg);

/// Arrival times of data frames at a device (rx handler after RawHost's).
struct ArrivalLog
{
    std::vector<Time> times;

    void
    Record(Ptr<const Packet>)
    {
        times.push_back(Simulator::Now());
    }

    /// Largest gap between consecutive arrivals after `from`, and where it starts.
    std::pair<Time, Time>
    LargestGap(Time from) const
    {
        Time best = Seconds(0);
        Time at = Seconds(0);
        for (size_t i = 1; i < times.size(); i++)
        {
            if (times[i - 1] >= from && times[i] - times[i - 1] > best)
            {
                best = times[i] - times[i - 1];
                at = times[i - 1];
            }
        }
        return {best, at};
    }
};

/// Two hosts on one link; A streams raw frames to B at line rate.
struct HostPair
{
    Fabric fabric;
    Ptr<RawHost> a;
    Ptr<RawHost> b;
    ArrivalLog log;

    explicit HostPair(uint16_t pauseQuanta = 0xFFFF)
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetDeviceAttribute("PauseQuanta", UintegerValue(pauseQuanta));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        Ptr<Node> na = fh.AddHost();
        Ptr<Node> nb = fh.AddHost();
        fh.Connect(na, nb);
        fabric = fh.Finalize();
        a = CreateObject<RawHost>();
        b = CreateObject<RawHost>();
        a->Attach(fabric.hostDevices[0], na->GetId());
        b->Attach(fabric.hostDevices[1], nb->GetId());
        fabric.hostDevices[1]->TraceConnectWithoutContext("MacRx",
                                                          MakeCallback(&ArrivalLog::Record, &log));
        a->AddFlow(nb->GetId(), 3, 100000000, Seconds(0), 1);
    }
};

Time
FrameTime()
{
    return DataRate("100Gbps").CalculateBytesTxTime(kFrame + kPreambleIfg);
}

} // namespace

/// A PAUSE with time q stops the peer for q x 512 bit times (within one frame time).
class PfcPauseTimingTestCase : public TestCase
{
  public:
    PfcPauseTimingTestCase() :
        TestCase("PAUSE of q quanta stops the peer for q*512 bit times")
    {
    }

  private:
    void
    DoRun() override
    {
        HostPair hp;
        const uint16_t q = 1000; // 512000 bit times = 5.12 us at 100 Gb/s
        Simulator::Schedule(
            MicroSeconds(20), &QbbNetDevice::SendPfcFrame, hp.fabric.hostDevices[1], 3, q);
        Simulator::Stop(MicroSeconds(60));
        Simulator::Run();
        const Time d = NanoSeconds(q * 512 / 100); // 5120 ns
        auto [gap, at] = hp.log.LargestGap(MicroSeconds(15));
        NS_TEST_ASSERT_MSG_GT_OR_EQ(gap, d, "paused at least the pause time (gap at " << at << ")");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(
            gap, d + FrameTime() + NanoSeconds(2), "at most one frame more");
        NS_TEST_ASSERT_MSG_EQ(
            hp.fabric.hostDevices[0]->GetStats().pfcRx[3], 1, "one PAUSE received");
        NS_TEST_ASSERT_MSG_EQ(hp.fabric.hostDevices[0]->GetPausedTime(3), d, "paused time");
        // before the pause the link runs at exactly line rate: 100 frames of 1082 B on the
        // wire in 8656 ns (sub-nanosecond remainders are carried, not lost)
        NS_TEST_ASSERT_MSG_EQ(
            (hp.log.times[110] - hp.log.times[10]), NanoSeconds(8656), "line rate");
        Simulator::Destroy();
    }
};

/// A zero-time frame resumes at once.
class PfcResumeTestCase : public TestCase
{
  public:
    PfcResumeTestCase() :
        TestCase("a zero-time PFC frame resumes the peer at once")
    {
    }

  private:
    void
    DoRun() override
    {
        HostPair hp;
        Ptr<QbbNetDevice> b = hp.fabric.hostDevices[1];
        Simulator::Schedule(MicroSeconds(20), &QbbNetDevice::SendPfcFrame, b, 3, 65535);
        Simulator::Schedule(MicroSeconds(30), &QbbNetDevice::SendPfcFrame, b, 3, 0);
        Simulator::Stop(MicroSeconds(60));
        Simulator::Run();
        auto [gap, at] = hp.log.LargestGap(MicroSeconds(15));
        // 65535 quanta would be 335 us; the RESUME 10 us later ends it
        NS_TEST_ASSERT_MSG_GT_OR_EQ(gap, MicroSeconds(10), "paused until the RESUME");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(
            gap, MicroSeconds(10) + FrameTime() + NanoSeconds(2), "resumed at once");
        NS_TEST_ASSERT_MSG_EQ(hp.fabric.hostDevices[0]->GetStats().resumeRx[3], 1, "one RESUME");
        // the two frames' serialisation differs by the 1 ns of carried sub-nanosecond remainder
        NS_TEST_ASSERT_MSG_EQ_TOL(hp.fabric.hostDevices[0]->GetPausedTime(3),
                                  MicroSeconds(10),
                                  NanoSeconds(1),
                                  "paused time");
        Simulator::Destroy();
    }
};

/// SendPfc refreshes the PAUSE while it is wanted, so the peer stays paused past one pause time.
class PfcRefreshTestCase : public TestCase
{
  public:
    PfcRefreshTestCase() :
        TestCase("refreshed PAUSE keeps the peer paused until RESUME")
    {
    }

  private:
    void
    DoRun() override
    {
        HostPair hp(1000); // each PAUSE lasts 5.12 us; refreshed every 2.56 us
        Ptr<QbbNetDevice> b = hp.fabric.hostDevices[1];
        Simulator::Schedule(MicroSeconds(20), &QbbNetDevice::SendPfc, b, 3, true);
        Simulator::Schedule(MicroSeconds(70), &QbbNetDevice::SendPfc, b, 3, false);
        Simulator::Stop(MicroSeconds(100));
        Simulator::Run();
        auto [gap, at] = hp.log.LargestGap(MicroSeconds(15));
        NS_TEST_ASSERT_MSG_GT_OR_EQ(gap, MicroSeconds(50), "paused for the whole 50 us");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(
            gap, MicroSeconds(50) + FrameTime() + NanoSeconds(2), "then resumed");
        // 50 us / 2.56 us refresh period: the first PAUSE and 19 refreshes
        NS_TEST_ASSERT_MSG_EQ(b->GetStats().pfcTx[3], 20, "PAUSE refreshed");
        NS_TEST_ASSERT_MSG_EQ(b->GetStats().resumeTx[3], 1, "one RESUME");
        Simulator::Destroy();
    }
};

/// Incast of N raw line-rate senders through one switch.
struct Incast
{
    Fabric fabric;
    std::vector<Ptr<RawHost>> raw;
    uint64_t sent = 0;
    uint64_t received = 0;
    double goodput = 0;
    SwitchNode::Counters c{};
    std::string invariants;
    uint64_t pausesRx = 0;
    std::vector<std::string> warnings;
    uint64_t headroomInUse = 0; //!< the senders' ports' headroom

    /// headroom 0: automatic (each port's need from its link)
    Incast(uint32_t senders,
           bool pfc,
           uint64_t bytes,
           uint64_t buffer,
           uint64_t headroom,
           Time delay = MicroSeconds(1),
           bool allowOverrun = false)
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(delay));
        fh.SetSwitchAttribute("BufferSize", UintegerValue(buffer));
        fh.SetSwitchAttribute("Headroom", UintegerValue(headroom));
        fh.SetSwitchAttribute("AllowHeadroomOverrun", BooleanValue(allowOverrun));
        fh.SetSwitchAttribute("EgressLimit", UintegerValue(200000));
        fh.SetSwitchAttribute("PfcPriorities", UintegerValue(pfc ? 0x08 : 0));
        fh.SetQueuePriorities(0);
        fabric = fh.SingleSwitch(senders + 1);
        warnings = fh.GetWarnings();
        headroomInUse = fabric.switches[0]->GetHeadroom(1);
        for (uint32_t i = 0; i <= senders; i++)
        {
            raw.push_back(CreateObject<RawHost>());
            raw.back()->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
        }
        for (uint32_t i = 1; i <= senders; i++)
        {
            raw[i]->AddFlow(fabric.hosts.Get(0)->GetId(), 3, bytes, Seconds(0), 100 + i);
        }
        Simulator::Run(); // no periodic events: runs until the last frame
        for (uint32_t i = 1; i <= senders; i++)
        {
            sent += raw[i]->GetFlows()[0].sent;
            pausesRx += fabric.hostDevices[i]->GetStats().pfcRx[3];
        }
        received = raw[0]->GetReceivedBytes();
        auto [t0, t1] = raw[0]->GetReceiveWindow();
        // frames after the first one, over the time between first and last arrival
        goodput = (received - double(received) / raw[0]->GetReceivedFrames()) * 8 /
                  (t1 - t0).GetSeconds();
        c = fabric.switches[0]->GetCounters();
        invariants = fabric.switches[0]->CheckInvariants();
        Simulator::Destroy();
    }

    uint64_t
    Drops() const
    {
        return c.drops_total;
    }
};

/// N-to-1 at line rate with PFC: no drops, PAUSEs, goodput at the wire limit.
class PfcIncastTestCase : public TestCase
{
  public:
    PfcIncastTestCase(uint32_t n, uint64_t bytes, uint64_t buffer) :
        TestCase(std::to_string(n) + "-to-1 at line rate with PFC: zero drops, PAUSEs, goodput "
                                     "within 2% of the wire limit"),
        m_n(n),
        m_bytes(bytes),
        m_buffer(buffer)
    {
    }

  private:
    void
    DoRun() override
    {
        Incast r(m_n, true, m_bytes, m_buffer, 32000);
        NS_TEST_ASSERT_MSG_EQ(r.Drops(), 0, "no drop on a lossless priority");
        NS_TEST_ASSERT_MSG_EQ(r.received, r.sent, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(r.sent, m_n * m_bytes, "every byte sent");
        NS_TEST_ASSERT_MSG_GT(r.c.pauses, 0, "the switch paused the senders");
        NS_TEST_ASSERT_MSG_GT(r.pausesRx, 0, "the senders received PAUSEs");
        NS_TEST_ASSERT_MSG_EQ(r.c.pauses, r.c.resumes, "every PAUSE was resumed");
        const double limit = 100e9 * kEfficiency;
        NS_TEST_ASSERT_MSG_GT_OR_EQ(r.goodput, 0.98 * limit, "goodput near the wire limit");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.goodput, 1.0001 * limit, "goodput cannot beat the wire");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "MMU accounting");
        NS_TEST_ASSERT_MSG_EQ(r.c.occupancy, 0, "buffer empty at the end");
        NS_TEST_ASSERT_MSG_EQ(r.c.received, r.c.forwarded, "received = forwarded");
    }

    uint32_t m_n;
    uint64_t m_bytes;
    uint64_t m_buffer;
};

/// The same incast with PFC off loses frames, counted by reason, and conserves bytes.
class NoPfcIncastTestCase : public TestCase
{
  public:
    NoPfcIncastTestCase() :
        TestCase("8-to-1 with PFC off: tail drops counted by reason, bytes conserved")
    {
    }

  private:
    void
    DoRun() override
    {
        Incast r(8, false, 500000, 2000000, 32000);
        NS_TEST_ASSERT_MSG_GT(r.c.drops.queue_full, 1000, "queue_full drops");
        NS_TEST_ASSERT_MSG_EQ(r.Drops(), r.c.drops.queue_full, "all drops are queue_full");
        NS_TEST_ASSERT_MSG_EQ(r.c.pauses, 0, "no PFC");
        NS_TEST_ASSERT_MSG_EQ(r.pausesRx, 0, "no PFC");
        // conservation in frames: every frame sent was delivered or dropped
        const uint64_t framesSent = r.sent / kPayload;
        NS_TEST_ASSERT_MSG_EQ(r.received / kPayload + r.Drops(), framesSent, "frames conserved");
        NS_TEST_ASSERT_MSG_EQ(r.c.drop_bytes, r.Drops() * kFrame, "drop bytes");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "MMU accounting");
        NS_TEST_ASSERT_MSG_EQ(r.c.occupancy, 0, "buffer empty at the end");
    }
};

/// The default headroom comes from each port's link: the incast of the 2055 ns links that
/// overran a fixed 32 KB headroom (2951 overruns, 85 % delivered) is lossless.
class DefaultHeadroomTestCase : public TestCase
{
  public:
    DefaultHeadroomTestCase() :
        TestCase("default headroom from the link: 20-to-1 over 2055 ns links is lossless")
    {
    }

  private:
    void
    DoRun() override
    {
        Incast r(20, true, 1000001, 12000000, 0, NanoSeconds(2055));
        // 2 x 25 688 B (100 Gb/s x 2055 ns, rounded up) + 2 x 1082 + 1062 + 84
        NS_TEST_ASSERT_MSG_EQ(r.headroomInUse, 54686, "each port's headroom from its link");
        NS_TEST_ASSERT_MSG_GT(r.c.pauses, 0, "the switch paused the senders");
        NS_TEST_ASSERT_MSG_EQ(r.Drops(), 0, "no drop on a lossless priority");
        NS_TEST_ASSERT_MSG_EQ(r.received, r.sent, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(r.sent, 20 * uint64_t(1000001), "every byte sent");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.c.max_headroom_used,
                                    r.headroomInUse,
                                    "the headroom held what arrived after each PAUSE");
        // the headroom is not grossly oversized either: most of it was needed
        NS_TEST_ASSERT_MSG_GT(r.c.max_headroom_used, r.headroomInUse * 8 / 10, "tight bound");
        NS_TEST_ASSERT_MSG_EQ(r.warnings.size(), 0, "no warning");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "MMU accounting");
    }
};

/// Builds (without Finalize) a single switch with `hosts` hosts on 100 Gb/s links of `delay`
/// and the given switch attributes, and returns the switch's validation message.
std::string
ValidateSwitch(uint32_t hosts,
               Time delay,
               const std::vector<std::pair<std::string, uint64_t>>& attrs)
{
    FabricHelper fh;
    fh.SetPrintWarnings(false);
    fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    fh.SetChannelAttribute("Delay", TimeValue(delay));
    for (const auto& [name, value] : attrs)
    {
        fh.SetSwitchAttribute(name, UintegerValue(value));
    }
    Ptr<SwitchNode> sw = fh.AddSwitch();
    for (uint32_t i = 0; i < hosts; i++)
    {
        fh.Connect(fh.AddHost(), sw);
    }
    const std::string msg = sw->ValidateConfig();
    Simulator::Destroy();
    return msg;
}

/// An explicit headroom below what a port's link needs, and a buffer that cannot hold every
/// port's headroom, are configuration errors naming the attribute (Setup stops the program
/// with exit status 2; the examples' exit statuses are checked in tests/test_pfc_incast.py).
class HeadroomErrorsTestCase : public TestCase
{
  public:
    HeadroomErrorsTestCase() :
        TestCase("too small an explicit Headroom, or a BufferSize below the headrooms, is named")
    {
    }

  private:
    void
    DoRun() override
    {
        std::string msg = ValidateSwitch(21, NanoSeconds(2055), {{"Headroom", 32000}});
        NS_TEST_ASSERT_MSG_EQ(msg.rfind("invalid Headroom = 32000 B: below the 54686 B port 0 "
                                        "needs on its 100Gbps link with 2055ns delay",
                                        0),
                              0,
                              "message was: " << msg);
        NS_TEST_ASSERT_MSG_NE(msg.find("AllowHeadroomOverrun"), std::string::npos, msg);
        NS_TEST_ASSERT_MSG_EQ(ValidateSwitch(21, NanoSeconds(2055), {{"Headroom", 54686}}),
                              "",
                              "exactly the need is enough");
        NS_TEST_ASSERT_MSG_EQ(
            ValidateSwitch(21, NanoSeconds(2055), {{"Headroom", 0}}), "", "automatic");
        NS_TEST_ASSERT_MSG_EQ(
            ValidateSwitch(21, NanoSeconds(2055), {{"Headroom", 32000}, {"PfcPriorities", 0}}),
            "",
            "no lossless priority: no headroom needed");
        // 41 ports x 28 310 B of automatic headroom do not fit in 1 MB
        msg = ValidateSwitch(41, MicroSeconds(1), {{"BufferSize", 1000000}});
        NS_TEST_ASSERT_MSG_EQ(msg.rfind("invalid BufferSize = 1000000 B: reserves (0 B) + the PFC "
                                        "headroom of 41 ports x 1 lossless priorities (1160710 B)",
                                        0),
                              0,
                              "message was: " << msg);
        NS_TEST_ASSERT_MSG_EQ(
            ValidateSwitch(35, MicroSeconds(1), {{"BufferSize", 1000000}}), "", "35 ports fit");
    }
};

/// A headroom smaller than the link needs, accepted by AllowHeadroomOverrun, overruns: counted
/// and warned about, never silent.
class HeadroomOverrunTestCase : public TestCase
{
  public:
    HeadroomOverrunTestCase() :
        TestCase("too small a PFC headroom, when allowed, overruns: counted, warned, never silent")
    {
    }

  private:
    void
    DoRun() override
    {
        Incast r(4, true, 2000000, 1000000, 3000, MicroSeconds(1), true);
        NS_TEST_ASSERT_MSG_EQ(r.headroomInUse, 3000, "the explicit headroom");
        NS_TEST_ASSERT_MSG_GT(r.c.drops.headroom_overrun, 0, "headroom_overrun drops counted");
        NS_TEST_ASSERT_MSG_EQ(r.Drops(), r.c.drops.headroom_overrun, "the only drops are overruns");
        bool warned = false;
        for (const auto& w : r.warnings)
        {
            warned |= w.find("Headroom (3000 B) is below the 28310 B needed") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(warned, true, "start-up warning about the headroom");
        NS_TEST_ASSERT_MSG_EQ(r.received + r.Drops() * kPayload, r.sent, "bytes conserved");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "MMU accounting");
    }
};

/// ECMP spreads flows over every spine of a Clos; a flow never changes path.
class EcmpClosTestCase : public TestCase
{
  public:
    EcmpClosTestCase() :
        TestCase("ECMP: 64 flows spread over all spines (<= 2x share), one path per flow")
    {
    }

  private:
    // (switch id, egress port) used by each flow (src node, flow index)
    std::map<std::pair<uint32_t, uint32_t>, std::set<std::pair<uint32_t, uint32_t>>> m_paths;
    std::map<uint32_t, uint32_t> m_spineFrames; //!< switch id -> frames

    void
    OnTx(uint32_t sw, uint32_t port, Ptr<const Packet> p)
    {
        RoceHeader h;
        p->PeekHeader(h);
        if (h.kind != RoceHeader::DATA)
        {
            return;
        }
        m_paths[{RoceHeader::IpToNode(h.srcIp), h.flowId}].insert({sw, port});
    }

    void
    DoRun() override
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        fh.SetQueuePriorities(0);
        // 2 pods x (2 ToRs, 2 leaves), 4 spines, 8 hosts per ToR: 4 leaf-spine paths per pod pair
        Fabric f = fh.Clos(2, 2, 2, 4, 8);
        NS_TEST_ASSERT_MSG_EQ(f.hosts.GetN(), 32, "hosts");
        const uint32_t firstSpine = f.switches[0]->GetId();
        for (const auto& sw : f.switches)
        {
            for (uint32_t port = 0; port < sw->GetNPorts(); port++)
            {
                sw->GetPort(port)->TraceConnectWithoutContext(
                    "PhyTxBegin",
                    MakeCallback(&EcmpClosTestCase::OnTx, this).Bind(sw->GetId(), port));
            }
        }
        std::vector<Ptr<RawHost>> raw;
        for (uint32_t i = 0; i < f.hosts.GetN(); i++)
        {
            raw.push_back(CreateObject<RawHost>());
            raw.back()->Attach(f.hostDevices[i], f.hosts.Get(i)->GetId());
        }
        // 64 flows from pod 0's hosts (0..15) to pod 1's hosts (16..31), 20 frames each
        for (uint32_t k = 0; k < 64; k++)
        {
            const uint32_t src = k % 16;
            const uint32_t dst = 16 + (k * 7) % 16;
            raw[src]->AddFlow(
                f.hosts.Get(dst)->GetId(), 3, 20 * kPayload, MicroSeconds(k), 5000 + k);
        }
        Simulator::Run();
        uint32_t flows = 0;
        std::map<uint32_t, uint32_t> perSpine;
        for (const auto& [flow, hops] : m_paths)
        {
            flows++;
            // one egress port per switch on the path: ToR, leaf, spine, leaf, ToR
            std::set<uint32_t> switches;
            for (const auto& [sw, port] : hops)
            {
                NS_TEST_ASSERT_MSG_EQ(switches.count(sw), 0, "flow changed port at switch " << sw);
                switches.insert(sw);
                if (sw >= firstSpine && sw < firstSpine + 4)
                {
                    perSpine[sw]++;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(switches.size(), 5, "5 switch hops");
        }
        NS_TEST_ASSERT_MSG_EQ(flows, 64, "every flow seen");
        NS_TEST_ASSERT_MSG_EQ(perSpine.size(), 4, "every spine used");
        for (const auto& [sw, n] : perSpine)
        {
            NS_TEST_ASSERT_MSG_LT_OR_EQ(n, 32, "spine " << sw << " carries <= 2x its share of 16");
        }
        uint64_t delivered = 0;
        for (const auto& r : raw)
        {
            delivered += r->GetReceivedBytes();
        }
        NS_TEST_ASSERT_MSG_EQ(delivered, 64 * 20 * kPayload, "every byte delivered");
        for (const auto& sw : f.switches)
        {
            NS_TEST_ASSERT_MSG_EQ(sw->CheckInvariants(), "", "MMU accounting at " << sw->GetId());
            NS_TEST_ASSERT_MSG_EQ(sw->GetCounters().occupancy, 0, "empty at the end");
        }
        Simulator::Destroy();
    }
};

/// Routes of a Clos as seen through Fabric: every shortest-path port, ascending; base RTT
/// along them.
class ClosRoutesTestCase : public TestCase
{
  public:
    ClosRoutesTestCase() :
        TestCase("Clos routes: all shortest-path ports per switch, host uplinks, base RTT")
    {
    }

  private:
    void
    DoRun() override
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        // switches in creation order: spines 0-3, pod 0 (leaves 4-5, ToRs 6-7), pod 1 (8-11);
        // a leaf's ports: spines 0-3, then its pod's ToRs; a ToR's: leaves 0-1, then hosts
        Fabric f = fh.Clos(2, 2, 2, 4, 8);
        auto id = [&f](uint32_t i)
        {
            return f.hosts.Get(i)->GetId();
        };
        using Ports = std::vector<uint32_t>;
        const uint32_t tor0 = f.switches[6]->GetId();
        const uint32_t leaf0 = f.switches[4]->GetId();
        const uint32_t spine0 = f.switches[0]->GetId();
        NS_TEST_ASSERT_MSG_EQ((f.NextHops(tor0, id(16)) == Ports{0, 1}), true, "ToR: both leaves");
        NS_TEST_ASSERT_MSG_EQ((f.NextHops(tor0, id(1)) == Ports{3}), true, "ToR: local host");
        NS_TEST_ASSERT_MSG_EQ((f.NextHops(leaf0, id(16)) == Ports{0, 1, 2, 3}),
                              true,
                              "leaf: every spine to another pod");
        NS_TEST_ASSERT_MSG_EQ((f.NextHops(leaf0, id(8)) == Ports{5}), true, "leaf: down to ToR 1");
        NS_TEST_ASSERT_MSG_EQ(
            (f.NextHops(spine0, id(16)) == Ports{2, 3}), true, "spine: both leaves of pod 1");
        NS_TEST_ASSERT_MSG_EQ((f.NextHops(id(0), id(16)) == Ports{0}), true, "host: its uplink");
        NS_TEST_ASSERT_MSG_EQ(f.NextHops(id(0), id(0)).empty(), true, "no route to itself");
        NS_TEST_ASSERT_MSG_EQ(
            f.NextHops(tor0, spine0).empty(), true, "switches are no destination");
        // 6 links between pods, 2 under one ToR: each 2 x 1 us + one data frame + one ACK
        const Ptr<QbbNetDevice> d = f.hostDevices[0];
        const Time perLink = 2 * d->GetDelay() + d->WireTime(kFrame) + d->WireTime(66);
        NS_TEST_ASSERT_MSG_EQ(f.BaseRtt(0, 16, kFrame, 66), 6 * perLink, "across pods");
        NS_TEST_ASSERT_MSG_EQ(f.BaseRtt(0, 1, kFrame, 66), 2 * perLink, "same ToR");
        Simulator::Destroy();
    }
};

/// The k-ary fat tree (Al-Fares et al., SIGCOMM 2008): counts, ports, every host pair
/// reachable, hop counts and the base RTT of a path between pods, per-tier rates.
/// The largest DataPathRtt over every ordered pair of hosts, pair by pair (what
/// Fabric::LargestDataPathRtt computes by groups of alike hosts).
Time
LargestPathRttPairByPair(const Fabric& f, uint64_t payload, uint64_t intBytes)
{
    Time largest;
    for (uint32_t a = 0; a < f.hosts.GetN(); a++)
    {
        for (uint32_t b = 0; b < f.hosts.GetN(); b++)
        {
            if (a != b)
            {
                largest =
                    std::max(largest, Fabric::DataPathRtt(f.PathLinks(a, b), payload, intBytes));
            }
        }
    }
    return largest;
}

class FatTreeTestCase : public TestCase
{
  public:
    FatTreeTestCase() :
        TestCase(
            "fat tree k=4: 16 hosts, 20 switches, 48 links; all pairs reachable; 2, 4 or 6 hops")
    {
    }

  private:
    void
    DoRun() override
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        Fabric f = fh.FatTree(4, DataRate(0), DataRate("400Gbps"));
        NS_TEST_ASSERT_MSG_EQ(f.hosts.GetN(), 16, "k^3/4 hosts");
        NS_TEST_ASSERT_MSG_EQ(f.switches.size(), 20, "5 k^2/4 switches");
        NS_TEST_ASSERT_MSG_EQ(f.links.size(), 48, "3 k^3/4 links");
        for (const auto& s : f.switches)
        {
            NS_TEST_ASSERT_MSG_EQ(s->GetNPorts(), 4, "every switch has k ports");
        }
        // hosts: pod p, edge e, host i -> 4p + 2e + i
        for (uint32_t a = 0; a < 16; a++)
        {
            for (uint32_t b = 0; b < 16; b++)
            {
                if (a == b)
                {
                    continue;
                }
                const auto path = f.PathLinks(a, b);
                const uint32_t hops = a / 2 == b / 2 ? 2 : a / 4 == b / 4 ? 4 : 6;
                NS_TEST_ASSERT_MSG_EQ(path.size(),
                                      hops,
                                      "hosts " << a << " -> " << b << ": same edge 2 hops, same "
                                               << "pod 4, other pod 6");
                for (size_t i = 0; i < path.size(); i++)
                {
                    const bool hostLink = i == 0 || i + 1 == path.size();
                    NS_TEST_ASSERT_MSG_EQ(path[i].rate,
                                          DataRate(hostLink ? "100Gbps" : "400Gbps"),
                                          "host links at the default rate, fabric at 400 Gb/s");
                }
            }
        }
        // across pods: 6 links each 2 x 1 us + one data frame + one ACK at its rate
        const auto path = f.PathLinks(0, 15);
        Time rtt = Seconds(0);
        for (const auto& l : path)
        {
            rtt += MicroSeconds(2) + l.device->WireTime(kFrame) + l.device->WireTime(66);
        }
        NS_TEST_ASSERT_MSG_EQ(f.BaseRtt(0, 15, kFrame, 66), rtt, "base RTT of a 6-hop path");
        NS_TEST_ASSERT_MSG_EQ((rtt > MicroSeconds(12)), true, "at least the propagation");
        // the hpcc-sim presets' fabric-wide base RTT (third.cc:910-929): a cross-pod path's
        NS_TEST_ASSERT_MSG_EQ(f.LargestDataPathRtt(1000, 42),
                              LargestPathRttPairByPair(f, 1000, 42),
                              "the largest over every pair");
        NS_TEST_ASSERT_MSG_EQ(
            f.LargestDataPathRtt(1000, 0), Fabric::DataPathRtt(path, 1000, 0), "a 6-hop path's");
        Simulator::Destroy();
    }
};

/// A topology file's fabric: file ids map to hosts and switches, every link has its own rate
/// and delay.
class FromTopologyTestCase : public TestCase
{
  public:
    FromTopologyTestCase() :
        TestCase("FromTopology: file ids to hosts and switches, per-link rates and delays")
    {
    }

  private:
    void
    DoRun() override
    {
        // hosts 1, 3, 4; switches 0, 2: 1 - 0 = 2 - {3, 4}
        HpccTopology t;
        t.nodes = 5;
        t.switches = {2, 0};
        // isSwitch left empty: FromTopology reads the switch ids
        t.links = {{1, 0, 100000000000, MicroSeconds(1), 3},
                   {0, 2, 400000000000, MicroSeconds(2), 4},
                   {3, 2, 25000000000, NanoSeconds(500), 5},
                   {2, 4, 100000000000, MicroSeconds(1), 6}};
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        const uint32_t base = NodeList::GetNNodes();
        Fabric f = fh.FromTopology(t);
        NS_TEST_ASSERT_MSG_EQ(f.hosts.GetN(), 3, "hosts");
        NS_TEST_ASSERT_MSG_EQ(f.switches.size(), 2, "switches");
        NS_TEST_ASSERT_MSG_EQ(
            (f.hostOfFileId == std::vector<int32_t>{-1, 0, -1, 1, 2}), true, "hosts in id order");
        NS_TEST_ASSERT_MSG_EQ((f.switchOfFileId == std::vector<int32_t>{0, -1, 1, -1, -1}),
                              true,
                              "switches in id order");
        for (uint32_t id = 0; id < 5; id++)
        {
            const Ptr<Node> n = f.hostOfFileId[id] >= 0
                                    ? f.hosts.Get(f.hostOfFileId[id])
                                    : Ptr<Node>(f.switches[f.switchOfFileId[id]]);
            NS_TEST_ASSERT_MSG_EQ(n->GetId(), base + id, "nodes created in file-id order");
        }
        NS_TEST_ASSERT_MSG_EQ(f.HostRate(1), DataRate("25Gbps"), "host 3's own rate");
        NS_TEST_ASSERT_MSG_EQ(f.HostRate(), DataRate("100Gbps"), "host 1's");
        const auto path = f.PathLinks(f.hostOfFileId[1], f.hostOfFileId[3]);
        NS_TEST_ASSERT_MSG_EQ(path.size(), 3, "1 -> 0 -> 2 -> 3");
        NS_TEST_ASSERT_MSG_EQ(path[0].rate, DataRate("100Gbps"), "host 1's link");
        NS_TEST_ASSERT_MSG_EQ(path[1].rate, DataRate("400Gbps"), "0 - 2");
        NS_TEST_ASSERT_MSG_EQ(path[1].delay, MicroSeconds(2), "0 - 2");
        NS_TEST_ASSERT_MSG_EQ(path[2].rate, DataRate("25Gbps"), "to host 3");
        NS_TEST_ASSERT_MSG_EQ(path[2].delay, NanoSeconds(500), "to host 3");
        // switch 2's ports follow its links in file order: 0 - 2, 3 - 2, 2 - 4
        const Ptr<SwitchNode> s2 = f.switches[1];
        NS_TEST_ASSERT_MSG_EQ(s2->GetNPorts(), 3, "three links");
        NS_TEST_ASSERT_MSG_EQ(s2->GetPort(1)->GetDataRate(), DataRate("25Gbps"), "port 1: to 3");
        NS_TEST_ASSERT_MSG_EQ((f.NextHops(s2->GetId(), base + 4) == std::vector<uint32_t>{2}),
                              true,
                              "port 2 leads to host 4");
        // hosts of their own rates and delays: the largest base RTT is still every pair's
        NS_TEST_ASSERT_MSG_EQ(f.LargestDataPathRtt(1000, 0),
                              LargestPathRttPairByPair(f, 1000, 0),
                              "the largest over every pair");
        Simulator::Destroy();
    }
};

/// The fat tree as a topology (Rust FatTreeSpec, through rdmacc::FatTreeTopology) builds, with
/// FromTopology, the same fabric as FabricHelper::FatTree: the same nodes in the same order,
/// every link between the same (node, port) pairs at the same rate.
class FatTreeTopologyTestCase : public TestCase
{
  public:
    FatTreeTopologyTestCase() :
        TestCase("fat tree as a topology: FromTopology builds FatTree's fabric (k = 4, 6)")
    {
    }

  private:
    void
    DoRun() override
    {
        for (uint32_t k : {4u, 6u})
        {
            FabricHelper a;
            a.SetPrintWarnings(false);
            a.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
            a.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
            const uint32_t baseA = NodeList::GetNNodes();
            Fabric fa = a.FatTree(k, DataRate(0), DataRate("400Gbps"));
            FabricHelper b;
            b.SetPrintWarnings(false);
            const uint32_t baseB = NodeList::GetNNodes();
            const HpccTopology t = rdmacc::FatTreeTopology(k,
                                                           rdmacc::FatTreeTiers{100000000000,
                                                                                400000000000,
                                                                                400000000000,
                                                                                MicroSeconds(1),
                                                                                MicroSeconds(1),
                                                                                MicroSeconds(1)});
            Fabric fb = b.FromTopology(t);
            NS_TEST_ASSERT_MSG_EQ(fb.hosts.GetN(), fa.hosts.GetN(), "hosts");
            NS_TEST_ASSERT_MSG_EQ(fb.switches.size(), fa.switches.size(), "switches");
            NS_TEST_ASSERT_MSG_EQ(fb.links.size(), fa.links.size(), "links");
            for (uint32_t h = 0; h < fa.hosts.GetN(); h++)
            {
                NS_TEST_ASSERT_MSG_EQ(fb.hosts.Get(h)->GetId() - baseB,
                                      fa.hosts.Get(h)->GetId() - baseA,
                                      "host " << h << ": same place in the node order");
            }
            for (size_t s = 0; s < fa.switches.size(); s++)
            {
                NS_TEST_ASSERT_MSG_EQ(fb.switches[s]->GetId() - baseB,
                                      fa.switches[s]->GetId() - baseA,
                                      "switch " << s << ": same place in the node order");
            }
            for (size_t i = 0; i < fa.links.size(); i++)
            {
                const auto& x = fa.links[i];
                const auto& y = fb.links[i];
                NS_TEST_ASSERT_MSG_EQ((y.a - baseB == x.a - baseA && y.aPort == x.aPort &&
                                       y.b - baseB == x.b - baseA && y.bPort == x.bPort &&
                                       y.rate == x.rate && y.delay == x.delay),
                                      true,
                                      "link " << i << ": same ends, ports, rate and delay");
            }
        }
        Simulator::Destroy();
    }
};

/// Start-up warnings: ECN must trigger before PFC (DCQCN section 4).
class EcnBeforePfcWarningTestCase : public TestCase
{
  public:
    EcnBeforePfcWarningTestCase() :
        TestCase("start-up warning when ECN would trigger after PFC (DCQCN section 4)")
    {
    }

  private:
    static std::vector<std::string>
    Warnings(uint64_t kMin)
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("40Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        // the paper's switch: B = 12 MB, 32 ports, t_flight 22.4 KB on all 8 priorities, beta 8
        fh.SetSwitchAttribute("BufferSize", UintegerValue(12000000));
        fh.SetSwitchAttribute("Headroom", UintegerValue(22400));
        fh.SetSwitchAttribute("PfcPriorities", UintegerValue(0xFF));
        fh.SetSwitchAttribute("MmuMtu", UintegerValue(1500));
        fh.SetEcn(kMin, kMin * 4, 0.1);
        fh.SingleSwitch(32);
        auto w = fh.GetWarnings();
        Simulator::Destroy();
        return w;
    }

    void
    DoRun() override
    {
        // bound: 8 (B - 8 n t_flight) / (8 n (8 + 1)) = 21.75 KB
        auto low = Warnings(20000);
        auto high = Warnings(25000);
        bool lowEcn = false;
        bool highEcn = false;
        for (const auto& w : low)
        {
            lowEcn |= w.find("ECN threshold KMin") != std::string::npos;
        }
        for (const auto& w : high)
        {
            highEcn |= w.find("ECN threshold KMin (25000 B) is not below 21") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(lowEcn, false, "20 KB is below the 21.75 KB bound");
        NS_TEST_ASSERT_MSG_EQ(highEcn, true, "25 KB is above the bound");
    }
};

/**
 * Two 100G raw senders (host 0, 1) with 200 frames each for host 2 behind a 25G bottleneck, on
 * priority 3, lossy (no PFC), marking by the per-speed ECN map `map`.
 */
struct TwoToOne25G
{
    Fabric f;                      //!< the dumbbell
    std::vector<Ptr<RawHost>> raw; //!< a raw host per host node

    explicit TwoToOne25G(const std::string& map)
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        fh.SetSwitchAttribute("PfcPriorities", UintegerValue(0));
        fh.SetSwitchAttribute("EgressLimit", UintegerValue(10000000));
        fh.SetQueuePriorities(0x08);
        fh.SetEcnMap(map);
        f = fh.Dumbbell(2, 1, DataRate("25Gbps"));
        for (uint32_t i = 0; i < 3; i++)
        {
            raw.push_back(CreateObject<RawHost>());
            raw.back()->Attach(f.hostDevices[i], f.hosts.Get(i)->GetId());
        }
        raw[0]->AddFlow(f.hosts.Get(2)->GetId(), 3, 200 * kPayload, Seconds(0), 1);
        raw[1]->AddFlow(f.hosts.Get(2)->GetId(), 3, 200 * kPayload, Seconds(0), 2);
    }

    /// \return the CE marks the switches made
    uint64_t
    Marks() const
    {
        uint64_t marks = 0;
        for (const auto& sw : f.switches)
        {
            marks += sw->GetCounters().marked;
        }
        return marks;
    }
};

/// Per-link-speed ECN maps: each port marks with the thresholds of its own link speed.
class EcnSpeedMapTestCase : public TestCase
{
  public:
    EcnSpeedMapTestCase() :
        TestCase("per-link-speed ECN map: the 25G bottleneck uses the 25G thresholds")
    {
    }

  private:
    /// marks at the switches for 2 x 100G senders into a 25G bottleneck
    static uint64_t
    Marks(const std::string& map)
    {
        TwoToOne25G d(map);
        Simulator::Run();
        const uint64_t marks = d.Marks();
        NS_ABORT_MSG_UNLESS(d.raw[2]->GetReceivedBytes() == 400 * kPayload,
                            "every byte of both flows arrives (in every build profile)");
        Simulator::Destroy();
        return marks;
    }

    void
    DoRun() override
    {
        // only the 25G port builds a queue (200 KB over 25 Gb/s); 100G ports never do
        const uint64_t low25 = Marks("25:2000:2000:1.0,100:100000000:100000000:1.0");
        const uint64_t high25 = Marks("25:100000000:100000000:1.0,100:2000:2000:1.0");
        NS_TEST_ASSERT_MSG_GT(low25, 300, "25G port marks from 2 KB");
        NS_TEST_ASSERT_MSG_EQ(high25, 0, "the 100G thresholds are not used on the 25G port");
    }
};

/**
 * A frame travels with its fields and its header's bytes are written only when something
 * reads them (RoceHeader::WriteInto): what PhyTxBegin and MacRx sinks read from the bytes is
 * the frame as sent and as marked on the way, every byte and every CE mark of it.
 */
class WrittenHeaderTestCase : public TestCase
{
  public:
    WrittenHeaderTestCase() :
        TestCase("trace sinks read each frame's header from its bytes: sequence, addresses, "
                 "payload and every switch's CE mark (RoceHeader::WriteInto)")
    {
    }

  private:
    /// What a sink read from the frames' bytes.
    struct Seen
    {
        uint64_t frames = 0;               //!< data frames
        uint64_t ce = 0;                   //!< of which CE
        uint64_t payload = 0;              //!< their payload bytes
        uint64_t out = 0;                  //!< frames out of sequence or with wrong addresses
        std::map<uint32_t, uint64_t> next; //!< next sequence expected, by source node
        uint32_t dstIp = 0;                //!< the one receiver's address
        std::set<uint32_t> srcIps;         //!< the senders' addresses
    };

    static void
    Read(Seen* s, Ptr<const Packet> p)
    {
        RoceHeader h;
        p->PeekHeader(h);
        if (h.kind != RoceHeader::DATA)
        {
            return;
        }
        const uint64_t len = p->GetSize() - h.GetSerializedSize();
        s->frames++;
        s->ce += h.ecn == 3;
        s->payload += len;
        uint64_t& next = s->next[h.srcIp];
        if (h.seq != next || h.dstIp != s->dstIp || s->srcIps.count(h.srcIp) == 0 || h.prio != 3)
        {
            s->out++;
        }
        next = h.seq + len;
    }

    void
    DoRun() override
    {
        TwoToOne25G d("25:2000:2000:1.0,100:100000000:100000000:1.0");
        const Fabric& f = d.f;
        Seen sent;
        Seen received;
        for (Seen* s : {&sent, &received})
        {
            s->dstIp = RoceHeader::NodeToIp(f.hosts.Get(2)->GetId());
            s->srcIps = {RoceHeader::NodeToIp(f.hosts.Get(0)->GetId()),
                         RoceHeader::NodeToIp(f.hosts.Get(1)->GetId())};
        }
        f.hostDevices[0]->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Read, &sent));
        f.hostDevices[1]->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Read, &sent));
        f.hostDevices[2]->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Read, &received));
        Simulator::Run();
        const uint64_t marks = d.Marks();
        const uint64_t got = d.raw[2]->GetReceivedBytes();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(got, 400 * kPayload, "every byte of both flows arrives");
        NS_TEST_ASSERT_MSG_EQ(sent.frames, 400, "400 data frames read as sent");
        NS_TEST_ASSERT_MSG_EQ(sent.payload, 400 * kPayload, "their payload, read as sent");
        NS_TEST_ASSERT_MSG_EQ(sent.out, 0, "sent in sequence, to the receiver, priority 3");
        NS_TEST_ASSERT_MSG_EQ(sent.ce, 0, "none marked when sent");
        NS_TEST_ASSERT_MSG_EQ(received.frames, 400, "400 data frames read as received");
        NS_TEST_ASSERT_MSG_EQ(received.payload, 400 * kPayload, "their payload, read as received");
        NS_TEST_ASSERT_MSG_EQ(received.out, 0, "received in sequence, from the senders");
        NS_TEST_ASSERT_MSG_GT(marks, 300, "the 25G port marks");
        NS_TEST_ASSERT_MSG_EQ(received.ce, marks, "every CE mark a switch made is in the bytes");
    }
};

/// The wire-format constants the C++ model uses are the ones Rust computes with.
class WireConstantsTestCase : public TestCase
{
  public:
    WireConstantsTestCase() :
        TestCase("framing constants: RoceHeader and QbbNetDevice agree with the Rust wire module")
    {
    }

  private:
    void
    DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(RoceHeader::CheckWireConstants(), "", "C++ and Rust framing agree");
    }
};

/// Every attribute of `obj` as text (GetAttribute with a StringValue), by name.
std::map<std::string, std::string>
AttributesOf(const Ptr<Object>& obj)
{
    std::map<std::string, std::string> out;
    for (TypeId tid = obj->GetInstanceTypeId(); tid != Object::GetTypeId(); tid = tid.GetParent())
    {
        for (uint32_t i = 0; i < tid.GetAttributeN(); i++)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET) || !info.accessor->HasGetter())
            {
                continue;
            }
            StringValue v;
            obj->GetAttribute(info.name, v);
            out[info.name] = v.Get();
        }
    }
    return out;
}

/// Sets defaults with Config::SetDefault and puts the old ones back when it goes.
class DefaultsSet
{
  public:
    /// \param tid the type
    /// \param values name, value text
    DefaultsSet(TypeId tid, const std::vector<std::pair<std::string, std::string>>& values) :
        m_tid(tid)
    {
        for (const auto& [name, value] : values)
        {
            TypeId::AttributeInformation info;
            NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info), name);
            m_saved.emplace_back(name, info.initialValue);
            Config::SetDefault(tid.GetName() + "::" + name, StringValue(value));
        }
    }

    ~DefaultsSet()
    {
        for (const auto& [name, value] : m_saved)
        {
            Config::SetDefault(m_tid.GetName() + "::" + name, *value);
        }
    }

    DefaultsSet(const DefaultsSet&) = delete;
    DefaultsSet& operator=(const DefaultsSet&) = delete;

  private:
    TypeId m_tid;                                                           //!< the type
    std::vector<std::pair<std::string, Ptr<const AttributeValue>>> m_saved; //!< the old defaults
};

/// QbbNetDevice::CreateLike, and FabricHelper's topologies that build their devices so.
class CreateLikeTestCase : public TestCase
{
  public:
    CreateLikeTestCase() :
        TestCase("QbbNetDevice::CreateLike: a copy holds every attribute as the device it copies "
                 "and CreateObject's (Config::SetDefault's values included) and is its own; "
                 "FabricHelper's topologies give every device the factory's attributes")
    {
    }

  private:
    void
    DoRun() override
    {
        const TypeId tid = QbbNetDevice::GetTypeId();
        const auto plain = AttributesOf(CreateObject<QbbNetDevice>());
        NS_TEST_ASSERT_MSG_EQ(plain.size(), 6, "the device's six attributes");
        {
            const DefaultsSet set(tid,
                                  {{"DataRate", "40Gbps"},
                                   {"Mtu", "4000"},
                                   {"PfcEnabled", "15"},
                                   {"PauseQuanta", "1000"},
                                   {"PauseRefreshFraction", "0.25"},
                                   {"DataScheduler", "strict"}});
            const auto one = AttributesOf(CreateObject<QbbNetDevice>());
            for (const auto& [name, text] : one)
            {
                NS_TEST_ASSERT_MSG_NE(text, plain.at(name), name << ": Config::SetDefault applies");
            }
            Ptr<QbbNetDevice> built = CreateObject<QbbNetDevice>();
            std::vector<Ptr<QbbNetDevice>> copies;
            for (int i = 0; i < 3; i++)
            {
                copies.push_back(QbbNetDevice::CreateLike(i == 0 ? *built : *copies.back()));
            }
            for (std::size_t i = 0; i < copies.size(); i++)
            {
                NS_TEST_ASSERT_MSG_EQ(copies[i]->GetInstanceTypeId(), tid, "copy " << i);
                NS_TEST_ASSERT_MSG_EQ((AttributesOf(copies[i]) == one),
                                      true,
                                      "copy " << i << " holds every attribute as CreateObject's");
            }
            NS_TEST_ASSERT_MSG_EQ(copies[1]->GetDataRate(), DataRate("40Gbps"), "its rate");
            NS_TEST_ASSERT_MSG_EQ(copies[1]->WireTime(1000), built->WireTime(1000), "wire time");
            // SetAttribute changes one device, not the one it was copied from nor another copy
            copies[1]->SetAttribute("PauseQuanta", UintegerValue(77));
            copies[1]->SetAttribute("DataScheduler", StringValue("rr"));
            auto changed = one;
            changed["PauseQuanta"] = "77";
            changed["DataScheduler"] = "rr";
            NS_TEST_ASSERT_MSG_EQ((AttributesOf(copies[1]) == changed), true, "SetAttribute");
            NS_TEST_ASSERT_MSG_EQ((AttributesOf(copies[0]) == one), true, "the source is its own");
            NS_TEST_ASSERT_MSG_EQ((AttributesOf(copies[2]) == one), true, "another is its own");
            NS_TEST_ASSERT_MSG_EQ((AttributesOf(built) == one), true, "the first is its own");
            // a copy of a changed device holds its values
            NS_TEST_ASSERT_MSG_EQ((AttributesOf(QbbNetDevice::CreateLike(*copies[1])) == changed),
                                  true,
                                  "a copy holds the values its source holds");

            // a topology: every device as the helper's factory builds it, with the link's rate
            FabricHelper fh;
            fh.SetPrintWarnings(false);
            fh.SetDeviceAttribute("Mtu", UintegerValue(2000));
            fh.SetChannelAttribute("Delay", TimeValue(NanoSeconds(700)));
            ObjectFactory f;
            f.SetTypeId(tid);
            f.Set("Mtu", UintegerValue(2000));
            const auto expected = AttributesOf(f.Create<QbbNetDevice>());
            NS_TEST_ASSERT_MSG_EQ(expected.at("Mtu"), "2000", "the helper's attribute");
            const Fabric fab = fh.Dumbbell(2, 3, DataRate("10Gbps"));
            NS_TEST_ASSERT_MSG_EQ(fab.links.size(), 6, "six links");
            uint32_t devices = 0;
            for (const auto& l : fab.links)
            {
                const bool bottleneck = l.a == fab.switches[0]->GetId();
                for (const auto& [node, port] : {std::make_pair(l.a, l.aPort), {l.b, l.bPort}})
                {
                    Ptr<QbbNetDevice> d =
                        DynamicCast<QbbNetDevice>(NodeList::GetNode(node)->GetDevice(port));
                    NS_TEST_ASSERT_MSG_NE(d, nullptr, "a device");
                    auto want = expected;
                    if (bottleneck)
                    {
                        want["DataRate"] = DataRateValue(DataRate("10Gbps"))
                                               .SerializeToString(MakeDataRateChecker());
                    }
                    NS_TEST_ASSERT_MSG_EQ(
                        (AttributesOf(d) == want), true, "node " << node << " port " << port);
                    NS_TEST_ASSERT_MSG_EQ(d->GetDelay(), NanoSeconds(700), "the channel's delay");
                    devices++;
                }
            }
            NS_TEST_ASSERT_MSG_EQ(devices, 12, "every device");
        }
        // the defaults back: a copy holds them again
        NS_TEST_ASSERT_MSG_EQ(
            (AttributesOf(QbbNetDevice::CreateLike(*CreateObject<QbbNetDevice>())) == plain),
            true,
            "a copy of a device built with the defaults holds the defaults");
    }
};

/// The suite.
class FabricTestSuite : public TestSuite
{
  public:
    FabricTestSuite() :
        TestSuite("rdma-cc-fabric")
    {
        AddTestCase(new PfcPauseTimingTestCase);
        AddTestCase(new PfcResumeTestCase);
        AddTestCase(new PfcRefreshTestCase);
        AddTestCase(new PfcIncastTestCase(2, 4000000, 2000000));
        AddTestCase(new PfcIncastTestCase(8, 1000000, 2000000));
        AddTestCase(new NoPfcIncastTestCase);
        AddTestCase(new DefaultHeadroomTestCase);
        AddTestCase(new HeadroomErrorsTestCase);
        AddTestCase(new HeadroomOverrunTestCase);
        AddTestCase(new EcmpClosTestCase);
        AddTestCase(new ClosRoutesTestCase);
        AddTestCase(new FatTreeTestCase);
        AddTestCase(new FromTopologyTestCase);
        AddTestCase(new FatTreeTopologyTestCase);
        AddTestCase(new EcnBeforePfcWarningTestCase);
        AddTestCase(new EcnSpeedMapTestCase);
        AddTestCase(new WrittenHeaderTestCase);
        AddTestCase(new WireConstantsTestCase);
        AddTestCase(new CreateLikeTestCase);
    }
};

static FabricTestSuite g_fabricTestSuite; //!< registers the suite
