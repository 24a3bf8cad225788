//! Run-time choice of a queue pair's congestion-control scheme.
//!
//! The ns-3 NIC picks a scheme per flow from an attribute (fabric.md "Host NIC": chosen per
//! flow), so something has to map a name to a controller and dispatch to it without dynamic
//! allocation per packet: [`Scheme`] (the names `ldcp`, `ldcp-rate`, `none`), [`FlowConfig`]
//! (one flow's transport, LDCP and scheme parameters) and [`SchemeController`] (an enum that
//! implements the transport's [`Controller`] by delegating to the chosen one).
//!
//! Why a crate of its own: the algorithm crates depend only on `rdma-cc-transport` and never on
//! each other, so the one place that knows every scheme has to sit above all of them. Putting it
//! in `rdma-cc-ldcp` would make the next scheme (a DCQCN crate) depend on LDCP; putting it in
//! the bridge (`src/`) would mix logic into the crate that is meant to hold nothing but the
//! `#[cxx::bridge]` (architecture.md: "src/ (root crate) the cxx bridge: plain-data structs +
//! opaque handles, nothing else") and would keep Rust-only users — benches, cross-scheme
//! comparisons in plain Rust — away from it behind cxx. A new scheme joins by adding a variant
//! to [`Scheme`] and [`SchemeController`], its parameters to [`FlowConfig`], and a dependency
//! here.
//!
//! Nothing here reads a clock or allocates per packet; construction validates every parameter,
//! after which no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use rdma_cc_core::{ConfigError, Ecn, Rate, Time};
use rdma_cc_ldcp::{FastStartExit, Ldcp, LdcpConfig, LdcpRate, Stage};
use rdma_cc_transport::{
    AckEvent, Controller, LineRate, NackEvent, QpSender, ReceiverConfig, SenderConfig, TxPacket,
};
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
    /// Every scheme, for option help texts; a scheme's index here is its code on the bridge.
    pub const ALL: [Scheme; 3] = [Scheme::Ldcp, Scheme::LdcpRate, Scheme::None];

    /// The name used in options and output files: `ldcp`, `ldcp-rate`, `none`.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Ldcp => "ldcp",
            Scheme::LdcpRate => "ldcp-rate",
            Scheme::None => "none",
        }
    }

    /// The default receiver for this scheme: CNPs on for [`Scheme::LdcpRate`] (ldcp.md
    /// "Rate-based variant": a CNP per CE-marked packet), off otherwise.
    pub fn receiver_config(self) -> ReceiverConfig {
        ReceiverConfig {
            send_cnp: self == Scheme::LdcpRate,
            ..ReceiverConfig::default()
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

/// Everything that configures one flow's sending side: the scheme, the transport (path and
/// timers) and the constants of every scheme (each controller reads its own).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FlowConfig {
    /// Congestion-control scheme (default [`Scheme::Ldcp`]).
    pub scheme: Scheme,
    /// Transport parameters (default: 1000 B payloads at 100 Gb/s, 8 µs base RTT; see
    /// [`SenderConfig`]).
    pub sender: SenderConfig,
    /// LDCP constants, used by [`Scheme::Ldcp`] and [`Scheme::LdcpRate`] (defaults from
    /// `spec/ldcp.md` "Parameters"; see [`LdcpConfig`]).
    pub ldcp: LdcpConfig,
}

impl FlowConfig {
    /// Checks every field, whatever the scheme (a bad option fails for every scheme alike);
    /// the error names the first bad one: the transport's first, then LDCP's.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.sender.validate()?;
        self.ldcp.validate_for(&self.sender)
    }

    /// Validates and builds the sender of a `flow_size`-byte message starting at `now`, with
    /// the controller [`Self::scheme`] names.
    pub fn build(
        &self,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<SchemeController>, ConfigError> {
        let cc = SchemeController::new(self, flow_size)?;
        QpSender::new(&self.sender, cc, flow_size, now)
    }
}

/// The controller chosen by [`FlowConfig::scheme`]; implements [`Controller`] by delegating
/// (a `match` per call: no allocation, no dynamic dispatch).
#[derive(Debug, Clone)]
pub enum SchemeController {
    /// [`Scheme::Ldcp`].
    Ldcp(Ldcp),
    /// [`Scheme::LdcpRate`].
    LdcpRate(LdcpRate),
    /// [`Scheme::None`].
    LineRate(LineRate),
}

impl SchemeController {
    /// Validates the whole of `cfg` and builds the controller `cfg.scheme` names for a
    /// `flow_size`-byte message.
    pub fn new(cfg: &FlowConfig, flow_size: u64) -> Result<SchemeController, ConfigError> {
        cfg.validate()?;
        Ok(match cfg.scheme {
            Scheme::Ldcp => SchemeController::Ldcp(Ldcp::new(&cfg.sender, &cfg.ldcp, flow_size)?),
            Scheme::LdcpRate => SchemeController::LdcpRate(LdcpRate::new(&cfg.sender, &cfg.ldcp)?),
            Scheme::None => SchemeController::LineRate(LineRate),
        })
    }

    /// The scheme of this controller.
    pub fn scheme(&self) -> Scheme {
        match self {
            SchemeController::Ldcp(_) => Scheme::Ldcp,
            SchemeController::LdcpRate(_) => Scheme::LdcpRate,
            SchemeController::LineRate(_) => Scheme::None,
        }
    }

    /// How the flow left fast start: window LDCP's [`Ldcp::fast_start_exit`];
    /// [`FastStartExit::None`] for schemes without fast start.
    pub fn fast_start_exit(&self) -> FastStartExit {
        match self {
            SchemeController::Ldcp(c) => c.fast_start_exit(),
            SchemeController::LdcpRate(_) | SchemeController::LineRate(_) => FastStartExit::None,
        }
    }

    /// The LDCP stage, for the LDCP schemes.
    pub fn stage(&self) -> Option<Stage> {
        match self {
            SchemeController::Ldcp(c) => Some(c.stage()),
            SchemeController::LdcpRate(c) => Some(c.stage()),
            SchemeController::LineRate(_) => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            SchemeController::Ldcp($c) => $e,
            SchemeController::LdcpRate($c) => $e,
            SchemeController::LineRate($c) => $e,
        }
    };
}

impl Controller for SchemeController {
    fn cw(&self) -> f64 {
        dispatch!(self, c => c.cw())
    }
    fn window(&self) -> Option<f64> {
        dispatch!(self, c => c.window())
    }
    fn pacing_rate(&self, srtt: Time) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate(srtt))
    }
    fn ecn(&self, seq: u64, len: u32) -> Ecn {
        dispatch!(self, c => c.ecn(seq, len))
    }
    fn uses_probes(&self) -> bool {
        dispatch!(self, c => c.uses_probes())
    }
    fn rtt_from_acks(&self) -> bool {
        dispatch!(self, c => c.rtt_from_acks())
    }
    fn on_sent(&mut self, now: Time, pkt: &TxPacket) {
        dispatch!(self, c => c.on_sent(now, pkt))
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        dispatch!(self, c => c.on_ack(ack))
    }
    fn on_nack(&mut self, nack: &NackEvent) {
        dispatch!(self, c => c.on_nack(nack))
    }
    fn on_timeout(&mut self, now: Time, acked_packets: u64) {
        dispatch!(self, c => c.on_timeout(now, acked_packets))
    }
    fn on_cnp(&mut self, now: Time) {
        dispatch!(self, c => c.on_cnp(now))
    }
    fn on_probe_response(&mut self, now: Time) {
        dispatch!(self, c => c.on_probe_response(now))
    }
    fn in_fast_start(&self) -> bool {
        dispatch!(self, c => c.in_fast_start())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_transport::Poll;

    fn flow(scheme: Scheme) -> FlowConfig {
        FlowConfig {
            scheme,
            ..FlowConfig::default()
        }
    }

    #[test]
    fn scheme_names_round_trip() {
        for s in Scheme::ALL {
            assert_eq!(s.name().parse::<Scheme>().unwrap(), s);
            assert_eq!(s.to_string(), s.name());
        }
        assert_eq!("dcqcn".parse::<Scheme>().unwrap_err().field, "scheme");
        assert!(Scheme::LdcpRate.receiver_config().send_cnp);
        assert!(!Scheme::Ldcp.receiver_config().send_cnp);
        assert!(!Scheme::None.receiver_config().send_cnp);
    }

    #[test]
    fn each_scheme_builds_its_controller() {
        for s in Scheme::ALL {
            let q = flow(s).build(10_000, Time::ZERO).unwrap();
            assert_eq!(q.controller().scheme(), s);
        }
        let ldcp = flow(Scheme::Ldcp).build(10_000, Time::ZERO).unwrap();
        // fast start with IW = BDP (100 packets): the whole 10-packet message at once
        assert!(ldcp.controller().in_fast_start());
        assert_eq!(ldcp.cw(), 100.0);
        assert!(ldcp.controller().stage().is_some_and(|s| !s.is_stable()));
        let mut rate = flow(Scheme::LdcpRate).build(10_000, Time::ZERO).unwrap();
        assert_eq!(rate.poll(Time::ZERO), Poll::SendProbe { probe_id: 0 });
        assert_eq!(rate.rate(), Some(Rate::gbps(100)));
        let none = flow(Scheme::None).build(10_000, Time::ZERO).unwrap();
        assert_eq!(none.cw(), f64::INFINITY);
        assert_eq!(none.controller().stage(), None);
        assert_eq!(none.controller().fast_start_exit(), FastStartExit::None);
    }

    #[test]
    fn every_scheme_validates_the_whole_config() {
        for s in Scheme::ALL {
            let mut c = flow(s);
            c.ldcp.alpha = 0.0;
            assert_eq!(c.build(1, Time::ZERO).unwrap_err().field, "alpha");
            let mut c = flow(s);
            c.sender.mtu = rdma_cc_core::Bytes(0);
            assert_eq!(c.build(1, Time::ZERO).unwrap_err().field, "mtu");
            assert_eq!(flow(s).build(0, Time::ZERO).unwrap_err().field, "flow_size");
        }
    }

    #[test]
    fn dispatch_reaches_the_ldcp_controller() {
        let mut c = flow(Scheme::Ldcp);
        c.ldcp.iw = Some(2.0);
        let mut q = c.build(10_000, Time::ZERO).unwrap();
        for _ in 0..2 {
            assert!(matches!(q.poll(Time::ZERO), Poll::Send(_)));
        }
        // loss before any ACK: fast start ends with cw = γ
        q.on_nack(Time::us(8), 0, false);
        assert_eq!(q.controller().fast_start_exit(), FastStartExit::Loss);
        assert_eq!(q.cw(), 0.125);
        assert!(!q.controller().in_fast_start());
    }
}
