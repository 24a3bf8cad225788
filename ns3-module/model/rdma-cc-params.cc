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
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace ns3
{

RustParamOwner::~RustParamOwner() = default;

bool
RustParamOwner::SameRustParams(const RustParamOwner& /* other */) const
{
    return false;
}

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

/// The Rust value of an ns-3 attribute value of the type `kind` maps to (false: another type).
/// A negative duration stops the program with a message naming `where`.
bool
FromAttribute(ParamKind kind,
              const AttributeValue& value,
              const std::string& where,
              rdmacc_ffi::ParamValue& v)
{
    v.kind = kind;
    switch (kind)
    {
    case ParamKind::Real:
    {
        auto* d = dynamic_cast<const DoubleValue*>(&value);
        if (!d)
        {
            return false;
        }
        v.real = d->Get();
        return true;
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
        return true;
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
            rdmacc::ConfigFatal(where,
                                "invalid " + where + " = " +
                                    std::to_string(t->Get().GetNanoSeconds()) +
                                    " ns: must be >= 0");
        }
        v.uint = static_cast<uint64_t>(t->Get().GetNanoSeconds());
        return true;
    }
    case ParamKind::Rate:
    {
        auto* r = dynamic_cast<const DataRateValue*>(&value);
        if (!r)
        {
            return false;
        }
        v.uint = r->Get().GetBitRate();
        return true;
    }
    case ParamKind::Bool:
    {
        auto* b = dynamic_cast<const BooleanValue*>(&value);
        if (!b)
        {
            return false;
        }
        v.flag = b->Get();
        return true;
    }
    default:
    {
        auto* s = dynamic_cast<const StringValue*>(&value);
        if (!s)
        {
            return false;
        }
        v.text = s->Get();
        return true;
    }
    }
}

/// Reads and writes one parameter of a RustParamOwner.
class RustParamAccessor : public AttributeAccessor
{
  public:
    RustParamAccessor(std::size_t index,
                      ParamKind kind,
                      std::string owner,
                      const std::string& attr) :
        m_index(index),
        m_kind(kind),
        m_checker(CheckerOf(kind)),
        m_owner(std::move(owner)),
        m_where(m_owner + "::" + attr)
    {
    }

    bool
    Set(ObjectBase* object, const AttributeValue& value) const override
    {
        auto* owner = dynamic_cast<RustParamOwner*>(object);
        rdmacc_ffi::ParamValue v{};
        if (!owner || !FromAttribute(m_kind, value, m_where, v))
        {
            return false;
        }
        try
        {
            owner->SetRustParam(m_index, v);
        }
        catch (const rust::Error& e)
        {
            rdmacc::ConfigFatal(m_owner, e.what());
        }
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
        // read as text (a run record reads every object's attributes so, and the objects mostly
        // hold one value): the text of the value read last is kept, since the conversion below
        // costs ~8 000 instructions (a 257-host incast's config.json: 15 713 reads, 11 % of
        // its process)
        auto* text = dynamic_cast<StringValue*>(&attribute);
        if (text != nullptr && m_last.valid && SameValue(m_last.v, v))
        {
            text->Set(m_last.text);
            return true;
        }
        Ptr<AttributeValue> a = ToAttribute(v);
        // copy through the string form: AttributeValue has no generic assignment
        const bool ok = attribute.DeserializeFromString(a->SerializeToString(m_checker), m_checker);
        if (text != nullptr && ok)
        {
            m_last.valid = true;
            m_last.v = v;
            m_last.text = text->Get();
        }
        return ok;
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
    /// \return whether `a` and `b` are the same value (a real's bits, so -0 is not 0)
    static bool
    SameValue(const rdmacc_ffi::ParamValue& a, const rdmacc_ffi::ParamValue& b)
    {
        return a.kind == b.kind && std::memcmp(&a.real, &b.real, sizeof(a.real)) == 0 &&
               a.uint == b.uint && a.flag == b.flag && a.text == b.text;
    }

    /// The value read as text last, and its text.
    struct LastText
    {
        bool valid = false;       //!< one was read
        rdmacc_ffi::ParamValue v; //!< the value
        std::string text;         //!< what the StringValue held after reading it
    };

    std::size_t m_index;                   //!< index in the owner's table
    ParamKind m_kind;                      //!< kind of value
    Ptr<const AttributeChecker> m_checker; //!< CheckerOf(m_kind)
    std::string m_owner;                   //!< "ns3::RdmaNic", for errors Rust reports
    std::string m_where;                   //!< "ns3::RdmaNic::Attr", for errors found here
    mutable LastText m_last;               //!< Get's last text
};

/**
 * An attribute's initial value that knows its text: ns-3's ObjectBase::ConstructSelf writes
 * the initial value of every attribute of every object it builds as text for its log
 * (LOG_WHERE_VALUE, compiled in wherever ns-3 has logging, as Debian's has), 2 000-6 000
 * instructions each: half of building a NIC with its ~60 Rust parameters. The text is written
 * once, with the attribute's own checker (another checker gets V's own text); a copy keeps it,
 * and DeserializeFromString writes it again.
 */
template <typename V>
class InitialValue : public V
{
  public:
    /// \param v the value \param checker the attribute's checker
    InitialValue(const V& v, Ptr<const AttributeChecker> checker) :
        V(v),
        m_checker(std::move(checker)),
        m_text(v.V::SerializeToString(m_checker))
    {
    }

