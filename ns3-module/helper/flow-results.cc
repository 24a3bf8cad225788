/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-results.h"

#include "rdma-cc-error.h"

#include "ns3/abort.h"

#include "rdma-cc/src/transport.rs.h"
#include "rdma-cc/src/workload.rs.h"
#include "rust/cxx.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

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
Slowdowns(const FlowColumns& flows, const std::function<bool(size_t)>& in)
{
    std::vector<double> v;
    v.reserve(flows.Flows());
    for (size_t id = 0; id < flows.Flows(); id++)
    {
        if (flows.HasSlowdown(id) && (!in || in(id)))
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
