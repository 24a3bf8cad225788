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
    m_free(NIL),
    m_head(STEPS, NIL),
    m_tail(STEPS, NIL),
    m_bits(STEPS / 64, 0),
    m_cursor(0),
    m_inWindow(0),
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
    if (m_haveWindow && window == m_window)
    {
        Push(ev);
        return;
    }
    if (m_haveWindow && window < m_window)
    {
        // earlier than the window a peek took (a distributed run's PeekNext, then an event
        // from another process): the window goes back to its bucket
        ReturnWindow();
    }
    if (m_last == m_buckets.end() || m_last->first != window)
    {
        m_last = m_buckets.try_emplace(window).first;
    }
    m_last->second.push_back(ev);
}

void
WindowScheduler::Push(const Event& ev) const
{
    uint32_t n = m_free;
    if (n != NIL)
    {
        m_free = m_nodes[n].next;
        m_nodes[n] = Node{ev, NIL};
    }
    else
    {
        n = static_cast<uint32_t>(m_nodes.size());
        m_nodes.push_back(Node{ev, NIL});
    }
    const uint32_t step = static_cast<uint32_t>(ev.key.m_ts) & (STEPS - 1);
    if (m_head[step] == NIL)
    {
        m_head[step] = n;
        m_bits[step >> 6] |= uint64_t{1} << (step & 63);
    }
    else
    {
        m_nodes[m_tail[step]].next = n;
    }
    m_tail[step] = n;
    // a peek may have moved the cursor past the running event's time step
    m_cursor = std::min(m_cursor, step);
    m_inWindow++;
}

void
WindowScheduler::ReturnWindow()
{
    std::vector<Event>& v = m_buckets[m_window];
    for (uint32_t step = 0; step < STEPS; step++)
    {
        for (uint32_t n = m_head[step]; n != NIL;)
        {
            v.push_back(m_nodes[n].ev);
            const uint32_t next = m_nodes[n].next;
            m_nodes[n].next = m_free;
            m_free = n;
            n = next;
        }
        m_head[step] = NIL;
        m_tail[step] = NIL;
    }
    std::fill(m_bits.begin(), m_bits.end(), 0);
    m_inWindow = 0;
    m_haveWindow = false;
    m_last = m_buckets.end();
}

uint32_t
WindowScheduler::FirstStep() const
{
    uint32_t word = m_cursor >> 6;
    uint64_t bits = m_bits[word] & (~uint64_t{0} << (m_cursor & 63));
    while (bits == 0)
    {
        bits = m_bits[++word];
    }
    m_cursor = (word << 6) | static_cast<uint32_t>(__builtin_ctzll(bits));
    return m_cursor;
}

void
WindowScheduler::TakeBucket() const
{
    if (m_inWindow != 0 || m_buckets.empty())
    {
        return;
    }
    auto first = m_buckets.begin();
    m_haveWindow = true;
    m_window = first->first;
    m_cursor = STEPS - 1;
    // in insertion order: each time step's list in uid order
    for (const Event& ev : first->second)
    {
        Push(ev);
    }
    if (m_last == first)
    {
        m_last = m_buckets.end();
    }
    m_buckets.erase(first);
}

bool
WindowScheduler::IsEmpty() const
{
    return m_inWindow == 0 && m_buckets.empty() && m_deferred.empty();
}

bool
WindowScheduler::DeferredFirst() const
{
    TakeBucket();
    if (m_deferred.empty())
    {
        return false;
    }
    if (m_inWindow == 0)
    {
        return true;
    }
    // the window's first list's head is the earliest of the windows' events; an event with
    // the slot's last uid was inserted before the reservation and runs first
    const EventKey& d = m_deferred.front().ev.key;
    const EventKey& w = m_nodes[m_head[FirstStep()]].ev.key;
    return d.m_ts < w.m_ts || (d.m_ts == w.m_ts && d.m_uid < w.m_uid);
}

Scheduler::Event
WindowScheduler::PeekNext() const
{
    if (DeferredFirst())
    {
        return m_deferred.front().ev;
    }
    NS_ASSERT(m_inWindow != 0);
    return m_nodes[m_head[FirstStep()]].ev;
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
    NS_ASSERT(m_inWindow != 0);
    const uint32_t step = FirstStep();
    const uint32_t n = m_head[step];
    Node& node = m_nodes[n];
    m_head[step] = node.next;
    if (node.next == NIL)
    {
        m_bits[step >> 6] &= ~(uint64_t{1} << (step & 63));
    }
    node.next = m_free;
    m_free = n;
    m_inWindow--;
    return node.ev;
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
    if (m_haveWindow && window == m_window)
    {
        const uint32_t step = static_cast<uint32_t>(ev.key.m_ts) & (STEPS - 1);
        uint32_t prev = NIL;
        for (uint32_t n = m_head[step]; n != NIL; prev = n, n = m_nodes[n].next)
        {
            if (m_nodes[n].ev.key.m_uid != ev.key.m_uid)
            {
                continue;
            }
            const uint32_t next = m_nodes[n].next;
            if (prev == NIL)
            {
                m_head[step] = next;
            }
            else
            {
                m_nodes[prev].next = next;
            }
            if (next == NIL)
            {
                m_tail[step] = prev;
            }
            if (m_head[step] == NIL)
            {
                m_bits[step >> 6] &= ~(uint64_t{1} << (step & 63));
            }
            m_nodes[n].next = m_free;
            m_free = n;
            m_inWindow--;
            return;
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
    // a bucket keeps insertion order (its lists will be in uid order)
    v.erase(it);
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
