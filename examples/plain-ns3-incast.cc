/*
 * plain-ns3-incast: the module used the way ns-3's own modules are, without the shared
 * scenario layer: ns-3's CommandLine, FabricHelper for the switch and links, RdmaNicHelper for
 * the NICs, Config / attributes for every parameter, trace sources for the results. The
 * starting point of docs/writing-a-scenario.md ("plain ns-3 style").
 *
 * N senders -> 1 receiver through one switch. The congestion control is the NICs' Scheme
 * attribute; the data priority is lossless (PFC) with --pfc=1.
 *
 *   ./waf --run plain-ns3-incast
 *   ./waf --run "plain-ns3-incast --senders=8 --ns3::RdmaNic::Scheme=dcqcn --pfc=1"
 *   ./waf --run "plain-ns3-incast --PrintAttributes=ns3::RdmaNic"
 *
 * Prints every flow's completion time and writes OUT/summary.json (the keys every example's
 * summary has, docs/outputs.md) and OUT/queue.csv, pfc.csv, drops.csv (FabricMonitor).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rdma-cc-module.h"

#include "rdma-cc/src/switch.rs.h" // the fields of SwitchNode's counters (Rust's structs)

#include <chrono>
#include <iostream>

using namespace ns3;

static uint32_t g_flows = 0; //!< flows added
static uint32_t g_done = 0;  //!< flows completed

/// The NICs' FlowComplete trace: one line per flow; the run ends with the last one.
static void
OnFlowComplete(const FlowRecord& r)
{
    if (++g_done == g_flows)
    {
        Simulator::Stop();
    }
    std::cout << "flow " << r.flowId << " done: FCT " << (r.finish - r.start).GetMicroSeconds()
              << " us\n";
}

int
main(int argc, char* argv[])
{
    uint32_t senders = 4;
    uint64_t size = 262144;
    bool pfc = false;
    std::string out = "results/plain-ns3-incast";
    CommandLine cmd(__FILE__);
    cmd.AddValue("senders", "number of senders (hosts 1..N send to host 0)", senders);
    cmd.AddValue("size", "message bytes per sender", size);
    cmd.AddValue("pfc", "the data priority is lossless (PFC)", pfc);
    cmd.AddValue("out", "output directory", out);
    cmd.Parse(argc, argv); // --ns3::TYPE::ATTR=VALUE sets any attribute's default
    if (senders < 1 || senders > 1000 || size < 1)
    {
        rdmacc::ConfigFatal("command line", "--senders must be in [1, 1000], --size >= 1");
    }
    rdmacc::MakeOutputDir(out);

    // the fabric: one switch, senders + 1 hosts, 100 Gb/s links of 1 us (the defaults of
    // ns3::QbbNetDevice::DataRate and ns3::QbbChannel::Delay, or as set on the command line)
    RngSeedManager::SetSeed(1);
    RdmaNicHelper nics;
    // the NICs' attributes, as every NIC will hold them (ns3::RdmaNic::Priority: the data class)
    Ptr<RdmaNic> probe = CreateObject<RdmaNic>();
    UintegerValue priority;
    probe->GetAttribute("Priority", priority);
    const uint8_t dataMask = static_cast<uint8_t>(1u << priority.Get());
    FabricHelper fabricHelper;
    fabricHelper.SetQueuePriorities(dataMask); // ECN marking on the data priority
    fabricHelper.SetSwitchAttribute("PfcPriorities", UintegerValue(pfc ? dataMask : 0));
    Fabric fabric = fabricHelper.SingleSwitch(senders + 1);
    Ptr<SwitchNode> sw = fabric.switches[0];

    // a NIC on every host; a flow from each sender to host 0
    nics.Install(fabric);
    for (uint32_t i = 1; i <= senders; i++)
    {
        nics.AddFlow(fabric, i, 0, size, Seconds(0));
        g_flows++;
    }
    for (const auto& nic : nics.GetNics())
    {
        nic->TraceConnectWithoutContext("FlowComplete", MakeCallback(&OnFlowComplete));
    }
    FabricMonitor monitor(fabric, out, MicroSeconds(1), dataMask); // queue.csv, pfc.csv, ...

    const auto wallStart = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(1)); // a limit: the last flow's completion ends the run before it
    Simulator::Run();
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    monitor.Finish();

    // the summary every example writes (rdmacc::SummaryWriter: docs/outputs.md)
    const auto counters = sw->GetCounters();
    uint64_t delivered = 0;
    for (const auto& nic : nics.GetNics())
    {
        delivered += nic->GetDeliveredBytes();
    }
    StringValue scheme;
    probe->GetAttribute("Scheme", scheme);
    rdmacc::Invariants inv;
    inv.Check(g_done == senders, "not every flow completed");
    inv.Check(delivered == senders * size, "bytes delivered differ from the bytes sent");
    inv.Check(!pfc || counters.drops_total == 0, "drops on a lossless priority");
    rdmacc::SummaryWriter w("plain-ns3-incast", scheme.Get(), RngSeedManager::GetRun());
    w.Keys().UInt("senders", senders).UInt("size_bytes", size).Bool("pfc", pfc);
    w.Run(Simulator::Now().GetNanoSeconds(), wall, Simulator::GetEventCount())
        .Ending(g_done == senders, rdmacc::RunEnds::FlowsDone)
        .Bytes(senders * size, delivered)
        .Drops(sw->GetDropList())
        .WireLimit(nics.WireLimitBps(fabric, 0))
        .Marks(counters.marked)
        .Queue(sw->GetMaxEgressBytes(0, priority.Get()),
               monitor.AvgQueue(sw->GetId(), 0, priority.Get()));
    w.Write(out + "/summary.json", inv);
    // config.json: what ran, the attributes of every object as built (a record: this program
    // has ns-3's CommandLine, so no --config replay)
    rdmacc::WriteRunRecord(out,
                           "plain-ns3-incast",
                           argc,
                           argv,
                           rdmacc::JsonObject().UInt("senders", senders).UInt("size_bytes", size));
    std::cout << g_done << " / " << senders << " flows done, " << counters.drops_total
              << " drops, invariants " << (inv.Ok() ? "ok" : "FAILED") << "\n";
    Simulator::Destroy();
    return inv.Ok() ? 0 : 3;
}
