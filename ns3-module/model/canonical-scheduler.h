/*
 * rdma-cc: an event scheduler whose order of equal-time events does not depend on the order
 * they were inserted in, so that one process and a distributed (MPI) run execute every node's
 * events in the same order.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CANONICAL_SCHEDULER_H
#define CANONICAL_SCHEDULER_H

#include "calendar-queue.h"

#include "ns3/scheduler.h"

#include <cstdint>
#include <typeinfo>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * Runs events by (time, canonical key, uid) instead of ns-3's (time, uid). Every ns-3
 * scheduler breaks ties between equal times by insertion order (the uid); a distributed run
 * inserts a frame from another process when its MPI message is received, not when it was sent,
 * so its ties break differently from one process's and the results differ. The canonical key
 * is (creator, sequence): the creator is the node whose event scheduled the new event (the
 * running event's context), or, for an event scheduled outside any node's event (set-up before
 * Simulator::Run, or a global event), the node the new event is for (its context); the sequence
 * counts the events that creator has scheduled so far. A node's events are the same, in the
 * same order, in one process and in a distributed run, so are the keys they give (by induction
 * over the run), whichever process a node is simulated by.
 *
 * Events of no node (context Simulator::NO_CONTEXT: samplers, Stop) keyed by NO_CONTEXT come
 * after the nodes' events of their time. Events of the MPI machinery (ns-3's MpiReceiver
 * events, null messages) are "foreign": they get keys of their own and do not advance any
 * node's sequence. A frame for another process carries the key its arrival gets (TakeKey on
 * the sender's side, UseKey on the receiver's: QbbRemoteChannel).
 *
 * The events wait in a rdmacc::CalendarQueue (a list per nanosecond of the current 4.096 us
 * window, each in key order, and unsorted buckets of later windows; an earlier version's
 * binary heap of every pending event was a quarter of a canonical run's event loop): no
 * allocation per event. Remove (Simulator::Remove) is linear in the event's list or bucket.
 */
class CanonicalScheduler : public Scheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    CanonicalScheduler();
    ~CanonicalScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

    /// \return whether the simulator's scheduler is a CanonicalScheduler
    static bool IsActive();
    /**
     * The key an event scheduled now for `context` would get; its creator's sequence advances
     * as if it were scheduled (the sender's half of a frame to another process).
     * \param context the new event's context
     * \return the key (0 when no CanonicalScheduler is active)
     */
    static uint64_t TakeKey(uint32_t context);
    /**
     * The next event inserted gets `key` (the receiver's half of a frame from another process;
     * no sequence advances). No-op when no CanonicalScheduler is active.
     * \param key a key from TakeKey
     */
    static void UseKey(uint64_t key);
    /// Events inserted until the matching EndForeign are foreign (the MPI machinery's)
    static void BeginForeign();
    /// \see BeginForeign
    static void EndForeign();
    /**
     * Events whose EventImpl has this dynamic type are foreign (e.g. the MpiReceiver events
     * ns-3 inserts when an MPI message is received, between two events).
     * \param type the type (typeid of an EventImpl made the same way)
     */
    static void AddForeignType(const std::type_info& type);
    /// \return whether the running event is foreign (false when no CanonicalScheduler is active)
    static bool RunningForeign();
    /// \return the events run whose time equalled the one run before them (a diagnostic)
    static uint64_t TiesRun();

    /// the creator of events scheduled by no node
    static constexpr uint32_t GLOBAL = 0xfffffffe;
    /// the creator of foreign events
    static constexpr uint32_t FOREIGN = 0xffffffff;

  private:
    /// an event in the queue
    struct Entry
    {
        uint64_t ts;      //!< time stamp
        uint64_t key;     //!< creator << 32 | sequence
        EventImpl* impl;  //!< the event
        uint32_t uid;     //!< ns-3's uid
        uint32_t context; //!< ns-3's context
    };

    /// the calendar's order: time, then key, then uid (not insertion order)
    struct Order
    {
        static constexpr bool APPEND = false;

        static uint64_t
        Ts(const Entry& e)
        {
            return e.ts;
        }

        static void
        Prefetch(const Entry& e)
        {
            // the event's first two lines: an ArrivalEvent's frame and fields reach the second
            __builtin_prefetch(e.impl);
            __builtin_prefetch(reinterpret_cast<const char*>(e.impl) + 64);
        }

        static bool
        Before(const Entry& a, const Entry& b)
        {
            return a.key < b.key || (a.key == b.key && a.uid < b.uid);
        }
    };

    /// \return the key of an event for `context` scheduled now, advancing its creator's sequence
    uint64_t NextKey(uint32_t context);
    /// \return whether `impl` is of a foreign type
    bool IsForeignType(const EventImpl* impl);
    /// \return `e` as ns-3's Event
    static Event ToEvent(const Entry& e);

    mutable rdmacc::CalendarQueue<Entry, Order>
        m_events;                //!< the events (PeekNext may take a window)
    std::vector<uint32_t> m_seq; //!< per creator node: events it has scheduled
    uint32_t m_globalSeq;        //!< events created by GLOBAL
    uint32_t m_foreignSeq;       //!< foreign events
    uint32_t m_curContext;       //!< the running event's context (NO_CONTEXT before Run)
    bool m_curForeign;           //!< the running event is foreign
    bool m_haveKey;              //!< UseKey was called
    uint64_t m_nextKey;          //!< UseKey's key
    uint32_t m_foreignDepth;     //!< BeginForeign nesting
    uint64_t m_lastTs;           //!< time of the last event run
    uint64_t m_ties;             //!< TiesRun
    /// vptr -> foreign? for the types seen (a small direct-mapped cache)
    struct TypeCacheLine
    {
        const void* vptr;
        bool foreign;
    };

    TypeCacheLine m_typeCache[16]; //!< IsForeignType's cache
};

} // namespace ns3

#endif /* CANONICAL_SCHEDULER_H */
