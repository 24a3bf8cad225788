//! HPCC's controller (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3
//! and Algorithm 1), with the HPCC simulator's rate formulation (`rdma-hw.cc`,
//! `UpdateRateHp`).
//!
//! State per flow: the rate `R` (pacing, and the window `W = R·T`), the reference rate `R_c`
//! (the paper's `W_c/T`) with its count of additive stages `incStage`, the smoothed
//! utilisation `U`, the previous ACK's hop records `L`, and `lastUpdateSeq`. A flow starts at
//! line rate with a window of one BDP (`W_init = B_NIC·T`, plus one packet: see below), `U = 1`,
//! every packet ECT(0).
//!
//! On each ACK carrying hop records ([`Controller::on_ack_int`]):
//! 1. **Full or fast.** The ACK is a *full update* when it acknowledges beyond
//!    `lastUpdateSeq` (once per RTT; `lastUpdateSeq` is then set to the current `snd_nxt`),
//!    else a *fast react* (only with `fast_react` on; without it the ACK changes nothing)
//!    (Algorithm 1, `NewAck`).
//! 2. **First feedback.** The first ACK only stores its records as `L` and opens the first
//!    RTT.
//! 3. **`MeasureInflight`.** Per hop `j`, against the same hop's previous record:
//!    `τ_j = ts_j − ts_j'`, `txRate_j = (txBytes_j − txBytes_j')·8/τ_j`,
//!    `u_j = txRate_j/B_j + min(qlen_j, qlen_j')/(B_j·T)`; `u = max_j u_j` with its `τ`;
//!    `τ ← min(τ, T)`; `U ← (1 − τ/T)·U + (τ/T)·u`. Then `L ←` the ACK's records.
//! 4. **`ComputeWind`** (as a rate): if `U/η ≥ 1` or `incStage ≥ maxStage`:
//!    `R = R_c/(U/η) + R_AI` and the stage restarts at 0; else `R = R_c + R_AI` and the stage
//!    grows by one; `R` is clamped to `[min_rate, line rate]`. A full update commits
//!    `R_c ← R` and the stage; a fast react changes only `R`.
//!
//! Invariants: `min_rate ≤ R ≤ line rate`, `min_rate ≤ R_c ≤ line rate`, `U ≥ 0` (finite),
//! window ≥ one packet.
//!
//! # Decisions (points the paper leaves open, and where the HPCC simulator is followed)
//! - **Rate as the state.** The paper adjusts a window `W` and paces at `R = W/T`; the
//!   simulator adjusts `R` and derives the window (`VAR_WIN`: its BDP window scaled by
//!   `R/line rate`). With a fixed `T` the two are the same rule; the state here is `R` (whole
//!   bit/s, see Rounding) and the window `R·T` in packets of the MTU **plus one packet**:
//!   the simulator lets a packet go while the bytes in flight are below its window, so up to
//!   one packet beyond `R·T` is in flight; the transport here lets one go only if it fits, so
//!   the extra packet keeps the simulator's behaviour (without it a flow paced at `R` is
//!   window-limited below `R` by any delay beyond `T`). It also makes the window at least one
//!   packet whatever the rate.
//! - **`T`** is the base RTT the controller is given (`SenderConfig::path.base_rtt`), as for
//!   DCTCP here: with preset `hpcc-sim` the fabric's largest base RTT, as the simulator gives
//!   every flow (`maxRtt`, `GLOBAL_T 1`, `third.cc:138`; `rdma-cc-schemes`'
//!   `SchemeConfig::controller_view` puts it there, and the flow's own path's when the
//!   fabric's is not known), with `paper` the flow's own path's (the paper's `T` is "the base
//!   propagation RTT"). The transport's RTT estimate and RTO keep the flow's own path.
//! - **Rounding.** Rates are whole bit/s: `R_c/(U/η)` is rounded down with preset `hpcc-sim`
//!   (the simulator's `DataRate / double` truncates, `data-rate.cc:294-297`), to the nearest
//!   with `paper`.
//! - **Record precision.** Preset `paper`: the records are exact. Preset `hpcc-sim`: the
//!   transmitted bytes and the queue are read in the simulator's units (128 B and 80 B times
//!   NIC rate / 25 Gb/s, rounded down: [`sim_int_units`]), so one ACK's `txRate` moves in
//!   steps of 512 B per `τ` at 100 Gb/s, as the simulator's does.
//! - **`U` starts at 1** (the simulator's `hp.u = 1`; the paper does not say): the first
//!   updates after line-rate start treat the path as busy.
//! - **`U` and `L` move at every ACK with records**, fast react included (Algorithm 1 line
//!   `L = ack.L` and `MeasureInflight` in both branches; the simulator too).
//! - **A hop whose timestamp did not advance** (`τ = 0`: the same departure seen twice) gives
//!   no rate and is skipped; if no hop is usable the ACK changes neither `U` nor `R`. If all
//!   usable hops give `u_j = 0`, `U` keeps its value (`τ` stays 0, as in the simulator) and the
//!   rate is still recomputed.
//! - **A different number of hops** than `L` (a new path, or records missing) is not compared:
//!   the ACK only replaces `L`.
//! - **A hop written by another port** than the same hop of `L` (adaptive routing moved the
//!   flow there, e.g. RCM's SAR in `flowlet` or `packet` mode) is skipped like a stale one:
//!   two ports' counters and clocks say nothing about either's rate. The other hops are still
//!   compared. The paper and the simulator assume a fixed path and compare by position only;
//!   with a fixed path (per-flow ECMP) the two rules are the same.
//! - **Transmitted bytes that go backwards** count as none (`txRate = 0`).
//! - **ACKs without records** ([`Controller::on_ack`]) and NACKs change nothing but the
//!   sequence bookkeeping: HPCC learns only from INT, and the simulator runs it on a lossless
//!   (PFC) priority, so no loss reaction is defined.
//! - **One rate for the path** (the simulator's `MULTI_RATE 0`); the per-hop-rate variant is
//!   not implemented.

