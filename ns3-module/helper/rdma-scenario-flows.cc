/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// RdmaScenario's flow records: those the NICs hand over as flows end (a temporary file, read
// back in flow-id order), every rank's in a distributed run, and the one pass over them that
// Finish's figures come from.
#include "rdma-scenario.h"

#ifdef NS3_MPI
#include <mpi.h>

#include "ns3/mpi-interface.h"
#endif

#include <sstream>

namespace ns3
{

#ifdef NS3_MPI
namespace
{

/// \return the text of every rank, in rank order (`mine` is this rank's)
std::string
AllGatherText(const std::string& text)
{
    int n = static_cast<int>(text.size());
    const int ranks = static_cast<int>(MpiInterface::GetSize());
    std::vector<int> sizes(ranks);
    MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::vector<int> offsets(ranks, 0);
    for (int r = 1; r < ranks; r++)
    {
        offsets[r] = offsets[r - 1] + sizes[r - 1];
    }
    std::string all(static_cast<size_t>(offsets[ranks - 1] + sizes[ranks - 1]), '\0');
    MPI_Allgatherv(
        text.data(), n, MPI_CHAR, &all[0], sizes.data(), offsets.data(), MPI_CHAR, MPI_COMM_WORLD);
    return all;
}

/// \return the flow records of `all` (GatherFlows' lines), by flow id, with their receivers'
///         counts
std::map<uint32_t, FlowRecord>
DecodeRecords(const std::string& all)
{
    std::map<uint32_t, FlowRecord> byId;
    std::vector<std::pair<uint32_t, std::pair<uint64_t, uint64_t>>> rx;
    std::istringstream in(all);
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream l(line);
        std::string tag;
        l >> tag;
        if (tag == "S")
        {
            FlowRecord f;
            int64_t start = 0;
            int64_t finish = 0;
            std::string cw;
            l >> f.flowId >> f.src >> f.dst >> f.size >> start >> finish >> f.retxBytes >>
                f.bytesSent >> cw >> f.subPacketSends >> f.packetsSent >> f.probesSent >>
                f.timeouts >> f.nacks >> f.scheme;
            int prio = 0;
            l >> prio;
            f.priority = static_cast<uint8_t>(prio);
            f.minCw = std::strtod(cw.c_str(), nullptr);
            f.start = TimeStep(start);
            f.finish = TimeStep(finish);
            byId[f.flowId] = f;
        }
        else if (tag == "R")
        {
            uint32_t id = 0;
            uint64_t delivered = 0;
            uint64_t dup = 0;
            l >> id >> delivered >> dup;
            rx.push_back({id, {delivered, dup}});
        }
    }
    for (const auto& [id, d] : rx)
    {
        auto it = byId.find(id);
        if (it != byId.end())
        {
            it->second.delivered = d.first;
            it->second.dupBytes = d.second;
        }
    }
    return byId;
}

} // namespace
#endif

std::string
RdmaScenario::LocalFlowLines() const
{
    // this rank's part: the sender records of its hosts' flows, the receiver counts of the
    // flows its hosts received; one text line each (exact: doubles in hex)
    std::ostringstream mine;
    mine << std::hexfloat;
    auto senderLine = [&mine](const FlowRecord& f)
    {
        mine << "S " << f.flowId << ' ' << f.src << ' ' << f.dst << ' ' << f.size << ' '
             << f.start.GetTimeStep() << ' ' << f.finish.GetTimeStep() << ' ' << f.retxBytes << ' '
             << f.bytesSent << ' ' << f.minCw << ' ' << f.subPacketSends << ' ' << f.packetsSent
             << ' ' << f.probesSent << ' ' << f.timeouts << ' ' << f.nacks << ' ' << f.scheme << ' '
             << int(f.priority) << '\n';
    };
    std::vector<bool> localNode;
    for (const auto& nic : nics)
    {
        const uint32_t node = nic->GetNodeId();
        if (node >= localNode.size())
        {
            localNode.resize(node + 1, false);
        }
        localNode[node] = nic->IsLocal();
    }
    // the flows this rank's hosts sent whose records were handed over as they ended: with the
    // counts of their receivers when those were on this rank too (retired, then handed over)
    if (m_store)
    {
        m_store->ForEach(m_nextFlowId,
                         [&](const FlowRecord& f)
                         {
                             senderLine(f);
                             if (f.dst < localNode.size() && localNode[f.dst])
                             {
                                 mine << "R " << f.flowId << ' ' << f.delivered << ' ' << f.dupBytes
                                      << '\n';
                             }
                         });
    }
    for (const auto& nic : nics)
    {
        if (!nic->IsLocal())
        {
            continue;
        }
        for (const auto& f : nic->GetFlowRecords())
        {
            senderLine(f);
        }
        // the receivers of this host, and those of its own flows retired on this rank
        for (const auto& rs : {nic->GetRxRecords(), nic->GetRetiredRxRecords()})
        {
            for (const auto& r : rs)
            {
                const int64_t id = FlowOf(r.srcNode, r.qp);
                if (id >= 0)
                {
                    mine << "R " << id << ' ' << r.delivered << ' ' << r.duplicates << '\n';
                }
            }
        }
    }
    return mine.str();
}

