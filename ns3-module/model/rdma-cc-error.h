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
 * Every file registered with RegisterPartialFile() and not yet forgotten is removed first, so
 * a run stopped this way leaves no `*.partial` file behind.
 */
[[noreturn]] void ConfigFatal(const std::string& where, const std::string& message);

/**
 * \ingroup rdma-cc
 * Prints `line` ("rdma-cc: warning: ...") on standard error when the simulation starts
 * (FlushWarnings(), called just before Simulator::Run; at exit when the simulator never runs).
 * A configuration refused by ConfigFatal() before that prints its one error line only: its
 * pending warnings are dropped.
 * \param line the whole line, without its newline
 */
void Warn(const std::string& line);

/**
 * \ingroup rdma-cc
 * Prints the warnings Warn() holds now: call it once every check has passed, just before
 * Simulator::Run (harmless when there are none).
 */
void FlushWarnings();

/**
 * \ingroup rdma-cc
 * Registers `path`, an output file being written under its temporary name (`NAME.partial`,
 * renamed to NAME when complete), for removal by ConfigFatal(). Every place that creates such
 * a file registers it (rdmacc::OpenPartial does).
 * \param path the file's temporary name
 */
void RegisterPartialFile(const std::string& path);

/**
 * \ingroup rdma-cc
 * Forgets a registered file (it was renamed to its final name or removed).
 * \param path the file's temporary name, as registered
 */
void ForgetPartialFile(const std::string& path);

/**
 * \ingroup rdma-cc
 * Removes every registered file not yet forgotten (a run that stops on purpose before its
 * outputs are complete, as a dry run does).
 */
void RemovePartialFiles();

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_ERROR_H */
