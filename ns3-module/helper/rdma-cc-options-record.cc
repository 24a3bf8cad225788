/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// rdmacc::Options: config.json, the record of a run, and its replay (--config=FILE).
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

namespace
{

/// What the run record keeps of one type: its readable attributes (plain, with a getter) and
/// the distinct values each held, in the order the objects were built.
struct TypeRecord
{
    std::string name;                                //!< the type's name
    std::vector<TypeId::AttributeInformation> infos; //!< its readable attributes
    std::vector<bool> rust;                          //!< infos[k] is a Rust parameter
    std::vector<std::vector<std::string>> seen;      //!< infos[k]'s distinct values
    const RustParamOwner* lastOwner = nullptr;       //!< the last object's Rust parameters
};

/// A TypeRecord of `tid`, named `name`, with no values yet.
TypeRecord
NewTypeRecord(const TypeId& tid, const std::string& name)
{
    TypeRecord r;
    r.name = name;
    for (uint32_t i = 0; i < tid.GetAttributeN(); i++)
    {
        const TypeId::AttributeInformation info = tid.GetAttribute(i);
        if (detail::PlainAttribute(info) && info.accessor->HasGetter())
        {
            r.infos.push_back(info);
            r.rust.push_back(IsRustParamAccessor(*info.accessor));
        }
    }
    r.seen.resize(r.infos.size());
    return r;
}

/// Reads attribute `info` of `o` as text into `v` (what ObjectBase::GetAttributeFailSafe(name,
/// StringValue) reads); false when it cannot be read.
bool
ReadAttribute(const Ptr<Object>& o, const TypeId::AttributeInformation& info, std::string& v)
{
    StringValue sv;
    if (!info.accessor->Get(PeekPointer(o), sv))
    {
        Ptr<AttributeValue> typed = info.checker->Create();
        if (!info.accessor->Get(PeekPointer(o), *typed))
        {
            return false;
        }
        sv.Set(typed->SerializeToString(info.checker));
    }
    v = sv.Get();
    return true;
}

/// Adds the values of `o`'s attributes to its type's record `r`.
void
RecordObject(TypeRecord& r, const Ptr<Object>& o)
{
    // an object whose Rust parameters are the previous one's reads as it did: its values are
    // recorded already (257 NICs with ~60 parameters each, mostly the same)
    const auto* owner = dynamic_cast<const RustParamOwner*>(PeekPointer(o));
    const bool sameRust =
        owner != nullptr && r.lastOwner != nullptr && owner->SameRustParams(*r.lastOwner);
    if (owner != nullptr)
    {
        r.lastOwner = owner;
    }
    for (std::size_t k = 0; k < r.infos.size(); k++)
    {
        if (sameRust && r.rust[k])
        {
            continue;
        }
        std::string v;
        if (!ReadAttribute(o, r.infos[k], v))
        {
            continue;
        }
        auto& seen = r.seen[k];
        if (std::find(seen.begin(), seen.end(), v) == seen.end())
        {
            seen.push_back(v);
        }
    }
}

/// \return the types' records as config.json's "attributes": per type, each attribute by name
///         with its one value or its distinct values
JsonObject
AttributesJson(const std::vector<TypeRecord>& types)
{
    JsonObject attributes;
    for (const auto& r : types)
    {
        // by name, as JSON objects list their keys
        std::map<std::string, const std::vector<std::string>*> byName;
        for (std::size_t k = 0; k < r.infos.size(); k++)
        {
            if (!r.seen[k].empty())
            {
                byName[r.infos[k].name] = &r.seen[k];
            }
        }
        JsonObject t;
        for (const auto& [name, vals] : byName)
        {
            if (vals->size() == 1)
            {
                t.Str(name, (*vals)[0]);
            }
            else
            {
                t.StrList(name, *vals);
            }
        }
        attributes.Obj(r.name, t);
    }
    return attributes;
}

} // namespace

void
AddRunRecord(JsonObject& c)
{
    // every attribute of the run's rdma-cc objects, as they hold it: one value, or the
    // distinct values in the order the objects were built
    std::vector<TypeRecord> types; // in the order their first object was built
    // each type's record by TypeId, its readable attributes looked up once (not by name per
    // object: a 257-port incast spent 15 % of its process there); -1: a type not recorded
    std::map<uint16_t, int> typeIndex;
    for (const auto& o : detail::RunObjects())
    {
        const TypeId tid = o->GetInstanceTypeId();
        auto known = typeIndex.find(tid.GetUid());
        if (known == typeIndex.end())
        {
            const std::string type = tid.GetName();
            int index = -1;
            if (type == "ns3::RdmaNic" || type == "ns3::SwitchNode" ||
                type == "ns3::QbbNetDevice" || type == "ns3::QbbChannel" || type == "ns3::RawHost")
            {
                index = static_cast<int>(types.size());
                types.push_back(NewTypeRecord(tid, type));
            }
            known = typeIndex.emplace(tid.GetUid(), index).first;
        }
        if (known->second < 0)
        {
            continue;
        }
        RecordObject(types[known->second], o);
    }
    c.Obj("attributes", AttributesJson(types));
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
    build.Str("profile", RdmaCcProfile());
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

} // namespace rdmacc
} // namespace ns3
