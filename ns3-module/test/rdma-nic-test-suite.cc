/*
 * Tests of RdmaNic over multi-hop fabrics: LDCP and line-rate flows across a Clos (ECMP,
 * several hops), lossless (PFC) and lossy, with conservation and accounting checks.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include "rdma-cc/src/switch.rs.h" // the fields of SwitchNode's counters (Rust's structs)

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/// Result of a permutation run across a Clos.
struct ClosRun
{
    uint32_t flows = 0;
    uint32_t done = 0;
    uint64_t sizeTotal = 0;
    uint64_t delivered = 0;
    uint64_t retx = 0;
    uint64_t timeouts = 0;
    uint64_t nacks = 0;
    uint64_t drops = 0;
    uint64_t stableDrops = 0; //!< dropped data frames sent after the flow's first feedback
    uint64_t marks = 0;
    uint64_t maxQueue = 0; //!< largest egress queue of the data priority, any switch port
    double minCw = 1e300;
    uint64_t pauses = 0;
    std::string invariants;
    uint64_t occupancy = 0;
    RdmaNic::IntStats intStats;  //!< INT records of every ACK, summed (hopsMin/Max over NICs)
    uint64_t reads = 0;          //!< flows recorded as READs
    uint64_t rereads = 0;        //!< repeat READ requests
    uint64_t requestOutside = 0; //!< READs whose request arrived before the post or after the
                                 //!< last byte, or never though the READ completed
};

/// Counts dropped data frames sent after their flow's first ACK or NACK (stable stage).
void
CountStableDrop(ClosRun* r, Ptr<const Packet> p, uint32_t, uint8_t, const char*)
{
    RoceHeader h;
    p->PeekHeader(h);
    if (h.kind == RoceHeader::DATA && !(h.flags & RoceHeader::FLAG_FIRST_RTT))
    {
        r->stableDrops++;
    }
}

/**
 * 2 pods x (2 ToRs, 2 leaves), 2 spines, 4 hosts per ToR (16 hosts); host i sends `bytes` to
 * host (i + 8) % 16 (every flow crosses the spines) with scheme `cc`.
 */
