//! TIMELY's rate controller (Mittal et al., SIGCOMM 2015, §4 and Algorithm 1).
//!
//! State per flow: the rate `R`, the previous RTT sample, the smoothed RTT difference
//! `rtt_diff` and the count of increases in a row. A flow starts at line rate, sends every
//! packet ECT(0) (TIMELY ignores marks; ECT keeps switches from WRED-dropping its packets),
//! paced at `R`, with no window (the HPCC simulator runs TIMELY with `HAS_WIN 0`).
//!
//! At each update, with `rtt` the ACK's RTT sample ([`AckEvent::rtt`]: now − the send
//! timestamp the ACK echoes):
//! - `new_rtt_diff = rtt − prev_rtt`; `rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff`;
//!   `gradient = rtt_diff / minRTT` (Algorithm 1, lines 1–4);
//! - `rtt < T_low`: increase (line 5);
//! - `rtt > T_high`: `R ← R·(1 − β·(1 − T_high/rtt))` (line 8);
//! - otherwise `gradient ≤ 0`: increase (line 11), else `R ← R·max(0, 1 − β·gradient)`
//!   (line 13);
//! - an increase is `R ← R + δ`, or `R + R_HAI` once the previous `hai_after` updates were all
//!   increases (hyper-active increase, line 11's `N·δ`); a decrease resets that count;
//! - `R` is clamped to `[min_rate, line rate]`.
//!
//! Invariant: `min_rate ≤ R ≤ line rate` after every event.
//!
//! # Decisions (points the paper leaves open, and where the HPCC simulator is followed)
//! - **When an update happens.** Per RTT (default, the simulator's): at the first ACK that
//!   acknowledges beyond `last_update_seq`, which is then set to the current `snd_nxt` (the
//!   end of the last packet sent). Per segment ([`Granularity::Segment`], the paper's
//!   completion events): each time the bytes acknowledged since the last update reach the
//!   segment size (one update even if an ACK completes several segments; the remainder
//!   carries over).
//! - **The first update** only records its RTT as `prev_rtt` (there is no difference yet; the
//!   simulator's `m_lastUpdateSeq == 0` case). `rtt_diff` starts at 0.
//! - **Which sample.** The ACK's echoed timestamp is that of the data packet that triggered
//!   the ACK, so each sample is one packet's RTT; the paper subtracts the segment's
//!   serialisation time (`seg_size / line rate`), which for one packet is at most ~0.1 µs at
//!   100 Gb/s and is not subtracted (as in the simulator). An ACK without a sample (none
//!   echoed) changes nothing.
//! - **Counting increases for the hyper step.** Every increase counts (below `T_low` or by the
//!   gradient), every decrease resets the count, and the increase after `hai_after` in a row
//!   uses the hyper step (the simulator: `m_incStage < 5 ? RATE_AI : RATE_HAI`). With
//!   `hai_below_t_low` false (paper preset) an increase below `T_low` still counts but is
//!   always `δ` (Algorithm 1 applies `N·δ` only in the gradient branch).
//! - **Rounding.** Rates are whole bit/s; `R·factor` is rounded down with preset `hpcc-sim`
//!   (the simulator's `DataRate × double` truncates, `data-rate.cc:289-292`), to the nearest
//!   bit/s with `paper`.
//! - **Losses.** NACKs and timeouts do not change the rate: the simulator runs TIMELY on a
//!   lossless (PFC) priority, and the paper defines no reaction to them.

use crate::config::{Granularity, Preset, TimelyConfig, TimelyParams};
use rdma_cc_core::{ConfigError, Rate, Time};
use rdma_cc_transport::{AckEvent, Controller, SenderConfig, SeqTrack, TxPacket};

/// Counters of a [`Timely`] flow (for traces and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimelyStats {
    /// Updates made (the first, which only records its RTT, included).
    pub updates: u64,
    /// Increases by `δ`.
    pub increases: u64,
    /// Increases by the hyper step.
    pub hyper_increases: u64,
    /// Decreases above `T_high`.
    pub high_decreases: u64,
    /// Decreases by the gradient.
    pub gradient_decreases: u64,
}