use crate::config::{HpccConfig, HpccParams, Preset};
use rdma_cc_core::{ConfigError, HopRecord, IntRecords, Rate, Time};
use rdma_cc_transport::{AckEvent, Controller, SenderConfig, SeqTrack, TxPacket};

/// Counters of an [`Hpcc`] flow (for traces and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HpccStats {
    /// ACKs that carried hop records.
    pub int_acks: u64,
    /// Full (per-RTT) updates that changed the rate, the first feedback excluded.
    pub full_updates: u64,
    /// Fast reactions that changed the rate.
    pub fast_reacts: u64,
    /// Updates by `η/U` (multiplicative).
    pub multiplicative: u64,
    /// Updates by `R_AI` only (additive stages).
    pub additive: u64,
    /// Hop records skipped because their timestamp did not advance.
    pub stale_hops: u64,
    /// ACKs whose hop count differed from the previous ACK's (only stored).
    pub path_changes: u64,
    /// Hop records skipped because another port than the previous ACK's wrote them (the
    /// path changed at that hop).
    pub rerouted_hops: u64,
}

/// HPCC's controller (see the module documentation).
#[derive(Debug, Clone)]
pub struct Hpcc {
    p: HpccParams,
    line_rate: Rate,
    /// `T`, the base RTT, ns.
    t_ns: f64,
    /// Bits per window packet times 10⁹: the window is `R·T_ns / this` packets.
    packet_bit_ns: f64,
    /// `R`: the pacing rate, and `W = R·T`.
    rate: Rate,
    /// `R_c`, the reference rate of the updates (the paper's `W_c/T`).
    rate_ref: Rate,
    /// Additive updates in a row.
    inc_stage: u32,
    /// `U`, the smoothed normalised inflight bytes of the most utilised link.
    u: f64,
    /// The last `u = max_j u_j` measured (before smoothing).
    last_sample: f64,
    /// `L`: the previous ACK's hop records; `None` before the first feedback.
    prev: Option<IntRecords>,
    /// The next full update is at the first ACK beyond this sequence.
    last_update_seq: u64,
    /// `snd_nxt` and `snd_una`.
    seq: SeqTrack,
    /// Preset `hpcc-sim`: the units (bytes, queue bytes) the simulator's 8-byte hop record
    /// keeps its counters in ([`sim_int_units`]); `None`: exact records.
    int_units: Option<(u64, u64)>,
    stats: HpccStats,
}

/// The HPCC simulator's hop record keeps transmitted bytes in units of 128 B and the queue in
/// units of 80 B (`int-header.h:26-27`), both times `INT_MULTI` = NIC rate / 25 Gb/s
/// (`run.py:116`, at least 1: `int-header.h:44-45` divides by it), rounding down
/// (`int-header.h:44-45`); the sender sees `(bytes − bytes')·unit` and `qlen·unit`
/// (`int-header.h:33-38,62-67`). The units of a sender at `line_rate`: (bytes, queue).
pub fn sim_int_units(line_rate: Rate) -> (u64, u64) {
    let multi = (line_rate.0 / 25_000_000_000).max(1);
    (SIM_INT_BYTE_UNIT * multi, SIM_INT_QLEN_UNIT * multi)
}