ClosRun
RunClos(const std::string& cc,
        bool pfc,
        uint64_t bytes,
        uint64_t egressLimit,
        bool intOn = false,
        RdmaOp op = RdmaOp::WRITE)
{
    FabricHelper fh;
    fh.SetPrintWarnings(false);
    fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(pfc ? 0x08 : 0));
    fh.SetSwitchAttribute("Headroom", UintegerValue(40000));
    fh.SetSwitchAttribute("EgressLimit", UintegerValue(egressLimit));
    fh.SetSwitchAttribute("Int", BooleanValue(intOn));
    const uint32_t intBytes = intOn ? RoceHeader::INT_BYTES : 0;
    fh.SetQueuePriorities(0x08);
    fh.SetEcn(12500, 50000, 0.2);
    fh.SetNotEct(rdmacc_ffi::NotEctMode::ThresholdDrop, 12500);
    Fabric f = fh.Clos(2, 2, 2, 2, 4);
    std::vector<Ptr<RdmaNic>> nics;
    for (uint32_t i = 0; i < f.hosts.GetN(); i++)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetAttribute("Scheme", StringValue(cc));
        if (pfc)
        {
            // lossless: a timeout only ever fires spuriously (deep queues, pauses); RoCE NICs
            // use millisecond timeouts there
            nic->SetAttribute("Rto", TimeValue(MilliSeconds(1)));
        }
        nic->Attach(f.hostDevices[i], f.hosts.Get(i)->GetId());
        nics.push_back(nic);
    }
    ClosRun r;
    const uint32_t n = f.hosts.GetN();
    for (uint32_t i = 0; i < n; i++)
    {
        const uint32_t j = (i + n / 2) % n;
        const Time rtt = f.BaseRtt(i,
                                   j,
                                   1000 + RoceHeader::DATA_OVERHEAD + intBytes,
                                   RoceHeader::DATA_OVERHEAD + RoceHeader::AETH + intBytes);
        // every flow crosses a spine: ToR, leaf, spine, leaf, ToR
        nics[i]->AddFlow(
            nics[j], bytes, MicroSeconds(i), rtt, i, pfc, Time(0), intOn ? 5 : 0, -1, op);
        r.sizeTotal += bytes;
        r.flows++;
    }
    for (const auto& sw : f.switches)
    {
        sw->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountStableDrop, &r));
    }
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    for (const auto& nic : nics)
    {
        const RdmaNic::IntStats is = nic->GetIntStats();
        if (is.acks > 0)
        {
            r.intStats.hopsMin =
                r.intStats.acks == 0 ? is.hopsMin : std::min(r.intStats.hopsMin, is.hopsMin);
            r.intStats.hopsMax = std::max(r.intStats.hopsMax, is.hopsMax);
            r.intStats.acks += is.acks;
            r.intStats.hopMismatch += is.hopMismatch;
            r.intStats.nonMonotone += is.nonMonotone;
        }
        for (const auto& fr : nic->GetFlowRecords())
        {
            r.done += !fr.finish.IsStrictlyNegative();
            r.delivered += fr.delivered;
            r.retx += fr.retxBytes;
            r.timeouts += fr.timeouts;
            r.nacks += fr.nacks;
            r.minCw = std::min(r.minCw, fr.minCw);
            if (fr.op == RdmaOp::READ)
            {
                const bool done = !fr.finish.IsStrictlyNegative();
                r.reads++;
                r.rereads += fr.rereads;
                r.requestOutside +=
                    done && (fr.requestArrived < fr.start || fr.requestArrived > fr.finish);
            }
        }
    }
    for (const auto& sw : f.switches)
    {
        const auto c = sw->GetCounters();
        r.drops += c.drops_total;
        r.marks += c.marked;
        for (uint32_t port = 0; port < sw->GetNPorts(); port++)
        {
            r.maxQueue = std::max(r.maxQueue, sw->GetMaxEgressBytes(port, 3));
        }
        r.pauses += c.pauses;
        r.occupancy += c.occupancy;
        const std::string inv = sw->CheckInvariants();
        if (!inv.empty())
        {
            r.invariants += "switch " + std::to_string(sw->GetId()) + ": " + inv + "; ";
        }
    }
    Simulator::Destroy();
    return r;
}

} // namespace

/// LDCP across a Clos where ECMP collisions congest some leaf-spine links: what LDCP claims.
class LdcpClosTestCase : public TestCase
{
  public:
    LdcpClosTestCase() :
        TestCase("LDCP permutation across a Clos: no stable-stage loss, windows react to "
                 "marks, queues bounded by K_max + 2N frames, 10x below line rate's")
    {
    }

  private:
    void
    DoRun() override
    {
        // 16 flows of 500 KB over 2 spines: per-flow ECMP puts several flows on some
        // leaf-spine links, whose queues then build (PFC off, 2 MB lossy queues)
        const auto r = RunClos("ldcp", false, 500000, 2000000);
        NS_TEST_ASSERT_MSG_EQ(r.done, r.flows, "every flow completes");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, r.sizeTotal, "every byte delivered once, in order");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "switch accounting");
        NS_TEST_ASSERT_MSG_EQ(r.occupancy, 0, "switches empty at the end");
        // LDCP's claims: congestion is signalled by marks, windows shrink below the initial
        // window (the BDP, 52 packets here), and no packet sent after the first RTT is lost
        NS_TEST_ASSERT_MSG_GT(r.marks, 0, "the colliding flows' queues are marked");
        NS_TEST_ASSERT_MSG_LT(r.minCw, 52, "windows shrink below the initial window");
        NS_TEST_ASSERT_MSG_EQ(r.stableDrops, 0, "no stable-stage loss");
        // queue bound (README "LDCP: what the tests check"): once a queue passes K_max every
        // packet is marked and every window shrinks; what still arrives is what the N flows
        // through the port grew by in the RTT the marks take to return (alpha = 1 packet
        // each) plus one packet each of window rounding: K_max + N (alpha + 1) frames, N <= 16
        const uint64_t bound = 50000 + 16 * 2 * 1062;
        NS_TEST_ASSERT_MSG_LT_OR_EQ(r.maxQueue, bound, "every queue stays below K_max + 2N frames");
        // the same permutation at line rate queues far deeper where flows collide (1.57 MB
        // against LDCP's 49 KB when written)
        const auto none = RunClos("none", false, 500000, 2000000);
        NS_TEST_ASSERT_MSG_GT(none.maxQueue, 10 * r.maxQueue, "line rate queues 10x deeper");
    }
};

