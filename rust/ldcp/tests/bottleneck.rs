//! End-to-end: senders through one bottleneck queue with LDCP's switch policy (ECN marking
//! between K_min = 25 KB and K_max = 100 KB with P_max = 0.2, WRED drop of Not-ECT packets at
//! K_fs = 25 KB, 1 MB buffer), 100 Gb/s links, base RTT 8 µs — the `ldcp-incast` topology in
//! plain Rust (`common/mod.rs`). Checks what the draft claims: low queues at full
//! utilisation, short flows in about one RTT, and bounded queues in incasts far beyond what a
//! one-packet window floor allows. Every run also asserts the QP invariants at every event.

mod common;

use common::{run, Params, Report, Scheme};
use rdma_cc_core::Time;
use rdma_cc_ldcp::{FastStartExit, LossFloor};
use rdma_cc_transport::SenderStats;

fn total(r: &Report, f: impl Fn(&SenderStats) -> u64) -> u64 {
    r.senders.iter().map(|s| f(&s.stats())).sum()
}

fn incast(n: usize, size: u64, scheme: Scheme, sub_packet: bool) -> (Params, Report) {
    incast_with(n, size, scheme, |p| p.ldcp.sub_packet = sub_packet)
}

fn incast_with(
    n: usize,
    size: u64,
    scheme: Scheme,
    set: impl FnOnce(&mut Params),
) -> (Params, Report) {
    let mut p = Params::incast(n, size, scheme);
    p.spread_starts(Time::us(8));
    set(&mut p);
    let r = run(p.clone());
    assert!(
        r.all_done(),
        "{scheme} n={n}: not every flow completed by {:?}",
        r.end
    );
    for (s, rx) in r.senders.iter().zip(&r.receivers) {
        assert_eq!(rx.received(), s.flow_size());
    }
    (p, r)
}

#[test]
fn long_ldcp_flows_fill_the_link_with_a_queue_below_k_max_and_no_stable_stage_loss() {
    let (p, r) = incast(16, 1_000_000, Scheme::Ldcp, true);
    // draft §1: "very low queue occupancy even under high network utilization"
    assert_eq!(
        r.drops_full_ect, 0,
        "stable-stage (ECT) packets must not be lost"
    );
    assert!(
        r.max_queue_settled <= 110_000,
        "queue {} B",
        r.max_queue_settled
    );
    assert!(r.mean_queue <= 80_000.0, "mean queue {} B", r.mean_queue);
    // and the link stays busy: within 10 % of moving every byte back to back
    let ideal = p.ideal_completion();
    assert!(
        r.last_completion().0 as f64 <= 1.10 * ideal.0 as f64,
        "{:?} vs ideal {ideal:?}",
        r.last_completion()
    );
    // fast start: one flow got its IW through, the others lost first-RTT packets to WRED
    assert!(r.drops_not_ect > 0);
    assert_eq!(total(&r, |s| s.timeouts), 0);
}

#[test]
fn short_flow_on_an_idle_path_finishes_in_about_one_rtt() {
    // draft §2.3: a new flow "could have finished in one round"
    let p = Params::incast(1, 50_000, Scheme::Ldcp);
    let r = run(p.clone());
    // one base RTT plus 50 packets serialised at 100 Gb/s (50 × 86.6 ns)
    let fct = r.senders[0].completion_time().unwrap();
    assert!(fct <= Time(12_500), "FCT {fct:?}");
    let s = r.senders[0].stats();
    assert_eq!((s.retx_packets, s.timeouts), (0, 0));
    assert_eq!(
        r.senders[0].controller().fast_start_exit(),
        FastStartExit::None,
        "finished inside fast start"
    );
    // without fast start the same flow needs many RTTs of window growth
    let mut slow = p;
    slow.ldcp.fast_start = false;
    let r = run(slow);
    assert!(r.senders[0].completion_time().unwrap() > Time::us(50));
}

