//! Bridge for the queue-pair transport (`rdma-cc-transport`) and its congestion controllers
//! (`rdma-cc-ldcp`), chosen per flow through `rdma-cc-schemes`.
//!
//! One opaque `Sender` per flow at its source NIC and one `Receiver` at its destination. Every
//! per-packet call takes and returns plain `Copy` values; nothing allocates per packet.

use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_ldcp::{FastStartExit, LdcpConfig};
use rdma_cc_schemes::{FlowConfig, Scheme, SchemeController};
use rdma_cc_transport::{Poll, QpReceiver, QpSender, ReceiverConfig, SenderConfig};

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// Sender parameters (ns-3 attributes / command-line options). Zero means "default" for
    /// `rto_ns` (4 x base RTT), `iw` (the BDP) and `dup_nack_holdoff_ns` (one RTT).
    #[derive(Clone, Copy, Debug)]
    struct SenderParams {
        /// 0 ldcp, 1 ldcp-rate, 2 none
        scheme: u8,
        mtu: u64,
        line_rate_bps: u64,
        base_rtt_ns: u64,
        rto_ns: u64,
        rto_backoff: u32,
        dup_nack_holdoff_ns: u64,
        alpha: f64,
        beta: f64,
        gamma: f64,
        eta: f64,
        iw: f64,
        fast_start: bool,
        rtt_gain: f64,
        sub_packet: bool,
    }

    /// Receiver parameters.
    #[derive(Clone, Copy, Debug)]
    struct ReceiverParams {
        ack_every: u32,
        cnp_interval_ns: u64,
        send_cnp: bool,
        mtu: u64,
    }

    /// The sender's next action. `kind`: 0 send the data packet (seq, len, ecn, retx, last,
    /// ack_req), 1 send an RTT probe with id `seq`, 2 nothing before `time_ns`, 3 blocked until
    /// feedback or a timer, 4 done.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct PollOut {
        kind: u8,
        seq: u64,
        len: u32,
        ecn: u8,
        retx: bool,
        last: bool,
        ack_req: bool,
        time_ns: u64,
    }

    /// One (N)ACK to send.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct AckInfo {
        seq: u64,
        ece: bool,
        nack: bool,
    }

    /// The receiver's answer to a data packet: `n_acks` of `ack1`, `ack2` to send, in order.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct RxOut {
        accepted: bool,
        delivered: u32,
        n_acks: u8,
        ack1: AckInfo,
        ack2: AckInfo,
        cnp: bool,
    }

    /// Sender state and counters, for traces and summaries.
    #[derive(Clone, Copy, Debug)]
    struct SenderInfo {
        cw: f64,
        /// pacing rate, 0 if none
        rate_bps: u64,
        srtt_ns: u64,
        in_flight: u64,
        snd_una: u64,
        bytes_sent: u64,
        retx_bytes: u64,
        packets_sent: u64,
        acks: u64,
        ece_acks: u64,
        nacks: u64,
        timeouts: u64,
        cnps: u64,
        min_cw: f64,
        /// how the flow left fast start: 0 not (yet, or finished inside it, or no fast
        /// start), 1 all IW packets acknowledged, 2 loss
        fast_start_exit: u8,
        sub_packet_sends: u64,
        /// completion time, u64::MAX if not done
        done_ns: u64,
    }

    extern "Rust" {
        /// Sending side of one queue pair.
        type Sender;
        /// Validates and builds a sender for a message of `flow_size` bytes starting at `now_ns`.
        fn sender_new(p: &SenderParams, flow_size: u64, now_ns: u64) -> Result<Box<Sender>>;
        /// Validates sender parameters (the error names the field).
        fn sender_params_validate(p: &SenderParams) -> Result<()>;
        /// The next action at `now_ns`.
        fn poll(self: &mut Sender, now_ns: u64) -> PollOut;
        /// A cumulative ACK.
        fn on_ack(self: &mut Sender, now_ns: u64, ack_seq: u64, ece: bool);
        /// A NACK (go back to `expected_seq`).
        fn on_nack(self: &mut Sender, now_ns: u64, expected_seq: u64, ece: bool);
        /// A congestion notification packet.
        fn on_cnp(self: &mut Sender, now_ns: u64);
        /// An RTT probe response.
        fn on_probe_response(self: &mut Sender, now_ns: u64, probe_id: u64);
        /// When the sender next wants on_timer; u64::MAX for never.
        fn next_timer(self: &Sender) -> u64;
        /// Timer expiry (harmless when early or late).
        fn on_timer(self: &mut Sender, now_ns: u64);
        /// Every byte acknowledged.
        fn is_done(self: &Sender) -> bool;
        /// State and counters.
        fn info(self: &Sender) -> SenderInfo;

        /// Receiving side of one queue pair.
        type Receiver;
        /// Validates and builds a receiver for a message of `flow_size` bytes.
        fn receiver_new(p: &ReceiverParams, flow_size: u64) -> Result<Box<Receiver>>;
        /// A data packet arrived.
        fn on_data(
            self: &mut Receiver,
            now_ns: u64,
            seq: u64,
            len: u32,
            ce: bool,
            last: bool,
            ack_req: bool,
        ) -> RxOut;
        /// Bytes delivered in order.
        fn received(self: &Receiver) -> u64;
        /// The whole message arrived.
        fn is_complete(self: &Receiver) -> bool;

        /// Parses a scheme name ("ldcp", "ldcp-rate", "none") to its code.
        fn scheme_code(name: &str) -> Result<u8>;
    }
}

