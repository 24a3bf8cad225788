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
    uint64_t pauses = 0;
    std::string invariants;
    uint64_t occupancy = 0;
};

/**
 * 2 pods x (2 ToRs, 2 leaves), 2 spines, 4 hosts per ToR (16 hosts); host i sends `bytes` to
 * host (i + 8) % 16 (every flow crosses the spines) with scheme `cc`.
 */
ClosRun
RunClos(const std::string& cc, bool pfc, uint64_t bytes, uint64_t egressLimit)
{
    FabricHelper fh;
    fh.SetPrintWarnings(false);
    fh.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    fh.SetChannelAttribute("Delay", TimeValue(MicroSeconds(1)));
    fh.SetSwitchAttribute("PfcPriorities", UintegerValue(pfc ? 0x08 : 0));
    fh.SetSwitchAttribute("Headroom", UintegerValue(40000));
    fh.SetSwitchAttribute("EgressLimit", UintegerValue(egressLimit));
    fh.SetQueuePriorities(0x08);
    fh.SetEcn(12500, 50000, 0.2);
    fh.SetNotEct(1, 12500);
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
        const Time rtt = f.BaseRtt(f.hosts.Get(i)->GetId(),
                                   f.hosts.Get(j)->GetId(),
                                   1000 + RoceHeader::DATA_OVERHEAD,
                                   RoceHeader::DATA_OVERHEAD + RoceHeader::AETH);
        nics[i]->AddFlow(nics[j], bytes, MicroSeconds(i), rtt, i);
        r.sizeTotal += bytes;
        r.flows++;
    }
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    for (const auto& nic : nics)
    {
        for (const auto& fr : nic->GetFlowRecords())
        {
            r.done += !fr.finish.IsStrictlyNegative();
            r.delivered += fr.delivered;
            r.retx += fr.retxBytes;
            r.timeouts += fr.timeouts;
            r.nacks += fr.nacks;
        }
    }
    for (const auto& sw : f.switches)
    {
        const auto c = sw->GetCounters();
        r.drops += c.drops_total;
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

/// LDCP flows over 5 switch hops complete and deliver every byte.
class LdcpClosTestCase : public TestCase
{
  public:
    LdcpClosTestCase() :
        TestCase("LDCP permutation across a Clos: every flow completes, bytes conserved")
    {
    }

  private:
    void
    DoRun() override
    {
        const auto r = RunClos("ldcp", false, 500000, 2000000);
        NS_TEST_ASSERT_MSG_EQ(r.done, r.flows, "every flow completes");
        NS_TEST_ASSERT_MSG_EQ(r.delivered, r.sizeTotal, "every byte delivered once, in order");
        NS_TEST_ASSERT_MSG_EQ(r.invariants, "", "switch accounting");
        NS_TEST_ASSERT_MSG_EQ(r.occupancy, 0, "switches empty at the end");
        NS_TEST_ASSERT_MSG_EQ(r.pauses, 0, "PFC-free");
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
    }
};

static RdmaNicTestSuite g_rdmaNicTestSuite; //!< registers the suite
