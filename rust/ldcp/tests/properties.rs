//! Property tests: random event sequences against a sender, and sender/receiver pairs over a
//! lossy, ECN-marking pipe (see `common/mod.rs`), with the QP invariants checked at every event.

mod common;

use common::{receiver_for, run, Params, Scheme};
use proptest::prelude::*;
use rdma_cc_core::{Bytes, Time};
use rdma_cc_ldcp::{LdcpConfig, Stage};
use rdma_cc_transport::{Poll, ReceiverConfig, SenderConfig};

#[derive(Debug, Clone)]
enum Op {
    /// Poll until the sender stops sending.
    Poll,
    /// Cumulative ACK for `k` packets beyond snd_una (clamped by the sender to what was sent).
    Ack {
        k: u64,
        ece: bool,
    },
    /// NACK expecting `k` packets beyond snd_una.
    Nack {
        k: u64,
        ece: bool,
    },
    Cnp,
    Timer,
    /// Response to the outstanding probe (`true`) or to a stale id.
    ProbeResponse(bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => Just(Op::Poll),
        4 => (0u64..6, any::<bool>()).prop_map(|(k, ece)| Op::Ack { k, ece }),
        1 => (0u64..4, any::<bool>()).prop_map(|(k, ece)| Op::Nack { k, ece }),
        1 => Just(Op::Cnp),
        2 => Just(Op::Timer),
        1 => any::<bool>().prop_map(Op::ProbeResponse),
    ]
}

fn scheme() -> impl Strategy<Value = Scheme> {
    prop_oneof![
        Just(Scheme::Ldcp),
        Just(Scheme::LdcpRate),
        Just(Scheme::Dcqcn),
        Just(Scheme::None)
    ]
}

fn ldcp_cfg(iw: f64, fast_start: bool, gamma: f64, sub_packet: bool) -> LdcpConfig {
    LdcpConfig {
        iw: Some(iw),
        fast_start,
        gamma,
        sub_packet,
        ..LdcpConfig::default()
    }
}

