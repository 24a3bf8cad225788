/*
 * rdma-cc: ns-3 attributes generated from the Rust parameter tables.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_PARAMS_H
#define RDMA_CC_PARAMS_H

#include "ns3/attribute.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstddef>
#include <string>

namespace rdmacc_ffi
{
struct ParamValue;
} // namespace rdmacc_ffi

namespace ns3
{

/**
 * \ingroup rdma-cc
 * An ns-3 object whose attributes are the parameters of a Rust table (RdmaNic, ...): the
 * values live in a Rust object the owner holds, so defaults, bounds and help are defined once,
 * in Rust. The attributes are added by rdmacc::AddRustAttributes; their accessors call these
 * two methods.
 */
class RustParamOwner
{
  public:
    virtual ~RustParamOwner();
    /**
     * Checks and stores parameter `index` of the owner's table.
     * \param index the parameter's index in the table
     * \param v the value
     * \throws the bridge's error (cxx's Error) when Rust rejects the value (the message names
     *         the attribute); the attribute's accessor (see rdmacc::AddRustAttributes) then
     *         stops the program with that message (rdmacc::ConfigFatal, exit status 2)
     */
    virtual void SetRustParam(std::size_t index, const rdmacc_ffi::ParamValue& v) = 0;
    /**
     * Reads parameter `index` of the owner's table.
     * \param index the parameter's index in the table
     * \param out receives the value
     */
    virtual void GetRustParam(std::size_t index, rdmacc_ffi::ParamValue& out) const = 0;
    /**
     * Whether `other` holds the same value (a real's bits) in every parameter of the table:
     * then each of the two owners' parameter attributes reads the same. The run record reads
     * an owner's parameters only when they differ from the previous owner's of its type.
     * \param other another owner
     * \return true when known to be the same; false when not, or not known (this default)
     */
    virtual bool SameRustParams(const RustParamOwner& other) const;
};

namespace rdmacc
{

/// The Rust parameter tables that become attributes.
enum class ParamTable
{
    Nic,    //!< RdmaNic: every scheme's constants, the transport's timers, the receiver's policy
    Switch, //!< SwitchNode: the MMU (buffer, headroom, PFC thresholds), ECMP seed, control pool
    RedEcn, //!< RedEcnQueueDisc: RED/ECN marking, Not-ECT treatment, queue limit
};

/**
 * \ingroup rdma-cc
 * Adds one attribute to `tid` for every parameter of `table`: name, help (with the rule and
 * unit), initial value and type come from Rust. Reals are DoubleValue, counts and bytes
 * UintegerValue, durations TimeValue, rates DataRateValue, switches BooleanValue, names and
 * text StringValue. Checkers accept any value of the type: Rust checks the bounds when the
 * value is set and stops the program with a named error (exit status 2) if it is out of range.
 * The owner class must derive from RustParamOwner.
 * \param tid the TypeId being built
 * \param table which table
 * \param owner the owner's ns-3 type name, for error messages
 */
void AddRustAttributes(TypeId& tid, ParamTable table, const std::string& owner);

/**
 * \ingroup rdma-cc
 * \return whether `accessor` is that of a Rust parameter (added by AddRustAttributes): its
 *         value is a function of the owner's RustParamOwner::GetRustParam
 * \param accessor an attribute's accessor
 */
bool IsRustParamAccessor(const AttributeAccessor& accessor);

/**
 * \ingroup rdma-cc
 * \return a Rust parameter value as the ns-3 attribute value of the matching type (see
 *         AddRustAttributes)
 * \param v the value
 */
Ptr<AttributeValue> ToAttributeValue(const rdmacc_ffi::ParamValue& v);

/**
 * \ingroup rdma-cc
 * Checks a value of attribute `attr` of `table` against its Rust spec (kind and bounds)
 * without setting it anywhere: what setting the attribute would report.
 * \param table which table
 * \param attr the attribute's name
 * \param value the value
 * \return "" when valid, else the message naming the attribute, the value and the rule
 */
std::string CheckRustParam(ParamTable table, const std::string& attr, const AttributeValue& value);

} // namespace rdmacc
} // namespace ns3

#endif /* RDMA_CC_PARAMS_H */
