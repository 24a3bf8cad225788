//! The queue-pair sender driven by LDCP: every rule of the LDCP draft (and every documented decision) the sender and the
//! controller implement together (fast start, PAWA, the sub-packet tick, loss recovery and the
//! RTO around LDCP, the rate-based variant's probes and CNPs), one regime per test.

mod common;

use common::{Scheme, Sender as QpSender};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_ldcp::{FastStartExit, LdcpConfig, LossFloor, Stage};
use rdma_cc_transport::{Ecn, Poll, SenderConfig, TxPacket};
/// A scheme with its transport and LDCP parameters.
struct Cfg {
    scheme: Scheme,
    sender: SenderConfig,
    ldcp: LdcpConfig,
}

/// 1000 B packets, 100 Gb/s, base RTT 8 µs (srtt starts at 8000 ns), RTO 32 µs; a
/// fast-start loss leaves cw at the packets acknowledged, floor γ (the draft's rule taken
/// literally: these tests follow a flow into the sub-packet regime).
fn cfg(scheme: Scheme, iw: f64, fast_start: bool) -> Cfg {
    Cfg {
        scheme,
        sender: SenderConfig::default(),
        ldcp: LdcpConfig {
            iw: Some(iw),
            fast_start,
            fs_loss_floor: LossFloor::Gamma,
            ..LdcpConfig::DRAFT
        },
    }
}

fn build(c: &Cfg, flow: u64) -> Result<QpSender, ConfigError> {
    common::sender(c.scheme, &c.sender, &c.ldcp, flow, Time::ZERO)
}

fn sender(iw: f64, fast_start: bool, flow: u64) -> QpSender {
    build(&cfg(Scheme::Ldcp, iw, fast_start), flow).unwrap()
}

fn us(n: u64) -> Time {
    Time::us(n)
}

/// Polls at `now` and expects a data packet.
#[track_caller]
fn send(s: &mut QpSender, now: Time) -> TxPacket {
    match s.poll(now) {
        Poll::Send(p) => p,
        other => panic!("expected Send, got {other:?}"),
    }
}

fn stage(s: &QpSender) -> Stage {
    s.controller().stage().unwrap()
}

#[test]
fn fast_start_sends_iw_packets_back_to_back_not_ect_except_the_iw_th() {
    let mut s = sender(4.0, true, 10_000);
    let pkts: Vec<TxPacket> = (0..4).map(|_| send(&mut s, Time::ZERO)).collect();
    assert_eq!(
        pkts.iter().map(|p| p.seq).collect::<Vec<_>>(),
        [0, 1000, 2000, 3000]
    );
    assert_eq!(
        pkts.iter().map(|p| p.ecn).collect::<Vec<_>>(),
        [Ecn::NotEct, Ecn::NotEct, Ecn::NotEct, Ecn::Ect0]
    );
    assert!(pkts
        .iter()
        .all(|p| p.len == 1000 && !p.retransmission && !p.last));
    // the window (IW) is full after the 4th: it asks for an immediate ACK
    assert_eq!(
        pkts.iter().map(|p| p.ack_req).collect::<Vec<_>>(),
        [false, false, false, true]
    );
    assert_eq!(s.poll(Time::ZERO), Poll::Blocked);
    assert_eq!(s.in_flight(), Bytes(4000));
    assert_eq!(s.cw(), 4.0);
}

#[test]
fn message_shorter_than_iw_sends_its_last_packet_ect() {
    let mut s = sender(4.0, true, 2500);
    let p: Vec<TxPacket> = (0..3).map(|_| send(&mut s, Time::ZERO)).collect();
    assert_eq!(
        p.iter()
            .map(|p| (p.seq, p.len, p.ecn, p.last))
            .collect::<Vec<_>>(),
        [
            (0, 1000, Ecn::NotEct, false),
            (1000, 1000, Ecn::NotEct, false),
            (2000, 500, Ecn::Ect0, true)
        ]
    );
    assert_eq!(s.poll(Time::ZERO), Poll::Blocked);
}

#[test]
fn first_ack_ends_first_rtt_and_new_packets_are_ect() {
    let mut s = sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_ack(us(8), 1000, false);
    // window stays IW (4 packets): exactly one new packet, ECT
    let p = send(&mut s, us(8));
    assert_eq!((p.seq, p.ecn, p.retransmission), (4000, Ecn::Ect0, false));
    assert_eq!(s.poll(us(8)), Poll::Blocked);
    assert_eq!(
        stage(&s),
        Stage::FastStart {
            iw: 4.0,
            first_rtt: false
        }
    );
    assert_eq!(s.controller().fast_start_exit(), FastStartExit::None);
}

