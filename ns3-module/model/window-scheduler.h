/*
 * rdma-cc: ns-3's event order (time, then insertion) from a small heap of the current time
 * window and unsorted buckets of later windows, so that events far in the future (cancelled
 * retransmission timers, flow starts) do not deepen the heap every event goes through.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WINDOW_SCHEDULER_H
#define WINDOW_SCHEDULER_H

#include "calendar-queue.h"

#include "ns3/scheduler.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Runs events in ns-3's order, by (time, uid) (the uid is the insertion order), exactly as
 * PriorityQueueScheduler, MapScheduler and the others do: only the cost differs. Time is cut
 * into windows of 2^WINDOW_SHIFT time steps (ns). The current window keeps one list per time
 * step (a calendar): an event is appended to its time step's list, and a bit per time step
 * says which lists hold events, so the next event is the head of the first non-empty list at
 * or after the last one taken (a find-first-set over 64 steps at a time). The events of one
 * time step run in insertion order, which is uid order: a list is appended to in that order.
 * An event of a later window is appended, unsorted, to its window's bucket (a vector, in
 * insertion order); when the current window runs empty the earliest bucket is spread over the
 * lists, in its order.
 *
 * Why: ns-3 cancels an event by flagging it; the entry stays queued until its time comes. A
 * queue pair re-arms its retransmission timer at every ACK, and on a lossless path the timeout
 * is at least 1 ms (the time every switch on the path takes to drain its buffer: ~13 ms with
 * 32 MB buffers and five switches), so a heap holds every ACK's cancelled timer for the rest of
 * the run — millions of entries on a k = 12 fat tree — and each event's sift-down walks
 * log2(N) levels of an array far larger than the cache. Here those entries wait in buckets
 * that are appended to and read once. Within the window, a list per time step replaces the
 * heap that an earlier version kept of the window's events (its sift-down and sift-up were a
 * tenth of the event loop's instructions; docs/performance.md).
 *
 * Insert: an append to a list (the current window) or to a bucket (a later one: one map
 * lookup, skipped when it is the bucket of the previous append). RemoveNext: the head of the
 * first non-empty list, and the spreading of a bucket each time the window moves. Remove
 * (Simulator::Remove) is linear in the event's list or bucket. No allocation per event: list
 * entries come from a pool of nodes that grows to the largest window, a bucket's vector grows
 * by doubling.
 *
 * Deferred events (Reserve, InsertNextAt): a timer that is re-armed later and later (a
 * retransmission deadline pushed at every ACK) can keep its one pending event and, when that
 * event runs before the deadline, schedule the deadline then, instead of cancelling and
 * scheduling an event at every re-arm. Scheduled late, its uid is later than the re-arm's
 * would have been, and among the events of its time stamp it would run later than ns-3's
 * order puts it. Reserve() takes the place the re-arm's event would have had (after every
 * event inserted so far, before every one inserted after it); InsertNextAt(slot) makes the
 * next Insert take that place. Such events wait in a small heap of their own, ordered by
 * (time, the uid of the last event inserted before the reservation, the reservation's
 * number), beside the windows: the order of every event is the one eager re-arming gives,
 * event for event. A deferred event leaves RemoveNext with that last uid as its key's uid, so
 * that Simulator::IsExpired stays right for every other event of its time stamp (those that
 * ran have a uid at or below it, those waiting one above).
 */
class WindowScheduler final : public Scheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    WindowScheduler();
    ~WindowScheduler() override;

    /// (inline: the simulator's per-event call, direct on a final class)
    void
    Insert(const Event& ev) override
    {
        if (m_insertAt)
        {
            InsertDeferred(ev);
            return;
        }
        m_lastUid = ev.key.m_uid;
        m_events.Insert(ev);
    }
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// A place in the order, taken by Reserve (see the class's description).
    struct Slot
    {
        uint32_t lastUid = 0; //!< the uid of the last event inserted before the reservation
        uint64_t number = 0;  //!< the reservation's number (reservations are in order)
    };

    /**
     * The WindowScheduler running the simulation: the last one whose RemoveNext gave an event
     * (null before the first event or when the simulation uses another scheduler). A model
     * asks it, inside an event, whether it may defer a re-armed timer.
     * \return that scheduler, or nullptr
     */
    static WindowScheduler* Running();

    /**
     * \return the place an event inserted now would take among the events of its time stamp
     */
    Slot Reserve();

    /**
     * Makes the next Insert (the next Simulator::Schedule) put its event at `slot`, a place
     * taken by Reserve earlier, instead of after every event inserted so far.
     * \param slot the place
     */
    void InsertNextAt(const Slot& slot);

    /// a window is 2^WINDOW_SHIFT ns (4.096 us: a few link hops; a timer of 1 ms or more is
    /// hundreds of windows away)
    static constexpr unsigned WINDOW_SHIFT = 12;

  private:
    /// \return whether the next event is the deferred heap's front (else the calendar's)
    bool DeferredFirst() const;
    /// Insert's other case: the event takes the reserved slot m_slot (out of line: the common
    /// case then saves no register for it)
    [[gnu::noinline]] void InsertDeferred(const Event& ev);

    /// a deferred event: the event (its key's uid is the slot's last uid) and the slot's number
    struct Deferred
    {
        Event ev;
        uint64_t number;
    };

    /// the calendar's order: time, then uid, which is insertion order (every list is appended to)
    struct Order
    {
        static constexpr bool APPEND = true;

        static uint64_t
        Ts(const Event& e)
        {
            return e.key.m_ts;
        }

        static void
        Prefetch(const Event& e)
        {
            // the event's first two lines: an ArrivalEvent's frame and fields reach the second
            __builtin_prefetch(e.impl);
            __builtin_prefetch(reinterpret_cast<const char*>(e.impl) + 64);
        }

        static bool
        Before(const Event& a, const Event& b)
        {
            return a.key.m_uid < b.key.m_uid;
        }
    };

    /// the events (not deferred); mutable: PeekNext may take a window
    mutable rdmacc::CalendarQueue<Event, Order> m_events;
    std::vector<Deferred> m_deferred;  //!< deferred events, a min-heap by (time, uid, number)
    uint32_t m_lastUid;                //!< the uid of the last event inserted (not deferred)
    uint64_t m_reserved;               //!< reservations taken
    bool m_insertAt;                   //!< the next Insert is deferred to m_slot
    Slot m_slot;                       //!< where (when m_insertAt)
    static WindowScheduler* s_running; //!< see Running()
};

} // namespace ns3

#endif /* WINDOW_SCHEDULER_H */
