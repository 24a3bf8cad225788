//! CRD, congestion region detection (NPC 2017 §3.2): a QCN-like congestion point on every
//! queue ([`CongestionPoint`]) and the congestion flags of a port ([`Flags`], [`Role`]).
//!
//! # Congestion point
//!
//! Every input queue and every output queue (per port, per priority) samples its arrivals
//! (§3.2, Fig. 4). At a sample (eq. 1):
//!
//! `Q_off = Q_len − Q_eq`, `Q_delta = Q_len − Q_len'` (`Q_len'`: at the previous sample),
//! `Fb = Q_off + w_q·Q_delta`.
//!
//! `Fb > 0` means congested. `Fb` is clamped to `[0, Fb_max]` quanta of `fb_quantum` bytes;
//! decision: a positive `Fb` is rounded *up* to whole quanta, so "congested" and "quantised
//! degree ≥ 1" are the same thing.
//!
//! Sampling (decision, after QCN, IEEE 802.1Qau, whose sampling probability goes from 1 % to
//! 10 % with the degree): one sample every `sample_bytes` of arrivals while the last `Fb` was
//! not positive; after a positive quantised `Fb` the next interval is `sample_bytes / (1 +
//! 9·Fb/Fb_max)`, a tenth at `Fb_max`. The interval is deterministic (QCN draws it at random
//! around the nominal value; here the host would pass a draw in if that were wanted).
//! `Q_len` is the queue's length including the arriving packet.
//!
//! # Flags
//!
//! A port (per priority) keeps a *local* flag (its own `Fb` was positive) and a *remote* flag
//! (a CN from the neighbour on its link is valid). Each clears `hold` after the last positive
//! `Fb` / the last CN (decision: a flag stays set for `hold` even if a later sample finds
//! `Fb ≤ 0`, so a queue oscillating around `Q_eq` does not flap; the degree is the last
//! positive one while the flag is set). The pair classifies the point (§3.2): local only =
//! root congestion point, remote only = edge of the congestion region, both = inner point.

use crate::config::RcmParams;
use rdma_cc_core::{Bytes, Time};

/// The outcome of one sample of a congestion point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// `Fb = Q_off + w_q·Q_delta` in bytes (§3.2 eq. 1), before clamping.
    pub fb: f64,
    /// `Fb` quantised: `0` when `Fb ≤ 0`, else `⌈Fb / quantum⌉` clamped to `Fb_max`.
    pub degree: u8,
}

impl Feedback {
    /// Whether the queue is congested (`Fb > 0`).
    pub fn congested(&self) -> bool {
        self.degree > 0
    }
}

/// `Fb = Q_off + w_q·Q_delta` (NPC 2017 §3.2 eq. 1) in bytes, with `Q_off = q_len − q_eq` and
/// `Q_delta = q_len − q_old`.
pub fn feedback(q_len: Bytes, q_old: Bytes, q_eq: Bytes, w_q: f64) -> f64 {
    let q_off = q_len.0 as f64 - q_eq.0 as f64;
    let q_delta = q_len.0 as f64 - q_old.0 as f64;
    q_off + w_q * q_delta
}

/// `fb` bytes as a degree: 0 when not positive, else `⌈fb / quantum⌉` clamped to `fb_max`.
pub fn quantise(fb: f64, quantum: Bytes, fb_max: u8) -> u8 {
    if fb.is_nan() || fb <= 0.0 {
        return 0;
    }
    let q = (fb / quantum.0.max(1) as f64).ceil();
    if q >= f64::from(fb_max) {
        fb_max
    } else {
        // 1 ≤ q < fb_max ≤ 255
        (q as u8).max(1)
    }
}

/// A QCN-like congestion point on one queue (input or output, one priority).
#[derive(Debug, Clone)]
pub struct CongestionPoint {
    q_eq: Bytes,
    w_q: f64,
    quantum: Bytes,
    fb_max: u8,
    sample_bytes: u64,
    /// Bytes of arrivals until the next sample.
    countdown: u64,
    /// `Q_len'`: the queue length at the previous sample.
    q_old: Bytes,
    /// The last sample's result.
    last: Option<Feedback>,
    samples: u64,
    positive: u64,
}

