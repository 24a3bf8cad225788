//! The sending side of a queue pair: sequence numbers, window / pacing gates, go-back-N,
//! retransmission timer, RTT estimation and RTT probes, around a [`Controller`].
//!
//! # Contract with the NIC
//! - Call [`QpSender::poll`] when the QP's turn comes on an idle link and after every event.
//!   [`Poll::Send`] means "put this data packet on the wire now" (it is recorded as sent at
//!   `now`); [`Poll::SendProbe`] means "send an RTT probe now" — poll again right away for data.
//!   [`Poll::WaitUntil`] `t`: poll again at `t`; [`Poll::Blocked`]: poll again after the next
//!   ACK / NACK / CNP / probe response / timer; [`Poll::Done`]: the message is acknowledged.
//! - Keep one timer per QP at [`QpSender::next_timer`] (re-read it after every call) and call
//!   [`QpSender::on_timer`] when it fires, then poll. `on_timer` handles whatever has expired
//!   and is harmless when called early or late; afterwards `next_timer` is in the future.
//! - Set the packet's ECN field to [`TxPacket::ecn`] and the BTH AckReq bit to
//!   [`TxPacket::ack_req`], and hand the receiver that bit through
//!   [`crate::QpReceiver::on_data_req`] (needed only with delayed ACK).
//!
//! # Rules (LDCP draft §2–§3, RFC 6298, and the decisions marked below)
//! - Window (controller gives `w = window()`): `w ≥ 1`: in-flight + next packet ≤ `w·MTU`;
//!   `w < 1`: at most one packet in flight and the next no sooner than `srtt/w` after the
//!   previous send (draft §2.2: "A flow with a cw < 1 is ticked out by a timer, whose timeout is
//!   set as RTT/cw"). In-flight = `snd_nxt − snd_una`. Decision: after a NACK the tick counts
//!   from the later of the previous send and the NACK's arrival. A flow that leaves fast start
//!   on loss last sent at the start of its burst, so `last send + srtt/γ` is the same instant
//!   for every flow of an incast: a thousand flows would resend together, a wave of N packets
//!   on top of the first-RTT queue. The NACKs themselves come back spread out at the rate the
//!   bottleneck drains the first-RTT queue, so counting from them spreads the resends the same
//!   way. (A timeout does not move the tick: it already fires at least one tick after the
//!   last send.)
//! - Pacing (controller gives a rate `R`): the next packet no sooner than
//!   `previous packet's wire size / R` after the previous send (`R` re-read at each poll),
//!   rounded down to the nanosecond. The wire size counts headers, preamble and gap
//!   ([`rdma_cc_core::wire::data_on_wire`]): a NIC's rate limiter shapes the frames it puts on
//!   the link (DCQCN §3.1: "rate limiting is on a per-packet granularity"), so a flow paced at
//!   `R` occupies `R` of the link, and one paced at the line rate keeps it busy.
//! - Smoothed RTT and RTT variation after RFC 6298 §2 (see `rtt.rs`): `srtt` is `base_rtt`
//!   until the first sample, which sets `srtt ← R`, `rttvar ← R/2` (decision, replacing
//!   an EWMA started at the configured base RTT); then
//!   `rttvar ← 3/4·rttvar + 1/4·|srtt − R|` and `srtt ← srtt + rtt_gain·(R − srtt)` (1/8).
//!   Starting the EWMA at the base RTT made the first sample after a deep first-RTT queue move
//!   srtt only 1/8 of the way, so the sub-packet tick and the RTO lagged the real RTT by many
//!   samples — and a flow below one packet takes one sample per `1/cw` RTTs.
//!   Sample = now − send time of the packet ending at the ACKed byte — see `rtt.rs` for the
//!   bounded send-time log. Karn's rule: no sample when the send time is ambiguous, i.e. the
//!   packet was resent after a *timeout* (an earlier copy may still be in flight: bytes below
//!   `snd_nxt` at the last RTO). Decision: packets resent after a *NACK* are timed, because
//!   the fabric keeps a flow's packets in order (per-flow ECMP) and the go-back-N receiver
//!   discards every earlier copy at or above the NACKed sequence — they all arrive before the
//!   retransmission. For the same reason a NACK that arrives when nothing has been sent since
//!   the last timeout clears the ambiguity at and above its sequence (the copies the timeout
//!   made ambiguous were all sent before the NACK's trigger and are dead). And an ambiguous ACK
//!   still bounds the RTT from below (`now −` the latest copy's send time is at most the RTT
//!   of whichever copy arrived), so it updates srtt when it exceeds it, never to lower it.
//!   Without these, a flow whose fast-start burst was WRED-dropped (or timed out behind a deep
//!   incast queue) sends nothing but retransmissions, never samples the RTT, and its
//!   sub-packet timer `srtt/cw` stays at the base RTT however deep the queue.
//!   Decision: a NACK bounds the RTT the same way. The packet that triggered it left no later
//!   than the latest send, so `now −` the latest send time is at most its RTT; it updates the
//!   estimator when it exceeds srtt (as an ambiguous ACK does). The bound is exact when the
//!   trigger is the last packet sent — the ECT packet that ends a fast-start burst (the
//!   Not-ECT ones after a gap are the ones WRED drops) or the one packet in flight below
//!   `cw = 1`. A flow that leaves fast start on a NACK thus learns the first-RTT queueing
//!   delay before its first retransmission, and its tick `srtt/γ` reflects it.
//!   Only an ACK at or below the end of the previous packet sent is timed by the log: sends
//!   are in sequence order between go-backs, so no packet below the one ending at such an
//!   ACK's sequence left after its latest copy, and the ACK answers a copy of it (or a packet
//!   sent before that copy). An ACK above it covers bytes sent before a go-back and not
//!   since, below which a resend has left: the receiver may hold them already (their own ACK
//!   lost or late) and re-acknowledge them, with the cumulative sequence, for a duplicate of
//!   that resend. The log's send time for them predates the resend: `now −` it included the
//!   whole timeout (under ACK loss a few of these per timeout grew srtt, and the RTO
//!   `srtt + 4·rttvar` with it, from microseconds to tens of milliseconds, while resetting
//!   the backoff). Such an ACK is ambiguous (Karn): no sample, the backoff stays, and like a
//!   NACK it only bounds the RTT by the latest send. (A late ACK after a timeout, before
//!   anything is resent, is still timed: nothing below it left since.)
//! - Go-back-N on NACK: `snd_nxt ← expected_seq`. A NACK for the same sequence as the previous
//!   one within `dup_nack_holdoff` (default: srtt) is ignored, as is a NACK below `snd_una`.
//!   With `nack_as_ack` every NACK (ignored ones too) then reaches the controller as an ACK of
//!   its sequence, with its echo and INT records (the HPCC simulator's `ReceiveAck`,
//!   `rdma-hw.cc:393,416-434`).
//! - RTT probes (controllers that ask for them): one outstanding; the next is due when the
//!   response returns or after `max(rto, 2·srtt)` without one (decision), and goes once
//!   `probe_packets` data packets were sent since the previous probe (the first once that many
//!   were sent since the start; default 0: at once); a late response to one of the last four
//!   probes that timed out still gives an RTT sample (probe ids are unique).
//! - A probe that times out bounds the RTT from below by its age (decision): until the next
//!   response, pacing divides by at least that age and the next probe's timeout is at least
//!   twice it (capped at the RTO ceiling), so consecutive timeouts halve the rate and the
//!   probe rate each time. Probes travel in the data queue, ECT, and are tail-dropped with the
//!   data when the buffer overflows: without the bound a flow whose probes are all lost keeps
//!   pacing by an srtt that never saw the queue (the base RTT at worst), and times a new probe
//!   out every `max(rto, 2·srtt)`. A 1000-flow incast at 25 Gb/s stayed so overloaded that
//!   its buffer never drained: 1000 flows at `γ` packets per base RTT are 17 × the link, and
//!   their probes alone, one per ~33 µs each, took most of it (0.6 Gb/s of goodput, 187 ms
//!   for 16 MB).
//! - Pacing divides the window by the smoothed RTT or, while a probe is outstanding for longer
//!   than that, by the probe's age (a lower bound on the current RTT; decision: a queue
//!   building behind a rate-paced flow slows it before the probe that measures it returns),
//!   and by at least the age of the last probe that timed out, until a response returns.
//! - Retransmission timer: armed while data is in flight, `now + RTO` at the first send into
//!   an empty pipe and at every ACK that advances `snd_una`; disarmed when nothing is in flight
//!   (including right after a go-back). RTO (decision, RFC 6298 with a floor of a few base
//!   RTTs on lossy paths): with `floor` = [`SenderConfig::effective_rto`] (default 4 ×
//!   `base_rtt`; on a lossless path the base RTT plus the path's worst queueing, at least 1 ms),
//!   `ceiling = floor·2^rto_backoff` and `base = max(floor, srtt + 4·rttvar)` once the RTT has
//!   been sampled, else `floor`: `RTO = min(base·2^b, max(base, ceiling))` — a fixed
//!   4 × base RTT timeout fires spuriously whenever the queue holds more than three base RTTs
//!   (a 1000-flow incast queues ~100 µs behind a 4.2 µs RTT), and each spurious go-back adds
//!   copies to that queue. Backoff never takes the RTO past the ceiling (the estimate itself
//!   may be larger): `rttvar`-scaled RTOs doubled six times would idle a lossy line-rate flow
//!   for tens of milliseconds. While the controller is in fast start
//!   ([`Controller::in_fast_start`]: LDCP's zero-RTT fast start), or on a lossless path, before
//!   any RTT sample the RTO is the ceiling outright (decision): LDCP's last fast-start packet
//!   is ECT, so WRED cannot
//!   drop it
//!   and it produces an ACK or NACK unless the buffer overflows, but that feedback may wait
//!   behind the first-RTT packets of every flow that started together — far longer than
//!   4 × base RTT — and a timeout there would resend in lock-step with all of them.
//!   Decision: the timeout is at least the send interval of
//!   one packet — the sub-packet tick `srtt/w`, or one MTU at the pacing rate: a
//!   retransmission could not leave earlier anyway, and a shorter timeout only turns ACKs
//!   delayed by a deep queue into spurious retransmissions whose ambiguous ACKs then hide the
//!   very RTT growth that slows the sender down. On expiry: go back to `snd_una`, tell the
//!   controller (congestion: LDCP `cw ← max(γ, η·cw)`), and back off
//!   `b ← min(b + 1, rto_backoff)`. `b` returns to 0 when an ACK newly acknowledges a packet
//!   with an unambiguous send time, no packet below it sent since (Karn's algorithm: ambiguous
//!   ACKs do not end the backoff).
//! - ACK / NACK sequence numbers above the highest byte sent are clamped to it.

