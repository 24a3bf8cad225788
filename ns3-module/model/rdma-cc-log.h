/*
 * rdma-cc: the Rust crates' `log` records in ns-3's NS_LOG.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_LOG_H
#define RDMA_CC_LOG_H

namespace ns3
{
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

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_LOG_H */