/// `IntHop::byteUnit` (`int-header.h:26`).
pub const SIM_INT_BYTE_UNIT: u64 = 128;
/// `IntHop::qlenUnit` (`int-header.h:27`).
pub const SIM_INT_QLEN_UNIT: u64 = 80;

impl Hpcc {
    /// The controller with constants `cfg` on the path `sender` describes (both validated
    /// here, and the path must deliver INT records): line rate, a BDP window, `U = 1`.
    pub fn new(sender: &SenderConfig, cfg: &HpccConfig) -> Result<Hpcc, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        let line_rate = sender.path.line_rate;
        Ok(Hpcc {
            p: cfg.resolved(line_rate),
            line_rate,
            t_ns: sender.path.base_rtt.0 as f64,
            packet_bit_ns: 8e9 * sender.mtu.0 as f64,
            rate: line_rate,
            rate_ref: line_rate,
            inc_stage: 0,
            u: 1.0,
            last_sample: 0.0,
            prev: None,
            last_update_seq: 0,
            seq: SeqTrack::default(),
            int_units: (cfg.preset == Preset::HpccSim).then(|| sim_int_units(line_rate)),
            stats: HpccStats::default(),
        })
    }

    /// The constants in effect.
    pub fn params(&self) -> &HpccParams {
        &self.p
    }

    /// The current rate `R` (the pacing rate).
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The reference rate `R_c` the updates start from.
    pub fn reference_rate(&self) -> Rate {
        self.rate_ref
    }

    /// The window, packets: `R·T/MTU + 1` (so at least one packet).
    pub fn cwnd(&self) -> f64 {
        self.rate.0 as f64 * self.t_ns / self.packet_bit_ns + 1.0
    }

    /// `U`, the smoothed normalised inflight bytes of the most utilised link (1 at start).
    pub fn utilisation(&self) -> f64 {
        self.u
    }

    /// The last per-ACK sample `max_j u_j` (0 before the first).
    pub fn last_sample(&self) -> f64 {
        self.last_sample
    }

    /// Additive updates in a row.
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    /// Counters.
    pub fn stats(&self) -> HpccStats {
        self.stats
    }

    /// Algorithm 1, `MeasureInflight`: the largest `u_j` over the hops and its `τ`, comparing
    /// `now` with `prev` hop by hop; `None` when no hop is usable.
    fn measure(&mut self, now: &[HopRecord], prev: &[HopRecord]) -> Option<(f64, u64)> {
        let mut best: Option<(f64, u64)> = None;
        for (h, h0) in now.iter().zip(prev) {
            // the same hop must be the same port: a rerouted hop has no previous record here
            if h.port_id != h0.port_id {
                self.stats.rerouted_hops += 1;
                continue;
            }
            // τ = ts − ts'
            let tau = h.ts_ns.saturating_sub(h0.ts_ns);
            if tau == 0 || h.line_rate_bps == 0 {
                self.stats.stale_hops += 1;
                continue;
            }
            let b = h.line_rate_bps as f64;
            let (sent, qlen) = match self.int_units {
                // hpcc-sim: the counters as the simulator's record holds them (rounded down
                // to its units, int-header.h:44-45), so deltas move in whole units
                Some((bu, qu)) => (
                    (h.tx_bytes / bu).saturating_sub(h0.tx_bytes / bu) * bu,
                    (h.qlen_bytes / qu).min(h0.qlen_bytes / qu) * qu,
                ),
                None => (
                    h.tx_bytes.saturating_sub(h0.tx_bytes),
                    h.qlen_bytes.min(h0.qlen_bytes),
                ),
            };
            // txRate = (txBytes − txBytes')·8/τ, bit/s
            let tx_rate = sent as f64 * 8e9 / tau as f64;
            // u_j = txRate/B + min(qlen_bytes, qlen_bytes')/(B·T)
            let queue = qlen as f64 * 8e9 / (b * self.t_ns);
            let u = tx_rate / b + queue;
            // the most utilised hop, with its τ (ties keep the first: the simulator's `u > U`)
            best = match best {
                Some((bu, bt)) if bu >= u => Some((bu, bt)),
                Some(_) => Some((u, tau)),
                None if u > 0.0 => Some((u, tau)),
                None => Some((0.0, 0)),
            };
        }
        best
    }

    /// Algorithm 1, `ComputeWind` (as a rate), from the reference rate: the new rate and
    /// stage, and whether the update was multiplicative.
    fn compute(&self) -> (Rate, u32, bool) {
        let p = &self.p;
        let c = self.u / p.eta;
        let rc = self.rate_ref.0 as f64;
        let ai = p.rate_ai.0 as f64;
        let (r, stage, mi) = if c >= 1.0 || self.inc_stage >= p.max_stage {
            // U ≥ η or incStage ≥ maxStage: W = W_c/(U/η) + W_AI, incStage = 0
            (rc / c + ai, 0, true)
        } else {
            // W = W_c + W_AI, incStage + 1
            (rc + ai, self.inc_stage.saturating_add(1), false)
        };
        let line = self.line_rate.0;
        let r = if r.is_nan() {
            self.rate_ref.0
        } else if r >= line as f64 {
            line
        } else {
            // hpcc-sim: DataRate(bps / c) truncates (data-rate.cc:294-297); paper: nearest
            if self.int_units.is_some() {
                r.floor() as u64
            } else {
                r.round() as u64
            }
        };
        (Rate(r.clamp(p.min_rate.0, line)), stage, mi)
    }

    /// One update with the ACK's records; `full` commits the reference rate and the stage.
    fn update(&mut self, int: &IntRecords, full: bool) {
        let Some(prev) = self.prev.replace(*int) else {
            // first feedback: store L, open the first RTT
            self.last_update_seq = self.seq.snd_nxt;
            return;
        };
        if prev.len() != int.len() {
            self.stats.path_changes += 1;
            return;
        }
        let Some((sample, tau)) = self.measure(int.as_slice(), prev.as_slice()) else {
            return;
        };
        self.last_sample = sample;
        // τ ← min(τ, T); U ← (U·(T − τ) + u·τ)/T
        let t = self.t_ns;
        let tau = (tau as f64).min(t);
        let u = (self.u * (t - tau) + sample * tau) / t;
        if u.is_finite() && u >= 0.0 {
            self.u = u;
        }
        let before = self.rate;
        let (rate, stage, mi) = self.compute();
        self.rate = rate;
        if mi {
            self.stats.multiplicative += 1;
        } else {
            self.stats.additive += 1;
        }
        if full {
            // only a full update commits W_c and incStage
            self.rate_ref = rate;
            self.inc_stage = stage;
            self.stats.full_updates += 1;
        } else {
            self.stats.fast_reacts += 1;
        }
        log::trace!(
            "{}: U {:.4} (sample {sample:.4}, tau {tau:.0} ns): {} -> {} bit/s, ref {}",
            if full { "update" } else { "fast react" },
            self.u,
            before.0,
            self.rate.0,
            self.rate_ref.0
        );
        self.debug_check();
    }

    #[inline]
    fn debug_check(&self) {
        debug_assert!(self.p.min_rate <= self.rate, "rate {:?} < min", self.rate);
        debug_assert!(self.rate <= self.line_rate, "rate {:?} > line", self.rate);
        debug_assert!(self.p.min_rate <= self.rate_ref && self.rate_ref <= self.line_rate);
        debug_assert!(self.u.is_finite() && self.u >= 0.0, "U {}", self.u);
    }
}

