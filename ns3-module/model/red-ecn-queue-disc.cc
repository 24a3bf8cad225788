/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "red-ecn-queue-disc.h"

#include "rdma-cc-compat.h"
#include "rdma-cc-error.h"
#include "rdma-cc-log.h"

#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/switch.rs.h"
#include "rust/cxx.h"

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

rdmacc_ffi::RedEcnParams
MakeParams(uint32_t kMin,
           uint32_t kMax,
           double pMax,
           RedEcnQueueDisc::NotEctMode notEct,
           uint32_t kFs,
           uint32_t bufMax)
{
    rdmacc_ffi::RedEcnParams p{};
    p.k_min = kMin;
    p.k_max = kMax;
    p.p_max = pMax;
    p.not_ect = static_cast<rdmacc_ffi::NotEctMode>(static_cast<uint8_t>(notEct));
    p.k_fs = kFs;
    p.buf_max = bufMax;
    return p;
}
} // namespace

TypeId
RedEcnQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RedEcnQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("RdmaCc")
            .AddConstructor<RedEcnQueueDisc>()
            .AddAttribute("KMin",
                          "Queue length (bytes) at which ECN marking starts: below it no packet "
                          "is marked. Must be <= KMax.",
                          UintegerValue(5000),
                          MakeUintegerAccessor(&RedEcnQueueDisc::m_kMin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("KMax",
                          "Queue length (bytes) from which every ECN-capable packet is marked; "
                          "between KMin and KMax the probability rises linearly to PMax.",
                          UintegerValue(200000),
                          MakeUintegerAccessor(&RedEcnQueueDisc::m_kMax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PMax",
                          "Marking probability reached just below KMax, in [0, 1] "
                          "(DCQCN default 0.01).",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&RedEcnQueueDisc::m_pMax),
                          MakeDoubleChecker<double>())
            .AddAttribute("NotEctMode",
                          "Treatment of Not-ECT packets: Accept (only BufMax applies), "
                          "ThresholdDrop (drop when the queue is at or above KFs: LDCP fast "
                          "start's WRED drop), RedDrop (drop where an ECT packet would be "
                          "marked).",
                          EnumValue(NOT_ECT_ACCEPT),
                          RDMACC_ENUM_ACCESSOR(NotEctMode, &RedEcnQueueDisc::m_notEct),
                          MakeEnumChecker(NOT_ECT_ACCEPT,
                                          "Accept",
                                          NOT_ECT_THRESHOLD_DROP,
                                          "ThresholdDrop",
                                          NOT_ECT_RED_DROP,
                                          "RedDrop"))
            .AddAttribute("KFs",
                          "WRED drop threshold (bytes) for Not-ECT packets when NotEctMode is "
                          "ThresholdDrop (\"K\" in the LDCP draft). Must be <= BufMax.",
                          UintegerValue(100000),
                          MakeUintegerAccessor(&RedEcnQueueDisc::m_kFs),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BufMax",
                          "Queue limit in bytes: a packet that would take the queue past it is "
                          "tail-dropped (reason queue_full).",
                          UintegerValue(1000000),
                          MakeUintegerAccessor(&RedEcnQueueDisc::m_bufMax),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

RedEcnQueueDisc::RedEcnQueueDisc() :
    QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
    m_kMin(0),
    m_kMax(0),
    m_pMax(0),
    m_notEct(NOT_ECT_ACCEPT),
    m_kFs(0),
    m_bufMax(1),
    m_uv(CreateObject<UniformRandomVariable>()),
    m_policy(nullptr)
{
    NS_LOG_FUNCTION(this);
}

RedEcnQueueDisc::~RedEcnQueueDisc()
{
    NS_LOG_FUNCTION(this);
    if (m_policy)
    {
        (void)rust::Box<rdmacc_ffi::RedEcn>::from_raw(m_policy);
        m_policy = nullptr;
    }
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
    for (const auto& [r, name] : ReasonTable())
    {
        if (r == reason)
        {
            return name.c_str();
        }
    }
    return "unknown";
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
        auto p =
            rdmacc_ffi::red_ecn_new(MakeParams(m_kMin, m_kMax, m_pMax, m_notEct, m_kFs, m_bufMax));
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
    return m_policy->mark_probability(q);
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
    const auto v = m_policy->on_enqueue(q, item->GetSize(), EcnBits(item), draw);
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
        auto box =
            rdmacc_ffi::red_ecn_new(MakeParams(m_kMin, m_kMax, m_pMax, m_notEct, m_kFs, m_bufMax));
        if (m_policy)
        {
            (void)rust::Box<rdmacc_ffi::RedEcn>::from_raw(m_policy);
        }
        m_policy = box.into_raw();
    }
    catch (const rust::Error& e)
    {
        rdmacc::ConfigFatal("ns3::RedEcnQueueDisc", e.what());
    }
    if (GetNInternalQueues() == 0)
    {
        auto q = CreateObject<DropTailQueue<QueueDiscItem>>();
        q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, m_bufMax));
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