#[test]
fn all_iw_packets_acked_exits_fast_start_with_cw_iw() {
    let mut s = sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_ack(us(8), 1000, false);
    s.on_ack(us(8), 2000, true); // ECE during fast start does not change the window
    s.on_ack(us(8), 3000, false);
    assert_eq!(s.cw(), 4.0);
    assert!(!stage(&s).is_stable());
    s.on_ack(us(8), 4000, false);
    // draft §3.1 condition 2: cw is set to IW
    assert_eq!(stage(&s), Stage::Pawa { cw: 4.0 });
    assert_eq!(s.controller().fast_start_exit(), FastStartExit::AllAcked);
    // PAWA from now on: draft eq. (1) cw = cw + alpha/cw = 4 + 1/4
    for _ in 0..4 {
        send(&mut s, us(8));
    }
    s.on_ack(us(16), 5000, false);
    assert_eq!(s.cw(), 4.25);
    // and cw = cw - beta
    s.on_ack(us(16), 6000, true);
    assert_eq!(s.cw(), 3.75);
    assert_eq!(s.stats().ece_acks, 2);
}

#[test]
fn nack_in_fast_start_sets_cw_to_acked_packets_and_goes_back_n() {
    let mut s = sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_ack(us(8), 1000, false);
    let p = send(&mut s, us(8)); // [4000, 5000)
    assert_eq!(p.seq, 4000);
    // packet [1000, 2000) was dropped by WRED; [2000, 3000) exposed the gap
    s.on_nack(us(8), 1000, false);
    // draft §3.1 condition 1: cw = packets acknowledged before the loss = 1
    assert_eq!(stage(&s), Stage::Pawa { cw: 1.0 });
    assert_eq!(s.controller().fast_start_exit(), FastStartExit::Loss);
    assert_eq!(s.snd_nxt(), 1000);
    let p = send(&mut s, us(8));
    assert_eq!(
        (p.seq, p.ecn, p.retransmission, p.ack_req),
        (1000, Ecn::Ect0, true, true)
    );
    assert_eq!(s.poll(us(8)), Poll::Blocked);
    assert_eq!(s.stats().retx_bytes, 1000);
    assert_eq!(s.stats().retx_packets, 1);
}

#[test]
fn nack_before_any_ack_sets_cw_to_gamma_and_waits_rtt_over_cw() {
    let mut s = sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_nack(us(8), 0, false);
    // nothing acknowledged: cw = max(0, γ) = 1/8, sub-packet regime
    assert_eq!(stage(&s), Stage::SubPacket { cw: 0.125 });
    // the NACK bounds the RTT from below by 8 µs since the last send: not above srtt (the
    // base RTT), so no sample
    assert_eq!((s.srtt(), s.stats().rtt_samples), (us(8), 0));
    // the tick counts from the NACK (the later of it and the last send, 0):
    // 8 µs + 8000/0.125 = 72 µs
    assert_eq!(s.poll(us(8)), Poll::WaitUntil(us(72)));
    assert_eq!(s.next_timer(), Some(us(72)));
    s.on_timer(us(72));
    let p = send(&mut s, us(72));
    assert_eq!((p.seq, p.retransmission, p.ecn), (0, true, Ecn::Ect0));
    assert_eq!(s.stats().sub_packet_sends, 1);
    assert_eq!(s.stats().min_cw, 0.125);
}

#[test]
fn nack_before_any_ack_with_floor_one_resends_at_once() {
    let mut c = cfg(Scheme::Ldcp, 4.0, true);
    c.ldcp.fs_loss_floor = LossFloor::One;
    let mut s = build(&c, 10_000).unwrap();
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_nack(us(8), 0, false);
    // nothing acknowledged: cw = max(0, 1) = 1 packet, PAWA; go-back-N resends at once
    assert_eq!(stage(&s), Stage::Pawa { cw: 1.0 });
    let p = send(&mut s, us(8));
    assert_eq!((p.seq, p.retransmission, p.ecn), (0, true, Ecn::Ect0));
    assert_eq!(s.stats().sub_packet_sends, 0);
    // two packets acknowledged before the loss: cw = 2 (draft §3.1 condition 1)
    let mut s = build(&c, 10_000).unwrap();
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_nack(us(8), 2000, false);
    assert_eq!(stage(&s), Stage::Pawa { cw: 2.0 });
}

