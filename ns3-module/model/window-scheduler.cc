/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "window-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WindowScheduler");
NS_OBJECT_ENSURE_REGISTERED(WindowScheduler);

namespace
{
/// the deferred heap's order: `a` runs after `b` (time, the slot's last uid, its number)
template <typename D>
bool
DeferredLater(const D& a, const D& b)
{
    if (a.ev.key.m_ts != b.ev.key.m_ts)
    {
        return a.ev.key.m_ts > b.ev.key.m_ts;
    }
    if (a.ev.key.m_uid != b.ev.key.m_uid)
    {
        return a.ev.key.m_uid > b.ev.key.m_uid;
    }
    return a.number > b.number;
}
} // namespace

WindowScheduler* WindowScheduler::s_running = nullptr;

TypeId
WindowScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WindowScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<WindowScheduler>();
    return tid;
}

WindowScheduler::WindowScheduler() :
    m_lastUid(0),
    m_reserved(0),
    m_insertAt(false)
{
    static_assert(rdmacc::CalendarQueue<Event, Order>::SHIFT == WINDOW_SHIFT, "one window size");
}

WindowScheduler::~WindowScheduler()
{
    if (s_running == this)
    {
        s_running = nullptr;
    }
}

WindowScheduler*
WindowScheduler::Running()
{
    return s_running;
}

WindowScheduler::Slot
WindowScheduler::Reserve()
{
    return Slot{m_lastUid, ++m_reserved};
}

void
WindowScheduler::InsertNextAt(const Slot& slot)
{
    m_insertAt = true;
    m_slot = slot;
}

void
WindowScheduler::InsertDeferred(const Event& ev)
{
    m_insertAt = false;
    Deferred d{ev, m_slot.number};
    d.ev.key.m_uid = m_slot.lastUid;
    m_deferred.push_back(d);
    std::push_heap(m_deferred.begin(), m_deferred.end(), DeferredLater<Deferred>);
}

bool
WindowScheduler::IsEmpty() const
{
    return m_events.Empty() && m_deferred.empty();
}

bool
WindowScheduler::DeferredFirst() const
{
    if (m_deferred.empty())
    {
        return false;
    }
    if (m_events.Empty())
    {
        return true;
    }
    // the calendar's front is the earliest of its events; an event with the slot's last uid
    // was inserted before the reservation and runs first
    const EventKey& d = m_deferred.front().ev.key;
    const EventKey& w = m_events.Front().key;
    return d.m_ts < w.m_ts || (d.m_ts == w.m_ts && d.m_uid < w.m_uid);
}

Scheduler::Event
WindowScheduler::PeekNext() const
{
    if (DeferredFirst())
    {
        return m_deferred.front().ev;
    }
    NS_ASSERT(!m_events.Empty());
    return m_events.Front();
}

Scheduler::Event
WindowScheduler::RemoveNext()
{
    s_running = this;
    // the common cases without the call: no deferred event, or the first one in a later
    // window than the calendar's events
    if (!m_deferred.empty() && !m_events.SurelyBefore(m_deferred.front().ev.key.m_ts) &&
        DeferredFirst())
    {
        std::pop_heap(m_deferred.begin(), m_deferred.end(), DeferredLater<Deferred>);
        const Event ev = m_deferred.back().ev;
        m_deferred.pop_back();
        return ev;
    }
    NS_ASSERT(!m_events.Empty());
    return m_events.PopFront();
}

void
WindowScheduler::Remove(const Event& ev)
{
    // a deferred event's key carries another uid than its EventId: found by its EventImpl
    for (auto it = m_deferred.begin(); it != m_deferred.end(); ++it)
    {
        if (it->ev.impl == ev.impl)
        {
            m_deferred.erase(it);
            std::make_heap(m_deferred.begin(), m_deferred.end(), DeferredLater<Deferred>);
            return;
        }
    }
    m_events.Remove(ev.key.m_ts, [&ev](const Event& e) { return e.key.m_uid == ev.key.m_uid; });
}

} // namespace ns3
