//! RCC, regional congestion control (NPC 2017 §3.4): the window-based control of one output
//! queue, in two parts: the budget of the congestion flows ([`RccBudget`], decided where the
//! congestion events are known: the switch) and the window that enforces it
//! ([`RccWindow`], where the packets are sent: the port's egress scheduler). [`Rcc`] is the
//! two together, for a host that keeps both in one place.
//!
//! A window of `W` bytes (the bytes the port sends in `window_time` at line rate) is split
//! `W = W_c + W_nc` (eq. 3): `W_c` is the budget of the *congestion flows* (the flows the
//! point's CFR or a CN named), `W_nc = W − W_c` the rest's.
//!
//! - **Activation** (the port detects congestion itself or receives a CN): `W_c` starts at the
//!   congestion flows' share of what the queue sent lately (decision: their share of the
//!   queue's CAM entries, which sample the last `cam_depth·cfr_sample` departures — about one
//!   window at the defaults — so the share is measured with whatever set of congestion flows
//!   the point uses, its own or a CN's; the caller passes it to [`RccBudget::activate`]).
//! - **Cut** on each congestion event of degree `Fb` (eq. 4–6): `W_c ← W_c·(1 − Fb·G_d)`,
//!   `W_nc ← W − W_c`; `Fb·G_d` is clamped to `[0, 1/2]`, so a cut never exceeds 50 %, and the
//!   new `W_c` is rounded up to a whole byte (never below half the old one). The paper has no
//!   increase rule: `W_c` only decreases while RCC is active, unless the switch recovers it
//!   (decision `rcc_recover_time`: [`RccBudget::recover`] adds a step when no congestion event
//!   came for a while); it starts again from the measured share at the next activation.
//! - **Timed window** (decision `rcc_timed`, [`RccWindow::set_period`]): the window is a period
//!   of `window_time` in which the congestion flows may send `W_c`; held packets wait for the
//!   next period even when nothing else waits (pacing, so that they back-pressure upstream).
//! - **Scheduling** ([`RccWindow`]): once the congestion flows have sent `W_c` bytes in the
//!   current window, their packets are held until the whole window `W` has been sent; then a
//!   new window starts. Decision: a window also ends when no non-congestion packet is
//!   waiting, so the port never idles while it has work
//!   ([`RccWindow::admits_congestion`]). Held packets stay in the queue; the input queues
//!   fill and PFC carries the back-pressure upstream along the harmful flows' path.
//! - **Exit** when the port is no longer congested and holds no valid CN.
//!
//! Fairness: only packets of congestion flows are subject to `W_c`; the others are never held.

use rdma_cc_core::Bytes;

/// Counters of an [`RccBudget`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BudgetStats {
    /// Activations.
    pub activations: u64,
    /// Exits.
    pub exits: u64,
    /// Cuts applied (eq. 5).
    pub cuts: u64,
    /// Recoveries of `W_c` (decision `rcc_recover_time`).
    pub recoveries: u64,
}

/// The congestion flows' budget `W_c` of one output queue (NPC 2017 §3.4 eq. 3–6).
#[derive(Debug, Clone)]
pub struct RccBudget {
    /// `W`.
    w: Bytes,
    /// `G_d`.
    g_d: f64,
    /// `W_c` while active.
    w_c: Option<Bytes>,
    stats: BudgetStats,
}

impl RccBudget {
    /// An inactive budget for window `w` (≥ 1 byte) and gain `g_d`.
    pub fn new(w: Bytes, g_d: f64) -> RccBudget {
        RccBudget {
            w: Bytes(w.0.max(1)),
            g_d: if g_d.is_finite() { g_d.max(0.0) } else { 0.0 },
            w_c: None,
            stats: BudgetStats::default(),
        }
    }

    /// `W`.
    pub fn w(&self) -> Bytes {
        self.w
    }

