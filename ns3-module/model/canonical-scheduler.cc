/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "canonical-scheduler.h"

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CanonicalScheduler");
NS_OBJECT_ENSURE_REGISTERED(CanonicalScheduler);

namespace
{
/// the CanonicalScheduler of the running simulator (ns-3 runs one simulator per process)
CanonicalScheduler* g_active = nullptr;

/// AddForeignType's types
std::vector<const std::type_info*>&
ForeignTypes()
{
    static std::vector<const std::type_info*> t;
    return t;
}
} // namespace

TypeId
CanonicalScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::CanonicalScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("RdmaCc")
                            .AddConstructor<CanonicalScheduler>();
    return tid;
}

CanonicalScheduler::CanonicalScheduler() :
    m_globalSeq(0),
    m_foreignSeq(0),
    m_curContext(Simulator::NO_CONTEXT),
    m_curForeign(false),
    m_haveKey(false),
    m_nextKey(0),
    m_foreignDepth(0),
    m_lastTs(UINT64_MAX),
    m_ties(0),
    m_typeCache{}
{
    g_active = this;
}

CanonicalScheduler::~CanonicalScheduler()
{
    if (g_active == this)
    {
        g_active = nullptr;
    }
}

uint64_t
CanonicalScheduler::NextKey(uint32_t context)
{
    // the creator: the running event's node; outside any node's event, the new event's node
    const uint32_t creator = m_curContext != Simulator::NO_CONTEXT ? m_curContext : context;
    if (creator == Simulator::NO_CONTEXT)
    {
        return uint64_t(GLOBAL) << 32 | m_globalSeq++;
    }
    if (creator >= m_seq.size())
    {
        m_seq.resize(std::max<size_t>(creator + 1, m_seq.size() * 2), 0);
    }
    // a node's sequence wraps after 2^32 events it scheduled: still the same in every process
    return uint64_t(creator) << 32 | m_seq[creator]++;
}

bool
CanonicalScheduler::IsForeignType(const EventImpl* impl)
{
    const auto& types = ForeignTypes();
    if (types.empty())
    {
        return false;
    }
    // the first word of a polymorphic object is its vtable pointer (Itanium C++ ABI); a cache
    // miss is decided by typeid, which also compares types made in other shared libraries
    const void* vptr = *reinterpret_cast<const void* const*>(impl);
    TypeCacheLine& line = m_typeCache[(reinterpret_cast<uintptr_t>(vptr) >> 4) & 15];
    if (line.vptr != vptr)
    {
        const std::type_info& t = typeid(*impl);
        line.vptr = vptr;
        line.foreign = std::any_of(
            types.begin(), types.end(), [&t](const std::type_info* f) { return *f == t; });
    }
    return line.foreign;
}

void
CanonicalScheduler::Insert(const Event& ev)
{
    Entry e{ev.key.m_ts, 0, ev.impl, ev.key.m_uid, ev.key.m_context};
    if (m_haveKey)
    {
        e.key = m_nextKey;
        m_haveKey = false;
    }
    else if (m_curForeign || m_foreignDepth > 0 || IsForeignType(ev.impl))
    {
        e.key = uint64_t(FOREIGN) << 32 | m_foreignSeq++;
    }
    else
    {
        e.key = NextKey(ev.key.m_context);
    }
    m_events.Insert(e);
}

bool
CanonicalScheduler::IsEmpty() const
{
    return m_events.Empty();
}

Scheduler::Event
CanonicalScheduler::ToEvent(const Entry& e)
{
    Event ev;
    ev.impl = e.impl;
    ev.key.m_ts = e.ts;
    ev.key.m_uid = e.uid;
    ev.key.m_context = e.context;
    return ev;
}

Scheduler::Event
CanonicalScheduler::PeekNext() const
{
    NS_ASSERT(!m_events.Empty());
    return ToEvent(m_events.Front());
}

Scheduler::Event
CanonicalScheduler::RemoveNext()
{
    NS_ASSERT(!m_events.Empty());
    const Entry e = m_events.PopFront();
    // the event the simulator runs now: what it schedules is keyed by its node
    m_curContext = e.context;
    m_curForeign = (e.key >> 32) == FOREIGN;
    m_ties += e.ts == m_lastTs;
    m_lastTs = e.ts;
    return ToEvent(e);
}

void
CanonicalScheduler::Remove(const Event& ev)
{
    const bool removed =
        m_events.Remove(ev.key.m_ts, [&ev](const Entry& e) { return e.uid == ev.key.m_uid; });
    NS_ASSERT_MSG(removed, "removing an event not in the scheduler");
    (void)removed;
}

bool
CanonicalScheduler::IsActive()
{
    return g_active != nullptr;
}

uint64_t
CanonicalScheduler::TakeKey(uint32_t context)
{
    return g_active != nullptr ? g_active->NextKey(context) : 0;
}

void
CanonicalScheduler::UseKey(uint64_t key)
{
    if (g_active != nullptr)
    {
        g_active->m_haveKey = true;
        g_active->m_nextKey = key;
    }
}

void
CanonicalScheduler::BeginForeign()
{
    if (g_active != nullptr)
    {
        g_active->m_foreignDepth++;
    }
}

void
CanonicalScheduler::EndForeign()
{
    if (g_active != nullptr)
    {
        NS_ASSERT(g_active->m_foreignDepth > 0);
        g_active->m_foreignDepth--;
    }
}

void
CanonicalScheduler::AddForeignType(const std::type_info& type)
{
    auto& types = ForeignTypes();
    if (std::find_if(types.begin(),
                     types.end(),
                     [&type](const std::type_info* t) { return *t == type; }) == types.end())
    {
        types.push_back(&type);
    }
    if (g_active != nullptr)
    {
        for (auto& line : g_active->m_typeCache)
        {
            line = TypeCacheLine{nullptr, false};
        }
    }
}

bool
CanonicalScheduler::RunningForeign()
{
    return g_active != nullptr && g_active->m_curForeign;
}

uint64_t
CanonicalScheduler::TiesRun()
{
    return g_active != nullptr ? g_active->m_ties : 0;
}

} // namespace ns3
