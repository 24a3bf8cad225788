/*
 * rdma-cc: the accounting of an incast of raw line-rate senders (ns3::RawHost, no congestion
 * control) on one switch: where every payload byte is while the run goes (it stops the run when
 * every byte is delivered or dropped), and the figures and invariants at its end (pfc-incast).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RAW_INCAST_H
#define RAW_INCAST_H

#include "fabric-helper.h"
#include "rdma-cc-output.h"

#include "ns3/nstime.h"
#include "ns3/raw-host.h"
#include "ns3/switch-node.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Where every payload byte of the incast is: delivered, dropped, or still on its way. The run
 * ends (Simulator::Stop) when every byte is delivered or dropped.
 */
struct IncastLedger
{
    uint64_t total = 0;     //!< payload bytes the senders send
    uint64_t delivered = 0; //!< payload bytes the receiver got
    uint64_t dropped = 0;   //!< payload bytes of data frames the switch dropped
    bool complete = false;  //!< every byte delivered or dropped

    /// Counts the bytes `receiver` gets and the data frames `sw` drops.
    void Connect(Ptr<RawHost> receiver, Ptr<SwitchNode> sw);

  private:
    void Check();
    static void OnRx(IncastLedger* self, uint32_t src, uint64_t payload);
    static void OnDrop(IncastLedger* self, Ptr<const Packet> p, uint32_t, uint8_t, const char*);
};

/**
 * \ingroup rdma-cc
 * The figures of a raw incast at its end: host 0 receives, hosts 1..N send, at priority
 * `prio`, through the single switch of the fabric.
 */
struct RawIncastFigures
{
    uint64_t sent = 0;        //!< payload bytes the senders sent
    uint64_t rx = 0;          //!< payload bytes the receiver got
    Time window;              //!< the receive window: the first frame's arrival to the last's
    uint64_t windowBytes = 0; //!< bytes received within it (after the first frame)
    double goodput = 0;       //!< bit/s over the receive window
    double wireLimit = 0;     //!< payload bit/s the receiver's link carries at most
    uint64_t drops = 0;       //!< frames the switch dropped
    std::vector<std::pair<std::string, uint64_t>> dropList; //!< by reason
    Time pausedMax;                                         //!< the longest a sender was paused
    Time pausedSum;                                         //!< every sender's paused time
    uint64_t pauseRx = 0;                                   //!< PAUSE frames the senders received
    uint64_t queueMax = 0;        //!< the receiver's port queue, most bytes
    uint64_t headroom = 0;        //!< headroom of a sender's port
    uint64_t marked = 0;          //!< ECN marks
    uint64_t bufferMax = 0;       //!< the switch buffer, most bytes
    uint64_t headroomMaxUsed = 0; //!< headroom, most bytes used
    uint64_t occupancy = 0;       //!< bytes left in the switch at the end
    std::string accounting;       //!< the switch's accounting failure ("": none)

    /**
     * \return the figures of the incast on `fabric` (hosts `raw`, `senders` of them) whose
     *         frames carry `payload` bytes on links of `rateBps`
     */
    static RawIncastFigures Of(const Fabric& fabric,
                               const std::vector<Ptr<RawHost>>& raw,
                               uint32_t senders,
                               uint8_t prio,
                               uint64_t rateBps,
                               uint64_t payload);
};

/**
 * \ingroup rdma-cc
 * \return the invariants of a raw incast: switch accounting, every byte delivered or dropped
 *         (unless `limit`, its text, cut the run), bytes conserved, no drop when `lossless`,
 *         goodput within the wire limit, an empty switch at the end
 */
Invariants CheckRawIncast(const RawIncastFigures& f,
                          const IncastLedger& ledger,
                          bool lossless,
                          const std::string& limit);

} // namespace rdmacc
} // namespace ns3

#endif /* RAW_INCAST_H */
