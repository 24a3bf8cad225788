/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-options.h"

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
    std::string attribute;            //!< a table option's attribute, `ns3::Type::Attr`
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

    /// Parses one `--NAME[=VALUE]` argument (a table attribute's `--ns3::` form routed to its
    /// option) and records it; `source` names where it came from in errors.
    void Argument(const std::string& arg);
    /// Sets option `d` to `text` as the user wrote it in `form` (`--alpha`, or
    /// `--ns3::RdmaNic::Alpha`): the same setting given twice with different values stops.
    void SetOption(const Decl& d, const std::string& text, const std::string& form);
    /// Stops on an unknown option `name`, with the closest known one.
    [[noreturn]] void Unknown(const std::string& name) const;
    /// `args` with `--config=FILE` replaced by the file's command line (the options of `args`
    /// override the file's); records the file's option values for CheckReplay.
    std::vector<std::string> ExpandConfig(const std::vector<std::string>& args);
    /// After the arguments: every option value the replayed config.json recorded is the one
    /// this run resolved (a default changed since the recording stops the run, naming it).
    void CheckReplay() const;
    /// `message` (a refusal of the options together) with each option the user gave as its
    /// attribute spelt as the user wrote it (`--ns3::RdmaNic::Alpha` for `--alpha`).
    std::string InUserTerms(std::string message) const;
    /// Stops with `f`'s rust::Error, in the user's terms.
    template <typename F>
    auto
    OrFatal(F&& f) const -> decltype(f())
    {
        try
        {
            return f();
        }
        catch (const rust::Error& e)
        {
            ConfigFatal("command line", InUserTerms(e.what()));
        }
    }
    /// Whether option `name` is `auto` (Options::IsAuto).
    bool IsAuto(const std::string& name) const;
    /// Option `name`'s value as config.json records it: `auto` where it is derived, else as a
    /// user would write it (what CheckReplay compares a replay's value with).
    std::string
    RecordedText(const std::string& name) const
    {
        return IsAuto(name) ? "auto" : std::string(rdmacc_ffi::param_value_text(values.at(name)));
    }
    /// The option an argument sets (`alpha` for `--alpha=1` and `--ns3::RdmaNic::Alpha=1`),
    /// or the argument's own name.
    std::string KeyOf(const std::string& arg) const;

    std::string program;
    std::string description;
    std::map<std::string, std::string> byAttribute; // `ns3::Type::Attr` -> table option
    std::map<std::string, std::string> covered;     // Covers: attribute -> option
    /// `--ns3::` attributes set as defaults (no option of their own), in order: path, value
    std::vector<std::pair<std::string, std::string>> attributes;
    std::map<std::string, std::string> form;     // given option -> `--NAME=VALUE` as written
    std::vector<std::string> commandLine;        // the effective arguments (config expanded)
    std::string configFile;                      // --config=FILE
    std::map<std::string, std::string> recorded; // the replayed file's option values
    bool dryRun = false;                         // --dryRun
    bool applied[3] = {false, false, false};     // a table's Apply*Defaults ran
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

std::string
Options::Impl::KeyOf(const std::string& arg) const
{
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const auto routed = byAttribute.find(name);
    return routed != byAttribute.end() ? routed->second : name;
}

std::string
Options::Impl::InUserTerms(std::string message) const
{
    for (const auto& [name, written] : form)
    {
        if (written.rfind("--ns3::", 0) != 0)
        {
            continue;
        }
        const std::string option = "--" + name;
        const std::string attribute = written.substr(0, written.find('='));
        for (std::size_t at = message.find(option); at != std::string::npos;
             at = message.find(option, at + 1))
        {
            const std::size_t end = at + option.size();
            if (end == message.size() || !(std::isalnum(message[end]) || message[end] == '_'))
            {
                message.replace(at, option.size(), attribute);
                at += attribute.size() - 1;
            }
        }
    }
    return message;
}

