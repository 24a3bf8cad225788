//! The receiving side of a queue pair: in-order delivery, ACK / NACK policy and CNPs.
//!
//! Rules (LDCP draft §2.2 and RoCE's go-back-N receiver; decisions marked):
//! - In-order data (`seq ≤ expected < seq + len`) is accepted; `expected` moves to its end.
//! - ACKs are cumulative (`seq` = next expected byte). Per-packet ACK by default, ECE = CE of
//!   the packet. Delayed ACK (`ack_every = m`): one ACK per at most `m` unmarked packets; a
//!   CE-marked packet is acknowledged at once, and when unmarked packets are pending the
//!   receiver first flushes an ACK (ECE = 0) for them, so every ACK covers packets of a single
//!   CE state (decision). The message's last packet, and a packet with AckReq set, are
//!   acknowledged at once.
//! - Out-of-order data (`seq > expected`) is dropped and NACKed with the expected sequence
//!   (ECE = CE of that packet), once: further out-of-order packets are not NACKed until
//!   `expected` advances (decision; optional re-NACK after `renack_interval`). Pending
//!   delayed ACKs are flushed first.
//! - Duplicates (entirely below `expected`) are dropped and the cumulative sequence is ACKed
//!   again (ECE = 0), which recovers a lost final ACK; with `ack_duplicates` off (the HPCC
//!   simulator's receiver, `rdma-hw.cc:476-478`) nothing is sent for them.
//! - With `nack_echoes_int`, a NACK echoes the triggering packet's INT records as an ACK does
//!   ([`AckOut::echo_int`]; the simulator's NACK is its ACK header, `rdma-hw.cc:313-320`).
//! - ACK by bytes ([`ReceiverConfig::ack_interval`], DCQCN's receiver): an in-order packet is
//!   acknowledged when at least `ack_interval` bytes were delivered since the previous ACK, when
//!   it completes the message or carries AckReq; CE marks cause CNPs, not ACKs, and an ACK's
//!   ECE says whether any packet it covers was marked.
//! - CNP (DCQCN §3.1, the NP state machine of Figure 6): with `send_cnp`, the first CE-marked
//!   arrival of a flow (in order or not) triggers a CNP at once; a marked arrival less than
//!   `cnp_interval` (`N`) after the previous CNP leaves a CNP pending, sent when that `N` ends
//!   ([`QpReceiver::next_timeout`] / [`QpReceiver::on_timeout`]), so a flow gets at most one
//!   CNP per `N`, and one only if a marked packet arrived in that window. A marked arrival at
//!   or after the end of the window is answered at once. `N` = 0: a CNP per marked packet.
//!
//! - READ requester ([`QpReceiver::new_read_requester`]; LDCP draft §3.1): the receiver of a
//!   READ's responses, at the requester. Responses are acknowledged exactly as data is (the
//!   draft: "the uNIC is also programmed to reply ACKs for Read Responses to enable congestion
//!   control"; delayed ACK, ECN echo and CNPs as above), but an out-of-order response is never
//!   NACKed: "out-of-order delivery of Read Responses can be discovered by the requester, and a
//!   repeat read request will be issued, it is not necessary to add a NAK protocol for Read
//!   Responses". It is dropped and answered with a repeat READ request from the first missing
//!   byte ([`AckOut::reread`]), under the same once-until-`expected`-advances rule (and
//!   `renack_interval`) as a NACK; it carries the response's CE as ECN-Echo.
//!
//! [`RxAction`] carries up to two ACKs — first the flush, then the current one — so that it
//! stays a `Copy` value.

use crate::config::ReceiverConfig;
use rdma_cc_core::{ConfigError, Time};