    Ptr<AttributeValue>
    Copy() const override
    {
        return Create<InitialValue<V>>(*this);
    }

    std::string
    SerializeToString(Ptr<const AttributeChecker> checker) const override
    {
        return PeekPointer(checker) == PeekPointer(m_checker) ? m_text
                                                              : V::SerializeToString(checker);
    }

    bool
    DeserializeFromString(std::string value, Ptr<const AttributeChecker> checker) override
    {
        const bool ok = V::DeserializeFromString(value, checker);
        m_text = V::SerializeToString(m_checker);
        return ok;
    }

  private:
    Ptr<const AttributeChecker> m_checker; //!< the attribute's checker
    std::string m_text;                    //!< the value's text with it
};

/// The initial value of an attribute of `checker` holding Rust's `v` (InitialValue of the type
/// ToAttribute makes).
Ptr<AttributeValue>
InitialAttribute(const rdmacc_ffi::ParamValue& v, const Ptr<const AttributeChecker>& checker)
{
    switch (v.kind)
    {
    case ParamKind::Real:
        return Create<InitialValue<DoubleValue>>(DoubleValue(v.real), checker);
    case ParamKind::Count:
    case ParamKind::Bytes:
        return Create<InitialValue<UintegerValue>>(UintegerValue(v.uint), checker);
    case ParamKind::Time:
        return Create<InitialValue<TimeValue>>(TimeValue(NanoSeconds(static_cast<int64_t>(v.uint))),
                                               checker);
    case ParamKind::Rate:
        return Create<InitialValue<DataRateValue>>(DataRateValue(DataRate(v.uint)), checker);
    case ParamKind::Bool:
        return Create<InitialValue<BooleanValue>>(BooleanValue(v.flag), checker);
    default:
        return Create<InitialValue<StringValue>>(StringValue(std::string(v.text)), checker);
    }
}

rust::Vec<rdmacc_ffi::ParamInfo>
SpecsOf(rdmacc::ParamTable table)
{
    switch (table)
    {
    case rdmacc::ParamTable::Switch:
        return rdmacc_ffi::switch_param_specs();
    case rdmacc::ParamTable::RedEcn:
        return rdmacc_ffi::red_ecn_param_specs();
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
        const Ptr<const AttributeChecker> checker = CheckerOf(s.kind);
        tid.AddAttribute(attr,
                         std::string(s.help),
                         *InitialAttribute(s.default_value, checker),
                         Create<RustParamAccessor>(i, s.kind, owner, attr),
                         checker);
    }
}

bool
IsRustParamAccessor(const AttributeAccessor& accessor)
{
    return dynamic_cast<const RustParamAccessor*>(&accessor) != nullptr;
}

Ptr<AttributeValue>
ToAttributeValue(const rdmacc_ffi::ParamValue& v)
{
    return ToAttribute(v);
}

std::string
CheckRustParam(ParamTable table, const std::string& attr, const AttributeValue& value)
{
    const auto specs = SpecsOf(table);
    for (std::size_t i = 0; i < specs.size(); i++)
    {
        if (std::string(specs[i].attr) != attr)
        {
            continue;
        }
        rdmacc_ffi::ParamValue v{};
        if (!FromAttribute(specs[i].kind, value, attr, v))
        {
            return "invalid " + attr + ": not a value of the attribute's type";
        }
        try
        {
            switch (table)
            {
            case ParamTable::Switch:
                rdmacc_ffi::switch_params_new()->set(i, v);
                break;
            case ParamTable::RedEcn:
                rdmacc_ffi::red_ecn_params_new()->set(i, v);
                break;
            case ParamTable::Nic:
            default:
                rdmacc_ffi::nic_params_new()->set(i, v);
                break;
            }
        }
        catch (const rust::Error& e)
        {
            return e.what();
        }
        return "";
    }
    return "no attribute " + attr;
}

} // namespace rdmacc
} // namespace ns3
