/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-output.h"

#include "rdma-cc-error.h"
#include <sys/stat.h>

#include "ns3/abort.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rust/cxx.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>

namespace ns3
{
namespace rdmacc
{

void
CsvRow::Check(bool fits)
{
    NS_ABORT_MSG_UNLESS(fits, "rdmacc::CsvRow: a row longer than its buffer");
}

void
ConfigFatalOnRustError(const std::string& where)
{
    try
    {
        throw;
    }
    catch (const rust::Error& e)
    {
        ConfigFatal(where, e.what());
    }
}

double
PayloadLimitBps(uint64_t rateBps, uint64_t payload, uint64_t extra)
{
    return rdmacc_ffi::payload_limit_bps(rateBps, payload, extra);
}

void
CheckRunLimit(uint64_t limitNs,
              const std::vector<uint64_t>& finishBoundsNs,
              const std::vector<uint64_t>& sizes,
              const std::vector<uint32_t>& receivers,
              const std::vector<uint64_t>& receiverRatesBps,
              uint64_t payload,
              uint64_t extra)
{
    OrConfigFatal(
        "command line",
        [&]
        {
            rdmacc_ffi::run_limit_check(
                limitNs,
                rust::Slice<const uint64_t>(finishBoundsNs.data(), finishBoundsNs.size()),
                rust::Slice<const uint64_t>(sizes.data(), sizes.size()),
                rust::Slice<const uint32_t>(receivers.data(), receivers.size()),
                rust::Slice<const uint64_t>(receiverRatesBps.data(), receiverRatesBps.size()),
                payload,
                extra);
        });
}

void
CheckIncastLimit(
    uint64_t limitNs, uint64_t rateBps, uint64_t senders, uint64_t size, uint64_t payload)
{
    CheckRunLimit(limitNs,
                  std::vector<uint64_t>(senders, 0),
                  std::vector<uint64_t>(senders, size),
                  std::vector<uint32_t>(senders, 0),
                  {rateBps},
                  payload,
                  0);
}

void
MakeOutputDir(const std::string& dir)
{
    std::string partial;
    std::istringstream parts(dir);
    std::string part;
    if (!dir.empty() && dir[0] == '/')
    {
        partial = "/";
    }
    while (std::getline(parts, part, '/'))
    {
        if (part.empty())
        {
            continue;
        }
        partial += part + "/";
        struct stat st;
        if (stat(partial.c_str(), &st) == 0)
        {
            if (!S_ISDIR(st.st_mode))
            {
                ConfigFatal("--out", partial + " exists and is not a directory");
            }
            continue;
        }
        // EEXIST: made meanwhile by another process (the ranks of a distributed run)
        if (mkdir(partial.c_str(), 0755) != 0 &&
            !(errno == EEXIST && stat(partial.c_str(), &st) == 0 && S_ISDIR(st.st_mode)))
        {
            ConfigFatal("--out", "cannot create directory " + partial);
        }
    }
}

void
OpenPartial(std::ofstream& f, const std::string& path)
{
    const std::string tmp = path + ".partial";
    f.open(tmp);
    if (!f)
    {
        ConfigFatal("--out", "cannot create " + tmp);
    }
    RegisterPartialFile(tmp);
}

void
CommitPartial(std::ofstream& f, const std::string& path)
{
    const std::string tmp = path + ".partial";
    f.flush();
    const bool written = static_cast<bool>(f);
    f.close();
    if (!written || f.fail())
    {
        ConfigFatal("--out", "cannot write " + tmp + " (disk full?)");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        ConfigFatal("--out", "cannot rename " + tmp + " to " + path);
    }
    ForgetPartialFile(tmp);
}

uint64_t
AvailableMemoryBytes()
{
    std::ifstream f("/proc/meminfo");
    std::string key;
    uint64_t value = 0;
    std::string unit;
    while (f >> key >> value)
    {
        std::getline(f, unit);
        if (key == "MemAvailable:")
        {
            return value * 1024; // the file's "kB" are KiB
        }
    }
    return 0;
}

std::string
FormatBytes(uint64_t bytes)
{
    static const std::pair<const char*, double> units[] = {
        {"TB", 1e12},
        {"GB", 1e9},
        {"MB", 1e6},
        {"KB", 1e3},
    };
    for (const auto& [name, scale] : units)
    {
        if (double(bytes) >= scale)
        {
            std::ostringstream os;
            os << std::setprecision(2) << std::fixed << double(bytes) / scale;
            std::string num = os.str();
            // 5.30 -> 5.3, 812.00 -> 812
            num.erase(num.find_last_not_of('0') + 1);
            if (num.back() == '.')
            {
                num.pop_back();
            }
            return num + " " + name;
        }
    }
    return std::to_string(bytes) + " B";
}

void
CheckMemory(uint64_t estimateBytes, const std::string& what, const std::string& remedy)
{
    CheckMemory(estimateBytes, what, remedy, AvailableMemoryBytes());
}

void
CheckMemory(uint64_t estimateBytes,
            const std::string& what,
            const std::string& remedy,
            uint64_t available)
{
    if (available == 0 || estimateBytes <= available)
    {
        return;
    }
    ConfigFatal("command line",
                what + " needs about " + FormatBytes(estimateBytes) +
                    " of memory (estimate), more than the " + FormatBytes(available) +
                    " available (MemAvailable in /proc/meminfo); " + remedy);
}

void
WarnCsvSize(const std::string& file, const std::string& size, const std::string& remedy)
{
    Warn("rdma-cc: warning: " + file + " will take " + size + "; " + remedy);
}

void
WarnEventCsvSize(uint64_t dataFrames, bool lossless, const std::string& remedy)
{
    // rows of about 40 B (drops.csv: time_ns,node,port,prio,reason,bytes) and 48 B (pfc.csv:
    // time_ns,node,port,prio,kind,quanta,duration_ns)
    const double limit = 1e9;
    const double drops = double(dataFrames) * 40;
    const double pfc = double(dataFrames) * 2 * 48;
    if (!lossless && drops > limit)
    {
        WarnCsvSize("drops.csv",
                    "up to about " + FormatBytes(static_cast<uint64_t>(drops)) +
                        " (a row per dropped frame, at worst one per data frame of the flows, "
                        "more with retransmissions)",
                    remedy);
    }
    if (lossless && pfc > limit)
    {
        WarnCsvSize("pfc.csv",
                    "up to about " + FormatBytes(static_cast<uint64_t>(pfc)) +
                        " (a row per PFC frame, at worst a PAUSE and a RESUME per data frame)",
                    remedy);
    }
}

std::string
DropCounts(const std::vector<std::pair<std::string, uint64_t>>& drops)
{
    std::string text;
    for (const auto& [reason, n] : drops)
    {
        if (n)
        {
            text += " " + reason + "=" + std::to_string(n);
        }
    }
    return text;
}

void
Invariants::Fail(const std::string& what)
{
    m_failed.push_back(what);
}

void
Invariants::Check(bool ok, const std::string& what)
{
    if (!ok)
    {
        Fail(what);
    }
}

bool
Invariants::Ok() const
{
    return m_failed.empty();
}

std::string
Invariants::Text() const
{
    std::string text;
    for (const auto& f : m_failed)
    {
        text += (text.empty() ? "" : "; ") + f;
    }
    return text.empty() ? "ok" : text;
}

std::string
Invariants::Verdict() const
{
    return Ok() ? "ok" : "FAILED";
}

int
Invariants::Report() const
{
    for (const auto& f : m_failed)
    {
        std::cerr << "rdma-cc: INVARIANT FAILED: " << f << "\n";
    }
    return Ok() ? 0 : 3;
}

namespace
{
std::string
Quote(const std::string& s)
{
    std::ostringstream os;
    os << '"';
    for (char c : s)
    {
        switch (c)
        {
        case '"':
            os << "\\\"";
            break;
        case '\\':
            os << "\\\\";
            break;
        case '\n':
            os << "\\n";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
            {
                os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c);
            }
            else
            {
                os << c;
            }
        }
    }
    os << '"';
    return os.str();
}
} // namespace

JsonObject&
JsonObject::Int(const std::string& key, int64_t v)
{
    m_members.emplace_back(key, std::to_string(v));
    return *this;
}

JsonObject&
JsonObject::UInt(const std::string& key, uint64_t v)
{
    m_members.emplace_back(key, std::to_string(v));
    return *this;
}

JsonObject&
JsonObject::UIntList(const std::string& key, const std::vector<uint64_t>& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++)
    {
        s += (i ? ", " : "") + std::to_string(v[i]);
    }
    m_members.emplace_back(key, s + "]");
    return *this;
}