/// An ACK or NACK to send back to the sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckOut {
    /// Cumulative sequence: the next byte expected (everything below arrived in order).
    pub seq: u64,
    /// ECN-Echo: the packets this (N)ACK answers were CE-marked.
    pub ece: bool,
    /// This is a NACK: out-of-order data was dropped; resend from `seq`.
    pub nack: bool,
    /// This is a repeat READ request (a READ requester's answer to an out-of-order response,
    /// in place of a NACK): the responder is to send the responses again from `seq`.
    pub reread: bool,
    /// The (N)ACK echoes the INT records of the data packet that triggered it (every ACK; a
    /// NACK with [`ReceiverConfig::nack_echoes_int`]).
    pub echo_int: bool,
}

/// What the receiver NIC does with an arriving data packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RxAction {
    /// The packet carried new in-order data, now delivered.
    pub accepted: bool,
    /// Payload bytes newly delivered (less than the packet's length only when it overlaps data
    /// already delivered).
    pub delivered: u32,
    /// First (N)ACK to send, if any.
    pub ack: Option<AckOut>,
    /// Second (N)ACK to send after [`Self::ack`]; only set when `ack` is.
    pub ack2: Option<AckOut>,
    /// Send a congestion notification packet to the sender.
    pub cnp: bool,
}

impl RxAction {
    fn push(&mut self, a: AckOut) {
        if self.ack.is_none() {
            self.ack = Some(a);
        } else {
            debug_assert!(self.ack2.is_none());
            self.ack2 = Some(a);
        }
    }

    /// The (N)ACKs to send, in order.
    pub fn acks(&self) -> impl Iterator<Item = AckOut> {
        self.ack.into_iter().chain(self.ack2)
    }
}

/// Counters of a receiver.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Data packets that arrived.
    pub packets: u64,
    /// Arrivals with CE set.
    pub ce_packets: u64,
    /// Out-of-order arrivals (dropped).
    pub out_of_order: u64,
    /// Duplicate arrivals (dropped).
    pub duplicates: u64,
    /// Payload bytes that arrived again after they had been delivered (a duplicate packet, or
    /// the part of a packet that overlaps delivered data): what spurious retransmissions cost.
    pub duplicate_bytes: u64,
    /// ACKs sent (not NACKs).
    pub acks: u64,
    /// NACKs sent.
    pub nacks: u64,
    /// Out-of-order arrivals whose NACK was suppressed.
    pub nacks_suppressed: u64,
    /// CNPs sent.
    pub cnps: u64,
    /// Repeat READ requests sent (a READ requester; counted here, not in `nacks`).
    pub rereads: u64,
}

/// Receiving side of one queue pair.
#[derive(Debug, Clone)]
pub struct QpReceiver {
    ack_every: u32,
    /// ACK by bytes (`ack_interval`), else by packets (`ack_every`).
    ack_interval: Option<u64>,
    cnp_interval: Time,
    send_cnp: bool,
    split: bool,
    renack_interval: Option<Time>,
    ack_duplicates: bool,
    nack_echoes_int: bool,
    /// The receiver of READ responses at the requester: gaps are answered with a repeat READ
    /// request, never a NACK.
    read_requester: bool,
    flow_size: u64,
    /// Next byte expected in order.
    expected: u64,
    /// In-order unmarked packets not yet acknowledged (by bytes: any in-order packets).
    pending: u32,
    /// ACK by bytes: in-order bytes delivered since the last ACK, and whether one was marked.
    pending_bytes: u64,
    pending_ce: bool,
    /// A marked packet arrived within `cnp_interval` of the last CNP: a CNP is due at its end.
    cnp_pending: bool,
    /// Sequence and time of the last NACK.
    nacked: Option<(u64, Time)>,
    last_cnp: Option<Time>,
    stats: ReceiverStats,
}