    /// Whether RCC is active.
    pub fn is_active(&self) -> bool {
        self.w_c.is_some()
    }

    /// `W_c` (`None` while inactive).
    pub fn w_c(&self) -> Option<Bytes> {
        self.w_c
    }

    /// `W_nc = W − W_c` (eq. 6; `None` while inactive).
    pub fn w_nc(&self) -> Option<Bytes> {
        self.w_c.map(|c| self.w.saturating_sub(c))
    }

    /// Counters.
    pub fn stats(&self) -> BudgetStats {
        self.stats
    }

    /// Starts RCC with `W_c = share·W` (`share`, the congestion flows' recent share of the
    /// queue's traffic, clamped to `[0, 1]`; `None`, nothing known: `W`). Returns the initial
    /// `W_c`, or `None` (changing nothing) when already active.
    pub fn activate(&mut self, share: Option<f64>) -> Option<Bytes> {
        if self.w_c.is_some() {
            return None;
        }
        let s = share.filter(|s| !s.is_nan()).unwrap_or(1.0).clamp(0.0, 1.0);
        // at least 1 byte: one packet per window (liveness, see `cut`)
        let w_c = Bytes((((self.w.0 as f64) * s).round() as u64).max(1)).min(self.w);
        self.w_c = Some(w_c);
        self.stats.activations += 1;
        log::debug!("RCC on: W {} W_c {}", self.w.0, w_c.0);
        Some(w_c)
    }

    /// The fraction a congestion event of degree `degree` cuts: `Fb·G_d` clamped to
    /// `[0, 1/2]` (eq. 4; `Fb_max·G_d = 1/2`).
    pub fn cut_fraction(&self, degree: u8) -> f64 {
        (f64::from(degree) * self.g_d).clamp(0.0, 0.5)
    }

    /// A congestion event of degree `degree` (eq. 5–6): `W_c ← W_c·(1 − Fb·G_d)`, rounded up,
    /// and never below 1 byte (decision: the congestion flows may always send one packet per
    /// window; a `W_c` of 0 would hold them for good, and RCC does not quit while it holds
    /// packets — found by a random fabric with `rcc_timed` and no recovery: flows that never
    /// finished). Returns the new `W_c` (`None` while inactive: nothing to cut).
    pub fn cut(&mut self, degree: u8) -> Option<Bytes> {
        let f = self.cut_fraction(degree);
        let old = self.w_c?;
        // rounding up keeps the cut within 50 %: new ≥ old / 2
        let new = Bytes(((old.0 as f64) * (1.0 - f)).ceil() as u64)
            .min(old)
            .max(Bytes(1));
        self.w_c = Some(new);
        self.stats.cuts += 1;
        log::trace!("RCC cut Fb {degree}: W_c {} -> {}", old.0, new.0);
        Some(new)
    }

    /// Decision (`rcc_recover_time`): no congestion event arrived for a while, `W_c` grows by
    /// `step` bytes, up to `W`. Returns the new `W_c` (`None` while inactive or already `W`).
    pub fn recover(&mut self, step: Bytes) -> Option<Bytes> {
        let old = self.w_c?;
        if old >= self.w {
            return None;
        }
        let new = old.saturating_add(step.max(Bytes(1))).min(self.w);
        self.w_c = Some(new);
        self.stats.recoveries += 1;
        log::trace!("RCC recovery: W_c {} -> {}", old.0, new.0);
        Some(new)
    }

    /// Stops RCC (the port is no longer congested and holds no valid CN). Returns whether it
    /// was active.
    pub fn exit(&mut self) -> bool {
        let was = self.w_c.take().is_some();
        if was {
            self.stats.exits += 1;
            log::debug!("RCC off");
        }
        was
    }
}

pub use rdma_cc_switch::window::{RccWindow, WindowStats};

/// Budget and window of one output queue together (NPC 2017 §3.4 "RCC"), for a host that
/// keeps both in one place.
#[derive(Debug, Clone)]
pub struct Rcc {
    budget: RccBudget,
    window: RccWindow,
}

