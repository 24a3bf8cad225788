//! LDCP's rate-based variant for NICs without per-packet ACK (draft-dai-tsvwg-ldcp-01 §3.2,
//! decisions listed below).
//!
//! The same window `cw` (same [`Rules`], same stages) is turned into a pacing rate
//! `R = cw·MTU / srtt`, capped at the line rate: `cw` full packets per smoothed RTT. The
//! transport paces by wire size, so `MTU` here is a full packet's wire size (payload, headers,
//! preamble and gap). Congestion control does not use ACKs:
//! - each RTT-probe response: the increase the window scheme gives the `n` data packets sent
//!   since the previous response, as unmarked ACKs: `cw ← cw + n·α/cw`, or `+ n·γ` below one
//!   packet (decision; draft §3.2: "Upon the arrival of an RTT response, it is for sure that
//!   one RTT has elapsed and the window should increase by alpha" — `n·α/cw = α` when the `n`
//!   packets are one window, and the transport spaces probes by packets, see
//!   `SenderConfig::probe_packets`); the probe also gives the RTT sample;
//! - each CNP: treated exactly like one ECE-marked packet of the window scheme: `cw ← cw − β`
//!   in PAWA, entering the sub-packet regime at `max(result, γ)`, and `cw ← max(γ, η·cw)` below
//!   one packet (draft §3.2: "window is decreased by beta upon *every* CNP"; decision: "floor γ,
//!   sub-packet rule as above");
//! - retransmission timeout: `cw ← max(γ, η·cw)` as in the window scheme.
//!
//! Start (decisions; the draft's commercial-NIC variant says nothing of its first RTT): with
//! `fast_start` the window starts at IW (rate = line rate at the base RTT, like DCQCN's start at
//! line rate), else at 1 packet. With `rate_not_ect_start` (and `fast_start`) the first-RTT
//! packets are Not-ECT but the IW-th (or the message's last), as in the window scheme's zero-RTT
//! fast start (draft §2.3, §3.1): the switch's WRED threshold `K_fs` then drops a start that
//! overloads the port instead of letting it fill the buffer, and a loss before the IW packets
//! are acknowledged sets `cw` to the packets acknowledged before it (floor as
//! [`crate::LdcpConfig::fs_loss_floor`]). Otherwise every data packet is ECT(0).

use crate::config::{LdcpConfig, RateRtt};
use crate::ldcp::{transition, FastStartExit, Rules, Stage};
use rdma_cc_core::Ecn;
use rdma_cc_core::{wire, Bytes, ConfigError, Rate, Time};
use rdma_cc_transport::{AckEvent, NackEvent, TxPacket};
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
    /// No feedback has arrived yet and first-RTT packets are Not-ECT.
    first_rtt: bool,
    /// The IW packets are not all acknowledged yet (Not-ECT start only): a loss now sets `cw`
    /// to the packets acknowledged before it.
    fs_pending: bool,
    /// End (exclusive byte offset) of the last fast-start packet: the ECT one.
    fs_end: u64,
    exit: FastStartExit,
    /// Data packets sent since the previous probe response.
    sent_since_response: u64,
}