impl QpReceiver {
    /// The receiver of a `flow_size`-byte message (≥ 1). Errors name the bad field.
    pub fn new(cfg: &ReceiverConfig, flow_size: u64) -> Result<QpReceiver, ConfigError> {
        cfg.validate()?;
        ConfigError::check(flow_size >= 1, "flow_size", flow_size, "must be >= 1 byte")?;
        Ok(QpReceiver {
            ack_every: cfg.ack_every,
            ack_interval: cfg.ack_interval.map(|b| b.0),
            cnp_interval: cfg.cnp_interval.unwrap_or(Time::ZERO),
            send_cnp: cfg.send_cnp,
            split: cfg.split_ack_on_ce_change,
            renack_interval: cfg.renack_interval,
            ack_duplicates: cfg.ack_duplicates,
            nack_echoes_int: cfg.nack_echoes_int,
            read_requester: false,
            flow_size,
            expected: 0,
            pending: 0,
            pending_bytes: 0,
            pending_ce: false,
            cnp_pending: false,
            nacked: None,
            last_cnp: None,
            stats: ReceiverStats::default(),
        })
    }

    /// The receiver of a READ's `flow_size` bytes of responses at the requester (see the module
    /// documentation: ACKs as for data, a repeat READ request instead of a NACK).
    pub fn new_read_requester(
        cfg: &ReceiverConfig,
        flow_size: u64,
    ) -> Result<QpReceiver, ConfigError> {
        let mut r = QpReceiver::new(cfg, flow_size)?;
        r.read_requester = true;
        Ok(r)
    }

    /// Whether this is a READ requester's receiver ([`Self::new_read_requester`]).
    pub fn is_read_requester(&self) -> bool {
        self.read_requester
    }

    /// A data packet `[seq, seq + len)` arrived at `now`; `ce`: it carries CE; `last`: it
    /// carries the message's final byte. Same as [`Self::on_data_req`] without AckReq.
    pub fn on_data(&mut self, now: Time, seq: u64, len: u32, ce: bool, last: bool) -> RxAction {
        self.on_data_req(now, seq, len, ce, last, false)
    }

    /// [`Self::on_data`] with the packet's AckReq bit ([`crate::TxPacket::ack_req`]): when set,
    /// the packet is acknowledged at once even with delayed ACK.
    pub fn on_data_req(
        &mut self,
        now: Time,
        seq: u64,
        len: u32,
        ce: bool,
        last: bool,
        ack_req: bool,
    ) -> RxAction {
        let mut a = RxAction::default();
        self.stats.packets += 1;
        if ce {
            self.stats.ce_packets += 1;
            a.cnp = self.cnp_due(now);
        }
        let end = seq.saturating_add(u64::from(len)).min(self.flow_size);
        if seq > self.expected {
            // out of order: go-back-N receiver drops it and NACKs the expected sequence
            self.stats.out_of_order += 1;
            self.flush(&mut a);
            if self.nack_allowed(now) {
                self.nacked = Some((self.expected, now));
                // LDCP draft §3.1: a READ requester re-issues the request, it sends no NAK
                let reread = self.read_requester;
                if reread {
                    self.stats.rereads += 1;
                } else {
                    self.stats.nacks += 1;
                }
                a.push(AckOut {
                    seq: self.expected,
                    ece: ce,
                    nack: !reread,
                    reread,
                    echo_int: self.nack_echoes_int && !reread,
                });
            } else {
                self.stats.nacks_suppressed += 1;
            }
        } else if end <= self.expected {
            // duplicate: drop, re-acknowledge the cumulative sequence (covers pending packets)
            self.stats.duplicates += 1;
            self.stats.duplicate_bytes += u64::from(len);
            if self.ack_duplicates {
                self.pending = 0;
                self.ack(&mut a, false);
            }
        } else {
            // in order (possibly overlapping delivered data at its start)
            a.accepted = true;
            a.delivered = (end - self.expected) as u32;
            self.stats.duplicate_bytes += self.expected - seq;
            let complete = end >= self.flow_size;
            if let Some(interval) = self.ack_interval {
                // ACK by bytes: the marks went into CNPs; ECE sums up the covered packets
                self.expected = end;
                self.pending += 1;
                self.pending_bytes += u64::from(a.delivered);
                self.pending_ce |= ce;
                if self.pending_bytes >= interval || last || complete || ack_req {
                    let ece = self.pending_ce;
                    self.pending = 0;
                    self.ack(&mut a, ece);
                }
                return a;
            }
            if ce && self.pending > 0 && self.split {
                // decision: flush an ACK for the pending unmarked packets first
                self.flush(&mut a);
            }
            self.expected = end;
            self.pending += 1;
            // draft §2.2: "generate an ACK for at most m data packets if they all are not
            // marked, but would generate an ACK with ECE flag immediately once a CE marked
            // packet is received"
            if ce || self.pending >= self.ack_every || last || complete || ack_req {
                self.pending = 0;
                self.ack(&mut a, ce);
            }
        }
        a
    }

