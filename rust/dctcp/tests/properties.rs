//! Property tests: random sequences of sends and ACKs (with and without ECN-Echo, duplicates
//! included) against DCTCP controllers with random constants, the invariants checked after
//! every event: the rate within [min_rate, line rate], α in [0, 1], a window of at least one
//! packet, and no cut before the data sent at the previous cut is acknowledged.

use proptest::prelude::*;
use rdma_cc_core::{Bytes, Ecn, Rate, Time};
use rdma_cc_dctcp::{Dctcp, DctcpConfig, Preset};
use rdma_cc_transport::{AckEvent, Controller, Path, SenderConfig, TxPacket};

#[derive(Debug, Clone)]
enum Op {
    /// Send this many 1000 B packets.
    Send(u64),
    /// Acknowledge this many of the packets in flight, with or without ECN-Echo.
    Ack(u64, bool),
    /// Go back: the next packets resend from the first unacknowledged byte.
    GoBack,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1u64..20).prop_map(Op::Send),
        5 => (0u64..10, any::<bool>()).prop_map(|(n, e)| Op::Ack(n, e)),
        1 => Just(Op::GoBack),
    ]
}

fn config(line: u64) -> impl Strategy<Value = DctcpConfig> {
    (
        prop_oneof![Just(Preset::HpccSim), Just(Preset::Paper)],
        proptest::option::of(0.001f64..=1.0),
        proptest::option::of(0.001f64..=1.0),
        proptest::option::of(1u64..line),
        proptest::option::of(1u64..=line / 4),
    )
        .prop_map(|(preset, g, alpha_init, ai, min)| DctcpConfig {
            preset,
            g,
            alpha_init,
            rate_ai: ai.map(Rate),
            min_rate: min.map(Rate),
        })
}

fn sender(line: u64, rtt_ns: u64) -> SenderConfig {
    SenderConfig {
        mtu: Bytes(1000),
        path: Path {
            line_rate: Rate(line),
            base_rtt: Time(rtt_ns),
            lossless: true,
            ..Path::default()
        },
        ..SenderConfig::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn invariants_hold_after_every_event(
        (line, rtt, cfg, ops) in (2_000_000_000u64..400_000_000_000, 1000u64..100_000)
            .prop_flat_map(|(l, r)| {
                (Just(l), Just(r), config(l), proptest::collection::vec(op(), 1..300))
            })
    ) {
        let s = sender(line, rtt);
        let mut c = Dctcp::new(&s, &cfg).unwrap();
        let min = c.params().min_rate;
        let (mut nxt, mut max_sent, mut una) = (0u64, 0u64, 0u64);
        // the snd_nxt at the last cut: no cut until an ACK passes it
        let mut last_cut: Option<u64> = None;
        for o in ops {
            let cuts = c.stats().cuts;
            match o {
                Op::Send(n) => {
                    for _ in 0..n {
                        c.on_sent(Time::ZERO, &TxPacket {
                            seq: nxt, len: 1000, ecn: Ecn::Ect0,
                            retransmission: nxt < max_sent, last: false, ack_req: false,
                        });
                        nxt += 1000;
                        max_sent = max_sent.max(nxt);
                    }
                }
                Op::Ack(n, ece) => {
                    let newly = n.min((max_sent - una) / 1000);
                    una += newly * 1000;
                    nxt = nxt.max(una);
                    c.on_ack(&AckEvent {
                        now: Time::ZERO, rtt: None, newly_acked: newly, ece,
                        snd_una: una, acked_packets: una / 1000,
                    });
                    if c.stats().cuts > cuts {
                        prop_assert!(ece);
                        if let Some(h) = last_cut {
                            prop_assert!(una > h, "cut at una {una} before {h} was acked");
                        }
                        last_cut = Some(nxt);
                    }
                }
                Op::GoBack => nxt = una,
            }
            prop_assert!(c.stats().cuts <= cuts + 1);
            prop_assert!(c.rate() >= min && c.rate() <= Rate(line), "{:?}", c.rate());
            prop_assert!((0.0..=1.0).contains(&c.alpha()), "{}", c.alpha());
            let w = c.window().unwrap();
            prop_assert!(w >= 1.0, "{w}");
            prop_assert_eq!(c.pacing_rate(Time::ZERO), Some(c.rate()));
        }
    }
}