/// Line-rate flows on a lossless priority: PFC prevents every drop across the Clos.
class LineRatePfcClosTestCase : public TestCase
{
  public:
    LineRatePfcClosTestCase() :
        TestCase("line rate on a lossless priority across a Clos: no drop, no retransmission")
    {
    }

  private:
    void
    DoRun() override
    {
        // tiny egress limit: irrelevant on a lossless priority
        const auto r = RunClos("none", true, 500000, 20000);
        NS_TEST_ASSERT_MSG_EQ(r.done, r.flows, "every flow completes");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, r.sizeTotal, "bytes conserved");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "lossless");
        NS_TEST_ASSERT_MSG_EQ(r.retx,
                              0,
                              "nothing to retransmit (timeouts "
                                  << r.timeouts << ", NACKs " << r.nacks << ", PAUSEs " << r.pauses
                                  << ")");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "switch accounting");
    }
};

/// Line-rate flows on a lossy priority with a small buffer: go-back-N recovers every loss.
class GoBackNClosTestCase : public TestCase
{
  public:
    GoBackNClosTestCase() :
        TestCase("line rate on a lossy priority with a 20 KB queue: go-back-N delivers all")
    {
    }

  private:
    void
    DoRun() override
    {
        const auto r = RunClos("none", false, 200000, 20000);
        NS_TEST_ASSERT_MSG_GT(r.drops, 0, "the small queue drops");
        NS_TEST_ASSERT_MSG_GT(r.retx, 0, "losses are retransmitted");
        NS_TEST_ASSERT_MSG_EQ(r.done, r.flows, "every flow completes");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, r.sizeTotal, "every byte delivered once");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "switch accounting");
    }
};

/// HPCC across a Clos with INT at every switch: five records per ACK, monotone, lossless.
class HpccIntClosTestCase : public TestCase
{
  public:
    HpccIntClosTestCase() :
        TestCase("HPCC permutation across a Clos with INT: every ACK echoes one record per "
                 "switch (5), monotone per hop, no drop, every byte delivered")
    {
    }

  private:
    void
    DoRun() override
    {
        const auto r = RunClos("hpcc", true, 500000, 2000000, true);
        NS_TEST_ASSERT_MSG_EQ(r.done, r.flows, "every flow completes");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, r.sizeTotal, "every byte delivered once, in order");
        NS_TEST_ASSERT_MSG_EQ(r.drops, 0, "lossless");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "switch accounting");
        // an ACK per data packet (HPCC's receiver), each with the path's five records
        NS_TEST_ASSERT_MSG_EQ(r.intStats.acks, r.sizeTotal / 1000, "every ACK carries INT");
        NS_TEST_ASSERT_MSG_EQ(r.intStats.hopsMin, 5, "five switches on every path");
        NS_TEST_ASSERT_MSG_EQ(r.intStats.hopsMax, 5, "five switches on every path");
        NS_TEST_ASSERT_MSG_EQ(r.intStats.hopMismatch, 0, "record count = path length");
        NS_TEST_ASSERT_MSG_EQ(r.intStats.nonMonotone, 0, "bytes and timestamps monotone");
        // without INT the records are absent
        const auto off = RunClos("none", true, 100000, 2000000, false);
        NS_TEST_ASSERT_MSG_EQ(off.intStats.acks, 0, "no INT without the attribute");
    }
};

/// READs across a Clos on a lossy priority: the requesters re-request what is lost.
class ReadGoBackNClosTestCase : public TestCase
{
  public:
    ReadGoBackNClosTestCase() :
        TestCase("READs at line rate on a lossy priority with a 20 KB queue: the requesters "
                 "re-request every gap, every response byte arrives, requests in [post, finish]")
    {
    }