    /// ACK for the pending unmarked packets, which end at `expected`.
    fn flush(&mut self, a: &mut RxAction) {
        if self.pending > 0 {
            let ece = self.pending_ce;
            self.pending = 0;
            self.ack(a, ece);
        }
    }

    fn ack(&mut self, a: &mut RxAction, ece: bool) {
        self.pending_bytes = 0;
        self.pending_ce = false;
        self.stats.acks += 1;
        a.push(AckOut {
            seq: self.expected,
            ece,
            nack: false,
            reread: false,
            echo_int: true,
        });
    }

    fn nack_allowed(&self, now: Time) -> bool {
        match self.nacked {
            Some((s, t)) if s == self.expected => match self.renack_interval {
                Some(iv) => now >= t.saturating_add(iv),
                None => false,
            },
            _ => true,
        }
    }

    /// A CE-marked packet arrived at `now`: whether to send a CNP at once (DCQCN Figure 6). A
    /// marked packet within `cnp_interval` of the previous CNP leaves one pending instead.
    fn cnp_due(&mut self, now: Time) -> bool {
        if !self.send_cnp {
            return false;
        }
        let due = self.cnp_interval == Time::ZERO
            || match self.last_cnp {
                Some(t) => now >= t.saturating_add(self.cnp_interval),
                None => true,
            };
        if due {
            self.send_cnp_at(now);
        } else {
            self.cnp_pending = true;
        }
        due
    }

    fn send_cnp_at(&mut self, now: Time) {
        self.last_cnp = Some(now);
        self.cnp_pending = false;
        self.stats.cnps += 1;
    }

    /// When a pending CNP is due (the end of the `cnp_interval` after the previous CNP);
    /// `None` when none is pending. Re-read after every call into the receiver.
    pub fn next_timeout(&self) -> Option<Time> {
        if !self.cnp_pending {
            return None;
        }
        self.last_cnp.map(|t| t.saturating_add(self.cnp_interval))
    }

    /// Called at (or after) [`Self::next_timeout`]: returns true when a CNP is to be sent now
    /// (a marked packet arrived in the window that just ended). Harmless when called early.
    pub fn on_timeout(&mut self, now: Time) -> bool {
        match self.next_timeout() {
            Some(t) if now >= t => {
                self.send_cnp_at(now);
                true
            }
            _ => false,
        }
    }

    /// Bytes delivered in order so far.
    pub fn received(&self) -> u64 {
        self.expected
    }

    /// Every byte of the message has been delivered.
    pub fn is_complete(&self) -> bool {
        self.expected >= self.flow_size
    }

    /// Message size in bytes.
    pub fn flow_size(&self) -> u64 {
        self.flow_size
    }

    /// Counters.
    pub fn stats(&self) -> ReceiverStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::Bytes;

    const T: Time = Time(0);

    fn rx(ack_every: u32) -> QpReceiver {
        QpReceiver::new(
            &ReceiverConfig {
                ack_every,
                ..ReceiverConfig::default()
            },
            10_000,
        )
        .unwrap()
    }

    fn ack(seq: u64, ece: bool) -> Option<AckOut> {
        Some(AckOut {
            seq,
            ece,
            nack: false,
            reread: false,
            echo_int: true,
        })
    }

    fn nack(seq: u64, ece: bool) -> Option<AckOut> {
        Some(AckOut {
            seq,
            ece,
            nack: true,
            reread: false,
            echo_int: false,
        })
    }

