//! LDCP's congestion window: stages, update rules, and the window [`Controller`] [`Ldcp`].
//!
//! Source: draft-dai-tsvwg-ldcp-01 ("PFC-Free Low Delay Control Protocol"), restated with every
//! open point fixed by a documented decision (listed below and in `ns3-module/doc/rdma-cc.rst`). The window `cw` is a real number of MTU-sized packets.
//!
//! [`Stage`] is the state machine; its variants carry their data:
//!
//! ```text
//!   FastStart{iw, first_rtt} --all IW packets acked--------------> Pawa{cw = IW}
//!            |                --loss (NACK or RTO)----------------> Pawa/SubPacket{cw = acked ≥ γ}
//!            '-- message fully acked: the flow never leaves fast start
//!   Pawa{cw ≥ 1} <--cw ≥ 1-- SubPacket{γ ≤ cw < 1} <--cw < 1-- Pawa
//! ```
//!
//! [`Rules`] holds the constants and the pure update functions shared by the window controller
//! and the rate-based variant ([`crate::LdcpRate`]).
//!
//! Decisions (the draft leaves them open; each is documented on its item):
//! - With `n > 1` packets per ACK in the sub-packet regime: `cw += n·γ` unmarked,
//!   `cw = max(γ, ηⁿ·cw)` marked (the per-packet rule applied `n` times).
//! - During fast start the window stays `IW`; ECE on ACKs is counted but does not change it.
//!   The ACK that completes the IW packets sets `cw = IW` exactly (no PAWA step on top).
//! - A retransmission timeout during fast start is a loss (exit 1), not an extra `η` cut.
//! - Rate variant, one RTT-probe response below one packet: `cw += γ·cw` (see
//!   [`Rules::on_rtt_elapsed`]).
//! - A NACK in the stable stage does not change `cw` by itself; a NACK with ECE (the dropped
//!   out-of-order packet was CE-marked) counts as one marked packet.
//! - `fast_start = false`: the flow starts in the stable stage with `cw = 1`, ECT packets.
//! - The fast-start burst is `max(1, ⌊IW⌋)` packets (in-flight ≤ IW·MTU), so a fractional IW
//!   of 15.6 sends 15 packets and the 15th is the ECT one.

use crate::config::{LdcpConfig, LossFloor};
use rdma_cc_core::{ConfigError, Ecn, Time};
use rdma_cc_transport::{AckEvent, Controller, NackEvent, SenderConfig};

/// How (and whether) a flow left zero-RTT fast start. Reported by [`Ldcp::fast_start_exit`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FastStartExit {
    /// Still in fast start, never in it (fast start off, other schemes), or finished inside it.
    #[default]
    None = 0,
    /// All IW packets were acknowledged without loss: `cw = IW` (draft §3.1, condition 2).
    AllAcked = 1,
    /// Loss was detected (NACK or timeout): `cw` = packets acknowledged so far (condition 1).
    Loss = 2,
}

/// Where an LDCP window is in its life; each variant carries its window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stage {
    /// Zero-RTT fast start (draft §2.3): the window is `iw` packets; packets are Not-ECT while
    /// `first_rtt` (no ACK or NACK has returned yet) except the last fast-start packet.
    FastStart {
        /// The initial window, packets.
        iw: f64,
        /// No feedback has arrived yet.
        first_rtt: bool,
    },
    /// Stable stage with `cw ≥ 1`: per-ACK window adjustment (draft §2.2 eq. 1–2).
    Pawa {
        /// Window, packets (≥ 1).
        cw: f64,
    },
    /// Stable stage with `γ ≤ cw < 1`: one packet in flight, sent every `RTT/cw` (draft §2.2).
    SubPacket {
        /// Window, packets (in `[γ, 1)`).
        cw: f64,
    },
}

impl Stage {
    /// The window of this stage, packets.
    pub fn cw(self) -> f64 {
        match self {
            Stage::FastStart { iw, .. } => iw,
            Stage::Pawa { cw } | Stage::SubPacket { cw } => cw,
        }
    }

    /// Whether this is the stable stage (PAWA or sub-packet).
    pub fn is_stable(self) -> bool {
        !matches!(self, Stage::FastStart { .. })
    }
}

/// LDCP's constants and stable-stage update rules (draft §2.2), as pure functions on [`Stage`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    /// Additive increase per RTT, packets.
    pub alpha: f64,
    /// Decrease per marked packet, packets.
    pub beta: f64,
    /// Sub-packet increase step.
    pub gamma: f64,
    /// Multiplicative decrease factor below one packet.
    pub eta: f64,
    /// Smallest window: `γ`, or 1 when the sub-packet regime is off.
    pub floor: f64,
    /// Smallest window after a fast-start loss: [`Self::floor`], or 1 with
    /// [`LossFloor::One`].
    pub fs_loss_floor: f64,
}

