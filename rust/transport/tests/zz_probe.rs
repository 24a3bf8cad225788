mod common;
use common::{run, Params};
use rdma_cc_core::Time;
use rdma_cc_transport::*;

fn show(name: &str, r: &common::Report) {
    let cw_min = r
        .senders
        .iter()
        .map(|s| s.stats().min_cw)
        .fold(f64::INFINITY, f64::min);
    let retx: u64 = r.senders.iter().map(|s| s.stats().retx_packets).sum();
    let sent: u64 = r.senders.iter().map(|s| s.stats().packets_sent).sum();
    let to: u64 = r.senders.iter().map(|s| s.stats().timeouts).sum();
    let sps: u64 = r.senders.iter().map(|s| s.stats().sub_packet_sends).sum();
    let exits: Vec<u8> = r
        .senders
        .iter()
        .map(|s| s.stats().fast_start_exit as u8)
        .collect();
    println!("{name}: done={} last={:?} maxq={} settled={} meanq={:.0} marks={} drop_notect={} drop_full_ect={} drop_full_nect={} rnd={} sent={} retx={} timeouts={} min_cw={} subpkt={} events={} exits={:?}",
        r.all_done(), r.last_completion(), r.max_queue, r.max_queue_settled, r.mean_queue, r.marks, r.drops_not_ect, r.drops_full_ect, r.drops_full_not_ect, r.drops_random, sent, retx, to, cw_min, sps, r.events, &exits[..exits.len().min(20)]);
}

#[test]
fn probe() {
    for (n, size) in [
        (1usize, 1_000_000u64),
        (16, 1_000_000),
        (100, 64_000),
        (1000, 16_000),
    ] {
        for scheme in [Scheme::Ldcp, Scheme::LdcpRate, Scheme::None] {
            let p = Params::incast(n, size, scheme);
            let r = run(p);
            show(&format!("{scheme} n={n} size={size}"), &r);
        }
    }
    let mut p = Params::incast(1, 100_000, Scheme::Ldcp);
    p.data_loss = 0.1;
    p.ack_loss = 0.1;
    show("lossy", &run(p));
}