    fn reread(seq: u64, ece: bool) -> Option<AckOut> {
        Some(AckOut {
            seq,
            ece,
            nack: false,
            reread: true,
            echo_int: false,
        })
    }

    fn read_rx(ack_every: u32) -> QpReceiver {
        QpReceiver::new_read_requester(
            &ReceiverConfig {
                ack_every,
                ..ReceiverConfig::default()
            },
            10_000,
        )
        .unwrap()
    }

    #[test]
    fn read_responses_are_acked_like_data_with_delayed_ack_draft_3_1() {
        // draft §3.1: "the uNIC is also programmed to reply ACKs for Read Responses to enable
        // congestion control"; delayed ACK (§2.2) applies to them as to data
        let (mut rd, mut wr) = (read_rx(3), rx(3));
        for (k, ce) in [false, false, false, false, true, false]
            .into_iter()
            .enumerate()
        {
            let seq = 1000 * k as u64;
            let a = rd.on_data(T, seq, 1000, ce, false);
            assert_eq!(a, wr.on_data(T, seq, 1000, ce, false), "packet {k}");
        }
        assert_eq!(rd.stats().acks, 3); // after 3 packets, the flush before the CE one, the CE one
        assert_eq!(rd.stats().acks, wr.stats().acks);
        assert_eq!(rd.received(), 6000);
    }

    #[test]
    fn out_of_order_read_response_reissues_the_request_from_the_first_missing_byte_not_a_nak_draft_3_1(
    ) {
        // draft §3.1: "out-of-order delivery of Read Responses can be discovered by the
        // requester, and a repeat read request will be issued, it is not necessary to add a NAK
        // protocol for Read Responses"
        let mut r = read_rx(1);
        r.on_data(T, 0, 1000, false, false);
        let a = r.on_data(T, 2000, 1000, true, false); // 1000..2000 lost
        assert!(!a.accepted);
        assert_eq!((a.ack, a.ack2), (reread(1000, true), None));
        assert!(a.acks().all(|x| !x.nack));
        // once until the first missing byte arrives, as a NACK would be
        assert_eq!(r.on_data(T, 3000, 1000, false, false).ack, None);
        assert_eq!(
            (r.stats().rereads, r.stats().nacks, r.stats().out_of_order),
            (1, 0, 2)
        );
        // the responder resends from 1000: delivered once, in order, and ACKed
        assert_eq!(r.on_data(T, 1000, 1000, false, false).ack, ack(2000, false));
        assert_eq!(r.on_data(T, 2000, 1000, false, false).ack, ack(3000, false));
        // a later gap is re-requested again
        assert_eq!(
            r.on_data(T, 5000, 1000, false, false).ack,
            reread(3000, false)
        );
        assert_eq!((r.stats().rereads, r.received()), (2, 3000));
    }

    /// The HPCC simulator's receiver (`ack_duplicates` off, `nack_echoes_int` on).
    fn sim_rx() -> QpReceiver {
        QpReceiver::new(
            &ReceiverConfig {
                ack_duplicates: false,
                nack_echoes_int: true,
                ..ReceiverConfig::default()
            },
            10_000,
        )
        .unwrap()
    }

    #[test]
    fn sim_receiver_sends_nothing_for_a_duplicate_as_rdma_hw_cc_476_does() {
        // rdma-hw.cc:476-478: ReceiverCheckSeq returns 3 for a duplicate, and ReceiveUdp
        // sends only for 1 (ACK) and 2 (NACK), :313
        let mut r = sim_rx();
        assert_eq!(
            r.on_data(Time(1), 0, 1000, false, false).ack,
            ack(1000, false)
        );
        let a = r.on_data(Time(2), 0, 1000, true, false);
        assert_eq!((a.ack, a.ack2, a.accepted), (None, None, false));
        assert_eq!((r.stats().duplicates, r.stats().acks), (1, 1));
        // the default receiver re-acknowledges it
        let mut d = rx(1);
        d.on_data(Time(1), 0, 1000, false, false);
        assert_eq!(
            d.on_data(Time(2), 0, 1000, false, false).ack,
            ack(1000, false)
        );
    }

