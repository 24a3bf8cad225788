/*
 * Tests of ns3::CanonicalScheduler: events of one time run by (creator node, its sequence), not
 * by insertion; keys given by TakeKey / UseKey; foreign events advance no node's sequence;
 * Simulator::Remove and Cancel; rdmacc::CancelEvent where ns-3's Cancel skips a queued event.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include <string>
#include <vector>

using namespace ns3;

namespace
{

std::vector<std::string> g_ran; //!< names of the events run, in order

void
Record(std::string name)
{
    g_ran.push_back(name + "@" + std::to_string(Simulator::Now().GetNanoSeconds()));
}

/// Starts a run with the canonical scheduler
void
UseCanonical()
{
    g_ran.clear();
    Simulator::SetScheduler(ObjectFactory("ns3::CanonicalScheduler"));
}

/**
 * Equal-time events in the order of their keys, whatever order they were scheduled in: set-up
 * events by their node (the lower node first, then the order of scheduling for that node), the
 * events of no node last; what an event schedules by its node's count.
 */
class CanonicalOrderTestCase : public TestCase
{
  public:
    CanonicalOrderTestCase() :
        TestCase("equal-time events by (creator, sequence), not by insertion")
    {
    }

  private:
    static void
    Spawn()
    {
        // node 0's event (key (0, 1): node 0's set-up event was (0, 0)) schedules two at 10 ns
        Simulator::ScheduleWithContext(5, NanoSeconds(5), &Record, "s1");
        Simulator::ScheduleWithContext(4, NanoSeconds(5), &Record, "s2");
    }

    void
    DoRun() override
    {
        UseCanonical();
        Simulator::Schedule(NanoSeconds(10), &Record, "global");
        Simulator::ScheduleWithContext(2, NanoSeconds(10), &Record, "n2a");
        Simulator::ScheduleWithContext(1, NanoSeconds(10), &Record, "n1");
        Simulator::ScheduleWithContext(2, NanoSeconds(10), &Record, "n2b");
        Simulator::ScheduleWithContext(0, NanoSeconds(5), &Spawn);
        Simulator::Run();
        Simulator::Destroy();
        const std::vector<std::string> want{
            "s1@10", "s2@10", "n1@10", "n2a@10", "n2b@10", "global@10"};
        NS_TEST_ASSERT_MSG_EQ(g_ran.size(), want.size(), "events run");
        for (size_t i = 0; i < want.size(); i++)
        {
            NS_TEST_EXPECT_MSG_EQ(g_ran[i], want[i], "event " << i);
        }
    }
};

/**
 * TakeKey takes the key the next event scheduled now would get, UseKey gives one to the next
 * event inserted; foreign events (BeginForeign) advance no node's sequence.
 */
class CanonicalKeysTestCase : public TestCase
{
  public:
    CanonicalKeysTestCase() :
        TestCase("TakeKey, UseKey and foreign events")
    {
    }

  private:
    static void
    AtNode3()
    {
        // node 3's set-up event had (3, 0): TakeKey gives (3, 1), the next event (3, 2)
        const uint64_t k = CanonicalScheduler::TakeKey(7);
        if (k != (uint64_t(3) << 32 | 1))
        {
            Record("wrong key " + std::to_string(k));
        }
        CanonicalScheduler::BeginForeign();
        Simulator::ScheduleWithContext(1, NanoSeconds(1), &Record, "foreign");
        CanonicalScheduler::EndForeign();
        Simulator::ScheduleWithContext(1, NanoSeconds(1), &Record, "k32");
        // ahead of (3, 2) by the key taken
        CanonicalScheduler::UseKey(k);
        Simulator::ScheduleWithContext(7, NanoSeconds(1), &Record, "k31");
    }

    void
    DoRun() override
    {
        UseCanonical();
        NS_TEST_ASSERT_MSG_EQ(CanonicalScheduler::IsActive(), true, "active");
        Simulator::ScheduleWithContext(3, NanoSeconds(1), &AtNode3);
        // (4, 0) at 2 ns: after node 3's keys, before the foreign event
        Simulator::ScheduleWithContext(4, NanoSeconds(2), &Record, "n4");
        Simulator::Run();
        Simulator::Destroy();
        const std::vector<std::string> want{"k31@2", "k32@2", "n4@2", "foreign@2"};
        NS_TEST_ASSERT_MSG_EQ(g_ran.size(), want.size(), "events run");
        for (size_t i = 0; i < want.size(); i++)
        {
            NS_TEST_EXPECT_MSG_EQ(g_ran[i], want[i], "event " << i);
        }
    }
};