  private:
    void
    DoRun() override
    {
        // host (i + 8) % 16 READs from host i: the responses take the WRITEs' paths
        const auto r = RunClos("none", false, 200000, 20000, false, RdmaOp::READ);
        NS_TEST_ASSERT_MSG_EQ(r.reads, r.flows, "every flow is a READ");
        NS_TEST_ASSERT_MSG_GT(r.drops, 0, "the small queue drops responses");
        NS_TEST_ASSERT_MSG_GT(r.rereads, 0, "the requesters re-request the gaps");
        NS_TEST_ASSERT_MSG_EQ(r.nacks, r.rereads, "a responder's NACK count is the re-requests");
        NS_TEST_ASSERT_MSG_GT(r.retx, 0, "the responders resend");
        NS_TEST_ASSERT_MSG_EQ(r.done, r.flows, "every READ completes");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, r.sizeTotal, "every response byte delivered");
        NS_TEST_ASSERT_MSG_EQ(r.requestOutside, 0, "requests arrive after the post");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "switch accounting");
        // HPCC on READ responses: the requesters' ACKs echo the responses' INT records
        const auto h = RunClos("hpcc", true, 100000, 2000000, true, RdmaOp::READ);
        NS_TEST_ASSERT_MSG_EQ(h.done, h.flows, "every HPCC READ completes");
        NS_TEST_ASSERT_MSG_EQ(h.drops, 0, "lossless");
        NS_TEST_ASSERT_MSG_EQ(h.intStats.acks, h.sizeTotal / 1000, "every ACK carries INT");
        NS_TEST_ASSERT_MSG_EQ(h.intStats.hopsMin, 5, "five switches on every path");
        NS_TEST_ASSERT_MSG_EQ(h.intStats.hopMismatch, 0, "record count = path length");
    }
};

/// Every attribute of `nic` as text (GetAttribute with a StringValue), by name.
std::map<std::string, std::string>
AttributesOf(const Ptr<RdmaNic>& nic)
{
    std::map<std::string, std::string> out;
    const TypeId tid = nic->GetInstanceTypeId();
    for (uint32_t i = 0; i < tid.GetAttributeN(); i++)
    {
        const std::string name = tid.GetAttribute(i).name;
        StringValue v;
        nic->GetAttribute(name, v);
        out[name] = v.Get();
    }
    return out;
}

/// RdmaNic::CreateMany builds NICs that hold what CreateObject's would.
class CreateManyTestCase : public TestCase
{
  public:
    CreateManyTestCase() :
        TestCase("RdmaNic::CreateMany: every NIC holds every attribute as CreateObject's NIC "
                 "does, Config::SetDefault's values included, and each NIC is its own")
    {
    }

