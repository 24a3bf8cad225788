/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lean-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeanSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(LeanSimulatorImpl);

LeanSimulatorImpl* LeanSimulatorImpl::s_current = nullptr;

TypeId
LeanSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeanSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<LeanSimulatorImpl>();
    return tid;
}

// uids as ns-3 numbers them: 0 invalid, 1 "now", 2 destroy events, 3 reserved, events from 4
LeanSimulatorImpl::LeanSimulatorImpl() :
    m_window(nullptr),
    m_stop(false),
    m_uid(EventId::UID::VALID),
    m_currentUid(0),
    m_currentTs(0),
    m_currentContext(Simulator::NO_CONTEXT),
    m_eventCount(0),
    m_unscheduledEvents(0),
    m_nsSteps(Time::GetResolution() == Time::NS)
{
    NS_LOG_FUNCTION(this);
    s_current = this;
}

LeanSimulatorImpl::~LeanSimulatorImpl()
{
    if (s_current == this)
    {
        s_current = nullptr;
    }
}

void
LeanSimulatorImpl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (s_current == this)
    {
        s_current = nullptr;
    }
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            m_events->RemoveNext().impl->Unref();
        }
    }
    m_events = nullptr;
    m_window = nullptr;
    SimulatorImpl::DoDispose();
}

Time
LeanSimulatorImpl::NanoSecondsSlow(int64_t ns)
{
    return NanoSeconds(ns);
}

int64_t
LeanSimulatorImpl::GetNanoSecondsSlow(const Time& t)
{
    return t.GetNanoSeconds();
}

void
LeanSimulatorImpl::NegativeDelay()
{
    NS_FATAL_ERROR("an event was scheduled with a negative delay");
}

void
LeanSimulatorImpl::Destroy()
{
    NS_LOG_FUNCTION(this);
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
LeanSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    NS_LOG_FUNCTION(this << schedulerFactory);
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
    m_window = dynamic_cast<WindowScheduler*>(PeekPointer(scheduler));
}

uint32_t
LeanSimulatorImpl::GetSystemId() const
{
    return 0;
}

bool
LeanSimulatorImpl::IsFinished() const
{
    return m_events->IsEmpty() || m_stop;
}

template <typename S>
void
LeanSimulatorImpl::RunOn(S& events)
{
    while (!m_stop && !events.IsEmpty())
    {
        const Scheduler::Event next = events.RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        m_unscheduledEvents--;
        m_eventCount++;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
    }
}

void
LeanSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_stop = false;
    if (m_window != nullptr)
    {
        RunOn(*m_window); // direct calls: WindowScheduler is final
    }
    else
    {
        RunOn(*m_events);
    }
    // stopped for lack of events: none was lost on the way
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
LeanSimulatorImpl::Stop()
{
    NS_LOG_FUNCTION(this);
    m_stop = true;
}

#if RDMACC_NS3_VERSION >= 339
EventId
LeanSimulatorImpl::Stop(const Time& delay)
{
    NS_LOG_FUNCTION(this << delay);
    return Simulator::Schedule(delay, &Simulator::Stop);
}
#else
void
LeanSimulatorImpl::Stop(const Time& delay)
{
    NS_LOG_FUNCTION(this << delay);
    Simulator::Schedule(delay, &Simulator::Stop);
}
#endif

EventId
LeanSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    const uint64_t ts = m_currentTs + CheckedDelay(delay);
    const uint32_t uid = Insert(ts, m_currentContext, event);
    return EventId(Ptr<EventImpl>(event), ts, m_currentContext, uid);
}

void
LeanSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    ScheduleWithContextInline(context, delay, event);
}

EventId
LeanSimulatorImpl::ScheduleNow(EventImpl* event)
{
    const uint32_t uid = Insert(m_currentTs, m_currentContext, event);
    return EventId(Ptr<EventImpl>(event), m_currentTs, m_currentContext, uid);
}

EventId
LeanSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    // the EventId keeps the simulator's reference; a destroy event takes a uid too
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    m_uid++;
    return id;
}

Time
LeanSimulatorImpl::Now() const
{
    return TimeStep(static_cast<int64_t>(m_currentTs));
}

Time
LeanSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    if (IsExpired(id))
    {
        return TimeStep(0);
    }
    return TimeStep(static_cast<int64_t>(id.GetTs() - m_currentTs));
}

void
LeanSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    // the queue's reference
    event.impl->Unref();
    m_unscheduledEvents--;
}

void
LeanSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
LeanSimulatorImpl::IsExpired(const EventId& id) const
{
    EventImpl* impl = id.PeekEventImpl();
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        if (impl == nullptr || impl->IsCancelled())
        {
            return true;
        }
        for (const EventId& d : m_destroyEvents)
        {
            if (d == id)
            {
                return false;
            }
        }
        return true;
    }
    return impl == nullptr || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) || impl->IsCancelled();
}

Time
LeanSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
LeanSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
LeanSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
