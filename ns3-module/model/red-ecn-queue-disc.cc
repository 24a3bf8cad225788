/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "red-ecn-queue-disc.h"

#include "rdma-cc-error.h"
#include "rdma-cc-log.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-queue-disc-item.h"
#include "ns3/log.h"

#include "rdma-cc/src/params.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <array>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RedEcnQueueDisc");

NS_OBJECT_ENSURE_REGISTERED(RedEcnQueueDisc);

namespace
{
/// Every drop reason with its name, as Rust lists them (built once; the names are kept here so
/// that traces can take a NUL-terminated `const char*`).
const std::vector<std::pair<rdmacc_ffi::DropReason, std::string>>&
ReasonTable()
{
    static const auto table = []
    {
        std::vector<std::pair<rdmacc_ffi::DropReason, std::string>> t;
        for (const auto r : rdmacc_ffi::drop_reasons())
        {
            t.emplace_back(r, std::string(rdmacc_ffi::drop_reason_name(r)));
        }
        return t;
    }();
    return table;
}

/// The name of every drop reason, indexed by its code ("unknown" where Rust lists none).
const std::array<const char*, 256>&
NameByCode()
{
    static const auto names = []
    {
        std::array<const char*, 256> n;
        n.fill("unknown");
        const auto& t = ReasonTable();
        // backwards: a code listed twice keeps its first name
        for (auto it = t.rbegin(); it != t.rend(); ++it)
        {
            n[static_cast<uint8_t>(it->first)] = it->second.c_str();
        }
        return n;
    }();
    return names;
}

} // namespace

/// The queue's settings (the Rust RedEcnConfig behind the attributes).
struct RedEcnQueueDisc::Params
{
    rust::Box<rdmacc_ffi::RedEcnParams> p = rdmacc_ffi::red_ecn_params_new();
};

/// The Rust policy, freed with its holder.
struct RedEcnQueueDisc::Policy
{
    rust::Box<rdmacc_ffi::RedEcn> p;
};

TypeId
RedEcnQueueDisc::GetTypeId()
{
    static TypeId tid = []()
    {
        TypeId t = TypeId("ns3::RedEcnQueueDisc")
                       .SetParent<QueueDisc>()
                       .SetGroupName("RdmaCc")
                       .AddConstructor<RedEcnQueueDisc>();
        rdmacc::AddRustAttributes(t, rdmacc::ParamTable::RedEcn, "ns3::RedEcnQueueDisc");
        return t;
    }();
    return tid;
}

RedEcnQueueDisc::RedEcnQueueDisc() :
    QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
    m_params(std::make_unique<Params>()),
    m_uv(CreateObject<UniformRandomVariable>()),
    m_policy()
{
    NS_LOG_FUNCTION(this);
}

void
RedEcnQueueDisc::SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v)
{
    m_params->p->set(index, v);
}

void
RedEcnQueueDisc::TakeParams(const rdmacc_ffi::RedEcnParams& from,
                            const std::vector<std::size_t>& indices)
{
    NS_ABORT_MSG_IF(m_policy, "RedEcnQueueDisc::TakeParams after the queue disc was initialised");
    try
    {
        for (const std::size_t i : indices)
        {
            m_params->p->set(i, from.get(i));
        }
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RedEcnQueueDisc", e.what());
    }
}

void
RedEcnQueueDisc::GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const
{
    out = m_params->p->get(index);
}

RedEcnQueueDisc::~RedEcnQueueDisc()
{
    NS_LOG_FUNCTION(this);
}

int64_t
RedEcnQueueDisc::AssignStreams(int64_t stream)
{
    m_uv->SetStream(stream);
    return 1;
}

const char*
RedEcnQueueDisc::DropReasonName(rdmacc_ffi::DropReason reason)
{
    return NameByCode()[static_cast<uint8_t>(reason)];
}

const std::vector<std::string>&
RedEcnQueueDisc::DropReasonNames()
{
    static const auto names = []
    {
        std::vector<std::string> n;
        for (const auto& [r, name] : ReasonTable())
        {
            n.push_back(name);
        }
        return n;
    }();
    return names;
}

std::string
RedEcnQueueDisc::ValidateConfig() const
{
    try
    {
        m_params->p->validate();
        return "";
    }
    catch (const rust::Error& e)
    {
        return e.what();
    }
}

double
RedEcnQueueDisc::MarkProbability(uint64_t q) const
{
    NS_ASSERT_MSG(m_policy, "MarkProbability before the queue disc was initialised");
    return m_policy->p->mark_probability(q);
}

uint8_t
RedEcnQueueDisc::EcnBits(Ptr<const QueueDiscItem> item)
{
    if (auto v4 = DynamicCast<const Ipv4QueueDiscItem>(item))
    {
        return static_cast<uint8_t>(v4->GetHeader().GetEcn()) & 3;
    }
    if (auto v6 = DynamicCast<const Ipv6QueueDiscItem>(item))
    {
        return v6->GetHeader().GetTrafficClass() & 3;
    }
    return 0;
}

bool
RedEcnQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    const uint64_t q = GetInternalQueue(0)->GetNBytes();
    const double draw = m_uv->GetValue();
    const auto v = m_policy->p->on_enqueue(q, item->GetSize(), EcnBits(item), draw);
    if (v.action == rdmacc_ffi::Action::Drop)
    {
        NS_LOG_LOGIC("drop " << DropReasonName(v.reason) << " at q=" << q);
        DropBeforeEnqueue(item, DropReasonName(v.reason));
        return false;
    }
    if (v.action == rdmacc_ffi::Action::Mark)
    {
        Mark(item, MARK_REASON);
    }
    const bool ok = GetInternalQueue(0)->Enqueue(item);
    NS_ASSERT_MSG(ok, "internal queue refused a packet the policy admitted");
    return ok;
}

Ptr<QueueDiscItem>
RedEcnQueueDisc::DoDequeue()
{
    return GetInternalQueue(0)->Dequeue();
}

Ptr<const QueueDiscItem>
RedEcnQueueDisc::DoPeek()
{
    return GetInternalQueue(0)->Peek();
}

bool
RedEcnQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        rdmacc::ConfigFatal("ns3::RedEcnQueueDisc",
                            "takes no queue disc classes or packet filters");
    }
    rdmacc::SyncLog();
    try
    {
        m_policy = std::make_unique<Policy>(Policy{rdmacc_ffi::red_ecn_new(*m_params->p)});
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RedEcnQueueDisc", e.what());
    }
    if (GetNInternalQueues() == 0)
    {
        auto q = CreateObject<DropTailQueue<QueueDiscItem>>();
        // a backstop only: the policy tail-drops at BufMax first
        const uint64_t limit = m_params->p->buf_max();
        q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES,
                                static_cast<uint32_t>(std::min<uint64_t>(limit, UINT32_MAX))));
        AddInternalQueue(q);
    }
    return GetNInternalQueues() == 1;
}

void
RedEcnQueueDisc::InitializeParams()
{
    NS_LOG_FUNCTION(this);
}

} // namespace ns3
