/*
 * rdma-cc: measures the cost of one call across the cxx bridge for the per-packet calls.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BRIDGE_BENCH_H
#define BRIDGE_BENCH_H

#include <cstdint>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Wall-clock nanoseconds per call of each per-packet bridge entry point, measured over `n`
 * calls with plain arguments (no ns-3 packet work around them).
 */
struct BridgeCost
{
    double redEnqueueNs; //!< RedEcn::on_enqueue (queue disc verdict)
    double switchNs;     //!< SwitchCore::on_arrival + on_departure (one packet through a switch)
    double senderNs;     //!< Sender::poll + Receiver::on_data + Sender::on_ack (one data packet)
    double schedNs;      //!< EgressScheduler::enqueue + next (one frame through a port)
    uint64_t checksum;   //!< folds the answers so the calls cannot be optimised away
};

/// Runs the measurement with `n` calls of each kind.
BridgeCost MeasureBridgeCost(uint64_t n);

} // namespace rdmacc
} // namespace ns3

#endif /* BRIDGE_BENCH_H */
