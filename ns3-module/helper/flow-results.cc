/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-results.h"

#include "rdma-cc-error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>

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
    Percentiles p;
    p.n = v.size();
    if (v.empty())
    {
        return p;
    }
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    auto rank = [&](double q)
    {
        size_t k = static_cast<size_t>(std::ceil(q * v.size()));
        return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
    };
    p.avg = sum / v.size();
    p.p50 = rank(0.50);
    p.p95 = rank(0.95);
    p.p99 = rank(0.99);
    p.max = v.back();
    return p;
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

void
WriteFctCsv(const std::string& path, std::vector<FlowRecord> flows)
{
    std::sort(flows.begin(),
              flows.end(),
              [](const FlowRecord& a, const FlowRecord& b) { return a.flowId < b.flowId; });
    std::ofstream f;
    OpenPartial(f, path);
    f << "flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,"
         "retx_bytes,scheme\n";
    for (const auto& r : flows)
    {
        f << r.flowId << ',' << r.src << ',' << r.dst << ',' << r.size << ','
          << r.start.GetNanoSeconds() << ',';
        if (r.finish.IsStrictlyNegative())
        {
            f << ",," << r.idealFct.GetNanoSeconds() << ",,";
        }
        else
        {
            const int64_t fct = (r.finish - r.start).GetNanoSeconds();
            f << r.finish.GetNanoSeconds() << ',' << fct << ',' << r.idealFct.GetNanoSeconds()
              << ',' << std::fixed << std::setprecision(4)
              << double(fct) / r.idealFct.GetNanoSeconds() << ',';
            f.unsetf(std::ios::floatfield);
        }
        f << r.retxBytes << ',' << r.scheme << '\n';
    }
    CommitPartial(f, path);
}

} // namespace rdmacc
} // namespace ns3
