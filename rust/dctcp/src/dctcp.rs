//! DCTCP's sender for RDMA (RFC 8257 §3.3–3.4, as the HPCC simulator's `HandleAckDctcp`
//! runs it on a queue pair).
//!
//! State per flow: the rate `R`, `α`, the observation window (the sequence `window_end` whose
//! acknowledgement closes it, and the packets acknowledged in it with and without ECN-Echo),
//! and the reduction window (CWR: no cut until the sequence sent at the last cut is
//! acknowledged). A flow starts at line rate, every packet ECT(0), paced at `R` and limited by
//! a window of `R × base RTT` bytes (at least one packet): at line rate one BDP.
//!
//! On each ACK:
//! 1. count the packets it newly acknowledges, and those it acknowledges with ECN-Echo;
//! 2. if it acknowledges beyond `window_end` (the end of an observation window, "per RTT"):
//!    `α ← (1 − g)·α + g·F` with `F` = marked / acknowledged packets of the window (RFC 8257
//!    §3.3), the counts restart and `window_end ←` the current `snd_nxt`;
//! 3. if in CWR and it acknowledges beyond the sequence sent at the cut, CWR ends;
//! 4. with ECN-Echo outside CWR: `R ← max(min_rate, R·(1 − α/2))` (RFC 8257 §3.4: "cwnd ←
//!    cwnd × (1 − DCTCP.Alpha / 2)", once per window of data) and CWR starts, until the
//!    current `snd_nxt` is acknowledged;
//! 5. else, at the end of an observation window outside CWR: `R ← min(line, R + R_AI)`
//!    (congestion avoidance: one MTU per RTT).
//!
//! Invariants: `min_rate ≤ R ≤ line rate`, `0 ≤ α ≤ 1`, window ≥ 1 packet, and no two cuts
//! without the sequence sent at the first being acknowledged between them.
//!
//! # Decisions
//! - **Rate and window.** The state is a rate, as in the simulator (`m_rate`); the window is
//!   `R × base RTT` (the simulator's `VAR_WIN`: its BDP window scaled by `R / line rate`) so a
//!   cut of the rate is a cut of the window, and one MTU per base RTT added to the rate is one
//!   MTU added to the window. The window counts payload bytes and is at least one packet.
//!   The base RTT is the one the controller is given (`SenderConfig::path.base_rtt`): with
//!   preset `hpcc-sim` the fabric's largest base RTT, as the simulator gives every flow
//!   (`GLOBAL_T 1`, `third.cc:138`; `rdma-cc-schemes`' `SchemeConfig::controller_view` puts
//!   it there, and the flow's own path's when the fabric's is not known), with `paper` the
//!   flow's own path's. The transport's RTT estimate and RTO keep the flow's own path.
//! - **The first observation window** opens at the first ACK (no α update there: the
//!   simulator's `m_lastUpdateSeq == 0` case; RFC 8257 leaves the initial window to the TCP
//!   connection's start).
//! - **F.** Preset `paper`: the share of newly acknowledged packets that came with ECN-Echo
//!   (RFC 8257's `BytesMarked / BytesAcked` in packets). Preset `hpcc-sim`: the simulator's
//!   `min(1, ECN-Echo ACKs / batch)` (`rdma-hw.cc:1004,1014`), `batch` the packets in flight
//!   when the window opened, `(snd_nxt − ack)/MTU + 1` (`rdma-hw.cc:1012,1018`); the ACK that
//!   closes a window counts in it, and the first window's count is not reset when the second
//!   opens (`rdma-hw.cc:1010-1012`). The two differ when the window ends with fewer packets
//!   acknowledged than were in flight at its start (the rate was cut meanwhile).
//! - **Window, preset `hpcc-sim`:** `R × base RTT` plus one packet, as for HPCC: the
//!   simulator sends while the bytes in flight are below its window (`rdma-queue-pair.cc:
//!   120-123`), this transport only a packet that fits.
//! - **A cut needs ECN-Echo only**: also a duplicate ACK carrying it cuts (RFC 8257 §3.4 and
//!   the simulator react to the echo, not to new data).
//! - **Rounding.** Rates are whole bit/s; `R·(1 − α/2)` is rounded down with preset
//!   `hpcc-sim` (the simulator's `DataRate × double` truncates, `data-rate.cc:289-292`), to the
//!   nearest bit/s with `paper`.
//! - **Losses.** NACKs and timeouts do not change the rate: the simulator runs DCTCP for RDMA
//!   on a lossless (PFC) priority.

