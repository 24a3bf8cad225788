//! Configuration of the queue-pair sender and receiver.
//!
//! Plain structs with serde derives (scenarios read them from files; missing fields take their
//! defaults), `Default` taken from the LDCP draft and `spec/ldcp.md`, and `validate()` naming the
//! first bad field the way it is spelled here (`"alpha"`, `"mtu"`, ...).

use crate::receiver::QpReceiver;
use crate::sender::QpSender;
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Congestion-control scheme of a queue pair (fabric.md "Host NIC": chosen per flow).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// LDCP window control with per-ACK window adjustment and zero-RTT fast start (draft §2).
    #[default]
    Ldcp,
    /// LDCP's rate-based variant for NICs without per-packet ACK (draft §3.2): pacing at
    /// `cw·MTU/RTT`, `+α` per RTT-probe response, `−β` per CNP.
    LdcpRate,
    /// No congestion control: line rate back to back (relies on PFC, or loses).
    None,
}

impl Scheme {
    /// Every scheme, for option help texts.
    pub const ALL: [Scheme; 3] = [Scheme::Ldcp, Scheme::LdcpRate, Scheme::None];

    /// The name used in options and output files: `ldcp`, `ldcp-rate`, `none`.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Ldcp => "ldcp",
            Scheme::LdcpRate => "ldcp-rate",
            Scheme::None => "none",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = ConfigError;

    /// Parses a scheme name (as [`Scheme::name`] spells it); the error names the field `scheme`.
    fn from_str(s: &str) -> Result<Scheme, ConfigError> {
        Scheme::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| ConfigError::new("scheme", s, "must be one of ldcp, ldcp-rate, none"))
    }
}

/// LDCP constants (draft-dai-tsvwg-ldcp-01 §2.2–2.3; defaults from `spec/ldcp.md`
/// "Parameters").
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LdcpConfig {
    /// Additive-increase step per RTT, in packets: `cw += α/cw` per unmarked ACK (draft eq. 1).
    /// Requires `0 < α ≤ 1`. Default 1.
    pub alpha: f64,
    /// Decrease per marked ACK, in packets: `cw −= β` (draft eq. 1). Requires `0 < β ≤ 1`.
    /// Default 1/2.
    pub beta: f64,
    /// Sub-packet increase step and window floor `γ` (draft §2.2: "typical values of gamma
    /// include 1/4, 1/8, 1/16"). Requires `0 < γ ≤ 1`. Default 1/8.
    pub gamma: f64,
    /// Multiplicative decrease below one packet: `cw = max(γ, η·cw)` (draft §2.2: "We choose
    /// eta = 1/2"). Requires `0 < η < 1`. Default 1/2.
    pub eta: f64,
    /// Initial window in packets (may be fractional). `None`: the path's BDP,
    /// `line_rate × base_rtt / mtu` (draft §2.3 "e.g., BDP"). Default `None`.
    pub iw: Option<f64>,
    /// Zero-RTT fast start (draft §2.3). When off, a flow starts in the stable stage with
    /// `cw = 1` and ECT packets (decision, see [`crate::ldcp`]). Default on.
    pub fast_start: bool,
    /// EWMA gain of the smoothed RTT over per-ACK (or per-probe) samples (ldcp.md decision:
    /// 1/8). Requires `0 < rtt_gain ≤ 1`.
    pub rtt_gain: f64,
    /// Let `cw` fall below one packet (draft §2.2, the sub-packet regime). When off, every
    /// decrease stops at one packet instead of `γ`: the DCTCP-style floor the draft compares
    /// against. Default on.
    pub sub_packet: bool,
}

impl Default for LdcpConfig {
    /// α = 1, β = 1/2, γ = 1/8, η = 1/2, IW = BDP, fast start on, RTT gain 1/8, sub-packet
    /// regime on (ldcp.md "Parameters").
    fn default() -> Self {
        LdcpConfig {
            alpha: 1.0,
            beta: 0.5,
            gamma: 0.125,
            eta: 0.5,
            iw: None,
            fast_start: true,
            rtt_gain: 0.125,
            sub_packet: true,
        }
    }
}

