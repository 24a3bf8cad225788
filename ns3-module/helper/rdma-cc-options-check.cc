/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// rdmacc::Options: the check before the run (every attribute the command line set holds in the
// built run) and --dryRun.
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
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace ns3
{
namespace rdmacc
{

namespace detail
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

} // namespace detail

namespace
{

/**
 * \param objects the run's objects
 * \param type a TypeId's name
 * \param attr one of its attributes
 * \param value the value the command line set it to
 * \param otherValue called with the value an object of `type` holds instead of `value`
 * \return how many of `objects` are of `type` (or a child of it); what each type makes of the
 *         attribute is found once per type, not per object (257 NICs)
 */
template <typename F>
uint32_t
CountHolders(const std::vector<Ptr<Object>>& objects,
             const std::string& type,
             const std::string& attr,
             const std::string& value,
             F otherValue)
{
    const TypeId tid = TypeId::LookupByName(type);
    struct Holder
    {
        bool holds = false;     //!< the type is `type` or a child of it
        bool readable = false;  //!< its attribute `attr` is plain (detail::PlainAttribute)
        std::string normalised; //!< then `value` as that attribute writes it back
    };

    std::map<uint16_t, Holder> byType;
    uint32_t holders = 0;
    for (const auto& o : objects)
    {
        const TypeId own = o->GetInstanceTypeId();
        auto known = byType.find(own.GetUid());
        if (known == byType.end())
        {
            Holder h;
            h.holds = own == tid || own.IsChildOf(tid);
            if (h.holds)
            {
                TypeId::AttributeInformation info;
                own.LookupAttributeByName(attr, &info);
                h.readable = detail::PlainAttribute(info);
                if (h.readable)
                {
                    h.normalised = detail::Normalised(info, value);
                }
            }
            known = byType.emplace(own.GetUid(), std::move(h)).first;
        }
        const Holder& h = known->second;
        if (!h.holds)
        {
            continue;
        }
        holders++;
        StringValue held;
        if (h.readable && o->GetAttributeFailSafe(attr, held) && held.Get() != h.normalised)
        {
            otherValue(held.Get());
        }
    }
    return holders;
}

} // namespace

void
Options::CheckBeforeRun() const
{
    // what the command line set: each --ns3:: attribute, and each given option of a Rust table
    // whose Apply*Defaults handed it on (a NIC's, taken by ConfigureNic; an attribute's default)
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
            const auto [type, attr] = detail::SplitPath(d.attribute);
            TypeId::AttributeInformation info;
            NS_ABORT_MSG_UNLESS(TypeId::LookupByName(type).LookupAttributeByName(attr, &info),
                                "no attribute " << d.attribute);
            set.emplace_back(
                d.attribute,
                ToAttributeValue(m_impl->values.at(d.name))->SerializeToString(info.checker));
            written[d.attribute] = m_impl->form.at(d.name);
        }
    }
    const std::vector<Ptr<Object>> objects = detail::RunObjects();
    for (const auto& [path, value] : set)
    {
        const auto [type, attr] = detail::SplitPath(path);
        const uint32_t holders =
            CountHolders(objects,
                         type,
                         attr,
                         value,
                         [&](const std::string& held)
                         {
                             ConfigFatal("command line",
                                         written[path] + " changed nothing: " + m_impl->program +
                                             " sets " + path + " itself (to " + held +
                                             " here); use its options (see --help)");
                         });
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

} // namespace rdmacc
} // namespace ns3
