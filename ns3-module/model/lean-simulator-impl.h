/*
 * rdma-cc: ns-3's default simulator, event for event, with less work per event, and the fast
 * calls rdma-cc's own per-packet code uses to reach it (rdmacc::Now, rdmacc::Schedule).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LEAN_SIMULATOR_IMPL_H
#define LEAN_SIMULATOR_IMPL_H

#include "window-scheduler.h"

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/make-event.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <list>
#include <type_traits>
#include <utility>

namespace ns3
{

/**
 * \ingroup rdma-cc
 *
 * A SimulatorImpl that runs the events of ns3::DefaultSimulatorImpl in the same order, with
 * the same uids, time stamps, contexts and event count, and answers IsExpired, Cancel, Remove,
 * GetDelayLeft and the destroy events as it does: results and outputs are byte-identical. What
 * it leaves out is per-event work nobody here uses:
 * - no EventId built for PreEventHook before each event (ns-3.37 builds one, two reference
 *   count updates, for a hook DefaultSimulatorImpl leaves empty);
 * - no check for events scheduled from other threads after each event: the simulation is
 *   single-threaded (ns-3's default implementation takes such events under a mutex; emulation
 *   and real-time runs use RealtimeSimulatorImpl, which this does not replace);
 * - the scheduler called directly, without a virtual call, when it is a WindowScheduler;
 * - rdmacc::Now and rdmacc::Schedule (below): rdma-cc's per-packet code reaches the running
 *   instance without Simulator::GetImpl and the virtual call behind each Simulator:: function.
 *
 * rdma-cc's programs choose it (rdmacc::ChooseScheduler) unless the user names another
 * SimulatorImplementationType (NS_GLOBAL_VALUE) or the run is distributed (MPI); config.json
 * records which one ran.
 */
class LeanSimulatorImpl final : public SimulatorImpl
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    LeanSimulatorImpl();
    ~LeanSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
#if RDMACC_NS3_VERSION >= 339
    EventId Stop(const Time& delay) override;
#else
    void Stop(const Time& delay) override;
#endif
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /**
     * \return the instance the simulation runs on, or nullptr when it runs on another
     *   SimulatorImpl (then rdmacc::Now and rdmacc::Schedule call Simulator::)
     */
    static LeanSimulatorImpl*
    Current()
    {
        return s_current;
    }

    /// \return the current time in time steps (Now().GetTimeStep())
    uint64_t
    NowSteps() const
    {
        return m_currentTs;
    }

    /// \return NanoSeconds(ns) (out of line: rdmacc::FromNs's other case)
    static Time NanoSecondsSlow(int64_t ns);
    /// \return t.GetNanoSeconds() (out of line: rdmacc::ToNs's other case)
    static int64_t GetNanoSecondsSlow(const Time& t);

    /// \return whether a time step is a nanosecond (Time's resolution when this was built)
    bool
    NsSteps() const
    {
        return m_nsSteps;
    }

    /**
     * Schedule without an EventId (for events nobody cancels).
     * \param delay delay from now
     * \param event the event (its reference passes to the simulator)
     */
    void
    ScheduleNoId(const Time& delay, EventImpl* event)
    {
        Insert(m_currentTs + CheckedDelay(delay), m_currentContext, event);
    }

    /**
     * ScheduleWithContext, inline (its body): for the per-frame arrivals.
     * \param context the event's context
     * \param delay delay from now
     * \param event the event (its reference passes to the simulator)
     */
    void
    ScheduleWithContextInline(uint32_t context, const Time& delay, EventImpl* event)
    {
        Insert(m_currentTs + CheckedDelay(delay), context, event);
    }

  private:
    void DoDispose() override;

    /**
     * Runs events until Stop or none is left.
     * \param events the scheduler (typed: a final class's calls are direct)
     */
    template <typename S>
    void RunOn(S& events);

    /// \return the delay's time steps (fatal when negative, as Simulator::Schedule is)
    static uint64_t
    CheckedDelay(const Time& delay)
    {
        const int64_t d = delay.GetTimeStep();
        if (d < 0)
        {
            NegativeDelay();
        }
        return static_cast<uint64_t>(d);
    }

    /// the fatal error of a negative delay
    [[noreturn]] static void NegativeDelay();

    /**
     * Queues an event with the next uid.
     * \param ts its time stamp
     * \param context its context
     * \param event the event
     * \return its uid
     */
    uint32_t
    Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        m_unscheduledEvents++;
        if (m_window != nullptr)
        {
            m_window->Insert(ev);
        }
        else
        {
            m_events->Insert(ev);
        }
        return ev.key.m_uid;
    }

    Ptr<Scheduler> m_events;             //!< the scheduler
    WindowScheduler* m_window;           //!< the scheduler, when it is a WindowScheduler
    std::list<EventId> m_destroyEvents;  //!< events run by Destroy
    bool m_stop;                         //!< Stop was called
    uint32_t m_uid;                      //!< the next event's uid
    uint32_t m_currentUid;               //!< the running event's uid
    uint64_t m_currentTs;                //!< the running event's time stamp
    uint32_t m_currentContext;           //!< the running event's context
    uint64_t m_eventCount;               //!< events run
    int64_t m_unscheduledEvents;         //!< events queued
    bool m_nsSteps;                      //!< a time step is 1 ns
    static LeanSimulatorImpl* s_current; //!< see Current()
};

