/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-params.h"

#include "rdma-cc-error.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/object-base.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include "rdma-cc/src/params.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <cstdint>
#include <string>

namespace ns3
{

RustParamOwner::~RustParamOwner() = default;

namespace
{

using rdmacc_ffi::ParamKind;

/// A Rust value as an ns-3 attribute value of the matching type.
Ptr<AttributeValue>
ToAttribute(const rdmacc_ffi::ParamValue& v)
{
    switch (v.kind)
    {
    case ParamKind::Real:
        return Create<DoubleValue>(v.real);
    case ParamKind::Count:
    case ParamKind::Bytes:
        return Create<UintegerValue>(v.uint);
    case ParamKind::Time:
        return Create<TimeValue>(NanoSeconds(static_cast<int64_t>(v.uint)));
    case ParamKind::Rate:
        return Create<DataRateValue>(DataRate(v.uint));
    case ParamKind::Bool:
        return Create<BooleanValue>(v.flag);
    default:
        return Create<StringValue>(std::string(v.text));
    }
}

/// The checker of an attribute of `kind`: any value of the type (Rust checks the bounds).
Ptr<const AttributeChecker>
CheckerOf(ParamKind kind)
{
    switch (kind)
    {
    case ParamKind::Real:
        return MakeDoubleChecker<double>();
    case ParamKind::Count:
    case ParamKind::Bytes:
        return MakeUintegerChecker<uint64_t>();
    case ParamKind::Time:
        return MakeTimeChecker();
    case ParamKind::Rate:
        return MakeDataRateChecker();
    case ParamKind::Bool:
        return MakeBooleanChecker();
    default:
        return MakeStringChecker();
    }
}

/// Reads and writes one parameter of a RustParamOwner.
class RustParamAccessor : public AttributeAccessor
{
  public:
    RustParamAccessor(std::size_t index, ParamKind kind, std::string where) :
        m_index(index),
        m_kind(kind),
        m_where(std::move(where))
    {
    }

    bool
    Set(ObjectBase* object, const AttributeValue& value) const override
    {
        auto* owner = dynamic_cast<RustParamOwner*>(object);
        if (!owner)
        {
            return false;
        }
        rdmacc_ffi::ParamValue v{};
        v.kind = m_kind;
        switch (m_kind)
        {
        case ParamKind::Real:
        {
            auto* d = dynamic_cast<const DoubleValue*>(&value);
            if (!d)
            {
                return false;
            }
            v.real = d->Get();
            break;
        }
        case ParamKind::Count:
        case ParamKind::Bytes:
        {
            auto* u = dynamic_cast<const UintegerValue*>(&value);
            if (!u)
            {
                return false;
            }
            v.uint = u->Get();
            break;
        }
        case ParamKind::Time:
        {
            auto* t = dynamic_cast<const TimeValue*>(&value);
            if (!t)
            {
                return false;
            }
            if (t->Get().IsStrictlyNegative())
            {
                rdmacc::ConfigFatal(m_where,
                                    "invalid " + m_where + " = " +
                                        std::to_string(t->Get().GetNanoSeconds()) +
                                        " ns: must be >= 0");
            }
            v.uint = static_cast<uint64_t>(t->Get().GetNanoSeconds());
            break;
        }
        case ParamKind::Rate:
        {
            auto* r = dynamic_cast<const DataRateValue*>(&value);
            if (!r)
            {
                return false;
            }
            v.uint = r->Get().GetBitRate();
            break;
        }
        case ParamKind::Bool:
        {
            auto* b = dynamic_cast<const BooleanValue*>(&value);
            if (!b)
            {
                return false;
            }
            v.flag = b->Get();
            break;
        }
        default:
        {
            auto* s = dynamic_cast<const StringValue*>(&value);
            if (!s)
            {
                return false;
            }
            v.text = s->Get();
            break;
        }
        }
        owner->SetRustParam(m_index, v);
        return true;
    }

    bool
    Get(const ObjectBase* object, AttributeValue& attribute) const override
    {
        auto* owner = dynamic_cast<const RustParamOwner*>(object);
        if (!owner)
        {
            return false;
        }
        rdmacc_ffi::ParamValue v{};
        owner->GetRustParam(m_index, v);
        Ptr<AttributeValue> a = ToAttribute(v);
        // copy through the string form: AttributeValue has no generic assignment
        return attribute.DeserializeFromString(a->SerializeToString(CheckerOf(m_kind)),
                                               CheckerOf(m_kind));
    }

    bool
    HasGetter() const override
    {
        return true;
    }

    bool
    HasSetter() const override
    {
        return true;
    }

  private:
    std::size_t m_index; //!< index in the owner's table
    ParamKind m_kind;    //!< kind of value
    std::string m_where; //!< "ns3::RdmaNic::Attr", for errors
};

rust::Vec<rdmacc_ffi::ParamInfo>
SpecsOf(rdmacc::ParamTable table)
{
    switch (table)
    {
    case rdmacc::ParamTable::Nic:
    default:
        return rdmacc_ffi::nic_param_specs();
    }
}

} // namespace

namespace rdmacc
{

void
AddRustAttributes(TypeId& tid, ParamTable table, const std::string& owner)
{
    const auto specs = SpecsOf(table);
    for (std::size_t i = 0; i < specs.size(); i++)
    {
        const auto& s = specs[i];
        const std::string attr(s.attr);
        tid.AddAttribute(attr,
                         std::string(s.help),
                         *ToAttribute(s.default_value),
                         Create<RustParamAccessor>(i, s.kind, owner + "::" + attr),
                         CheckerOf(s.kind));
    }
}

Ptr<AttributeValue>
ToAttributeValue(const rdmacc_ffi::ParamValue& v)
{
    return ToAttribute(v);
}

} // namespace rdmacc
} // namespace ns3
