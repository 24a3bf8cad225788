/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-results.h"

#include "rdma-cc-error.h"
#include <fcntl.h>
#include <unistd.h>

#include "ns3/abort.h"

#include "rdma-cc/src/transport.rs.h"
#include "rdma-cc/src/workload.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>
#include <type_traits>

namespace ns3
{
namespace rdmacc
{

double
JainIndex(const std::vector<double>& x)
{
    double sum = 0;
    double sq = 0;
    for (double v : x)
    {
        sum += v;
        sq += v * v;
    }
    return sq > 0 ? sum * sum / (double(x.size()) * sq) : 0;
}

Percentiles
Percentiles::Of(std::vector<double> v)
{
    // the statistics are Rust's (rdma_cc_workload::Summary: nearest-rank percentiles, the mean
    // of the sorted sample), as the slowdown table's
    const auto s = rdmacc_ffi::sample_summary(rust::Slice<const double>(v.data(), v.size()));
    Percentiles p;
    p.n = static_cast<size_t>(s.n);
    p.avg = s.avg;
    p.p50 = s.p50;
    p.p95 = s.p95;
    p.p99 = s.p99;
    p.max = s.max;
    return p;
}

uint64_t
Percentiles::OfHistogram(const std::map<uint64_t, uint64_t>& histogram, uint64_t percent)
{
    std::vector<uint64_t> values;
    std::vector<uint64_t> counts;
    values.reserve(histogram.size());
    counts.reserve(histogram.size());
    for (const auto& [value, count] : histogram)
    {
        values.push_back(value);
        counts.push_back(count);
    }
    return rdmacc_ffi::histogram_percentile(
        rust::Slice<const uint64_t>(values.data(), values.size()),
        rust::Slice<const uint64_t>(counts.data(), counts.size()),
        percent);
}

JsonObject
Percentiles::ToJson() const
{
    JsonObject o;
    o.Num("avg", avg).Num("p50", p50).Num("p95", p95).Num("p99", p99).Num("max", max);
    return o;
}

std::vector<double>
Fcts(const std::vector<FlowRecord>& flows)
{
    std::vector<double> v;
    for (const auto& f : flows)
    {
        if (!f.finish.IsStrictlyNegative())
        {
            v.push_back((f.finish - f.start).GetNanoSeconds());
        }
    }
    return v;
}

std::vector<double>
Slowdowns(const std::vector<FlowRecord>& flows)
{
    std::vector<double> v;
    for (const auto& f : flows)
    {
        if (!f.finish.IsStrictlyNegative() && f.idealFct.IsStrictlyPositive())
        {
            v.push_back(double((f.finish - f.start).GetNanoSeconds()) /
                        f.idealFct.GetNanoSeconds());
        }
    }
    return v;
}

int64_t
FlowColumns::FctOf(const FlowRecord& r)
{
    return r.finish.IsStrictlyNegative() ? UNFINISHED : (r.finish - r.start).GetNanoSeconds();
}

std::vector<double>
Fcts(const FlowColumns& flows)
{
    std::vector<double> v;
    v.reserve(flows.Flows());
    for (size_t id = 0; id < flows.Flows(); id++)
    {
        if (flows.Done(id))
        {
            v.push_back(flows.fct[id]);
        }
    }
    return v;
}

std::vector<double>
Slowdowns(const FlowColumns& flows)
{
    std::vector<double> v;
    v.reserve(flows.Flows());
    for (size_t id = 0; id < flows.Flows(); id++)
    {
        if (flows.HasSlowdown(id))
        {
            v.push_back(flows.Slowdown(id));
        }
    }
    return v;
}

ClassFigures
ClassFigures::Of(const FlowColumns& flows, const std::function<bool(size_t)>& in)
{
    // one sample at a time, each in a vector of its exact size: at the end of a run of N
    // flows this is the peak of memory, so no copy of both and no growth slack
    ClassFigures c;
    for (size_t id = 0; id < flows.Flows(); id++)
    {
        if (in(id))
        {
            c.flows++;
            c.bytes += (*flows.size)[id];
            c.unfinished += flows.Done(id) ? 0 : 1;
        }
    }
    std::vector<double> v;
    v.reserve(c.flows - c.unfinished);
    for (size_t id = 0; id < flows.Flows(); id++)
    {
        if (in(id) && flows.Done(id))
        {
            v.push_back(double(flows.fct[id]));
        }
    }
    c.fct = Percentiles::Of(std::move(v));
    v = std::vector<double>();
    v.reserve(c.flows - c.unfinished);
    for (size_t id = 0; id < flows.Flows(); id++)
    {
        if (in(id) && flows.Done(id))
        {
            const double ns = double(flows.fct[id]);
            v.push_back(ns > 0 ? double((*flows.size)[id]) * 8e9 / ns : 0);
        }
    }
    c.throughput = Percentiles::Of(std::move(v));
    return c;
}

JsonObject
ClassFigures::ToJson() const
{
    JsonObject o;
    o.UInt("flows", flows)
        .UInt("unfinished", unfinished)
        .UInt("bytes", bytes)
        .Obj("fct_ns", fct.ToJson())
        .Obj("throughput_bps", throughput.ToJson());
    return o;
}

std::vector<std::string>
ClassTable(const std::string& title,
           const std::vector<std::string>& names,
           const std::vector<ClassFigures>& figures)
{
    std::vector<std::string> t;
    std::ostringstream head;
    head << "  " << std::left << std::setw(20) << title << std::right << std::setw(8) << "flows"
         << std::setw(12) << "unfinished" << std::setw(14) << "FCT avg us" << std::setw(14)
         << "FCT p99 us" << std::setw(22) << "throughput avg Gb/s";
    t.push_back(head.str());
    for (size_t i = 0; i < names.size() && i < figures.size(); i++)
    {
        const auto& c = figures[i];
        std::ostringstream row;
        row << "    " << std::left << std::setw(18) << names[i] << std::right << std::setw(8)
            << c.flows << std::setw(12) << c.unfinished << std::fixed << std::setprecision(1)
            << std::setw(14) << c.fct.avg / 1e3 << std::setw(14) << c.fct.p99 / 1e3
            << std::setprecision(2) << std::setw(22) << c.throughput.avg / 1e9;
        t.push_back(row.str());
    }
    return t;
}

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

JsonObject
WriteSlowdownBuckets(const std::string& path,
                     const FlowColumns& flows,
                     std::vector<std::string>& table)
{
    const size_t n = flows.Flows();
    std::vector<double> slowdowns;
    slowdowns.reserve(n);
    for (size_t id = 0; id < n; id++)
    {
        // as Slowdowns: finished flows with a lower bound; NaN marks the others
        slowdowns.push_back(flows.HasSlowdown(id) ? flows.Slowdown(id) : std::nan(""));
    }
    const auto buckets =
        rdmacc_ffi::slowdown_buckets(rust::Slice<const uint64_t>(flows.size->data(), n),
                                     rust::Slice<const double>(slowdowns.data(), slowdowns.size()));
    std::ofstream f;
    OpenPartial(f, path);
    f << "bucket,min_bytes,max_bytes,flows,unfinished,avg,p50,p95,p99,max\n";
    JsonObject json;
    std::ostringstream head;
    head << "  slowdown by size   " << std::setw(12) << "flows" << std::setw(9) << "p50"
         << std::setw(9) << "p95" << std::setw(9) << "p99";
    table.push_back(head.str());
    for (const auto& b : buckets)
    {
        const std::string label(b.label.data(), b.label.size());
        const bool open = b.max_bytes == std::numeric_limits<uint64_t>::max();
        f << label << ',' << b.min_bytes << ',' << (open ? "" : std::to_string(b.max_bytes)) << ','
          << b.flows << ',' << b.unfinished << ',' << std::fixed << std::setprecision(4) << b.avg
          << ',' << b.p50 << ',' << b.p95 << ',' << b.p99 << ',' << b.max << '\n';
        f.unsetf(std::ios::floatfield);
        JsonObject o;
        o.UInt("flows", b.flows)
            .UInt("unfinished", b.unfinished)
            .Num("avg", b.avg)
            .Num("p50", b.p50)
            .Num("p95", b.p95)
            .Num("p99", b.p99)
            .Num("max", b.max);
        json.Obj(label, o);
        std::ostringstream row;
        row << "    " << std::left << std::setw(16) << label << std::right << std::setw(12)
            << b.flows << std::fixed << std::setprecision(2) << std::setw(9) << b.p50
            << std::setw(9) << b.p95 << std::setw(9) << b.p99;
        if (b.unfinished > 0)
        {
            row << "  (" << b.unfinished << " unfinished)";
        }
        table.push_back(row.str());
    }
    CommitPartial(f, path);
    return json;
}

SummaryWriter::SummaryWriter(const std::string& example, const std::string& scheme, uint64_t seed)
{
    m_obj.Str("example", example).Str("scheme", scheme).UInt("seed", seed);
}

JsonObject&
SummaryWriter::Keys()
{
    return m_obj;
}

SummaryWriter&
SummaryWriter::Run(uint64_t simTimeNs, double wallS, uint64_t events)
{
    m_obj.UInt("sim_time_ns", simTimeNs).Num("wall_s", wallS).UInt("events", events);
    return *this;
}

SummaryWriter&
SummaryWriter::Ending(bool complete, RunEnds ends)
{
    m_obj.Bool("complete", complete)
        .Str("run_ends", ends == RunEnds::Duration ? "duration" : "flows_done");
    return *this;
}

SummaryWriter&
SummaryWriter::Bytes(uint64_t sent, uint64_t delivered)
{
    m_obj.UInt("bytes_sent", sent).UInt("bytes_delivered", delivered);
    return *this;
}

SummaryWriter&
SummaryWriter::Drops(const std::vector<std::pair<std::string, uint64_t>>& byReason)
{
    JsonObject drops;
    uint64_t total = 0;
    for (const auto& [reason, n] : byReason)
    {
        drops.UInt(reason, n);
        total += n;
    }
    m_obj.Obj("drops", drops).UInt("drops_total", total);
    return *this;
}

SummaryWriter&
SummaryWriter::WireLimit(double bps)
{
    m_obj.Num("wire_limit_bps", bps);
    return *this;
}

SummaryWriter&
SummaryWriter::Marks(uint64_t marks)
{
    m_obj.UInt("marks", marks);
    return *this;
}

SummaryWriter&
SummaryWriter::Queue(uint64_t maxBytes, double avgBytes)
{
    m_obj.UInt("queue_max_bytes", maxBytes).Num("queue_avg_bytes", avgBytes);
    return *this;
}

const std::vector<std::string>&
SummaryWriter::SharedKeys()
{
    static const std::vector<std::string> keys = {"example",
                                                  "scheme",
                                                  "seed",
                                                  "sim_time_ns",
                                                  "wall_s",
                                                  "events",
                                                  "complete",
                                                  "run_ends",
                                                  "bytes_sent",
                                                  "bytes_delivered",
                                                  "drops",
                                                  "drops_total",
                                                  "wire_limit_bps",
                                                  "marks",
                                                  "queue_max_bytes",
                                                  "queue_avg_bytes",
                                                  "invariants"};
    return keys;
}

void
SummaryWriter::Write(const std::string& path, const Invariants& inv)
{
    m_obj.Str("invariants", inv.Text());
    const auto keys = m_obj.Keys();
    for (size_t i = 0; i < keys.size(); i++)
    {
        NS_ABORT_MSG_IF(std::find(keys.begin() + i + 1, keys.end(), keys[i]) != keys.end(),
                        "summary.json: key " << keys[i] << " written twice");
    }
    for (const auto& k : SharedKeys())
    {
        NS_ABORT_MSG_UNLESS(m_obj.Has(k), "summary.json: shared key " << k << " missing");
    }
    m_obj.WriteFile(path);
}

} // namespace rdmacc
} // namespace ns3