use crate::config::{DctcpConfig, DctcpParams, Preset};
use rdma_cc_core::{ConfigError, Rate, Time};
use rdma_cc_transport::{AckEvent, Controller, SenderConfig, SeqTrack, TxPacket};

/// Counters of a [`Dctcp`] flow (for traces and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DctcpStats {
    /// ACKs with ECN-Echo.
    pub ece_acks: u64,
    /// `α` updates (observation windows closed after the first).
    pub alpha_updates: u64,
    /// Rate cuts.
    pub cuts: u64,
    /// Additive increases.
    pub increases: u64,
}

/// DCTCP's sender (see the module documentation).
#[derive(Debug, Clone)]
pub struct Dctcp {
    p: DctcpParams,
    line_rate: Rate,
    /// Base RTT of the path, ns.
    base_rtt_ns: f64,
    /// Bits per window packet: `8 · 10⁹ · MTU`, so that the window is `R·rtt_ns / this`.
    packet_bit_ns: f64,
    rate: Rate,
    alpha: f64,
    /// `snd_nxt` and `snd_una`.
    seq: SeqTrack,
    /// The ACK beyond this closes the observation window; `None` before the first ACK.
    window_end: Option<u64>,
    /// Packets acknowledged in the observation window, and of those with ECN-Echo.
    acked: u64,
    marked: u64,
    /// In CWR until an ACK beyond this sequence.
    cwr_until: Option<u64>,
    /// The HPCC simulator's rules (preset `hpcc-sim`): `F` = ECN-Echo ACKs over the packets
    /// in flight when the window opened, and the window one packet beyond `R × base RTT`.
    sim: bool,
    /// `sim`: the simulator's `m_batchSizeOfAlpha`, the denominator of `F`.
    batch: u64,
    mtu: u64,
    stats: DctcpStats,
}

impl Dctcp {
    /// The controller with constants `cfg` on the path `sender` describes (both validated
    /// here): line rate, `α = alpha_init`.
    pub fn new(sender: &SenderConfig, cfg: &DctcpConfig) -> Result<Dctcp, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        let line_rate = sender.path.line_rate;
        let p = cfg.resolved(sender);
        Ok(Dctcp {
            p,
            line_rate,
            base_rtt_ns: sender.path.base_rtt.0 as f64,
            packet_bit_ns: 8e9 * sender.mtu.0 as f64,
            rate: line_rate,
            alpha: p.alpha_init,
            seq: SeqTrack::default(),
            window_end: None,
            acked: 0,
            marked: 0,
            cwr_until: None,
            sim: cfg.preset == Preset::HpccSim,
            batch: 0,
            mtu: sender.mtu.0.max(1),
            stats: DctcpStats::default(),
        })
    }

    /// The constants in effect.
    pub fn params(&self) -> &DctcpParams {
        &self.p
    }

    /// The current rate (the pacing rate).
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// `α`.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The window, packets: `R × base RTT / MTU`, at least 1; with the simulator's rules one
    /// packet more (`rdma-queue-pair.cc:120-123`: a packet goes while the bytes in flight are
    /// below the window, so up to one packet beyond it is in flight).
    pub fn cwnd(&self) -> f64 {
        let w = self.rate.0 as f64 * self.base_rtt_ns / self.packet_bit_ns;
        if self.sim {
            w + 1.0
        } else {
            w.max(1.0)
        }
    }

    /// Whether a cut was made and the data sent by then is not all acknowledged yet.
    pub fn in_cwr(&self) -> bool {
        self.cwr_until.is_some()
    }

    /// Counters.
    pub fn stats(&self) -> DctcpStats {
        self.stats
    }

    #[inline]
    fn debug_check(&self) {
        debug_assert!(self.p.min_rate <= self.rate, "rate {:?} < min", self.rate);
        debug_assert!(self.rate <= self.line_rate, "rate {:?} > line", self.rate);
        debug_assert!((0.0..=1.0).contains(&self.alpha), "alpha {}", self.alpha);
    }
}

