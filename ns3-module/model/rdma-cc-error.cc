/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

namespace ns3
{
namespace rdmacc
{

namespace
{
/// The `*.partial` files of this run not yet renamed (in creation order).
std::vector<std::string>&
PartialFiles()
{
    static std::vector<std::string> files;
    return files;
}
/// Warnings not yet printed.
struct PendingWarnings
{
    std::vector<std::string> lines;

    ~PendingWarnings()
    {
        // a program that ends without running the simulator still says what it warned about
        for (const auto& l : lines)
        {
            std::cerr << l << "\n";
        }
    }
};

PendingWarnings&
Pending()
{
    static PendingWarnings pending;
    return pending;
}
} // namespace

void
Warn(const std::string& line)
{
    Pending().lines.push_back(line);
}

void
FlushWarnings()
{
    auto& p = Pending();
    for (const auto& l : p.lines)
    {
        std::cerr << l << "\n";
    }
    p.lines.clear();
}

void
RegisterPartialFile(const std::string& path)
{
    auto& files = PartialFiles();
    if (std::find(files.begin(), files.end(), path) == files.end())
    {
        files.push_back(path);
    }
}

void
ForgetPartialFile(const std::string& path)
{
    auto& files = PartialFiles();
    files.erase(std::remove(files.begin(), files.end(), path), files.end());
}

void
RemovePartialFiles()
{
    // a file already renamed, or never created, is simply not there
    for (const auto& f : PartialFiles())
    {
        std::remove(f.c_str());
    }
    PartialFiles().clear();
}

void
ConfigFatal(const std::string& where, const std::string& message)
{
    // no output of a stopped run may look like one being written: remove the partial files
    RemovePartialFiles();
    // the refusal is the only line: warnings about a run that will not happen are dropped
    Pending().lines.clear();
    std::cout.flush();
    std::cerr << "rdma-cc: configuration error in " << where << ": " << message << std::endl;
    std::fflush(nullptr);
    std::_Exit(2);
}

} // namespace rdmacc
} // namespace ns3