impl Rcc {
    /// An inactive RCC with window `w` and gain `g_d`.
    pub fn new(w: Bytes, g_d: f64) -> Rcc {
        Rcc {
            budget: RccBudget::new(w, g_d),
            window: RccWindow::new(),
        }
    }

    /// The budget.
    pub fn budget(&self) -> &RccBudget {
        &self.budget
    }

    /// The window.
    pub fn window(&self) -> &RccWindow {
        &self.window
    }

    fn sync(&mut self) {
        let b = self.budget.w_c().map(|c| (self.budget.w(), c));
        self.window.set(b);
    }

    /// [`RccBudget::activate`], and a fresh window.
    pub fn activate(&mut self, share: Option<f64>) -> Option<Bytes> {
        let r = self.budget.activate(share);
        self.sync();
        r
    }

    /// [`RccBudget::cut`]; the window goes on with the new `W_c`.
    pub fn cut(&mut self, degree: u8) -> Option<Bytes> {
        let r = self.budget.cut(degree);
        self.sync();
        r
    }

    /// [`RccBudget::exit`]; every packet may go again.
    pub fn exit(&mut self) -> bool {
        let r = self.budget.exit();
        self.sync();
        r
    }

    /// [`RccWindow::admits_congestion`].
    pub fn admits_congestion(&mut self, others_waiting: bool) -> bool {
        self.window.admits_congestion(others_waiting)
    }