    #[test]
    fn sim_receiver_nacks_echo_int_as_acks_do_rdma_hw_cc_313_320() {
        // rdma-hw.cc:313-320: the NACK is the ACK's qbbHeader with SetIntHeader(ch.udp.ih)
        let mut r = sim_rx();
        let a = r.on_data(Time(1), 2000, 1000, true, false);
        assert_eq!(
            a.ack,
            Some(AckOut {
                seq: 0,
                ece: true,
                nack: true,
                reread: false,
                echo_int: true,
            })
        );
        let mut d = rx(1);
        assert_eq!(
            d.on_data(Time(1), 2000, 1000, true, false).ack,
            nack(0, true)
        );
    }

    #[test]
    fn per_packet_ack_echoes_ce_of_each_packet() {
        // draft §2.2: "generate an ACK for every received data packet (i.e., per-packet ACK)
        // and set the ECE flag if the corresponding packet has a CE mark"
        let mut r = rx(1);
        let a = r.on_data(T, 0, 1000, false, false);
        assert!(a.accepted);
        assert_eq!(a.delivered, 1000);
        assert_eq!((a.ack, a.ack2), (ack(1000, false), None));
        let a = r.on_data(T, 1000, 1000, true, false);
        assert_eq!((a.ack, a.ack2), (ack(2000, true), None));
        assert!(!a.cnp, "window LDCP receivers send no CNP");
        assert_eq!(r.received(), 2000);
    }

    #[test]
    fn delayed_ack_coalesces_m_unmarked_packets() {
        let mut r = rx(3);
        assert_eq!(r.on_data(T, 0, 1000, false, false).ack, None);
        assert_eq!(r.on_data(T, 1000, 1000, false, false).ack, None);
        assert_eq!(r.on_data(T, 2000, 1000, false, false).ack, ack(3000, false));
        assert_eq!(r.on_data(T, 3000, 1000, false, false).ack, None);
    }

    #[test]
    fn delayed_ack_flushes_unmarked_packets_before_a_ce_packet() {
        let mut r = rx(4);
        r.on_data(T, 0, 1000, false, false);
        r.on_data(T, 1000, 1000, false, false);
        let a = r.on_data(T, 2000, 1000, true, false);
        // first the two unmarked packets (ECE = 0), then the marked one (ECE = 1)
        assert_eq!(a.ack, ack(2000, false));
        assert_eq!(a.ack2, ack(3000, true));
        assert_eq!(a.acks().count(), 2);
        // a marked packet with nothing pending: one ACK
        let a = r.on_data(T, 3000, 1000, true, false);
        assert_eq!((a.ack, a.ack2), (ack(4000, true), None));
    }

    #[test]
    fn delayed_ack_without_split_covers_all_with_ece() {
        let mut r = QpReceiver::new(
            &ReceiverConfig {
                ack_every: 4,
                split_ack_on_ce_change: false,
                ..ReceiverConfig::default()
            },
            10_000,
        )
        .unwrap();
        r.on_data(T, 0, 1000, false, false);
        let a = r.on_data(T, 1000, 1000, true, false);
        assert_eq!((a.ack, a.ack2), (ack(2000, true), None));
    }

    #[test]
    fn last_packet_and_ack_req_are_acked_at_once() {
        let mut r = rx(8);
        assert_eq!(r.on_data(T, 0, 1000, false, false).ack, None);
        assert_eq!(
            r.on_data_req(T, 1000, 1000, false, false, true).ack,
            ack(2000, false)
        );
        let mut r = QpReceiver::new(
            &ReceiverConfig {
                ack_every: 8,
                ..ReceiverConfig::default()
            },
            2500,
        )
        .unwrap();
        r.on_data(T, 0, 1000, false, false);
        r.on_data(T, 1000, 1000, false, false);
        let a = r.on_data(T, 2000, 500, false, true);
        assert_eq!(a.ack, ack(2500, false));
        assert!(r.is_complete());
    }

