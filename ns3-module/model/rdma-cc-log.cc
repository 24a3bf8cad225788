/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-log.h"

#include "ns3/log.h"

#include "rdma-cc/src/log.rs.h"
#include "rust/cxx.h"

#include <deque>
#include <iostream>
#include <string>
#include <vector>

namespace ns3
{
namespace rdmacc
{
namespace
{

/// The log components, in the bridge's table order (a record names its component by index).
/// In a deque built in place: its elements never move, and ns-3's component registry keeps
/// their addresses.
struct RustLogComponents
{
    RustLogComponents()
    {
        for (const rust::String& name : rdmacc_ffi::log_component_names())
        {
            all.emplace_back(std::string(name), __FILE__);
        }
    }

    std::deque<LogComponent> all;
};

const std::deque<LogComponent>&
Components()
{
    static const RustLogComponents components;
    return components.all;
}

/// Creates the components when the module is loaded, as NS_LOG_COMPONENT_DEFINE does: NS_LOG
/// is checked against the registered components when the simulator starts.
[[maybe_unused]] const bool g_componentsRegistered = !Components().empty();

/// The ns-3 level of a Rust record's severity (trace is ns-3's LOG_LOGIC).
LogLevel
Ns3Level(rdmacc_ffi::LogSeverity severity)
{
    switch (severity)
    {
    case rdmacc_ffi::LogSeverity::Error:
        return LOG_ERROR;
    case rdmacc_ffi::LogSeverity::Warn:
        return LOG_WARN;
    case rdmacc_ffi::LogSeverity::Info:
        return LOG_INFO;
    case rdmacc_ffi::LogSeverity::Debug:
        return LOG_DEBUG;
    case rdmacc_ffi::LogSeverity::Trace:
    default:
        return LOG_LOGIC;
    }
}

/// Writes a record as NS_LOG writes its own (log-macros-enabled.h): time and node prefixes as
/// the component enables them, the record's context as NS_LOG_APPEND_CONTEXT does in ns-3's
/// models ("[node 3 flow 7] ", "[node 12] "), function (the Rust module path) and level
/// prefixes, then the message.
void
Write(std::size_t component,
      rdmacc_ffi::LogSeverity severity,
      uint32_t node,
      uint32_t flow,
      rust::Str module,
      rust::Str message)
{
    const auto& components = Components();
    if (component >= components.size())
    {
        return;
    }
    const LogComponent& c = components[component];
    const LogLevel level = Ns3Level(severity);
    if (!c.IsEnabled(level))
    {
        return; // disabled since the last SyncLog
    }
    if (c.IsEnabled(LOG_PREFIX_TIME))
    {
        if (TimePrinter printer = LogGetTimePrinter())
        {
            (*printer)(std::clog);
            std::clog << " ";
        }
    }
    if (c.IsEnabled(LOG_PREFIX_NODE))
    {
        if (NodePrinter printer = LogGetNodePrinter())
        {
            (*printer)(std::clog);
            std::clog << " ";
        }
    }
    WriteContext(std::clog, node, flow);
    if (c.IsEnabled(LOG_PREFIX_FUNC))
    {
        std::clog << c.Name() << ":" << module << "(): ";
    }
    if (c.IsEnabled(LOG_PREFIX_LEVEL))
    {
        std::clog << "[" << LogComponent::GetLevelLabel(level) << "] ";
    }
    std::clog << message << std::endl;
}

} // namespace

void
WriteContext(std::ostream& os, uint32_t node, uint32_t flow)
{
    if (node == NO_ID)
    {
        return;
    }
    os << "[node " << node;
    if (flow != NO_ID)
    {
        os << " flow " << flow;
    }
    os << "] ";
}

namespace
{
/// The gates made so far (file-scope objects of the module: they live as long as it).
std::vector<LogGate*>&
Gates()
{
    static std::vector<LogGate*> gates;
    return gates;
}
} // namespace

LogGate::LogGate(const LogComponent& component) :
    m_component(component),
    m_on(false)
{
    Gates().push_back(this);
    Refresh();
}

void
LogGate::Refresh()
{
    m_on = m_component.IsEnabled(LOG_ALL);
}

void
SyncLog()
{
    for (LogGate* gate : Gates())
    {
        gate->Refresh();
    }
    static const bool installed = []
    {
        rdmacc_ffi::log_sink() = &Write;
        rdmacc_ffi::log_install();
        return true;
    }();
    (void)installed;
    using rdmacc_ffi::LogSeverity;
    std::vector<rdmacc_ffi::LogComponentLevels> levels;
    for (const LogComponent& c : Components())
    {
        levels.push_back({c.IsEnabled(Ns3Level(LogSeverity::Error)),
                          c.IsEnabled(Ns3Level(LogSeverity::Warn)),
                          c.IsEnabled(Ns3Level(LogSeverity::Info)),
                          c.IsEnabled(Ns3Level(LogSeverity::Debug)),
                          c.IsEnabled(Ns3Level(LogSeverity::Trace))});
    }
    rdmacc_ffi::log_set_levels(
        rust::Slice<const rdmacc_ffi::LogComponentLevels>(levels.data(), levels.size()));
}

} // namespace rdmacc
} // namespace ns3