use crate::config::SenderConfig;
use crate::controller::{AckEvent, Controller, NackEvent, RttSource};
use crate::rtt::{RttEstimator, SendLog, Sent};
use crate::Ecn;
use rdma_cc_core::{wire, Bytes, ConfigError, IntRecords, Rate, Time};

/// The pacing gap after a packet of `len` payload bytes at `rate`: its wire size (with `extra`
/// bytes more per frame: INT, [`wire::INT_ON_WIRE`], on a path whose switches write it) at
/// `rate`, rounded down (see the module documentation).
#[inline]
fn pace_gap(rate: Rate, len: u32, extra: u64) -> Time {
    rate.tx_time_floor(Bytes(wire::data_on_wire(Bytes(len.into())).0 + extra))
}

/// A data packet to put on the wire.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TxPacket {
    /// Byte offset of the first payload byte within the message.
    pub seq: u64,
    /// Payload bytes (≤ MTU).
    pub len: u32,
    /// IP ECN codepoint to send with.
    pub ecn: Ecn,
    /// Some byte of this packet was sent before (go-back-N or timeout).
    pub retransmission: bool,
    /// Carries the message's final byte.
    pub last: bool,
    /// Ask the receiver to acknowledge at once (RoCE BTH AckReq): set when the sender cannot
    /// send again until feedback arrives (window full, one packet in flight below `cw = 1`, or
    /// nothing left to send), so a delayed-ACK receiver does not stall it.
    pub ack_req: bool,
}

/// The ECN codepoint of an RTT probe ([`Poll::SendProbe`]): ECT(0). A probe travels in the
/// data queue with the data and must see what ECN-capable data sees (marked, never dropped
/// early as Not-ECT first-RTT packets are), so its RTT sample measures the queue the data
/// meets.
pub const PROBE_ECN: Ecn = Ecn::Ect0;

/// The UDP source port of every packet of flow `flow` (its ECMP entropy: switches hash it
/// with the addresses and ports to choose among equal-cost next hops), in `10000..60000`:
/// `10000 + flow mod 50000`, so consecutive flows between two hosts take different hashes
/// and the port never collides with a well-known one.
pub const fn source_port(flow: u32) -> u16 {
    (10_000 + flow % 50_000) as u16
}

/// What the QP wants to do now.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Poll {
    /// Send this data packet now (already recorded as sent).
    Send(TxPacket),
    /// Send an RTT probe with this id now (rate-based LDCP); poll again for data.
    SendProbe {
        /// Identifier to echo in the response ([`QpSender::on_probe_response`]).
        probe_id: u64,
    },
    /// Nothing before this time (pacing or sub-packet timer): poll again then.
    WaitUntil(Time),
    /// Window full or nothing to send: wait for an ACK, NACK, CNP, probe response or timer.
    Blocked,
    /// Every byte is acknowledged.
    Done,
}

/// Counters and state of a sender, for traces and summaries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SenderStats {
    /// Payload bytes put on the wire, retransmissions included.
    pub bytes_sent: u64,
    /// Payload bytes of retransmitted packets.
    pub retx_bytes: u64,
    /// Data packets put on the wire.
    pub packets_sent: u64,
    /// Retransmitted data packets.
    pub retx_packets: u64,
    /// ACKs received (duplicates included).
    pub acks: u64,
    /// ACKs and NACKs received with ECN-Echo.
    pub ece_acks: u64,
    /// NACKs received (ignored ones included).
    pub nacks: u64,
    /// NACKs ignored: duplicates within the hold-off, or below `snd_una`.
    pub nacks_ignored: u64,
    /// Retransmission timeouts with data in flight.
    pub timeouts: u64,
    /// CNPs received.
    pub cnps: u64,
    /// RTT probes sent.
    pub probes_sent: u64,
    /// RTT probes that timed out (no response within the RTO).
    pub probe_timeouts: u64,
    /// Smallest window seen (packets); `INFINITY` without a window.
    pub min_cw: f64,
    /// Data packets sent while `cw < 1`.
    pub sub_packet_sends: u64,
    /// Current smoothed RTT.
    pub srtt: Time,
    /// RTT samples taken (ACKs of unambiguous packets, or probe responses).
    pub rtt_samples: u64,
}

