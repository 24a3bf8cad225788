//! Property tests: random sequences of sends and ACKs carrying random INT hop records (any hop
//! count, timestamps that stall or go back, counters that go back, queues of any size,
//! sometimes no records at all) against HPCC controllers with random constants, the
//! invariants checked after every event.

use proptest::prelude::*;
use rdma_cc_core::int::MAX_HOPS;
use rdma_cc_core::{Bytes, Ecn, HopRecord, IntRecords, Rate, Time};
use rdma_cc_hpcc::{Hpcc, HpccConfig, Preset};
use rdma_cc_transport::{AckEvent, Controller, Path, SenderConfig, TxPacket};

#[derive(Debug, Clone)]
enum Op {
    /// Send this many 1000 B packets.
    Send(u64),
    /// Acknowledge this many of the packets in flight with these per-hop deltas (or none).
    Ack(u64, Option<Vec<Delta>>),
}

/// How a hop's record moves from the previous one: time advanced (ns), bytes sent since, the
/// queue now; `back` makes time and bytes go backwards instead.
#[derive(Debug, Clone, Copy)]
struct Delta {
    dt: u64,
    bytes: u64,
    qlen_bytes: u64,
    back: bool,
}

fn delta() -> impl Strategy<Value = Delta> {
    (
        prop_oneof![Just(0u64), 1u64..100_000],
        0u64..2_000_000,
        prop_oneof![Just(0u64), 0u64..10_000, 0u64..100_000_000],
        prop::bool::weighted(0.05),
    )
        .prop_map(|(dt, bytes, qlen_bytes, back)| Delta {
            dt,
            bytes,
            qlen_bytes,
            back,
        })
}

fn op() -> impl Strategy<Value = Op> {
    // mostly the same path length, sometimes another
    let hops = prop_oneof![
        8 => proptest::collection::vec(delta(), 3..=3),
        1 => proptest::collection::vec(delta(), 0..=MAX_HOPS + 1),
    ];
    prop_oneof![
        3 => (1u64..20).prop_map(Op::Send),
        5 => (0u64..20, proptest::option::weighted(0.9, hops)).prop_map(|(n, h)| Op::Ack(n, h)),
    ]
}

fn config(line: u64) -> impl Strategy<Value = HpccConfig> {
    (
        prop_oneof![Just(Preset::HpccSim), Just(Preset::Paper)],
        proptest::option::of(0.05f64..=1.0),
        proptest::option::of(0u32..=10),
        proptest::option::of(1u64..line / 8),
        proptest::option::of(any::<bool>()),
        proptest::option::of(1u64..=line / 2),
    )
        .prop_map(|(preset, eta, max_stage, ai, fast, min)| HpccConfig {
            preset,
            eta,
            max_stage,
            rate_ai: ai.map(Rate),
            fast_react: fast,
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
            int_telemetry: true,
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

    /// After every event: `min_rate ≤ R ≤ line rate` and `R` is the pacing rate; the window is
    /// `R·T` plus one packet, so at least one packet; `U` is finite and non-negative; the
    /// reference rate is within the same bounds as `R`.
    #[test]
    fn rate_window_and_utilisation_stay_in_bounds(
        (line, rtt, cfg, ops) in line_rate().prop_flat_map(|l| {
            (
                Just(l),
                1_000u64..200_000,
                config(l),
                proptest::collection::vec(op(), 1..200),
            )
        })
    ) {
        let mut c = Hpcc::new(&sender(line, rtt), &cfg).unwrap();
        let p = *c.params();
        let (mut sent, mut una, mut now) = (0u64, 0u64, Time::ZERO);
        let mut recs = [HopRecord { line_rate_bps: line, ..HopRecord::default() }; MAX_HOPS + 1];
        for o in ops {
            now += Time::us(1);
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
                Op::Ack(n, hops) => {
                    let newly = n.min((sent - una) / 1000);
                    una += newly * 1000;
                    let ev = AckEvent {
                        now, rtt: None, newly_acked: newly, ece: false,
                        snd_una: una, acked_packets: una / 1000,
                    };
                    match hops {
                        None => c.on_ack(&ev),
                        Some(d) => {
                            for (r, d) in recs.iter_mut().zip(&d) {
                                if d.back {
                                    r.ts_ns = r.ts_ns.saturating_sub(d.dt);
                                    r.tx_bytes = r.tx_bytes.saturating_sub(d.bytes);
                                } else {
                                    r.ts_ns += d.dt;
                                    r.tx_bytes += d.bytes;
                                }
                                r.qlen_bytes = d.qlen_bytes;
                            }
                            let int = IntRecords::from_slice(&recs[..d.len()]);
                            c.on_ack_int(&ev, &int);
                        }
                    }
                }
            }
            prop_assert!(c.rate() >= p.min_rate && c.rate() <= Rate(line), "{:?}", c.rate());
            let rc = c.reference_rate();
            prop_assert!(rc >= p.min_rate && rc <= Rate(line), "{:?}", rc);
            prop_assert_eq!(c.pacing_rate(Time::us(8)), Some(c.rate()));
            let w = c.window().unwrap();
            prop_assert!(w >= 1.0, "window {}", w);
            let want = c.rate().0 as f64 * rtt as f64 / 8e12 + 1.0;
            prop_assert!((w - want).abs() <= 1e-9 * want, "window {} for {:?}", w, c.rate());
            let u = c.utilisation();
            prop_assert!(u.is_finite() && u >= 0.0, "U {}", u);
            prop_assert!(c.inc_stage() <= p.max_stage, "stage {}", c.inc_stage());
        }
    }
}
