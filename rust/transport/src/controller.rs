//! The congestion-controller role of a queue pair, and the controller without congestion
//! control ([`LineRate`]).
//!
//! A [`Controller`] (quinn-proto's `congestion::Controller` shape: small, no-op defaults) sees
//! the events the transport has already interpreted — packets newly acknowledged (with the INT
//! hop records an ACK may echo), loss signals, CNPs, RTT probe responses, retransmission
//! timeouts and its own timers — and answers with a window, a pacing rate and the ECN
//! codepoint of each packet. The transport ([`crate::QpSender`]) keeps sequence numbers, the
//! smoothed RTT, go-back-N, the retransmission timer and the probe schedule, so a controller is
//! only the algorithm. Controllers live in their own crates (LDCP in `rdma-cc-ldcp`); the
//! transport knows them only through this trait.

use crate::sender::TxPacket;
use crate::Ecn;
use rdma_cc_core::{IntRecords, Rate, Time};

/// An ACK as the controller sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckEvent {
    /// Arrival time.
    pub now: Time,
    /// RTT sample carried by the ACK: `now −` the send timestamp it echoes (that of the data
    /// packet that triggered it; hardware timestamps, no receiver delay), `None` when the host
    /// gave none ([`crate::QpSender::on_ack`]). Unlike the transport's smoothed RTT it is
    /// exact for retransmissions and however many packets are in flight.
    pub rtt: Option<Time>,
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

/// Where a controller's RTT samples come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RttSource {
    /// ACKs of unambiguously timed packets (Karn's rule applied by the transport), and NACKs as
    /// lower bounds.
    #[default]
    Acks,
    /// Only RTT probes: the transport keeps one probe outstanding (the next sent when the
    /// response returns or times out) and reports each response to
    /// [`Controller::on_probe_response`].
    Probes,
}

/// A sender-side congestion controller. Every method has a neutral default, so a scheme
/// implements only what it uses: a window scheme `window` and the feedback it reacts to, a
/// rate scheme `pacing_rate`, a scheme with timers of its own (DCQCN's rate-increase timer and
/// pending cut) `next_timeout` / `on_timeout`. The retransmission timeout is the transport's; the
/// controller only hears about it through [`Controller::on_rto`].
pub trait Controller {
    /// Window that limits bytes in flight, in packets of `mtu` bytes; `None`: no window.
    /// `Some(w)` with `w ≥ 1`: in-flight + next packet ≤ w·MTU. `w < 1`: one packet in flight,
    /// the next no sooner than `srtt/w` after the previous (LDCP's sub-packet regime).
    fn window(&self) -> Option<f64> {
        None
    }