/// One outstanding RTT probe at most (LDCP draft §3.2, rate-based variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// The controller does not probe, or the flow is done.
    Off,
    /// A probe should be sent at the next poll.
    Due,
    /// Waiting for the response to probe `id`, sent at `sent_at`.
    Outstanding { id: u64, sent_at: Time },
}

/// Why the next data packet can or cannot go now.
enum Gate {
    Done,
    Probe,
    Blocked,
    Wait(Time),
    Send(u32),
}

/// Fixed-point steps of the pacing gap under the probe-age bound ([`QpSender::poll`]).
const PACING_STEPS: usize = 8;

/// Timed-out probes whose late responses are still used as RTT samples.
const LATE_PROBES: usize = 4;

/// Window tolerance in bytes, so that `cw = 3.9999999999` still admits four packets.
const WINDOW_SLACK: f64 = 1e-6;

/// Sending side of one queue pair, generic over its congestion controller.
#[derive(Debug, Clone)]
pub struct QpSender<C: Controller> {
    cc: C,
    mtu: u64,
    /// Bytes every data frame carries beyond its headers and payload: INT's
    /// ([`wire::INT_ON_WIRE`]) when the path's switches write it, else 0.
    int_on_wire: u64,
    flow_size: u64,
    /// RTO floor (`cfg.rto`, default 4 × base RTT).
    rto_floor: Time,
    rto_backoff_max: u32,
    /// Current backoff exponent.
    backoff: u32,
    dup_nack_holdoff: Option<Time>,
    nack_as_ack: bool,
    start: Time,
    /// Lowest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send.
    snd_nxt: u64,
    /// One past the highest byte ever sent.
    snd_max: u64,
    /// Highest `snd_nxt` at a timeout: resends below it have ambiguous send times (Karn).
    karn_limit: u64,
    /// A data packet was sent since the last timeout.
    sent_since_rto: bool,
    rtt: RttEstimator,
    /// The controller takes RTT samples from ACKs ([`RttSource::Acks`]), not probes.
    rtt_from_acks: bool,
    /// The flow's priority is lossless (PFC): a timeout can only be spurious.
    lossless: bool,
    /// Time and length of the previous data packet.
    last_send: Option<(Time, u32)>,
    /// End of the previous data packet: the log times ACKs at or below it only (Karn, see the
    /// module documentation).
    last_end: u64,
    /// Arrival of the last NACK that made the sender go back: the sub-packet tick is measured
    /// from it too.
    go_back_at: Option<Time>,
    /// Gate time returned by the last `WaitUntil`, until it expires.
    wait_until: Option<Time>,
    rto_deadline: Option<Time>,
    last_nack: Option<(u64, Time)>,
    probe: Probe,
    /// Id and send time of the last probes that timed out (slot `id mod 4`): their late
    /// responses still give RTT samples.
    late_probes: [(u64, Time); LATE_PROBES],
    next_probe_id: u64,
    /// Age at which the last probe timed out, since the last response (zero when none): a
    /// lower bound on the current RTT (see the module documentation).
    probe_rtt_bound: Time,
    /// The next probe waits until this many data packets have been sent
    /// ([`SenderConfig::probe_packets`] after the previous probe).
    probe_after: u64,
    probe_packets: u64,
    log: SendLog,
    stats: SenderStats,
    done_at: Option<Time>,
}

