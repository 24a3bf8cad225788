//! RDMA READ under LDCP (draft §3.1, "Implementation on programmable NIC"): READ responses
//! have their own LSN space, the requester ACKs them so that the responder's controller runs
//! its per-ACK window adjustment on them, and out-of-order responses make the requester issue
//! the READ request again from the first missing byte instead of a NAK. The responder is an
//! ordinary queue-pair sender of the response bytes; the requester a
//! `QpReceiver::new_read_requester`.

mod common;

use common::{run, Params, Scheme};
use rdma_cc_core::Time;
use rdma_cc_ldcp::{LdcpConfig, LossFloor};
use rdma_cc_transport::{Poll, QpReceiver, ReceiverConfig, SenderConfig, TxPacket};

fn responder(size: u64) -> common::Sender {
    responder_fs(size, false)
}

/// An LDCP responder with IW = 4 packets, with or without fast start.
fn responder_fs(size: u64, fast_start: bool) -> common::Sender {
    let ldcp = LdcpConfig {
        iw: Some(4.0),
        fast_start,
        fs_loss_floor: LossFloor::Gamma,
        ..LdcpConfig::DRAFT
    };
    common::sender(
        Scheme::Ldcp,
        &SenderConfig::default(),
        &ldcp,
        size,
        Time::ZERO,
    )
    .unwrap()
}

#[track_caller]
fn send(s: &mut common::Sender, now: Time) -> TxPacket {
    match s.poll(now) {
        Poll::Send(p) => p,
        other => panic!("expected Send, got {other:?}"),
    }
}

#[test]
fn responder_window_follows_the_acks_of_read_responses_draft_3_1() {
    // draft §3.1: "the uNIC is also programmed to reply ACKs for Read Responses to enable
    // congestion control"; §2.2 PAWA: cw += alpha/cw per unmarked ACK, cw -= beta per marked
    let a = LdcpConfig::DRAFT.alpha;
    let b = LdcpConfig::DRAFT.beta;
    let mut resp = responder(100_000);
    let mut req = QpReceiver::new_read_requester(&ReceiverConfig::default(), 100_000).unwrap();
    let mut now = Time::ZERO;
    // CE pattern of the responses: unmarked, unmarked, marked, unmarked, marked, marked
    for ce in [false, false, true, false, true, true] {
        let p = send(&mut resp, now);
        now += Time::us(8);
        let act = req.on_data_req(now, p.seq, p.len, ce, p.last, p.ack_req);
        let ack = act
            .ack
            .expect("every response is acknowledged (per-packet ACK)");
        assert!(!ack.nack && !ack.reread);
        assert_eq!(ack.ece, ce, "the ACK echoes the response's CE");
        let before = resp.cw();
        resp.on_ack(now, ack.seq, ack.ece);
        let after = resp.cw();
        if ce {
            assert!((after - (before - b)).abs() < 1e-9, "{before} -> {after}");
        } else {
            assert!(
                (after - (before + a / before)).abs() < 1e-9,
                "{before} -> {after}"
            );
        }
    }
    assert_eq!(resp.snd_una(), 6000);
}

#[test]
fn read_responses_have_their_own_lsn_space_draft_3_1() {
    // draft §3.1: "Packets belonging to READ, SEND/WRITE requests share the same LSN space,
    // while packets of READ Responses have a separate LSN space". A host that WRITEs 5000 B and
    // READs 3000 B: its WRITE data counts 0..5000 in its own sender, the responses 0..3000 in
    // the responder's, and the requester's ACKs name response LSNs only.
    let mut write = responder_fs(5000, true);
    let w: Vec<u64> = (0..4).map(|_| send(&mut write, Time::ZERO).seq).collect();
    assert_eq!(w, [0, 1000, 2000, 3000]);
    let mut resp = responder(3000);
    let mut req = QpReceiver::new_read_requester(&ReceiverConfig::default(), 3000).unwrap();
    let mut acks = vec![];
    let mut seqs = vec![];
    for k in 1..=3 {
        let p = send(&mut resp, Time::us(k));
        seqs.push(p.seq);
        let a = req
            .on_data(Time::us(k), p.seq, p.len, false, p.last)
            .ack
            .unwrap();
        resp.on_ack(Time::us(k), a.seq, a.ece);
        acks.push(a.seq);
    }
    assert_eq!(seqs, [0, 1000, 2000]);
    assert_eq!(acks, [1000, 2000, 3000]);
    assert!(req.is_complete());
    assert_eq!(write.snd_una(), 0);
}

#[test]
fn a_repeat_read_request_makes_the_responder_resend_from_the_first_missing_byte_draft_3_1() {
    let mut resp = responder_fs(10_000, true);
    let mut req = QpReceiver::new_read_requester(&ReceiverConfig::default(), 10_000).unwrap();
    let p: Vec<TxPacket> = (0..4).map(|_| send(&mut resp, Time::ZERO)).collect();
    let t = Time::us(8);
    let a0 = req
        .on_data(t, p[0].seq, p[0].len, false, false)
        .ack
        .unwrap();
    resp.on_ack(t, a0.seq, a0.ece);
    // p[1] is lost: p[2] arrives out of order
    let r = req
        .on_data(t, p[2].seq, p[2].len, false, false)
        .ack
        .unwrap();
    assert!(r.reread && !r.nack);
    assert_eq!(r.seq, 1000);
    resp.on_nack(t, r.seq, r.ece); // the responder takes the request as a go-back
    let again = send(&mut resp, t);
    assert_eq!((again.seq, again.retransmission), (1000, true));
    assert!(req.on_data(t, again.seq, again.len, false, false).accepted);
}

#[test]
fn ldcp_read_incast_delivers_every_response_byte_once_without_a_nak_or_stable_stage_loss() {
    // 16 responders answer one requester at once: fast-start responses are WRED-dropped at
    // the requester's port, the gaps are re-requested, and every byte arrives once, in order
    let mut p = Params::incast(16, 256_000, Scheme::Ldcp);
    p.read = true;
    p.spread_starts(Time::us(8));
    let r = run(p);
    assert!(r.all_done(), "not every READ completed by {:?}", r.end);
    let (mut rereads, mut nacks) = (0, 0);
    for (s, rx) in r.senders.iter().zip(&r.receivers) {
        assert_eq!(rx.received(), s.flow_size());
        assert_eq!(
            rx.stats().duplicate_bytes,
            0,
            "a response byte arrived twice"
        );
        rereads += rx.stats().rereads;
        nacks += rx.stats().nacks;
    }
    assert_eq!(nacks, 0, "READ responses are never NACKed");
    assert!(
        r.drops_not_ect > 0,
        "the fast-start responses must meet WRED"
    );
    assert!(rereads > 0, "the gaps they leave must be re-requested");
    assert_eq!(r.drops_full_ect, 0, "stable-stage responses are not lost");
}
