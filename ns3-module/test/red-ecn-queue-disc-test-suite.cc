/*
 * Tests of RedEcnQueueDisc on scripted packet sequences: every verdict comes from the Rust
 * policy through the bridge, so these check the whole path (attributes -> bridge -> verdict ->
 * ns-3 mark/drop accounting).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/mac48-address.h"
#include "ns3/rdma-cc-options.h"
#include "ns3/rdma-cc-params.h"
#include "ns3/red-ecn-queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

using namespace ns3;

namespace
{

const uint32_t kPkt = 1000; // item size: 980 B payload + 20 B IPv4 header

Ptr<Ipv4QueueDiscItem>
MakeItem(Ipv4Header::EcnType ecn)
{
    Ipv4Header h;
    h.SetEcn(ecn);
    h.SetPayloadSize(kPkt - 20);
    return Create<Ipv4QueueDiscItem>(Create<Packet>(kPkt - 20), Mac48Address(), 0x0800, h);
}

Ptr<RedEcnQueueDisc>
MakeQueue(uint32_t kMin, uint32_t kMax, double pMax, const std::string& notEct, uint32_t kFs)
{
    auto q = CreateObject<RedEcnQueueDisc>();
    q->SetAttribute("KMin", UintegerValue(kMin));
    q->SetAttribute("KMax", UintegerValue(kMax));
    q->SetAttribute("PMax", DoubleValue(pMax));
    q->SetAttribute("NotEctMode", StringValue(notEct));
    q->SetAttribute("KFs", UintegerValue(kFs));
    q->SetAttribute("BufMax", UintegerValue(100000));
    q->AssignStreams(1);
    q->Initialize();
    return q;
}

/// Fill the queue to `bytes` with ECT(0) packets (marked as the policy decides).
void
FillTo(Ptr<RedEcnQueueDisc> q, uint32_t bytes)
{
    while (q->GetNBytes() < bytes)
    {
        q->Enqueue(MakeItem(Ipv4Header::ECN_ECT0));
    }
}

} // namespace

/// Marking below KMin, at/above KMax, and Not-ECT threshold drops at KFs.
class RedEcnThresholdsTestCase : public TestCase
{
  public:
    RedEcnThresholdsTestCase() :
        TestCase("marks nothing below KMin, everything from KMax; drops Not-ECT at KFs")
    {
    }

  private:
    void
    DoRun() override
    {
        // KMin 10 KB, KMax 40 KB, PMax 0.2, Not-ECT dropped from 20 KB, BufMax 100 KB
        auto q = MakeQueue(10000, 40000, 0.2, "ThresholdDrop", 20000);
        // 10 ECT packets arrive at q = 0..9000 < KMin: none marked
        for (int i = 0; i < 10; i++)
        {
            NS_TEST_ASSERT_MSG_EQ(q->Enqueue(MakeItem(Ipv4Header::ECN_ECT0)), true, "enqueue");
        }
        NS_TEST_ASSERT_MSG_EQ(
            q->GetStats().GetNMarkedPackets(RedEcnQueueDisc::MARK_REASON), 0, "no mark below KMin");
        // Not-ECT packets below KFs pass: q = 10000..19000
        for (int i = 0; i < 10; i++)
        {
            NS_TEST_ASSERT_MSG_EQ(q->Enqueue(MakeItem(Ipv4Header::ECN_NotECT)),
                                  true,
                                  "Not-ECT below KFs is accepted");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetNBytes(), 20000, "queue at KFs");
        // at q = KFs a Not-ECT packet is dropped, an ECT one is not
        NS_TEST_ASSERT_MSG_EQ(
            q->Enqueue(MakeItem(Ipv4Header::ECN_NotECT)), false, "Not-ECT at KFs dropped");
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNDroppedPackets("not_ect_threshold"),
                              1,
                              "drop counted under not_ect_threshold");
        // fill to KMax with ECT packets, then every ECT arrival is marked (CE set)
        FillTo(q, 40000);
        uint32_t marksBefore = q->GetStats().GetNMarkedPackets(RedEcnQueueDisc::MARK_REASON);
        for (int i = 0; i < 20; i++)
        {
            auto item = MakeItem(Ipv4Header::ECN_ECT1);
            NS_TEST_ASSERT_MSG_EQ(q->Enqueue(item), true, "ECT above KMax enqueued");
            NS_TEST_ASSERT_MSG_EQ(item->GetHeader().GetEcn(), Ipv4Header::ECN_CE, "CE set");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNMarkedPackets(RedEcnQueueDisc::MARK_REASON) -
                                  marksBefore,
                              20,
                              "every ECT packet at or above KMax marked");
        // q = 60 KB now; fill to exactly BufMax then the next packet is tail-dropped
        FillTo(q, 100000);
        NS_TEST_ASSERT_MSG_EQ(q->GetNBytes(), 100000, "queue at BufMax");
        NS_TEST_ASSERT_MSG_EQ(q->Enqueue(MakeItem(Ipv4Header::ECN_ECT0)), false, "tail drop");
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNDroppedPackets("queue_full"),
                              1,
                              "tail drop counted under queue_full");
        // dequeue everything: byte conservation
        uint32_t out = 0;
        while (auto item = q->Dequeue())
        {
            out += item->GetSize();
        }
        NS_TEST_ASSERT_MSG_EQ(out, 100000, "every admitted byte leaves");
        NS_TEST_ASSERT_MSG_EQ(q->GetNBytes(), 0, "queue empty");
        Simulator::Destroy();
    }
};

/// In the linear region the marked fraction matches (q-KMin)/(KMax-KMin)*PMax.
class RedEcnLinearRegionTestCase : public TestCase
{
  public:
    RedEcnLinearRegionTestCase() :
        TestCase("marks with the linear probability between KMin and KMax")
    {
    }

  private:
    void
    DoRun() override
    {
        auto q = MakeQueue(10000, 40000, 0.2, "Accept", 0);
        FillTo(q, 25000); // p(25 KB) = 0.1
        NS_TEST_ASSERT_MSG_EQ_TOL(q->MarkProbability(25000), 0.1, 1e-12, "p at 25 KB");
        const int n = 20000;
        const uint32_t marksBefore = q->GetStats().GetNMarkedPackets(RedEcnQueueDisc::MARK_REASON);
        uint32_t marks = 0;
        for (int i = 0; i < n; i++)
        {
            auto item = MakeItem(Ipv4Header::ECN_ECT0);
            q->Enqueue(item);
            marks += item->GetHeader().GetEcn() == Ipv4Header::ECN_CE;
            q->Dequeue(); // hold the queue at 25 KB
        }
        // binomial(20000, 0.1): sd = 42; allow 5 sd
        NS_TEST_ASSERT_MSG_EQ_TOL(static_cast<double>(marks), 2000.0, 212.0, "marked fraction");
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNMarkedPackets(RedEcnQueueDisc::MARK_REASON) -
                                  marksBefore,
                              marks,
                              "stats agree with CE count");
        Simulator::Destroy();
    }
};

/// Classic RED mode drops Not-ECT packets where ECT ones would be marked.
class RedEcnRedDropTestCase : public TestCase
{
  public:
    RedEcnRedDropTestCase() :
        TestCase("RedDrop mode drops Not-ECT packets above KMax")
    {
    }

  private:
    void
    DoRun() override
    {
        auto q = MakeQueue(10000, 40000, 0.2, "RedDrop", 0);
        FillTo(q, 40000);
        for (int i = 0; i < 5; i++)
        {
            NS_TEST_ASSERT_MSG_EQ(q->Enqueue(MakeItem(Ipv4Header::ECN_NotECT)), false, "drop");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetStats().GetNDroppedPackets("red_early_drop"), 5, "counted");
        Simulator::Destroy();
    }
};

/// Bad attribute values are rejected with a message naming the attribute.
class RedEcnConfigTestCase : public TestCase
{
  public:
    RedEcnConfigTestCase() :
        TestCase("invalid attributes are named in the validation message")
    {
    }

  private:
    void
    Check(const std::string& attr, const AttributeValue& value, const std::string& expectPrefix)
    {
        auto q = CreateObject<RedEcnQueueDisc>();
        q->SetAttribute("KMin", UintegerValue(10000));
        q->SetAttribute("KMax", UintegerValue(40000));
        q->SetAttribute("KFs", UintegerValue(10000));
        q->SetAttribute("BufMax", UintegerValue(100000));
        q->SetAttribute("NotEctMode", StringValue("ThresholdDrop"));
        NS_TEST_ASSERT_MSG_EQ(q->ValidateConfig(), "", "baseline valid");
        q->SetAttribute(attr, value);
        std::string msg = q->ValidateConfig();
        NS_TEST_ASSERT_MSG_EQ(msg.rfind(expectPrefix, 0), 0, "message was: " + msg);
    }

    /// A value out of the attribute's own bounds stops the program when set; the message it
    /// would print.
    void
    CheckBound(const std::string& attr, const AttributeValue& value, const std::string& expect)
    {
        const std::string msg = rdmacc::CheckRustParam(rdmacc::ParamTable::RedEcn, attr, value);
        NS_TEST_ASSERT_MSG_EQ(msg, expect, "bound of " + attr);
    }

    void
    DoRun() override
    {
        // relations between attributes: checked when the queue disc is built
        Check("KMin", UintegerValue(50000), "invalid KMin = 50000 B: must be <= KMax (40000 B)");
        Check("KFs", UintegerValue(200000), "invalid KFs = 200000 B: must be <= BufMax");
        // an attribute's own bounds: checked when it is set
        CheckBound("PMax", DoubleValue(1.5), "invalid PMax = 1.5: must be a number in [0, 1]");
        CheckBound("PMax", DoubleValue(-0.1), "invalid PMax = -0.1: must be a number in [0, 1]");
        CheckBound(
            "BufMax", UintegerValue(0), "invalid BufMax = 0: must be a whole number of bytes >= 1");
        CheckBound("NotEctMode",
                   StringValue("Sometimes"),
                   "invalid NotEctMode = Sometimes: must be one of Accept, ThresholdDrop, RedDrop");
        CheckBound("PMax", DoubleValue(0.5), "");
    }
};

/// An example's options from the RED/ECN table become the queue disc's attribute defaults.
class RedEcnOptionsTestCase : public TestCase
{
  public:
    RedEcnOptionsTestCase() :
        TestCase("options from the Rust RED-ECN table reach a queue disc as parsed")
    {
    }

  private:
    void
    DoRun() override
    {
        rdmacc::Options opts("test", "");
        opts.AddRedEcnParams({"kmin", "kmax", "notEct"});
        const char* argv[] = {"test", "--kmin=12.5KB", "--notEct=RedDrop"};
        opts.Parse(3, const_cast<char**>(argv));
        NS_TEST_ASSERT_MSG_EQ(opts.GetBytes("kmin"), 12500, "parsed by the table's rules");
        NS_TEST_ASSERT_MSG_EQ(opts.GetBytes("kmax"), 200000, "the table's default");
        opts.ApplyRedEcnDefaults();
        auto q = CreateObject<RedEcnQueueDisc>();
        q->SetAttribute("KMax", UintegerValue(300000)); // not an option given: kept
        opts.ConfigureRedEcn(*q);
        UintegerValue kMin;
        q->GetAttribute("KMin", kMin);
        UintegerValue kMax;
        q->GetAttribute("KMax", kMax);
        StringValue mode;
        q->GetAttribute("NotEctMode", mode);
        NS_TEST_ASSERT_MSG_EQ(kMin.Get(), 12500, "given option: taken as parsed");
        NS_TEST_ASSERT_MSG_EQ(mode.Get(), "RedDrop", "given option: taken as parsed");
        NS_TEST_ASSERT_MSG_EQ(kMax.Get(), 300000, "an option not given leaves the value held");
        // no attribute default changed: a queue disc not configured from the options
        auto plain = CreateObject<RedEcnQueueDisc>();
        plain->GetAttribute("KMin", kMin);
        NS_TEST_ASSERT_MSG_NE(kMin.Get(), 12500, "the attribute's default is the table's");
    }
};

/// The drop reason names (from Rust) are the ones the README documents, in its order.
class RedEcnReasonNamesTestCase : public TestCase
{
  public:
    RedEcnReasonNamesTestCase() :
        TestCase("drop reason names from Rust are the documented ones")
    {
    }

  private:
    void
    DoRun() override
    {
        const std::vector<std::string> documented = {"queue_full",
                                                     "buffer_full",
                                                     "not_ect_threshold",
                                                     "red_early_drop",
                                                     "headroom_overrun",
                                                     "no_route",
                                                     "control"};
        const auto& names = RedEcnQueueDisc::DropReasonNames();
        NS_TEST_ASSERT_MSG_EQ(names.size(), documented.size(), "number of reasons");
        for (size_t i = 0; i < documented.size() && i < names.size(); i++)
        {
            NS_TEST_ASSERT_MSG_EQ(names[i], documented[i], "reason " << i);
        }
    }
};

/// The suite.
class RedEcnQueueDiscTestSuite : public TestSuite
{
  public:
    RedEcnQueueDiscTestSuite() :
        TestSuite("rdma-cc-red-ecn-queue-disc")
    {
        AddTestCase(new RedEcnThresholdsTestCase);
        AddTestCase(new RedEcnLinearRegionTestCase);
        AddTestCase(new RedEcnRedDropTestCase);
        AddTestCase(new RedEcnConfigTestCase);
        AddTestCase(new RedEcnOptionsTestCase);
        AddTestCase(new RedEcnReasonNamesTestCase);
    }
};

static RedEcnQueueDiscTestSuite g_redEcnQueueDiscTestSuite; //!< registers the suite