impl<C: Controller> QpSender<C> {
    /// The sender of a `flow_size`-byte message (≥ 1) starting at `now` with controller `cc`;
    /// `cfg` gives the transport parameters (MTU, base RTT, RTO, NACK hold-off, RTT gain).
    /// Errors name the bad configuration field (or `flow_size`).
    pub fn new(
        cfg: &SenderConfig,
        cc: C,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<C>, ConfigError> {
        cfg.validate()?;
        ConfigError::check(flow_size >= 1, "flow_size", flow_size, "must be >= 1 byte")?;
        let mtu = cfg.mtu.0;
        let rtt_from_acks = cc.rtt_source() == RttSource::Acks;
        let probe = if !rtt_from_acks {
            Probe::Due
        } else {
            Probe::Off
        };
        let min_cw = cc.cw().unwrap_or(f64::INFINITY);
        Ok(QpSender {
            mtu,
            int_on_wire: if cfg.path.int_telemetry {
                wire::INT_ON_WIRE
            } else {
                0
            },
            flow_size,
            rto_floor: cfg.effective_rto(),
            rto_backoff_max: cfg.rto_backoff,
            backoff: 0,
            dup_nack_holdoff: cfg.dup_nack_holdoff,
            nack_as_ack: cfg.nack_as_ack,
            start: now,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            karn_limit: 0,
            sent_since_rto: false,
            rtt: RttEstimator::new(cfg.path.base_rtt, cfg.rtt_gain),
            rtt_from_acks,
            lossless: cfg.path.lossless,
            last_send: None,
            last_end: 0,
            go_back_at: None,
            wait_until: None,
            rto_deadline: None,
            last_nack: None,
            probe,
            late_probes: [(u64::MAX, Time::ZERO); LATE_PROBES],
            next_probe_id: 0,
            probe_rtt_bound: Time::ZERO,
            probe_after: cfg.probe_packets,
            probe_packets: cfg.probe_packets,
            log: SendLog::new(flow_size.div_ceil(mtu), mtu),
            stats: SenderStats {
                bytes_sent: 0,
                retx_bytes: 0,
                packets_sent: 0,
                retx_packets: 0,
                acks: 0,
                ece_acks: 0,
                nacks: 0,
                nacks_ignored: 0,
                timeouts: 0,
                cnps: 0,
                probes_sent: 0,
                probe_timeouts: 0,
                min_cw,
                sub_packet_sends: 0,
                srtt: cfg.path.base_rtt,
                rtt_samples: 0,
            },
            done_at: None,
            cc,
        })
    }

    /// Next action for the NIC at `now` (see the module documentation). A returned data packet
    /// is recorded as sent at `now`.
    pub fn poll(&mut self, now: Time) -> Poll {
        match self.gate(now) {
            Gate::Done => {
                self.wait_until = None;
                Poll::Done
            }
            Gate::Probe => {
                let id = self.next_probe_id;
                self.next_probe_id = self.next_probe_id.wrapping_add(1);
                self.probe = Probe::Outstanding { id, sent_at: now };
                self.stats.probes_sent += 1;
                self.probe_after = self.stats.packets_sent.saturating_add(self.probe_packets);
                Poll::SendProbe { probe_id: id }
            }
            Gate::Blocked => {
                self.wait_until = None;
                Poll::Blocked
            }
            Gate::Wait(t) => {
                self.wait_until = Some(t);
                Poll::WaitUntil(t)
            }
            Gate::Send(len) => {
                self.wait_until = None;
                Poll::Send(self.send(now, len))
            }
        }
    }

    fn gate(&self, now: Time) -> Gate {
        if self.is_done() {
            return Gate::Done;
        }
        if self.probe == Probe::Due && self.stats.packets_sent >= self.probe_after {
            return Gate::Probe;
        }
        if self.snd_nxt >= self.flow_size {
            return Gate::Blocked;
        }
        let len = self.next_len();
        let in_flight = self.snd_nxt - self.snd_una;
        let mut earliest = Time::ZERO;
        if let Some(w) = self.cc.window() {
            if w < 1.0 {
                // draft §2.2: with cw < 1 one packet at a time, "ticked out by a timer, whose
                // timeout is set as RTT/cw"
                if in_flight > 0 {
                    return Gate::Blocked;
                }
                if let Some((t, _)) = self.last_send {
                    // decision: after a go-back the tick counts from the loss signal too
                    let from = self.go_back_at.map_or(t, |g| g.max(t));
                    earliest = from.saturating_add(self.tick(w));
                }
            } else if (in_flight + u64::from(len)) as f64 > w * self.mtu as f64 + WINDOW_SLACK {
                // draft §2.2: in-flight bytes ≤ cw·MTU
                return Gate::Blocked;
            }
        }
        if let Some((t, prev_len)) = self.last_send {
            // draft §3.2 rate variant: R = cw·MTU/RTT paces the flow. With the probe-age bound
            // the RTT grows while the flow waits, so the send time solves
            // `at = t + gap(rate(rtt(at)))`: a few fixed-point steps from the previous send
            // (a function of the previous send alone, so polling again at `at` sends)
            let mut at = t;
            for _ in 0..PACING_STEPS {
                let Some(rate) = self.cc.pacing_rate(self.pacing_rtt(at)) else {
                    break;
                };
                let next = t.saturating_add(pace_gap(rate, prev_len, self.int_on_wire));
                if next == at {
                    break;
                }
                at = next;
            }
            earliest = earliest.max(at);
        }
        if now < earliest {
            Gate::Wait(earliest)
        } else {
            Gate::Send(len)
        }
    }

    /// Payload of the packet starting at `snd_nxt` (`snd_nxt < flow_size`).
    #[inline]
    fn next_len(&self) -> u32 {
        // ≤ mtu ≤ u32::MAX (validated)
        self.mtu.min(self.flow_size - self.snd_nxt) as u32
    }

    fn send(&mut self, now: Time, len: u32) -> TxPacket {
        let seq = self.snd_nxt;
        let end = seq + u64::from(len);
        debug_assert!(end <= self.flow_size);
        let retransmission = seq < self.snd_max;
        let ecn = self.cc.ecn(seq, len);
        let cw = self.cc.cw();
        log::trace!("send {seq}+{len} ecn {ecn:?} cw {cw:?} retx {retransmission}");
        self.snd_nxt = end;
        self.snd_max = self.snd_max.max(end);
        // Karn: only resends after a timeout are ambiguous (see the module documentation)
        self.log.record(end, now, seq < self.karn_limit);
        self.sent_since_rto = true;
        self.last_send = Some((now, len));
        self.last_end = end;
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(now.saturating_add(self.current_rto()));
        }
        let ack_req = self.snd_nxt >= self.flow_size
            || match self.cc.window() {
                Some(w) if w < 1.0 => true,
                Some(w) => {
                    let in_flight = self.snd_nxt - self.snd_una;
                    (in_flight + u64::from(self.next_len())) as f64
                        > w * self.mtu as f64 + WINDOW_SLACK
                }
                None => false,
            };
        let s = &mut self.stats;
        s.packets_sent += 1;
        s.bytes_sent += u64::from(len);
        if retransmission {
            s.retx_packets += 1;
            s.retx_bytes += u64::from(len);
        }
        if cw.is_some_and(|c| c < 1.0) {
            s.sub_packet_sends += 1;
        }
        let pkt = TxPacket {
            seq,
            len,
            ecn,
            retransmission,
            last: end == self.flow_size,
            ack_req,
        };
        self.cc.on_sent(now, &pkt);
        pkt
    }

    /// Cumulative ACK: every byte below `ack_seq` arrived in order; `ece` echoes CE of the
    /// packets it covers. (An ACK without an echoed send timestamp: see [`Self::on_ack_echo`].)
    pub fn on_ack(&mut self, now: Time, ack_seq: u64, ece: bool) {
        self.on_ack_echo(now, ack_seq, ece, None);
    }

    /// [`Self::on_ack`] for an ACK that echoes `echo`, the send timestamp of the data packet
    /// that triggered it (written by the sending NIC, copied into the ACK by the receiving
    /// one). The controller sees `now − echo` as [`AckEvent::rtt`] (TIMELY's RTT sample,
    /// Mittal et al. SIGCOMM 2015 §4.1); the transport's own smoothed RTT keeps its send-time
    /// log, so schemes that ignore the sample behave as with [`Self::on_ack`].
    pub fn on_ack_echo(&mut self, now: Time, ack_seq: u64, ece: bool, echo: Option<Time>) {
        self.ack(now, ack_seq, ece, echo, None);
    }

    /// [`Self::on_ack_echo`] for an ACK that also echoes `int`, the INT hop records the
    /// switches on the path wrote into the data packet that triggered it (copied into the ACK
    /// by the receiving NIC; HPCC, Li et al. SIGCOMM 2019 §3). The controller gets them with
    /// the ACK ([`Controller::on_ack_int`]); the transport itself does not read them.
    pub fn on_ack_int(
        &mut self,
        now: Time,
        ack_seq: u64,
        ece: bool,
        echo: Option<Time>,
        int: &IntRecords,
    ) {
        self.ack(now, ack_seq, ece, echo, Some(int));
    }

    fn ack(
        &mut self,
        now: Time,
        ack_seq: u64,
        ece: bool,
        echo: Option<Time>,
        int: Option<&IntRecords>,
    ) {
        self.stats.acks += 1;
        if ece {
            self.stats.ece_acks += 1;
        }
        if self.is_done() {
            return;
        }
        let ack_seq = ack_seq.min(self.snd_max);
        let newly = ack_seq.saturating_sub(self.snd_una);
        if newly > 0 {
            if ack_seq > self.last_end {
                // bytes sent before a go-back and not since, below which a resend has left:
                // the receiver had them already, their own ACK was lost (or is late), and this
                // one may answer a duplicate of that resend. The log's send time of the packet
                // ending at `ack_seq` predates the resend and says nothing about this ACK's
                // RTT (Karn: no sample, and the backoff stays); like a NACK's, its trigger left
                // no later than the latest send, which bounds the RTT.
                self.latest_send_rtt_bound(now);
            } else {
                self.ack_rtt_sample(now, ack_seq);
            }
            self.advance(now, ack_seq);
        }
        self.report_ack(now, newly, ece, echo, int);
    }