impl LdcpRate {
    /// The controller with constants `cfg` on the path `sender` describes (both validated
    /// here).
    pub fn new(
        sender: &SenderConfig,
        cfg: &LdcpConfig,
        flow_size: u64,
    ) -> Result<LdcpRate, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        ConfigError::check(flow_size >= 1, "flow_size", flow_size, "must be >= 1 byte")?;
        let rules = Rules::new(cfg);
        let iw = cfg.iw_packets(sender);
        let cw0 = if cfg.fast_start { iw } else { 1.0 };
        let not_ect_start = cfg.fast_start && cfg.rate_not_ect_start;
        let fs_packets = ((iw + 1e-9).floor() as u64).max(1);
        Ok(LdcpRate {
            first_rtt: not_ect_start,
            fs_pending: not_ect_start,
            fs_end: fs_packets.saturating_mul(sender.mtu.0).min(flow_size),
            exit: FastStartExit::None,
            sent_since_response: 0,
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

    /// How (and whether) the flow left its Not-ECT start.
    pub fn fast_start_exit(&self) -> FastStartExit {
        self.exit
    }

    /// Moves to `next` ([`transition`]).
    fn enter(&mut self, next: Stage) {
        transition(&mut self.stage, next, self.exit);
    }

    /// A loss during the Not-ECT start: `cw ←` packets acknowledged before it, at least
    /// [`Rules::fs_loss_floor`] (as the window scheme, draft §3.1 condition 1).
    fn exit_on_loss(&mut self, acked_packets: u64) {
        self.first_rtt = false;
        self.fs_pending = false;
        self.exit = FastStartExit::Loss;
        self.enter(
            self.rules
                .stable((acked_packets as f64).max(self.rules.fs_loss_floor)),
        );
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

    fn ecn(&self, seq: u64, len: u32) -> Ecn {
        // the Not-ECT start: every first-RTT packet but the IW-th (or the message's last)
        if self.first_rtt && seq.saturating_add(u64::from(len)) != self.fs_end {
            Ecn::NotEct
        } else {
            Ecn::Ect0
        }
    }

    fn in_fast_start(&self) -> bool {
        self.first_rtt
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        self.first_rtt = false;
        if self.fs_pending && ack.snd_una >= self.fs_end {
            self.fs_pending = false;
            self.exit = FastStartExit::AllAcked;
        }
    }

    fn on_nack(&mut self, nack: &NackEvent) {
        if self.fs_pending {
            self.exit_on_loss(nack.acked_packets);
        }
    }

    fn on_rto(&mut self, _now: Time, acked_packets: u64) {
        if self.fs_pending {
            self.exit_on_loss(acked_packets);
            return;
        }
        self.enter(self.rules.on_congestion(self.stage));
    }

    fn on_cnp(&mut self, _now: Time) {
        self.first_rtt = false;
        // one CNP = one marked packet: PAWA cw −= β, sub-packet cw = max(γ, η·cw)
        self.enter(self.rules.on_ack(self.stage, 1, true));
    }

    fn on_sent(&mut self, _now: Time, _pkt: &TxPacket) {
        self.sent_since_response = self.sent_since_response.saturating_add(1);
    }

    fn on_probe_response(&mut self, _now: Time) {
        self.first_rtt = false;
        // draft §3.2: "Upon the arrival of an RTT response ... the window should increase by
        // alpha", one RTT's worth of unmarked packets; decision: the increase of the packets
        // sent since the previous response, each as an unmarked ACK of the window scheme
        // (eq. 1 per packet: cw += α/cw, or γ below one packet) — about α when they are one
        // window, as with one probe per RTT; marked packets came back as CNPs.
        let n = std::mem::take(&mut self.sent_since_response);
        self.enter(self.rules.on_unmarked_packets(self.stage, n));
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
        LdcpRate::new(&SenderConfig::default(), &cfg, 1_000_000).unwrap()
    }

    #[test]
    fn not_ect_start_marks_first_rtt_packets_like_fast_start_and_a_loss_sets_cw_to_the_acked() {
        let cfg = LdcpConfig {
            rate_not_ect_start: true,
            iw: Some(4.0),
            ..LdcpConfig::DRAFT
        };
        let mut c = LdcpRate::new(&SenderConfig::default(), &cfg, 1_000_000).unwrap();
        // draft §3.1: first-RTT packets Not-ECT but the IW-th
        assert_eq!(c.ecn(0, 1000), Ecn::NotEct);
        assert_eq!(c.ecn(2000, 1000), Ecn::NotEct);
        assert_eq!(c.ecn(3000, 1000), Ecn::Ect0);
        assert!(c.in_fast_start());
        // the first ACK ends the first RTT: every later packet is ECT
        c.on_ack(&AckEvent {
            now: Time::us(8),
            newly_acked: 1,
            ece: false,
            snd_una: 1000,
            acked_packets: 1,
            rtt: None,
        });
        assert_eq!(c.ecn(5000, 1000), Ecn::Ect0);
        assert!(!c.in_fast_start());
        // a loss before the IW packets are acknowledged: cw = 1 acknowledged packet
        c.on_nack(&NackEvent {
            now: Time::us(9),
            expected_seq: 1000,
            ece: false,
            acked_packets: 1,
        });
        assert_eq!(c.stage(), Stage::Pawa { cw: 1.0 });
        assert_eq!(c.fast_start_exit(), FastStartExit::Loss);
        // later NACKs do not change cw
        c.on_nack(&NackEvent {
            now: Time::us(20),
            expected_seq: 5000,
            ece: false,
            acked_packets: 5,
        });
        assert_eq!(c.stage(), Stage::Pawa { cw: 1.0 });
        // without the option every packet is ECT
        let c = ctl(true);
        assert_eq!(c.ecn(0, 1000), Ecn::Ect0);
    }

    #[test]
    fn starts_at_line_rate_with_fast_start_else_one_packet_per_rtt() {
        // IW = 100 packets → 100 · 1000 B · 8 / 8 µs = 100 Gb/s
        assert_eq!(ctl(true).rate_for(Time::us(8)), Rate::gbps(100));
        // 1 packet per 8 µs: 1082 B on the wire (1000 B payload + 62 B headers + 20 B
        // preamble and gap) per 8 µs = 1.082 Gb/s
        assert_eq!(ctl(false).rate_for(Time::us(8)), Rate(1_082_000_000));
    }

    /// `n` data packets go on the wire.
    fn send(c: &mut LdcpRate, n: u64) {
        for i in 0..n {
            let pkt = TxPacket {
                seq: i * 1000,
                len: 1000,
                ecn: Ecn::Ect0,
                retransmission: false,
                last: false,
                ack_req: false,
            };
            c.on_sent(Time::ZERO, &pkt);
        }
    }

    #[test]
    fn probe_response_adds_the_window_rule_of_the_packets_sent_since() {
        // one packet at cw = 1: + alpha (draft §3.2)
        let mut c = ctl(false);
        send(&mut c, 1);
        c.on_probe_response(Time::us(8));
        assert_eq!(c.cw(), Some(2.0));
        // two at cw = 2: 2 + 1/2 + 1/2.5 = 2.9
        send(&mut c, 2);
        c.on_probe_response(Time::us(16));
        assert!((c.cw().unwrap() - 2.9).abs() < 1e-12, "{:?}", c.cw());
        let mut c = ctl(false);
        send(&mut c, 1);
        c.on_probe_response(Time::us(8));
        send(&mut c, 2);
        c.on_probe_response(Time::us(16));
        let c29 = c.cw().unwrap();
        assert!((c29 - 2.9).abs() < 1e-12);
        c.enter(Stage::Pawa { cw: 3.0 });
        // packets one by one (eq. 1 per ACK): 3 + 1/3 + 1/(3 + 1/3) = 3.6333...
        send(&mut c, 2);
        c.on_probe_response(Time::us(24));
        let want = 3.0 + 1.0 / 3.0 + 1.0 / (3.0 + 1.0 / 3.0);
        assert!((c.cw().unwrap() - want).abs() < 1e-12, "{:?}", c.cw());
        // none sent: unchanged
        c.on_probe_response(Time::us(32));
        assert!((c.cw().unwrap() - want).abs() < 1e-12);
    }

    #[test]
    fn probe_response_adds_alpha_and_cnp_subtracts_beta() {
        let mut c = ctl(false);
        send(&mut c, 1);
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
        send(&mut c, 1);
        c.on_probe_response(Time::us(8));
        for _ in 0..3 {
            c.on_cnp(Time::us(9));
        }
        assert_eq!(c.stage(), Stage::SubPacket { cw: 0.5 });
        while !matches!(c.stage(), Stage::Pawa { .. }) {
            send(&mut c, 1);
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
