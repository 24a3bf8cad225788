/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-options.h"

#include "rdma-cc-error.h"
#include "rdma-cc-output.h"
#include "rdma-cc-params.h"

#include "ns3/config.h"
#include "ns3/global-value.h"
#include "ns3/string.h"

#include "rdma-cc/src/params.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

namespace ns3
{
namespace rdmacc
{

/// One declared option.
struct Decl
{
    std::string name;                 //!< option name, no dashes
    rdmacc_ffi::OptionSpec spec;      //!< kind and bounds (example options)
    std::string def;                  //!< default, as text
    std::string help;                 //!< help text
    std::optional<ParamTable> table;  //!< the Rust table of a table parameter (none: the example's)
    std::size_t index = 0;            //!< its index in that table
    rdmacc_ffi::ParamKind kind{};     //!< kind of value
    std::string rule;                 //!< what the value must satisfy
    bool exampleDefault = false;      //!< a table option whose default the example chose
    std::vector<std::string> choices; //!< the accepted names of a Choice or ChoiceList
    bool list = false;                //!< a ChoiceList
};

struct Options::Impl
{
    /// Parses `text` for option `d` (in the Rust holder of its table, if any) and returns it.
    rdmacc_ffi::ParamValue Store(const Decl& d, const std::string& text);
    /// Adds the declaration `d` (a name declared twice stops the program).
    void Add(const Decl& d);
    /// Declares an option of the example itself; its default must parse.
    void Declare(Options::Range r,
                 const std::string& name,
                 rdmacc_ffi::ParamKind kind,
                 const std::string& def,
                 const std::string& help,
                 const std::string& choices,
                 const std::string& autoMeaning,
                 bool list = false);
    /// Declares the options `names` of the Rust table `table` (`specs`), whose attributes
    /// belong to ns-3 type `type`; `attrInHelp`: the help names the attribute.
    void DeclareFromTable(ParamTable table,
                          const rust::Vec<rdmacc_ffi::ParamInfo>& specs,
                          const std::vector<std::string>& names,
                          const std::string& type,
                          bool attrInHelp);
    /// The names of the declared options of `table`.
    std::vector<rust::String> Declared(ParamTable table) const;
    /// Makes every option of `table` (`specs`) that was given, or whose default the example
    /// chose, the default of its attribute of ns-3 type `type`.
    void SetDefaults(ParamTable table,
                     const rust::Vec<rdmacc_ffi::ParamInfo>& specs,
                     const std::string& type) const;

