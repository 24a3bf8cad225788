/*
 * rdma-cc: the few spellings that differ between the ns-3 releases we build against
 * (Debian's 3.37, C++17, and PyPI's 3.44, C++20). RDMACC_NS3_VERSION is major*100+minor and is
 * defined by the build (wscript).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_COMPAT_H
#define RDMA_CC_COMPAT_H

#include "ns3/enum.h"

#ifndef RDMACC_NS3_VERSION
#error "RDMACC_NS3_VERSION must be defined by the build (see wscript)"
#endif

#if RDMACC_NS3_VERSION >= 341
/// MakeEnumAccessor: ns-3.41 made EnumValue a template over the enum type.
#define RDMACC_ENUM_ACCESSOR(T, member) ns3::MakeEnumAccessor<T>(member)
#else
/// MakeEnumAccessor: before ns-3.41 EnumValue held an int.
#define RDMACC_ENUM_ACCESSOR(T, member) ns3::MakeEnumAccessor(member)
#endif

#endif /* RDMA_CC_COMPAT_H */