void
Options::Impl::Unknown(const std::string& name) const
{
    std::vector<std::string> known;
    for (const auto& d : decls)
    {
        known.push_back(d.name);
    }
    for (const char* n : {"help",
                          "PrintHelp",
                          "PrintAttributes",
                          "PrintTypeIds",
                          "PrintGlobals",
                          "PrintGroups",
                          "PrintGroup",
                          "config",
                          "dryRun"})
    {
        known.emplace_back(n);
    }
    const std::string near = std::string(rdmacc_ffi::closest_name(
        name,
        rust::Slice<const rust::String>(
            std::vector<rust::String>(known.begin(), known.end()).data(), known.size())));
    ConfigFatal("command line",
                "unknown option --" + name +
                    (near.empty() ? "" : " (did you mean --" + near + "?)") + " (see --help)");
}

void
Options::Impl::SetOption(const Decl& d, const std::string& text, const std::string& written)
{
    const rdmacc_ffi::ParamValue v = Store(d, text); // a rust::Error for the caller to word
    // the same setting in two spellings (an option and its attribute) must agree; one spelling
    // given again overrides itself, as on any command line
    const auto before = form.find(d.name);
    const auto spelling = [](const std::string& a)
    {
        return a.substr(0, a.find('='));
    };
    if (before != form.end() && spelling(before->second) != spelling(written) &&
        std::string(rdmacc_ffi::param_value_text(values.at(d.name))) !=
            std::string(rdmacc_ffi::param_value_text(v)))
    {
        ConfigFatal("command line",
                    before->second + " and " + written +
                        " set the same parameter to different values: give it once");
    }
    values[d.name] = v;
    given.insert(d.name);
    texts[d.name] = text;
    form[d.name] = written;
}