namespace rdmacc
{

/// \return Simulator::Now()
inline Time
Now()
{
    const LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    return s != nullptr ? TimeStep(static_cast<int64_t>(s->NowSteps())) : Simulator::Now();
}

/// \return Simulator::Now().GetNanoSeconds()
inline uint64_t
NowNs()
{
    const LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    if (s != nullptr && s->NsSteps())
    {
        return s->NowSteps();
    }
    return static_cast<uint64_t>(Simulator::Now().GetNanoSeconds());
}

/**
 * \param t a time
 * \return t.GetNanoSeconds(), without Time's unit conversion when a time step is 1 ns
 */
inline int64_t
ToNs(const Time& t)
{
    const LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    return s != nullptr && s->NsSteps() ? t.GetTimeStep()
                                        : LeanSimulatorImpl::GetNanoSecondsSlow(t);
}

/**
 * \param ns nanoseconds
 * \return NanoSeconds(ns), without Time's unit conversion when a time step is 1 ns
 */
inline Time
FromNs(int64_t ns)
{
    const LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    return s != nullptr && s->NsSteps() ? TimeStep(ns) : LeanSimulatorImpl::NanoSecondsSlow(ns);
}

/// Simulator::Schedule(delay, f, args...)
template <typename FUNC, typename... Ts>
EventId
Schedule(const Time& delay, FUNC f, Ts&&... args)
{
    LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    if (s != nullptr)
    {
        return s->Schedule(delay, MakeEvent(f, std::forward<Ts>(args)...));
    }
    return Simulator::Schedule(delay, f, std::forward<Ts>(args)...);
}

/// Simulator::Schedule(delay, event), for an event nobody cancels (no EventId is built)
inline void
ScheduleNoId(const Time& delay, const Ptr<EventImpl>& event)
{
    LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    if (s != nullptr)
    {
        s->ScheduleNoId(delay, GetPointer(event));
        return;
    }
    Simulator::Schedule(delay, event);
}

/// Simulator::ScheduleWithContext(context, delay, event)
inline void
ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    LeanSimulatorImpl* s = LeanSimulatorImpl::Current();
    if (s != nullptr)
    {
        s->ScheduleWithContextInline(context, delay, event);
        return;
    }
    Simulator::ScheduleWithContext(context, delay, event);
}

/// Simulator::ScheduleWithContext(context, delay, f, args...) (f not an event: the overload
/// above takes those)
template <typename FUNC,
          typename... Ts,
          typename = std::enable_if_t<!std::is_convertible_v<FUNC, EventImpl*>>>
void
ScheduleWithContext(uint32_t context, const Time& delay, FUNC f, Ts&&... args)
{
    ScheduleWithContext(context, delay, MakeEvent(f, std::forward<Ts>(args)...));
}

} // namespace rdmacc
} // namespace ns3

#endif /* LEAN_SIMULATOR_IMPL_H */
