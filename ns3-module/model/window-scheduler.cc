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
} // namespace

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
    m_last(m_buckets.end())
{
}

WindowScheduler::~WindowScheduler() = default;

void
WindowScheduler::Insert(const Event& ev)
{
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
    return m_heap.empty() && m_buckets.empty();
}

Scheduler::Event
WindowScheduler::PeekNext() const
{
    TakeBucket();
    NS_ASSERT(!m_heap.empty());
    return m_heap.front();
}

Scheduler::Event
WindowScheduler::RemoveNext()
{
    TakeBucket();
    NS_ASSERT(!m_heap.empty());
    std::pop_heap(m_heap.begin(), m_heap.end(), LaterThan());
    const Event ev = m_heap.back();
    m_heap.pop_back();
    return ev;
}

void
WindowScheduler::Remove(const Event& ev)
{
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
