//! LDCP's rate-based variant for NICs without per-packet ACK (draft-dai-tsvwg-ldcp-01 §3.2,
//! decisions listed below).
//!
//! The same window `cw` (same [`Rules`], same stages) is turned into a pacing rate
//! `R = cw·MTU / srtt`, capped at the line rate: `cw` full packets per smoothed RTT. The
//! transport paces by wire size, so `MTU` here is a full packet's wire size (payload, headers,
//! preamble and gap). Congestion control does not use ACKs:
//! - each RTT-probe response: `cw ← cw + α` (draft §3.2: "Upon the arrival of an RTT response,
//!   it is for sure that one RTT has elapsed and the window should increase by alpha"); below
//!   one packet `cw ← cw + γ·cw`, what one RTT of unmarked packets gives the window scheme
//!   (decision, [`Rules::on_rtt_elapsed`]); the probe also gives the RTT sample (the transport
//!   runs the probe schedule);
//! - each CNP: treated exactly like one ECE-marked packet of the window scheme: `cw ← cw − β`
//!   in PAWA, entering the sub-packet regime at `max(result, γ)`, and `cw ← max(γ, η·cw)` below
//!   one packet (draft §3.2: "window is decreased by beta upon *every* CNP"; decision: "floor γ,
//!   sub-packet rule as above");
//! - retransmission timeout: `cw ← max(γ, η·cw)` as in the window scheme.
//!
//! Decisions: every data packet is ECT(0) (the draft's commercial-NIC variant has no first-RTT
//! Not-ECT stage); the initial window is IW (rate = line rate at the base RTT, like DCQCN's
//! start at line rate) with `fast_start`, else 1 packet.

use crate::config::{LdcpConfig, RateRtt};
use crate::ldcp::{transition, FastStartExit, Rules, Stage};
use rdma_cc_core::{wire, Bytes, ConfigError, Rate, Time};
use rdma_cc_transport::{Controller, RttSource, SenderConfig};

/// LDCP rate-based controller (see the module documentation).
#[derive(Debug, Clone)]
pub struct LdcpRate {
    rules: Rules,
    stage: Stage,
    mtu: u64,
    line_rate: Rate,
    /// The path's base RTT when the rate divides by it ([`RateRtt::Base`]), else `None`.
    base_rtt: Option<Time>,
}

impl LdcpRate {
    /// The controller with constants `cfg` on the path `sender` describes (both validated
    /// here).
    pub fn new(sender: &SenderConfig, cfg: &LdcpConfig) -> Result<LdcpRate, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        let rules = Rules::new(cfg);
        let cw0 = if cfg.fast_start {
            cfg.iw_packets(sender)
        } else {
            1.0
        };
        Ok(LdcpRate {
            rules,
            stage: rules.stable(cw0),
            mtu: sender.mtu.0,
            line_rate: sender.path.line_rate,
            base_rtt: (cfg.rate_rtt == RateRtt::Base).then_some(sender.path.base_rtt),
        })
    }

    /// Current stage (always a stable one).
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// Moves to `next` ([`transition`]; there is no fast start to leave).
    fn enter(&mut self, next: Stage) {
        transition(&mut self.stage, next, FastStartExit::None);
    }

    /// Pacing rate for a smoothed RTT `srtt`: `min(line rate, cw·frame·8/srtt)` bit/s with
    /// `frame` a full packet's wire size, at least 1 bit/s.
    pub fn rate_for(&self, srtt: Time) -> Rate {
        // draft §3.2: the window turned into a rate, R = cw·MTU / RTT (cw packets per RTT)
        let frame = wire::data_on_wire(Bytes(self.mtu)).0;
        let bits_per_s = self.stage.cw() * (frame * 8) as f64 * 1e9 / srtt.0.max(1) as f64;
        let r = if bits_per_s.is_finite() {
            (bits_per_s as u64).max(1)
        } else {
            u64::MAX
        };
        Rate(r.min(self.line_rate.0))
    }
}

impl Controller for LdcpRate {
    fn cw(&self) -> Option<f64> {
        // the window the rate is made of (no window limits the bytes in flight)
        Some(self.stage.cw())
    }

