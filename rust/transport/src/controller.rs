//! The congestion-controller role of a queue pair, and the controller without congestion
//! control ([`LineRate`]).
//!
//! A [`Controller`] (quinn-proto's `congestion::Controller` shape: small, no-op defaults) sees
//! the events the transport has already interpreted — packets newly acknowledged, loss signals,
//! CNPs, RTT probe responses, timeouts — and answers with a window, a pacing rate and the ECN
//! codepoint of each packet. The transport ([`crate::QpSender`]) keeps sequence numbers, the
//! smoothed RTT, go-back-N, the retransmission timer and the probe schedule, so a controller is
//! only the algorithm. Controllers live in their own crates (LDCP in `rdma-cc-ldcp`); the
//! transport knows them only through this trait.

use crate::sender::TxPacket;
use crate::Ecn;
use rdma_cc_core::{Rate, Time};

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

    /// Whether the controller is in a fast start: sending an initial window it sized without
    /// any feedback (LDCP's zero-RTT fast start). Before the first RTT sample the transport then
    /// arms the RTO at its ceiling, `floor·2^rto_backoff`: the first feedback may wait behind
    /// the first-RTT packets of every flow that started together (see [`crate::sender`]).
    fn in_fast_start(&self) -> bool {
        false
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