    /// RTT sample of an ACK of `ack_seq` (newly acknowledging bytes, at most the end of the
    /// previous packet sent): no packet below the one ending at `ack_seq` has been sent since
    /// its latest copy (sends are in sequence order between go-backs), so the ACK answers a
    /// copy of it (or a packet sent before its latest copy): `now −` its latest send time is
    /// the RTT when no earlier copy may be in flight, else a lower bound on it.
    fn ack_rtt_sample(&mut self, now: Time, ack_seq: u64) {
        match self.log.sent_at(ack_seq) {
            Some(Sent::At(sent)) => {
                self.backoff = 0;
                if self.rtt_from_acks {
                    self.rtt_sample(now.saturating_sub(sent));
                }
            }
            Some(Sent::AmbiguousAt(latest)) => {
                // Karn: the backoff stays. `now − latest` is a lower bound on a real RTT,
                // so it may raise srtt but never lower it.
                let bound = now.saturating_sub(latest);
                if self.rtt_from_acks && bound > self.rtt.srtt() {
                    self.rtt_sample(bound);
                }
            }
            None => {}
        }
    }

    /// NACK: the receiver expects `expected_seq`; go back N from there. `ece` echoes CE of the
    /// out-of-order packet that triggered it.
    pub fn on_nack(&mut self, now: Time, expected_seq: u64, ece: bool) {
        self.on_nack_echo(now, expected_seq, ece, None, None);
    }

    /// [`Self::on_nack`] for a NACK that echoes the send timestamp `echo` and the INT records
    /// `int` of the packet that triggered it; the controller sees them only with
    /// [`crate::SenderConfig::nack_as_ack`], as an ACK of `expected_seq` after the go-back-N.
    pub fn on_nack_echo(
        &mut self,
        now: Time,
        expected_seq: u64,
        ece: bool,
        echo: Option<Time>,
        int: Option<&IntRecords>,
    ) {
        let una = self.snd_una;
        self.nack(now, expected_seq, ece);
        if !self.nack_as_ack || self.is_done() {
            return;
        }
        // rdma-hw.cc:416-434: after Acknowledge(seq) and RecoverQueue, the NACK runs the
        // scheme's ACK handler with its sequence, CNP flag and INT header
        let newly = self.snd_una.saturating_sub(una);
        self.report_ack(now, newly, ece, echo, int);
    }

    /// The controller's view of an ACK (or of a NACK taken as one): `newly` bytes newly
    /// acknowledged, the echoed send time and INT records; then the timers and pacing.
    fn report_ack(
        &mut self,
        now: Time,
        newly: u64,
        ece: bool,
        echo: Option<Time>,
        int: Option<&IntRecords>,
    ) {
        let ev = AckEvent {
            now,
            rtt: echo.map(|sent| now.saturating_sub(sent)),
            newly_acked: newly.div_ceil(self.mtu),
            ece,
            snd_una: self.snd_una,
            acked_packets: self.snd_una.div_ceil(self.mtu),
        };
        match int {
            Some(int) => self.cc.on_ack_int(&ev, int),
            None => self.cc.on_ack(&ev),
        }
        self.after_event();
    }

    fn nack(&mut self, now: Time, expected_seq: u64, ece: bool) {
        self.stats.nacks += 1;
        if ece {
            self.stats.ece_acks += 1;
        }
        if self.is_done() {
            return;
        }
        let expected = expected_seq.min(self.snd_max);
        let holdoff = self.dup_nack_holdoff.unwrap_or(self.rtt.srtt());
        let duplicate = matches!(self.last_nack,
            Some((s, t)) if s == expected && now < t.saturating_add(holdoff));
        if expected < self.snd_una || duplicate {
            // stale (below snd_una) or decision: "duplicate NACKs for the same
            // sequence within one RTT are ignored"
            self.stats.nacks_ignored += 1;
            return;
        }
        self.last_nack = Some((expected, now));
        self.latest_send_rtt_bound(now);
        if expected > self.snd_una {
            // the NACK is cumulative too: the ACKs for these bytes were lost; no RTT sample and
            // no window change for them (their marks are unknown)
            self.advance(now, expected);
            if self.is_done() {
                self.after_event();
                return;
            }
        }
        self.cc.on_nack(&NackEvent {
            now,
            expected_seq: expected,
            ece,
            acked_packets: expected.div_ceil(self.mtu),
        });
        if !self.sent_since_rto {
            // every copy at or above `expected` predates the NACK's trigger: resends are timed
            self.karn_limit = self.karn_limit.min(expected);
        }
        // go-back-N: retransmit from the NACKed sequence
        log::debug!(
            "NACK: go back N from {expected} (sent up to {})",
            self.snd_nxt
        );
        self.snd_nxt = expected;
        self.go_back_at = Some(now);
        self.rto_deadline = None;
        self.after_event();
    }

    /// RTT bound carried by a NACK, or by an ACK of bytes not resent since the last go-back
    /// (decision, see the module documentation): the packet that triggered it left no later
    /// than the latest send, so `now −` that send time is a lower bound on its RTT (exact when
    /// the trigger is the last packet sent, as for the ECT packet that ends a fast-start burst,
    /// or the one packet in flight below `cw = 1`). Like an ambiguous ACK it raises srtt, never
    /// lowers it.
    fn latest_send_rtt_bound(&mut self, now: Time) {
        if !self.rtt_from_acks {
            return;
        }
        if let Some((sent, _)) = self.last_send {
            let bound = now.saturating_sub(sent);
            if bound > self.rtt.srtt() {
                self.rtt_sample(bound);
            }
        }
    }

    /// Congestion notification packet (rate-based LDCP: `cw −= β`; others ignore it).
    pub fn on_cnp(&mut self, now: Time) {
        self.stats.cnps += 1;
        if self.is_done() {
            return;
        }
        self.cc.on_cnp(now);
        self.after_event();
    }

    /// Response to RTT probe `probe_id`: an RTT sample and, for rate-based LDCP, `cw += α`.
    /// A late response to one of the last four probes that timed out still gives its RTT
    /// sample (probe ids are unique, so it is unambiguous) but no window increase; other
    /// responses are ignored.
    pub fn on_probe_response(&mut self, now: Time, probe_id: u64) {
        match self.probe {
            Probe::Outstanding { id, sent_at } if id == probe_id => {
                self.rtt_sample(now.saturating_sub(sent_at));
                // a measured RTT replaces the bound of the probes that timed out
                self.probe_rtt_bound = Time::ZERO;
                self.cc.on_probe_response(now);
                // draft §3.2 (decision): the next probe is sent when the previous response returns
                self.probe = if self.is_done() {
                    Probe::Off
                } else {
                    Probe::Due
                };
                self.after_event();
            }
            _ => {
                let slot = &mut self.late_probes[(probe_id % LATE_PROBES as u64) as usize];
                if slot.0 == probe_id {
                    let sent_at = slot.1;
                    *slot = (u64::MAX, Time::ZERO);
                    self.rtt_sample(now.saturating_sub(sent_at));
                }
            }
        }
    }

    /// How long a probe may stay unanswered: `max(rto, 2·max(srtt, bound))` with `bound` the
    /// age of the last probe that timed out since the last response (decision: a queue deeper
    /// than the RTO must not time every probe out, and each timeout in a row doubles the
    /// next).
    fn probe_timeout(&self) -> Time {
        let rtt = self.rtt.srtt().max(self.probe_rtt_bound);
        self.rto_floor.max(Time(rtt.0.saturating_mul(2)))
    }

