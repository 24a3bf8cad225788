/*
 * rdma-cc: the event queue of WindowScheduler and CanonicalScheduler: a calendar of the current
 * time window (a list per time step) and unsorted buckets of later windows.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMACC_CALENDAR_QUEUE_H
#define RDMACC_CALENDAR_QUEUE_H

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 *
 * Entries (events) in the order of (time step, then T::Before). Time is cut into windows of
 * 2^SHIFT time steps. The current window keeps one list per time step, sorted by T::Before
 * (an entry that is not before the list's last one is appended: entries that come in that
 * order cost O(1)), and a bit per time step says which lists hold entries: the first entry is
 * the head of the first non-empty list at or after a cursor (find-first-set over 64 steps at a
 * time). An entry of a later window is appended, unsorted, to its window's bucket (a vector, in
 * insertion order); when the current window runs empty the earliest bucket is spread over the
 * lists, in its order. An entry earlier than the current window (possible only after a peek
 * took a window ahead of the running time: a distributed simulator's PeekNext, then an event
 * from another process) first puts the window back into its bucket.
 *
 * No allocation per entry: list entries come from a pool of nodes that grows to the largest
 * window; a bucket's vector grows by doubling.
 *
 * T: `static uint64_t Ts(const E&)` (the time step), `static bool Before(const E&, const E&)`
 * (a strict order of the entries of one time step), `static constexpr bool APPEND` (true:
 * entries come in Before order, each list is only appended to) and `static void Prefetch(const
 * E&)`: PopFront calls it with the entry that follows in the same time step, most likely the
 * next to be taken, so that its event's memory is fetched while the one taken runs (a hint,
 * no effect on the order).
 */
template <typename E, typename T>
class CalendarQueue
{
  public:
    /// a window is 2^SHIFT time steps (4.096 us at 1 ns: a few link hops; a timer of 1 ms or
    /// more is hundreds of windows away)
    static constexpr unsigned SHIFT = 12;
    /// time steps (lists) in a window
    static constexpr uint32_t STEPS = 1u << SHIFT;

    CalendarQueue() :
        m_head(STEPS, NIL),
        m_tail(STEPS, NIL),
        m_bits(STEPS / 64, 0),
        m_last(m_buckets.end())
    {
    }

    /// \return whether no entry is queued
    bool
    Empty() const
    {
        return m_inWindow == 0 && m_buckets.empty();
    }

    /**
     * A test that costs no search: the lists hold an entry and time step `ts` is in a later
     * window than theirs, so the first entry is earlier than `ts`.
     * \param ts a time step
     * \return true: the first entry is earlier than `ts`; false: not known
     */
    bool
    SurelyBefore(uint64_t ts) const
    {
        return m_inWindow != 0 && (ts >> SHIFT) > m_window;
    }

    /**
     * Queues an entry.
     * \param e the entry
     */
    void
    Insert(const E& e)
    {
        const uint64_t window = T::Ts(e) >> SHIFT;
        if (m_haveWindow && window == m_window)
        {
            Push(e);
            return;
        }
        InsertLater(e, window);
    }

    /// \return the first entry (the queue is not empty)
    const E&
    Front()
    {
        if (m_inWindow == 0)
        {
            TakeBucket();
        }
        return m_nodes[m_head[FirstStep()]].e;
    }

    /// \return the first entry, removed (the queue is not empty)
    E
    PopFront()
    {
        if (m_inWindow == 0)
        {
            TakeBucket();
        }
        const uint32_t step = FirstStep();
        const uint32_t n = m_head[step];
        Node& node = m_nodes[n];
        m_head[step] = node.next;
        if (node.next == NIL)
        {
            // its tail stays stale: a list is only read through its head
            m_bits[step >> 6] &= ~(uint64_t{1} << (step & 63));
        }
        else
        {
            // the next entry of this step, most likely the next to run: its event's memory
            // (scheduled a while ago, out of the cache in a loaded fabric) is fetched while
            // this one runs
            T::Prefetch(m_nodes[node.next].e);
        }
        node.next = m_free;
        m_free = n;
        m_inWindow--;
        return node.e;
    }

    /**
     * Removes the first entry of time step `ts` that `match` accepts (linear in its list or
     * bucket; the others keep their order).
     * \param ts its time step
     * \param match a predicate
     * \return whether one was removed
     */
    template <typename M>
    bool
    Remove(uint64_t ts, M match)
    {
        const uint64_t window = ts >> SHIFT;
        if (m_haveWindow && window == m_window)
        {
            const uint32_t step = static_cast<uint32_t>(ts) & (STEPS - 1);
            uint32_t prev = NIL;
            for (uint32_t n = m_head[step]; n != NIL; prev = n, n = m_nodes[n].next)
            {
                if (!match(m_nodes[n].e))
                {
                    continue;
                }
                const uint32_t next = m_nodes[n].next;
                (prev == NIL ? m_head[step] : m_nodes[prev].next) = next;
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
                return true;
            }
            return false;
        }
        auto b = m_buckets.find(window);
        if (b == m_buckets.end())
        {
            return false;
        }
        std::vector<E>& v = b->second;
        for (auto it = v.begin(); it != v.end(); ++it)
        {
            if (match(*it))
            {
                v.erase(it); // in order: the lists are built from it
                if (v.empty())
                {
                    if (m_last == b)
                    {
                        m_last = m_buckets.end();
                    }
                    m_buckets.erase(b);
                }
                return true;
            }
        }
        return false;
    }