impl LdcpConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let in_0_1 = |x: f64| x.is_finite() && x > 0.0 && x <= 1.0;
        ConfigError::check(in_0_1(self.alpha), "alpha", self.alpha, "must be in (0, 1]")?;
        ConfigError::check(in_0_1(self.beta), "beta", self.beta, "must be in (0, 1]")?;
        ConfigError::check(in_0_1(self.gamma), "gamma", self.gamma, "must be in (0, 1]")?;
        ConfigError::check(
            self.eta.is_finite() && self.eta > 0.0 && self.eta < 1.0,
            "eta",
            self.eta,
            "must be in (0, 1)",
        )?;
        if let Some(iw) = self.iw {
            ConfigError::check(
                iw.is_finite() && iw > 0.0,
                "iw",
                iw,
                "must be a finite number of packets > 0",
            )?;
        }
        ConfigError::check(
            in_0_1(self.rtt_gain),
            "rtt_gain",
            self.rtt_gain,
            "must be in (0, 1]",
        )
    }
}

/// Configuration of a queue pair's sending side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SenderConfig {
    /// Congestion-control scheme.
    pub scheme: Scheme,
    /// Payload bytes per full packet (default 1000). The last packet of a message may be shorter.
    pub mtu: Bytes,
    /// Line rate of the host link, bit/s (default 100 Gb/s): sets the BDP that is the default IW
    /// and caps [`Scheme::LdcpRate`]'s pacing rate.
    pub line_rate: Rate,
    /// Base (unloaded) round-trip time (default 8 µs: two 2 µs hops each way, the
    /// `ldcp-incast` topology). Initial smoothed RTT and the BDP's time.
    pub base_rtt: Time,
    /// Floor of the retransmission timeout (RFC 6298 §2.4's lower bound); `None` → 4 ×
    /// `base_rtt` (ldcp.md decision). The RTO is `max(floor, srtt + 4·rttvar)` once the RTT
    /// has been sampled, the floor before (see [`crate::sender`] for backoff and fast start).
    pub rto: Option<Time>,
    /// Most doublings of the RTO after consecutive timeouts (Karn's backoff); 0 keeps the RTO
    /// fixed. The backoff resets when an ACK newly acknowledges a packet that was never
    /// retransmitted. Default 6. Backoff never takes the RTO past `floor·2^rto_backoff` (the
    /// ceiling, 64 × floor), and in LDCP fast start before any RTT sample the RTO is that
    /// ceiling: the first-RTT queue of a large incast is much deeper than the floor.
    pub rto_backoff: u32,
    /// A NACK for the same sequence as the previous one within this time is ignored;
    /// `None` → the current smoothed RTT (ldcp.md decision: "within one RTT"); `Some(0)` turns
    /// the filter off.
    pub dup_nack_holdoff: Option<Time>,
    /// LDCP constants (used by [`Scheme::Ldcp`] and [`Scheme::LdcpRate`]; `rtt_gain` by all).
    pub ldcp: LdcpConfig,
}

impl Default for SenderConfig {
    /// LDCP with 1000 B payloads at 100 Gb/s and an 8 µs base RTT (IW = BDP = 100 packets).
    fn default() -> Self {
        SenderConfig {
            scheme: Scheme::Ldcp,
            mtu: Bytes(1000),
            line_rate: Rate::gbps(100),
            base_rtt: Time::us(8),
            rto: None,
            rto_backoff: 6,
            dup_nack_holdoff: None,
            ldcp: LdcpConfig::default(),
        }
    }
}

