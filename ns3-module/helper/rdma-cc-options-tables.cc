/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// rdmacc::Options: the options of Rust's parameter tables and the attributes they route to
// (declared from a table; applied as the defaults of the attributes, checked together).
#include "detail/rdma-cc-options-impl.h"
#include "rdma-cc-error.h"
#include "rdma-cc-options.h"
#include "rdma-cc-output.h"
#include "rdma-cc-params.h"

#include "ns3/channel-list.h"
#include "ns3/channel.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/net-device.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/queue-disc.h"
#include "ns3/rdma-nic.h"
#include "ns3/red-ecn-queue-disc.h"
#include "ns3/string.h"
#include "ns3/switch-node.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/params.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

namespace ns3
{
namespace rdmacc
{

void
Options::Impl::DeclareFromTable(ParamTable table,
                                const rust::Vec<rdmacc_ffi::ParamInfo>& specs,
                                const std::vector<std::string>& names,
                                const std::string& type,
                                bool attrInHelp)
{
    for (const auto& name : names)
    {
        // a parameter of this table already declared (the shared scenario's and an example's
        // own list may both name it) keeps its declaration and its default
        const auto known = byName.find(name);
        if (known != byName.end() && decls[known->second].table == table)
        {
            continue;
        }
        std::size_t i = 0;
        while (i < specs.size() && std::string(specs[i].option) != name)
        {
            i++;
        }
        NS_ABORT_MSG_IF(i == specs.size(), type << " has no parameter with option --" << name);
        const auto& s = specs[i];
        Decl d;
        d.name = name;
        d.kind = s.kind;
        d.def = std::string(s.default_text);
        d.help = std::string(s.help);
        (void)attrInHelp; // --help names every option's attribute ("Attribute: ...")
        d.table = table;
        d.index = i;
        d.attribute = type + "::" + std::string(s.attr);
        for (const auto& c : s.choices)
        {
            d.choices.emplace_back(c);
        }
        Add(d);
        byAttribute[d.attribute] = name;
        values[name] = s.default_value;
    }
}

std::vector<std::size_t>
Options::Impl::Taken(ParamTable table) const
{
    std::vector<std::size_t> indices;
    for (const auto& d : decls)
    {
        if (d.table == table && (given.count(d.name) > 0 || d.exampleDefault))
        {
            indices.push_back(d.index);
        }
    }
    std::sort(indices.begin(), indices.end());
    return indices;
}

std::vector<rust::String>
Options::Impl::Declared(ParamTable table) const
{
    std::vector<rust::String> names;
    for (const auto& d : decls)
    {
        if (d.table == table)
        {
            names.emplace_back(d.name);
        }
    }
    return names;
}

Options&
Options::AddNicParams()
{
    const auto specs = rdmacc_ffi::nic_param_specs();
    std::vector<std::string> names;
    for (const auto& s : specs)
    {
        if (!s.option.empty())
        {
            names.emplace_back(s.option);
        }
    }
    m_impl->DeclareFromTable(ParamTable::Nic, specs, names, "ns3::RdmaNic", false);
    m_impl->hasNic = true;
    return *this;
}

Options&
Options::AddSwitchParams(const std::vector<std::string>& names)
{
    m_impl->DeclareFromTable(
        ParamTable::Switch, rdmacc_ffi::switch_param_specs(), names, "ns3::SwitchNode", true);
    return *this;
}

Options&
Options::AddRcmParams()
{
    std::vector<std::string> names;
    for (const auto& o : rdmacc_ffi::rcm_param_options())
    {
        names.emplace_back(o);
    }
    return AddSwitchParams(names);
}

Options&
Options::AddRedEcnParams(const std::vector<std::string>& names)
{
    m_impl->DeclareFromTable(
        ParamTable::RedEcn, rdmacc_ffi::red_ecn_param_specs(), names, "ns3::RedEcnQueueDisc", true);
    return *this;
}

void
Options::ApplyNicDefaults(uint64_t lineRateBps,
                          ns3::Time baseRtt,
                          bool lossless,
                          bool intTelemetry) const
{
    NS_ABORT_MSG_UNLESS(m_impl->hasNic, "ApplyNicDefaults without AddNicParams");
    rdmacc_ffi::PathInfo path{};
    path.line_rate_bps = lineRateBps;
    path.base_rtt_ns = static_cast<uint64_t>(std::max<int64_t>(0, baseRtt.GetNanoSeconds()));
    path.lossless = lossless;
    path.int_telemetry = intTelemetry;
    m_impl->OrFatal([&] { m_impl->nic->validate_options(path); });
    // the NICs take the values as parsed (ConfigureNic): no attribute default in between
    m_impl->nicTaken = m_impl->Taken(ParamTable::Nic);
    m_impl->applied[static_cast<int>(ParamTable::Nic)] = true;
}

void
Options::ConfigureNic(RdmaNic& nic) const
{
    NS_ABORT_MSG_UNLESS(m_impl->applied[static_cast<int>(ParamTable::Nic)],
                        "ConfigureNic before ApplyNicDefaults");
    nic.TakeParams(*m_impl->nic, m_impl->nicTaken);
}

void
Options::ApplySwitchDefaults(uint32_t ports,
                             uint64_t rateBps,
                             ns3::Time delay,
                             uint8_t pfcPriorities) const
{
    SwitchLinks one;
    one.ratesBps.assign(ports, rateBps);
    one.delaysNs.assign(ports, static_cast<uint64_t>(std::max<int64_t>(0, delay.GetNanoSeconds())));
    ApplySwitchDefaults(std::vector<SwitchLinks>{one}, pfcPriorities);
}

void
Options::ApplySwitchDefaults(const std::vector<SwitchLinks>& switches,
                             uint8_t pfcPriorities,
                             uint64_t mmuMtu,
                             uint64_t egressLimit) const
{
    const std::vector<rust::String> declared = m_impl->Declared(ParamTable::Switch);
    for (const auto& s : switches)
    {
        try
        {
            m_impl->sw->validate_options(
                rust::Slice<const rust::String>(declared.data(), declared.size()),
                pfcPriorities,
                mmuMtu,
                egressLimit,
                rust::Slice<const uint64_t>(s.ratesBps.data(), s.ratesBps.size()),
                rust::Slice<const uint64_t>(s.delaysNs.data(), s.delaysNs.size()));
        }
        catch (const rust::Error& e)
        {
            ConfigFatal("command line",
                        m_impl->InUserTerms(e.what()) +
                            (s.label.empty() ? "" : " (" + s.label + ")"));
        }
    }
    // the switches take the values as parsed (ConfigureSwitch): no attribute default between
    m_impl->switchTaken = m_impl->Taken(ParamTable::Switch);
    m_impl->applied[static_cast<int>(ParamTable::Switch)] = true;
}

void
Options::ConfigureSwitch(SwitchNode& sw) const
{
    NS_ABORT_MSG_UNLESS(m_impl->applied[static_cast<int>(ParamTable::Switch)],
                        "ConfigureSwitch before ApplySwitchDefaults");
    sw.TakeParams(*m_impl->sw, m_impl->switchTaken);
}

void
Options::ApplyRedEcnDefaults() const
{
    const std::vector<rust::String> declared = m_impl->Declared(ParamTable::RedEcn);
    m_impl->OrFatal(
        [&]
        {
            m_impl->red->validate_options(
                rust::Slice<const rust::String>(declared.data(), declared.size()));
        });
    // the queue discs take the values as parsed (ConfigureRedEcn): no attribute default between
    m_impl->redTaken = m_impl->Taken(ParamTable::RedEcn);
    m_impl->applied[static_cast<int>(ParamTable::RedEcn)] = true;
}

void
Options::ConfigureRedEcn(RedEcnQueueDisc& q) const
{
    NS_ABORT_MSG_UNLESS(m_impl->applied[static_cast<int>(ParamTable::RedEcn)],
                        "ConfigureRedEcn before ApplyRedEcnDefaults");
    q.TakeParams(*m_impl->red, m_impl->redTaken);
}

} // namespace rdmacc
} // namespace ns3
