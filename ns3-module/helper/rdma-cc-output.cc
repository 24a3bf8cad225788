/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-output.h"

#include "rdma-cc-error.h"
#include <sys/stat.h>

#include "ns3/string.h"
#include "ns3/type-id.h"

#include "rdma-cc/src/scenario.rs.h"
#include "rust/cxx.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>

namespace ns3
{
namespace rdmacc
{

double
PayloadLimitBps(uint64_t rateBps, uint64_t payload)
{
    return rdmacc_ffi::payload_limit_bps(rateBps, payload);
}

void
CheckIncastLimit(
    uint64_t limitNs, uint64_t rateBps, uint64_t senders, uint64_t size, uint64_t payload)
{
    try
    {
        rdmacc_ffi::incast_limit_check(limitNs, rateBps, senders, size, payload);
    }
    catch (const rust::Error& e)
    {
        ConfigFatal("command line", e.what());
    }
}

uint64_t
CheckedBytes(const std::string& field, double value, uint64_t min)
{
    if (!std::isfinite(value) || value < double(min) || value != std::floor(value) || value > 1e18)
    {
        std::ostringstream os;
        os << "invalid " << field << " = " << value
           << ": must be a whole number of bytes >= " << min;
        ConfigFatal("command line", os.str());
    }
    return static_cast<uint64_t>(value);
}

double
CheckedRange(const std::string& field, double value, double lo, double hi)
{
    if (!std::isfinite(value) || value < lo || value > hi)
    {
        std::ostringstream os;
        os << "invalid " << field << " = " << value << ": must be in [" << lo << ", " << hi << "]";
        ConfigFatal("command line", os.str());
    }
    return value;
}

void
CheckAttributeValue(const std::string& option,
                    const std::string& typeName,
                    const std::string& attr,
                    const std::string& value)
{
    TypeId tid;
    TypeId::AttributeInformation info;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid) || !tid.LookupAttributeByName(attr, &info))
    {
        ConfigFatal("command line", "no attribute " + typeName + "::" + attr);
    }
    const std::string accepted = info.checker->GetUnderlyingTypeInformation();
    bool ok;
    if (info.checker->GetValueTypeName().rfind("ns3::EnumValue", 0) == 0)
    {
        // enums: compare names ourselves (ns-3 >= 3.41 asserts on an unknown name)
        ok = ("|" + accepted + "|").find("|" + value + "|") != std::string::npos;
    }
    else
    {
        // the same test ObjectFactory applies before it aborts on a bad value
        ok = info.checker->CreateValidValue(StringValue(value)) != nullptr;
    }
    if (!ok)
    {
        ConfigFatal("command line",
                    "invalid " + option + " = " + value + ": not a valid " + typeName +
                        "::" + attr + " (accepted: " + accepted + ")");
    }
}

int64_t
CheckedTimeNs(const std::string& option, const std::string& text)
{
    static const std::pair<const char*, double> units[] = {
        {"ns", 1.0},
        {"us", 1e3},
        {"ms", 1e6},
        {"s", 1e9},
    };
    std::string num = text;
    double scale = 1e9;
    for (const auto& [suffix, mult] : units)
    {
        const std::string sfx(suffix);
        if (text.size() > sfx.size() &&
            text.compare(text.size() - sfx.size(), sfx.size(), sfx) == 0)
        {
            num = text.substr(0, text.size() - sfx.size());
            scale = mult;
            break;
        }
    }
    char* end = nullptr;
    const double v = num.empty() ? NAN : std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(v) || v < 0 ||
        v * scale > 9e18)
    {
        ConfigFatal("command line",
                    "invalid " + option + " = " + text +
                        ": must be a non-negative duration like 2us, 1.5ms, 0.1s or 800ns");
    }
    return static_cast<int64_t>(std::llround(v * scale));
}

int64_t
CheckedPositiveTimeNs(const std::string& option, const std::string& text)
{
    const int64_t ns = CheckedTimeNs(option, text);
    if (ns == 0)
    {
        ConfigFatal("command line", "invalid " + option + " = " + text + ": must be > 0");
    }
    return ns;
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
        if (mkdir(partial.c_str(), 0755) != 0)
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
    const uint64_t available = AvailableMemoryBytes();
    if (available == 0 || estimateBytes <= available)
    {
        return;
    }
    ConfigFatal("command line",
                what + " needs about " + FormatBytes(estimateBytes) +
                    " of memory (estimate), more than the " + FormatBytes(available) +
                    " available (MemAvailable in /proc/meminfo); " + remedy);
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
