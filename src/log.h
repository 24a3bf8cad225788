/*
 * rdma-cc: where the Rust `log` records go on the C++ side (the bridge in src/log.rs).
 *
 * Header-only on purpose: the bridge's C++ is also linked without the ns-3 module (cargo test),
 * so nothing here may need a symbol that only the module defines. The module installs the sink;
 * until then (and always under cargo test) records are dropped.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_SRC_LOG_H
#define RDMA_CC_SRC_LOG_H

#include "rust/cxx.h"

#include <cstddef>
#include <cstdint>

namespace rdmacc_ffi
{

// Defined by the generated log.rs.h (a cxx shared enum, #[repr(u8)]).
enum class LogSeverity : std::uint8_t;

/// Writes one record of log component `component` (an index into the bridge's table), with
/// its context: the node and the flow it belongs to (UINT32_MAX: none).
using LogSink = void (*)(std::size_t component,
                         LogSeverity severity,
                         std::uint32_t node,
                         std::uint32_t flow,
                         rust::Str module,
                         rust::Str message);

/// The installed sink (null: none). cxx cannot pass a C++ function pointer to Rust (cxx book,
/// "Function pointers": only Rust to C++ is implemented), so the pointer stays here and Rust
/// calls log_write.
inline LogSink&
log_sink()
{
    static LogSink sink = nullptr;
    return sink;
}

/// Called by Rust for every record that passed its level check.
inline void
log_write(std::size_t component,
          LogSeverity severity,
          std::uint32_t node,
          std::uint32_t flow,
          rust::Str module,
          rust::Str message)
{
    if (LogSink sink = log_sink())
    {
        sink(component, severity, node, flow, module, message);
    }
}

} // namespace rdmacc_ffi

#endif /* RDMA_CC_SRC_LOG_H */