    /// [`RccWindow::on_sent`].
    pub fn on_sent(&mut self, size: Bytes, congestion: bool) {
        self.window.on_sent(size, congestion);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rdma_cc_core::Time;

    const G_D: f64 = 0.5 / 63.0;

    #[test]
    fn inactive_rcc_holds_nothing() {
        let mut r = Rcc::new(Bytes(125_000), G_D);
        assert!(!r.budget().is_active());
        assert!(r.admits_congestion(true));
        assert_eq!(r.cut(63), None);
        r.on_sent(Bytes(1000), true);
        assert_eq!(r.window().stats(), WindowStats::default());
        assert!(!r.exit());
    }

    #[test]
    fn activation_takes_the_measured_share() {
        let mut b = RccBudget::new(Bytes(125_000), G_D);
        assert_eq!(b.activate(Some(0.5)), Some(Bytes(62_500)));
        assert_eq!(b.w_c(), Some(Bytes(62_500)));
        assert_eq!(b.w_nc(), Some(Bytes(62_500)));
        // already active: unchanged
        assert_eq!(b.activate(Some(1.0)), None);
        assert!(b.exit());
        // nothing known: the whole window
        assert_eq!(b.activate(None), Some(Bytes(125_000)));
        b.exit();
        assert_eq!(b.activate(Some(7.0)), Some(Bytes(125_000)));
        assert_eq!(b.stats().activations, 3);
        assert_eq!(b.stats().exits, 2);
    }

    #[test]
    fn cut_is_multiplicative_and_at_most_half_eq5() {
        let mut b = RccBudget::new(Bytes(125_000), G_D);
        b.activate(Some(0.5));
        // §3.4 eq. 5 at Fb_max: W_c ← W_c·(1 − 63·G_d) = W_c / 2
        assert_eq!(b.cut(63), Some(Bytes(31_250)));
        // Fb = 21: a cut of a sixth
        assert_eq!(b.cut(21), Some(Bytes(26_042)));
        // a degree beyond Fb_max still cuts at most 50 %
        assert_eq!(b.cut(255), Some(Bytes(13_021)));
        // eq. 6: W_nc = W − W_c
        assert_eq!(b.w_nc(), Some(Bytes(125_000 - 13_021)));
        assert_eq!(b.stats().cuts, 3);
        assert_eq!(b.cut_fraction(0), 0.0);
    }

    #[test]
    fn congestion_flows_are_held_once_w_c_is_sent() {
        // W = 10 000, W_c = 3 000, 1000-byte packets
        let mut r = Rcc::new(Bytes(10_000), G_D);
        r.activate(Some(0.3));
        for _ in 0..3 {
            assert!(r.admits_congestion(true));
            r.on_sent(Bytes(1000), true);
        }
        // budget used: held while others wait
        assert!(!r.admits_congestion(true));
        for _ in 0..6 {
            r.on_sent(Bytes(1000), false);
            assert!(!r.admits_congestion(true));
        }
        // the 10th kilobyte completes W: a new window, the budget is back
        r.on_sent(Bytes(1000), false);
        assert_eq!(r.window().stats().windows, 1);
        assert!(r.admits_congestion(true));
        assert_eq!(r.window().stats().holds, 7);
    }

    #[test]
    fn a_cut_keeps_the_current_window() {
        let mut r = Rcc::new(Bytes(10_000), G_D);
        r.activate(Some(0.5));
        r.on_sent(Bytes(1000), true);
        r.on_sent(Bytes(1000), false);
        r.cut(63);
        assert_eq!(r.window().budget(), Some((Bytes(10_000), Bytes(2_500))));
        assert_eq!(r.window().sent(), (Bytes(2000), Bytes(1000)));
        r.exit();
        assert_eq!(r.window().budget(), None);
        // a new activation opens a fresh window
        r.activate(Some(0.5));
        assert_eq!(r.window().sent(), (Bytes::ZERO, Bytes::ZERO));
    }

    #[test]
    fn a_window_ends_early_when_nothing_else_waits() {
        let mut r = Rcc::new(Bytes(10_000), G_D);
        r.activate(Some(0.1));
        r.on_sent(Bytes(1000), true);
        // budget used, but no other packet waits: the congestion flow goes (work conserving)
        assert!(r.admits_congestion(false));
        r.on_sent(Bytes(1000), true);
        assert_eq!(r.window().stats().early_ends, 1);
        // the packet opened a new window and used its budget
        assert_eq!(r.window().sent(), (Bytes(1000), Bytes(1000)));
        assert!(!r.admits_congestion(true));
        // a share of 0: W_c is 1 byte, one packet per window (liveness), then the congestion
        // flows only go when nothing else waits
        r.exit();
        assert_eq!(r.activate(Some(0.0)), Some(Bytes(1)));
        assert!(r.admits_congestion(true));
        r.on_sent(Bytes(1000), true);
        assert!(!r.admits_congestion(true));
        assert!(r.admits_congestion(false));
        // and no cut takes it to 0
        assert_eq!(r.cut(63), Some(Bytes(1)));
    }

    #[test]
    fn backlogged_congestion_flows_get_w_c_over_w() {
        // both kinds always waiting: the congestion flows get W_c / W of the bytes
        let mut r = Rcc::new(Bytes(125_000), G_D);
        r.activate(Some(0.5));
        r.cut(63); // W_c = W/4: 25 Gb/s of a 100 Gb/s port (NPC 2017 Fig. 6)
        let (mut c, mut o) = (0u64, 0u64);
        for i in 0..100_000u64 {
            // serve congestion and others alternately when both may go
            let congestion = i % 2 == 0 && r.admits_congestion(true);
            r.on_sent(Bytes(1000), congestion);
            if congestion {
                c += 1000;
            } else {
                o += 1000;
            }
        }
        let share = c as f64 / (c + o) as f64;
        assert!((share - 0.25).abs() < 0.01, "{share}");
    }

    #[test]
    fn a_timed_window_holds_congestion_flows_until_the_next_period() {
        // decision rcc_timed: W_c bytes per period, no early end when nothing else waits
        let mut r = RccWindow::new();
        r.set_period(Some(Time::us(10)));
        r.set(Some((Bytes(125_000), Bytes(2_000))));
        let t0 = Time::us(100);
        for _ in 0..2 {
            assert!(r.admits_congestion_at(t0, false));
            r.on_sent(Bytes(1000), true);
        }
        // budget spent: held even though nothing else waits, until the period ends
        assert!(!r.admits_congestion_at(t0 + Time::us(5), false));
        assert_eq!(r.blocked_until(t0 + Time::us(5)), Some(t0 + Time::us(10)));
        // others are never held, and do not end the period
        r.on_sent(Bytes(200_000), false);
        assert!(!r.admits_congestion_at(t0 + Time::us(9), true));
        // the next period: the budget is back
        assert!(r.admits_congestion_at(t0 + Time::us(10), true));
        assert_eq!(r.blocked_until(t0 + Time::us(10)), None);
        assert_eq!(r.stats().early_ends, 0);
        assert_eq!(r.stats().holds, 2);
        // off: everything goes
        r.set(None);
        assert!(r.admits_congestion_at(t0 + Time::us(10), true));
        assert_eq!(r.blocked_until(t0), None);
    }

    #[test]
    fn recovery_adds_a_step_up_to_w() {
        let mut b = RccBudget::new(Bytes(10_000), G_D);
        assert_eq!(b.recover(Bytes(1000)), None, "inactive");
        b.activate(Some(0.5));
        b.cut(63);
        assert_eq!(b.w_c(), Some(Bytes(2_500)));
        assert_eq!(b.recover(Bytes(1000)), Some(Bytes(3_500)));
        assert_eq!(b.recover(Bytes(7000)), Some(Bytes(10_000)));
        assert_eq!(b.recover(Bytes(1000)), None, "already W");
        assert_eq!(b.stats().recoveries, 2);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Activate(Option<f64>),
        Cut(u8),
        Send {
            size: u64,
            congestion: bool,
            others: bool,
        },
        Exit,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            1 => prop::option::of(-1.0f64..2.0).prop_map(Op::Activate),
            2 => any::<u8>().prop_map(Op::Cut),
            8 => (64u64..9000, any::<bool>(), any::<bool>())
                .prop_map(|(size, congestion, others)| Op::Send { size, congestion, others }),
            1 => Just(Op::Exit),
        ]
    }

