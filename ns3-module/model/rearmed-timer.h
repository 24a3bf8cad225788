/*
 * rdma-cc: a timer re-armed at every packet, without a cancelled event per re-arm, in ns-3's
 * event order.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef REARMED_TIMER_H
#define REARMED_TIMER_H

#include "cancel-event.h"
#include "canonical-scheduler.h"
#include "lean-simulator-impl.h"
#include "window-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-id.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * A deadline re-armed often (an ACK pushes a QP's retransmission deadline later, a paced send
 * brings it near, a packet moves a receiver's). ns-3's way, cancel the event and schedule
 * another at every re-arm, leaves a cancelled event queued per re-arm until its time (1-13 ms
 * ahead for a retransmission deadline on a lossless path).
 *
 * Here the timer keeps two events at most: the deadline's own event, and a spare: the
 * deadline's former event, kept when the deadline moves instead of being cancelled (of two
 * candidates, the latest one before the new deadline, else the latest). A re-arm to
 * a deadline later than the spare takes the place the re-arm's event would have had in the
 * order of events (WindowScheduler::Reserve) and schedules nothing; when the spare runs, before
 * that deadline, it schedules the deadline's event in that place (InsertNextAt). A re-arm to a
 * deadline at or before the spare schedules the deadline's event then, as ns-3's way does. So
 * every deadline's event runs at the time and in the place in the order that cancelling and
 * scheduling gives, event for event (the WindowScheduler suite's "lazily re-armed timers"
 * test drives this class); a spare that finds nothing to do does nothing. A paced sender's
 * deadline alternating between its next send (near) and its retransmission deadline (far)
 * keeps the far event as the spare instead of cancelling one far event per packet.
 *
 * Under ns3::CanonicalScheduler (MPI runs and `--eventOrder=canonical`) the place is the
 * canonical key the re-arm's event would have had (CanonicalScheduler::TakeKey, which advances
 * its node's sequence as scheduling would; UseKey for the late event): the canonical order is
 * kept event for event too, on every rank. Under another scheduler (a user's SchedulerType) it
 * cancels and schedules, ns-3's way.
 *
 * The owner schedules the events (`schedule(delayNs, token)` returns the EventId of an event
 * that calls the owner's handler with `token`), and its handler calls Due(token, schedule)
 * first: it handles the deadline only when Due returns true. Cancel() before the owner goes.
 */
class ReArmedTimer
{
  public:
    /// \return the deadline (ns; none: UINT64_MAX)
    uint64_t
    At() const
    {
        return m_at;
    }

    /**
     * Sets the deadline.
     * \param at the deadline (ns; UINT64_MAX: none)
     * \param schedule schedules an event after a delay (ns) with a token; returns its id
     */
    template <typename S>
    void
    Set(uint64_t at, S schedule)
    {
        if (at == m_at)
        {
            return;
        }
        m_at = at;
        WindowScheduler* ws = WindowScheduler::Running();
        if (ws == nullptr && !CanonicalScheduler::IsActive())
        {
            rdmacc::CancelEvent(m_due);
            m_dueAt = UINT64_MAX;
            if (at != UINT64_MAX)
            {
                ScheduleDue(at, schedule);
            }
            return;
        }
        if (m_dueAt != UINT64_MAX)
        {
            // the deadline's event becomes the spare. With a spare already, one of the two is
            // cancelled: the spare kept is the latest one before the new deadline (it will
            // schedule the deadline's event: a retransmission deadline pushed by every ACK),
            // else the latest (a far deadline kept while a paced send brings one near)
            const bool dueBefore = m_dueAt < at;
            const bool spareBefore = m_spareAt < at;
            const bool keepDue = m_spareAt == UINT64_MAX ||
                                 (dueBefore != spareBefore ? dueBefore : m_dueAt > m_spareAt);
            if (keepDue)
            {
                rdmacc::CancelEvent(m_spare);
                m_spare = m_due;
                m_spareAt = m_dueAt;
                m_spareToken = m_dueToken;
            }
            else
            {
                rdmacc::CancelEvent(m_due);
            }
            m_dueAt = UINT64_MAX;
        }
        if (at == UINT64_MAX)
        {
            return;
        }
        if (m_spareAt < at)
        {
            if (ws != nullptr)
            {
                m_slot = ws->Reserve();
            }
            else
            {
                // the key the re-arm's event would have had (its node's sequence advances)
                m_key = CanonicalScheduler::TakeKey(Simulator::GetContext());
            }
            return;
        }
        ScheduleDue(at, schedule);
    }

    /**
     * The timer's events call this first.
     * \param token the event's token
     * \param schedule as for Set
     * \return true: the deadline is due (and cleared); false: a spare (which has scheduled the
     *   deadline's event in its place when the deadline has none)
     */
    template <typename S>
    bool
    Due(uint32_t token, S schedule)
    {
        if (token == m_dueToken && m_dueAt != UINT64_MAX)
        {
            m_dueAt = UINT64_MAX;
            m_at = UINT64_MAX;
            return true;
        }
        if (token != m_spareToken || m_spareAt == UINT64_MAX)
        {
            return false; // (a cancelled event does not run: not reached)
        }
        m_spareAt = UINT64_MAX;
        if (m_at != UINT64_MAX && m_dueAt == UINT64_MAX)
        {
            // a deadline without its event was set later than this spare
            const uint64_t now = rdmacc::NowNs();
            WindowScheduler* ws = WindowScheduler::Running();
            NS_ABORT_MSG_IF((ws == nullptr && !CanonicalScheduler::IsActive()) || m_at <= now,
                            "ReArmedTimer: a deadline without its event after its spare");
            if (ws != nullptr)
            {
                ws->InsertNextAt(m_slot);
            }
            else
            {
                CanonicalScheduler::UseKey(m_key);
            }
            ScheduleDue(m_at, schedule); // the next insert: at the place just given
        }
        return false;
    }

    /// Cancels both events (the owner is going away; the deadline stays)
    void
    Cancel()
    {
        rdmacc::CancelEvent(m_due);
        rdmacc::CancelEvent(m_spare);
        m_dueAt = UINT64_MAX;
        m_spareAt = UINT64_MAX;
    }

  private:
    /// Schedules the deadline's event at `at` (now when it has passed)
    template <typename S>
    void
    ScheduleDue(uint64_t at, S schedule)
    {
        const uint64_t now = rdmacc::NowNs();
        m_dueAt = std::max(at, now);
        m_dueToken = ++m_tokens;
        m_due = schedule(at - std::min(at, now), m_dueToken);
    }

    uint64_t m_at = UINT64_MAX;      //!< the deadline (ns)
    WindowScheduler::Slot m_slot;    //!< its place in the order (set later than the spare)
    uint64_t m_key = 0;              //!< the same under CanonicalScheduler: its key
    EventId m_due;                   //!< the deadline's event
    uint64_t m_dueAt = UINT64_MAX;   //!< when it runs (ns; none: MAX)
    EventId m_spare;                 //!< the spare
    uint64_t m_spareAt = UINT64_MAX; //!< when it runs (ns; none: MAX)
    uint32_t m_dueToken = 0;         //!< the deadline's event's token
    uint32_t m_spareToken = 0;       //!< the spare's token
    uint32_t m_tokens = 0;           //!< tokens given (a token names one of the two events)
};

} // namespace ns3

#endif /* REARMED_TIMER_H */