    /// Earliest time this QP wants [`Self::on_timer`]: the retransmission timeout, the
    /// outstanding probe's timeout, or the end of a pacing / sub-packet wait announced by the
    /// last [`Poll::WaitUntil`]. `None` when nothing is pending.
    pub fn next_timer(&self) -> Option<Time> {
        if self.is_done() {
            return None;
        }
        let probe = match self.probe {
            Probe::Outstanding { sent_at, .. } => {
                Some(sent_at.saturating_add(self.probe_timeout()))
            }
            _ => None,
        };
        // the earliest of the armed ones (a fold: `[..].into_iter().flatten().min()` cost
        // several times as many instructions, and this runs after every event of the QP)
        let earliest = |a: Option<Time>, b: Option<Time>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let t = earliest(self.rto_deadline, probe);
        let t = earliest(t, self.wait_until);
        earliest(t, self.cc.next_timeout())
    }

    /// Handles every timer that has expired by `now`; harmless when nothing has.
    pub fn on_timer(&mut self, now: Time) {
        if self.is_done() {
            return;
        }
        if matches!(self.wait_until, Some(t) if t <= now) {
            // the NIC polls next; the gate re-computes the wait if still needed
            self.wait_until = None;
        }
        if let Some(deadline) = self.rto_deadline {
            if deadline <= now {
                self.rto_deadline = None;
                if self.snd_nxt > self.snd_una {
                    // decision (loss recovery, RFC 6298 §5.4): go back N from the lowest unacknowledged byte and
                    // treat it as a congestion signal
                    self.stats.timeouts += 1;
                    log::debug!(
                        "RTO: go back N from {} (sent up to {})",
                        self.snd_una,
                        self.snd_nxt
                    );
                    self.karn_limit = self.karn_limit.max(self.snd_nxt);
                    self.sent_since_rto = false;
                    self.snd_nxt = self.snd_una;
                    self.backoff = (self.backoff + 1).min(self.rto_backoff_max);
                    self.cc.on_rto(now, self.snd_una.div_ceil(self.mtu));
                }
            }
        }
        if self.cc.next_timeout().is_some_and(|t| t <= now) {
            // the controller's own timers (e.g. DCQCN's rate-increase and alpha timers)
            self.cc.on_timeout(now);
        }
        if let Probe::Outstanding { id, sent_at } = self.probe {
            if sent_at.saturating_add(self.probe_timeout()) <= now {
                // decision: a new probe when the previous response returns "(or times out)"
                self.stats.probe_timeouts += 1;
                self.late_probes[(id % LATE_PROBES as u64) as usize] = (id, sent_at);
                // decision: the probe's age bounds the RTT from below until a response
                // returns (lost in an overflowing queue or still in it, it took at least this
                // long), at most the RTO ceiling
                self.probe_rtt_bound = now
                    .saturating_sub(sent_at)
                    .max(self.probe_rtt_bound)
                    .min(self.rto_ceiling());
                self.probe = Probe::Due;
            }
        }
        self.after_event();
        debug_assert!(match self.next_timer() {
            Some(t) => t > now,
            None => true,
        });
    }

    /// Moves `snd_una` up to `to` (> `snd_una`, ≤ `snd_max`) and re-arms the RTO.
    fn advance(&mut self, now: Time, to: u64) {
        debug_assert!(to > self.snd_una && to <= self.snd_max);
        self.snd_una = to;
        if self.snd_nxt < to {
            self.snd_nxt = to;
        }
        if self.snd_una >= self.flow_size {
            self.done_at = Some(now);
            self.rto_deadline = None;
            self.wait_until = None;
            self.probe = Probe::Off;
        } else if self.snd_nxt > self.snd_una {
            // RTO re-armed on each ACK that advances snd_una
            self.rto_deadline = Some(now.saturating_add(self.current_rto()));
        } else {
            self.rto_deadline = None;
        }
    }

    /// The sub-packet tick `srtt/w` (`0 < w < 1`).
    #[inline]
    fn tick(&self, w: f64) -> Time {
        Time((self.rtt.srtt().0 as f64 / w).ceil() as u64)
    }

    /// The most the backoff can make of the RTO: `floor·2^rto_backoff`.
    #[inline]
    fn rto_ceiling(&self) -> Time {
        Time(
            self.rto_floor
                .0
                .saturating_mul(1u64 << self.rto_backoff_max.min(63)),
        )
    }

    /// The RTO in effect (see the module documentation): `base = max(floor, srtt + 4·rttvar)`
    /// once the RTT has been sampled, else the floor; `min(base·2^b, max(base, ceiling))`;
    /// the ceiling `floor·2^rto_backoff` outright while the controller is in fast start
    /// ([`Controller::in_fast_start`]) before any sample; at least
    /// the send interval of one packet (sub-packet tick `srtt/w`, or one MTU at the pacing
    /// rate).
    fn current_rto(&self) -> Time {
        let mut rto = match self.rtt.rto_estimate() {
            None if self.cc.in_fast_start() || self.lossless => self.rto_ceiling(),
            est => {
                let base = est.map_or(self.rto_floor, |e| e.max(self.rto_floor));
                let backed_off = Time(base.0.saturating_mul(1u64 << self.backoff.min(63)));
                backed_off.min(self.rto_ceiling().max(base))
            }
        };
        if let Some(w) = self.cc.window() {
            if w < 1.0 {
                rto = rto.max(self.tick(w));
            }
        }
        if let Some(rate) = self.cc.pacing_rate(self.rtt.srtt()) {
            rto = rto.max(pace_gap(rate, self.mtu as u32, self.int_on_wire));
        }
        rto
    }

    /// The RTT pacing divides by at time `now`: the smoothed RTT, or, while an RTT probe is
    /// outstanding for longer than that, the probe's age — a lower bound on the current RTT
    /// (decision: a queue building behind the flow slows it before the probe that measures it
    /// returns); at least the age of the last probe that timed out, until a response returns.
    fn pacing_rtt(&self, now: Time) -> Time {
        let srtt = self.rtt.srtt().max(self.probe_rtt_bound);
        match self.probe {
            Probe::Outstanding { sent_at, .. } => srtt.max(now.saturating_sub(sent_at)),
            _ => srtt,
        }
    }

    fn rtt_sample(&mut self, sample: Time) {
        self.rtt.sample(sample);
        self.stats.rtt_samples += 1;
    }

    fn after_event(&mut self) {
        if let Some(cw) = self.cc.cw() {
            debug_assert!(cw > 0.0 && !cw.is_nan());
            if cw < self.stats.min_cw {
                self.stats.min_cw = cw;
            }
        }
    }

    /// Every byte has been acknowledged.
    pub fn is_done(&self) -> bool {
        self.snd_una >= self.flow_size
    }

    /// When the last byte was acknowledged, if it was.
    pub fn completion_time(&self) -> Option<Time> {
        self.done_at
    }

    /// When the flow started (the `now` given at construction).
    pub fn start_time(&self) -> Time {
        self.start
    }

    /// Congestion window in packets (for traces); `f64::INFINITY` without a window.
    pub fn cw(&self) -> f64 {
        self.cc.cw().unwrap_or(f64::INFINITY)
    }

    /// Pacing rate, if the controller paces (rate-based LDCP).
    pub fn rate(&self) -> Option<Rate> {
        self.cc.pacing_rate(self.rtt.srtt())
    }

