/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// rdmacc::Options: the declarations of options, their defaults and their values.
#include "rdma-cc-options.h"

#include "detail/rdma-cc-options-impl.h"
#include "rdma-cc-error.h"
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
#include "ns3/string.h"
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

rdmacc_ffi::ParamValue
Options::Impl::Store(const Decl& d, const std::string& text)
{
    if (!d.table)
    {
        return rdmacc_ffi::option_parse(d.spec, text);
    }
    switch (*d.table)
    {
    case ParamTable::Nic:
        nic->set_option(d.index, text);
        return nic->get(d.index);
    case ParamTable::Switch:
        sw->set_option(d.index, text);
        return sw->get(d.index);
    case ParamTable::RedEcn:
    default:
        red->set_option(d.index, text);
        return red->get(d.index);
    }
}

void
Options::Impl::Add(const Decl& d)
{
    NS_ABORT_MSG_IF(byName.count(d.name), "option --" << d.name << " declared twice");
    byName[d.name] = decls.size();
    decls.push_back(d);
}

void
Options::Impl::Declare(Options::Range r,
                       const std::string& name,
                       rdmacc_ffi::ParamKind kind,
                       const std::string& def,
                       const std::string& help,
                       const std::string& choices,
                       const std::string& autoMeaning,
                       bool list)
{
    Decl d;
    d.name = name;
    d.kind = kind;
    d.def = def;
    d.help = help;
    d.spec.name = name;
    d.spec.kind = kind;
    d.spec.unit = "";
    d.spec.has_min = r.hasMin;
    d.spec.min = r.min;
    d.spec.min_inclusive = r.minInclusive;
    d.spec.has_max = r.hasMax;
    d.spec.max = r.max;
    d.spec.max_inclusive = r.maxInclusive;
    d.spec.choices = choices;
    d.spec.list = list;
    d.list = list;
    d.spec.auto_meaning = autoMeaning;
    std::stringstream in(choices);
    for (std::string c; std::getline(in, c, '|');)
    {
        d.choices.push_back(c);
    }
    d.rule = std::string(rdmacc_ffi::option_requirement(d.spec));
    Add(d);
    try
    {
        values[name] = rdmacc_ffi::option_parse(d.spec, def);
    }
    catch (const rust::Error& e)
    {
        NS_FATAL_ERROR("the default of --" << name << " does not parse: " << e.what());
    }
}

Options::Range
Options::Range::Closed(double lo, double hi)
{
    Range r;
    r.hasMin = r.hasMax = true;
    r.min = lo;
    r.max = hi;
    return r;
}

Options::Range
Options::Range::AboveAtMost(double lo, double hi)
{
    Range r = Closed(lo, hi);
    r.minInclusive = false;
    return r;
}

Options::Range
Options::Range::Open(double lo, double hi)
{
    Range r = Closed(lo, hi);
    r.minInclusive = false;
    r.maxInclusive = false;
    return r;
}

Options::Range
Options::Range::AtLeast(double lo)
{
    Range r;
    r.hasMin = true;
    r.min = lo;
    return r;
}

Options::Range
Options::Range::Above(double lo)
{
    Range r;
    r.hasMin = true;
    r.min = lo;
    r.minInclusive = false;
    return r;
}

Options::Range
Options::Range::Any()
{
    return Range();
}

Options::Options(std::string program, std::string description) :
    m_impl(std::make_unique<Impl>())
{
    m_impl->program = std::move(program);
    m_impl->description = std::move(description);
}

Options::~Options() = default;

#define RDMACC_DECLARE(range, kind, def, choices, autoMeaning)                                  \
    m_impl->Declare(range, name, rdmacc_ffi::ParamKind::kind, def, help, choices, autoMeaning); \
    return *this

Options&
Options::Count(const std::string& name, uint64_t def, const std::string& help, Range r)
{
    RDMACC_DECLARE(r, Count, std::to_string(def), "", "");
}

Options&
Options::Real(const std::string& name, double def, const std::string& help, Range r)
{
    std::ostringstream os;
    os << def;
    RDMACC_DECLARE(r, Real, os.str(), "", "");
}

Options&
Options::RealAuto(const std::string& name,
                  const std::string& help,
                  Range r,
                  const std::string& autoMeaning)
{
    RDMACC_DECLARE(r, Real, "auto", "", autoMeaning);
}

Options&
Options::Bytes(const std::string& name,
               const std::string& def,
               const std::string& help,
               Range r,
               const std::string& autoMeaning)
{
    RDMACC_DECLARE(r, Bytes, def, "", autoMeaning);
}

Options&
Options::Duration(const std::string& name,
                  const std::string& def,
                  const std::string& help,
                  Range r,
                  const std::string& autoMeaning)
{
    RDMACC_DECLARE(r, Time, def, "", autoMeaning);
}

Options&
Options::Rate(const std::string& name,
              const std::string& def,
              const std::string& help,
              Range r,
              const std::string& autoMeaning)
{
    RDMACC_DECLARE(r, Rate, def, "", autoMeaning);
}

Options&
Options::Bool(const std::string& name, bool def, const std::string& help)
{
    RDMACC_DECLARE(Range::Any(), Bool, def ? "true" : "false", "", "");
}

Options&
Options::BoolAuto(const std::string& name, const std::string& help, const std::string& autoMeaning)
{
    RDMACC_DECLARE(Range::Any(), Bool, "auto", "", autoMeaning);
}