/// TIMELY's controller (see the module documentation).
#[derive(Debug, Clone)]
pub struct Timely {
    p: TimelyParams,
    line_rate: Rate,
    rate: Rate,
    prev_rtt: Option<Time>,
    /// Smoothed RTT difference, ns.
    rtt_diff: f64,
    /// The last gradient computed (0 before the second update).
    gradient: f64,
    /// Increases in a row since the last decrease.
    inc_stage: u32,
    /// Per RTT: the next update is at the first ACK beyond this sequence.
    last_update_seq: u64,
    /// `snd_nxt` and `snd_una`.
    seq: SeqTrack,
    /// Per segment: bytes acknowledged since the last update.
    segment_bytes: u64,
    /// Preset `hpcc-sim`: a decrease rounds down, as the simulator's `DataRate × double`.
    truncate: bool,
    stats: TimelyStats,
}

impl Timely {
    /// The controller with constants `cfg` on the path `sender` describes (both validated
    /// here): line rate, no RTT sample yet.
    pub fn new(sender: &SenderConfig, cfg: &TimelyConfig) -> Result<Timely, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        let line_rate = sender.path.line_rate;
        Ok(Timely {
            p: cfg.resolved(line_rate),
            line_rate,
            rate: line_rate,
            prev_rtt: None,
            rtt_diff: 0.0,
            gradient: 0.0,
            inc_stage: 0,
            last_update_seq: 0,
            seq: SeqTrack::default(),
            segment_bytes: 0,
            truncate: cfg.preset == Preset::HpccSim,
            stats: TimelyStats::default(),
        })
    }

    /// The constants in effect.
    pub fn params(&self) -> &TimelyParams {
        &self.p
    }

    /// The current rate (the pacing rate).
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The smoothed RTT difference, ns.
    pub fn rtt_diff(&self) -> f64 {
        self.rtt_diff
    }

    /// The normalised gradient of the last update (`rtt_diff / minRTT`).
    pub fn gradient(&self) -> f64 {
        self.gradient
    }

    /// The RTT sample of the last update.
    pub fn prev_rtt(&self) -> Option<Time> {
        self.prev_rtt
    }

    /// Increases in a row since the last decrease.
    pub fn increases_in_a_row(&self) -> u32 {
        self.inc_stage
    }

    /// Counters.
    pub fn stats(&self) -> TimelyStats {
        self.stats
    }

    /// One update with the RTT sample `rtt` (Algorithm 1).
    fn update(&mut self, rtt: Time) {
        self.stats.updates += 1;
        let Some(prev) = self.prev_rtt.replace(rtt) else {
            // the first sample only starts the differences
            return;
        };
        let p = self.p;
        // Algorithm 1: new_rtt_diff = new_rtt − prev_rtt;
        // rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff
        let new_diff = rtt.0 as f64 - prev.0 as f64;
        self.rtt_diff = (1.0 - p.alpha) * self.rtt_diff + p.alpha * new_diff;
        // normalized_gradient = rtt_diff / minRTT
        self.gradient = self.rtt_diff / p.min_rtt.0 as f64;
        let before = self.rate;
        let kind = if rtt < p.t_low {
            // Algorithm 1 line 5: rtt < T_low → rate + δ (the simulator: hyper step too)
            self.increase(p.hai_below_t_low)
        } else if rtt > p.t_high {
            // line 8: rtt > T_high → rate·(1 − β·(1 − T_high/rtt))
            self.stats.high_decreases += 1;
            let factor = 1.0 - p.beta * (1.0 - p.t_high.0 as f64 / rtt.0 as f64);
            self.decrease(factor)
        } else if self.gradient <= 0.0 {
            // line 11: gradient ≤ 0 → rate + N·δ (N = 5 after a run of increases)
            self.increase(true)
        } else {
            // line 13: rate·(1 − β·gradient), never below 0 before the clamp
            self.stats.gradient_decreases += 1;
            self.decrease((1.0 - p.beta * self.gradient).max(0.0))
        };
        log::trace!(
            "{kind}: rtt {} ns, rtt_diff {:.0} ns, gradient {:.4}: {} -> {} bit/s",
            rtt.0,
            self.rtt_diff,
            self.gradient,
            before.0,
            self.rate.0
        );
        self.debug_check();
    }

    fn increase(&mut self, hyper_allowed: bool) -> &'static str {
        let hyper = hyper_allowed && self.inc_stage >= self.p.hai_after;
        let step = if hyper {
            self.stats.hyper_increases += 1;
            self.p.rate_hai
        } else {
            self.stats.increases += 1;
            self.p.rate_ai
        };
        self.rate = Rate(self.rate.0.saturating_add(step.0).min(self.line_rate.0));
        self.inc_stage = self.inc_stage.saturating_add(1);
        if hyper {
            "hyper increase"
        } else {
            "increase"
        }
    }

    fn decrease(&mut self, factor: f64) -> &'static str {
        let r = self.rate.0 as f64 * factor;
        // hpcc-sim: DataRate × double truncates (data-rate.cc:289-292); paper: nearest
        let r = if self.truncate { r.floor() } else { r.round() };
        let r = if r.is_finite() && r >= 0.0 {
            (r as u64).min(self.rate.0)
        } else {
            self.rate.0
        };
        self.rate = Rate(r.max(self.p.min_rate.0));
        self.inc_stage = 0;
        "decrease"
    }

    #[inline]
    fn debug_check(&self) {
        debug_assert!(self.p.min_rate <= self.rate, "rate {:?} < min", self.rate);
        debug_assert!(self.rate <= self.line_rate, "rate {:?} > line", self.rate);
    }
}