  private:
    void
    DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(RdmaNic::CreateMany(0).size(), 0, "none");
        // defaults changed by Config::SetDefault reach the first NIC by ns-3's attribute
        // construction and the others by the copy
        const TypeId tid = RdmaNic::GetTypeId();
        const std::vector<std::pair<std::string, std::string>> set = {
            {"Alpha", "0.375"},
            {"Scheme", "dcqcn"},
            {"Rto", "3ms"},
            {"Mtu", "4000"},
        };
        std::vector<std::pair<std::string, Ptr<const AttributeValue>>> saved;
        std::map<std::string, std::string> expected; // each value's text, as its checker writes it
        for (const auto& [name, value] : set)
        {
            TypeId::AttributeInformation info;
            NS_TEST_ASSERT_MSG_EQ(tid.LookupAttributeByName(name, &info), true, name);
            saved.emplace_back(name, info.initialValue);
            expected[name] =
                info.checker->CreateValidValue(StringValue(value))->SerializeToString(info.checker);
            NS_TEST_ASSERT_MSG_NE(expected[name],
                                  info.initialValue->SerializeToString(info.checker),
                                  name << ": a value other than the default");
            Config::SetDefault("ns3::RdmaNic::" + name, StringValue(value));
        }
        const auto one = AttributesOf(CreateObject<RdmaNic>());
        const std::vector<Ptr<RdmaNic>> many = RdmaNic::CreateMany(5);
        NS_TEST_ASSERT_MSG_EQ(many.size(), 5, "five NICs");
        for (const auto& [name, text] : expected)
        {
            NS_TEST_ASSERT_MSG_EQ(one.at(name), text, "Config::SetDefault reaches " + name);
        }
        NS_TEST_ASSERT_MSG_GT(one.size(), 40, "every Rust parameter is an attribute");
        for (std::size_t i = 0; i < many.size(); i++)
        {
            NS_TEST_ASSERT_MSG_EQ(many[i]->GetInstanceTypeId(), tid, "NIC " << i << "'s TypeId");
            NS_TEST_ASSERT_MSG_EQ((AttributesOf(many[i]) == one),
                                  true,
                                  "NIC " << i << " holds every attribute as CreateObject's");
        }
        // SetAttribute changes one NIC, not the one it was copied from nor another copy
        many[2]->SetAttribute("Alpha", DoubleValue(0.125));
        auto changed = one;
        changed["Alpha"] = "0.125";
        NS_TEST_ASSERT_MSG_EQ((AttributesOf(many[2]) == changed), true, "SetAttribute applies");
        NS_TEST_ASSERT_MSG_EQ((AttributesOf(many[0]) == one), true, "the first is its own");
        NS_TEST_ASSERT_MSG_EQ((AttributesOf(many[3]) == one), true, "another copy is its own");
        for (const auto& [name, value] : saved)
        {
            Config::SetDefault("ns3::RdmaNic::" + name, *value);
        }
        // the defaults back: a copy holds them again
        const auto plain = AttributesOf(CreateObject<RdmaNic>());
        NS_TEST_ASSERT_MSG_EQ((AttributesOf(RdmaNic::CreateMany(2)[1]) == plain),
                              true,
                              "a copy of a NIC built with the defaults holds the defaults");
        NS_TEST_ASSERT_MSG_NE(plain.at("Alpha"), "0.375", "the default is back");
    }
};

/// The run record (config.json's `attributes`) reads every NIC's own parameters.
class RunRecordTestCase : public TestCase
{
  public:
    RunRecordTestCase() :
        TestCase("run record: a NIC attribute the NICs hold alike is one value, one they hold "
                 "differently the distinct values in the order the NICs were built")
    {
    }

  private:
    void
    DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(NodeList::GetNNodes(), 0, "no nodes left by another test");
        const std::vector<Ptr<RdmaNic>> nics = RdmaNic::CreateMany(5);
        // NIC 2 is NIC 0 again after one that differs; NIC 4 differs from NIC 3 in one value
        nics[1]->SetAttribute("Alpha", DoubleValue(0.25));
        nics[3]->SetAttribute("Alpha", DoubleValue(0.125));
        nics[4]->SetAttribute("Alpha", DoubleValue(0.125));
        nics[4]->SetAttribute("AckEvery", UintegerValue(4));
        for (const auto& nic : nics)
        {
            CreateObject<Node>()->AggregateObject(nic);
        }
        rdmacc::JsonObject c;
        rdmacc::AddRunRecord(c);
        const std::string record = c.ToString();
        for (const std::string& member : {std::string("\"Alpha\": [\"0.5\", \"0.25\", \"0.125\"]"),
                                          std::string("\"AckEvery\": [\"1\", \"4\"]"),
                                          std::string("\"Beta\": \"0.5\"")})
        {
            NS_TEST_ASSERT_MSG_NE(
                record.find(member), std::string::npos, member << " in " << record);
        }
        Simulator::Destroy();
    }
};

/// The suite.
class RdmaNicTestSuite : public TestSuite
{
  public:
    RdmaNicTestSuite() :
        TestSuite("rdma-cc-nic")
    {
        AddTestCase(new LdcpClosTestCase);
        AddTestCase(new LineRatePfcClosTestCase);
        AddTestCase(new GoBackNClosTestCase);
        AddTestCase(new HpccIntClosTestCase);
        AddTestCase(new ReadGoBackNClosTestCase);
        AddTestCase(new CreateManyTestCase);
        AddTestCase(new RunRecordTestCase);
    }
};

static RdmaNicTestSuite g_rdmaNicTestSuite; //!< registers the suite