    /// Counters and state.
    pub fn stats(&self) -> SenderStats {
        SenderStats {
            srtt: self.rtt.srtt(),
            ..self.stats
        }
    }

    /// Bytes sent and not yet acknowledged, counted from `snd_una` to `snd_nxt`.
    pub fn in_flight(&self) -> Bytes {
        Bytes(self.snd_nxt - self.snd_una)
    }

    /// Lowest unacknowledged byte.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// Next byte to send.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }

    /// Message size in bytes.
    pub fn flow_size(&self) -> u64 {
        self.flow_size
    }

    /// Current smoothed RTT.
    pub fn srtt(&self) -> Time {
        self.rtt.srtt()
    }

    /// The congestion controller.
    pub fn controller(&self) -> &C {
        &self.cc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Path, LOSSLESS_RTO_FLOOR};
    use crate::controller::LineRate;

    fn us(n: u64) -> Time {
        Time::us(n)
    }

    /// Polls at `now` and expects a data packet.
    #[track_caller]
    fn send<C: Controller>(s: &mut QpSender<C>, now: Time) -> TxPacket {
        match s.poll(now) {
            Poll::Send(p) => p,
            other => panic!("expected Send, got {other:?}"),
        }
    }

    /// A fixed window of `w` packets, optionally "in fast start" (for the RTO ceiling).
    #[derive(Debug, Clone)]
    struct Fixed {
        w: f64,
        fast_start: bool,
    }

    impl Controller for Fixed {
        fn window(&self) -> Option<f64> {
            Some(self.w)
        }
        fn in_fast_start(&self) -> bool {
            self.fast_start
        }
    }

    fn fixed(w: f64, fast_start: bool) -> QpSender<Fixed> {
        let cc = Fixed { w, fast_start };
        QpSender::new(&SenderConfig::default(), cc, 100_000, Time::ZERO).unwrap()
    }

    /// Paced at a fixed rate, no window.
    #[derive(Debug, Clone)]
    struct Paced(Rate);

    impl Controller for Paced {
        fn pacing_rate(&self, _srtt: Time) -> Option<Rate> {
            Some(self.0)
        }
    }

    #[test]
    fn pacing_counts_the_int_bytes_on_a_path_with_int() {
        // 100 Gb/s, 1000-byte payloads: 1082 B on the wire (86.56 ns), 1124 B with INT's 42
        // (89.92 ns): the next packet waits exactly that long, rounded down
        for (int, gap_ns) in [(false, 86), (true, 89)] {
            let mut cfg = SenderConfig::default();
            cfg.path.int_telemetry = int;
            let mut s =
                QpSender::new(&cfg, Paced(Rate(100_000_000_000)), 100_000, Time::ZERO).unwrap();
            assert!(matches!(s.poll(Time::ZERO), Poll::Send(_)));
            assert_eq!(
                s.poll(Time::ZERO),
                Poll::WaitUntil(Time(gap_ns)),
                "INT {int}"
            );
        }
    }

    /// Records what the controller saw of each ACK: its event, and the INT records if any.
    #[derive(Debug, Default)]
    struct Seen {
        acks: Vec<(AckEvent, Option<IntRecords>)>,
    }

    impl Controller for Seen {
        fn on_ack(&mut self, ack: &AckEvent) {
            self.acks.push((*ack, None));
        }
        fn on_ack_int(&mut self, ack: &AckEvent, int: &IntRecords) {
            self.acks.push((*ack, Some(*int)));
        }
    }