impl Rules {
    /// The rules for a validated [`LdcpConfig`].
    pub fn new(c: &LdcpConfig) -> Rules {
        Rules {
            alpha: c.alpha,
            beta: c.beta,
            gamma: c.gamma,
            eta: c.eta,
            floor: if c.sub_packet { c.gamma } else { 1.0 },
            fs_loss_floor: match (c.sub_packet, c.fs_loss_floor) {
                (true, LossFloor::Gamma) => c.gamma,
                _ => 1.0,
            },
        }
    }

    /// The stable stage holding window `cw`: PAWA when `cw ≥ 1`, else the sub-packet regime
    /// with `cw ← max(cw, γ)` (decision: "if the result falls below 1 the flow enters
    /// the sub-packet regime with cw ← max(result, γ)").
    pub fn stable(&self, cw: f64) -> Stage {
        // NaN cannot arrive here (all inputs are finite and cw >= floor > 0); treat it as the
        // floor anyway rather than propagating it.
        let cw = if cw.is_nan() { self.floor } else { cw };
        if cw >= 1.0 {
            Stage::Pawa { cw }
        } else if self.floor >= 1.0 {
            Stage::Pawa { cw: 1.0 }
        } else {
            Stage::SubPacket {
                cw: cw.max(self.floor),
            }
        }
    }

    /// Window update for an ACK that newly acknowledges `n` packets with ECN-Echo `ece`.
    /// Fast start is returned unchanged; `n = 0` changes nothing.
    pub fn on_ack(&self, stage: Stage, n: u64, ece: bool) -> Stage {
        if n == 0 {
            return stage;
        }
        let nf = n as f64;
        match stage {
            Stage::FastStart { .. } => stage,
            Stage::Pawa { cw } => {
                if ece {
                    // draft eq. (2): "if ECN-Echo = 1, cw = cw - n * beta"
                    self.stable(cw - nf * self.beta)
                } else {
                    // draft eq. (2): "if ECN-Echo = 0, cw = cw + n * alpha/cw"
                    self.stable(cw + nf * self.alpha / cw)
                }
            }
            Stage::SubPacket { cw } => {
                if ece {
                    // draft §2.2, cw < 1: "if ECN-Echo = 1, cw = max{gamma, eta * cw}",
                    // applied once per newly acknowledged packet (decision).
                    let k = i32::try_from(n).unwrap_or(i32::MAX);
                    self.stable((self.eta.powi(k) * cw).max(self.floor))
                } else {
                    // draft §2.2, cw < 1: "if ECN-Echo = 0, cw = cw + gamma" (per packet)
                    self.stable(cw + nf * self.gamma)
                }
            }
        }
    }

    /// `n` unmarked packets acknowledged one by one (the rate variant's probe response,
    /// [`crate::LdcpRate`]): [`Self::on_ack`] with `n = 1`, `n` times, so a large `n` grows
    /// the window as `n` separate ACKs would (about `√(cw² + 2nα)`), not by `n·α/cw` at the
    /// window it started from. At most 65 536 steps (a window grown past that many packets
    /// is capped by the line rate anyway).
    pub fn on_unmarked_packets(&self, stage: Stage, n: u64) -> Stage {
        let mut s = stage;
        for _ in 0..n.min(1 << 16) {
            s = self.on_ack(s, 1, false);
        }
        s
    }

    /// Congestion without an ACK to count (retransmission timeout): `cw ← max(γ, η·cw)`
    /// (decision: the draft gives no timeout rule; this is the sub-packet decrease).
    pub fn on_congestion(&self, stage: Stage) -> Stage {
        self.stable((self.eta * stage.cw()).max(self.floor))
    }

    /// One RTT without congestion has elapsed (rate variant's probe response).
    /// PAWA: `cw ← cw + α` (draft §3.2: "Upon the arrival of an RTT response ... the window
    /// should increase by alpha" — the per-RTT sum of eq. (1)'s `α/cw` over `cw` ACKs).
    /// Sub-packet regime (decision): `cw ← cw + γ·cw`, the per-RTT sum of the window scheme's
    /// `+γ` per unmarked packet over the `cw` packets an RTT carries; a literal `+α` would
    /// multiply a flow at `γ = 1/8` by nine in one RTT.
    pub fn on_rtt_elapsed(&self, stage: Stage) -> Stage {
        match stage {
            Stage::SubPacket { cw } => self.stable(cw + self.gamma * cw),
            s => self.stable(s.cw() + self.alpha),
        }
    }
}