fn floor(cfg: &LdcpConfig) -> f64 {
    if cfg.sub_packet {
        cfg.gamma
    } else {
        1.0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// γ ≤ cw after fast start, cw finite and > 0, in flight ≤ max(cw, 1 packet)·MTU at every
    /// send in the stable stage (one packet when cw < 1), sub-packet sends ≥ srtt/cw apart,
    /// snd_una monotone, next_timer in the future after on_timer, no panic.
    #[test]
    fn sender_invariants_hold_under_random_events(
        scheme in scheme(),
        iw in 0.3f64..20.0,
        fast_start in any::<bool>(),
        gamma in prop_oneof![Just(0.25), Just(0.125), Just(0.0625)],
        sub_packet in any::<bool>(),
        flow in 1u64..40_000,
        ops in prop::collection::vec((op(), 0u64..20_000), 1..200),
    ) {
        let cfg = ldcp_cfg(iw, fast_start, gamma, sub_packet);
        let path = SenderConfig::default();
        let mtu = path.mtu.0;
        let mut s = common::sender(scheme, &path, &cfg, flow, Time::ZERO).unwrap();
        let mut now = Time::ZERO;
        let mut una = 0;
        let mut last_send: Option<Time> = None;
        let mut last_probe: Option<u64> = None;
        for (op, dt) in ops {
            now += Time(dt);
            match op {
                Op::Poll => loop {
                    match s.poll(now) {
                        Poll::Send(p) => {
                            prop_assert!(p.len as u64 <= mtu && p.len > 0);
                            prop_assert_eq!(p.last, p.seq + p.len as u64 == flow);
                            if scheme == Scheme::Ldcp {
                                let st = s.controller().stage().unwrap();
                                let cw = s.cw();
                                if st.is_stable() {
                                    if cw >= 1.0 {
                                        let limit = cw * mtu as f64 + 1e-6;
                                        prop_assert!(s.in_flight().0 as f64 <= limit);
                                    } else {
                                        prop_assert_eq!(s.in_flight(), Bytes(p.len.into()));
                                        if let Some(prev) = last_send {
                                            let need = s.srtt().0 as f64 / cw;
                                            prop_assert!((now - prev).0 as f64 + 1e-6 >= need);
                                        }
                                    }
                                }
                            }
                            last_send = Some(now);
                        }
                        Poll::SendProbe { probe_id } => last_probe = Some(probe_id),
                        Poll::WaitUntil(t) => {
                            prop_assert!(t > now);
                            prop_assert!(s.next_timer().is_some_and(|n| n <= t));
                            break;
                        }
                        Poll::Blocked | Poll::Done => break,
                    }
                },
                Op::Ack { k, ece } => s.on_ack(now, s.snd_una() + k * mtu, ece),
                Op::Nack { k, ece } => s.on_nack(now, s.snd_una() + k * mtu, ece),
                Op::Cnp => s.on_cnp(now),
                Op::Timer => {
                    s.on_timer(now);
                    if let Some(t) = s.next_timer() {
                        prop_assert!(t > now);
                    }
                }
                Op::ProbeResponse(current) => {
                    let id = last_probe.unwrap_or(0);
                    s.on_probe_response(now, if current { id } else { id.wrapping_add(7) });
                }
            }
            let cw = s.cw();
            if matches!(scheme, Scheme::None | Scheme::Dcqcn) {
                prop_assert!(cw.is_infinite());
            } else {
                prop_assert!(cw.is_finite() && cw > 0.0);
                if s.controller().stage().is_some_and(Stage::is_stable) {
                    prop_assert!(cw >= floor(&cfg) - 1e-12, "cw {} below floor", cw);
                }
            }
            prop_assert!(s.snd_una() >= una);
            una = s.snd_una();
            prop_assert!(s.snd_nxt() >= una && s.snd_nxt() <= flow);
            prop_assert_eq!(s.is_done(), una == flow);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Sender and receiver pairs over a pipe that drops random data and control packets (and
    /// marks / WRED-drops at a small queue) always complete, with every byte delivered exactly
    /// once and in order, and no flow's smoothed RTT exceeds 4 × the longest RTT the pipe can
    /// give; the harness checks the QP invariants at every event.
    #[test]
    fn pairs_over_a_lossy_pipe_deliver_every_byte_exactly_once(
        scheme in scheme(),
        n in 1usize..4,
        sizes in prop::collection::vec(1u64..150_000, 3),
        iw in prop_oneof![Just(None), (0.5f64..40.0).prop_map(Some)],
        fast_start in any::<bool>(),
        sub_packet in any::<bool>(),
        ack_every in 1u32..5,
        data_loss in prop_oneof![Just(0.0), 0.0f64..0.2],
        ack_loss in prop_oneof![Just(0.0), 0.0f64..0.2],
        k_min in 2_000u64..60_000,
        seed in any::<u64>(),
    ) {
        let mut p = Params::incast(n, 1, scheme);
        p.flow_sizes = sizes[..n].to_vec();
        p.ldcp.iw = iw;
        p.ldcp.fast_start = fast_start;
        p.ldcp.sub_packet = sub_packet;
        p.receiver = ReceiverConfig { ack_every, ..receiver_for(scheme) };
        p.data_loss = data_loss;
        p.ack_loss = ack_loss;
        p.k_min = k_min;
        p.k_max = 4 * k_min;
        p.k_fs = k_min;
        p.buf_max = 8 * k_min;
        p.seed = seed;
        p.time_limit = Time::ms(2_000);
        // the longest RTT the pipe can give: the base RTT behind a full buffer
        let rtt_max = p.sender.path.base_rtt + p.bottleneck_rate.tx_time(Bytes(p.buf_max));
        let r = run(p);
        for (i, srtt) in r.max_srtt.iter().enumerate() {
            // ACKs of duplicates after a go-back once sampled the time since an original's
            // send, and srtt grew to tens of ms, the RTO with it, until the flow ran out of
            // time (delayed ACKs flushed by a later packet overestimate a little)
            prop_assert!(
                *srtt <= Time(4 * rtt_max.0),
                "flow {}: srtt reached {:?} > 4 × {:?}",
                i,
                srtt,
                rtt_max
            );
        }
        for (i, (s, rx)) in r.senders.iter().zip(&r.receivers).enumerate() {
            prop_assert!(s.is_done(), "flow {} not done: {:?} at {:?}", i, s.stats(), r.end);
            prop_assert!(rx.is_complete());
            prop_assert_eq!(rx.received(), s.flow_size());
        }
    }
}
