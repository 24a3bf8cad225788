/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "raw-incast.h"

#include "ns3/roce-header.h"
#include "ns3/simulator.h"

#include "rdma-cc/src/switch.rs.h"

#include <algorithm>

namespace ns3
{
namespace rdmacc
{

void
IncastLedger::Connect(Ptr<RawHost> receiver, Ptr<SwitchNode> sw)
{
    receiver->TraceConnectWithoutContext("Rx", MakeBoundCallback(&IncastLedger::OnRx, this));
    sw->TraceConnectWithoutContext("Drop", MakeBoundCallback(&IncastLedger::OnDrop, this));
}

void
IncastLedger::Check()
{
    if (!complete && delivered + dropped >= total)
    {
        complete = true;
        Simulator::Stop();
    }
}

void
IncastLedger::OnRx(IncastLedger* self, uint32_t /* src */, uint64_t payload)
{
    self->delivered += payload;
    self->Check();
}

void
IncastLedger::OnDrop(IncastLedger* self, Ptr<const Packet> p, uint32_t, uint8_t, const char*)
{
    RoceHeader h;
    p->PeekHeader(h);
    if (h.kind == RoceHeader::DATA)
    {
        self->dropped += p->GetSize() - h.GetSerializedSize();
        self->Check();
    }
}

RawIncastFigures
RawIncastFigures::Of(const Fabric& fabric,
                     const std::vector<Ptr<RawHost>>& raw,
                     uint32_t senders,
                     uint8_t prio,
                     uint64_t rateBps,
                     uint64_t payload)
{
    RawIncastFigures f;
    const Ptr<SwitchNode> sw = fabric.switches[0];
    const auto c = sw->GetCounters();
    for (uint32_t i = 1; i <= senders; i++)
    {
        f.sent += raw[i]->GetFlows()[0].sent;
    }
    f.rx = raw[0]->GetReceivedBytes();
    // goodput at the receiver: the bytes after the first frame over the time from that frame's
    // arrival to the last one's (the first frame's own bytes arrived before the window opened)
    const auto [t0, t1] = raw[0]->GetReceiveWindow();
    f.window = t1 - t0;
    f.windowBytes = f.rx - raw[0]->GetFirstReceivedPayload();
    f.goodput =
        f.window.IsStrictlyPositive() ? double(f.windowBytes) * 8 / f.window.GetSeconds() : 0;
    f.wireLimit = PayloadLimitBps(rateBps, payload);
    f.drops = c.drops_total;
    f.dropList = sw->GetDropList();
    f.pausedMax = Seconds(0);
    f.pausedSum = Seconds(0);
    for (uint32_t i = 1; i <= senders; i++)
    {
        const Time t = fabric.hostDevices[i]->GetPausedTime(prio);
        f.pausedSum += t;
        f.pausedMax = std::max(f.pausedMax, t);
        f.pauseRx += fabric.hostDevices[i]->GetStats().pfcRx[prio];
    }
    f.queueMax = sw->GetMaxEgressBytes(0, prio);
    f.headroom = sw->GetHeadroom(1); // a sender's port (all alike)
    f.marked = c.marked;
    f.bufferMax = c.max_occupancy;
    f.headroomMaxUsed = c.max_headroom_used;
    f.occupancy = c.occupancy;
    f.accounting = sw->CheckInvariants();
    return f;
}

Invariants
CheckRawIncast(const RawIncastFigures& f,
               const IncastLedger& ledger,
               bool lossless,
               const std::string& limit)
{
    // every run checks its invariants; a failure is named and makes the exit status 3
    Invariants inv;
    inv.Check(f.accounting.empty(), "switch accounting: " + f.accounting);
    if (!ledger.complete)
    {
        inv.Fail(std::to_string(ledger.total - f.rx - ledger.dropped) + " of " +
                 std::to_string(ledger.total) + " B neither delivered nor dropped when " +
                 "--limit=" + limit + " ended the run");
    }
    if (f.rx != ledger.delivered || f.rx + ledger.dropped > f.sent || f.sent > ledger.total ||
        (ledger.complete && (f.sent != ledger.total || f.rx + ledger.dropped != f.sent)))
    {
        inv.Fail("bytes not conserved: sent " + std::to_string(f.sent) + " of " +
                 std::to_string(ledger.total) + " B, delivered " + std::to_string(f.rx) +
                 " B, dropped " + std::to_string(ledger.dropped) + " B");
    }
    if (lossless && f.drops > 0)
    {
        inv.Fail("the data priority is lossless (--pfc=1) but " + std::to_string(f.drops) +
                 " frames were dropped (" + DropCounts(f.dropList).substr(1) + ")");
    }
    // the clock has whole nanoseconds while serialisation is exact to the picosecond: the
    // window can be up to 1 ns short of the bytes' wire time
    if (f.window.IsStrictlyPositive() &&
        double(f.windowBytes) * 8 > f.wireLimit * (f.window + NanoSeconds(1)).GetSeconds())
    {
        inv.Fail("goodput " + std::to_string(f.goodput) + " bit/s above the wire limit " +
                 std::to_string(f.wireLimit) + " bit/s");
    }
    if (ledger.complete && f.occupancy != 0)
    {
        inv.Fail(std::to_string(f.occupancy) + " B left in the switch after the last byte");
    }
    return inv;
}

} // namespace rdmacc
} // namespace ns3