/// Moves `stage` to `next`, logging (debug) the end of fast start (`exit`: how it ended) and
/// entering or leaving the sub-packet regime: every stage change of both controllers goes
/// through here (the rate variant never runs fast start).
pub(crate) fn transition(stage: &mut Stage, next: Stage, exit: FastStartExit) {
    let sub = |s: Stage| matches!(s, Stage::SubPacket { .. });
    if !stage.is_stable() && next.is_stable() {
        log::debug!("fast start ends ({exit:?}): cw {}", next.cw());
    }
    if sub(*stage) != sub(next) {
        let verb = if sub(next) { "enters" } else { "leaves" };
        log::debug!(
            "{verb} the sub-packet regime: cw {} -> {}",
            stage.cw(),
            next.cw()
        );
    }
    *stage = next;
}

/// LDCP's window controller (draft §2): fast start, then PAWA / sub-packet regime.
///
/// Used by [`rdma_cc_transport::QpSender`] through [`Controller`]: the sender enforces
/// `in-flight + next packet ≤ cw·MTU` when `cw ≥ 1`, one packet in flight spaced `srtt/cw`
/// when `cw < 1`, and asks this controller for each packet's ECN codepoint.
#[derive(Debug, Clone)]
pub struct Ldcp {
    rules: Rules,
    stage: Stage,
    /// Packets in the fast-start burst, `max(1, ⌊IW⌋)`.
    fs_packets: u64,
    /// End (exclusive byte offset) of the last fast-start packet: the ECT one.
    fs_end: u64,
    flow_size: u64,
    exit: FastStartExit,
}

impl Ldcp {
    /// The controller of a `flow_size`-byte message with constants `cfg` on the path `sender`
    /// describes (both validated here).
    pub fn new(
        sender: &SenderConfig,
        cfg: &LdcpConfig,
        flow_size: u64,
    ) -> Result<Ldcp, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        ConfigError::check(flow_size >= 1, "flow_size", flow_size, "must be >= 1 byte")?;
        let rules = Rules::new(cfg);
        let iw = cfg.iw_packets(sender);
        // the burst is what fits in IW·MTU, at least one packet (tolerate 99.999999 for 100)
        let fs_packets = ((iw + 1e-9).floor() as u64).max(1);
        let fs_end = fs_packets.saturating_mul(sender.mtu.0).min(flow_size);
        let stage = if cfg.fast_start {
            Stage::FastStart {
                iw,
                first_rtt: true,
            }
        } else {
            // decision: no fast start → stable stage at one packet, ECT from the first packet
            rules.stable(1.0)
        };
        Ok(Ldcp {
            rules,
            stage,
            fs_packets,
            fs_end,
            flow_size,
            exit: FastStartExit::None,
        })
    }

    /// Current stage.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The update rules in use.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// How (and whether) the flow left fast start.
    pub fn fast_start_exit(&self) -> FastStartExit {
        self.exit
    }

    /// Number of packets in the fast-start burst.
    pub fn fast_start_packets(&self) -> u64 {
        self.fs_packets
    }

    /// Leaves fast start on loss: `cw ←` packets cumulatively acknowledged (draft §3.1
    /// condition 1: "cw in stable stage is set to the number of packets that are
    /// accumulatively acknowledged before packet loss"), at least [`Rules::fs_loss_floor`]
    /// (decision, [`LdcpConfig::fs_loss_floor`]: one packet by default, `γ` as an option).
    fn exit_on_loss(&mut self, acked_packets: u64) {
        self.exit = FastStartExit::Loss;
        self.enter(
            self.rules
                .stable((acked_packets as f64).max(self.rules.fs_loss_floor)),
        );
    }

    /// Moves to `next` ([`transition`]).
    fn enter(&mut self, next: Stage) {
        transition(&mut self.stage, next, self.exit);
    }
}

impl Controller for Ldcp {
    fn cw(&self) -> Option<f64> {
        // fast start reports IW itself (fractional), the window the burst rounds down
        Some(self.stage.cw())
    }

    fn window(&self) -> Option<f64> {
        Some(match self.stage {
            // fast start: exactly the burst fits (in-flight ≤ ⌊IW⌋·MTU)
            Stage::FastStart { .. } => self.fs_packets as f64,
            s => s.cw(),
        })
    }