    /// The congestion window to report in traces and statistics, packets; `None` when the
    /// scheme keeps none. Defaults to [`Self::window`].
    fn cw(&self) -> Option<f64> {
        self.window()
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

    /// Where RTT samples come from (default: ACKs).
    fn rtt_source(&self) -> RttSource {
        RttSource::Acks
    }

    /// Whether the controller is sending an initial burst it sized without any feedback (e.g.
    /// LDCP's zero-RTT fast start). Before the first RTT sample the transport then arms the
    /// RTO at its ceiling, `floor·2^rto_backoff`: the first feedback may wait behind the first
    /// packets of every flow that started together (see [`crate::sender`]). Default: false.
    fn in_fast_start(&self) -> bool {
        false
    }

    /// A data packet went on the wire.
    fn on_sent(&mut self, _now: Time, _pkt: &TxPacket) {}

    /// An ACK arrived (also a duplicate one, with `newly_acked = 0`).
    fn on_ack(&mut self, _ack: &AckEvent) {}

    /// An ACK arrived echoing `int`, the INT hop records the switches wrote into the data
    /// packet that triggered it ([`crate::QpSender::on_ack_int`]; HPCC, Li et al. SIGCOMM
    /// 2019 §3). Default: the records are ignored and this is [`Self::on_ack`].
    fn on_ack_int(&mut self, ack: &AckEvent, _int: &IntRecords) {
        self.on_ack(ack);
    }

    /// A NACK arrived (not a duplicate the transport filtered out).
    fn on_nack(&mut self, _nack: &NackEvent) {}

    /// The transport's retransmission timer expired with data in flight; `acked_packets` =
    /// `⌈snd_una/MTU⌉`.
    fn on_rto(&mut self, _now: Time, _acked_packets: u64) {}

    /// A congestion notification packet arrived.
    fn on_cnp(&mut self, _now: Time) {}

    /// The response to the outstanding RTT probe arrived (one RTT has elapsed).
    fn on_probe_response(&mut self, _now: Time) {}

    /// The earliest time the controller wants [`Self::on_timeout`] for a timer of its own;
    /// `None` when it has none armed. Re-read after every call into the controller.
    fn next_timeout(&self) -> Option<Time> {
        None
    }

    /// Called at (or after) the time [`Self::next_timeout`] gave: handle every timer that has
    /// expired by `now`; harmless when called early.
    fn on_timeout(&mut self, _now: Time) {}
}

/// The sequence numbers a window or rate controller follows from its own events (DCTCP, HPCC
/// and TIMELY keep these): `snd_nxt`, the end of the last data packet sent, and `snd_una`, the
/// highest cumulative ACK seen. A retransmission after a go-back lowers `snd_nxt` to the end of
/// the packet resent; an ACK beyond it raises `snd_nxt` to the ACK again (the transport resumes
/// from the ACK if it passed the resend point).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SeqTrack {
    /// End of the last data packet sent.
    pub snd_nxt: u64,
    /// Highest cumulative ACK seen.
    pub snd_una: u64,
}

impl SeqTrack {
    /// A data packet went on the wire ([`Controller::on_sent`]).
    pub fn on_sent(&mut self, pkt: &TxPacket) {
        self.snd_nxt = pkt.seq.saturating_add(u64::from(pkt.len));
    }

    /// An ACK arrived ([`Controller::on_ack`]): returns the bytes it acknowledges beyond the
    /// highest ACK seen before (0 for a duplicate or an older one).
    pub fn on_ack(&mut self, ack: &AckEvent) -> u64 {
        let newly = ack.snd_una.saturating_sub(self.snd_una);
        self.snd_una = self.snd_una.max(ack.snd_una);
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        newly
    }
}

/// No congestion control: no window, no pacing, every packet ECT(0) (decision: ECN-capable so
/// switches mark rather than WRED-drop them, and marks are visible in traces). Go-back-N and the
/// retransmission timer still work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineRate;

impl Controller for LineRate {}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(t: &mut SeqTrack, seq: u64, len: u32) {
        t.on_sent(&TxPacket {
            seq,
            len,
            ecn: Ecn::Ect0,
            retransmission: false,
            last: false,
            ack_req: false,
        });
    }

    fn acked(t: &mut SeqTrack, snd_una: u64) -> u64 {
        t.on_ack(&AckEvent {
            now: Time::ZERO,
            rtt: None,
            newly_acked: 0,
            ece: false,
            snd_una,
            acked_packets: 0,
        })
    }

    #[test]
    fn seq_track_follows_sends_and_acks_and_resumes_past_a_resend_point() {
        let mut t = SeqTrack::default();
        sent(&mut t, 0, 1000);
        sent(&mut t, 1000, 1000);
        assert_eq!((t.snd_nxt, t.snd_una), (2000, 0));
        assert_eq!(acked(&mut t, 1000), 1000);
        // a duplicate and an older ACK acknowledge nothing new
        assert_eq!(acked(&mut t, 1000), 0);
        assert_eq!(acked(&mut t, 500), 0);
        assert_eq!(t.snd_una, 1000);
        // go-back: resending from 1000 lowers snd_nxt; an ACK beyond it raises it again
        sent(&mut t, 1000, 1000);
        sent(&mut t, 2000, 1000);
        sent(&mut t, 1000, 1000);
        assert_eq!(t.snd_nxt, 2000);
        assert_eq!(acked(&mut t, 3000), 2000);
        assert_eq!((t.snd_nxt, t.snd_una), (3000, 3000));
    }
}
