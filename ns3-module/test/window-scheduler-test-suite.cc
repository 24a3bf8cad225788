/*
 * Tests of ns3::WindowScheduler: the same events run in the same order, and the same count of
 * events (cancelled ones included) is processed, as with ns-3's PriorityQueueScheduler, on a
 * random mix of delays within a window, across window edges and milliseconds ahead, with
 * equal times, cancelled events and Simulator::Remove.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/rdma-cc-module.h"
#include "ns3/test.h"

#include <cstdint>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// One run of the random workload: what ran, in order
struct Workload
{
    std::vector<std::pair<uint64_t, uint32_t>> ran; //!< (time ns, event id) of each event run
    std::vector<EventId> pending;                   //!< events that may be cancelled or removed
    uint64_t rng = 12345;                           //!< a 64-bit LCG's state
    uint32_t nextId = 0;                            //!< ids given so far
    uint32_t budget = 0;                            //!< events still to schedule

    uint64_t
    Draw(uint64_t n)
    {
        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        return (rng >> 33) % n;
    }

    /// a delay: 0, a few ns, about a window (4096 ns), or 1-13 ms (a retransmission timer)
    uint64_t
    Delay()
    {
        switch (Draw(6))
        {
        case 0:
            return 0;
        case 1:
            return Draw(8);
        case 2:
            return Draw(2000);
        case 3:
            return 4096 - 50 + Draw(100);
        case 4:
            return Draw(20000);
        default:
            return 1000000 + Draw(12000000);
        }
    }

    void
    Fire(uint32_t id)
    {
        ran.emplace_back(Simulator::Now().GetNanoSeconds(), id);
        const uint64_t children = 1 + Draw(2);
        for (uint64_t c = 0; c < children && budget > 0; c++, budget--)
        {
            pending.push_back(
                Simulator::Schedule(NanoSeconds(Delay()), &Workload::Fire, this, nextId++));
        }
        // cancel (ns-3 keeps the entry queued) or remove (it leaves the queue) an earlier event
        if (!pending.empty() && Draw(4) == 0)
        {
            const std::size_t i = Draw(pending.size());
            if (Draw(2) == 0)
            {
                pending[i].Cancel();
            }
            else
            {
                Simulator::Remove(pending[i]);
            }
            pending[i] = pending.back();
            pending.pop_back();
        }
        if (pending.size() > 64)
        {
            pending.erase(pending.begin(), pending.begin() + 32);
        }
    }
};

/// Runs the workload under `scheduler`
Workload
RunWith(const std::string& scheduler, uint64_t* processed)
{
    Simulator::SetScheduler(ObjectFactory(scheduler));
    Workload w;
    w.budget = 200000;
    for (uint32_t i = 0; i < 50; i++, w.budget--)
    {
        // set-up events, some at equal times
        Simulator::Schedule(NanoSeconds(w.Draw(3) * 1000), &Workload::Fire, &w, w.nextId++);
    }
    Simulator::Run();
    *processed = Simulator::GetEventCount();
    Simulator::Destroy();
    return w;
}

/**
 * WindowScheduler runs the same events in the same order as PriorityQueueScheduler (ns-3's
 * order: time, then insertion), and processes as many events, cancelled ones included.
 */
class WindowOrderTestCase : public TestCase
{
  public:
    WindowOrderTestCase() :
        TestCase("the same events in the same order and count as PriorityQueueScheduler")
    {
    }

  private:
    void
    DoRun() override
    {
        uint64_t heapCount = 0;
        uint64_t windowCount = 0;
        const Workload heap = RunWith("ns3::PriorityQueueScheduler", &heapCount);
        const Workload window = RunWith("ns3::WindowScheduler", &windowCount);
        // the workload reaches every kind of delay and many events of equal time
        NS_TEST_ASSERT_MSG_GT(heap.ran.size(), 100000u, "the workload ran");
        uint64_t ties = 0;
        for (std::size_t i = 1; i < heap.ran.size(); i++)
        {
            ties += heap.ran[i].first == heap.ran[i - 1].first;
        }
        NS_TEST_ASSERT_MSG_GT(ties, 1000u, "equal-time events");
        NS_TEST_ASSERT_MSG_GT(heap.ran.back().first, 10000000u, "events milliseconds ahead");
        NS_TEST_ASSERT_MSG_EQ(window.ran.size(), heap.ran.size(), "events run");
        NS_TEST_ASSERT_MSG_EQ(windowCount, heapCount, "events processed (cancelled included)");
        NS_TEST_ASSERT_MSG_GT(heapCount, heap.ran.size(), "some processed events were cancelled");
        for (std::size_t i = 0; i < heap.ran.size(); i++)
        {
            if (window.ran[i] != heap.ran[i])
            {
                NS_TEST_ASSERT_MSG_EQ(window.ran[i].second,
                                      heap.ran[i].second,
                                      "event " << i << " at " << heap.ran[i].first << " ns");
            }
        }
    }
};

/// WindowScheduler's tests
class WindowSchedulerTestSuite : public TestSuite
{
  public:
    WindowSchedulerTestSuite() :
        TestSuite("rdma-cc-window-scheduler")
    {
        AddTestCase(new WindowOrderTestCase);
    }
};

} // namespace

static WindowSchedulerTestSuite g_windowSchedulerTestSuite; //!< registers the suite