    fn ecn(&self, seq: u64, len: u32) -> Ecn {
        match self.stage {
            // draft §3.1: "the last fast-start packet is set to ECN-capable, that is the IW-th
            // packet if the message is larger than BDP, or the last packet of a message if its
            // size is below BDP"; every other first-RTT packet is ECN-incapable (WRED-dropped).
            Stage::FastStart {
                first_rtt: true, ..
            } if seq.saturating_add(u64::from(len)) != self.fs_end => Ecn::NotEct,
            // draft §3.1: after the first RTT the flow "set[s] the packets to ECN-capable ever
            // since"
            _ => Ecn::Ect0,
        }
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        let next = match self.stage {
            Stage::FastStart { iw, .. } => {
                // draft §2.3: the first RTT ends when the first ACK returns; sending continues,
                // clocked by ACKs, within the window IW.
                if ack.snd_una >= self.fs_end && self.flow_size > self.fs_end {
                    // draft §3.1 condition 2: "When a full IW of packets have all been
                    // acknowledged ... the stable stage algorithm now takes over and cw is set
                    // to BDP."
                    self.exit = FastStartExit::AllAcked;
                    self.rules.stable(iw)
                } else {
                    Stage::FastStart {
                        iw,
                        first_rtt: false,
                    }
                }
            }
            s => self.rules.on_ack(s, ack.newly_acked, ack.ece),
        };
        self.enter(next);
    }

    fn on_nack(&mut self, nack: &NackEvent) {
        match self.stage {
            // loss detected in fast start (draft §3.1 condition 1)
            Stage::FastStart { .. } => self.exit_on_loss(nack.acked_packets),
            // decision: the NACK's ECE reports the mark of the dropped out-of-order packet;
            // count it as one marked packet so the congestion signal is not lost
            s if nack.ece => self.enter(self.rules.on_ack(s, 1, true)),
            _ => {}
        }
    }

    fn on_rto(&mut self, _now: Time, acked_packets: u64) {
        let next = match self.stage {
            // decision: a timeout in fast start is a loss like a NACK (condition 1)
            Stage::FastStart { .. } => {
                self.exit_on_loss(acked_packets);
                return;
            }
            // decision (loss recovery): on timeout cw ← max(γ, η·cw)
            s => self.rules.on_congestion(s),
        };
        self.enter(next);
    }