void
Options::Impl::Argument(const std::string& arg)
{
    if (arg.rfind("--", 0) != 0 || arg.size() == 2)
    {
        ConfigFatal("command line",
                    "invalid argument " + arg + ": options are written --NAME=VALUE (see --help)");
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (name == "dryRun")
    {
        dryRun = eq == std::string::npos || value == "true" || value == "1";
        if (!dryRun && value != "false" && value != "0")
        {
            ConfigFatal("command line", "invalid --dryRun = " + value + ": must be true or false");
        }
        return;
    }
    if (name.rfind("ns3::", 0) == 0)
    {
        if (eq == std::string::npos)
        {
            ConfigFatal("command line",
                        "invalid --" + name + ": needs a value, --" + name + "=VALUE");
        }
        // an attribute that has an option here is that option: one setting, one way in
        const auto routed = byAttribute.find(name);
        if (routed != byAttribute.end())
        {
            const Decl& d = decls[byName.at(routed->second)];
            try
            {
                SetOption(d, value, arg);
            }
            catch (const rust::Error& e)
            {
                ConfigFatal("command line",
                            "invalid " + arg + " (the attribute of --" + d.name + "): " + e.what());
            }
            return;
        }
        const auto cover = covered.find(name);
        if (cover != covered.end())
        {
            ConfigFatal("command line",
                        "--" + name + " cannot be set: " + program + " sets it itself, from --" +
                            cover->second + " (use --" + cover->second + ")");
        }
        for (const auto& [path, v] : attributes)
        {
            if (path == name && v != value)
            {
                ConfigFatal("command line",
                            "--" + name + "=" + v + " and " + arg +
                                " set the same attribute to different values: give it once");
            }
        }
        if (!Config::SetDefaultFailSafe(name, StringValue(value)))
        {
            ConfigFatal("command line",
                        "invalid " + arg + ": not an ns-3 attribute, or not a valid value of it");
        }
        attributes.emplace_back(name, value);
        return;
    }
    auto it = byName.find(name);
    if (it == byName.end())
    {
        Unknown(name);
    }
    const Decl& d = decls[it->second];
    std::string text = value;
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
    OrConfigFatal("command line", [&] { SetOption(d, text, arg); });
}

std::vector<std::string>
Options::Impl::ExpandConfig(const std::vector<std::string>& args)
{
    std::vector<std::string> own;
    for (const auto& a : args)
    {
        if (a.rfind("--config=", 0) == 0)
        {
            if (!configFile.empty())
            {
                ConfigFatal("command line", "--config given twice: replay one file");
            }
            configFile = a.substr(9);
            if (configFile.empty())
            {
                ConfigFatal("command line", "invalid --config: needs a file, --config=FILE");
            }
        }
        else
        {
            own.push_back(a);
        }
    }
    if (configFile.empty())
    {
        return args;
    }
    const auto file =
        OrConfigFatal("command line", [&] { return rdmacc_ffi::run_config_read(configFile); });
    if (std::string(file.example) != program)
    {
        ConfigFatal("command line",
                    "--config=" + configFile + " was written by " + std::string(file.example) +
                        ", not " + program + ": run " + std::string(file.example) +
                        " --config=" + configFile);
    }
    if (!file.case_name.empty())
    {
        ConfigFatal("command line",
                    "--config=" + configFile + " records case " + std::string(file.case_name) +
                        " of a run of several cases: replay the run's own config.json, in the "
                        "directory above");
    }
    // the file's arguments, less those the command line gives again (which win), then the
    // command line's
    std::set<std::string> mine;
    for (const auto& a : own)
    {
        if (a.rfind("--", 0) == 0)
        {
            mine.insert(KeyOf(a));
        }
    }
    std::vector<std::string> out;
    for (const auto& a : file.command_line)
    {
        const std::string arg(a);
        if (arg.rfind("--config=", 0) == 0)
        {
            ConfigFatal("command line",
                        "--config=" + configFile + " itself replays another file: give that one");
        }
        if (arg.rfind("--", 0) != 0 || mine.count(KeyOf(arg)) == 0)
        {
            out.push_back(arg);
        }
    }
    for (std::size_t i = 0; i < file.option_names.size(); i++)
    {
        const std::string n(file.option_names[i]);
        if (mine.count(n) == 0)
        {
            recorded[n] = std::string(file.option_values[i]);
        }
    }
    out.insert(out.end(), own.begin(), own.end());
    return out;
}

void
Options::Impl::CheckReplay() const
{
    for (const auto& [name, text] : recorded)
    {
        const auto v = values.find(name);
        if (v == values.end())
        {
            ConfigFatal("command line",
                        "--config=" + configFile + " records option --" + name +
                            ", which this build of " + program + " does not have");
        }
        const std::string now = RecordedText(name);
        if (now != text)
        {
            ConfigFatal("command line",
                        "--config=" + configFile + " recorded --" + name + "=" + text +
                            " but this build resolves it to " + now +
                            " (a default changed since): give --" + name + "=" + text +
                            " to replay it");
        }
    }
}

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
    std::vector<std::string> args(argv + 1, argv + argc);
    for (const auto& arg : args)
    {
        // every value reaches Rust as text: bytes that are not UTF-8 are refused here
        OrConfigFatal("command line",
                      [&]
                      {
                          rdmacc_ffi::argument_check(rust::Slice<const uint8_t>(
                              reinterpret_cast<const uint8_t*>(arg.data()), arg.size()));
                      });
        if (arg == "--help" || arg == "-h" || arg == "--PrintHelp")
        {
            PrintHelp();
        }
        // ns-3's own listings, exactly as any ns-3 program prints them (they exit 0)
        for (const char* print : {"--PrintAttributes=",
                                  "--PrintTypeIds",
                                  "--PrintGlobals",
                                  "--PrintGroups",
                                  "--PrintGroup=",
                                  "--PrintVersion"})
        {
            if (arg.rfind(print, 0) == 0)
            {
                const std::string what = arg.substr(arg.find('=') + 1);
                TypeId found;
                if (arg.rfind("--PrintAttributes=", 0) == 0 &&
                    !TypeId::LookupByNameFailSafe(what, &found))
                {
                    std::vector<rust::String> types;
                    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); i++)
                    {
                        types.emplace_back(TypeId::GetRegistered(i).GetName());
                    }
                    const std::string near(rdmacc_ffi::closest_name(
                        what, rust::Slice<const rust::String>(types.data(), types.size())));
                    ConfigFatal("command line",
                                "invalid " + arg + ": no such ns-3 type" +
                                    (near.empty() ? "" : " (did you mean " + near + "?)") +
                                    "; --PrintTypeIds lists them");
                }
                CommandLine ns3;
                ns3.Parse(std::vector<std::string>{m_impl->program, arg});
                std::exit(0);
            }
        }
    }
    // ns-3's NS_ATTRIBUTE_DEFAULT="ns3::T::A=V;..." sets attributes too: each entry is read as
    // the argument --ns3::T::A=V before the command line's (one way in; recorded, replayed)
    if (const char* ad = std::getenv("NS_ATTRIBUTE_DEFAULT"))
    {
        std::vector<std::string> fromEnv;
        std::stringstream in(ad);
        for (std::string entry; std::getline(in, entry, ';');)
        {
            if (!entry.empty())
            {
                fromEnv.push_back("--" + entry);
            }
        }
        args.insert(args.begin(), fromEnv.begin(), fromEnv.end());
    }
    args = m_impl->ExpandConfig(args);
    for (const auto& arg : args)
    {
        m_impl->Argument(arg);
    }
    m_impl->commandLine = args;
    m_impl->CheckReplay();
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