impl SenderConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check(
            self.mtu.0 > 0 && self.mtu.0 <= u64::from(u32::MAX),
            "mtu",
            self.mtu,
            "must be in 1 ..= 4294967295 bytes",
        )?;
        ConfigError::check(
            self.line_rate.0 > 0,
            "line_rate",
            self.line_rate,
            "must be > 0",
        )?;
        ConfigError::check(
            self.base_rtt.0 > 0,
            "base_rtt",
            self.base_rtt,
            "must be > 0",
        )?;
        if let Some(rto) = self.rto {
            ConfigError::check(rto.0 > 0, "rto", rto, "must be > 0")?;
        }
        ConfigError::check(
            self.rto_backoff <= 32,
            "rto_backoff",
            self.rto_backoff,
            "must be <= 32 doublings",
        )?;
        self.ldcp.validate()?;
        let iw = self.iw_packets();
        ConfigError::check(
            iw.is_finite() && iw > 0.0,
            "iw",
            iw,
            "the BDP (line_rate × base_rtt) is below one byte; set iw explicitly",
        )
    }

    /// The RTO floor in effect: [`Self::rto`] or 4 × [`Self::base_rtt`].
    pub fn effective_rto(&self) -> Time {
        self.rto.unwrap_or(Time(self.base_rtt.0.saturating_mul(4)))
    }

    /// The initial window in effect, in packets: [`LdcpConfig::iw`] or the BDP
    /// `line_rate × base_rtt / mtu`.
    pub fn iw_packets(&self) -> f64 {
        match self.ldcp.iw {
            Some(iw) => iw,
            None => self.line_rate.bytes_in(self.base_rtt).0 as f64 / self.mtu.0.max(1) as f64,
        }
    }

    /// Validates and builds the sender of a `flow_size`-byte message starting at `now`
    /// (same as [`QpSender::new`]).
    pub fn build(&self, flow_size: u64, now: Time) -> Result<QpSender, ConfigError> {
        QpSender::new(self, flow_size, now)
    }
}

/// Configuration of a queue pair's receiving side (ACK, NACK and CNP policy).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReceiverConfig {
    /// Delayed ACK: one ACK per at most `m` unmarked in-order packets (draft §2.2; ldcp.md
    /// default 1 = per-packet ACK). Requires `m ≥ 1`.
    pub ack_every: u32,
    /// Minimum time between two CNPs of this flow; 0 = one CNP per CE-marked packet (ldcp.md
    /// decision; DCQCN's NP uses 50 µs).
    pub cnp_interval: Time,
    /// Send CNPs for CE-marked packets (LDCP-rate and DCQCN: on; window LDCP echoes ECE in ACKs).
    pub send_cnp: bool,
    /// Payload bytes per full packet. The policy does not depend on it (a packet counts once
    /// whatever its length); it is validated so that sender and receiver configs agree.
    pub mtu: Bytes,
    /// Delayed ACK only: when a CE-marked packet arrives while unmarked packets wait for their
    /// ACK, first flush an ACK (ECE = 0) for them, so that every ACK covers packets of one CE
    /// state and the sender's `n` is exact (ldcp.md decision; default on). Off: one ACK with
    /// ECE = 1 covers them all.
    pub split_ack_on_ce_change: bool,
    /// After a NACK, further out-of-order packets are not NACKed again until the expected
    /// sequence advances (ldcp.md decision). `Some(t)`: also NACK again once `t` has passed since
    /// the last NACK. Default `None`.
    pub renack_interval: Option<Time>,
}

impl Default for ReceiverConfig {
    /// Per-packet ACK, no CNPs, 1000 B payloads: the window-LDCP receiver of ldcp.md.
    fn default() -> Self {
        ReceiverConfig {
            ack_every: 1,
            cnp_interval: Time::ZERO,
            send_cnp: false,
            mtu: Bytes(1000),
            split_ack_on_ce_change: true,
            renack_interval: None,
        }
    }
}

