/*
 * rdma-cc: the private part of rdmacc::Options (rdma-cc-options.h), shared by its source
 * files: the declared options and their values, held in the Rust parameter tables. Not a
 * public header (it names bridge types): only the module's rdma-cc-options*.cc include it.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_OPTIONS_IMPL_H
#define RDMA_CC_OPTIONS_IMPL_H

#include "rdma-cc-error.h"
#include "rdma-cc-options.h"
#include "rdma-cc-params.h"

#include "ns3/object.h"
#include "ns3/type-id.h"

#include "rdma-cc/src/params.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

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
    /// The indices of the parameters of `table` the objects take from the options (given, or
    /// whose default the example chose), in index order.
    std::vector<std::size_t> Taken(ParamTable table) const;

    /// Parses one `--NAME[=VALUE]` argument (a table attribute's `--ns3::` form routed to its
    /// option) and records it; `source` names where it came from in errors.
    void Argument(const std::string& arg);
    /// Sets attribute `name` (`ns3::Type::Attr`) to `value` from argument `arg`: the option
    /// that attribute is, or the attribute's default (Argument).
    void Attribute(const std::string& arg, const std::string& name, const std::string& value);
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
    /// the indices of `nic` every NIC takes (ApplyNicDefaults: given, or the example's default)
    std::vector<std::size_t> nicTaken;
    rust::Box<rdmacc_ffi::SwitchParams> sw = rdmacc_ffi::switch_params_new();
    /// the indices of `sw` every switch takes (ApplySwitchDefaults)
    std::vector<std::size_t> switchTaken;
    rust::Box<rdmacc_ffi::RedEcnParams> red = rdmacc_ffi::red_ecn_params_new();
    /// the indices of `red` every RED/ECN queue disc takes (ApplyRedEcnDefaults)
    std::vector<std::size_t> redTaken;
};

namespace detail
{

/// Every object of the built run that holds attributes a user may set: each node, what is
/// aggregated to it (an RdmaNic), its devices and what is aggregated to them, their queue
/// discs (a root and its classes'), and every channel; each once, in node order (the same order in
/// every run of one configuration).
std::vector<Ptr<Object>> RunObjects();
/// Whether attribute `info`'s value is a plain setting (not an object, a container or a
/// callback, whose text would be an address).
bool PlainAttribute(const TypeId::AttributeInformation& info);
/// `text` as the attribute `info` writes it back (`10Gbps` and `10000000000bps` are one
/// value); empty when it is not a valid value.
std::string Normalised(const TypeId::AttributeInformation& info, const std::string& text);
/// "ns3::Type::Attr" split at its last "::".
std::pair<std::string, std::string> SplitPath(const std::string& path);
/// The label of a value kind in --help and errors (COUNT, BYTES, ...).
std::string KindLabel(rdmacc_ffi::ParamKind k);

} // namespace detail

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_OPTIONS_IMPL_H */