impl Controller for Dctcp {
    fn window(&self) -> Option<f64> {
        Some(self.cwnd())
    }

    fn pacing_rate(&self, _srtt: Time) -> Option<Rate> {
        Some(self.rate)
    }

    fn on_sent(&mut self, _now: Time, pkt: &TxPacket) {
        self.seq.on_sent(pkt);
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        self.seq.on_ack(ack);
        // 1. count the window's packets (RFC 8257 §3.3: BytesAcked, BytesMarked); the
        // simulator counts ECN-Echo ACKs (rdma-hw.cc:1004 `m_ecnCnt += (cnp > 0)`)
        self.acked = self.acked.saturating_add(ack.newly_acked);
        if ack.ece {
            self.stats.ece_acks += 1;
            let n = if self.sim { 1 } else { ack.newly_acked };
            self.marked = self.marked.saturating_add(n);
        }
        // 2. end of an observation window: the ACK passes window_end
        let window_ends = self.window_end.is_none_or(|end| ack.snd_una > end);
        if window_ends {
            // RFC 8257 §3.3: F = marked / acked. The simulator (rdma-hw.cc:1012,1014,1018):
            // F = min(1, ECN-Echo ACKs / m_batchSizeOfAlpha), the packets in flight when the
            // window opened, `(snd_nxt − ack)/MTU + 1`
            let denominator = if self.sim { self.batch } else { self.acked };
            if self.window_end.is_some() && denominator > 0 {
                // α ← (1 − g)·α + g·F
                let f = (self.marked as f64 / denominator as f64).min(1.0);
                let a = (1.0 - self.p.g) * self.alpha + self.p.g * f;
                self.alpha = a.clamp(0.0, 1.0);
                self.stats.alpha_updates += 1;
                log::trace!(
                    "alpha {:.4} (F {f:.3} over {} packets)",
                    self.alpha,
                    self.acked
                );
            }
            if self.sim {
                // rdma-hw.cc:1011-1012: the first window's batch is snd_nxt/MTU + 1 and its
                // count is not reset (the ACK that opened it counts in it); later ones
                // (snd_nxt − ack)/MTU + 1 (rdma-hw.cc:1017-1018)
                let first = self.window_end.is_none();
                let base = if first { 0 } else { ack.snd_una };
                self.batch = self.seq.snd_nxt.saturating_sub(base) / self.mtu + 1;
                if !first {
                    self.marked = 0;
                }
            } else {
                self.marked = 0;
            }
            self.acked = 0;
            self.window_end = Some(self.seq.snd_nxt);
        }
        // 3. CWR ends once the data sent at the cut is acknowledged
        if self.cwr_until.is_some_and(|h| ack.snd_una > h) {
            self.cwr_until = None;
        }
        let before = self.rate;
        if ack.ece && self.cwr_until.is_none() {
            // 4. RFC 8257 §3.4: cwnd ← cwnd × (1 − α/2), once per window of data
            let cut = self.rate.0 as f64 * (1.0 - self.alpha / 2.0);
            // hpcc-sim: DataRate × double truncates (data-rate.cc:289-292); paper: nearest
            let cut = if self.sim { cut.floor() } else { cut.round() };
            let cut = if cut.is_finite() && cut >= 0.0 {
                (cut as u64).min(self.rate.0)
            } else {
                self.rate.0
            };
            self.rate = Rate(cut.max(self.p.min_rate.0));
            self.cwr_until = Some(self.seq.snd_nxt);
            self.stats.cuts += 1;
            log::debug!(
                "cut: {} -> {} bit/s (alpha {:.4}), CWR until {}",
                before.0,
                self.rate.0,
                self.alpha,
                self.seq.snd_nxt
            );
        } else if window_ends && self.cwr_until.is_none() {
            // 5. congestion avoidance: one MTU per RTT
            self.rate = Rate(
                self.rate
                    .0
                    .saturating_add(self.p.rate_ai.0)
                    .min(self.line_rate.0),
            );
            self.stats.increases += 1;
        }
        self.debug_check();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::{Bytes, Ecn};
    use rdma_cc_transport::Path;

    /// 100 Gb/s, 8 µs base RTT, 1000 B packets: BDP 100 packets, one MTU per RTT = 1 Gb/s.
    fn sender() -> SenderConfig {
        SenderConfig {
            mtu: Bytes(1000),
            path: Path {
                line_rate: Rate::gbps(100),
                base_rtt: Time::us(8),
                lossless: true,
                ..Path::default()
            },
            ..SenderConfig::default()
        }
    }

    fn ctl(cfg: DctcpConfig) -> Dctcp {
        Dctcp::new(&sender(), &cfg).unwrap()
    }

    /// RFC 8257's rules (preset `paper`).
    fn paper() -> DctcpConfig {
        DctcpConfig {
            preset: Preset::Paper,
            ..DctcpConfig::default()
        }
    }

    fn send(c: &mut Dctcp, end: u64) {
        c.on_sent(
            Time::ZERO,
            &TxPacket {
                seq: end - 1000,
                len: 1000,
                ecn: Ecn::Ect0,
                retransmission: false,
                last: false,
                ack_req: false,
            },
        );
    }

    fn ack(c: &mut Dctcp, una: u64, ece: bool) {
        let newly = una.saturating_sub(c.seq.snd_una) / 1000;
        c.on_ack(&AckEvent {
            now: Time::ZERO,
            rtt: None,
            newly_acked: newly,
            ece,
            snd_una: una,
            acked_packets: una / 1000,
        });
    }

    /// Sends `n` packets after `sent` and acknowledges them one by one, the ones for which
    /// `mark(i)` holds with ECN-Echo; returns the new end.
    fn round(c: &mut Dctcp, sent: u64, n: u64, mark: impl Fn(u64) -> bool) -> u64 {
        for i in 1..=n {
            send(c, sent + i * 1000);
        }
        for i in 1..=n {
            ack(c, sent + i * 1000, mark(i));
        }
        sent + n * 1000
    }

    #[test]
    fn starts_at_line_rate_with_a_bdp_window_paced_and_ect() {
        assert_eq!(ctl(paper()).window(), Some(100.0));
        let c = ctl(DctcpConfig::default());
        assert_eq!(c.rate(), Rate::gbps(100));
        // hpcc-sim: one packet beyond the BDP (rdma-queue-pair.cc:120-123)
        assert_eq!(c.window(), Some(101.0));
        assert_eq!(c.pacing_rate(Time::us(8)), Some(Rate::gbps(100)));
        assert_eq!(c.ecn(0, 1000), Ecn::Ect0);
        assert_eq!(c.alpha(), 1.0);
    }

    #[test]
    fn rfc8257_3_4_first_echo_cuts_by_alpha_over_two_then_cwr() {
        let mut c = ctl(paper());
        for i in 1..=10 {
            send(&mut c, i * 1000);
        }
        ack(&mut c, 1000, true);
        // α = 1: R·(1 − 1/2); CWR until snd_nxt = 10 000
        assert_eq!(c.rate(), Rate::gbps(50));
        assert_eq!(c.window(), Some(50.0));
        assert!(c.in_cwr());
        // further echoes in the same window do not cut
        for i in 2..=10 {
            ack(&mut c, i * 1000, true);
        }
        assert_eq!(c.stats().cuts, 1);
        assert_eq!(c.rate(), Rate::gbps(50));
        // the next echo beyond the cut's snd_nxt cuts again
        send(&mut c, 11_000);
        ack(&mut c, 11_000, true);
        assert_eq!(c.stats().cuts, 2);
    }

    #[test]
    fn rfc8257_3_3_alpha_moves_by_g_towards_the_marked_fraction_once_per_window() {
        let mut c = ctl(paper());
        // window 1 opens at the first ACK (no update)
        let mut end = round(&mut c, 0, 1, |_| false);
        assert_eq!(c.stats().alpha_updates, 0);
        // a window of 8 packets, 2 marked: F = 0.25 once the ACK passes its end
        end = round(&mut c, end, 8, |i| i == 3 || i == 4);
        // the window opened at the first ACK had snd_nxt = 1000, so the ACK for 2000 closed
        // it (F = 0/1); then the window [2000, 9000) is 7 packets, 2 marked, still open
        assert_eq!(c.stats().alpha_updates, 1);
        let a1 = 15.0 / 16.0;
        assert_eq!(c.alpha(), a1);
        round(&mut c, end, 1, |_| false);
        // closed: F = 2/7 + the closing ACK's packet → 2/8
        assert_eq!(c.stats().alpha_updates, 2);
        assert_eq!(c.alpha(), (15.0 / 16.0) * a1 + (1.0 / 16.0) * 0.25);
    }

    #[test]
    fn additive_increase_of_one_mtu_per_base_rtt_per_window_without_a_cut() {
        let mut c = ctl(paper());
        let mut end = round(&mut c, 0, 4, |i| i == 1);
        assert_eq!(c.rate(), Rate::gbps(50));
        // leave CWR, then one increase per window: 1000 B per 8 µs = 1 Gb/s
        end = round(&mut c, end, 4, |_| false);
        let r = c.rate();
        round(&mut c, end, 4, |_| false);
        assert!(!c.in_cwr());
        assert_eq!(c.rate(), Rate(r.0 + 1_000_000_000));
        assert_eq!(c.window(), Some(52.0));
    }

    #[test]
    fn cuts_stop_at_the_min_rate_and_the_window_at_one_packet() {
        let mut c = ctl(paper());
        let mut end = 0;
        for _ in 0..40 {
            end = round(&mut c, end, 2, |_| true);
        }
        // paper: the floor is one packet per base RTT = 1 Gb/s, a one-packet window
        assert_eq!(c.rate(), Rate::gbps(1));
        assert_eq!(c.window(), Some(1.0));
        let mut d = ctl(DctcpConfig {
            min_rate: Some(Rate::mbps(100)),
            ..paper()
        });
        let mut end = 0;
        for _ in 0..60 {
            end = round(&mut d, end, 2, |_| true);
        }
        assert_eq!(d.rate(), Rate::mbps(100));
        assert_eq!(d.window(), Some(1.0));
        assert!(d.alpha() > 0.9 && d.alpha() <= 1.0);
    }

    #[test]
    fn alpha_decays_without_marks_and_stays_in_unit_interval() {
        let mut c = ctl(DctcpConfig::default());
        let mut end = 0;
        for _ in 0..100 {
            end = round(&mut c, end, 3, |_| false);
        }
        let want = (15.0f64 / 16.0).powi(c.stats().alpha_updates as i32);
        assert!((c.alpha() - want).abs() < 1e-12, "{} {want}", c.alpha());
        assert_eq!(c.rate(), Rate::gbps(100));
    }
    #[test]
    fn hpcc_sim_f_is_ece_acks_over_the_packets_in_flight_when_the_window_opened() {
        // rdma-hw.cc:1012 (first window: snd_nxt/MTU + 1), 1014 (F = min(1, cnt/batch)),
        // 1018 (then (snd_nxt − ack)/MTU + 1)
        let run = |cfg: DctcpConfig| {
            let mut c = ctl(cfg);
            for i in 1..=10 {
                send(&mut c, i * 1000);
            }
            // the first ACK opens the window with 10 packets in flight: batch 11
            for i in 1..=10 {
                ack(&mut c, i * 1000, (2..=4).contains(&i));
            }
            for i in 11..=20 {
                send(&mut c, i * 1000);
            }
            ack(&mut c, 11_000, false);
            c
        };
        let c = run(DctcpConfig::default());
        assert_eq!(c.stats().alpha_updates, 1);
        assert_eq!(c.alpha(), 15.0 / 16.0 + (3.0 / 11.0) / 16.0);
        assert_eq!(c.batch, 10, "(20 000 − 11 000)/1000 + 1");
        // RFC 8257: 3 of the 10 packets acknowledged in the window
        let p = run(paper());
        assert_eq!(p.alpha(), 15.0 / 16.0 + (3.0 / 10.0) / 16.0);
    }

    #[test]
    fn hpcc_sim_first_windows_echo_count_carries_into_the_second() {
        // rdma-hw.cc:1010-1012: the first window's branch does not reset m_ecnCnt
        let run = |cfg: DctcpConfig| {
            let mut c = ctl(cfg);
            for i in 1..=4 {
                send(&mut c, i * 1000);
            }
            ack(&mut c, 1000, true);
            for i in 2..=4 {
                ack(&mut c, i * 1000, false);
            }
            send(&mut c, 5000);
            ack(&mut c, 5000, false);
            c.alpha()
        };
        assert_eq!(
            run(DctcpConfig::default()),
            15.0 / 16.0 + (1.0 / 5.0) / 16.0
        );
        assert_eq!(run(paper()), 15.0 / 16.0);
    }

    #[test]
    fn hpcc_sim_adds_615_mbps_per_window_at_any_rtt() {
        // run.py:127 DCTCP_RATE_AI 615Mb/s; rdma-hw.cc:1047-1049 once per window outside CWR
        let mut c = ctl(DctcpConfig::default());
        let mut end = round(&mut c, 0, 4, |i| i == 1);
        assert_eq!(c.rate(), Rate::gbps(50));
        end = round(&mut c, end, 4, |_| false);
        let r = c.rate();
        round(&mut c, end, 4, |_| false);
        assert_eq!(c.rate(), Rate(r.0 + 615_000_000));
    }

    #[test]
    fn hpcc_sim_window_is_one_packet_beyond_rate_times_rtt() {
        // rdma-queue-pair.cc:120-123: a packet goes while the bytes in flight are below
        // m_win·R/line, so one packet more than R·T is in flight
        let mut c = ctl(DctcpConfig::default());
        let mut end = 0;
        for _ in 0..60 {
            end = round(&mut c, end, 2, |_| true);
        }
        assert_eq!(c.rate(), Rate::gbps(1));
        assert_eq!(c.window(), Some(2.0), "1 Gb/s × 8 µs = 1 packet, + 1");
    }
    #[test]
    fn hpcc_sim_rounds_a_cut_down_as_datarate_times_double_does() {
        // data-rate.cc:289-292 DataRate(bps × c) truncates; rdma-hw.cc:1039
        let cut = |cfg: DctcpConfig| {
            let mut c = ctl(cfg);
            c.rate = Rate(3);
            c.p.min_rate = Rate(1);
            for i in 1..=2 {
                send(&mut c, i * 1000);
            }
            ack(&mut c, 1000, true);
            c.rate()
        };
        // α = 1: 3 × 1/2 = 1.5 bit/s
        assert_eq!(cut(DctcpConfig::default()), Rate(1));
        assert_eq!(cut(paper()), Rate(2));
    }
    #[test]
    fn hpcc_sim_counts_echo_acks_not_the_packets_they_cover() {
        // rdma-hw.cc:1004 m_ecnCnt += (cnp > 0): one per ACK whatever it acknowledges
        let run = |cfg: DctcpConfig| {
            let mut c = ctl(cfg);
            for i in 1..=4 {
                send(&mut c, i * 1000);
            }
            ack(&mut c, 1000, false);
            // one ECN-Echo ACK for 3 packets
            ack(&mut c, 4000, true);
            send(&mut c, 5000);
            ack(&mut c, 5000, false);
            c.alpha()
        };
        // hpcc-sim: 1 echo over the 5 packets in flight at the first ACK (4000/1000 + 1)
        assert_eq!(
            run(DctcpConfig::default()),
            15.0 / 16.0 + (1.0 / 5.0) / 16.0
        );
        // paper: 3 of the 4 packets acknowledged in the window marked
        assert_eq!(run(paper()), 15.0 / 16.0 + (3.0 / 4.0) / 16.0);
    }
}