#[test]
fn sub_packet_timer_is_last_send_plus_srtt_over_cw() {
    let mut s = sender(1.0, false, 10_000);
    assert_eq!(stage(&s), Stage::Pawa { cw: 1.0 });
    let p = send(&mut s, Time::ZERO);
    assert_eq!(p.ecn, Ecn::Ect0, "without fast start every packet is ECT");
    // ACK after 16 µs with ECE: the first sample sets srtt = 16 µs (RFC 6298 §2.2);
    // cw = 1 − 1/2
    s.on_ack(us(16), 1000, true);
    assert_eq!(s.srtt(), Time(16_000));
    assert_eq!(stage(&s), Stage::SubPacket { cw: 0.5 });
    // draft §2.2: timeout RTT/cw after the previous send: 0 + 16000/0.5
    assert_eq!(s.poll(us(16)), Poll::WaitUntil(Time(32_000)));
    assert_eq!(s.poll(Time(31_999)), Poll::WaitUntil(Time(32_000)));
    let p = send(&mut s, Time(32_000));
    assert!(p.ack_req, "cw < 1: every packet asks for an immediate ACK");
    // at most one packet in flight
    assert_eq!(s.poll(Time(32_000)), Poll::Blocked);
    // unmarked ACK: cw = 0.5 + 1/8 (draft §2.2 "cw = cw + gamma");
    // srtt = 16000 + (8000 − 16000)/8
    s.on_ack(Time(40_000), 2000, false);
    assert_eq!(stage(&s), Stage::SubPacket { cw: 0.625 });
    assert_eq!(s.srtt(), Time(15_000));
    assert_eq!(s.stats().sub_packet_sends, 1);
}

#[test]
fn flow_finishing_in_the_first_rtt_never_enters_the_stable_stage() {
    let mut s = sender(4.0, true, 3000);
    for _ in 0..3 {
        send(&mut s, Time::ZERO);
    }
    s.on_ack(us(8), 1000, false);
    s.on_ack(us(8), 2000, false);
    assert!(!s.is_done());
    s.on_ack(us(9), 3000, false);
    assert!(s.is_done());
    assert_eq!(s.poll(us(9)), Poll::Done);
    assert_eq!(s.completion_time(), Some(us(9)));
    assert!(!stage(&s).is_stable());
    assert_eq!(s.controller().fast_start_exit(), FastStartExit::None);
    assert_eq!(s.next_timer(), None);
}

#[test]
fn window_limits_bytes_in_flight_to_cw_mtu() {
    let mut s = sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    assert_eq!(s.poll(Time::ZERO), Poll::Blocked);
    // cw = 1 + 1/1 = 2
    s.on_ack(us(8), 1000, false);
    assert_eq!(s.cw(), 2.0);
    let a = send(&mut s, us(8));
    let b = send(&mut s, us(8));
    assert_eq!(
        (a.seq, a.ack_req, b.seq, b.ack_req),
        (1000, false, 2000, true)
    );
    assert_eq!(s.poll(us(8)), Poll::Blocked);
    assert_eq!(s.in_flight(), Bytes(2000));
}

#[test]
fn rto_recovers_tail_loss_and_cuts_cw_by_eta() {
    let mut s = sender(1.0, false, 2000);
    send(&mut s, Time::ZERO);
    s.on_ack(us(8), 1000, false); // cw 2, RTO re-armed at 8 + 32 µs
    let p = send(&mut s, us(8));
    assert!(p.last && p.ack_req);
    assert_eq!(s.next_timer(), Some(us(40)));
    s.on_timer(us(39)); // early: nothing
    assert_eq!(s.stats().timeouts, 0);
    assert_eq!(s.poll(us(39)), Poll::Blocked);
    s.on_timer(us(40));
    assert_eq!(s.stats().timeouts, 1);
    // decision (loss recovery): on timeout cw ← max(γ, η·cw) = 1
    assert_eq!(s.cw(), 1.0);
    assert_eq!(s.next_timer(), None, "nothing in flight after going back");
    let p = send(&mut s, us(40));
    assert_eq!((p.seq, p.retransmission, p.last), (1000, true, true));
    // backed off: 2 × 32 µs
    assert_eq!(s.next_timer(), Some(us(104)));
    s.on_ack(us(48), 2000, false);
    assert!(s.is_done());
}