void
Options::PrintHelp() const
{
    std::cout << "Usage: " << m_impl->program << " [--OPTION=VALUE ...]\n\n"
              << m_impl->description << "\n\nOptions (VALUE rules, [default]):\n";
    for (const auto& d : m_impl->decls)
    {
        const bool stop = !d.help.empty() && d.help.back() == '.';
        std::cout << "  --" << d.name << "=" << (d.list ? std::string("LIST") : KindLabel(d.kind))
                  << "\n      " << d.help << (stop ? "" : ".");
        if (!d.rule.empty())
        {
            std::cout << " Value: " << d.rule << ".";
        }
        if (!d.attribute.empty())
        {
            std::cout << " Attribute: " << d.attribute << ".";
        }
        std::cout << " [" << d.def << "]\n";
    }
    std::cout
        << "\n  --ns3::TYPE::ATTRIBUTE=VALUE\n      sets an ns-3 attribute (e.g. "
           "--ns3::SwitchNode::XonDelta=3000); an attribute listed above IS its option. One "
           "the run does not hold (the example sets it itself, or builds no object of TYPE) is "
           "refused.\n"
        << "  --config=FILE\n      replays a run's config.json (options given beside it "
           "override the file's).\n"
        << "  --dryRun\n      checks every option and builds the run, then stops before "
           "simulating.\n"
        << "  --PrintAttributes=TYPE, --PrintTypeIds, --PrintGlobals, --PrintGroups, "
           "--PrintGroup=GROUP\n      ns-3's listings, as in any ns-3 program.\n";
    std::cout.flush();
    std::exit(0);
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

namespace
{

/// Every object of the built run that holds attributes a user may set: each node, what is
/// aggregated to it (an RdmaNic), its devices and what is aggregated to them, their queue
/// discs (a root and its classes'), and every channel; each once, in node order (the same order in
/// every run of one configuration).
std::vector<Ptr<Object>>
RunObjects()
{
    std::vector<Ptr<Object>> out;
    std::set<const Object*> seen;
    auto add = [&](Ptr<Object> o)
    {
        if (o && seen.insert(PeekPointer(o)).second)
        {
            out.push_back(o);
        }
    };
    auto addAggregates = [&](Ptr<Object> o)
    {
        add(o);
        for (Object::AggregateIterator it = o->GetAggregateIterator(); it.HasNext();)
        {
            add(ConstCast<Object>(it.Next()));
        }
    };
    for (uint32_t n = 0; n < NodeList::GetNNodes(); n++)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        addAggregates(node);
        Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
        for (uint32_t d = 0; d < node->GetNDevices(); d++)
        {
            addAggregates(node->GetDevice(d));
            add(node->GetDevice(d)->GetChannel());
            Ptr<QueueDisc> root = tc ? tc->GetRootQueueDiscOnDevice(node->GetDevice(d)) : nullptr;
            if (root)
            {
                add(root);
                for (std::size_t c = 0; c < root->GetNQueueDiscClasses(); c++)
                {
                    add(root->GetQueueDiscClass(c)->GetQueueDisc());
                }
            }
        }
    }
    for (uint32_t c = 0; c < ChannelList::GetNChannels(); c++)
    {
        add(ChannelList::GetChannel(c));
    }
    return out;
}

/// Whether attribute `info`'s value is a plain setting (not an object, a container or a
/// callback, whose text would be an address).
bool
PlainAttribute(const TypeId::AttributeInformation& info)
{
    const std::string t = info.checker->GetValueTypeName();
    return (info.flags & TypeId::ATTR_GET) != 0 && t != "ns3::PointerValue" &&
           t != "ns3::ObjectPtrContainerValue" && t != "ns3::CallbackValue" &&
           t.find("Container") == std::string::npos;
}

/// `text` as the attribute `info` writes it back (`10Gbps` and `10000000000bps` are one
/// value); empty when it is not a valid value.
std::string
Normalised(const TypeId::AttributeInformation& info, const std::string& text)
{
    Ptr<AttributeValue> v = info.checker->CreateValidValue(StringValue(text));
    return v ? v->SerializeToString(info.checker) : "";
}

/// "ns3::Type::Attr" split at its last "::".
std::pair<std::string, std::string>
SplitPath(const std::string& path)
{
    const std::size_t at = path.rfind("::");
    return {path.substr(0, at), path.substr(at + 2)};
}

} // namespace