  private:
    /// no node
    static constexpr uint32_t NIL = UINT32_MAX;

    /// a list entry
    struct Node
    {
        E e;           //!< the entry
        uint32_t next; //!< the next entry of its list, or of the free list (NIL: none)
    };

    /// Puts an entry of the current window in its time step's list
    void
    Push(const E& e)
    {
        uint32_t n = m_free;
        if (n != NIL)
        {
            m_free = m_nodes[n].next;
            m_nodes[n] = Node{e, NIL};
        }
        else
        {
            n = static_cast<uint32_t>(m_nodes.size());
            m_nodes.push_back(Node{e, NIL});
        }
        const uint32_t step = static_cast<uint32_t>(T::Ts(e)) & (STEPS - 1);
        if (m_head[step] == NIL)
        {
            m_head[step] = n;
            m_tail[step] = n;
            m_bits[step >> 6] |= uint64_t{1} << (step & 63);
        }
        else if (T::APPEND || !T::Before(e, m_nodes[m_tail[step]].e))
        {
            m_nodes[m_tail[step]].next = n;
            m_tail[step] = n;
        }
        else
        {
            // before the last entry: walk to its place
            uint32_t prev = NIL;
            uint32_t cur = m_head[step];
            while (!T::Before(e, m_nodes[cur].e))
            {
                prev = cur;
                cur = m_nodes[cur].next;
            }
            m_nodes[n].next = cur;
            (prev == NIL ? m_head[step] : m_nodes[prev].next) = n;
        }
        // a peek may have moved the cursor past the running time step
        if (step < m_cursor)
        {
            m_cursor = step;
        }
        m_inWindow++;
    }

    /// \return the first non-empty list (the window holds an entry)
    uint32_t
    FirstStep()
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

    /// Spreads the earliest bucket over the lists, when the window is empty
    // out of line (as InsertLater): once per window, and the per-entry paths that inlined it
    // saved and restored every register it needs
    [[gnu::noinline]] void
    TakeBucket()
    {
        if (m_inWindow != 0 || m_buckets.empty())
        {
            return;
        }
        auto first = m_buckets.begin();
        m_haveWindow = true;
        m_window = first->first;
        m_cursor = STEPS - 1;
        for (const E& e : first->second)
        {
            Push(e);
        }
        if (m_last == first)
        {
            m_last = m_buckets.end();
        }
        m_buckets.erase(first);
    }

    /// Insert's other case: an entry of another window than the lists' (or before the first)
    [[gnu::noinline]] void
    InsertLater(const E& e, uint64_t window)
    {
        if (m_haveWindow && window < m_window)
        {
            ReturnWindow();
        }
        if (m_last == m_buckets.end() || m_last->first != window)
        {
            m_last = m_buckets.try_emplace(window).first;
        }
        m_last->second.push_back(e);
    }

    /// Puts the window's entries back into its bucket, in order
    void
    ReturnWindow()
    {
        std::vector<E>& v = m_buckets[m_window];
        for (uint32_t word = 0; word < STEPS / 64; word++)
        {
            for (uint64_t bits = m_bits[word]; bits != 0; bits &= bits - 1)
            {
                const uint32_t step = (word << 6) | static_cast<uint32_t>(__builtin_ctzll(bits));
                for (uint32_t n = m_head[step]; n != NIL;)
                {
                    v.push_back(m_nodes[n].e);
                    const uint32_t next = m_nodes[n].next;
                    m_nodes[n].next = m_free;
                    m_free = n;
                    n = next;
                }
                m_head[step] = NIL;
                m_tail[step] = NIL;
            }
            m_bits[word] = 0;
        }
        m_inWindow = 0;
        m_haveWindow = false;
        m_last = m_buckets.end();
    }

    std::vector<Node> m_nodes;    //!< the lists' entries (a pool)
    uint32_t m_free = NIL;        //!< the first free node (NIL: none)
    std::vector<uint32_t> m_head; //!< per time step of the window: its list's head
    std::vector<uint32_t> m_tail; //!< per time step of the window: its list's tail
    std::vector<uint64_t> m_bits; //!< per time step: its list is not empty
    uint32_t m_cursor = 0;        //!< every list before this time step is empty
    uint64_t m_inWindow = 0;      //!< entries in the lists
    /// the later windows' entries: window number (time >> SHIFT) -> its entries, in insertion
    /// order
    std::map<uint64_t, std::vector<E>> m_buckets;
    bool m_haveWindow = false; //!< a window was taken
    uint64_t m_window = 0;     //!< the lists' window number
    /// the bucket of the last append (m_buckets.end(): none)
    typename std::map<uint64_t, std::vector<E>>::iterator m_last;
};

} // namespace rdmacc
} // namespace ns3

#endif /* RDMACC_CALENDAR_QUEUE_H */