#[test]
fn rto_in_fast_start_before_any_sample_is_the_ceiling() {
    let mut s = sender(4.0, true, 100_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    // fast start, nothing measured: floor 32 µs × 2^rto_backoff (6) = 2048 µs
    assert_eq!(s.next_timer(), Some(us(2048)));
    s.on_timer(us(2048));
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(stage(&s), Stage::SubPacket { cw: 0.125 });
    // the tick (0 + 8/0.125 µs) has passed: resend at once; out of fast start the RTO is
    // the floor backed off once, 64 µs (= the tick)
    assert_eq!(send(&mut s, us(2048)).seq, 0);
    assert_eq!(s.next_timer(), Some(us(2048 + 64)));
    // without fast start the first RTO is the floor
    let mut s = sender(1.0, false, 100_000);
    send(&mut s, Time::ZERO);
    assert_eq!(s.next_timer(), Some(us(32)));
    // and without backoff the ceiling is the floor
    let mut c = cfg(Scheme::Ldcp, 4.0, true);
    c.sender.rto_backoff = 0;
    let mut s = build(&c, 100_000).unwrap();
    send(&mut s, Time::ZERO);
    assert_eq!(s.next_timer(), Some(us(32)));
}

#[test]
fn rto_follows_rfc6298_and_backoff_stops_at_the_ceiling() {
    let mut c = cfg(Scheme::Ldcp, 1.0, false);
    c.sender.rto_backoff = 2; // ceiling 4 × 32 = 128 µs
    let mut s = build(&c, 100_000).unwrap();
    send(&mut s, Time::ZERO);
    // first sample 40 µs: srtt 40, rttvar 20 → RTO = max(32, 40 + 4·20) = 120 µs; cw 2
    s.on_ack(us(40), 1000, false);
    send(&mut s, us(40));
    send(&mut s, us(40));
    assert_eq!(s.next_timer(), Some(us(40 + 120)));
    s.on_timer(us(160)); // backoff 1: min(240, max(120, 128)) = 128 µs
    send(&mut s, us(160));
    assert_eq!(s.next_timer(), Some(us(160 + 128)));
    s.on_timer(us(288)); // backoff 2: still 128 µs; cw 0.5, tick 80 µs
    send(&mut s, us(288));
    assert_eq!(s.next_timer(), Some(us(288 + 128)));
    // an estimate above the ceiling is used as is: a late ACK of the resend (ambiguous,
    // but 300 µs since it left) raises srtt: rttvar = 3/4·20 + 1/4·260, srtt = 40 + 260/8
    s.on_ack(us(588), 2000, false);
    assert_eq!(s.srtt(), Time(72_500));
    let t = match s.poll(us(588)) {
        Poll::Send(_) => us(588),
        other => panic!("{other:?}"),
    };
    // RTO = max(32, 72.5 + 4·80) = 392.5 µs ≥ the ceiling, not backed off further
    assert_eq!(s.next_timer(), Some(t + Time(392_500)));
}

#[test]
fn rto_backs_off_until_an_unambiguous_ack() {
    let mut s = sender(1.0, false, 100_000);
    send(&mut s, Time::ZERO);
    // first sample 8 µs: srtt 8, rttvar 4, RTO = max(32, 8 + 4·4) = 32 µs; cw 2
    s.on_ack(us(8), 1000, false);
    send(&mut s, us(8));
    send(&mut s, us(8));
    assert_eq!(s.next_timer(), Some(us(40)));
    s.on_timer(us(40)); // RTO 1 → backoff 2×, cw 1
    assert_eq!(s.cw(), 1.0);
    assert_eq!(send(&mut s, us(40)).seq, 1000);
    assert_eq!(s.next_timer(), Some(us(40 + 64)));
    s.on_timer(us(104)); // RTO 2 → backoff 4×, cw 0.5
                         // the tick (40 + 8/0.5 µs) has passed: resend at once
    send(&mut s, us(104));
    // RTO 3 armed at 104 + max(128, tick 16) µs
    assert_eq!(s.next_timer(), Some(us(104 + 128)));
    // the ACK of a resent packet is ambiguous (Karn): backoff stays
    s.on_ack(us(108), 2000, false);
    let t = match s.poll(us(108)) {
        Poll::WaitUntil(t) => t,
        other => panic!("{other:?}"),
    };
    // cw 0.625: tick 12.8 µs after the send at 104
    assert_eq!(t, Time(116_800));
    assert_eq!(send(&mut s, t).seq, 2000);
    assert_eq!(s.next_timer(), Some(t + us(128)));
    s.on_ack(t + us(4), 3000, false); // [2000, 3000) was resent too: still ambiguous
    let t2 = match s.poll(t + us(4)) {
        Poll::WaitUntil(t2) => t2,
        other => panic!("{other:?}"),
    };
    assert_eq!(send(&mut s, t2).seq, 3000);
    assert_eq!(s.next_timer(), Some(t2 + us(128)));
    // an ACK of a never-resent packet ends the backoff: RTO back to max(32 µs, tick)
    s.on_ack(t2 + us(8), 4000, false);
    let t3 = match s.poll(t2 + us(8)) {
        Poll::WaitUntil(t3) => t3,
        other => panic!("{other:?}"),
    };
    send(&mut s, t3);
    let tick = Time((s.srtt().0 as f64 / s.cw()).ceil() as u64);
    assert_eq!(s.next_timer(), Some(t3 + us(32).max(tick)));
    assert_eq!(s.stats().timeouts, 2);
}

#[test]
fn rto_below_one_packet_is_at_least_the_tick() {
    let mut s = sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    s.on_ack(us(8), 1000, true); // cw 0.5 → tick 16 µs, RTO 32 µs
    s.on_ack(us(8), 1000, true); // duplicate ACK: nothing
    assert_eq!(s.cw(), 0.5);
    let p = send(&mut s, us(16));
    assert_eq!(p.seq, 1000);
    assert_eq!(s.next_timer(), Some(us(48)));
    s.on_ack(us(24), 2000, true); // cw 0.25 → tick 32 µs
    s.on_ack(us(24), 2000, true);
    send(&mut s, us(48));
    s.on_ack(us(56), 3000, true); // cw 0.125 → tick 64 µs > RTO
    assert_eq!(s.cw(), 0.125);
    assert_eq!(s.poll(us(56)), Poll::WaitUntil(us(48 + 64)));
    send(&mut s, us(112));
    // RTO = max(32 µs, srtt/cw = 8 µs / 0.125)
    assert_eq!(s.next_timer(), Some(us(112 + 64)));
}

/// Like [`sender`] but without RTO backoff, so the first timeout comes after the 32 µs
/// floor even before any RTT sample.
fn fixed_rto_sender(iw: f64, fast_start: bool, flow: u64) -> QpSender {
    let mut c = cfg(Scheme::Ldcp, iw, fast_start);
    c.sender.rto_backoff = 0;
    build(&c, flow).unwrap()
}

#[test]
fn ambiguous_ack_can_raise_srtt_but_not_lower_it() {
    let mut s = fixed_rto_sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    s.on_timer(us(32)); // the packet (or its ACK) is late: resend at 32
    send(&mut s, us(32));
    // an ACK 48 µs after the resend: whichever copy it answers, the RTT was ≥ 48 µs;
    // as the first sample it sets srtt (RFC 6298 §2.2)
    s.on_ack(us(80), 1000, false);
    assert_eq!(s.srtt(), Time(48_000));
    // a quick ambiguous ACK says nothing about a short RTT: ignored
    let mut s = fixed_rto_sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    s.on_timer(us(32));
    send(&mut s, us(32));
    s.on_ack(us(33), 1000, false);
    assert_eq!(s.srtt(), us(8));
    assert_eq!(s.stats().rtt_samples, 0);
}

#[test]
fn nack_after_a_timeout_makes_resends_timed_again() {
    let mut s = fixed_rto_sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    // spurious fast-start timeout (deep queue), then the NACK from the ECT packet
    s.on_timer(us(32));
    assert_eq!(s.controller().fast_start_exit(), FastStartExit::Loss);
    s.on_nack(us(50), 0, false);
    // the NACK's bound: the last send was at 0 → at least 50 µs, above srtt: the first
    // sample
    assert_eq!(s.srtt(), us(50));
    // cw = γ; the tick counts from the NACK: 50 + 50/0.125 µs
    assert_eq!(s.poll(us(50)), Poll::WaitUntil(us(450)));
    let t = us(450);
    let p = send(&mut s, t);
    assert!(p.retransmission);
    // unambiguous: a real sample of 20 µs, srtt = 50 − (50 − 20)/8
    s.on_ack(t + us(20), 1000, false);
    assert_eq!(s.srtt(), Time(46_250));
}

#[test]
fn duplicate_nack_within_one_rtt_is_ignored() {
    let mut s = sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    s.on_ack(us(8), 1000, false); // first sample: srtt 8 µs
                                  // the NACK's bound (last send at 0): 9 µs > srtt → srtt 8.125 µs
    s.on_nack(us(9), 1000, false);
    assert_eq!(s.srtt(), Time(8125));
    assert_eq!(send(&mut s, us(9)).seq, 1000);
    // the same NACK again within srtt (e.g. triggered by an older packet): ignored
    s.on_nack(us(10), 1000, false);
    assert_eq!(s.stats().nacks_ignored, 1);
    assert_eq!(s.snd_nxt(), 2000);
    // a stale NACK below snd_una: ignored
    s.on_nack(us(10), 0, false);
    assert_eq!(s.stats().nacks_ignored, 2);
    // still within srtt of the first NACK (17 < 9 + 8.125): ignored
    s.on_nack(us(17), 1000, false);
    assert_eq!(s.stats().nacks_ignored, 3);
    // one srtt later the same sequence is a new loss: go back again
    s.on_nack(Time(17_125), 1000, false);
    assert_eq!(s.snd_nxt(), 1000);
    assert_eq!(s.stats().nacks, 5);
}

#[test]
fn stable_nack_with_ece_counts_as_a_marked_packet() {
    let mut s = sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    s.on_ack(us(8), 1000, false); // cw 2
    send(&mut s, us(8));
    send(&mut s, us(8));
    s.on_nack(us(9), 1000, true);
    assert_eq!(s.cw(), 1.5);
    assert_eq!(s.snd_nxt(), 1000);
}

#[test]
fn nack_above_snd_una_acknowledges_the_bytes_below() {
    let mut s = sender(4.0, true, 10_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    // ACKs for the first two packets were lost
    s.on_nack(us(8), 2000, false);
    assert_eq!(s.snd_una(), 2000);
    assert_eq!(stage(&s), Stage::Pawa { cw: 2.0 });
}

#[test]
fn karn_timeout_resends_give_no_rtt_sample_below_srtt() {
    let mut s = fixed_rto_sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    s.on_timer(us(32)); // lost: go back
    send(&mut s, us(32));
    // the ACK is ambiguous (original or retransmission): srtt unchanged
    s.on_ack(us(34), 1000, false);
    assert_eq!(s.srtt(), us(8));
    assert_eq!(s.stats().rtt_samples, 0);
    // an original transmission does give a sample
    let t = s.next_timer();
    assert_eq!(t, None);
    send(&mut s, us(100));
    s.on_ack(us(116), 2000, false);
    // the first sample sets srtt (RFC 6298 §2.2)
    assert_eq!(s.srtt(), Time(16_000));
}

#[test]
fn acks_that_duplicates_of_go_back_resends_trigger_leave_srtt_at_the_pipe_rtt() {
    // The pipe's RTT is 8 µs throughout. A receiver that already holds bytes the sender went
    // back below answers each duplicate resend with its cumulative ACK: that ACK is not the
    // one of the packet ending at its sequence, whose logged send time predates the go-back.
    // Neither its age since that send nor the backoff's end may be taken from it (Karn).
    let mut s = sender(1.0, false, 100_000);
    send(&mut s, Time::ZERO);
    // srtt 8 µs, rttvar 4 µs, RTO 32 µs; cw 2
    s.on_ack(us(8), 1000, false);
    // [1000, 2000) and [2000, 3000) both arrive; both ACKs are lost: the RTO goes back to
    // 1000 and backs off
    send(&mut s, us(8));
    send(&mut s, us(8));
    s.on_timer(us(40));
    assert_eq!((s.stats().timeouts, s.snd_nxt()), (1, 1000));
    assert!(send(&mut s, us(40)).retransmission);
    // a duplicate at the receiver: ACK 3000, 8 µs after the resend (not 40 µs after the
    // original [2000, 3000), which was not resent): no sample
    s.on_ack(us(48), 3000, false);
    assert_eq!(s.snd_una(), 3000);
    assert_eq!((s.srtt(), s.stats().rtt_samples), (us(8), 1));
    // and the backoff stays: the next RTO is 2 × 32 µs
    send(&mut s, us(48));
    assert_eq!(s.next_timer(), Some(us(48 + 64)));

    // Resends after a timeout are logged as ambiguous; a second go-back below them makes
    // their log entries as stale as an original's
    let mut s = sender(4.0, true, 100_000);
    for _ in 0..4 {
        send(&mut s, Time::ZERO);
    }
    for a in [1000, 2000, 3000, 4000] {
        s.on_ack(us(8), a, false); // srtt 8 µs; fast start ends with cw = IW = 4
    }
    assert_eq!((s.srtt(), s.cw()), (us(8), 4.0));
    for _ in 0..4 {
        send(&mut s, us(8)); // [4000, 8000)
    }
    // [4000, 6000) arrive, [6000, 7000) is lost, the ACKs are lost: back to 4000, cw 2
    s.on_timer(us(40));
    let p = send(&mut s, us(40));
    let q = send(&mut s, us(40));
    assert_eq!((p.seq, q.seq, q.retransmission), (4000, 5000, true));
    // both are duplicates at the receiver; its ACKs (6000) are lost: back to 4000 again
    s.on_timer(us(40 + 64));
    assert_eq!((s.stats().timeouts, s.snd_nxt()), (2, 4000));
    send(&mut s, us(104));
    // the duplicate's ACK 6000 comes 8 µs later; [5000, 6000) last left at 40 µs, but 72 µs
    // bounds nothing
    s.on_ack(us(112), 6000, false);
    assert_eq!(s.snd_una(), 6000);
    assert_eq!((s.srtt(), s.stats().rtt_samples), (us(8), 4));
}

#[test]
fn a_late_ack_after_a_timeout_before_any_resend_is_still_an_rtt_sample() {
    // nothing has left since the packet it acknowledges: no duplicate can have triggered it
    let mut s = sender(1.0, false, 100_000);
    send(&mut s, Time::ZERO);
    s.on_ack(us(8), 1000, false); // srtt 8 µs, rttvar 4 µs; cw 2
    send(&mut s, us(8));
    send(&mut s, us(8));
    s.on_timer(us(40)); // spurious: the queue is deep; back to 1000
    assert_eq!((s.stats().timeouts, s.snd_nxt()), (1, 1000));
    // the ACK of [2000, 3000) comes 36 µs after it left, before any resend: a sample
    // (rttvar 3/4·4 + 1/4·28 = 10 µs, srtt 8 + 28/8), and it ends the backoff
    s.on_ack(us(44), 3000, false);
    assert_eq!((s.srtt(), s.stats().rtt_samples), (Time(11_500), 2));
    send(&mut s, us(44));
    // RTO = max(32, 11.5 + 4·10) µs, not backed off
    assert_eq!(s.next_timer(), Some(us(44) + Time(51_500)));
}

#[test]
fn ack_sequence_is_clamped_to_bytes_sent() {
    let mut s = sender(1.0, false, 10_000);
    send(&mut s, Time::ZERO);
    s.on_ack(us(8), 9_000, false);
    assert_eq!(s.snd_una(), 1000);
    assert!(!s.is_done());
    // a stray ACK for nothing new changes nothing
    s.on_ack(us(9), 500, true);
    assert_eq!(s.snd_una(), 1000);
}

/// Rate-based LDCP starting at one packet per RTT, probing once per RTT (`probe_packets` 0).
fn rate_sender(flow: u64) -> QpSender {
    let mut c = cfg(Scheme::LdcpRate, 1.0, false);
    c.sender.probe_packets = 0;
    build(&c, flow).unwrap()
}

#[test]
fn ldcp_rate_probes_wait_for_probe_packets_data_packets() {
    let mut c = cfg(Scheme::LdcpRate, 100.0, true);
    c.sender.probe_packets = 3;
    let mut s = build(&c, 100_000).unwrap();
    // the first probe after the first three packets (paced at line rate, 86 ns apart), the
    // next three packets after it
    for i in 0..3 {
        assert_eq!(send(&mut s, Time(i * 100)).seq, i * 1000);
    }
    assert_eq!(s.poll(Time(300)), Poll::SendProbe { probe_id: 0 });
    s.on_probe_response(us(8), 0);
    for i in 0..3 {
        send(&mut s, us(8) + Time(i * 100));
    }
    assert_eq!(s.poll(us(9)), Poll::SendProbe { probe_id: 1 });
    assert_eq!(s.stats().probes_sent, 2);
    assert_eq!(s.stats().packets_sent, 6);
}

#[test]
fn ldcp_rate_probe_adds_alpha_cnp_subtracts_beta_and_paces() {
    let mut s = rate_sender(100_000);
    // draft §3.2 (decision: the first probe at flow start)
    assert_eq!(s.poll(Time::ZERO), Poll::SendProbe { probe_id: 0 });
    let p = send(&mut s, Time::ZERO);
    assert_eq!((p.seq, p.ecn, p.ack_req), (0, Ecn::Ect0, false));
    // cw = 1: R = 1 · 1082 B (the packet's wire size) · 8 / 8 µs = 1.082 Gb/s: one packet
    // every 8 µs
    assert_eq!(s.rate(), Some(Rate(1_082_000_000)));
    assert_eq!(s.poll(Time::ZERO), Poll::WaitUntil(us(8)));
    // draft §3.2: response → cw += alpha; RTT sample 8 µs
    s.on_probe_response(us(8), 0);
    assert_eq!(s.cw(), 2.0);
    assert_eq!(s.rate(), Some(Rate(2_164_000_000)));
    // the next probe goes as soon as the response is back
    assert_eq!(s.poll(us(8)), Poll::SendProbe { probe_id: 1 });
    send(&mut s, us(8));
    // 2.164 Gb/s: 1082 B on the wire take 4 µs
    assert_eq!(s.poll(us(8)), Poll::WaitUntil(us(12)));
    // draft §3.2: "window is decreased by beta upon *every* CNP"
    s.on_cnp(us(9));
    assert_eq!(s.cw(), 1.5);
    assert_eq!(s.rate(), Some(Rate(1_623_000_000)));
    // 8656 bits at 1.623 Gb/s = 5333.3 ns, rounded down (the limiter never holds a packet
    // longer than its rate requires)
    assert_eq!(s.poll(us(9)), Poll::WaitUntil(Time(13_333)));
    // ACKs advance snd_una but leave cw alone
    s.on_ack(us(10), 2000, true);
    assert_eq!(s.snd_una(), 2000);
    assert_eq!(s.cw(), 1.5);
}

#[test]
fn ldcp_rate_probe_times_out_after_rto_and_late_response_only_samples_rtt() {
    let mut s = rate_sender(100_000);
    assert_eq!(s.poll(Time::ZERO), Poll::SendProbe { probe_id: 0 });
    assert_eq!(s.next_timer(), Some(us(32)));
    s.on_timer(us(32));
    assert_eq!(s.stats().probe_timeouts, 1);
    assert_eq!(s.poll(us(32)), Poll::SendProbe { probe_id: 1 });
    // the late response to probe 0: an RTT sample of 40 µs, no window increase
    s.on_probe_response(us(40), 0);
    assert_eq!(s.cw(), 1.0);
    // the first sample sets srtt (RFC 6298 §2.2)
    assert_eq!(s.srtt(), Time(40_000));
    s.on_probe_response(us(41), 0); // once only
    s.on_probe_response(us(41), 9); // never sent
    assert_eq!(s.stats().rtt_samples, 1);
    // srtt 40 µs: the next timeout is max(32 µs, 2·srtt)
    assert_eq!(s.next_timer(), Some(us(32 + 80)));
    // one packet since the previous response: + alpha at the response to probe 1
    send(&mut s, us(45));
    s.on_probe_response(us(52), 1);
    assert_eq!(s.cw(), 2.0);
    assert_eq!(s.srtt(), Time(40_000 - (40_000 - 20_000) / 8));
}

#[test]
fn ldcp_rate_probes_lost_in_a_row_halve_the_rate_and_double_the_probe_timeout_each_time() {
    // probes travel in the data queue and are tail-dropped with the data: the age of one that
    // timed out bounds the RTT from below until a response returns
    let mut s = rate_sender(100_000);
    assert_eq!(s.poll(Time::ZERO), Poll::SendProbe { probe_id: 0 });
    send(&mut s, Time::ZERO);
    // cw = 1 at srtt = base RTT 8 µs: one packet per 8 µs while the probe is young
    assert_eq!(s.poll(Time::ZERO), Poll::WaitUntil(us(8)));
    // (ACKs keep the retransmission timer out of the way; they give no RTT sample)
    s.on_ack(us(5), 1000, false);
    // probe 0 lost: timeout at max(rto floor 32 µs, 2·srtt)
    s.on_timer(us(32));
    assert_eq!(s.stats().probe_timeouts, 1);
    assert_eq!(s.poll(us(32)), Poll::SendProbe { probe_id: 1 });
    // the new probe is young but the pacing keeps the bound: one packet per 32 µs
    assert_eq!(send(&mut s, us(32)).seq, 1000);
    assert_eq!(s.poll(us(32)), Poll::WaitUntil(us(64)));
    s.on_ack(us(40), 2000, false);
    // probe 1 lost too: its timeout is twice the bound (64 µs); the bound is now 64 µs
    s.on_timer(us(95));
    assert_eq!(s.stats().probe_timeouts, 1);
    s.on_timer(us(96));
    assert_eq!(s.stats().probe_timeouts, 2);
    assert_eq!(s.poll(us(96)), Poll::SendProbe { probe_id: 2 });
    assert_eq!(send(&mut s, us(96)).seq, 2000);
    assert_eq!(s.poll(us(96)), Poll::WaitUntil(us(96 + 64)));
    // srtt itself never saw a sample
    assert_eq!(s.srtt(), us(8));
    // a response ends the bound: pacing by the measured RTT (the first sample sets srtt)
    s.on_probe_response(us(106), 2);
    assert_eq!(s.srtt(), us(10));
    assert_eq!(s.poll(us(106)), Poll::SendProbe { probe_id: 3 });
    assert_eq!(send(&mut s, us(106)).seq, 3000);
}

#[test]
fn ldcp_rate_with_fast_start_starts_at_line_rate() {
    let mut c = cfg(Scheme::LdcpRate, 100.0, true);
    c.ldcp.iw = None;
    let s = build(&c, 100_000).unwrap();
    assert_eq!(s.cw(), 100.0);
    assert_eq!(s.rate(), Some(Rate::gbps(100)));
}

#[test]
fn flow_size_zero_is_rejected() {
    let e = build(&cfg(Scheme::Ldcp, 4.0, true), 0).unwrap_err();
    assert_eq!(e.field, "flow_size");
    let mut c = cfg(Scheme::Ldcp, 4.0, true);
    c.ldcp.alpha = 0.0;
    assert_eq!(build(&c, 1).unwrap_err().field, "alpha");
}

#[test]
fn events_after_completion_are_harmless() {
    let mut s = sender(4.0, true, 1000);
    send(&mut s, Time::ZERO);
    s.on_ack(us(8), 1000, false);
    s.on_ack(us(9), 1000, true);
    s.on_nack(us(9), 0, true);
    s.on_cnp(us(9));
    s.on_timer(us(100));
    s.on_probe_response(us(100), 7);
    assert_eq!(s.poll(us(100)), Poll::Done);
    assert_eq!(s.stats().acks, 2);
}