/// Simulator::Remove takes an event out; a cancelled one does not run; times still order first.
class CanonicalRemoveTestCase : public TestCase
{
  public:
    CanonicalRemoveTestCase() :
        TestCase("Remove and Cancel")
    {
    }

  private:
    void
    DoRun() override
    {
        UseCanonical();
        std::vector<EventId> ids;
        for (int i = 0; i < 50; i++)
        {
            ids.push_back(Simulator::Schedule(NanoSeconds(100 - i), &Record, std::to_string(i)));
        }
        Simulator::Remove(ids[10]);
        Simulator::Cancel(ids[20]);
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(g_ran.size(), 48u, "events run");
        NS_TEST_EXPECT_MSG_EQ(g_ran.front(), "49@51", "first");
        NS_TEST_EXPECT_MSG_EQ(g_ran.back(), "0@100", "last");
    }
};

/**
 * rdmacc::CancelEvent cancels an event of the running time stamp that the canonical order runs
 * after the running one although its uid is lower: ns-3 calls such an event expired and its
 * own Cancel skips it (cancel-event.h).
 */
class CanonicalCancelTestCase : public TestCase
{
  public:
    CanonicalCancelTestCase() :
        TestCase("CancelEvent cancels a queued event ns-3 calls expired")
    {
    }

  private:
    static EventId s_late;       //!< node 5's event (inserted first: the lower uid)
    static bool s_nsExpired;     //!< what ns-3's IsExpired said of it, while queued
    static bool s_nsCancelSkips; //!< ns-3's own Cancel left it uncancelled

    static void
    CancelLate()
    {
        s_nsExpired = s_late.IsExpired();
        Simulator::Cancel(s_late);
        s_nsCancelSkips = !s_late.PeekEventImpl()->IsCancelled();
        rdmacc::CancelEvent(s_late);
        Record("early");
    }

    static void
    AtNode5()
    {
        s_late = Simulator::Schedule(NanoSeconds(5), &Record, "late"); // key (5, 1) at 10 ns
    }

    static void
    AtNode1()
    {
        Simulator::Schedule(NanoSeconds(4), &CancelLate); // key (1, 1) at 10 ns, a later uid
    }

    void
    DoRun() override
    {
        UseCanonical();
        Simulator::ScheduleWithContext(5, NanoSeconds(5), &AtNode5);
        Simulator::ScheduleWithContext(1, NanoSeconds(6), &AtNode1);
        Simulator::Run();
        Simulator::Destroy();
        // the case this is about: queued, called expired, ns-3's Cancel skipped
        NS_TEST_EXPECT_MSG_EQ(s_nsExpired, true, "ns-3 calls the queued event expired");
        NS_TEST_EXPECT_MSG_EQ(s_nsCancelSkips, true, "ns-3's Cancel skips it");
        NS_TEST_ASSERT_MSG_EQ(g_ran.size(), 1u, "events run: the cancelled one did not");
        NS_TEST_EXPECT_MSG_EQ(g_ran.front(), "early@10", "the event that cancelled");
        s_late = EventId();
    }
};

EventId CanonicalCancelTestCase::s_late;
bool CanonicalCancelTestCase::s_nsExpired = false;
bool CanonicalCancelTestCase::s_nsCancelSkips = false;

class CanonicalSchedulerTestSuite : public TestSuite
{
  public:
    CanonicalSchedulerTestSuite() :
        TestSuite("rdma-cc-canonical-scheduler")
    {
        AddTestCase(new CanonicalOrderTestCase);
        AddTestCase(new CanonicalKeysTestCase);
        AddTestCase(new CanonicalRemoveTestCase);
        AddTestCase(new CanonicalCancelTestCase);
    }
};

} // namespace

static CanonicalSchedulerTestSuite g_canonicalSchedulerTestSuite; //!< registers the suite
