/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-results.h"

#include "ns3/qbb-net-device.h"
#include "ns3/switch-node.h"

#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/wire.rs.h"
#include "rdma-cc/src/workload.rs.h"

#include <cmath>
#include <functional>
#include <iomanip>
#include <iostream>

namespace ns3
{
namespace rdmacc
{

void
FlowTotals::Add(const FlowRecord& f)
{
    sent += f.size;
    delivered += f.delivered;
    retx += f.retxBytes;
    dup += f.dupBytes;
    done += !f.finish.IsStrictlyNegative();
    subPacketSends += f.subPacketSends;
    packetsSent += f.packetsSent;
    probesSent += f.probesSent;
    minCw = std::min(minCw, f.minCw);
}

void
FlowTotals::SetStatistics(const FlowColumns& flows)
{
    fct = Percentiles::Of(Fcts(flows));
    slow = Percentiles::Of(Slowdowns(flows));
}

namespace
{

/// \return the data frames `d` put on its link (retransmissions included, PFC and
///         control-class frames not): each is one packet-hop
uint64_t
DataFrames(const QbbNetDevice& d)
{
    const auto& st = d.GetStats();
    uint64_t other = st.txControlFrames;
    for (size_t p = 0; p < st.pfcTx.size(); p++)
    {
        other += st.pfcTx[p] + st.resumeTx[p];
    }
    return st.txFrames - std::min(other, st.txFrames);
}

} // namespace

FabricTotals
FabricTotals::Of(const Fabric& fabric)
{
    FabricTotals t;
    // data frames put on a link, at every host NIC and switch port
    for (const auto& d : fabric.hostDevices)
    {
        t.dataFrameHops += DataFrames(*d);
    }
    for (const auto& s : fabric.switches)
    {
        for (uint32_t i = 0; i < s->GetNDevices(); i++)
        {
            if (const auto d = DynamicCast<QbbNetDevice>(s->GetDevice(i)))
            {
                t.dataFrameHops += DataFrames(*d);
            }
        }
    }
    for (const auto& s : fabric.switches)
    {
        const auto c = s->GetCounters();
        t.drops += c.drops_total;
        t.controlDrops += c.drops.control;
        t.controlForwarded += c.control_forwarded;
        t.marked += c.marked;
        const auto list = s->GetDropList();
        if (t.dropList.empty())
        {
            t.dropList = list;
        }
        else
        {
            for (size_t i = 0; i < list.size() && i < t.dropList.size(); i++)
            {
                t.dropList[i].second += list[i].second;
            }
        }
        const std::string a = s->CheckInvariants();
        if (!a.empty() && t.accounting.empty())
        {
            t.accounting =
                (fabric.switches.size() > 1 ? "node " + std::to_string(s->GetId()) + ": " : "") + a;
        }
    }
    return t;
}

std::string
FlowInvariantFailure(const FlowRecord& f)
{
    const bool finished = !f.finish.IsStrictlyNegative();
    if (f.delivered > f.size || (finished && f.delivered != f.size))
    {
        return "flow " + std::to_string(f.flowId) + " delivered " + std::to_string(f.delivered) +
               " of " + std::to_string(f.size) + " B" + (finished ? " but completed" : "");
    }
    // a READ's responses start when its request arrives, after the post; it finishes when
    // the requester has the last byte, after that
    if (f.op == RdmaOp::READ && !f.requestArrived.IsStrictlyNegative() &&
        (f.requestArrived < f.start || (finished && f.finish < f.requestArrived)))
    {
        return "READ flow " + std::to_string(f.flowId) + ": request arrived at " +
               std::to_string(f.requestArrived.GetNanoSeconds()) + " ns, outside [post " +
               std::to_string(f.start.GetNanoSeconds()) + ", finish] ns";
    }
    if (f.op == RdmaOp::READ && finished && f.requestArrived.IsStrictlyNegative())
    {
        return "READ flow " + std::to_string(f.flowId) +
               " completed but its responder never got the request";
    }
    if (finished && f.finish - f.start < f.idealFct)
    {
        return "flow " + std::to_string(f.flowId) + " finished in " +
               std::to_string((f.finish - f.start).GetNanoSeconds()) +
               " ns, below its lower bound " + std::to_string(f.idealFct.GetNanoSeconds()) + " ns";
    }
    return "";
}

void
CheckBottleneckInvariants(Invariants& inv,
                          const BottleneckFigures& b,
                          uint64_t bufMax,
                          uint64_t mtu)
{
    const double goodputActive = b.goodputActive;
    const double span = b.span;
    const double wireLimit = b.wireLimit;
    const double qAvg = b.qAvg;
    // congestion collapse: the bottleneck's buffer pinned full (time average >= 90 % of
    // --bufMax) while under 10 % of the wire limit is delivered. No run of a working scheme
    // does that; a rate-based LDCP incast did, and passed as "invariants ok" (issue 25)
    if (span > 0 && goodputActive < 0.10 * wireLimit && qAvg >= 0.90 * double(bufMax))
    {
        inv.Fail("congestion collapse: goodput " + std::to_string(goodputActive) +
                 " bit/s below 10 % of the wire limit " + std::to_string(wireLimit) +
                 " bit/s with the bottleneck queue pinned at its buffer (average " +
                 std::to_string(uint64_t(qAvg)) + " of " + std::to_string(bufMax) + " B)");
    }
    // a packet's bytes count when its last bit arrives: an interval of T holds at most
    // T / frame time + 1 packets, so the bound is the wire limit plus one payload per T
    if (span > 0 && goodputActive > rdmacc_ffi::goodput_ceiling_bps(wireLimit, mtu, span))
    {
        inv.Fail("goodput " + std::to_string(goodputActive) + " bit/s above the wire limit " +
                 std::to_string(wireLimit) + " bit/s");
    }
}

JsonObject
FctByClass(const FlowColumns& flows,
           const std::vector<std::string>& classOf,
           const std::vector<std::string>& order,
           std::vector<std::string>& table)
{
    JsonObject byClass;
    std::vector<std::string> names;
    std::vector<ClassFigures> figs;
    for (const auto& c : order)
    {
        figs.push_back(ClassFigures::Of(
            flows, [&](size_t id) { return id < classOf.size() && classOf[id] == c; }));
        names.push_back(c);
        byClass.Obj(c, figs.back().ToJson());
    }
    figs.push_back(ClassFigures::Of(flows, [](size_t) { return true; }));
    names.emplace_back("all");
    byClass.Obj("all", figs.back().ToJson());
    const auto t = ClassTable("by class", names, figs);
    table.insert(table.end(), t.begin(), t.end());
    return byClass;
}

JsonObject
FctBySize(const FlowColumns& flows, std::vector<std::string>& table)
{
    // the size classes are rust/workload's (RCM, NPC 2017, Fig. 9: mice below 1 MB,
    // elephants above 10 MB)
    std::vector<std::string> names = {"all"};
    std::vector<std::string> labels = {"all"};
    std::vector<std::function<bool(size_t)>> in = {[](size_t)
                                                   {
                                                       return true;
                                                   }};
    for (size_t c = 0; c < rdmacc_ffi::size_classes(); c++)
    {
        names.emplace_back(rdmacc_ffi::size_class_name(c, false));
        labels.emplace_back(rdmacc_ffi::size_class_name(c, true));
        in.emplace_back([c, &flows](size_t id)
                        { return rdmacc_ffi::size_class((*flows.size)[id]) == c; });
    }
    JsonObject bySize;
    std::vector<ClassFigures> figs;
    for (size_t i = 0; i < names.size(); i++)
    {
        figs.push_back(ClassFigures::Of(flows, in[i]));
        bySize.Obj(names[i], figs.back().ToJson());
    }
    const auto t = ClassTable("by size", labels, figs);
    table.insert(table.end(), t.begin(), t.end());
    return bySize;
}

namespace
{

/// The table's lines from the flows to the drops (PrintRunTable).
void
PrintFlowLines(const RunReport& r)
{
    const FlowTotals& t = r.totals;
    std::cout << std::fixed;
    std::cout << r.name << ": cc=" << r.cc << ", " << r.flows << " flows, " << r.fabric
              << ", K_min/K_max/P_max " << r.kMin << "/" << r.kMax << "/" << std::setprecision(2)
              << r.pMax << ", K_fs " << r.kFs << ", PFC " << (r.lossless ? "on" : "off") << "\n";
    std::cout << "  flows done        " << t.done << " / " << r.flows << "\n";
    std::cout << "  bytes delivered   " << t.delivered << " / " << t.sent << " (retransmitted "
              << t.retx << ", of which received twice " << t.dup << ")\n";
    std::cout << std::setprecision(1);
    std::cout << "  FCT us            avg " << t.fct.avg / 1e3 << "  p50 " << t.fct.p50 / 1e3
              << "  p95 " << t.fct.p95 / 1e3 << "  p99 " << t.fct.p99 / 1e3 << "  max "
              << t.fct.max / 1e3 << "\n";
    std::cout << std::setprecision(2);
    std::cout << "  slowdown          avg " << t.slow.avg << "  p50 " << t.slow.p50 << "  p95 "
              << t.slow.p95 << "  p99 " << t.slow.p99 << "  max " << t.slow.max << "\n";
    std::cout << "  bottleneck queue  max " << r.bottleneck.qMax << " B, after every first RTT ("
              << r.stableFromUs << " us) max " << r.bottleneck.qStable << " B, avg "
              << std::setprecision(0) << r.bottleneck.qAvg << " B\n";
    std::cout << "  drops             " << r.fabricTotals.drops << " (stable stage "
              << r.stableDrops << ", first RTT " << r.firstRttDrops << ")";
}

} // namespace

void
PrintRunTable(const RunReport& r,
              const std::string& verdict,
              const std::vector<std::string>& tables,
              bool quiet)
{
    const FlowTotals& t = r.totals;
    if (quiet)
    {
        std::cout << r.name << (r.caseName.empty() ? "" : " [" + r.caseName + "]")
                  << ": cc=" << r.cc << ", " << t.done << "/" << r.flows << " flows done, "
                  << r.pauses << " PAUSEs, " << r.fabricTotals.drops << " drops, invariants "
                  << verdict << "; wrote " << r.out << "/\n";
        return;
    }
    PrintFlowLines(r);
    std::cout << DropCounts(r.fabricTotals.dropList) << "\n"
              << std::setprecision(1) << "  goodput           " << r.bottleneck.goodputActive / 1e9
              << " Gb/s while every flow is active after its first RTT (wire limit "
              << r.bottleneck.wireLimit / 1e9 << " Gb/s)\n";
    std::cout << "  ECN marks         " << r.fabricTotals.marked << "; PFC pauses " << r.pauses
              << "; control frames " << r.fabricTotals.controlForwarded << "\n";
    std::cout << std::setprecision(3) << "  smallest cw       "
              << (std::isfinite(t.minCw) ? t.minCw : -1)
              << " packets; sent with cw < 1: " << t.subPacketSends << "\n";
    std::cout << "  invariants        " << verdict << "\n";
    std::cout << std::setprecision(2) << "  wall " << r.wall << " s, " << r.events << " events ("
              << std::setprecision(0) << (r.wall > 0 ? r.events / r.wall : 0) << " events/s)\n";
    for (const auto& line : tables)
    {
        std::cout << line << "\n";
    }
    std::cout << "  wrote " << r.out << "/summary.json, " << r.out << "/fct.csv"
              << (r.buckets ? ", " + r.out + "/buckets.csv" : "") << "\n";
}

} // namespace rdmacc
} // namespace ns3
