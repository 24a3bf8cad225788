/*
 * rdma-cc: the revision, build profile and ns-3 version a program was built from (config.json's
 * "build").
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-compat.h"
#include "rdma-cc-output.h"

// the top-level build (wscript) writes rdma-cc-revision.h, defining RDMACC_REVISION and
// RDMACC_PROFILE, at every build and compiles this file alone again when it changed
#ifdef RDMACC_HAS_REVISION
#include "rdma-cc-revision.h"
#endif

namespace ns3
{
namespace rdmacc
{

std::string
RdmaCcRevision()
{
#ifdef RDMACC_REVISION
    return RDMACC_REVISION;
#else
    return "unknown";
#endif
}

std::string
RdmaCcProfile()
{
#ifdef RDMACC_PROFILE
    return RDMACC_PROFILE;
#else
    return "unknown";
#endif
}

std::string
Ns3Version()
{
    return std::to_string(RDMACC_NS3_VERSION / 100) + "." +
           std::to_string(RDMACC_NS3_VERSION % 100);
}

} // namespace rdmacc
} // namespace ns3
