/*
 * rdma-cc: cancelling an event under every event order.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_CANCEL_EVENT_H
#define RDMA_CC_CANCEL_EVENT_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"

namespace ns3
{
namespace rdmacc
{

/**
 * Cancels `id`'s event, whatever ns-3 thinks of it. ns-3's EventId::Cancel and
 * Simulator::Remove do nothing for an event Simulator::IsExpired calls expired: an earlier
 * time stamp, or the running event's time stamp with a uid at or below the running event's.
 * That holds in ns-3's order (time, uid); under the canonical order (time, creator, sequence:
 * `--eventOrder=canonical` and every MPI run) an event of the running time stamp with a lower
 * uid can still be queued, and ns-3 skipped its Cancel, so it ran (seen: RCM's switch timer in
 * a k = 4 fat tree, twice in 300 us). Setting the EventImpl's flag is what ns-3's Cancel does;
 * on an event that already ran it changes nothing (the EventId keeps the EventImpl alive).
 *
 * \param id the event (a default EventId: nothing)
 */
inline void
CancelEvent(const EventId& id)
{
    if (EventImpl* e = id.PeekEventImpl())
    {
        e->Cancel();
    }
}

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_CANCEL_EVENT_H */