    fn pacing_rate(&self, srtt: Time) -> Option<Rate> {
        // draft §3.2: "Divided by RTT, the window is converted to rate" (decision: which RTT,
        // LdcpConfig::rate_rtt)
        Some(self.rate_for(self.base_rtt.unwrap_or(srtt)))
    }

    fn rtt_source(&self) -> RttSource {
        // standard RoCE ACKs are coalesced; the variant measures RTT with its probes only
        RttSource::Probes
    }

    fn on_rto(&mut self, _now: Time, _acked_packets: u64) {
        self.enter(self.rules.on_congestion(self.stage));
    }

    fn on_cnp(&mut self, _now: Time) {
        // one CNP = one marked packet: PAWA cw −= β, sub-packet cw = max(γ, η·cw)
        self.enter(self.rules.on_ack(self.stage, 1, true));
    }

    fn on_probe_response(&mut self, _now: Time) {
        // draft §3.2: one RTT elapsed → cw += alpha
        self.enter(self.rules.on_rtt_elapsed(self.stage));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctl(fast_start: bool) -> LdcpRate {
        let cfg = LdcpConfig {
            fast_start,
            ..LdcpConfig::DRAFT
        };
        LdcpRate::new(&SenderConfig::default(), &cfg).unwrap()
    }

    #[test]
    fn starts_at_line_rate_with_fast_start_else_one_packet_per_rtt() {
        // IW = 100 packets → 100 · 1000 B · 8 / 8 µs = 100 Gb/s
        assert_eq!(ctl(true).rate_for(Time::us(8)), Rate::gbps(100));
        // 1 packet per 8 µs: 1082 B on the wire (1000 B payload + 62 B headers + 20 B
        // preamble and gap) per 8 µs = 1.082 Gb/s
        assert_eq!(ctl(false).rate_for(Time::us(8)), Rate(1_082_000_000));
    }

    #[test]
    fn probe_response_adds_alpha_and_cnp_subtracts_beta() {
        let mut c = ctl(false);
        c.on_probe_response(Time::us(8));
        assert_eq!(c.cw(), Some(2.0));
        c.on_cnp(Time::us(9));
        assert_eq!(c.cw(), Some(1.5));
        c.on_cnp(Time::us(9));
        c.on_cnp(Time::us(9));
        // 1.5 − 0.5 = 1.0 − 0.5 = 0.5 (sub-packet)
        assert_eq!(c.stage(), Stage::SubPacket { cw: 0.5 });
        c.on_cnp(Time::us(9));
        assert_eq!(c.stage(), Stage::SubPacket { cw: 0.25 });
        c.on_cnp(Time::us(9));
        c.on_cnp(Time::us(9));
        assert_eq!(c.stage(), Stage::SubPacket { cw: 0.125 });
    }

    /// A `log` logger keeping each thread's messages (tests run in parallel threads).
    struct Capture;

    thread_local! {
        static LOGGED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    impl log::Log for Capture {
        fn enabled(&self, _: &log::Metadata) -> bool {
            true
        }
        fn log(&self, r: &log::Record) {
            LOGGED.with(|l| l.borrow_mut().push(r.args().to_string()));
        }
        fn flush(&self) {}
    }

    static CAPTURE: Capture = Capture;

    #[test]
    fn sub_packet_regime_changes_are_logged_as_in_the_window_scheme() {
        // the only logger of this test binary
        let _ = log::set_logger(&CAPTURE);
        log::set_max_level(log::LevelFilter::Debug);
        let mut c = ctl(false);
        c.on_probe_response(Time::us(8));
        for _ in 0..3 {
            c.on_cnp(Time::us(9));
        }
        assert_eq!(c.stage(), Stage::SubPacket { cw: 0.5 });
        while !matches!(c.stage(), Stage::Pawa { .. }) {
            c.on_probe_response(Time::us(10));
        }
        let logged = LOGGED.with(|l| l.take());
        assert_eq!(logged.len(), 2, "{logged:?}");
        assert_eq!(logged[0], "enters the sub-packet regime: cw 1 -> 0.5");
        assert!(logged[1].starts_with("leaves the sub-packet regime: cw 0."));
    }

    #[test]
    fn rate_is_capped_at_line_rate() {
        let c = ctl(true);
        assert_eq!(c.rate_for(Time(1)), Rate::gbps(100));
    }
}
