//! Configuration of the queue-pair sender and receiver (transport parameters only).
//!
//! Plain structs with serde derives (scenarios read them from files; missing fields take their
//! defaults), `Default` taken from `spec/ldcp.md` (the transport rules it fixes: "Roles",
//! "Receiver ACK policy", "Loss recovery") and the `ldcp-incast` topology, and `validate()`
//! naming the first bad field the way it is spelled here (`"mtu"`, `"rtt_gain"`, ...).
//! Congestion-control parameters live with their controller (e.g. `rdma-cc-ldcp`'s
//! `LdcpConfig`).

use crate::receiver::QpReceiver;
use crate::sender::QpSender;
use crate::Controller;
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};

/// Configuration of a queue pair's sending side: the path and the transport's timers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SenderConfig {
    /// Payload bytes per full packet (default 1000). The last packet of a message may be shorter.
    pub mtu: Bytes,
    /// Line rate of the host link, bit/s (default 100 Gb/s). The transport itself does not
    /// pace by it; controllers use it (LDCP: the BDP that is the default IW, and the cap of the
    /// rate-based variant's pacing rate).
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
    /// ceiling, 64 × floor), and while the controller is in fast start
    /// ([`Controller::in_fast_start`], e.g. LDCP's zero-RTT fast start) before any RTT sample
    /// the RTO is that ceiling: the first-RTT queue of a large incast is much deeper than the
    /// floor.
    pub rto_backoff: u32,
    /// A NACK for the same sequence as the previous one within this time is ignored;
    /// `None` → the current smoothed RTT (ldcp.md decision: "within one RTT"); `Some(0)` turns
    /// the filter off.
    pub dup_nack_holdoff: Option<Time>,
    /// EWMA gain of the smoothed RTT over per-ACK (or per-probe) samples (ldcp.md decision:
    /// 1/8, RFC 6298's α). Requires `0 < rtt_gain ≤ 1`.
    pub rtt_gain: f64,
}

impl Default for SenderConfig {
    /// 1000 B payloads at 100 Gb/s, an 8 µs base RTT, RTO floor 4 × base RTT with up to six
    /// doublings, NACK hold-off one RTT, RTT gain 1/8 (ldcp.md "Parameters" and decisions).
    fn default() -> Self {
        SenderConfig {
            mtu: Bytes(1000),
            line_rate: Rate::gbps(100),
            base_rtt: Time::us(8),
            rto: None,
            rto_backoff: 6,
            dup_nack_holdoff: None,
            rtt_gain: 0.125,
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
        ConfigError::check(
            self.rtt_gain.is_finite() && self.rtt_gain > 0.0 && self.rtt_gain <= 1.0,
            "rtt_gain",
            self.rtt_gain,
            "must be in (0, 1]",
        )
    }

    /// The RTO floor in effect: [`Self::rto`] or 4 × [`Self::base_rtt`].
    pub fn effective_rto(&self) -> Time {
        self.rto.unwrap_or(Time(self.base_rtt.0.saturating_mul(4)))
    }

    /// Validates and builds the sender of a `flow_size`-byte message starting at `now` with
    /// controller `cc` (same as [`QpSender::new`]).
    pub fn build<C: Controller>(
        &self,
        cc: C,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<C>, ConfigError> {
        QpSender::new(self, cc, flow_size, now)
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
    fn defaults_are_valid_and_the_rto_floor_is_four_base_rtts() {
        let c = SenderConfig::default();
        c.validate().unwrap();
        assert_eq!(c.effective_rto(), Time::us(32));
        ReceiverConfig::default().validate().unwrap();
    }

    #[test]
    fn every_bad_field_is_named() {
        let check = |f: &dyn Fn(&mut SenderConfig), field: &str| {
            let mut c = SenderConfig::default();
            f(&mut c);
            assert_eq!(c.validate().unwrap_err().field, field);
        };
        check(&|c| c.rtt_gain = 0.0, "rtt_gain");
        check(&|c| c.rtt_gain = 1.5, "rtt_gain");
        check(&|c| c.rtt_gain = f64::NAN, "rtt_gain");
        check(&|c| c.mtu = Bytes(0), "mtu");
        check(&|c| c.mtu = Bytes(1 << 32), "mtu");
        check(&|c| c.line_rate = Rate(0), "line_rate");
        check(&|c| c.base_rtt = Time::ZERO, "base_rtt");
        check(&|c| c.rto = Some(Time::ZERO), "rto");
        check(&|c| c.rto_backoff = 33, "rto_backoff");
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
}
