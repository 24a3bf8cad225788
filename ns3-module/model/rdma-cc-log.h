/*
 * rdma-cc: the Rust crates' `log` records in ns-3's NS_LOG.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_LOG_H
#define RDMA_CC_LOG_H

#include <cstdint>
#include <limits>
#include <ostream>

namespace ns3
{

class LogComponent;

namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Routes the Rust crates' `log` records to NS_LOG and copies the levels now enabled on their
 * log components to Rust.
 *
 * One log component per crate: RdmaCcBridge (the cxx bridge), RdmaCcCore, RdmaCcSwitch,
 * RdmaCcTransport, RdmaCcLdcp, RdmaCcDcqcn, RdmaCcTimely, RdmaCcDctcp, RdmaCcHpcc,
 * RdmaCcSchemes, RdmaCcWorkload, RdmaCcRcm. They exist once the module is loaded, so NS_LOG and
 * LogComponentEnable treat them like any ns-3 component. The first call installs the route. Rust
 * keeps its own copy of the levels (so that a disabled record costs nothing and never crosses the
 * bridge); this call refreshes it. rdma-cc calls it wherever it builds Rust objects:
 * SwitchNode::Setup (FabricHelper::Finalize), RedEcnQueueDisc when the simulation initialises it,
 * RdmaNic when a flow starts. Levels set before those points (NS_LOG, or LogComponentEnable before
 * the topology is built or before Simulator::Run for queue discs and flows) take effect; a program
 * that changes these components' levels later calls this afterwards. It schedules no event and
 * costs a few bit tests and one bridge call.
 */
void SyncLog();

/**
 * \ingroup rdma-cc
 * A copy of whether a log component has any level on, read inline: NS_LOG_CONDITION of the
 * model's per-packet files (RdmaNic, QbbNetDevice, SwitchNode), so that a statement whose
 * component is off costs one load and a branch instead of a call to LogComponent::IsEnabled.
 * Made after its component (the file's g_log, which has read NS_LOG by then); SyncLog refreshes
 * every gate, as it refreshes Rust's copy of the levels (see there for when; FabricHelper's
 * constructor calls it too, so levels set before the fabric is built take effect at once).
 */
class LogGate
{
  public:
    /// Registers the gate of `component` (which must outlive it) and reads its levels.
    explicit LogGate(const LogComponent& component);
    /// \return whether the component had a level on at the last refresh
    bool
    On() const
    {
        return m_on;
    }
    /// Reads the component's levels again.
    void Refresh();

  private:
    const LogComponent& m_component; //!< the gated component
    bool m_on;                       //!< any level on
};

/// No node or flow (a context's missing part).
constexpr uint32_t NO_ID = std::numeric_limits<uint32_t>::max();

/**
 * \ingroup rdma-cc
 * Writes the context of a log line as rdma-cc's NS_LOG_APPEND_CONTEXT does: "[node 3 flow 7] ",
 * "[node 3] " without a flow, nothing without a node. The Rust records carry the context of the
 * object that wrote them (a flow's sender: its host and global flow id; a receiver or a switch:
 * its node), and the C++ components write theirs the same way, so one grep finds a node's or a
 * flow's lines in both.
 * \param os the stream (std::clog)
 * \param node ns-3 node id (NO_ID: none)
 * \param flow global flow id (NO_ID: none)
 */
void WriteContext(std::ostream& os, uint32_t node, uint32_t flow = NO_ID);

} // namespace rdmacc
} // namespace ns3

/**
 * \ingroup rdma-cc
 * Whether this file's log component (g_log, NS_LOG_COMPONENT_DEFINE) has `level` on: for work
 * done only to write a log line (reading a sender's counters before and after a call). Always
 * false when NS_LOG is compiled out (no NS3_LOG_ENABLE), like the NS_LOG macros.
 */
#ifdef NS3_LOG_ENABLE
#define RDMACC_LOG_ENABLED(level) (g_log.IsEnabled(level))
#else
#define RDMACC_LOG_ENABLED(level) (false)
#endif

#endif /* RDMA_CC_LOG_H */