JsonObject&
JsonObject::StrList(const std::string& key, const std::vector<std::string>& v)
{
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++)
    {
        s += (i ? ", " : "") + Quote(v[i]);
    }
    m_members.emplace_back(key, s + "]");
    return *this;
}

JsonObject&
JsonObject::Num(const std::string& key, double v)
{
    if (!std::isfinite(v))
    {
        m_members.emplace_back(key, "null");
        return *this;
    }
    std::ostringstream os;
    os << std::setprecision(10) << v;
    m_members.emplace_back(key, os.str());
    return *this;
}

JsonObject&
JsonObject::Bool(const std::string& key, bool v)
{
    m_members.emplace_back(key, v ? "true" : "false");
    return *this;
}

JsonObject&
JsonObject::Str(const std::string& key, const std::string& v)
{
    m_members.emplace_back(key, Quote(v));
    return *this;
}

JsonObject&
JsonObject::Obj(const std::string& key, const JsonObject& v)
{
    m_nested.push_back(v);
    m_members.emplace_back(key, "\x01" + std::to_string(m_nested.size() - 1));
    return *this;
}

JsonObject&
JsonObject::Merge(const JsonObject& other)
{
    for (const auto& [k, v] : other.m_members)
    {
        bool have = false;
        for (const auto& m : m_members)
        {
            have |= m.first == k;
        }
        if (have)
        {
            continue;
        }
        if (!v.empty() && v[0] == '\x01')
        {
            Obj(k, other.m_nested[std::stoul(v.substr(1))]);
        }
        else
        {
            m_members.emplace_back(k, v);
        }
    }
    return *this;
}

bool
JsonObject::Has(const std::string& key) const
{
    for (const auto& m : m_members)
    {
        if (m.first == key)
        {
            return true;
        }
    }
    return false;
}

std::vector<std::string>
JsonObject::Keys() const
{
    std::vector<std::string> keys;
    for (const auto& m : m_members)
    {
        keys.push_back(m.first);
    }
    return keys;
}

std::string
JsonObject::ToString(int indent) const
{
    std::string pad(2 * (indent + 1), ' ');
    std::ostringstream os;
    os << "{\n";
    for (size_t i = 0; i < m_members.size(); i++)
    {
        const auto& [k, v] = m_members[i];
        os << pad << Quote(k) << ": ";
        if (!v.empty() && v[0] == '\x01')
        {
            os << m_nested[std::stoul(v.substr(1))].ToString(indent + 1);
        }
        else
        {
            os << v;
        }
        os << (i + 1 < m_members.size() ? ",\n" : "\n");
    }
    os << std::string(2 * indent, ' ') << "}";
    return os.str();
}

void
JsonObject::WriteFile(const std::string& path) const
{
    std::ofstream f;
    OpenPartial(f, path);
    f << ToString() << "\n";
    CommitPartial(f, path);
}

} // namespace rdmacc
} // namespace ns3
