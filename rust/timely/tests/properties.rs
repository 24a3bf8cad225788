//! Property tests: random sequences of sends and ACKs (with random RTT samples, sometimes
//! none) against TIMELY controllers with random constants, the invariants checked after every
//! event.

use proptest::prelude::*;
use rdma_cc_core::{Bytes, Ecn, Rate, Time};
use rdma_cc_timely::{Granularity, Preset, Timely, TimelyConfig};
use rdma_cc_transport::{AckEvent, Controller, Path, SenderConfig, TxPacket};

#[derive(Debug, Clone)]
enum Op {
    /// Send this many 1000 B packets.
    Send(u64),
    /// Acknowledge this many of the packets in flight, with this RTT sample (µs) or none.
    Ack(u64, Option<u64>),
    /// A duplicate ACK.
    DupAck(Option<u64>),
}

fn op() -> impl Strategy<Value = Op> {
    let rtt = prop_oneof![1 => Just(None), 8 => (1u64..2000).prop_map(Some)];
    prop_oneof![
        3 => (1u64..20).prop_map(Op::Send),
        4 => (0u64..20, rtt.clone()).prop_map(|(n, r)| Op::Ack(n, r)),
        1 => rtt.prop_map(Op::DupAck),
    ]
}

fn config(line: u64) -> impl Strategy<Value = TimelyConfig> {
    (
        prop_oneof![Just(Preset::HpccSim), Just(Preset::Paper)],
        proptest::option::of(0.01f64..=1.0),
        proptest::option::of(0.01f64..=1.0),
        proptest::option::of(1u64..100),
        proptest::option::of(1u64..line / 8),
        proptest::option::of(1u32..10),
        proptest::option::of(any::<bool>()),
        proptest::option::of(prop_oneof![
            Just(Granularity::PerRtt),
            Just(Granularity::Segment)
        ]),
        proptest::option::of(1000u64..100_000),
        proptest::option::of(1u64..=line / 2),
    )
        .prop_map(
            |(preset, alpha, beta, t_low, ai, n, hai, gran, seg, min)| TimelyConfig {
                preset,
                alpha,
                beta,
                t_low: t_low.map(Time::us),
                t_high: t_low.map(|t| Time::us(t + 400)),
                rate_ai: ai.map(Rate),
                hai_after: n,
                hai_below_t_low: hai,
                granularity: gran,
                segment: seg.map(Bytes),
                min_rate: min.map(Rate),
                ..TimelyConfig::default()
            },
        )
}

fn sender(line: u64) -> SenderConfig {
    SenderConfig {
        path: Path {
            line_rate: Rate(line),
            lossless: true,
            ..Path::default()
        },
        ..SenderConfig::default()
    }
}

fn line_rate() -> impl Strategy<Value = u64> {
    prop_oneof![Just(100_000_000_000u64), 2_000_000_000u64..400_000_000_000]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// After every event the rate is within [min_rate, line rate] and is the pacing rate;
    /// an update with an RTT below T_low never lowers the rate and one above T_high never
    /// raises it (Algorithm 1 lines 5 and 8).
    #[test]
    fn rate_stays_within_min_and_line(
        (line, cfg, ops) in line_rate().prop_flat_map(|l| {
            (Just(l), config(l), proptest::collection::vec(op(), 1..200))
        })
    ) {
        let mut c = Timely::new(&sender(line), &cfg).unwrap();
        let p = *c.params();
        let (mut sent, mut una, mut now) = (0u64, 0u64, Time::ZERO);
        for o in ops {
            now += Time::us(1);
            let before = (c.rate(), c.stats().updates);
            let mut sample = None;
            match o {
                Op::Send(n) => {
                    for _ in 0..n {
                        c.on_sent(now, &TxPacket {
                            seq: sent, len: 1000, ecn: Ecn::Ect0,
                            retransmission: false, last: false, ack_req: false,
                        });
                        sent += 1000;
                    }
                }
                Op::Ack(_, rtt) | Op::DupAck(rtt) => {
                    let n = if let Op::Ack(n, _) = o { n } else { 0 };
                    let newly = n.min((sent - una) / 1000);
                    una += newly * 1000;
                    sample = rtt.map(Time::us);
                    c.on_ack(&AckEvent {
                        now, rtt: sample, newly_acked: newly, ece: false,
                        snd_una: una, acked_packets: una / 1000,
                    });
                }
            }
            prop_assert!(c.rate() >= p.min_rate && c.rate() <= Rate(line), "{:?}", c.rate());
            prop_assert_eq!(c.pacing_rate(Time::us(8)), Some(c.rate()));
            prop_assert_eq!(c.window(), None);
            // a real update (not the first, which only records its RTT)
            if let Some(rtt) = sample {
                if c.stats().updates > before.1 && c.stats().updates > 1 {
                    if rtt < p.t_low {
                        prop_assert!(c.rate() >= before.0);
                    }
                    if rtt > p.t_high {
                        prop_assert!(c.rate() <= before.0);
                    }
                }
            }
        }
    }
}