    #[test]
    fn gap_is_nacked_once_until_expected_advances() {
        let mut r = rx(1);
        r.on_data(T, 0, 1000, false, false);
        // 1000 lost; 2000 arrives out of order → NACK 1000 with the packet's CE
        let a = r.on_data(T, 2000, 1000, true, false);
        assert!(!a.accepted);
        assert_eq!((a.ack, a.ack2), (nack(1000, true), None));
        // further out-of-order packets: suppressed
        assert_eq!(r.on_data(T, 3000, 1000, false, false).ack, None);
        assert_eq!(r.stats().nacks_suppressed, 1);
        // the retransmission of 1000 arrives; then 3000 (2000 was dropped) → a new NACK
        assert_eq!(r.on_data(T, 1000, 1000, false, false).ack, ack(2000, false));
        assert_eq!(
            r.on_data(T, 3000, 1000, false, false).ack,
            nack(2000, false)
        );
        assert_eq!(r.received(), 2000);
    }

    #[test]
    fn renack_interval_allows_a_repeat_nack() {
        let mut r = QpReceiver::new(
            &ReceiverConfig {
                renack_interval: Some(Time::us(10)),
                ..ReceiverConfig::default()
            },
            10_000,
        )
        .unwrap();
        assert_eq!(r.on_data(T, 1000, 1000, false, false).ack, nack(0, false));
        assert_eq!(r.on_data(Time::us(9), 2000, 1000, false, false).ack, None);
        assert_eq!(
            r.on_data(Time::us(10), 2000, 1000, false, false).ack,
            nack(0, false)
        );
    }

    #[test]
    fn gap_flushes_pending_delayed_acks_before_the_nack() {
        let mut r = rx(4);
        r.on_data(T, 0, 1000, false, false);
        let a = r.on_data(T, 2000, 1000, false, false);
        assert_eq!((a.ack, a.ack2), (ack(1000, false), nack(1000, false)));
    }

    #[test]
    fn duplicate_is_dropped_and_reacked() {
        let mut r = rx(1);
        r.on_data(T, 0, 1000, false, false);
        r.on_data(T, 1000, 1000, false, false);
        let a = r.on_data(T, 0, 1000, true, false);
        assert!(!a.accepted);
        assert_eq!((a.ack, a.ack2), (ack(2000, false), None));
        assert_eq!(r.received(), 2000);
        assert_eq!(r.stats().duplicates, 1);
    }

    #[test]
    fn overlapping_packet_delivers_only_new_bytes() {
        let mut r = rx(1);
        r.on_data(T, 0, 1500, false, false);
        let a = r.on_data(T, 1000, 1000, false, false);
        assert!(a.accepted);
        assert_eq!(a.delivered, 500);
        assert_eq!(r.received(), 2000);
    }

    #[test]
    fn cnp_per_marked_packet_when_interval_is_zero() {
        let cfg = ReceiverConfig {
            send_cnp: true,
            ..ReceiverConfig::default()
        };
        let mut r = QpReceiver::new(&cfg, 10_000).unwrap();
        assert!(r.on_data(T, 0, 1000, true, false).cnp);
        assert!(r.on_data(T, 1000, 1000, true, false).cnp);
        assert!(!r.on_data(T, 2000, 1000, false, false).cnp);
        // out-of-order marked packets count too
        assert!(r.on_data(T, 5000, 1000, true, false).cnp);
        assert_eq!(r.stats().cnps, 3);
    }

    fn np(interval_us: u64) -> QpReceiver {
        QpReceiver::new(
            &ReceiverConfig {
                send_cnp: true,
                cnp_interval: Some(Time::us(interval_us)),
                ..ReceiverConfig::default()
            },
            100_000,
        )
        .unwrap()
    }