impl CongestionPoint {
    /// A point with `p`'s `Q_eq`, `w_q`, quantisation and sampling interval; the first sample
    /// comes after `sample_bytes` of arrivals.
    pub fn new(p: &RcmParams) -> CongestionPoint {
        CongestionPoint {
            q_eq: p.q_eq,
            w_q: p.w_q,
            quantum: p.fb_quantum,
            fb_max: p.fb_max.max(1),
            sample_bytes: p.sample_bytes.0.max(1),
            countdown: p.sample_bytes.0.max(1),
            q_old: Bytes::ZERO,
            last: None,
            samples: 0,
            positive: 0,
        }
    }

    /// Bytes of arrivals until the sample after one of degree `degree`: `sample_bytes` when
    /// 0, shrinking to `sample_bytes / 10` at `Fb_max` (after QCN's 1 %–10 % sampling).
    pub fn interval_after(&self, degree: u8) -> u64 {
        let m = u64::from(self.fb_max);
        let d = u64::from(degree.min(self.fb_max));
        // sample_bytes / (1 + 9·d/m) = sample_bytes·m / (m + 9·d)
        let i = (u128::from(self.sample_bytes) * u128::from(m)) / u128::from(m + 9 * d);
        (i as u64).max(1)
    }

    /// A packet of `size` bytes arrived; the queue now holds `q_len` bytes (the packet
    /// included). Returns the sample's [`Feedback`] when this arrival is sampled.
    pub fn on_arrival(&mut self, size: Bytes, q_len: Bytes) -> Option<Feedback> {
        if size.0 < self.countdown {
            self.countdown -= size.0;
            return None;
        }
        // §3.2 eq. 1
        let fb = feedback(q_len, self.q_old, self.q_eq, self.w_q);
        let f = Feedback {
            fb,
            degree: quantise(fb, self.quantum, self.fb_max),
        };
        self.q_old = q_len;
        self.countdown = self.interval_after(f.degree);
        self.last = Some(f);
        self.samples += 1;
        if f.congested() {
            self.positive += 1;
        }
        Some(f)
    }

    /// The last sample's result (`None` before the first sample).
    pub fn last(&self) -> Option<Feedback> {
        self.last
    }

    /// Samples taken.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// Samples that found `Fb > 0`.
    pub fn positive_samples(&self) -> u64 {
        self.positive
    }
}

/// How a point stands in a congestion region (NPC 2017 §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Role {
    /// Neither flag set.
    #[default]
    Clear = 0,
    /// Local flag only: the root congestion point; its harmful flows come from its own CFR.
    Root = 1,
    /// Remote flag only: the edge of the congestion region; its harmful flows are the root's.
    Edge = 2,
    /// Both flags: a point inside the region; its harmful flows are the root's.
    Inner = 3,
}

impl Role {
    /// Every role, in numeric order.
    pub const ALL: [Role; 4] = [Role::Clear, Role::Root, Role::Edge, Role::Inner];

    /// The role of a point with these flags (§3.2).
    pub const fn of(local: bool, remote: bool) -> Role {
        match (local, remote) {
            (false, false) => Role::Clear,
            (true, false) => Role::Root,
            (false, true) => Role::Edge,
            (true, true) => Role::Inner,
        }
    }

    /// Stable name for output files.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Clear => "clear",
            Role::Root => "root",
            Role::Edge => "edge",
            Role::Inner => "inner",
        }
    }

    /// Whether the point is in a congestion region (any flag set).
    pub const fn congested(self) -> bool {
        !matches!(self, Role::Clear)
    }

    /// Whether the point's harmful flows are the ones a CN named (edge and inner points: the
    /// root's IDs replace their own, §3.2) rather than its own CAM's (root).
    pub const fn uses_remote_flows(self) -> bool {
        matches!(self, Role::Edge | Role::Inner)
    }
}

/// The local and remote congestion flags of one point, with their hold timers, and the
/// degrees they carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// The local flag is set while `now < local_until`.
    local_until: Time,
    /// The remote flag is set while `now < remote_until`.
    remote_until: Time,
    /// The last positive local degree.
    fb_local: u8,
    /// `Fb_r`, the degree of the last CN.
    fb_remote: u8,
}

