/*
 * rdma-cc: SwitchNode::EgressSamples, the rows SwitchNode::SampleEgress fills. Not a public
 * header (it names bridge types): only the module's own sources include it.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_EGRESS_SAMPLES_H
#define SWITCH_EGRESS_SAMPLES_H

#include "../switch-node.h"

#include "rdma-cc/src/switch.rs.h"
#include "rust/cxx.h"

namespace ns3
{

/// The Rust core's (port, prio, bytes) rows of one sample, reused from one to the next.
struct SwitchNode::EgressSamples
{
    rust::Vec<rdmacc_ffi::EgressSample> v; //!< the rows, by ascending (port, prio)
};

} // namespace ns3

#endif /* SWITCH_EGRESS_SAMPLES_H */