    #[test]
    fn int_records_reach_the_controller_with_the_same_ack_event() {
        let mut s =
            QpSender::new(&SenderConfig::default(), Seen::default(), 3000, Time::ZERO).unwrap();
        for k in 0..3 {
            send(&mut s, Time(100 * k));
        }
        let int = IntRecords::from_slice(&[rdma_cc_core::HopRecord {
            qlen_bytes: 1,
            tx_bytes: 2,
            ts_ns: 3,
            line_rate_bps: 4,
            port_id: 5,
        }]);
        s.on_ack_echo(us(8), 1000, false, Some(Time::ZERO));
        s.on_ack_int(us(9), 2000, true, Some(Time(100)), &int);
        let seen = &s.controller().acks;
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].1, None);
        let (ev, got) = seen[1];
        assert_eq!(got, Some(int));
        assert_eq!(
            (ev.now, ev.rtt, ev.newly_acked, ev.ece, ev.snd_una),
            (us(9), Some(Time(8900)), 1, true, 2000)
        );
        assert_eq!(s.stats().acks, 2);
        // a controller that ignores INT sees the ACK as on_ack (the trait's default)
        let mut l = QpSender::new(&SenderConfig::default(), LineRate, 3000, Time::ZERO).unwrap();
        send(&mut l, Time::ZERO);
        l.on_ack_int(us(8), 1000, false, None, &int);
        assert_eq!(l.snd_una(), 1000);
    }

    #[test]
    fn nack_as_ack_runs_the_ack_update_after_go_back_n_as_rdma_hw_cc_416_434_does() {
        // rdma-hw.cc:416-434: a NACK (0xFD) acknowledges its sequence, goes back N, then runs
        // HandleAckHp / HandleAckTimely / HandleAckDctcp with its CNP flag and INT header
        let int = IntRecords::from_slice(&[rdma_cc_core::HopRecord {
            qlen_bytes: 1,
            tx_bytes: 2,
            ts_ns: 3,
            line_rate_bps: 4,
            port_id: 5,
        }]);
        let cfg = SenderConfig {
            nack_as_ack: true,
            ..SenderConfig::default()
        };
        let mut s = QpSender::new(&cfg, Seen::default(), 5000, Time::ZERO).unwrap();
        for k in 0..4 {
            send(&mut s, Time(100 * k));
        }
        s.on_nack_echo(us(9), 2000, true, Some(Time(300)), Some(&int));
        assert_eq!((s.snd_una(), s.stats().nacks), (2000, 1));
        let (ev, got) = s.controller().acks[0];
        assert_eq!(got, Some(int));
        assert_eq!(
            (ev.now, ev.rtt, ev.newly_acked, ev.ece, ev.snd_una),
            (us(9), Some(Time(8700)), 2, true, 2000)
        );
        assert_eq!(send(&mut s, us(9)).seq, 2000, "went back N first");
        // a repeated NACK within the hold-off changes no sequence state, but runs the update
        s.on_nack_echo(us(10), 2000, false, None, None);
        assert_eq!(s.stats().nacks_ignored, 1);
        assert_eq!(s.controller().acks.len(), 2);
        assert_eq!(s.controller().acks[1].0.newly_acked, 0);
        // off (the default): the controller sees no ACK for a NACK
        let mut d =
            QpSender::new(&SenderConfig::default(), Seen::default(), 5000, Time::ZERO).unwrap();
        send(&mut d, Time::ZERO);
        send(&mut d, Time::ZERO);
        d.on_nack_echo(us(9), 1000, true, Some(Time::ZERO), Some(&int));
        assert!(d.controller().acks.is_empty());
    }

    #[test]
    fn line_rate_sends_everything_back_to_back_and_goes_back_n() {
        let cfg = SenderConfig::default();
        let mut s = QpSender::new(&cfg, LineRate, 4500, Time::ZERO).unwrap();
        let pkts: Vec<TxPacket> = (0..5).map(|_| send(&mut s, Time::ZERO)).collect();
        assert!(pkts.iter().all(|p| p.ecn == Ecn::Ect0));
        assert_eq!(pkts[4].len, 500);
        assert!(pkts[4].last && pkts[4].ack_req && !pkts[3].ack_req);
        assert_eq!(s.poll(Time::ZERO), Poll::Blocked);
        assert_eq!(s.cw(), f64::INFINITY);
        assert_eq!(s.rate(), None);
        s.on_cnp(us(1)); // ignored
        s.on_nack(us(8), 2000, false);
        let p = send(&mut s, us(8));
        assert_eq!((p.seq, p.retransmission), (2000, true));
        s.on_ack(us(20), 4500, false);
        assert!(s.is_done());
        assert_eq!(s.poll(us(20)), Poll::Done);
    }

    #[test]
    fn a_repeated_nack_is_ignored_within_the_holdoff_and_never_with_a_zero_one() {
        let ignored = |holdoff: Option<Time>| {
            let cfg = SenderConfig {
                dup_nack_holdoff: holdoff,
                ..SenderConfig::default()
            };
            let mut s = QpSender::new(&cfg, LineRate, 4500, Time::ZERO).unwrap();
            for _ in 0..5 {
                send(&mut s, Time::ZERO);
            }
            s.on_nack(us(8), 2000, false);
            s.on_nack(us(9), 2000, false);
            s.stats().nacks_ignored
        };
        // None: one smoothed RTT (8 us)
        assert_eq!(ignored(None), 1);
        assert_eq!(ignored(Some(Time::ZERO)), 0);
        assert_eq!(ignored(Some(Time(1))), 0);
        assert_eq!(ignored(Some(us(2))), 1);
    }

    #[test]
    fn flow_size_zero_is_rejected() {
        let cfg = SenderConfig::default();
        let e = QpSender::new(&cfg, LineRate, 0, Time::ZERO).unwrap_err();
        assert_eq!(e.field, "flow_size");
        let bad = SenderConfig {
            rtt_gain: 0.0,
            ..SenderConfig::default()
        };
        assert_eq!(
            bad.build(LineRate, 1, Time::ZERO).unwrap_err().field,
            "rtt_gain"
        );
    }

    #[test]
    fn window_of_the_controller_limits_bytes_in_flight() {
        let mut s = fixed(3.0, false);
        let a = send(&mut s, Time::ZERO);
        let b = send(&mut s, Time::ZERO);
        let c = send(&mut s, Time::ZERO);
        // the packet that fills the window asks for an immediate ACK
        assert_eq!((a.ack_req, b.ack_req, c.ack_req), (false, false, true));
        assert_eq!(s.poll(Time::ZERO), Poll::Blocked);
        assert_eq!(s.in_flight(), Bytes(3000));
        s.on_ack(us(8), 1000, false);
        assert_eq!(send(&mut s, us(8)).seq, 3000);
        assert_eq!(s.poll(us(8)), Poll::Blocked);
    }

    #[test]
    fn rto_is_the_ceiling_only_in_fast_start_before_any_sample() {
        // floor 32 µs (4 × 8 µs), ceiling 32 µs × 2^6
        let mut s = fixed(1.0, true);
        send(&mut s, Time::ZERO);
        assert_eq!(s.next_timer(), Some(us(2048)));
        let mut s = fixed(1.0, false);
        send(&mut s, Time::ZERO);
        assert_eq!(s.next_timer(), Some(us(32)));
    }

    /// A controller with a timer of its own (like DCQCN's rate-increase timer): every 10 µs
    /// it counts a tick.
    #[derive(Debug, Clone)]
    struct Ticking {
        next: Time,
        ticks: u32,
    }

    impl Controller for Ticking {
        fn window(&self) -> Option<f64> {
            Some(2.0)
        }
        fn next_timeout(&self) -> Option<Time> {
            Some(self.next)
        }
        fn on_timeout(&mut self, now: Time) {
            while self.next <= now {
                self.ticks += 1;
                self.next = self.next.saturating_add(us(10));
            }
        }
    }

    #[test]
    fn the_controllers_own_timer_is_part_of_the_qps_deadline() {
        let cc = Ticking {
            next: us(10),
            ticks: 0,
        };
        let mut s = QpSender::new(&SenderConfig::default(), cc, 1000, Time::ZERO).unwrap();
        // nothing in flight yet: the controller's timer is the only deadline
        assert_eq!(s.next_timer(), Some(us(10)));
        send(&mut s, Time::ZERO);
        // the RTO (32 µs) is later than the controller's 10 µs
        assert_eq!(s.next_timer(), Some(us(10)));
        s.on_timer(us(10));
        assert_eq!(s.controller().ticks, 1);
        assert_eq!(s.stats().timeouts, 0);
        assert_eq!(s.next_timer(), Some(us(20)));
        // a late call handles every expired tick, and the RTO with them
        s.on_timer(us(35));
        assert_eq!(s.controller().ticks, 3);
        assert_eq!(s.stats().timeouts, 1);
        assert!(s.next_timer().unwrap() > us(35));
        s.on_ack(us(40), 1000, false);
        assert!(s.is_done());
        assert_eq!(s.next_timer(), None);
    }

    #[test]
    fn on_a_lossless_path_the_rto_waits_for_the_first_sample_then_follows_the_rtt() {
        let d = SenderConfig::default();
        let cfg = SenderConfig {
            path: Path {
                lossless: true,
                ..d.path
            },
            ..d
        };
        // floor 1 ms on a lossless priority, ceiling 1 ms × 2^6
        assert_eq!(cfg.effective_rto(), LOSSLESS_RTO_FLOOR);
        let mut s = QpSender::new(&cfg, LineRate, 100_000, Time::ZERO).unwrap();
        send(&mut s, Time::ZERO);
        assert_eq!(s.next_timer(), Some(Time::ms(64)));
        // a 3 ms RTT (deep PFC queue): srtt = 3 ms, rttvar = 1.5 ms → RTO = 9 ms
        s.on_ack(Time::ms(3), 1000, false);
        send(&mut s, Time::ms(3));
        assert_eq!(s.next_timer(), Some(Time::ms(3 + 9)));
        assert_eq!(s.stats().timeouts, 0);
    }

    #[test]
    fn timeout_goes_back_to_snd_una_and_backs_off() {
        let mut s = fixed(2.0, false);
        send(&mut s, Time::ZERO);
        send(&mut s, Time::ZERO);
        s.on_timer(us(32));
        assert_eq!((s.stats().timeouts, s.snd_nxt()), (1, 0));
        let p = send(&mut s, us(32));
        assert!(p.retransmission);
        // backed off once: 2 × 32 µs
        assert_eq!(s.next_timer(), Some(us(32 + 64)));
    }

    #[test]
    fn source_port_spreads_flows_over_10000_to_59999() {
        assert_eq!(source_port(0), 10_000);
        assert_eq!(source_port(49_999), 59_999);
        assert_eq!(source_port(50_000), 10_000);
        assert_eq!(source_port(u32::MAX), (10_000 + u32::MAX % 50_000) as u16);
    }

    #[test]
    fn probes_are_ect0() {
        assert_eq!(PROBE_ECN, Ecn::Ect0);
    }
}
