/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// rdmacc::Options: the command line parsed (arguments, --help, ns-3's listings).
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

namespace detail
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

} // namespace detail

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
Options::Impl::Attribute(const std::string& arg, const std::string& name, const std::string& value)
{
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
        Attribute(arg, name, value);
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
                            detail::KindLabel(d.kind));
        }
        text = "true";
    }
    OrConfigFatal("command line", [&] { SetOption(d, text, arg); });
}
void
Options::Parse(int argc, char** argv)
{
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
}

void
Options::PrintHelp() const
{
    std::cout << "Usage: " << m_impl->program << " [--OPTION=VALUE ...]\n\n"
              << m_impl->description << "\n\nOptions (VALUE rules, [default]):\n";
    for (const auto& d : m_impl->decls)
    {
        const bool stop = !d.help.empty() && d.help.back() == '.';
        std::cout << "  --" << d.name << "="
                  << (d.list ? std::string("LIST") : detail::KindLabel(d.kind)) << "\n      "
                  << d.help << (stop ? "" : ".");
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

} // namespace rdmacc
} // namespace ns3