impl Flags {
    /// A local sample of degree `degree` at `now`: a positive one (re)sets the local flag
    /// until `now + hold` and becomes the local degree. Returns whether the flag rose (was
    /// clear): a detection.
    pub fn on_local(&mut self, now: Time, degree: u8, hold: Time) -> bool {
        if degree == 0 {
            return false;
        }
        let rose = !self.local(now);
        self.fb_local = degree;
        self.local_until = now.saturating_add(hold);
        rose
    }

    /// A CN of degree `fb_r` arrived at `now`: the remote flag is set until `now + hold`.
    /// Returns whether the flag rose.
    pub fn on_remote(&mut self, now: Time, fb_r: u8, hold: Time) -> bool {
        let rose = !self.remote(now);
        self.fb_remote = fb_r;
        self.remote_until = now.saturating_add(hold);
        rose
    }

    /// Whether the local flag is set at `now`.
    pub fn local(&self, now: Time) -> bool {
        now < self.local_until
    }

    /// When the local flag clears (in the past when it is clear).
    pub fn local_until(&self) -> Time {
        self.local_until
    }

    /// Whether the remote flag is set at `now`.
    pub fn remote(&self, now: Time) -> bool {
        now < self.remote_until
    }

    /// The point's role at `now`.
    pub fn role(&self, now: Time) -> Role {
        Role::of(self.local(now), self.remote(now))
    }

    /// The local degree at `now`: the last positive sample's while the flag is set, else 0.
    pub fn fb_local(&self, now: Time) -> u8 {
        if self.local(now) {
            self.fb_local
        } else {
            0
        }
    }

    /// `Fb_r` at `now` (`None` once the remote flag is clear).
    pub fn fb_remote(&self, now: Time) -> Option<u8> {
        self.remote(now).then_some(self.fb_remote)
    }

    /// When the next set flag clears (`None` when both are clear at `now`).
    pub fn next_expiry(&self, now: Time) -> Option<Time> {
        [self.local_until, self.remote_until]
            .into_iter()
            .filter(|&t| t > now)
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RcmConfig;

    fn params() -> RcmParams {
        RcmConfig::default().resolved().unwrap()
    }

    #[test]
    fn fb_is_offset_plus_weighted_growth_eq1() {
        // §3.2 eq. 1: Q_off = 30 000 − 20 000, Q_delta = 30 000 − 25 000, w_q = 2
        assert_eq!(
            feedback(Bytes(30_000), Bytes(25_000), Bytes(20_000), 2.0),
            20_000.0
        );
        // a queue above Q_eq but draining fast is not congested
        assert!(feedback(Bytes(25_000), Bytes(40_000), Bytes(20_000), 2.0) < 0.0);
        // a short queue growing fast is
        assert!(feedback(Bytes(15_000), Bytes(5_000), Bytes(20_000), 2.0) > 0.0);
    }

    #[test]
    fn quantisation_rounds_up_and_clamps_to_fb_max() {
        let q = Bytes(2_500);
        assert_eq!(quantise(-1.0, q, 63), 0);
        assert_eq!(quantise(0.0, q, 63), 0);
        // any positive Fb is congested: at least one quantum
        assert_eq!(quantise(0.001, q, 63), 1);
        assert_eq!(quantise(2_500.0, q, 63), 1);
        assert_eq!(quantise(2_501.0, q, 63), 2);
        assert_eq!(quantise(1e12, q, 63), 63);
        assert_eq!(quantise(f64::INFINITY, q, 63), 63);
        assert_eq!(quantise(f64::NAN, q, 63), 0);
    }

    #[test]
    fn samples_every_sample_bytes_then_faster_when_congested() {
        let p = params();
        let mut cp = CongestionPoint::new(&p);
        // 150 KB of 1000-byte arrivals: the 150th is sampled
        for i in 1..150 {
            assert_eq!(cp.on_arrival(Bytes(1000), Bytes(1000)), None, "{i}");
        }
        let f = cp.on_arrival(Bytes(1000), Bytes(5_000)).unwrap();
        // Q_off = −15 000, Q_delta = 5 000: Fb = −5 000 B
        assert_eq!(f.fb, -5_000.0);
        assert!(!f.congested());
        assert_eq!(cp.samples(), 1);
        // uncongested: the next interval is 150 KB again
        assert_eq!(cp.interval_after(0), 150_000);
        // at Fb_max a tenth, in between proportionally (QCN's 1 %..10 %)
        assert_eq!(cp.interval_after(63), 15_000);
        assert_eq!(cp.interval_after(7), 150_000 * 63 / (63 + 63));
        assert_eq!(cp.interval_after(200), 15_000);
    }

    #[test]
    fn a_growing_queue_is_detected_and_sampled_faster() {
        let p = params();
        let mut cp = CongestionPoint::new(&p);
        let f = cp.on_arrival(Bytes(150_000), Bytes(90_000)).unwrap();
        // Q_off = 70 000, Q_delta = 90 000: Fb = 250 000 B > 63 quanta
        assert_eq!(f.fb, 250_000.0);
        assert_eq!(f.degree, 63);
        // next sample after 15 KB
        assert_eq!(cp.on_arrival(Bytes(14_999), Bytes(95_000)), None);
        let f = cp.on_arrival(Bytes(1), Bytes(95_000)).unwrap();
        // Q_off = 75 000, Q_delta = 5 000: Fb = 85 000 B = 34 quanta
        assert_eq!(f.degree, 34);
        assert_eq!(cp.positive_samples(), 2);
        assert_eq!(cp.last(), Some(f));
    }

    #[test]
    fn roles_follow_the_flags_section_3_2() {
        assert_eq!(Role::of(false, false), Role::Clear);
        assert_eq!(Role::of(true, false), Role::Root);
        assert_eq!(Role::of(false, true), Role::Edge);
        assert_eq!(Role::of(true, true), Role::Inner);
        assert!(Role::Edge.uses_remote_flows() && Role::Inner.uses_remote_flows());
        assert!(!Role::Root.uses_remote_flows());
        let names: Vec<_> = Role::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names, ["clear", "root", "edge", "inner"]);
    }