impl ReceiverConfig {
    /// The default receiver for `scheme`: CNPs on for [`Scheme::LdcpRate`] (ldcp.md
    /// "Rate-based variant": a CNP per CE-marked packet), off otherwise.
    pub fn for_scheme(scheme: Scheme) -> ReceiverConfig {
        ReceiverConfig {
            send_cnp: scheme == Scheme::LdcpRate,
            ..ReceiverConfig::default()
        }
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check(
            self.ack_every >= 1,
            "ack_every",
            self.ack_every,
            "must be >= 1",
        )?;
        ConfigError::check(self.mtu.0 > 0, "mtu", self.mtu, "must be > 0")
    }

    /// Validates and builds the receiver of a `flow_size`-byte message (same as
    /// [`QpReceiver::new`]).
    pub fn build(&self, flow_size: u64) -> Result<QpReceiver, ConfigError> {
        QpReceiver::new(self, flow_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_iw_is_the_bdp() {
        let c = SenderConfig::default();
        c.validate().unwrap();
        // 100 Gb/s × 8 µs = 100 KB = 100 packets of 1000 B
        assert_eq!(c.iw_packets(), 100.0);
        assert_eq!(c.effective_rto(), Time::us(32));
        ReceiverConfig::default().validate().unwrap();
    }

    #[test]
    fn alpha_out_of_range_is_named_alpha() {
        for bad in [0.0, -1.0, 1.5, f64::NAN] {
            let mut c = SenderConfig::default();
            c.ldcp.alpha = bad;
            assert_eq!(c.validate().unwrap_err().field, "alpha");
        }
    }

    #[test]
    fn gamma_above_one_is_named_gamma() {
        let mut c = SenderConfig::default();
        c.ldcp.gamma = 1.5;
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "gamma");
        assert_eq!(e.value, "1.5");
        c.ldcp.gamma = 0.0;
        assert_eq!(c.validate().unwrap_err().field, "gamma");
    }

    #[test]
    fn every_bad_field_is_named() {
        let check = |f: &dyn Fn(&mut SenderConfig), field: &str| {
            let mut c = SenderConfig::default();
            f(&mut c);
            assert_eq!(c.validate().unwrap_err().field, field);
        };
        check(&|c| c.ldcp.beta = 0.0, "beta");
        check(&|c| c.ldcp.beta = 1.01, "beta");
        check(&|c| c.ldcp.eta = 1.0, "eta");
        check(&|c| c.ldcp.eta = 0.0, "eta");
        check(&|c| c.ldcp.iw = Some(0.0), "iw");
        check(&|c| c.ldcp.iw = Some(f64::INFINITY), "iw");
        check(&|c| c.ldcp.rtt_gain = 0.0, "rtt_gain");
        check(&|c| c.mtu = Bytes(0), "mtu");
        check(&|c| c.mtu = Bytes(1 << 32), "mtu");
        check(&|c| c.line_rate = Rate(0), "line_rate");
        check(&|c| c.base_rtt = Time::ZERO, "base_rtt");
        check(&|c| c.rto = Some(Time::ZERO), "rto");
        check(&|c| c.rto_backoff = 33, "rto_backoff");
        // a BDP below one byte cannot be the initial window
        check(
            &|c| {
                c.line_rate = Rate(1);
                c.base_rtt = Time(1)
            },
            "iw",
        );
    }

    #[test]
    fn receiver_validation_names_fields() {
        let mut c = ReceiverConfig {
            ack_every: 0,
            ..ReceiverConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "ack_every");
        c.ack_every = 2;
        c.mtu = Bytes(0);
        assert_eq!(c.validate().unwrap_err().field, "mtu");
    }

    #[test]
    fn scheme_names_round_trip() {
        for s in Scheme::ALL {
            assert_eq!(s.name().parse::<Scheme>().unwrap(), s);
        }
        assert_eq!("dcqcn".parse::<Scheme>().unwrap_err().field, "scheme");
        assert!(ReceiverConfig::for_scheme(Scheme::LdcpRate).send_cnp);
        assert!(!ReceiverConfig::for_scheme(Scheme::Ldcp).send_cnp);
    }
}