impl Controller for Timely {
    fn pacing_rate(&self, _srtt: Time) -> Option<Rate> {
        Some(self.rate)
    }

    fn on_sent(&mut self, _now: Time, pkt: &TxPacket) {
        self.seq.on_sent(pkt);
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        let newly = self.seq.on_ack(ack);
        let Some(rtt) = ack.rtt else {
            return;
        };
        match self.p.granularity {
            Granularity::PerRtt => {
                // per RTT: the first ACK beyond what was next to send at the last update
                if ack.snd_una > self.last_update_seq {
                    self.update(rtt);
                    self.last_update_seq = self.last_update_seq.max(self.seq.snd_nxt);
                }
            }
            Granularity::Segment => {
                // TIMELY §4.1: one completion event per segment acknowledged
                self.segment_bytes = self.segment_bytes.saturating_add(newly);
                let seg = self.p.segment.0.max(1);
                if self.segment_bytes >= seg {
                    self.segment_bytes %= seg;
                    self.update(rtt);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::{Bytes, Ecn};
    use rdma_cc_transport::Path;

    fn sender(line: Rate) -> SenderConfig {
        SenderConfig {
            path: Path {
                line_rate: line,
                lossless: true,
                ..Path::default()
            },
            ..SenderConfig::default()
        }
    }

    fn ctl(cfg: TimelyConfig) -> Timely {
        Timely::new(&sender(Rate::gbps(100)), &cfg).unwrap()
    }

    /// Sends up to `end` and acknowledges it with an RTT sample of `rtt_us`, at `now_us`.
    fn ack(c: &mut Timely, end: u64, now_us: u64, rtt_us: u64) {
        c.on_sent(
            Time::us(now_us),
            &TxPacket {
                seq: end.saturating_sub(1000),
                len: 1000,
                ecn: Ecn::Ect0,
                retransmission: false,
                last: false,
                ack_req: false,
            },
        );
        c.on_ack(&AckEvent {
            now: Time::us(now_us),
            rtt: Some(Time::us(rtt_us)),
            newly_acked: 1,
            ece: false,
            snd_una: end,
            acked_packets: end / 1000,
        });
    }

    /// A controller whose rate was first brought down to `rate` by decreases above T_high.
    fn at_rate(cfg: TimelyConfig, rate: Rate) -> Timely {
        let mut c = ctl(cfg);
        c.rate = rate;
        c
    }

    #[test]
    fn starts_at_line_rate_paced_without_window_and_ect() {
        let c = ctl(TimelyConfig::default());
        assert_eq!(c.rate(), Rate::gbps(100));
        assert_eq!(c.pacing_rate(Time::us(8)), Some(Rate::gbps(100)));
        assert_eq!(c.window(), None);
        assert_eq!(c.ecn(0, 1000), Ecn::Ect0);
        assert_eq!(c.next_timeout(), None);
    }

    #[test]
    fn first_update_only_records_the_rtt() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(10));
        ack(&mut c, 1000, 10, 10);
        assert_eq!(c.rate(), Rate::gbps(10));
        assert_eq!(c.prev_rtt(), Some(Time::us(10)));
        assert_eq!(c.stats().updates, 1);
        assert_eq!(c.rtt_diff(), 0.0);
    }

    #[test]
    fn algorithm1_line5_rtt_below_t_low_raises_the_rate_by_delta() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(10));
        ack(&mut c, 1000, 10, 10);
        // a rising RTT (positive gradient) below T_low still increases: rule order
        ack(&mut c, 2000, 20, 40);
        assert!(c.gradient() > 0.0);
        // δ = 10 Mb/s × 100 G / 10 G = 100 Mb/s
        assert_eq!(c.rate(), Rate(10_100_000_000));
        assert_eq!(c.stats().increases, 1);
    }