    fn in_fast_start(&self) -> bool {
        matches!(self.stage, Stage::FastStart { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules::new(&LdcpConfig::DRAFT)
    }

    #[test]
    fn pawa_unmarked_ack_adds_alpha_over_cw() {
        // draft eq. (1): "if ECN-Echo = 0, cw = cw + alpha/cw"; 4 + 1/4
        assert_eq!(
            rules().on_ack(Stage::Pawa { cw: 4.0 }, 1, false),
            Stage::Pawa { cw: 4.25 }
        );
    }

    #[test]
    fn pawa_marked_ack_subtracts_beta() {
        // draft eq. (1): "if ECN-Echo = 1, cw = cw - beta"
        assert_eq!(
            rules().on_ack(Stage::Pawa { cw: 4.0 }, 1, true),
            Stage::Pawa { cw: 3.5 }
        );
    }

    #[test]
    fn delayed_ack_scales_by_n() {
        // draft eq. (2): cw = cw + n * alpha/cw ; cw = cw - n * beta
        let r = rules();
        assert_eq!(
            r.on_ack(Stage::Pawa { cw: 4.0 }, 2, false),
            Stage::Pawa { cw: 4.5 }
        );
        assert_eq!(
            r.on_ack(Stage::Pawa { cw: 4.0 }, 3, true),
            Stage::Pawa { cw: 2.5 }
        );
    }

    #[test]
    fn crossing_below_one_enters_sub_packet_regime() {
        let r = rules();
        // 1.25 - 0.5 = 0.75
        assert_eq!(
            r.on_ack(Stage::Pawa { cw: 1.25 }, 1, true),
            Stage::SubPacket { cw: 0.75 }
        );
    }

    #[test]
    fn crossing_below_gamma_stops_at_gamma() {
        // decision: cw ← max(result, γ); 1 − 2·0.5 = 0 → 1/8
        assert_eq!(
            rules().on_ack(Stage::Pawa { cw: 1.0 }, 2, true),
            Stage::SubPacket { cw: 0.125 }
        );
    }

    #[test]
    fn sub_packet_unmarked_adds_gamma() {
        // draft §2.2: "if ECN-Echo = 0, cw = cw + gamma"
        assert_eq!(
            rules().on_ack(Stage::SubPacket { cw: 0.5 }, 1, false),
            Stage::SubPacket { cw: 0.625 }
        );
    }

    #[test]
    fn sub_packet_marked_halves_with_floor_gamma() {
        // draft §2.2: "if ECN-Echo = 1, cw = max{gamma, eta * cw}"
        let r = rules();
        assert_eq!(
            r.on_ack(Stage::SubPacket { cw: 0.625 }, 1, true),
            Stage::SubPacket { cw: 0.3125 }
        );
        assert_eq!(
            r.on_ack(Stage::SubPacket { cw: 0.125 }, 1, true),
            Stage::SubPacket { cw: 0.125 }
        );
        // n packets: η applied n times
        assert_eq!(
            r.on_ack(Stage::SubPacket { cw: 0.75 }, 2, true),
            Stage::SubPacket { cw: 0.1875 }
        );
    }

    #[test]
    fn sub_packet_reaching_one_returns_to_pawa() {
        assert_eq!(
            rules().on_ack(Stage::SubPacket { cw: 0.875 }, 1, false),
            Stage::Pawa { cw: 1.0 }
        );
    }

    #[test]
    fn without_sub_packet_regime_the_floor_is_one_packet() {
        let r = Rules::new(&LdcpConfig {
            sub_packet: false,
            ..LdcpConfig::DRAFT
        });
        assert_eq!(
            r.on_ack(Stage::Pawa { cw: 1.25 }, 1, true),
            Stage::Pawa { cw: 1.0 }
        );
        assert_eq!(
            r.on_congestion(Stage::Pawa { cw: 1.0 }),
            Stage::Pawa { cw: 1.0 }
        );
    }

    #[test]
    fn congestion_timeout_multiplies_by_eta() {
        let r = rules();
        assert_eq!(
            r.on_congestion(Stage::Pawa { cw: 10.0 }),
            Stage::Pawa { cw: 5.0 }
        );
        assert_eq!(
            r.on_congestion(Stage::Pawa { cw: 1.5 }),
            Stage::SubPacket { cw: 0.75 }
        );
        assert_eq!(
            r.on_congestion(Stage::SubPacket { cw: 0.2 }),
            Stage::SubPacket { cw: 0.125 }
        );
    }

    #[test]
    fn zero_packets_acked_changes_nothing() {
        let s = Stage::Pawa { cw: 3.0 };
        assert_eq!(rules().on_ack(s, 0, true), s);
    }

    fn ldcp(iw: f64, flow: u64) -> Ldcp {
        let cfg = LdcpConfig {
            iw: Some(iw),
            ..LdcpConfig::DRAFT
        };
        Ldcp::new(&SenderConfig::default(), &cfg, flow).unwrap()
    }

    #[test]
    fn fractional_iw_bursts_whole_packets() {
        assert_eq!(ldcp(15.6, 100_000).fast_start_packets(), 15);
        assert_eq!(ldcp(0.3, 100_000).fast_start_packets(), 1);
        // the 15th packet [14000, 15000) is the ECT one
        let c = ldcp(15.6, 100_000);
        assert_eq!(c.ecn(13_000, 1000), Ecn::NotEct);
        assert_eq!(c.ecn(14_000, 1000), Ecn::Ect0);
    }

    #[test]
    fn timeout_in_fast_start_is_a_loss_exit() {
        let mut c = ldcp(8.0, 100_000);
        c.on_rto(Time::us(32), 3);
        assert_eq!(c.stage(), Stage::Pawa { cw: 3.0 });
        assert_eq!(c.fast_start_exit(), FastStartExit::Loss);
    }

    #[test]
    fn stable_nack_with_ece_counts_one_marked_packet() {
        let mut c = ldcp(8.0, 100_000);
        c.on_nack(&NackEvent {
            now: Time::ZERO,
            expected_seq: 2000,
            ece: false,
            acked_packets: 2,
        });
        assert_eq!(c.stage(), Stage::Pawa { cw: 2.0 });
        c.on_nack(&NackEvent {
            now: Time::ZERO,
            expected_seq: 2000,
            ece: true,
            acked_packets: 2,
        });
        assert_eq!(c.stage(), Stage::Pawa { cw: 1.5 });
        c.on_nack(&NackEvent {
            now: Time::ZERO,
            expected_seq: 2000,
            ece: false,
            acked_packets: 2,
        });
        assert_eq!(c.stage(), Stage::Pawa { cw: 1.5 });
    }
}