void
Options::CheckBeforeRun() const
{
    // what the command line set: each --ns3:: attribute, and each given option of a Rust table
    // whose Apply*Defaults made it its attribute's default
    std::vector<std::pair<std::string, std::string>> set; // path, value as its attribute
    std::map<std::string, std::string> written;           // path -> as the user wrote it
    for (const auto& [path, value] : m_impl->attributes)
    {
        set.emplace_back(path, value);
        written[path] = "--" + path + "=" + value;
    }
    for (const auto& d : m_impl->decls)
    {
        if (d.table && m_impl->given.count(d.name) > 0 &&
            m_impl->applied[static_cast<int>(*d.table)])
        {
            const auto [type, attr] = SplitPath(d.attribute);
            TypeId::AttributeInformation info;
            NS_ABORT_MSG_UNLESS(TypeId::LookupByName(type).LookupAttributeByName(attr, &info),
                                "no attribute " << d.attribute);
            set.emplace_back(
                d.attribute,
                ToAttributeValue(m_impl->values.at(d.name))->SerializeToString(info.checker));
            written[d.attribute] = m_impl->form.at(d.name);
        }
    }
    const std::vector<Ptr<Object>> objects = RunObjects();
    for (const auto& [path, value] : set)
    {
        const auto [type, attr] = SplitPath(path);
        const TypeId tid = TypeId::LookupByName(type);
        uint32_t holders = 0;
        for (const auto& o : objects)
        {
            const TypeId own = o->GetInstanceTypeId();
            if (own != tid && !own.IsChildOf(tid))
            {
                continue;
            }
            TypeId::AttributeInformation info;
            own.LookupAttributeByName(attr, &info);
            StringValue held;
            if (!PlainAttribute(info) || !o->GetAttributeFailSafe(attr, held))
            {
                holders++; // not readable back: trust ns-3's default mechanism
                continue;
            }
            if (held.Get() != Normalised(info, value))
            {
                ConfigFatal("command line",
                            written[path] + " changed nothing: " + m_impl->program + " sets " +
                                path + " itself (to " + held.Get() +
                                " here); use its options (see --help)");
            }
            holders++;
        }
        if (holders == 0)
        {
            ConfigFatal("command line",
                        written[path] + " changed nothing: " + m_impl->program + " builds no " +
                            type);
        }
    }
    if (m_impl->dryRun)
    {
        std::cout << m_impl->program << ": dry run: every option checked and the run built; "
                  << "nothing simulated" << std::endl;
        RemovePartialFiles();
        std::fflush(nullptr);
        std::_Exit(0);
    }
}