Options&
Options::Choice(const std::string& name,
                const std::string& def,
                const std::vector<std::string>& choices,
                const std::string& help)
{
    std::string joined;
    for (const auto& c : choices)
    {
        joined += (joined.empty() ? "" : "|") + c;
    }
    RDMACC_DECLARE(Range::Any(), Choice, def, joined, "");
}

Options&
Options::ChoiceList(const std::string& name,
                    const std::string& def,
                    const std::vector<std::string>& choices,
                    const std::string& help)
{
    std::string joined;
    for (const auto& c : choices)
    {
        NS_ABORT_MSG_IF(c.empty() || c.find_first_of("|,") != std::string::npos,
                        "--" << name << ": choice \"" << c << "\" cannot be in a list");
        joined += (joined.empty() ? "" : "|") + c;
    }
    m_impl->Declare(Range::Any(), name, rdmacc_ffi::ParamKind::Choice, def, help, joined, "", true);
    return *this;
}

std::vector<std::string>
Options::ChoicesOf(const std::string& name) const
{
    auto it = m_impl->byName.find(name);
    NS_ABORT_MSG_IF(it == m_impl->byName.end(), "no option --" << name);
    const Decl& d = m_impl->decls[it->second];
    NS_ABORT_MSG_IF(d.kind != rdmacc_ffi::ParamKind::Choice, "--" << name << " is not a choice");
    return d.choices;
}

Options&
Options::Text(const std::string& name, const std::string& def, const std::string& help)
{
    RDMACC_DECLARE(Range::Any(), Text, def, "", "");
}

#undef RDMACC_DECLARE

Options&
Options::Default(const std::string& name, const std::string& text)
{
    auto it = m_impl->byName.find(name);
    NS_ABORT_MSG_IF(it == m_impl->byName.end(), "no option --" << name);
    Decl& d = m_impl->decls[it->second];
    try
    {
        m_impl->values[name] = m_impl->Store(d, text);
    }
    catch (const rust::Error& e)
    {
        NS_FATAL_ERROR("the default " << text << " of --" << name
                                      << " does not parse: " << e.what());
    }
    d.def = text;
    d.exampleDefault = d.table.has_value();
    return *this;
}

bool
Options::Impl::IsAuto(const std::string& name) const
{
    auto it = byName.find(name);
    NS_ABORT_MSG_IF(it == byName.end(), "no option --" << name);
    if (given.count(name) == 0)
    {
        return decls[it->second].def == "auto";
    }
    return texts.at(name) == "auto";
}

bool
Options::IsAuto(const std::string& name) const
{
    return m_impl->IsAuto(name);
}

void
Options::RefuseTogether(const std::string& a, const std::string& b) const
{
    if (Given(a) && Given(b))
    {
        ConfigFatal("command line",
                    m_impl->form.at(a) + " and " + m_impl->form.at(b) + " together: --" + a +
                        " sets what --" + b + " varies, one of them would be ignored; give one");
    }
}

bool
Options::Has(const std::string& name) const
{
    return m_impl->byName.count(name) > 0;
}

bool
Options::Given(const std::string& name) const
{
    return m_impl->given.count(name) > 0;
}

namespace
{

const rdmacc_ffi::ParamValue&
Lookup(const std::map<std::string, rdmacc_ffi::ParamValue>& values,
       const std::string& name,
       rdmacc_ffi::ParamKind kind)
{
    auto it = values.find(name);
    NS_ABORT_MSG_IF(it == values.end(), "no option --" << name);
    NS_ABORT_MSG_IF(it->second.kind != kind, "option --" << name << " read as the wrong kind");
    return it->second;
}

} // namespace

uint64_t
Options::GetCount(const std::string& name) const
{
    return Lookup(m_impl->values, name, rdmacc_ffi::ParamKind::Count).uint;
}

double
Options::GetReal(const std::string& name) const
{
    return Lookup(m_impl->values, name, rdmacc_ffi::ParamKind::Real).real;
}

uint64_t
Options::GetBytes(const std::string& name) const
{
    return Lookup(m_impl->values, name, rdmacc_ffi::ParamKind::Bytes).uint;
}

ns3::Time
Options::GetTime(const std::string& name) const
{
    return NanoSeconds(
        static_cast<int64_t>(Lookup(m_impl->values, name, rdmacc_ffi::ParamKind::Time).uint));
}

uint64_t
Options::GetRate(const std::string& name) const
{
    return Lookup(m_impl->values, name, rdmacc_ffi::ParamKind::Rate).uint;
}

bool
Options::GetBool(const std::string& name) const
{
    return Lookup(m_impl->values, name, rdmacc_ffi::ParamKind::Bool).flag;
}

std::string
Options::GetText(const std::string& name) const
{
    auto it = m_impl->values.find(name);
    NS_ABORT_MSG_IF(it == m_impl->values.end(), "no option --" << name);
    return std::string(it->second.text);
}

std::vector<std::string>
Options::GetList(const std::string& name) const
{
    std::vector<std::string> out;
    std::stringstream in(GetText(name));
    std::string item;
    while (std::getline(in, item, ','))
    {
        out.push_back(item);
    }
    return out;
}

std::string
Options::GetAsText(const std::string& name) const
{
    auto it = m_impl->values.find(name);
    NS_ABORT_MSG_IF(it == m_impl->values.end(), "no option --" << name);
    return std::string(rdmacc_ffi::param_value_text(it->second));
}

Options&
Options::Covers(const std::string& attribute, const std::string& option)
{
    m_impl->covered[attribute] = option;
    return *this;
}

uint8_t
Options::DataPriority() const
{
    return static_cast<uint8_t>(GetCount("priority"));
}

} // namespace rdmacc
} // namespace ns3
