/*
 * bench-bridge: the cost of crossing the cxx bridge per packet (README "Performance").
 *
 *   ./waf --run "bench-bridge --calls=10000000"
 *
 * Calls the bridge directly (the ns-3 module hides the Rust symbols), so wscript links this
 * program with the Rust static library itself.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/core-module.h"
#include "ns3/rdma-cc-error.h"

#include "rdma-cc/src/sched.rs.h"
#include "rdma-cc/src/switch.rs.h"
#include "rdma-cc/src/transport.rs.h"
#include "rust/cxx.h"

#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/**
 * Wall-clock nanoseconds per call of each per-packet bridge entry point, measured over `n`
 * calls with plain arguments (no ns-3 packet work around them).
 */
struct BridgeCost
{
    double redEnqueueNs; //!< RedEcn::on_enqueue (queue disc verdict)
    double switchNs;     //!< SwitchCore::on_arrival + on_departure (one packet through a switch)
    double senderNs;     //!< Sender::poll + Receiver::on_data + Sender::on_ack (one data packet)
    double schedNs;      //!< EgressScheduler::enqueue + next (one frame through a port)
    uint64_t checksum;   //!< folds the answers so the calls cannot be optimised away
};

double
NsPerCall(std::chrono::steady_clock::time_point t0, uint64_t n)
{
    const auto dt = std::chrono::steady_clock::now() - t0;
    return std::chrono::duration<double, std::nano>(dt).count() / double(n ? n : 1);
}

/// Runs the measurement with `n` calls of each kind.
BridgeCost
MeasureBridgeCost(uint64_t n)
{
    BridgeCost c{};
    // RED/ECN verdicts
    auto rp = rdmacc_ffi::red_ecn_params_new();
    rp->set_ecn(10000, 40000, 0.2);
    rp->set_not_ect(rdmacc_ffi::NotEctMode::ThresholdDrop, 20000);
    rp->set_buf_max(100000);
    auto red = rdmacc_ffi::red_ecn_new(*rp);
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; i++)
    {
        c.checksum += red->on_enqueue(i % 50000, 1000, 2, double(i % 997) / 997).action ==
                      rdmacc_ffi::Action::Mark;
    }
    c.redEnqueueNs = NsPerCall(t0, n);

    // one packet through a 2-port switch: arrival then departure
    auto topo = rdmacc_ffi::topology_new(3);
    topo->set_host(0);
    topo->set_host(2);
    topo->add_link(0, 0, 1, 0);
    topo->add_link(1, 1, 2, 0);
    topo->compute_routes();
    // the default switch (12 MB, dynamic XOFF, priority 3 lossless, automatic headroom) with
    // two 100 Gb/s, 1 us ports
    auto sp = rdmacc_ffi::switch_params_new();
    const uint64_t rates[2] = {100000000000ULL, 100000000000ULL};
    const uint64_t delays[2] = {1000, 1000};
    auto sw = rdmacc_ffi::switch_core_new(*sp,
                                          rust::Slice<const uint64_t>(rates, 2),
                                          rust::Slice<const uint64_t>(delays, 2),
                                          *topo,
                                          1);
    rdmacc_ffi::SwitchPacket pkt{};
    pkt.in_port = 0;
    pkt.prio = 3;
    pkt.dst_node = 2;
    pkt.src_ip = 1;
    pkt.dst_ip = 2;
    pkt.src_port = 1000;
    pkt.dst_port = 4791;
    pkt.protocol = 17;
    pkt.size = 1062;
    pkt.ecn = 2;
    pkt.kind = rdmacc_ffi::PacketKind::Data;
    rdmacc_ffi::TxPacket tx{};
    tx.size = 1062;
    tx.kind = rdmacc_ffi::PacketKind::Data;
    tx.prio = 3;
    tx.in_port = 0;
    t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; i++)
    {
        pkt.draw = double(i % 997) / 997;
        const auto d = sw->on_arrival(pkt);
        c.checksum +=
            d.out_port + (sw->on_departure(tx, d.out_port) == rdmacc_ffi::PfcAction::Resume);
    }
    c.switchNs = NsPerCall(t0, n);

    // one data packet of a queue pair: poll, receive, acknowledge
    auto params = rdmacc_ffi::nic_params_new();
    const auto specs = rdmacc_ffi::nic_param_specs();
    for (size_t i = 0; i < specs.size(); i++)
    {
        if (std::string(specs[i].attr) == "Scheme")
        {
            rdmacc_ffi::ParamValue v = specs[i].default_value;
            v.text = "none"; // line rate: never blocked
            params->set(i, v);
        }
    }
    rdmacc_ffi::PathInfo path{};
    path.line_rate_bps = 100000000000ULL;
    path.base_rtt_ns = 4000;
    const uint64_t size = (n + 1) * 1000;
    auto snd = rdmacc_ffi::sender_new(*params, path, size, 0, 1, 0);
    auto rcv = rdmacc_ffi::receiver_new(*params, rdmacc_ffi::Scheme::None, size, 2);
    t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; i++)
    {
        const uint64_t now = i * 100;
        const auto o = snd->poll(now);
        if (o.kind != rdmacc_ffi::PollKind::Send)
        {
            continue;
        }
        const auto a = rcv->on_data(now + 50, o.seq, o.len, false, o.last, o.ack_req);
        if (a.n_acks)
        {
            snd->on_ack(now + 90, a.ack1.seq, a.ack1.ece, now);
        }
        c.checksum += a.delivered;
    }
    c.senderNs = NsPerCall(t0, n);

    // one frame through a port's scheduler (DWRR over 4 busy classes): enqueue, then pick
    auto sched = rdmacc_ffi::egress_scheduler_new("dwrr:1,2,3,4,1,1,1,1");
    rdmacc_ffi::TxPacket f{};
    f.size = 1062;
    f.kind = rdmacc_ffi::PacketKind::Data;
    for (uint8_t prio = 0; prio < 4; prio++)
    {
        f.prio = prio;
        sched->enqueue(f);
    }
    t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; i++)
    {
        const auto pick = sched->next(i, 0);
        f.handle = static_cast<uint32_t>(i);
        f.prio = pick.packet.prio;
        sched->enqueue(f);
        c.checksum += pick.packet.prio;
    }
    c.schedNs = NsPerCall(t0, n);
    return c;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t calls = 2000000;
    CommandLine cmd(__FILE__);
    cmd.AddValue("calls", "calls of each kind", calls);
    cmd.Parse(argc, argv);
    if (calls == 0)
    {
        rdmacc::ConfigFatal("command line", "invalid --calls = 0: must be > 0");
    }
    const auto c = MeasureBridgeCost(calls);
    std::cout << std::fixed << std::setprecision(1);
    std::cout << "bench-bridge: " << calls << " calls each (wall clock; machine-dependent)\n";
    std::cout << "  RED/ECN verdict (on_enqueue)                  " << c.redEnqueueNs << " ns\n";
    std::cout << "  switch packet (on_arrival + on_departure)     " << c.switchNs << " ns\n";
    std::cout << "  QP data packet (poll + on_data + on_ack)      " << c.senderNs << " ns\n";
    std::cout << "  port scheduler (enqueue + next, DWRR)         " << c.schedNs << " ns\n";
    std::cout << "  (checksum " << c.checksum << ")\n";
    return 0;
}
