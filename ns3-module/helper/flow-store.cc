/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-store.h"

#include "rdma-cc-error.h"
#include "rdma-cc-output.h"
#include <fcntl.h>
#include <unistd.h>

#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <type_traits>

namespace ns3
{
namespace rdmacc
{

FctCsvWriter::FctCsvWriter(const std::string& path,
                           const std::vector<std::string>* classOf,
                           bool withPriority,
                           bool withOp) :
    m_path(path),
    m_classOf(classOf),
    m_withPriority(withPriority),
    m_withOp(withOp)
{
    OpenPartial(m_f, m_path);
    m_f << "flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
           "retx_bytes,scheme"
        << (withPriority ? ",priority" : "") << (classOf ? ",class" : "") << (withOp ? ",op" : "")
        << '\n';
}

void
FctCsvWriter::Row(const FlowRecord& r)
{
    std::ofstream& f = m_f;
    f << r.flowId << ',' << r.src << ',' << r.dst << ',' << r.size << ','
      << r.start.GetNanoSeconds() << ',';
    if (r.finish.IsStrictlyNegative())
    {
        f << ",," << r.idealFct.GetNanoSeconds() << ",,";
    }
    else
    {
        const int64_t fct = (r.finish - r.start).GetNanoSeconds();
        f << r.finish.GetNanoSeconds() << ',' << fct << ',' << r.idealFct.GetNanoSeconds() << ','
          << std::fixed << std::setprecision(4) << double(fct) / r.idealFct.GetNanoSeconds() << ',';
        f.unsetf(std::ios::floatfield);
    }
    f << r.retxBytes << ',' << r.scheme;
    if (m_withPriority)
    {
        f << ',' << int(r.priority);
    }
    if (m_classOf)
    {
        f << ',' << (r.flowId < m_classOf->size() ? (*m_classOf)[r.flowId] : std::string());
    }
    if (m_withOp)
    {
        f << ',' << rdmacc_ffi::operation_name(static_cast<uint8_t>(r.op));
    }
    f << '\n';
}

void
FctCsvWriter::Commit()
{
    CommitPartial(m_f, m_path);
}

/// One record as FlowStore keeps it in its file (times as time steps, the scheme as an index)
struct FlowStore::Stored
{
    int64_t start;
    int64_t finish;
    int64_t requestArrived;
    uint64_t size;
    uint64_t retxBytes;
    uint64_t dupBytes;
    uint64_t bytesSent;
    uint64_t delivered;
    double minCw;
    uint64_t subPacketSends;
    uint64_t packetsSent;
    uint64_t probesSent;
    uint64_t timeouts;
    uint64_t nacks;
    uint64_t rereads;
    uint32_t flowId;
    uint32_t src;
    uint32_t dst;
    uint16_t scheme;
    uint8_t op;
    uint8_t priority;
    uint8_t present; // 0 in a hole of the file: no record put
    uint8_t pad[7];
};

FlowStore::FlowStore(std::string path) :
    m_path(std::move(path))
{
}

FlowStore::~FlowStore()
{
    Remove();
}

void
FlowStore::Remove()
{
    if (m_fd >= 0)
    {
        ::close(m_fd);
        m_fd = -1;
        std::remove(m_path.c_str());
        ForgetPartialFile(m_path);
    }
    m_buf.clear();
}

void
FlowStore::Put(const FlowRecord& r)
{
    static_assert(std::is_trivially_copyable<Stored>::value, "FlowStore records are raw bytes");
    static_assert(sizeof(Stored) == 144, "FlowStore record size");
    if (m_fd < 0)
    {
        RegisterPartialFile(m_path);
        m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (m_fd < 0)
        {
            ConfigFatal("--out", "cannot create " + m_path);
        }
    }
    Stored d;
    std::memset(&d, 0, sizeof(d));
    d.start = r.start.GetTimeStep();
    d.finish = r.finish.GetTimeStep();
    d.requestArrived = r.requestArrived.GetTimeStep();
    d.size = r.size;
    d.retxBytes = r.retxBytes;
    d.dupBytes = r.dupBytes;
    d.bytesSent = r.bytesSent;
    d.delivered = r.delivered;
    d.minCw = r.minCw;
    d.subPacketSends = r.subPacketSends;
    d.packetsSent = r.packetsSent;
    d.probesSent = r.probesSent;
    d.timeouts = r.timeouts;
    d.nacks = r.nacks;
    d.rereads = r.rereads;
    d.flowId = r.flowId;
    d.src = r.src;
    d.dst = r.dst;
    const auto it = std::find(m_schemes.begin(), m_schemes.end(), r.scheme);
    d.scheme = static_cast<uint16_t>(it - m_schemes.begin());
    if (it == m_schemes.end())
    {
        m_schemes.push_back(r.scheme);
    }
    d.op = static_cast<uint8_t>(r.op);
    d.priority = r.priority;
    d.present = 1;
    const uint64_t at = uint64_t(r.flowId) * sizeof(Stored);
    if (at >= m_bufAt && at + sizeof(Stored) <= m_bufAt + m_buf.size())
    {
        std::memcpy(m_buf.data() + (at - m_bufAt), &d, sizeof(d)); // put again, still buffered
        return;
    }
    // flows mostly finish in flow-id order: consecutive ones go out in one write
    if (at != m_bufAt + m_buf.size() || m_buf.size() >= 64 * 1024)
    {
        Flush();
        m_bufAt = at;
    }
    const char* bytes = reinterpret_cast<const char*>(&d);
    m_buf.insert(m_buf.end(), bytes, bytes + sizeof(d));
}

void
FlowStore::Flush()
{
    size_t done = 0;
    while (done < m_buf.size())
    {
        const ssize_t n = ::pwrite(
            m_fd, m_buf.data() + done, m_buf.size() - done, static_cast<off_t>(m_bufAt + done));
        if (n <= 0)
        {
            ConfigFatal("--out", "cannot write " + m_path + " (disk full?)");
        }
        done += static_cast<size_t>(n);
    }
    m_buf.clear();
}

size_t
FlowStore::ForEach(uint32_t n, const std::function<void(FlowRecord&)>& fn)
{
    if (m_fd < 0)
    {
        return 0;
    }
    Flush();
    size_t visited = 0;
    const uint32_t chunk = 4096; // records read at once
    std::vector<Stored> in(chunk);
    for (uint32_t first = 0; first < n; first += chunk)
    {
        const uint32_t want = std::min(chunk, n - first);
        size_t got = 0;
        while (got < want * sizeof(Stored))
        {
            const ssize_t r = ::pread(m_fd,
                                      reinterpret_cast<char*>(in.data()) + got,
                                      want * sizeof(Stored) - got,
                                      static_cast<off_t>(uint64_t(first) * sizeof(Stored) + got));
            if (r < 0)
            {
                ConfigFatal("--out", "cannot read " + m_path);
            }
            if (r == 0)
            {
                break; // the end of the file: no record of the flows after it
            }
            got += static_cast<size_t>(r);
        }
        const size_t records = got / sizeof(Stored);
        for (size_t i = 0; i < records; i++)
        {
            const Stored& d = in[i];
            if (!d.present)
            {
                continue;
            }
            FlowRecord f;
            f.flowId = d.flowId;
            f.src = d.src;
            f.dst = d.dst;
            f.size = d.size;
            f.start = TimeStep(d.start);
            f.finish = TimeStep(d.finish);
            f.retxBytes = d.retxBytes;
            f.dupBytes = d.dupBytes;
            f.bytesSent = d.bytesSent;
            f.delivered = d.delivered;
            f.minCw = d.minCw;
            f.subPacketSends = d.subPacketSends;
            f.packetsSent = d.packetsSent;
            f.probesSent = d.probesSent;
            f.timeouts = d.timeouts;
            f.nacks = d.nacks;
            f.scheme = m_schemes.at(d.scheme);
            f.op = static_cast<RdmaOp>(d.op);
            f.requestArrived = TimeStep(d.requestArrived);
            f.rereads = d.rereads;
            f.priority = d.priority;
            fn(f);
            visited++;
        }
        if (records < want)
        {
            break;
        }
    }
    return visited;
}

} // namespace rdmacc
} // namespace ns3
