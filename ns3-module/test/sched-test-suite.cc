/*
 * Tests of the control class and the egress schedulers: control frames (ACK, NACK, CNP, probe
 * responses, switch-originated frames) are never dropped by WRED, never paused, and overtake
 * queued data; DWRR and strict priority among data classes; a switch sends its own frames.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include "rdma-cc/src/switch.rs.h" // the fields of SwitchNode's counters (Rust's structs)

#include <map>

using namespace ns3;

namespace
{

const uint32_t kPayload = 1000;
const uint32_t kFrame = kPayload + RoceHeader::DATA_OVERHEAD; // 1062

/// Wire time of `bytes` at 100 Gb/s (the test's own IEEE 802.3 numbers: padding to 64 B,
/// 20 B of preamble, start-of-frame delimiter and gap).
Time
Wire(uint32_t bytes)
{
    return DataRate("100Gbps").CalculateBytesTxTime(std::max<uint32_t>(bytes, 64) + 20);
}

/// A RoCE frame of kind `kind` from node `src` to node `dst`.
Ptr<Packet>
Frame(RoceHeader::Kind kind, uint32_t src, uint32_t dst, uint32_t payload = 0)
{
    RoceHeader h;
    h.kind = kind;
    h.prio = 3;
    h.ecn = 0;
    h.srcIp = RoceHeader::NodeToIp(src);
    h.dstIp = RoceHeader::NodeToIp(dst);
    h.srcPort = 7;
    Ptr<Packet> p = Create<Packet>(payload);
    p->AddHeader(h);
    return p;
}

/// Frames seen by a device's MacRx trace: arrival times and payload bytes by (kind, priority).
struct RxLog
{
    std::map<std::pair<int, int>, uint64_t> bytes;  //!< (kind, prio) -> payload bytes
    std::map<std::pair<int, int>, uint64_t> frames; //!< (kind, prio) -> frames
    std::vector<Time> controlTimes;                 //!< arrivals of control-kind frames
    Time lastData3;                                 //!< last data frame of priority 3

    /// \return payload bytes of (kind, prio) so far
    uint64_t
    Bytes(int kind, int prio)
    {
        return bytes[{kind, prio}];
    }

    /// \return frames of (kind, prio) so far
    uint64_t
    Frames(int kind, int prio)
    {
        return frames[{kind, prio}];
    }

    void
    Record(Ptr<const Packet> p)
    {
        RoceHeader h;
        p->PeekHeader(h);
        const auto key = std::make_pair(int(h.kind), int(h.prio));
        bytes[key] += p->GetSize() - h.GetSerializedSize();
        frames[key]++;
        if (h.kind != RoceHeader::DATA)
        {
            controlTimes.push_back(Simulator::Now());
        }
        else if (h.prio == 3)
        {
            lastData3 = Simulator::Now();
        }
    }
};

} // namespace

/// ACK frames pass a switch whose data queue drops every Not-ECT packet (K_fs = 0).
class AckNotDroppedAtKfsTestCase : public TestCase
{
  public:
    AckNotDroppedAtKfsTestCase() :
        TestCase("control class: ACKs are not WRED-dropped at K_fs = 0, the flow completes")
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
        fh.SetSwitchAttribute("PfcPriorities", UintegerValue(0));
        fh.SetQueuePriorities(0x08);
        fh.SetEcn(12500, 50000, 0.2);
        fh.SetNotEct(rdmacc_ffi::NotEctMode::ThresholdDrop,
                     0); // every Not-ECT packet meets the WRED drop
        Fabric f = fh.SingleSwitch(2);
        std::vector<Ptr<RdmaNic>> nics;
        for (uint32_t i = 0; i < 2; i++)
        {
            nics.push_back(CreateObject<RdmaNic>());
            nics.back()->Attach(f.hostDevices[i], f.hosts.Get(i)->GetId());
        }
        const Time rtt = f.BaseRtt(1, 0, kFrame, RoceHeader::DATA_OVERHEAD + RoceHeader::AETH);
        nics[1]->AddFlow(nics[0], 20000, Seconds(0), rtt, 0);
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        const auto r = nics[1]->GetFlowRecords().at(0);
        const auto c = f.switches[0]->GetCounters();
        NS_TEST_ASSERT_MSG_EQ(r.finish.IsStrictlyNegative(), false, "the flow completed");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, 20000, "every byte delivered");
        NS_TEST_ASSERT_MSG_GT(c.drops.not_ect_threshold, 0, "first-RTT data was WRED-dropped");
        NS_TEST_ASSERT_MSG_EQ(c.drops.control, 0, "no control frame dropped");
        NS_TEST_ASSERT_MSG_EQ(c.drops_total, c.drops.not_ect_threshold, "only data drops");
        // at least one ACK per delivered packet went through the switch
        NS_TEST_ASSERT_MSG_GT_OR_EQ(c.control_forwarded, 20, "ACKs forwarded");
        NS_TEST_ASSERT_MSG_EQ(f.switches[0]->CheckInvariants(), "", "accounting");
        NS_TEST_ASSERT_MSG_EQ(c.control_occupancy, 0, "control pool empty at the end");
        Simulator::Destroy();
    }
};

/// A host keeps sending ACKs while its data priority is paused by the peer.
class ControlNotPausedTestCase : public TestCase
{
  public:
    ControlNotPausedTestCase() :
        TestCase("control class: ACKs leave a host whose data priority is paused")
    {
    }

  private:
    uint64_t m_deliveredAtResume = 0;

    void
    DoRun() override
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        Ptr<Node> a = fh.AddHost();
        Ptr<Node> b = fh.AddHost();
        fh.Connect(a, b);
        Fabric f = fh.Finalize();
        Ptr<QbbNetDevice> devA = f.hostDevices[0];
        Ptr<QbbNetDevice> devB = f.hostDevices[1];
        Ptr<RdmaNic> nicA = CreateObject<RdmaNic>();
        Ptr<RdmaNic> nicB = CreateObject<RdmaNic>();
        nicA->SetAttribute("Scheme", StringValue("none"));
        nicB->SetAttribute("Scheme", StringValue("none"));
        nicA->Attach(devA, a->GetId());
        nicB->Attach(devB, b->GetId());
        const Time rtt = f.BaseRtt(0, 1, kFrame, RoceHeader::DATA_OVERHEAD + RoceHeader::AETH);
        // B pauses A's priority 3 (refreshed) from t = 0 to 100 us (A is paused from 1 us, when
        // the PAUSE arrives); meanwhile B sends 50 KB to A (A must ACK it) and A wants to send
        // 50 KB to B from 10 us (it must wait)
        devB->SendPfc(3, true);
        Simulator::Schedule(MicroSeconds(100), &QbbNetDevice::SendPfc, devB, 3, false);
        nicB->AddFlow(nicA, 50000, Seconds(0), rtt, 0);
        nicA->AddFlow(nicB, 50000, MicroSeconds(10), rtt, 1);
        Simulator::Schedule(MicroSeconds(100),
                            [this, nicB]() { m_deliveredAtResume = nicB->GetDeliveredBytes(); });
        const uint64_t ctrlBefore = devA->GetStats().txControlFrames;
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        const auto toA = nicB->GetFlowRecords().at(0);
        const auto toB = nicA->GetFlowRecords().at(0);
        NS_TEST_ASSERT_MSG_EQ(ctrlBefore, 0, "nothing sent before the run");
        NS_TEST_ASSERT_MSG_EQ(toA.finish.IsStrictlyNegative(), false, "B -> A completed");
        NS_TEST_ASSERT_MSG_LT(toA.finish, MicroSeconds(100), "... while A was still paused");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(devA->GetStats().txControlFrames, 50, "A sent its ACKs");
        NS_TEST_ASSERT_MSG_EQ(m_deliveredAtResume, 0, "A's data waited for the RESUME");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(devA->GetPausedTime(3), MicroSeconds(98), "A was paused");
        NS_TEST_ASSERT_MSG_EQ(toB.finish.IsStrictlyNegative(), false, "A -> B completed after");
        NS_TEST_ASSERT_MSG_EQ(nicB->GetDeliveredBytes(), 50000, "every byte delivered");
        NS_TEST_ASSERT_MSG_EQ(devA->CheckSchedulerInvariants(), "", "scheduler accounting");
        Simulator::Destroy();
    }
};

/// Two raw senders into one receiver through a switch, one per priority (1 and 3).
struct TwoClassIncast
{
    Fabric fabric;
    RxLog log;
    std::vector<Ptr<RawHost>> raw;
    uint64_t queue3At50us = 0;

    TwoClassIncast(const std::string& policy, uint64_t bytes)
    {
        FabricHelper fh;
        fh.SetPrintWarnings(false);
        fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
        fh.SetDeviceAttribute("DataScheduler", StringValue(policy));
        fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
        fh.SetSwitchAttribute("BufferSize", UintegerValue(40000000));
        fh.SetSwitchAttribute("EgressLimit", UintegerValue(15000000));
        fh.SetSwitchAttribute("PfcPriorities", UintegerValue(0));
        fh.SetQueuePriorities(0);
        fabric = fh.SingleSwitch(3);
        for (uint32_t i = 0; i < 3; i++)
        {
            raw.push_back(CreateObject<RawHost>());
            raw.back()->Attach(fabric.hostDevices[i], fabric.hosts.Get(i)->GetId());
        }
        fabric.hostDevices[0]->TraceConnectWithoutContext("MacRx",
                                                          MakeCallback(&RxLog::Record, &log));
        const uint32_t rx = fabric.hosts.Get(0)->GetId();
        raw[1]->AddFlow(rx, 1, bytes, Seconds(0), 101);
        raw[2]->AddFlow(rx, 3, bytes, Seconds(0), 102);
    }
};

/// A control frame overtakes a deep data queue at a switch port.
class ControlOvertakesDataTestCase : public TestCase
{
  public:
    ControlOvertakesDataTestCase() :
        TestCase("control class: a control frame overtakes 600 KB of queued data at a switch")
    {
    }

  private:
    void
    DoRun() override
    {
        TwoClassIncast t("rr", 2000000);
        Ptr<SwitchNode> sw = t.fabric.switches[0];
        const uint32_t src = t.fabric.hosts.Get(2)->GetId();
        const uint32_t dst = t.fabric.hosts.Get(0)->GetId();
        uint64_t queued = 0;
        Simulator::Schedule(MicroSeconds(50),
                            [&]()
                            {
                                queued = sw->GetEgressBytes(0, 1) + sw->GetEgressBytes(0, 3);
                                t.fabric.hostDevices[2]->Enqueue(Frame(RoceHeader::ACK, src, dst));
                            });
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(queued, 500000, "a deep data queue at the receiver's port");
        NS_TEST_ASSERT_MSG_EQ(t.log.controlTimes.size(), 1, "the ACK arrived");
        // two hops: each waits at most for the frame on the wire, then sends the 66 B ACK
        const Time bound = MicroSeconds(2) + 2 * Wire(kFrame) + 2 * Wire(66) + NanoSeconds(2);
        const Time took = t.log.controlTimes.at(0) - MicroSeconds(50);
        NS_TEST_ASSERT_MSG_LT_OR_EQ(took, bound, "the ACK did not wait behind the data");
        // a data frame queued at the same moment would have waited for the whole queue
        NS_TEST_ASSERT_MSG_GT(DataRate("100Gbps").CalculateBytesTxTime(queued),
                              10 * bound,
                              "the data queue is far longer");
        const auto c = sw->GetCounters();
        NS_TEST_ASSERT_MSG_EQ(c.control_forwarded, 1, "one control frame forwarded");
        NS_TEST_ASSERT_MSG_EQ(sw->CheckInvariants(), "", "accounting");
        Simulator::Destroy();
    }
};

/// DWRR gives two saturated classes bytes in the ratio of their weights.
class DwrrShareTestCase : public TestCase
{
  public:
    DwrrShareTestCase() :
        TestCase("DWRR weights 1:3 share a switch port's bytes 1:3 (within 2%)")
    {
    }

  private:
    void
    DoRun() override
    {
        TwoClassIncast t("dwrr:1,1,1,3,1,1,1,1", 3000000);
        // class 1's bytes when class 3's last frame arrives (both backlogged until then)
        uint64_t class1AtEnd = 0;
        uint64_t class3AtEnd = 0;
        t.fabric.hostDevices[0]->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(+[](TwoClassIncast* tc, uint64_t* c1, uint64_t* c3, Ptr<const Packet>)
                         {
                             if (tc->log.Bytes(0, 3) == 3000000 && *c3 == 0)
                             {
                                 *c1 = tc->log.Bytes(0, 1);
                                 *c3 = tc->log.Bytes(0, 3);
                             }
                         })
                .Bind(&t, &class1AtEnd, &class3AtEnd));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(class3AtEnd, 3000000, "class 3 finished");
        const double ratio = double(class3AtEnd) / double(class1AtEnd);
        NS_TEST_ASSERT_MSG_EQ_TOL(ratio, 3.0, 0.06, "byte ratio = weight ratio");
        NS_TEST_ASSERT_MSG_EQ(t.log.Bytes(0, 1), 3000000, "class 1 finished too");
        NS_TEST_ASSERT_MSG_EQ(t.fabric.switches[0]->GetCounters().drops_total, 0, "no drop");
        Simulator::Destroy();
    }
};

/// Strict priority serves class 3 only while it is backlogged.
class StrictPriorityTestCase : public TestCase
{
  public:
    StrictPriorityTestCase() :
        TestCase("strict priority starves class 1 while class 3 is backlogged")
    {
    }

  private:
    void
    DoRun() override
    {
        TwoClassIncast t("strict", 1000000);
        uint64_t class1AtEnd = UINT64_MAX;
        t.fabric.hostDevices[0]->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(+[](TwoClassIncast* tc, uint64_t* c1, Ptr<const Packet>)
                         {
                             if (tc->log.Bytes(0, 3) == 1000000 && *c1 == UINT64_MAX)
                             {
                                 *c1 = tc->log.Bytes(0, 1);
                             }
                         })
                .Bind(&t, &class1AtEnd));
        Simulator::Run();
        // at most the first class-1 frame, which may reach the idle port first
        NS_TEST_ASSERT_MSG_LT_OR_EQ(class1AtEnd, kPayload, "class 1 waited for class 3");
        NS_TEST_ASSERT_MSG_EQ(t.log.Bytes(0, 1), 1000000, "then class 1 finished");
        NS_TEST_ASSERT_MSG_GT(t.log.lastData3, Seconds(0), "class 3 arrived");
        Simulator::Destroy();
    }
};

/// A switch sends frames it built to a host and to a neighbour switch, accounted and counted.
class SwitchOriginatedTestCase : public TestCase
{
  public:
    SwitchOriginatedTestCase() :
        TestCase("a switch-originated control frame reaches its neighbours and is counted")
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
        Fabric f = fh.Dumbbell(1, 1, DataRate("100Gbps"));
        Ptr<SwitchNode> s0 = f.switches[0];
        Ptr<SwitchNode> s1 = f.switches[1];
        RxLog hostLog;
        f.hostDevices[0]->TraceConnectWithoutContext("MacRx",
                                                     MakeCallback(&RxLog::Record, &hostLog));
        uint32_t localFrames = 0;
        uint32_t localPort = 99;
        s1->TraceConnectWithoutContext(
            "ControlRx",
            MakeCallback(+[](uint32_t* n, uint32_t* port, Ptr<const Packet>, uint32_t p)
                         {
                             (*n)++;
                             *port = p;
                         })
                .Bind(&localFrames, &localPort));
        // port 0 of s0 = its host, port 1 = the link to s1
        const uint32_t id0 = s0->GetId();
        bool sentHost = false;
        bool sentSwitch = false;
        Simulator::Schedule(
            MicroSeconds(1),
            [&]()
            {
                sentHost = s0->SendControlFrame(
                    0, Frame(RoceHeader::SWITCH_CONTROL, id0, f.hosts.Get(0)->GetId(), 16));
                sentSwitch = s0->SendControlFrame(
                    1, Frame(RoceHeader::SWITCH_CONTROL, id0, s1->GetId(), 16));
            });
        Simulator::Run();
        const auto c0 = s0->GetCounters();
        const auto c1 = s1->GetCounters();
        NS_TEST_ASSERT_MSG_EQ(sentHost && sentSwitch, true, "both frames queued");
        NS_TEST_ASSERT_MSG_EQ(hostLog.Frames(RoceHeader::SWITCH_CONTROL, 3), 1, "host got it");
        NS_TEST_ASSERT_MSG_EQ(localFrames, 1, "the neighbour switch got it");
        NS_TEST_ASSERT_MSG_EQ(localPort, 1, "on its link to s0");
        NS_TEST_ASSERT_MSG_EQ(c0.originated, 2, "two frames originated");
        NS_TEST_ASSERT_MSG_EQ(c0.forwarded, 2, "both admitted to egress queues");
        // each frame left the pool when its idle port started sending it
        NS_TEST_ASSERT_MSG_EQ(c0.max_control_occupancy, RoceHeader::DATA_OVERHEAD + 16, "pool");
        NS_TEST_ASSERT_MSG_EQ(c0.control_occupancy, 0, "pool empty at the end");
        NS_TEST_ASSERT_MSG_EQ(c1.local, 1, "counted as local at s1");
        NS_TEST_ASSERT_MSG_EQ(c1.forwarded, 0, "not forwarded");
        NS_TEST_ASSERT_MSG_EQ(s0->CheckInvariants(), "", "s0 accounting");
        NS_TEST_ASSERT_MSG_EQ(s1->CheckInvariants(), "", "s1 accounting");
        Simulator::Destroy();

        // a control pool smaller than the frame: dropped with reason control, counted
        FabricHelper small;
        small.SetPrintWarnings(false);
        small.SetSwitchAttribute("ControlBuffer", UintegerValue(50));
        Fabric g = small.SingleSwitch(1);
        std::string reason;
        g.switches[0]->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(+[](std::string* r, Ptr<const Packet>, uint32_t, uint8_t, const char* s) {
                *r = s;
            }).Bind(&reason));
        const bool sent = g.switches[0]->SendControlFrame(
            0,
            Frame(RoceHeader::SWITCH_CONTROL, g.switches[0]->GetId(), g.hosts.Get(0)->GetId(), 16));
        const auto cg = g.switches[0]->GetCounters();
        NS_TEST_ASSERT_MSG_EQ(sent, false, "not queued");
        NS_TEST_ASSERT_MSG_EQ(cg.drops.control, 1, "drop counted as control");
        NS_TEST_ASSERT_MSG_EQ(reason, "control", "trace reason");
        NS_TEST_ASSERT_MSG_EQ(g.switches[0]->CheckInvariants(), "", "accounting");
        Simulator::Destroy();
    }
};

/// A held class waits (the scheduler's WaitUntil answer wakes the device) while another class
/// and the control class keep sending.
class HeldClassTestCase : public TestCase
{
  public:
    HeldClassTestCase() :
        TestCase("a data class held until 20 us sends nothing before, the others do")
    {
    }

  private:
    void
    DoRun() override
    {
        TwoClassIncast t("rr", 20000);
        // host 2 (class 3) is held until 20 us; host 1 (class 1) is not
        t.fabric.hostDevices[2]->HoldClass(3, MicroSeconds(20));
        Time first3 = Seconds(-1);
        t.fabric.hostDevices[0]->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(+[](Time* first, Ptr<const Packet> p)
                         {
                             RoceHeader h;
                             p->PeekHeader(h);
                             if (h.prio == 3 && first->IsStrictlyNegative())
                             {
                                 *first = Simulator::Now();
                             }
                         })
                .Bind(&first3));
        Simulator::Run();
        // released at 20 us: one frame time to the switch, 1 us, one frame time, 1 us
        NS_TEST_ASSERT_MSG_GT_OR_EQ(first3,
                                    MicroSeconds(22) + 2 * Wire(kFrame) - NanoSeconds(2),
                                    "nothing of class 3 before the hold ends");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(first3,
                                    MicroSeconds(22) + 3 * Wire(kFrame) + NanoSeconds(2),
                                    "sent as soon as the hold ends");
        NS_TEST_ASSERT_MSG_EQ(t.log.Bytes(0, 1), 20000, "class 1 was not held");
        NS_TEST_ASSERT_MSG_EQ(t.log.Bytes(0, 3), 20000, "class 3 sent everything after");
        NS_TEST_ASSERT_MSG_EQ(
            t.fabric.hostDevices[2]->CheckSchedulerInvariants(), "", "accounting");
        Simulator::Destroy();
    }
};

/// The suite.
class SchedTestSuite : public TestSuite
{
  public:
    SchedTestSuite() :
        TestSuite("rdma-cc-sched")
    {
        AddTestCase(new AckNotDroppedAtKfsTestCase);
        AddTestCase(new ControlNotPausedTestCase);
        AddTestCase(new ControlOvertakesDataTestCase);
        AddTestCase(new DwrrShareTestCase);
        AddTestCase(new StrictPriorityTestCase);
        AddTestCase(new SwitchOriginatedTestCase);
        AddTestCase(new HeldClassTestCase);
    }
};

static SchedTestSuite g_schedTestSuite; //!< registers the suite