#[test]
fn incast_of_300_senders_stays_bounded_where_a_one_packet_floor_does_not() {
    let (_, sub) = incast(300, 64_000, Scheme::Ldcp, true);
    let (_, floor1) = incast(300, 64_000, Scheme::Ldcp, false);
    let (_, none) = incast(300, 64_000, Scheme::None, true);
    // draft §2.2: "LDCP allows cw to further reduce beneath one packet, so the number of flows
    // that LDCP can endure remarkably increases"
    assert!(
        sub.senders
            .iter()
            .filter(|s| s.stats().sub_packet_sends > 0)
            .count()
            >= 250
    );
    assert!(sub.mean_queue < 100_000.0, "mean queue {}", sub.mean_queue);
    assert!(
        sub.max_queue_settled < 300_000,
        "queue {}",
        sub.max_queue_settled
    );
    assert_eq!(sub.drops_full_ect, 0);
    assert!(
        sub.mean_queue * 3.0 < floor1.mean_queue,
        "{} vs {}",
        sub.mean_queue,
        floor1.mean_queue
    );
    assert!(
        sub.mean_queue * 5.0 < none.mean_queue,
        "{} vs {}",
        sub.mean_queue,
        none.mean_queue
    );
    assert!(floor1.drops_full_ect + floor1.drops_not_ect > 0);
    assert!(
        none.drops_full_ect > 10_000,
        "line rate loses heavily at the buffer"
    );
}

#[test]
fn incast_of_1000_short_flows_completes_with_sub_packet_windows() {
    // a fast-start loss leaves cw at the packets acknowledged, floor γ: every flow whose first
    // packets were dropped starts below one packet
    let (_, sub) = incast_with(1000, 16_000, Scheme::Ldcp, |p| {
        p.ldcp.fs_loss_floor = LossFloor::Gamma
    });
    let (_, floor1) = incast(1000, 16_000, Scheme::Ldcp, false);
    let sent = total(&sub, |s| s.packets_sent);
    // every flow goes below one packet, down to γ
    assert!(
        sub.senders
            .iter()
            .filter(|s| s.stats().sub_packet_sends > 0)
            .count()
            >= 990
    );
    assert!(sub.senders.iter().any(|s| s.stats().min_cw == 0.125));
    // the 1000 ECT fast-start packets alone exceed the 1 MB buffer, so some are lost once;
    // afterwards the queue drains
    assert!(
        sub.drops_full_ect * 50 < sent,
        "{} ECT drops of {sent}",
        sub.drops_full_ect
    );
    assert!(sub.mean_queue < 250_000.0, "mean queue {}", sub.mean_queue);
    assert!(
        sub.mean_queue * 2.0 < floor1.mean_queue,
        "{} vs {}",
        sub.mean_queue,
        floor1.mean_queue
    );
    assert!(total(&sub, |s| s.timeouts) * 2 < total(&floor1, |s| s.timeouts));
}

#[test]
fn rate_based_ldcp_incast_completes_with_a_bounded_queue() {
    let mut p = Params::incast(300, 64_000, Scheme::LdcpRate);
    p.spread_starts(Time::us(8));
    p.ldcp.fast_start = false; // start at one packet per RTT
    let r = run(p);
    assert!(r.all_done());
    let (_, none) = incast(300, 64_000, Scheme::None, true);
    // draft §3.2: +α per RTT probe, −β per CNP; CNPs on every marked packet
    assert!(total(&r, |s| s.probes_sent) > 0 && total(&r, |s| s.cnps) > 0);
    assert!(
        r.mean_queue * 2.0 < none.mean_queue,
        "{} vs {}",
        r.mean_queue,
        none.mean_queue
    );
    assert!(total(&r, |s| s.retx_packets) * 5 < total(&none, |s| s.retx_packets));
}

#[test]
fn long_rate_based_flows_complete_without_loss() {
    let mut p = Params::incast(16, 1_000_000, Scheme::LdcpRate);
    p.spread_starts(Time::us(8));
    p.ldcp.fast_start = false;
    let r = run(p);
    assert!(r.all_done());
    assert_eq!(r.drops_full_ect, 0);
    assert_eq!(total(&r, |s| s.retx_packets), 0);
    // Queue bound. From the moment the queue reaches K_max every packet is marked and each
    // mark returns as a CNP within T = base RTT + K_max/C (C·T = BDP + K_max = 200 KB). The
    // flows' windows then hold at most the BDP plus K_max plus one more packet each (α per
    // probe RTT): W = 100 KB + 100 KB + 16 × 1 KB. Paced at cw·MTU/srtt with srtt no lower
    // than the base RTT (it lags the queue), they send at most W·T/base = 2W = 432 KB during
    // T while C·T = 200 KB leaves: the queue peaks below K_max + 232 KB = 332 KB (213 KB
    // measured). Without CNP cuts the queue would reach the 1 MB buffer.
    let bdp = 100_000u64;
    let k_max = 100_000u64;
    let w = bdp + k_max + 16 * 1000;
    let bound = k_max + w * (bdp + k_max) / bdp - (bdp + k_max);
    assert!(r.max_queue <= bound, "queue {} above {bound}", r.max_queue);
}