    proptest! {
        /// W_c stays in [0, W]; a cut never takes more than half of W_c; the window never
        /// holds W bytes or more; the congestion bytes of a window never exceed the window's.
        #[test]
        fn w_c_stays_in_range_and_cuts_are_at_most_half(
            w in 1u64..1_000_000,
            fb_max in 1u8..=255,
            ops in prop::collection::vec(op(), 1..300),
        ) {
            let mut r = Rcc::new(Bytes(w), 0.5 / f64::from(fb_max));
            for op in ops {
                let before = r.budget().w_c();
                match op {
                    Op::Activate(s) => { r.activate(s); }
                    Op::Cut(d) => {
                        if let (Some(old), Some(new)) = (before, r.cut(d)) {
                            prop_assert!(new <= old);
                            prop_assert!(2 * new.0 >= old.0, "cut {} -> {}", old.0, new.0);
                        }
                    }
                    Op::Send { size, congestion, others } => {
                        if !congestion || r.admits_congestion(others) {
                            r.on_sent(Bytes(size), congestion);
                        }
                    }
                    Op::Exit => { r.exit(); }
                }
                let b = r.budget();
                prop_assert_eq!(r.window().budget(), b.w_c().map(|c| (b.w(), c)));
                if let Some(w_c) = b.w_c() {
                    prop_assert!(w_c <= Bytes(w));
                    prop_assert_eq!(b.w_nc(), Some(Bytes(w) - w_c));
                    let (sent, sent_c) = r.window().sent();
                    prop_assert!(sent < Bytes(w));
                    prop_assert!(sent_c <= sent);
                }
            }
        }
    }
}
