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
/// the heap's order: `a` runs after `b` (ns-3's key: time, then uid)
struct LaterThan
{
    bool
    operator()(const Scheduler::Event& a, const Scheduler::Event& b) const
    {
        return a.key > b.key;
    }
};
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
    m_haveWindow(false),
    m_window(0),
    m_last(m_buckets.end()),
    m_lastUid(0),
    m_reserved(0),
    m_insertAt(false)
{
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
WindowScheduler::Insert(const Event& ev)
{
    if (m_insertAt)
    {
        m_insertAt = false;
        Deferred d{ev, m_slot.number};
        d.ev.key.m_uid = m_slot.lastUid;
        m_deferred.push_back(d);
        std::push_heap(m_deferred.begin(), m_deferred.end(), DeferredLater<Deferred>);
        return;
    }
    m_lastUid = ev.key.m_uid;
    const uint64_t window = ev.key.m_ts >> WINDOW_SHIFT;
    // an event is never earlier than the running one, so never in a window before the heap's
    if (m_haveWindow && window <= m_window)
    {
        m_heap.push_back(ev);
        std::push_heap(m_heap.begin(), m_heap.end(), LaterThan());
        return;
    }
    if (m_last == m_buckets.end() || m_last->first != window)
    {
        m_last = m_buckets.try_emplace(window).first;
    }
    m_last->second.push_back(ev);
}

void
WindowScheduler::TakeBucket() const
{
    if (!m_heap.empty() || m_buckets.empty())
    {
        return;
    }
    auto first = m_buckets.begin();
    m_haveWindow = true;
    m_window = first->first;
    // the bucket's vector becomes the heap (the empty heap's is freed with the bucket: a
    // vector reused for another bucket would keep the largest capacity it ever had)
    m_heap.swap(first->second);
    if (m_last == first)
    {
        m_last = m_buckets.end();
    }
    m_buckets.erase(first);
    std::make_heap(m_heap.begin(), m_heap.end(), LaterThan());
}

bool
WindowScheduler::IsEmpty() const
{
    return m_heap.empty() && m_buckets.empty() && m_deferred.empty();
}

bool
WindowScheduler::DeferredFirst() const
{
    TakeBucket();
    if (m_deferred.empty())
    {
        return false;
    }
    if (m_heap.empty())
    {
        return true;
    }
    // the window heap's front is the earliest of the windows' events; an event with the
    // slot's last uid was inserted before the reservation and runs first
    const EventKey& d = m_deferred.front().ev.key;
    const EventKey& w = m_heap.front().key;
    return d.m_ts < w.m_ts || (d.m_ts == w.m_ts && d.m_uid < w.m_uid);
}

Scheduler::Event
WindowScheduler::PeekNext() const
{
    if (DeferredFirst())
    {
        return m_deferred.front().ev;
    }
    NS_ASSERT(!m_heap.empty());
    return m_heap.front();
}

Scheduler::Event
WindowScheduler::RemoveNext()
{
    s_running = this;
    if (DeferredFirst())
    {
        std::pop_heap(m_deferred.begin(), m_deferred.end(), DeferredLater<Deferred>);
        const Event ev = m_deferred.back().ev;
        m_deferred.pop_back();
        return ev;
    }
    NS_ASSERT(!m_heap.empty());
    std::pop_heap(m_heap.begin(), m_heap.end(), LaterThan());
    const Event ev = m_heap.back();
    m_heap.pop_back();
    return ev;
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
    const auto same = [&ev](const Event& e)
    {
        return e.key.m_uid == ev.key.m_uid;
    };
    const uint64_t window = ev.key.m_ts >> WINDOW_SHIFT;
    if (m_haveWindow && window <= m_window)
    {
        auto it = std::find_if(m_heap.begin(), m_heap.end(), same);
        if (it != m_heap.end())
        {
            m_heap.erase(it);
            std::make_heap(m_heap.begin(), m_heap.end(), LaterThan());
        }
        return;
    }
    auto b = m_buckets.find(window);
    if (b == m_buckets.end())
    {
        return;
    }
    auto& v = b->second;
    auto it = std::find_if(v.begin(), v.end(), same);
    if (it == v.end())
    {
        return;
    }
    // a bucket is unsorted: the last entry takes the removed one's place
    *it = v.back();
    v.pop_back();
    if (v.empty())
    {
        if (m_last == b)
        {
            m_last = m_buckets.end();
        }
        m_buckets.erase(b);
    }
}

} // namespace ns3