    #[test]
    fn flags_hold_then_clear() {
        let hold = Time::us(20);
        let mut f = Flags::default();
        assert_eq!(f.role(Time::ZERO), Role::Clear);
        // a non-positive sample sets nothing
        assert!(!f.on_local(Time::us(1), 0, hold));
        assert_eq!(f.next_expiry(Time::us(1)), None);
        // detection: the flag rises once
        assert!(f.on_local(Time::us(2), 5, hold));
        assert!(!f.on_local(Time::us(3), 7, hold));
        assert_eq!(f.role(Time::us(3)), Role::Root);
        assert_eq!(f.fb_local(Time::us(3)), 7);
        // a later Fb ≤ 0 clears neither the flag nor the degree
        assert!(!f.on_local(Time::us(4), 0, hold));
        assert!(f.local(Time::us(22)));
        assert_eq!(f.fb_local(Time::us(22)), 7);
        assert_eq!(f.local_until(), Time::us(23));
        assert_eq!(f.next_expiry(Time::us(4)), Some(Time::us(23)));
        // cleared hold after the last positive Fb
        assert!(!f.local(Time::us(23)));
        // a CN: edge, then inner with a local detection
        assert!(f.on_remote(Time::us(30), 40, hold));
        assert_eq!(f.role(Time::us(30)), Role::Edge);
        assert_eq!(f.fb_remote(Time::us(30)), Some(40));
        assert!(f.on_local(Time::us(31), 3, hold));
        assert_eq!(f.role(Time::us(31)), Role::Inner);
        assert!(!f.on_remote(Time::us(35), 41, hold));
        assert_eq!(f.next_expiry(Time::us(36)), Some(Time::us(51)));
        assert_eq!(f.role(Time::us(51)), Role::Edge);
        assert_eq!(f.role(Time::us(55)), Role::Clear);
        assert_eq!(f.fb_remote(Time::us(55)), None);
        assert_eq!(f.next_expiry(Time::us(55)), None);
    }
}