    std::string program;
    std::string description;
    std::vector<Decl> decls;
    std::map<std::string, std::size_t> byName;
    std::map<std::string, rdmacc_ffi::ParamValue> values;
    std::set<std::string> given;
    std::map<std::string, std::string> texts; // what the user wrote, per given option
    rust::Box<rdmacc_ffi::NicParams> nic = rdmacc_ffi::nic_params_new();
    bool hasNic = false;
    rust::Box<rdmacc_ffi::SwitchParams> sw = rdmacc_ffi::switch_params_new();
    rust::Box<rdmacc_ffi::RedEcnParams> red = rdmacc_ffi::red_ecn_params_new();
};

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
        if (attrInHelp)
        {
            d.help += " (" + type + "::" + std::string(s.attr) + ")";
        }
        d.table = table;
        d.index = i;
        for (const auto& c : s.choices)
        {
            d.choices.emplace_back(c);
        }
        Add(d);
        values[name] = s.default_value;
    }
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

void
Options::Impl::SetDefaults(ParamTable table,
                           const rust::Vec<rdmacc_ffi::ParamInfo>& specs,
                           const std::string& type) const
{
    for (const auto& d : decls)
    {
        if (d.table == table && (given.count(d.name) > 0 || d.exampleDefault))
        {
            Config::SetDefault(type + "::" + std::string(specs[d.index].attr),
                               *ToAttributeValue(values.at(d.name)));
        }
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

namespace
{

std::string
KindLabel(rdmacc_ffi::ParamKind k)
{
    switch (k)
    {
    case rdmacc_ffi::ParamKind::Real:
        return "NUMBER";
    case rdmacc_ffi::ParamKind::Count:
        return "COUNT";
    case rdmacc_ffi::ParamKind::Bytes:
        return "BYTES";
    case rdmacc_ffi::ParamKind::Time:
        return "DURATION";
    case rdmacc_ffi::ParamKind::Rate:
        return "RATE";
    case rdmacc_ffi::ParamKind::Bool:
        return "BOOL";
    case rdmacc_ffi::ParamKind::Choice:
        return "NAME";
    default:
        return "TEXT";
    }
}

} // namespace

void
Options::Parse(int argc, char** argv)
{
    // The event scheduler: ns-3's PriorityQueueScheduler (a binary heap over one vector: no
    // allocation per event) unless NS_GLOBAL_VALUE names one. Every ns-3 scheduler runs the
    // events of one time stamp in insertion order, so the choice changes speed, never results
    // (README "Performance"). The simulator is created at its first use, after this.
    const char* env = std::getenv("NS_GLOBAL_VALUE");
    if (env == nullptr || std::string(env).find("SchedulerType") == std::string::npos)
    {
        GlobalValue::Bind("SchedulerType", StringValue("ns3::PriorityQueueScheduler"));
    }
    for (int a = 1; a < argc; a++)
    {
        const std::string arg(argv[a]);
        // every value reaches Rust as text: bytes that are not UTF-8 are refused here
        OrConfigFatal("command line",
                      [&]
                      {
                          rdmacc_ffi::argument_check(rust::Slice<const uint8_t>(
                              reinterpret_cast<const uint8_t*>(arg.data()), arg.size()));
                      });
        if (arg == "--help" || arg == "-h" || arg == "--PrintHelp")
        {
            std::cout << "Usage: " << m_impl->program << " [--OPTION=VALUE ...]\n\n"
                      << m_impl->description << "\n\nOptions (VALUE rules, [default]):\n";
            for (const auto& d : m_impl->decls)
            {
                const bool stop = !d.help.empty() && d.help.back() == '.';
                std::cout << "  --" << d.name << "="
                          << (d.list ? std::string("LIST") : KindLabel(d.kind)) << "\n      "
                          << d.help << (stop ? "" : ".");
                if (!d.rule.empty())
                {
                    std::cout << " Value: " << d.rule << ".";
                }
                std::cout << " [" << d.def << "]\n";
            }
            std::cout << "\n  --ns3::TYPE::ATTRIBUTE=VALUE\n      sets the default of an ns-3 "
                         "attribute (e.g. --ns3::SwitchNode::XonDelta=3000).\n";
            std::cout.flush();
            std::exit(0);
        }
        if (arg.rfind("--", 0) != 0 || arg.size() == 2)
        {
            ConfigFatal("command line",
                        "invalid argument " + arg +
                            ": options are written --NAME=VALUE (see --help)");
        }
        const std::size_t eq = arg.find('=');
        const std::string name =
            arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        if (name.rfind("ns3::", 0) == 0)
        {
            if (eq == std::string::npos ||
                !Config::SetDefaultFailSafe(name, StringValue(arg.substr(eq + 1))))
            {
                ConfigFatal("command line",
                            "invalid --" + name +
                                (eq == std::string::npos ? "" : " = " + arg.substr(eq + 1)) +
                                ": not an ns-3 attribute, or not a valid value of it");
            }
            continue;
        }
        auto it = m_impl->byName.find(name);
        if (it == m_impl->byName.end())
        {
            ConfigFatal("command line", "unknown option --" + name + " (see --help)");
        }
        const Decl& d = m_impl->decls[it->second];
        std::string text;
        if (eq == std::string::npos)
        {
            if (d.kind != rdmacc_ffi::ParamKind::Bool)
            {
                ConfigFatal("command line",
                            "invalid --" + name + ": needs a value, --" + name + "=" +
                                KindLabel(d.kind));
            }
            text = "true";
        }
        else
        {
            text = arg.substr(eq + 1);
        }
        m_impl->values[name] =
            OrConfigFatal("command line", [&] { return m_impl->Store(d, text); });
        m_impl->given.insert(name);
        m_impl->texts[name] = text;
    }
    // --eventOrder (RdmaScenario's): ns3::CanonicalScheduler instead of the insertion order
    if (m_impl->byName.count("eventOrder") > 0 &&
        (env == nullptr || std::string(env).find("SchedulerType") == std::string::npos))
    {
        const std::string order = GetText("eventOrder");
        StringValue impl;
        GlobalValue::GetValueByName("SimulatorImplementationType", impl);
        const bool distributed = impl.Get() == "ns3::DistributedSimulatorImpl" ||
                                 impl.Get() == "ns3::NullMessageSimulatorImpl";
        if (order == "canonical" || (order == "auto" && distributed))
        {
            GlobalValue::Bind("SchedulerType", StringValue("ns3::CanonicalScheduler"));
        }
    }
}

bool
Options::IsAuto(const std::string& name) const
{
    auto it = m_impl->byName.find(name);
    NS_ABORT_MSG_IF(it == m_impl->byName.end(), "no option --" << name);
    if (!Given(name))
    {
        return m_impl->decls[it->second].def == "auto";
    }
    return m_impl->texts.at(name) == "auto";
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
    OrConfigFatal("command line", [&] { m_impl->nic->validate_options(path); });
    m_impl->SetDefaults(ParamTable::Nic, rdmacc_ffi::nic_param_specs(), "ns3::RdmaNic");
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
                        std::string(e.what()) + (s.label.empty() ? "" : " (" + s.label + ")"));
        }
    }
    m_impl->SetDefaults(ParamTable::Switch, rdmacc_ffi::switch_param_specs(), "ns3::SwitchNode");
}

void
Options::ApplyRedEcnDefaults() const
{
    const std::vector<rust::String> declared = m_impl->Declared(ParamTable::RedEcn);
    OrConfigFatal("command line",
                  [&]
                  {
                      m_impl->red->validate_options(
                          rust::Slice<const rust::String>(declared.data(), declared.size()));
                  });
    m_impl->SetDefaults(
        ParamTable::RedEcn, rdmacc_ffi::red_ecn_param_specs(), "ns3::RedEcnQueueDisc");
}

} // namespace rdmacc
} // namespace ns3