pub use ffi::{AckInfo, PollOut, ReceiverParams, RxOut, SenderInfo, SenderParams};

fn scheme_of(code: u8) -> Result<Scheme, ConfigError> {
    Scheme::ALL
        .get(code as usize)
        .copied()
        .ok_or_else(|| ConfigError::new("scheme", code, "unknown scheme code"))
}

fn scheme_code(name: &str) -> Result<u8, ConfigError> {
    let s: Scheme = name.parse()?;
    Ok(Scheme::ALL.iter().position(|&x| x == s).unwrap_or(0) as u8)
}

impl TryFrom<&SenderParams> for FlowConfig {
    type Error = ConfigError;
    fn try_from(p: &SenderParams) -> Result<FlowConfig, ConfigError> {
        let nz = |v: u64| (v > 0).then_some(Time(v));
        Ok(FlowConfig {
            scheme: scheme_of(p.scheme)?,
            sender: SenderConfig {
                mtu: Bytes(p.mtu),
                line_rate: Rate(p.line_rate_bps),
                base_rtt: Time(p.base_rtt_ns),
                rto: nz(p.rto_ns),
                rto_backoff: p.rto_backoff,
                dup_nack_holdoff: nz(p.dup_nack_holdoff_ns),
                rtt_gain: p.rtt_gain,
            },
            ldcp: LdcpConfig {
                alpha: p.alpha,
                beta: p.beta,
                gamma: p.gamma,
                eta: p.eta,
                iw: (p.iw != 0.0).then_some(p.iw),
                fast_start: p.fast_start,
                sub_packet: p.sub_packet,
            },
        })
    }
}

/// Opaque handle owning a [`QpSender`] with the controller its scheme names.
pub struct Sender(QpSender<SchemeController>);

fn sender_params_validate(p: &SenderParams) -> Result<(), ConfigError> {
    FlowConfig::try_from(p)?.validate()
}

fn sender_new(p: &SenderParams, flow_size: u64, now_ns: u64) -> Result<Box<Sender>, ConfigError> {
    let cfg = FlowConfig::try_from(p)?;
    Ok(Box::new(Sender(cfg.build(flow_size, Time(now_ns))?)))
}

const NO_POLL: PollOut = PollOut {
    kind: 3,
    seq: 0,
    len: 0,
    ecn: 0,
    retx: false,
    last: false,
    ack_req: false,
    time_ns: 0,
};

impl Sender {
    #[inline]
    fn poll(&mut self, now_ns: u64) -> PollOut {
        match self.0.poll(Time(now_ns)) {
            Poll::Send(t) => PollOut {
                kind: 0,
                seq: t.seq,
                len: t.len,
                ecn: t.ecn.bits(),
                retx: t.retransmission,
                last: t.last,
                ack_req: t.ack_req,
                time_ns: 0,
            },
            Poll::SendProbe { probe_id } => PollOut {
                kind: 1,
                seq: probe_id,
                ..NO_POLL
            },
            Poll::WaitUntil(t) => PollOut {
                kind: 2,
                time_ns: t.0,
                ..NO_POLL
            },
            Poll::Blocked => NO_POLL,
            Poll::Done => PollOut { kind: 4, ..NO_POLL },
        }
    }

    #[inline]
    fn on_ack(&mut self, now_ns: u64, ack_seq: u64, ece: bool) {
        self.0.on_ack(Time(now_ns), ack_seq, ece);
    }

    #[inline]
    fn on_nack(&mut self, now_ns: u64, expected_seq: u64, ece: bool) {
        self.0.on_nack(Time(now_ns), expected_seq, ece);
    }

    fn on_cnp(&mut self, now_ns: u64) {
        self.0.on_cnp(Time(now_ns));
    }

    fn on_probe_response(&mut self, now_ns: u64, probe_id: u64) {
        self.0.on_probe_response(Time(now_ns), probe_id);
    }

    #[inline]
    fn next_timer(&self) -> u64 {
        self.0.next_timer().map_or(u64::MAX, |t| t.0)
    }

    fn on_timer(&mut self, now_ns: u64) {
        self.0.on_timer(Time(now_ns));
    }

    fn is_done(&self) -> bool {
        self.0.is_done()
    }

