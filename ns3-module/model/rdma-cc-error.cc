/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-error.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace ns3
{
namespace rdmacc
{

void
ConfigFatal(const std::string& where, const std::string& message)
{
    std::cout.flush();
    std::cerr << "rdma-cc: configuration error in " << where << ": " << message << std::endl;
    std::fflush(nullptr);
    std::_Exit(2);
}

} // namespace rdmacc
} // namespace ns3