    #[test]
    fn hyper_increase_after_five_increases_in_a_row() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(10));
        ack(&mut c, 1000, 10, 10);
        let mut end = 1000;
        for k in 1..=7u64 {
            end += 1000;
            ack(&mut c, end, 10 + 10 * k, 10);
        }
        // five increases of δ = 100 Mb/s, then R_HAI = 500 Mb/s (rdma-hw.cc m_incStage < 5)
        assert_eq!(c.stats().increases, 5);
        assert_eq!(c.stats().hyper_increases, 2);
        assert_eq!(
            c.rate(),
            Rate(10_000_000_000 + 5 * 100_000_000 + 2 * 500_000_000)
        );
        // a decrease resets the count
        end += 1000;
        ack(&mut c, end, 200, 600);
        assert_eq!(c.increases_in_a_row(), 0);
        end += 1000;
        let r = c.rate();
        ack(&mut c, end, 210, 10);
        assert_eq!(c.rate(), Rate(r.0 + 100_000_000));
    }

    #[test]
    fn paper_preset_keeps_delta_below_t_low_and_hypers_only_by_gradient() {
        let cfg = TimelyConfig {
            preset: Preset::Paper,
            granularity: Some(Granularity::PerRtt),
            ..TimelyConfig::default()
        };
        // below T_low: always δ = 10 Mb/s (TIMELY §5; Algorithm 1 line 5)
        let mut c = at_rate(cfg, Rate::gbps(10));
        for k in 1..=9u64 {
            ack(&mut c, k * 1000, 10 * k, 10);
        }
        assert_eq!(c.stats().hyper_increases, 0);
        assert_eq!(c.rate(), Rate(10_000_000_000 + 8 * 10_000_000));
        // in the gradient region with a flat RTT (gradient 0): N·δ after five increases
        let mut d = at_rate(cfg, Rate::gbps(10));
        for k in 1..=9u64 {
            ack(&mut d, k * 1000, 10 * k, 60);
        }
        assert_eq!((d.stats().increases, d.stats().hyper_increases), (5, 3));
        assert_eq!(
            d.rate(),
            Rate(10_000_000_000 + 5 * 10_000_000 + 3 * 50_000_000)
        );
    }

    #[test]
    fn algorithm1_line13_decrease_is_proportional_to_the_gradient() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(50));
        ack(&mut c, 1000, 10, 60);
        // new_rtt_diff = 70 − 60 = 10 µs; rtt_diff = 0.875 × 10 µs = 8750 ns;
        // gradient = 8750 / 20000 = 0.4375; factor = 1 − 0.8 × 0.4375 = 0.65
        ack(&mut c, 2000, 20, 70);
        assert_eq!(c.rtt_diff(), 8750.0);
        assert_eq!(c.gradient(), 0.4375);
        // 50 G × 0.65 is 32 499 999 999.99… in f64, rounded down as the simulator does
        assert_eq!(c.rate(), Rate(32_499_999_999));
        // a gradient twice as steep cuts twice as much (from the same state)
        let mut d = at_rate(TimelyConfig::default(), Rate::gbps(50));
        ack(&mut d, 1000, 10, 60);
        ack(&mut d, 2000, 20, 80);
        assert_eq!(d.gradient(), 0.875);
        let cut_c = 50e9 - c.rate().0 as f64;
        let cut_d = 50e9 - d.rate().0 as f64;
        assert!((cut_d / cut_c - 2.0).abs() < 1e-9, "{cut_c} {cut_d}");
        assert_eq!(c.stats().gradient_decreases, 1);
    }

    #[test]
    fn ewma_keeps_part_of_the_previous_difference() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(50));
        ack(&mut c, 1000, 10, 60);
        ack(&mut c, 2000, 20, 70); // rtt_diff 8750
        ack(&mut c, 3000, 30, 70); // new diff 0: rtt_diff = 0.125 × 8750
        assert_eq!(c.rtt_diff(), 1093.75);
        assert!(c.gradient() > 0.0);
    }

    #[test]
    fn steep_gradient_cuts_to_the_floor_not_below() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(50));
        ack(&mut c, 1000, 10, 60);
        // gradient 0.875 × 400 µs / 20 µs = 17.5: factor max(0, 1 − 14) = 0 → min rate
        ack(&mut c, 2000, 20, 460);
        assert_eq!(c.rate(), Rate::gbps(1));
    }

    #[test]
    fn algorithm1_line8_above_t_high_cuts_by_how_far_the_rtt_is_above_it() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(50));
        ack(&mut c, 1000, 10, 1000);
        // RTT 1000 µs both times (gradient 0): 1 − 0.8 × (1 − 500/1000) = 0.6
        ack(&mut c, 2000, 20, 1000);
        assert_eq!(c.rate(), Rate::gbps(30));
        assert_eq!(c.stats().high_decreases, 1);
    }

    #[test]
    fn per_rtt_updates_once_per_window_of_sent_data() {
        let mut c = at_rate(TimelyConfig::default(), Rate::gbps(10));
        // ten packets in flight, then ACKs for each: the first opens, the rest wait until
        // the ACK passes the snd_nxt of that moment (10 000)
        for i in 0..10u64 {
            c.on_sent(
                Time(i),
                &TxPacket {
                    seq: i * 1000,
                    len: 1000,
                    ecn: Ecn::Ect0,
                    retransmission: false,
                    last: false,
                    ack_req: false,
                },
            );
        }
        for i in 1..=10u64 {
            c.on_ack(&AckEvent {
                now: Time::us(10 + i),
                rtt: Some(Time::us(10)),
                newly_acked: 1,
                ece: false,
                snd_una: i * 1000,
                acked_packets: i,
            });
        }
        assert_eq!(c.stats().updates, 1);
        ack(&mut c, 11_000, 30, 10);
        assert_eq!(c.stats().updates, 2);
        // an ACK without an RTT sample changes nothing
        c.on_ack(&AckEvent {
            now: Time::us(40),
            rtt: None,
            newly_acked: 1,
            ece: false,
            snd_una: 12_000,
            acked_packets: 12,
        });
        assert_eq!(c.stats().updates, 2);
    }

    #[test]
    fn segment_granularity_updates_per_completed_segment() {
        let cfg = TimelyConfig {
            granularity: Some(Granularity::Segment),
            segment: Some(Bytes(4000)),
            ..TimelyConfig::default()
        };
        let mut c = at_rate(cfg, Rate::gbps(10));
        for k in 1..=12u64 {
            ack(&mut c, k * 1000, k, 10);
        }
        // 12 000 B acknowledged in 1000 B ACKs: three completed 4000 B segments
        assert_eq!(c.stats().updates, 3);
        assert_eq!(c.rate(), Rate(10_200_000_000));
    }

    #[test]
    fn rate_never_exceeds_line_rate() {
        let mut c = ctl(TimelyConfig::default());
        for k in 1..=20u64 {
            ack(&mut c, k * 1000, k * 10, 10);
        }
        assert_eq!(c.rate(), Rate::gbps(100));
    }
    #[test]
    fn hpcc_sim_rounds_a_decrease_down_as_datarate_times_double_does() {
        // data-rate.cc:289-292 DataRate(bps × c) truncates; rdma-hw.cc:973
        let run = |cfg: TimelyConfig| {
            let mut c = at_rate(cfg, Rate(10_000_000_001));
            ack(&mut c, 1000, 10, 1000);
            // rtt 1000 µs > T_high: factor 1 − 0.8 × (1 − 500/1000) = 0.6
            ack(&mut c, 2000, 20, 1000);
            c.rate()
        };
        assert_eq!(run(TimelyConfig::default()), Rate(6_000_000_000));
        let paper = TimelyConfig {
            preset: Preset::Paper,
            granularity: Some(Granularity::PerRtt),
            ..TimelyConfig::default()
        };
        assert_eq!(run(paper), Rate(6_000_000_001));
    }
}