    fn info(&self) -> SenderInfo {
        let s = self.0.stats();
        SenderInfo {
            cw: self.0.cw(),
            rate_bps: self.0.rate().map_or(0, |r| r.0),
            srtt_ns: s.srtt.0,
            in_flight: self.0.in_flight().0,
            snd_una: self.0.snd_una(),
            bytes_sent: s.bytes_sent,
            retx_bytes: s.retx_bytes,
            packets_sent: s.packets_sent,
            acks: s.acks,
            ece_acks: s.ece_acks,
            nacks: s.nacks,
            timeouts: s.timeouts,
            cnps: s.cnps,
            min_cw: s.min_cw,
            fast_start_exit: fast_start_code(self.0.controller().fast_start_exit()),
            sub_packet_sends: s.sub_packet_sends,
            done_ns: self.0.completion_time().map_or(u64::MAX, |t| t.0),
        }
    }
}

fn fast_start_code(e: FastStartExit) -> u8 {
    e as u8
}

/// Opaque handle owning a [`QpReceiver`].
pub struct Receiver(QpReceiver);

fn receiver_new(p: &ReceiverParams, flow_size: u64) -> Result<Box<Receiver>, ConfigError> {
    let cfg = ReceiverConfig {
        ack_every: p.ack_every,
        cnp_interval: Time(p.cnp_interval_ns),
        send_cnp: p.send_cnp,
        mtu: Bytes(p.mtu),
        ..ReceiverConfig::default()
    };
    Ok(Box::new(Receiver(QpReceiver::new(&cfg, flow_size)?)))
}

const NO_ACK: AckInfo = AckInfo {
    seq: 0,
    ece: false,
    nack: false,
};

impl Receiver {
    #[inline]
    fn on_data(
        &mut self,
        now_ns: u64,
        seq: u64,
        len: u32,
        ce: bool,
        last: bool,
        ack_req: bool,
    ) -> RxOut {
        let a = self
            .0
            .on_data_req(Time(now_ns), seq, len, ce, last, ack_req);
        let conv = |x: Option<rdma_cc_transport::AckOut>| {
            x.map_or(NO_ACK, |x| AckInfo {
                seq: x.seq,
                ece: x.ece,
                nack: x.nack,
            })
        };
        RxOut {
            accepted: a.accepted,
            delivered: a.delivered,
            n_acks: a.ack.is_some() as u8 + a.ack2.is_some() as u8,
            ack1: conv(a.ack),
            ack2: conv(a.ack2),
            cnp: a.cnp,
        }
    }

    fn received(&self) -> u64 {
        self.0.received()
    }

    fn is_complete(&self) -> bool {
        self.0.is_complete()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> SenderParams {
        SenderParams {
            scheme: 0,
            mtu: 1000,
            line_rate_bps: 100_000_000_000,
            base_rtt_ns: 8000,
            rto_ns: 0,
            rto_backoff: 6,
            dup_nack_holdoff_ns: 0,
            alpha: 1.0,
            beta: 0.5,
            gamma: 0.125,
            eta: 0.5,
            iw: 0.0,
            fast_start: true,
            rtt_gain: 0.125,
            sub_packet: true,
        }
    }

    #[test]
    fn bridge_validation_names_the_field() {
        let mut p = params();
        p.alpha = 0.0;
        assert!(sender_params_validate(&p)
            .unwrap_err()
            .to_string()
            .contains("alpha"));
        let mut p = params();
        p.gamma = 1.5;
        assert!(sender_params_validate(&p)
            .unwrap_err()
            .to_string()
            .contains("gamma"));
        assert_eq!(scheme_code("ldcp-rate").unwrap(), 1);
        assert!(scheme_code("cubic")
            .unwrap_err()
            .to_string()
            .contains("scheme"));
    }

    #[test]
    fn sender_and_receiver_exchange_a_short_message() {
        let mut s = sender_new(&params(), 3000, 0).unwrap();
        let mut r = receiver_new(
            &ReceiverParams {
                ack_every: 1,
                cnp_interval_ns: 0,
                send_cnp: false,
                mtu: 1000,
            },
            3000,
        )
        .unwrap();
        let mut sent = Vec::new();
        loop {
            let p = s.poll(0);
            if p.kind != 0 {
                break;
            }
            sent.push(p);
        }
        assert_eq!(sent.len(), 3);
        // fast start: Not-ECT except the last packet (message shorter than IW)
        assert_eq!(
            sent.iter().map(|p| p.ecn).collect::<Vec<_>>(),
            vec![0, 0, 2]
        );
        for p in &sent {
            let a = r.on_data(1000, p.seq, p.len, false, p.last, p.ack_req);
            assert_eq!(a.n_acks, 1);
            s.on_ack(2000, a.ack1.seq, a.ack1.ece);
        }
        assert!(s.is_done() && r.is_complete());
        assert_eq!(s.info().done_ns, 2000);
    }
}