impl Controller for Hpcc {
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
        // no records: nothing to learn (see the module documentation)
        self.seq.on_ack(ack);
    }

    fn on_ack_int(&mut self, ack: &AckEvent, int: &IntRecords) {
        self.seq.on_ack(ack);
        self.stats.int_acks += 1;
        // Algorithm 1, NewAck: a full update once per RTT, fast react in between
        let full = ack.snd_una > self.last_update_seq || self.prev.is_none();
        if full || self.p.fast_react {
            self.update(int, full);
        }
        if full {
            self.last_update_seq = self.last_update_seq.max(self.seq.snd_nxt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::{Bytes, Ecn};
    use rdma_cc_transport::Path;

    const G100: u64 = 100_000_000_000;

    /// 100 Gb/s, 10 µs base RTT, 1000 B packets: BDP 125 packets (125 000 B).
    fn sender() -> SenderConfig {
        SenderConfig {
            mtu: Bytes(1000),
            path: Path {
                line_rate: Rate::gbps(100),
                base_rtt: Time::us(10),
                lossless: true,
                int_telemetry: true,
                ..Path::default()
            },
            ..SenderConfig::default()
        }
    }

    /// With exact records (Algorithm 1's arithmetic); the simulator's record units are
    /// checked apart, with [`sim_ctl`].
    fn ctl(cfg: HpccConfig) -> Hpcc {
        let mut c = Hpcc::new(&sender(), &cfg).unwrap();
        c.int_units = None;
        c
    }

    /// As preset `hpcc-sim` builds it: records in the simulator's units.
    fn sim_ctl() -> Hpcc {
        Hpcc::new(&sender(), &HpccConfig::default()).unwrap()
    }

    fn hop(ts_ns: u64, tx_bytes: u64, qlen_bytes: u64) -> HopRecord {
        HopRecord {
            qlen_bytes,
            tx_bytes,
            ts_ns,
            line_rate_bps: G100,
            port_id: 0,
        }
    }

    fn one(h: HopRecord) -> IntRecords {
        IntRecords::from_slice(&[h])
    }

    fn send_to(c: &mut Hpcc, end: u64) {
        c.on_sent(
            Time::ZERO,
            &TxPacket {
                seq: end.saturating_sub(1000),
                len: 1000,
                ecn: Ecn::Ect0,
                retransmission: false,
                last: false,
                ack_req: false,
            },
        );
    }

    fn ack(c: &mut Hpcc, una: u64, int: &IntRecords) {
        c.on_ack_int(
            &AckEvent {
                now: Time::ZERO,
                rtt: None,
                newly_acked: 1,
                ece: false,
                snd_una: una,
                acked_packets: una / 1000,
            },
            int,
        );
    }

    /// Sends one more packet and acknowledges everything sent, with `int`: beyond the
    /// previous full update's `snd_nxt`, so a full update.
    fn round(c: &mut Hpcc, int: &IntRecords) {
        let end = c.seq.snd_nxt + 1000;
        send_to(c, end);
        ack(c, end, int);
    }

    /// A controller past its first feedback: sent to 1000, ACKed with `h0`, and `sent` bytes
    /// sent since (so the next ACK beyond 1000 is a full update).
    fn primed(cfg: HpccConfig, h0: HopRecord, sent: u64) -> Hpcc {
        let mut c = ctl(cfg);
        send_to(&mut c, 1000);
        ack(&mut c, 1000, &one(h0));
        send_to(&mut c, 1000 + sent);
        c
    }

    #[test]
    fn starts_at_line_rate_with_a_bdp_window_paced_and_ect() {
        let c = ctl(HpccConfig::default());
        assert_eq!(c.rate(), Rate::gbps(100));
        // W_init = B·T = 100 Gb/s × 10 µs = 125 000 B = 125 packets, + the one packet the
        // simulator's window test lets go
        assert_eq!(c.window(), Some(126.0));
        assert_eq!(c.pacing_rate(Time::us(10)), Some(Rate::gbps(100)));
        assert_eq!(c.ecn(0, 1000), Ecn::Ect0);
        assert_eq!(c.utilisation(), 1.0);
        assert_eq!(c.next_timeout(), None);
    }

    #[test]
    fn first_feedback_only_stores_the_records() {
        let mut c = ctl(HpccConfig::default());
        send_to(&mut c, 5000);
        ack(&mut c, 1000, &one(hop(1000, 0, 50_000)));
        assert_eq!(c.rate(), Rate::gbps(100));
        assert_eq!(c.utilisation(), 1.0);
        assert_eq!(c.stats().full_updates + c.stats().fast_reacts, 0);
        // the first RTT ends at what was sent by then
        assert_eq!(c.last_update_seq, 5000);
    }

    #[test]
    fn measure_inflight_adds_tx_rate_and_the_smaller_queue_over_bdp() {
        // MeasureInflight: τ = 5 µs, 50 000 B sent in it = 80 Gb/s → 0.8 of B; queue
        // min(25 000, 50 000) B over B·T = 125 000 B → 0.2; u = 1.0
        let mut c = primed(HpccConfig::default(), hop(0, 0, 25_000), 1000);
        ack(&mut c, 2000, &one(hop(5000, 50_000, 50_000)));
        assert!((c.last_sample() - 1.0).abs() < 1e-12, "{}", c.last_sample());
        // U ← (1 − τ/T)·U + (τ/T)·u = 0.5·1 + 0.5·1 = 1
        assert!((c.utilisation() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn ewma_weight_is_tau_over_t_capped_at_one() {
        // an idle hop (u = 0) over τ = 2.5 µs: no hop above 0, so τ stays 0 (the simulator's
        // `u > U` from 0) and U keeps its value
        let mut c = primed(HpccConfig::default(), hop(0, 0, 0), 1000);
        ack(&mut c, 2000, &one(hop(2500, 0, 0)));
        assert_eq!(c.last_sample(), 0.0);
        assert_eq!(c.utilisation(), 1.0);
        // a hop at 40 % over τ = 40 µs > T: τ' = T, U is the sample itself
        let mut d = primed(HpccConfig::default(), hop(0, 0, 0), 1000);
        ack(&mut d, 2000, &one(hop(40_000, 200_000, 0)));
        assert!((d.last_sample() - 0.4).abs() < 1e-12);
        assert!((d.utilisation() - 0.4).abs() < 1e-12);
        // a hop at 60 % over τ = 2.5 µs: U = 0.75·1 + 0.25·0.6 = 0.9
        let mut e = primed(HpccConfig::default(), hop(0, 0, 0), 1000);
        ack(&mut e, 2000, &one(hop(2500, 18_750, 0)));
        assert!((e.utilisation() - 0.9).abs() < 1e-12, "{}", e.utilisation());
    }

    #[test]
    fn the_most_utilised_hop_sets_u_and_its_tau() {
        let mut c = ctl(HpccConfig::default());
        send_to(&mut c, 1000);
        let first = IntRecords::from_slice(&[hop(0, 0, 0), hop(0, 0, 0), hop(0, 0, 0)]);
        ack(&mut c, 1000, &first);
        send_to(&mut c, 2000);
        // hop 1 at 90 % over 10 µs (τ' = T), hops 0 and 2 lower
        let next = IntRecords::from_slice(&[
            hop(10_000, 50_000, 0),
            hop(10_000, 112_500, 0),
            hop(5_000, 0, 0),
        ]);
        ack(&mut c, 2000, &next);
        assert!((c.last_sample() - 0.9).abs() < 1e-12);
        assert!((c.utilisation() - 0.9).abs() < 1e-12);
    }

    #[test]
    fn compute_wind_multiplicative_above_eta() {
        // ComputeWind, U ≥ η: R = R_c/(U/η) + R_AI. The hop runs at 100 % with a queue of
        // 0.25 BDP over a full T: U = 1.25, R = 100 G × 0.95/1.25 + 40 M = 76.04 Gb/s
        let mut c = primed(HpccConfig::default(), hop(0, 0, 31_250), 1000);
        ack(&mut c, 2000, &one(hop(10_000, 125_000, 31_250)));
        assert!((c.utilisation() - 1.25).abs() < 1e-12);
        assert_eq!(c.rate(), Rate(76_040_000_000));
        assert_eq!(c.reference_rate(), c.rate());
        assert_eq!(c.stats().multiplicative, 1);
        // the window follows: 76.04 Gb/s × 10 µs = 95.05 packets, + 1
        assert!((c.window().unwrap() - 96.05).abs() < 1e-9);
    }

    #[test]
    fn max_stage_0_makes_every_update_multiplicative_even_below_eta() {
        // hpcc-sim: MI_THRESH 0 → incStage ≥ maxStage always: U = 0.5 scales R_c up by
        // η/U = 1.9, clamped to the line rate
        let mut c = primed(HpccConfig::default(), hop(0, 0, 0), 1000);
        c.rate_ref = Rate::gbps(20);
        ack(&mut c, 2000, &one(hop(10_000, 62_500, 0)));
        assert!((c.utilisation() - 0.5).abs() < 1e-12);
        // 20 G × 0.95/0.5 + 40 M = 38.04 Gb/s
        assert_eq!(c.rate(), Rate(38_040_000_000));
        assert_eq!(c.inc_stage(), 0);
        assert_eq!(c.stats().multiplicative, 1);
    }

    #[test]
    fn paper_max_stage_5_adds_r_ai_five_times_then_scales() {
        // ComputeWind, U < η and incStage < maxStage: R = R_c + R_AI, incStage + 1
        let cfg = HpccConfig {
            preset: Preset::Paper,
            ..HpccConfig::default()
        };
        let mut c = primed(cfg, hop(0, 0, 0), 0);
        c.rate_ref = Rate::gbps(20);
        for k in 1..=6u64 {
            // the hop at 50 % over T
            round(&mut c, &one(hop(k * 10_000, k * 62_500, 0)));
            if k <= 5 {
                assert_eq!(c.inc_stage(), k as u32);
                assert_eq!(c.rate(), Rate(20_000_000_000 + k * 40_000_000));
            }
        }
        // the sixth: multiplicative, η/U = 1.9 from 20.2 G
        assert_eq!(c.inc_stage(), 0);
        let want = 20.2e9 * 1.9 + 40e6;
        assert!((c.rate().0 as f64 - want).abs() <= 1.0, "{}", c.rate());
        assert_eq!(c.stats().additive, 5);
        assert_eq!(
            c.rate(),
            Rate((20_200_000_000.0f64 * 1.9) as u64 + 40_000_000)
        );
    }

    #[test]
    fn fast_react_moves_the_rate_but_not_the_reference() {
        // NewAck: ACKs within the RTT compute from W_c without committing it
        let mut c = primed(HpccConfig::default(), hop(0, 0, 0), 10_000);
        // full update at 2000 (beyond 1000): U = 1.25 → 76.04 G, committed; next RTT ends at
        // 11 000
        ack(&mut c, 2000, &one(hop(10_000, 125_000, 31_250)));
        let r1 = c.rate();
        assert_eq!(c.reference_rate(), r1);
        assert_eq!(c.last_update_seq, 11_000);
        // a fast react at 3000 with the same congestion: U stays 1.25, R = R_c·η/U + R_AI
        ack(&mut c, 3000, &one(hop(20_000, 250_000, 31_250)));
        assert_eq!(c.stats().fast_reacts, 1);
        assert_eq!(c.reference_rate(), r1);
        let want = (r1.0 as f64 * 0.95 / 1.25 + 40e6).round() as u64;
        assert_eq!(c.rate(), Rate(want));
        // another one: still from the same reference, so the same rate (no compounding)
        ack(&mut c, 4000, &one(hop(30_000, 375_000, 31_250)));
        assert_eq!(c.rate(), Rate(want));
        assert_eq!(c.reference_rate(), r1);
        // the ACK beyond 11 000 is the next full update: it commits
        send_to(&mut c, 20_000);
        ack(&mut c, 12_000, &one(hop(40_000, 500_000, 31_250)));
        assert_eq!(c.reference_rate(), Rate(want));
        assert_eq!(c.stats().full_updates, 2);
    }

    #[test]
    fn without_fast_react_acks_inside_the_rtt_change_nothing() {
        let cfg = HpccConfig {
            fast_react: Some(false),
            ..HpccConfig::default()
        };
        let mut c = primed(cfg, hop(0, 0, 0), 10_000);
        ack(&mut c, 2000, &one(hop(10_000, 125_000, 31_250)));
        let (r, u) = (c.rate(), c.utilisation());
        ack(&mut c, 3000, &one(hop(20_000, 125_000, 0)));
        assert_eq!((c.rate(), c.utilisation()), (r, u));
        // nor L: the next full update compares with the record of the last full one
        send_to(&mut c, 20_000);
        ack(&mut c, 12_000, &one(hop(30_000, 375_000, 0)));
        // 250 000 B over 20 µs = 100 Gb/s; queue min(0, 31 250) = 0: sample 1.0
        assert!((c.last_sample() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn stale_hops_and_path_changes_are_not_compared() {
        let mut c = primed(HpccConfig::default(), hop(1000, 0, 0), 10_000);
        // τ = 0: no rate from it, nothing changes
        ack(&mut c, 2000, &one(hop(1000, 5000, 0)));
        assert_eq!(c.stats().stale_hops, 1);
        assert_eq!((c.rate(), c.utilisation()), (Rate::gbps(100), 1.0));
        // a second hop appears: only stored
        let two = IntRecords::from_slice(&[hop(2000, 0, 0), hop(2000, 0, 0)]);
        ack(&mut c, 3000, &two);
        assert_eq!(c.stats().path_changes, 1);
        assert_eq!(c.rate(), Rate::gbps(100));
        // an ACK without records changes nothing either
        c.on_ack(&AckEvent {
            now: Time::ZERO,
            rtt: None,
            newly_acked: 1,
            ece: false,
            snd_una: 4000,
            acked_packets: 4,
        });
        assert_eq!(c.stats().int_acks, 3);
        assert_eq!(c.rate(), Rate::gbps(100));
    }

    #[test]
    fn a_hop_written_by_another_port_is_not_compared() {
        let at = |port_id, ts_ns, tx_bytes| HopRecord {
            port_id,
            ..hop(ts_ns, tx_bytes, 0)
        };
        let first = IntRecords::from_slice(&[at(1, 0, 0), at(2, 0, 0)]);
        let mut c = primed(HpccConfig::default(), first.as_slice()[0], 10_000);
        // prime with the two-hop path (primed stored a one-hop L: a path change, only stored)
        ack(&mut c, 1500, &first);
        // hop 0 moved to port 3, whose counter is far ahead: compared with port 1's record it
        // would read 1 000 000 B in 10 µs (800 Gb/s, u = 8); hop 1 (same port) runs at 50 %
        let moved = IntRecords::from_slice(&[at(3, 10_000, 1_000_000), at(2, 10_000, 62_500)]);
        ack(&mut c, 2000, &moved);
        assert_eq!(c.stats().rerouted_hops, 1);
        assert!((c.last_sample() - 0.5).abs() < 1e-12, "{}", c.last_sample());
        // every hop rerouted: no usable hop, U and R unchanged
        let (r, u) = (c.rate(), c.utilisation());
        send_to(&mut c, 20_000);
        let all = IntRecords::from_slice(&[at(4, 20_000, 0), at(5, 20_000, 0)]);
        ack(&mut c, 12_000, &all);
        assert_eq!(c.stats().rerouted_hops, 3);
        assert_eq!((c.rate(), c.utilisation()), (r, u));
    }

    #[test]
    fn rate_stays_within_min_and_line_and_the_window_at_one_packet() {
        // a hop with a huge queue: U far above η drives R to the 1 Gb/s floor
        let mut c = primed(HpccConfig::default(), hop(0, 0, 10_000_000), 0);
        for k in 1..=20u64 {
            round(&mut c, &one(hop(k * 10_000, k * 125_000, 10_000_000)));
        }
        assert_eq!(c.rate(), Rate::gbps(1));
        // 1 Gb/s × 10 µs = 1.25 packets (+ 1); with a lower floor the window still has one
        assert_eq!(c.window(), Some(2.25));
        let mut d = primed(
            HpccConfig {
                min_rate: Some(Rate::mbps(100)),
                ..HpccConfig::default()
            },
            hop(0, 0, 10_000_000),
            0,
        );
        for k in 1..=40u64 {
            round(&mut d, &one(hop(k * 10_000, k * 125_000, 10_000_000)));
        }
        assert_eq!(d.rate(), Rate::mbps(100));
        assert_eq!(d.window(), Some(1.125));
        // an idle path: never above the line rate
        let mut e = primed(HpccConfig::default(), hop(0, 0, 0), 1000);
        ack(&mut e, 2000, &one(hop(10_000, 1000, 0)));
        assert_eq!(e.rate(), Rate::gbps(100));
    }
    #[test]
    fn hpcc_sim_int_units_are_128_and_80_bytes_times_nic_rate_over_25g() {
        // int-header.h:26-27 byteUnit 128, qlenUnit 80; run.py:116 INT_MULTI = bw/25
        assert_eq!(sim_int_units(Rate::gbps(100)), (512, 320));
        assert_eq!(sim_int_units(Rate::gbps(25)), (128, 80));
        assert_eq!(sim_int_units(Rate::gbps(400)), (2048, 1280));
        assert_eq!(sim_int_units(Rate::gbps(10)), (128, 80), "at least 1");
        assert_eq!(sim_ctl().int_units, Some((512, 320)));
        let paper = HpccConfig {
            preset: Preset::Paper,
            ..HpccConfig::default()
        };
        assert_eq!(Hpcc::new(&sender(), &paper).unwrap().int_units, None);
    }

    #[test]
    fn hpcc_sim_reads_tx_bytes_and_queue_in_the_records_units() {
        // int-header.h:44-45 (bytes/unit, qlen/unit rounded down), 33-38 and 62-67 (read back
        // times the unit); rdma-hw.cc:797-800 u = txRate/B + min(qlen, qlen')/(B·T)
        let mut c = sim_ctl();
        send_to(&mut c, 1000);
        ack(&mut c, 1000, &one(hop(1_000, 1_000, 1_000)));
        send_to(&mut c, 2000);
        // 1000 B sent in 100 ns: the record holds 1000/512 = 1 and 2000/512 = 3 units, so the
        // sender sees 1024 B; the queues 1000/320 = 3 and 700/320 = 2 units: 640 B
        ack(&mut c, 2000, &one(hop(1_100, 2_000, 700)));
        let want = 1024.0 * 8e9 / 100.0 / 1e11 + 640.0 * 8e9 / (1e11 * 10_000.0);
        assert!(
            (c.last_sample() - want).abs() < 1e-12,
            "{} {want}",
            c.last_sample()
        );
        // exact records: 1000 B and 700 B
        let mut e = ctl(HpccConfig::default());
        send_to(&mut e, 1000);
        ack(&mut e, 1000, &one(hop(1_000, 1_000, 1_000)));
        send_to(&mut e, 2000);
        ack(&mut e, 2000, &one(hop(1_100, 2_000, 700)));
        let exact = 1000.0 * 8e9 / 100.0 / 1e11 + 700.0 * 8e9 / (1e11 * 10_000.0);
        assert!((e.last_sample() - exact).abs() < 1e-12);
    }
    #[test]
    fn hpcc_sim_rounds_the_rate_down_as_datarate_division_does() {
        // data-rate.cc:294-297: DataRate(bps / c) truncates; rdma-hw.cc:833 R_c/max_c + R_AI
        let mut c = sim_ctl();
        c.u = 0.95 * 3.0;
        let (r, _, mi) = c.compute();
        assert!(mi);
        // 100 G / 3 = 33 333 333 333.33…, + 40 Mb/s
        assert_eq!(r, Rate(33_333_333_333 + 40_000_000));
        let mut e = ctl(HpccConfig::default());
        e.u = 0.95 * 1.5;
        // 100 G / 1.5 = 66 666 666 666.67: nearest with exact records (paper's rule)
        assert_eq!(e.compute().0, Rate(66_666_666_667 + 40_000_000));
    }
}