void
AddRunRecord(JsonObject& c)
{
    // every attribute of the run's rdma-cc objects, as they hold it: one value, or the
    // distinct values in the order the objects were built
    std::map<std::string, std::map<std::string, std::vector<std::string>>> held;
    std::vector<std::string> typeOrder;
    for (const auto& o : RunObjects())
    {
        const TypeId tid = o->GetInstanceTypeId();
        const std::string type = tid.GetName();
        if (type != "ns3::RdmaNic" && type != "ns3::SwitchNode" && type != "ns3::QbbNetDevice" &&
            type != "ns3::QbbChannel" && type != "ns3::RawHost")
        {
            continue;
        }
        if (held.count(type) == 0)
        {
            typeOrder.push_back(type);
        }
        auto& attrs = held[type];
        for (uint32_t i = 0; i < tid.GetAttributeN(); i++)
        {
            const TypeId::AttributeInformation info = tid.GetAttribute(i);
            StringValue v;
            if (!PlainAttribute(info) || !o->GetAttributeFailSafe(info.name, v))
            {
                continue;
            }
            auto& seen = attrs[info.name];
            if (std::find(seen.begin(), seen.end(), v.Get()) == seen.end())
            {
                seen.push_back(v.Get());
            }
        }
    }
    JsonObject attributes;
    for (const auto& type : typeOrder)
    {
        JsonObject t;
        for (const auto& [name, vals] : held[type])
        {
            if (vals.size() == 1)
            {
                t.Str(name, vals[0]);
            }
            else
            {
                t.StrList(name, vals);
            }
        }
        attributes.Obj(type, t);
    }
    c.Obj("attributes", attributes);
    JsonObject globals;
    for (auto it = GlobalValue::Begin(); it != GlobalValue::End(); ++it)
    {
        StringValue v;
        (*it)->GetValue(v);
        globals.Str((*it)->GetName(), v.Get());
    }
    c.Obj("global_values", globals);
    JsonObject build;
    build.Str("rdma_cc_revision", RdmaCcRevision());
    build.Str("ns3_version", Ns3Version());
    c.Obj("build", build);
}

void
WriteRunRecord(const std::string& dir,
               const std::string& example,
               int argc,
               char** argv,
               const JsonObject& resolved)
{
    JsonObject c;
    c.Str("example", example);
    c.StrList("command_line", std::vector<std::string>(argv + 1, argv + argc));
    c.Obj("resolved", resolved);
    AddRunRecord(c);
    c.WriteFile(dir + "/config.json");
}

void
Options::WriteConfig(const std::string& dir,
                     const JsonObject& resolved,
                     const std::string& caseName) const
{
    JsonObject c;
    c.Str("example", m_impl->program);
    if (!caseName.empty())
    {
        c.Str("case", caseName);
    }
    c.StrList("command_line", m_impl->commandLine);
    if (!m_impl->configFile.empty())
    {
        c.Str("replayed", m_impl->configFile);
    }
    JsonObject options;
    std::vector<std::string> names;
    for (const auto& d : m_impl->decls)
    {
        names.push_back(d.name);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names)
    {
        options.Str(n, m_impl->RecordedText(n));
    }
    c.Obj("options", options);
    c.Obj("resolved", resolved);
    JsonObject set;
    for (const auto& [path, value] : m_impl->attributes)
    {
        set.Str(path, value);
    }
    c.Obj("ns3_attributes_set", set);
    AddRunRecord(c);
    c.WriteFile(dir + "/config.json");
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
    m_impl->SetDefaults(ParamTable::Nic, rdmacc_ffi::nic_param_specs(), "ns3::RdmaNic");
    m_impl->applied[static_cast<int>(ParamTable::Nic)] = true;
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
    m_impl->SetDefaults(ParamTable::Switch, rdmacc_ffi::switch_param_specs(), "ns3::SwitchNode");
    m_impl->applied[static_cast<int>(ParamTable::Switch)] = true;
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
    m_impl->SetDefaults(
        ParamTable::RedEcn, rdmacc_ffi::red_ecn_param_specs(), "ns3::RedEcnQueueDisc");
    m_impl->applied[static_cast<int>(ParamTable::RedEcn)] = true;
}

} // namespace rdmacc
} // namespace ns3