    #[test]
    fn cnp_interval_limits_cnps_and_defers_one_to_the_end_of_the_window() {
        // DCQCN §3.1 / Figure 6: CNP at once for the first marked packet, then at most one per
        // N, only if a marked packet arrived within that N
        let mut r = np(50);
        assert!(r.on_data(Time::us(0), 0, 1000, true, false).cnp);
        assert_eq!(r.next_timeout(), None);
        assert!(!r.on_data(Time::us(10), 1000, 1000, true, false).cnp);
        assert_eq!(r.next_timeout(), Some(Time::us(50)));
        assert!(!r.on_data(Time::us(49), 2000, 1000, true, false).cnp);
        assert!(!r.on_timeout(Time::us(49)), "early: harmless");
        assert!(r.on_timeout(Time::us(50)), "the deferred CNP");
        assert_eq!(r.next_timeout(), None);
        // next window [50, 100): unmarked packets only, so no CNP at its end
        assert!(!r.on_data(Time::us(60), 3000, 1000, false, false).cnp);
        assert_eq!(r.next_timeout(), None);
        // a marked packet after the window ended gets its CNP at once
        assert!(r.on_data(Time::us(120), 4000, 1000, true, false).cnp);
        assert_eq!(r.stats().cnps, 3);
    }

    #[test]
    fn a_marked_packet_at_the_window_end_takes_the_pending_cnp() {
        let mut r = np(50);
        assert!(r.on_data(Time::us(0), 0, 1000, true, false).cnp);
        assert!(!r.on_data(Time::us(30), 1000, 1000, true, false).cnp);
        // the packet at 50 µs arrives before the timer is handled: one CNP, not two
        assert!(r.on_data(Time::us(50), 2000, 1000, true, false).cnp);
        assert_eq!(r.next_timeout(), None);
        assert!(!r.on_timeout(Time::us(50)));
        assert_eq!(r.stats().cnps, 2);
    }

    #[test]
    fn ack_by_bytes_coalesces_and_ignores_marks() {
        let cfg = ReceiverConfig {
            ack_interval: Some(Bytes(3000)),
            send_cnp: true,
            cnp_interval: Some(Time::us(50)),
            ..ReceiverConfig::default()
        };
        let mut r = QpReceiver::new(&cfg, 8000).unwrap();
        let a = r.on_data(T, 0, 1000, true, false);
        assert_eq!(
            (a.ack, a.cnp),
            (None, true),
            "a mark makes a CNP, not an ACK"
        );
        assert_eq!(r.on_data(T, 1000, 1000, false, false).ack, None);
        assert_eq!(r.on_data(T, 2000, 1000, false, false).ack, ack(3000, true));
        assert_eq!(r.on_data(T, 3000, 1000, false, false).ack, None);
        // AckReq and the message's end are acknowledged at once
        assert_eq!(
            r.on_data_req(T, 4000, 1000, false, false, true).ack,
            ack(5000, false)
        );
        assert_eq!(r.on_data(T, 5000, 1000, false, false).ack, None);
        assert_eq!(r.on_data(T, 6000, 2000, false, true).ack, ack(8000, false));
        assert_eq!(r.stats().acks, 3);
    }

    #[test]
    fn ack_by_bytes_flushes_before_a_nack() {
        let cfg = ReceiverConfig {
            ack_interval: Some(Bytes(65536)),
            ..ReceiverConfig::default()
        };
        let mut r = QpReceiver::new(&cfg, 100_000).unwrap();
        assert_eq!(r.on_data(T, 0, 1000, false, false).ack, None);
        let a = r.on_data(T, 2000, 1000, false, false);
        assert_eq!((a.ack, a.ack2), (ack(1000, false), nack(1000, false)));
    }

    #[test]
    fn zero_flow_size_is_rejected() {
        assert_eq!(
            QpReceiver::new(&ReceiverConfig::default(), 0)
                .unwrap_err()
                .field,
            "flow_size"
        );
    }
}
