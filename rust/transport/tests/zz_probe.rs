mod common;
use common::{run, Params};
use rdma_cc_core::Time;
use rdma_cc_transport::*;

#[test]
fn probe() {
    let mut p = Params::incast(1000, 16_000, Scheme::Ldcp);
    p.trace_every = Some(Time::us(100));
    let r = run(p);
    for (t, q, a, cw, srtt, sub) in r.trace.iter().take(20) {
        println!("{:>6}us q={:>7} active={:>4} cw={:.3} srtt={:.0} sub={}", t.0/1000, q, a, cw, srtt, sub);
    }
    let sum = |f: &dyn Fn(&SenderStats) -> u64| r.senders.iter().map(|s| f(&s.stats())).sum::<u64>();
    println!("timeouts {} samples {} acks {} nacks {} nign {} sent {} retx {} last {:?}", sum(&|s| s.timeouts), sum(&|s| s.rtt_samples), sum(&|s| s.acks), sum(&|s| s.nacks), sum(&|s| s.nacks_ignored), sum(&|s| s.packets_sent), sum(&|s| s.retx_packets), r.last_completion());
    let rx: u64 = r.receivers.iter().map(|x| x.stats().duplicates).sum();
    let ooo: u64 = r.receivers.iter().map(|x| x.stats().out_of_order).sum();
    println!("rx dups {rx} ooo {ooo} drops_full_ect {}", r.drops_full_ect);
    for s in r.senders.iter().take(3) { println!("{:?}", s.stats()); }
}