void
RdmaScenario::GatherFlows()
{
#ifdef NS3_MPI
    auto byId = DecodeRecords(AllGatherText(LocalFlowLines()));
    // a distributed run holds every flow's record here (each rank writes the whole run's
    // fct.csv and figures)
    m_gathered.clear();
    m_gathered.reserve(byId.size());
    for (auto& [id, f] : byId)
    {
        f.idealFct = TimeStep(m_idealFct.at(id));
        m_gathered.push_back(f);
    }
#endif
}

rdmacc::FlowStore&
RdmaScenario::Store() const
{
    if (!m_store)
    {
        // in the output directory, so that a run's files stay together; removed at Finish (and
        // by ConfigFatal: a registered partial file)
        m_store = std::make_unique<rdmacc::FlowStore>(Out() + "/fct.flows.partial");
    }
    return *m_store;
}

size_t
RdmaScenario::ForEachFlow(const std::function<void(FlowRecord&)>& fn) const
{
    NS_ABORT_MSG_IF(m_finished, "RdmaScenario: the flow records are gone after Finish");
    if (m_distributed)
    {
        for (FlowRecord f : m_gathered)
        {
            fn(f);
        }
        return m_gathered.size();
    }
    // the records still in the NICs (unfinished flows, and finished ones whose receivers
    // stay) join those handed over, one NIC at a time
    rdmacc::FlowStore& store = Store();
    for (const auto& nic : nics)
    {
        for (const auto& f : nic->GetFlowRecords())
        {
            store.Put(f);
        }
    }
    return store.ForEach(m_nextFlowId,
                         [&](FlowRecord& f)
                         {
                             f.idealFct = TimeStep(m_idealFct.at(f.flowId));
                             fn(f);
                         });
}

std::vector<FlowRecord>
RdmaScenario::Flows() const
{
    std::vector<FlowRecord> all;
    all.reserve(m_nextFlowId);
    ForEachFlow([&all](FlowRecord& f) { all.push_back(f); });
    return all;
}

void
RdmaScenario::WriteFct(bool classes, bool multiClass, bool ops) const
{
    // a second pass over the flows, one record at a time
    rdmacc::FctCsvWriter fct(Out() + "/fct.csv", classes ? &m_classOf : nullptr, multiClass, ops);
    ForEachFlow([&fct](const FlowRecord& f) { fct.Row(f); });
    fct.Commit();
}

RdmaScenario::FlowPass
RdmaScenario::PassOverFlows() const
{
    // one pass over the flows in flow-id order, one record at a time (no record per flow in
    // memory): the sums, the first failed per-flow invariant, the READ figures and the FCT of
    // each flow for the statistics
    FlowPass flows;
    rdmacc::FlowColumns& cols = flows.columns;
    cols.size = &m_flowBytes;
    cols.ideal = &m_idealFct;
    cols.priority = &m_flowPrio;
    cols.fct.assign(m_nextFlowId, rdmacc::FlowColumns::UNFINISHED);
    rdmacc::FlowTotals& totals = flows.totals;
    flows.flows = ForEachFlow(
        [&](const FlowRecord& f)
        {
            totals.Add(f);
            cols.fct.at(f.flowId) = rdmacc::FlowColumns::FctOf(f);
            if (flows.failure.empty())
            {
                flows.failure = rdmacc::FlowInvariantFailure(f);
            }
            flows.ops = flows.ops || f.op != RdmaOp::WRITE;
            if (f.op == RdmaOp::READ)
            {
                flows.reads++;
                flows.readsDone += f.finish.IsStrictlyNegative() ? 0 : 1;
                flows.readBytes += f.delivered;
                flows.rereads += f.rereads;
            }
        });
    NS_ABORT_MSG_UNLESS(flows.flows == m_nextFlowId,
                        "RdmaScenario: " << flows.flows << " flow records for " << m_nextFlowId
                                         << " flows");
    totals.SetStatistics(cols);
    return flows;
}

} // namespace ns3
