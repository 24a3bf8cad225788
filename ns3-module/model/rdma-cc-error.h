/*
 * rdma-cc: configuration errors reported to the user.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_ERROR_H
#define RDMA_CC_ERROR_H

#include <string>

namespace ns3
{
namespace rdmacc
{

/**
 * \ingroup rdma-cc
 * Stops the program because of a configuration error.
 *
 * Prints "rdma-cc: configuration error in <where>: <message>" on standard error and exits with
 * status 2, without running destructors or the rest of the simulation (no partial output is
 * written as if complete). The message comes from the Rust validation and names the attribute,
 * its value and what is required, e.g. "invalid KMin = 50000 B: must be <= KMax (20000 B)".
 */
[[noreturn]] void ConfigFatal(const std::string& where, const std::string& message);

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_ERROR_H */
