//! Property tests: random sequences of CNPs, sent packets and timeouts at non-decreasing times,
//! against DCQCN controllers with random constants, with the invariants checked after every
//! event.

use proptest::prelude::*;
use rdma_cc_core::{Bytes, Ecn, Rate, Time};
use rdma_cc_dcqcn::{AlphaMode, Dcqcn, DcqcnConfig, Preset};
use rdma_cc_transport::{Controller, Path, SenderConfig, TxPacket};

#[derive(Debug, Clone)]
enum Op {
    Cnp,
    /// A data packet of this many payload bytes went on the wire.
    Sent(u32),
    /// `on_timeout(now)`.
    Timeout,
    /// `on_timeout` at the controller's next deadline (or `now` if none), time moving there.
    TimeoutAtDeadline,
    /// `on_timeout` before the next deadline: must change nothing.
    TimeoutEarly,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Cnp),
        4 => (1u32..=9000).prop_map(Op::Sent),
        2 => Just(Op::Timeout),
        3 => Just(Op::TimeoutAtDeadline),
        1 => Just(Op::TimeoutEarly),
    ]
}

/// A random configuration valid on a `line`-rate path.
fn config(line: u64) -> impl Strategy<Value = DcqcnConfig> {
    // durations from 100 ns (a late timeout below handles up to horizon / T periods)
    let times = prop_oneof![Just(None), (100u64..200_000).prop_map(|t| Some(Time(t)))];
    let rates = prop_oneof![Just(None), (1u64..=line).prop_map(|r| Some(Rate(r)))];
    (
        (
            prop_oneof![Just(Preset::Paper), Just(Preset::Mellanox)],
            prop_oneof![Just(None), (0.001f64..=1.0).prop_map(Some)],
            prop_oneof![Just(None), (0.001f64..=1.0).prop_map(Some)],
            times.clone(),
            times.clone(),
            prop_oneof![Just(None), (1u64..50_000).prop_map(|b| Some(Bytes(b)))],
            prop_oneof![Just(None), (1u32..10).prop_map(Some)],
        ),
        (
            rates.clone(),
            rates.clone(),
            prop_oneof![Just(None), (1u64..=line / 4).prop_map(|r| Some(Rate(r)))],
            prop_oneof![Just(None), Just(Some(Time::ZERO)), times],
            proptest::option::of(any::<bool>()),
            prop_oneof![3 => Just(None), 1 => (0.0f64..=1.0).prop_map(Some)],
            proptest::option::of(prop_oneof![
                Just(AlphaMode::OnCnp),
                Just(AlphaMode::Periodic)
            ]),
        ),
    )
        .prop_map(
            move |((preset, g, alpha_init, k, t, b, f), (ai, hai, min, mci, keep, first, mode))| {
                let mut c = DcqcnConfig {
                    preset,
                    g,
                    alpha_init,
                    alpha_period: k,
                    increase_timer: t,
                    byte_counter: b,
                    fast_recovery_steps: f,
                    rate_ai: ai,
                    rate_hai: hai,
                    min_rate: min,
                    min_cut_interval: mci,
                    keep_target_after_cut: keep,
                    first_cnp_rate: None,
                    alpha_mode: mode,
                };
                // a first-CNP rate between the floor in effect and the line rate
                let floor = c.resolved().min_rate.0;
                c.first_cnp_rate = first.map(|x| Rate(floor + ((line - floor) as f64 * x) as u64));
                c
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

fn pkt(len: u32) -> TxPacket {
    TxPacket {
        seq: 0,
        len,
        ecn: Ecn::Ect0,
        retransmission: false,
        last: false,
        ack_req: false,
    }
}

/// Everything observable about a controller.
fn snapshot(c: &Dcqcn, now: Time) -> (Rate, Rate, u64, u64, Option<Time>, String) {
    (
        c.rate(),
        c.target_rate(),
        c.alpha().to_bits(),
        c.alpha_at(now).to_bits(),
        c.next_timeout(),
        format!(
            "{:?} {:?} {}",
            c.stats(),
            c.increase_counts(),
            c.cut_pending()
        ),
    )
}

fn line_rate() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(40_000_000_000u64),
        Just(100_000_000_000),
        1_000_000_000u64..400_000_000_000
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// After every event: min_rate ≤ Rc ≤ Rt ≤ line rate, the pacing rate is Rc, 0 ≤ α ≤ 1
    /// (also with the updates owed by now), no deadline in the past after `on_timeout(now)`,
    /// an early `on_timeout` changes nothing, and a flow at line rate with no cut pending
    /// asks for no timer.
    #[test]
    fn rates_alpha_and_deadlines_stay_in_bounds(
        (line, cfg) in line_rate().prop_flat_map(|l| (Just(l), config(l))),
        ops in prop::collection::vec((op(), 0u64..100_000), 1..300),
    ) {
        let s = sender(line);
        let mut c = Dcqcn::new(&s, &cfg).unwrap();
        let p = *c.params();
        let line = Rate(line);
        let mut now = Time::ZERO;
        for (op, dt) in ops {
            if !matches!(op, Op::TimeoutEarly) {
                now += Time(dt);
            }
            match op {
                Op::Cnp => c.on_cnp(now),
                Op::Sent(len) => c.on_sent(now, &pkt(len)),
                Op::Timeout => {
                    c.on_timeout(now);
                    if let Some(t) = c.next_timeout() {
                        prop_assert!(t > now, "deadline {:?} not after {:?}", t, now);
                    }
                }
                Op::TimeoutAtDeadline => {
                    now = now.max(c.next_timeout().unwrap_or(now));
                    c.on_timeout(now);
                    if let Some(t) = c.next_timeout() {
                        prop_assert!(t > now, "deadline {:?} not after {:?}", t, now);
                    }
                }
                Op::TimeoutEarly => {
                    if let Some(t) = c.next_timeout() {
                        // deadlines are after the last event's time: a time in [now, t)
                        prop_assert!(t > now);
                        now = Time(t.0 - 1 - dt.min(t.0 - 1 - now.0));
                        let before = snapshot(&c, now);
                        c.on_timeout(now);
                        prop_assert_eq!(snapshot(&c, now), before);
                    } else {
                        let before = snapshot(&c, now);
                        c.on_timeout(now);
                        prop_assert_eq!(snapshot(&c, now), before);
                    }
                }
            }
            let (rc, rt) = (c.rate(), c.target_rate());
            prop_assert!(p.min_rate <= rc, "rc {:?} below {:?}", rc, p.min_rate);
            prop_assert!(rc <= rt, "rc {:?} above rt {:?}", rc, rt);
            prop_assert!(rt <= line, "rt {:?} above line {:?}", rt, line);
            prop_assert_eq!(c.pacing_rate(Time::us(8)), Some(rc));
            for a in [c.alpha(), c.alpha_at(now), c.alpha_at(Time(now.0.saturating_mul(3)))] {
                prop_assert!((0.0..=1.0).contains(&a), "alpha {}", a);
            }
            if rc == line && rt == line && !c.cut_pending() {
                prop_assert_eq!(c.next_timeout(), None);
            }
            let s = c.stats();
            prop_assert!(s.cuts <= s.cnps);
            prop_assert_eq!(c.window(), None);
            prop_assert_eq!(c.ecn(0, 1000), Ecn::Ect0);
        }
    }

    /// Handling the timers one deadline at a time or all at once at a later time gives the
    /// same state (`on_timeout` handles every period that elapsed).
    #[test]
    fn late_timeouts_equal_timely_ones(
        (line, cfg) in line_rate().prop_flat_map(|l| (Just(l), config(l))),
        cnps in prop::collection::vec(0u64..400_000, 1..6),
        horizon in 0u64..3_000_000,
    ) {
        let s = sender(line);
        let mut timely = Dcqcn::new(&s, &cfg).unwrap();
        let mut late = timely.clone();
        let mut cnps = cnps;
        cnps.sort_unstable();
        for &t in &cnps {
            let t = Time(t);
            while let Some(d) = timely.next_timeout().filter(|&d| d <= t) {
                timely.on_timeout(d);
            }
            timely.on_cnp(t);
            late.on_cnp(t);
        }
        let end = Time(cnps[cnps.len() - 1] + horizon);
        while let Some(d) = timely.next_timeout().filter(|&d| d <= end) {
            timely.on_timeout(d);
        }
        late.on_timeout(end);
        prop_assert_eq!(snapshot(&late, end), snapshot(&timely, end));
    }
}
