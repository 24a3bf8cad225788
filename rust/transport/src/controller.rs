//! The congestion-controller role of a queue pair, and the scheme dispatcher.
//!
//! A [`Controller`] (quinn-proto's `congestion::Controller` shape: small, no-op defaults) sees
//! the events the transport has already interpreted — packets newly acknowledged, loss signals,
//! CNPs, RTT probe responses, timeouts — and answers with a window, a pacing rate and the ECN
//! codepoint of each packet. The transport ([`crate::QpSender`]) keeps sequence numbers, the
//! smoothed RTT, go-back-N, the retransmission timer and the probe schedule, so a controller is
//! only the algorithm.

use crate::config::{Scheme, SenderConfig};
use crate::ldcp::{FastStartExit, Ldcp, Stage};
use crate::rate::LdcpRate;
use crate::sender::TxPacket;
use crate::Ecn;
use rdma_cc_core::{ConfigError, Rate, Time};

/// An ACK as the controller sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckEvent {
    /// Arrival time.
    pub now: Time,
    /// Packets newly acknowledged: `⌈newly acknowledged bytes / MTU⌉` (0 for a duplicate ACK).
    pub newly_acked: u64,
    /// ECN-Echo: the packets this ACK covers were CE-marked.
    pub ece: bool,
    /// Lowest unacknowledged byte after this ACK.
    pub snd_una: u64,
    /// Packets cumulatively acknowledged after this ACK, `⌈snd_una / MTU⌉`.
    pub acked_packets: u64,
}

/// A NACK (loss signal) as the controller sees it; duplicates the transport ignores never
/// arrive here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NackEvent {
    /// Arrival time.
    pub now: Time,
    /// The byte the receiver expects; go-back-N resends from here.
    pub expected_seq: u64,
    /// ECN-Echo: the out-of-order packet that triggered the NACK was CE-marked.
    pub ece: bool,
    /// Packets cumulatively acknowledged before the loss, `⌈expected_seq / MTU⌉`.
    pub acked_packets: u64,
}

/// A sender-side congestion controller. Every method has a no-op default.
pub trait Controller {
    /// Congestion window in packets, for traces; `f64::INFINITY` when there is none.
    fn cw(&self) -> f64;

    /// Window that limits bytes in flight, in packets of `mtu` bytes; `None`: no window.
    /// `Some(w)` with `w ≥ 1`: in-flight + next packet ≤ w·MTU. `w < 1`: one packet in flight,
    /// the next no sooner than `srtt/w` after the previous (LDCP's sub-packet regime).
    fn window(&self) -> Option<f64> {
        None
    }

    /// Pacing rate given the smoothed RTT: the next packet leaves no sooner than
    /// `previous length / rate` after the previous one. `None`: unpaced.
    fn pacing_rate(&self, _srtt: Time) -> Option<Rate> {
        None
    }

    /// ECN codepoint of the data packet `[seq, seq + len)` about to be sent.
    fn ecn(&self, _seq: u64, _len: u32) -> Ecn {
        Ecn::Ect0
    }

    /// Whether the transport should run RTT probes for this controller (one outstanding,
    /// the next sent when the previous response returns or times out).
    fn uses_probes(&self) -> bool {
        false
    }

    /// Whether ACKs give RTT samples (Karn's rule applied by the transport); otherwise only
    /// probe responses do.
    fn rtt_from_acks(&self) -> bool {
        true
    }

    /// A data packet went on the wire.
    fn on_sent(&mut self, _now: Time, _pkt: &TxPacket) {}

    /// An ACK arrived (also a duplicate one, with `newly_acked = 0`).
    fn on_ack(&mut self, _ack: &AckEvent) {}

    /// A NACK arrived (not a duplicate the transport filtered out).
    fn on_nack(&mut self, _nack: &NackEvent) {}

    /// The retransmission timer expired with data in flight; `acked_packets` = `⌈snd_una/MTU⌉`.
    fn on_timeout(&mut self, _now: Time, _acked_packets: u64) {}

    /// A congestion notification packet arrived.
    fn on_cnp(&mut self, _now: Time) {}

    /// The response to the outstanding RTT probe arrived (one RTT has elapsed).
    fn on_probe_response(&mut self, _now: Time) {}

    /// How the flow left fast start, if the controller has one.
    fn fast_start_exit(&self) -> FastStartExit {
        FastStartExit::None
    }

    /// The LDCP stage, for controllers that have one.
    fn stage(&self) -> Option<Stage> {
        None
    }
}

/// No congestion control: no window, no pacing, every packet ECT(0) (decision: ECN-capable so
/// switches mark rather than WRED-drop them, and marks are visible in traces). Go-back-N and the
/// retransmission timer still work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineRate;

impl Controller for LineRate {
    fn cw(&self) -> f64 {
        f64::INFINITY
    }
}

/// The controller chosen by [`SenderConfig::scheme`]: the default controller of
/// [`crate::QpSender`].
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
    /// Builds the controller `cfg.scheme` names for a `flow_size`-byte message.
    pub fn new(cfg: &SenderConfig, flow_size: u64) -> Result<SchemeController, ConfigError> {
        Ok(match cfg.scheme {
            Scheme::Ldcp => SchemeController::Ldcp(Ldcp::new(cfg, flow_size)?),
            Scheme::LdcpRate => SchemeController::LdcpRate(LdcpRate::new(cfg)?),
            Scheme::None => {
                cfg.validate()?;
                SchemeController::LineRate(LineRate)
            }
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
    fn fast_start_exit(&self) -> FastStartExit {
        dispatch!(self, c => c.fast_start_exit())
    }
    fn stage(&self) -> Option<Stage> {
        dispatch!(self, c => Controller::stage(c))
    }
}
