//! Bridge for the queue-pair transport (`rdma-cc-transport`) and the congestion controllers
//! chosen per flow through `rdma-cc-schemes`.
//!
//! - `NicParams`: one per ns-3 `RdmaNic`, holding its [`NicConfig`]. The NIC's attributes are
//!   built from `nic_param_specs()` and read and written through `get`/`set`: every default,
//!   bound and help text comes from the Rust tables.
//! - `Sender` / `Receiver`: one per flow at its source and destination NIC. Every per-packet
//!   call takes and returns plain `Copy` values; nothing allocates per packet. Calls that can
//!   move the sender's timers return its next deadline, so the NIC never asks twice.

use crate::log::{in_context, LogContext};
use crate::params::{self, from_ffi, infos, to_attr};
use rdma_cc_core::{ConfigError, HopRecord, IntRecords, Rate, Time};
use rdma_cc_schemes::{NicConfig, Scheme, SchemeController};
use rdma_cc_transport::{Path, Poll, QpReceiver, QpSender};

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    extern "C++" {
        include!("rdma-cc/src/params.rs.h");
        type ParamValue = crate::params::ffi::ParamValue;
        type ParamInfo = crate::params::ffi::ParamInfo;
    }

    /// What the sender wants to do now.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum PollKind {
        /// Send the data packet described by `seq`, `len`, `ecn`, `retx`, `last`, `ack_req`.
        Send,
        /// Send an RTT probe with id `seq`, then poll again.
        Probe,
        /// Nothing before `time_ns` (pacing or the sub-packet tick).
        Wait,
        /// Window full or nothing to send until feedback or a timer.
        Blocked,
        /// Every byte is acknowledged.
        Done,
    }

    /// What the fabric tells a flow's sender about its path.
    #[derive(Debug, Clone, Copy)]
    struct PathInfo {
        line_rate_bps: u64,
        base_rtt_ns: u64,
        /// the flow's data priority is lossless (PFC)
        lossless: bool,
        /// lossless: the longest a packet can queue on the path (every switch's buffer at its
        /// port rate), 0 if unknown
        max_queueing_ns: u64,
        /// the switches on the path append INT hop records to the flow's data packets and the
        /// receiver echoes them in its ACKs (HPCC needs it; `on_ack_int` delivers them)
        int_telemetry: bool,
        /// the largest base RTT between any two hosts of the fabric (the same formula as
        /// `base_rtt_ns`), 0 if unknown; the `hpcc-sim` presets use it (the HPCC simulator's
        /// `GLOBAL_T 1`)
        fabric_base_rtt_ns: u64,
    }

    /// One INT hop record (HPCC, Li et al. SIGCOMM 2019 §3) as a switch egress port wrote it
    /// into a data packet when the packet left, and the receiver copied it into the ACK.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct IntHop {
        /// bytes queued at the port, all its classes, once the packet was dequeued
        qlen_bytes: u64,
        /// frame bytes the port had transmitted before this packet (cumulative)
        tx_bytes: u64,
        /// when the packet was dequeued to leave the port, ns
        ts_ns: u64,
        /// the port's line rate, bit/s
        line_rate_bps: u64,
        /// which egress port wrote the record (node id << 32 | port index; not on the wire)
        port_id: u64,
    }

    /// The sender's next action, and its next timer deadline (u64::MAX: none).
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct PollOut {
        kind: PollKind,
        seq: u64,
        len: u32,
        /// the IP header's two ECN bits for the packet (a data packet's or a probe's)
        ecn: u8,
        retx: bool,
        last: bool,
        ack_req: bool,
        time_ns: u64,
        next_timer_ns: u64,
    }

    /// One (N)ACK to send.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct AckInfo {
        seq: u64,
        ece: bool,
        nack: bool,
        /// a repeat READ request from `seq` (a READ requester's answer to out-of-order
        /// responses, in place of a NACK)
        reread: bool,
        /// echo the data packet's INT records (every ACK; a NACK under the `hpcc-sim` presets)
        echo_int: bool,
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
        /// when the receiver's timer (a deferred CNP) is due, ns; u64::MAX: none
        next_timer_ns: u64,
    }

    /// Sender state and counters, for traces and summaries.
    #[derive(Clone, Copy, Debug)]
    struct SenderInfo {
        /// congestion window, packets (infinite without a window)
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
        /// NACKs that changed nothing (stale, or a duplicate within the hold-off)
        nacks_ignored: u64,
        timeouts: u64,
        cnps: u64,
        min_cw: f64,
        sub_packet_sends: u64,
        /// RTT probes sent (rate-based LDCP)
        probes_sent: u64,
        /// completion time, u64::MAX if not done
        done_ns: u64,
    }

    /// Receiver counters.
    #[derive(Clone, Copy, Debug)]
    struct ReceiverInfo {
        /// bytes delivered in order
        received: u64,
        /// payload bytes that arrived again after their first delivery (spurious
        /// retransmissions)
        duplicate_bytes: u64,
        complete: bool,
        /// data packets that arrived (duplicates and out-of-order ones included)
        packets: u64,
        /// repeat READ requests sent (a READ requester)
        rereads: u64,
    }

    /// A congestion-control scheme (`rdma_cc_schemes::Scheme`), in its help order. A data
    /// packet's header carries it as this code (`scheme_from_code` reads it back), so every
    /// process of a distributed run agrees on it.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    #[repr(u8)]
    enum Scheme {
        Ldcp = 0,
        LdcpRate = 1,
        Dcqcn = 2,
        Timely = 3,
        Dctcp = 4,
        Hpcc = 5,
        None = 6,
    }

    extern "Rust" {
        /// The parameters of one NIC (every scheme's, the transport's, the receiver's).
        type NicParams;
        /// A NIC's parameters at their defaults.
        fn nic_params_new() -> Box<NicParams>;
        /// Every NIC parameter, in index order.
        fn nic_param_specs() -> Vec<ParamInfo>;
        /// Checks `v` against parameter `index` and stores it; the error names the attribute.
        fn set(self: &mut NicParams, index: usize, v: &ParamValue) -> Result<()>;
        /// Parameter `index`.
        fn get(self: &NicParams, index: usize) -> Result<ParamValue>;
        /// Name of the scheme new flows use.
        fn scheme_name(self: &NicParams) -> String;
        /// The scheme new flows use.
        fn scheme(self: &NicParams) -> Scheme;
        /// The name of `scheme` in options and output files (`ldcp`, `dcqcn`, ...).
        fn scheme_name_of(scheme: Scheme) -> &'static str;
        /// The scheme of header code `code`; the error names the code (a corrupt header).
        fn scheme_from_code(code: u8) -> Result<Scheme>;
        /// The UDP source port of flow `flow`'s packets: its ECMP entropy.
        fn flow_source_port(flow: u32) -> u16;
        /// The name of operation code `code` (`rdma_cc_core::Operation`: `write`, `send`,
        /// `read`); `unknown` for a code that names none.
        fn operation_name(code: u8) -> &'static str;
        /// Data priority of new flows.
        fn priority(self: &NicParams) -> u8;
        /// Payload bytes per packet.
        fn mtu(self: &NicParams) -> u64;
        /// Validates everything a flow on `path` would use; the error names the attribute.
        fn validate(self: &NicParams, path: &PathInfo) -> Result<()>;
        /// A copy (a flow keeps the parameters it was added with until it starts).
        fn snapshot(self: &NicParams) -> Box<NicParams>;
        /// Whether `other` holds the same value in every parameter (a real's bits): then every
        /// attribute of the two NICs reads the same.
        fn same(self: &NicParams, other: &NicParams) -> bool;
        /// Parses `text` for parameter `index` given as the command-line option `--OPTION`
        /// and stores it; the error is one line naming the option.
        fn set_option(self: &mut NicParams, index: usize, text: &str) -> Result<()>;
        /// [`validate`] with errors naming the command-line options (`--alpha`).
        fn validate_options(self: &NicParams, path: &PathInfo) -> Result<()>;
        /// Takes parameters `indices` of `from` (the values the command line's options
        /// parsed, once, into the options' own `NicParams`) as they are: the typed values are
        /// copied in Rust, with no text and no ns-3 attribute in between; the error names the
        /// attribute.
        fn take(self: &mut NicParams, from: &NicParams, indices: &[usize]) -> Result<()>;

        /// Sending side of one queue pair.
        type Sender;
        /// Validates and builds the sender of a `flow_size`-byte message of the NIC's scheme
        /// on `path`, starting at `now_ns`: flow `flow` (global id) of host `node`, which its
        /// log records name.
        fn sender_new(
            p: &NicParams,
            path: &PathInfo,
            flow_size: u64,
            now_ns: u64,
            node: u32,
            flow: u32,
        ) -> Result<Box<Sender>>;
        /// The next action at `now_ns` (and the next timer deadline).
        fn poll(self: &mut Sender, now_ns: u64) -> PollOut;
        /// A cumulative ACK echoing `echo_ns`, the send time of the data packet that
        /// triggered it (the sender's NIC writes it into each data packet, the receiver's
        /// copies it into the ACK); returns the next timer deadline.
        fn on_ack(self: &mut Sender, now_ns: u64, ack_seq: u64, ece: bool, echo_ns: u64) -> u64;
        /// `on_ack` for an ACK that also echoes the INT hop records of the data packet that
        /// triggered it, in path order (the sender's first switch first; at most
        /// `int_max_hops()` are read); returns the next timer deadline.
        fn on_ack_int(
            self: &mut Sender,
            now_ns: u64,
            ack_seq: u64,
            ece: bool,
            echo_ns: u64,
            hops: &[IntHop],
        ) -> u64;
        /// A NACK (go back to `expected_seq`) echoing `echo_ns` as an ACK does; returns the
        /// next timer deadline.
        fn on_nack(
            self: &mut Sender,
            now_ns: u64,
            expected_seq: u64,
            ece: bool,
            echo_ns: u64,
        ) -> u64;
        /// `on_nack` for a NACK that also echoes INT hop records (as `on_ack_int`).
        fn on_nack_int(
            self: &mut Sender,
            now_ns: u64,
            expected_seq: u64,
            ece: bool,
            echo_ns: u64,
            hops: &[IntHop],
        ) -> u64;
        /// A congestion notification packet; returns the next timer deadline.
        fn on_cnp(self: &mut Sender, now_ns: u64) -> u64;
        /// An RTT probe response; returns the next timer deadline.
        fn on_probe_response(self: &mut Sender, now_ns: u64, probe_id: u64) -> u64;
        /// Timer expiry (harmless when early or late); returns the next timer deadline.
        fn on_timer(self: &mut Sender, now_ns: u64) -> u64;
        /// When the sender next wants on_timer; u64::MAX for never.
        fn next_timer(self: &Sender) -> u64;
        /// Every byte acknowledged.
        fn is_done(self: &Sender) -> bool;
        /// State and counters.
        fn info(self: &Sender) -> SenderInfo;

        /// The most INT hop records a packet carries: a switch finding this many appends none.
        fn int_max_hops() -> u32;
        /// Bytes INT adds on the wire to every data packet and ACK of a flow whose path has
        /// INT: a 2-byte hop count and room for `int_max_hops()` records of 8 bytes (42).
        fn int_bytes_on_wire() -> u64;

        /// Receiving side of one queue pair.
        type Receiver;
        /// Validates and builds the receiver of a `flow_size`-byte message of `scheme` with
        /// this (receiving) NIC's ACK/CNP policy, at host `node` (which its log records name).
        fn receiver_new(
            p: &NicParams,
            scheme: Scheme,
            flow_size: u64,
            node: u32,
        ) -> Result<Box<Receiver>>;
        /// [`receiver_new`] for the receiver of a READ's responses at its requester: it
        /// acknowledges them as data and answers a gap with a repeat READ request (`reread`),
        /// never a NACK (LDCP draft §3.1).
        fn read_requester_new(
            p: &NicParams,
            scheme: Scheme,
            flow_size: u64,
            node: u32,
        ) -> Result<Box<Receiver>>;
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
        /// The receiver's timer (a deferred CNP, DCQCN's NP) fired: true when a CNP is to be
        /// sent now. Harmless when early.
        fn on_timer(self: &mut Receiver, now_ns: u64) -> bool;
        /// When the receiver's timer is due, ns; u64::MAX: none.
        fn next_timer(self: &Receiver) -> u64;
        /// Counters.
        fn info(self: &Receiver) -> ReceiverInfo;
    }
}

pub use ffi::{AckInfo, IntHop, PathInfo, PollKind, PollOut, ReceiverInfo, RxOut, SenderInfo};
use ffi::{ParamInfo, ParamValue};

fn to_ffi_scheme(s: Scheme) -> ffi::Scheme {
    match s {
        Scheme::Ldcp => ffi::Scheme::Ldcp,
        Scheme::LdcpRate => ffi::Scheme::LdcpRate,
        Scheme::Dcqcn => ffi::Scheme::Dcqcn,
        Scheme::Timely => ffi::Scheme::Timely,
        Scheme::Dctcp => ffi::Scheme::Dctcp,
        Scheme::Hpcc => ffi::Scheme::Hpcc,
        Scheme::None => ffi::Scheme::None,
    }
}

/// The scheme of a code C++ holds (a header byte cast to the enum may be any value).
fn from_ffi_scheme(s: ffi::Scheme) -> Result<Scheme, ConfigError> {
    Scheme::ALL
        .into_iter()
        .find(|&k| to_ffi_scheme(k) == s)
        .ok_or_else(|| {
            ConfigError::new(
                "scheme code",
                s.repr.to_string(),
                format!("must be < {} (a scheme)", Scheme::ALL.len()),
            )
        })
}

fn scheme_name_of(s: ffi::Scheme) -> &'static str {
    from_ffi_scheme(s).map(Scheme::name).unwrap_or("unknown")
}

fn scheme_from_code(code: u8) -> Result<ffi::Scheme, ConfigError> {
    let s = ffi::Scheme { repr: code };
    from_ffi_scheme(s).map(|_| s)
}

fn operation_name(code: u8) -> &'static str {
    rdma_cc_core::Operation::from_code(code).map_or("unknown", |o| o.name())
}

fn flow_source_port(flow: u32) -> u16 {
    rdma_cc_transport::source_port(flow)
}

/// Opaque handle: one NIC's [`NicConfig`].
pub struct NicParams(NicConfig);

/// The attribute name of the Rust field in `e`, so errors name what the user set.
fn as_attribute(e: ConfigError) -> ConfigError {
    to_attr(e, &NicConfig::param_specs())
}

/// The command-line option of the Rust field in `e`.
fn as_option(e: ConfigError) -> ConfigError {
    let field = NicConfig::spec_by_name(&e.field).filter(|s| !s.option.is_empty());
    let mut e = rdma_cc_core::param::rename_field(e, |name| {
        NicConfig::spec_by_name(name)
            .filter(|s| !s.option.is_empty())
            .map(|s| format!("--{}", s.option))
    });
    // a rule that names another field of the same scheme (`must be < t_high`) names its option
    // too: the fields whose option shares the field's scheme prefix (`timely` of `timelyTLow`)
    if let Some(f) = field {
        let prefix: String = f
            .option
            .chars()
            .take_while(|c| c.is_ascii_lowercase())
            .collect();
        for s in NicConfig::param_specs() {
            // `timely.t_high` is written `t_high` in its own rules
            let short = s.name.rsplit('.').next().unwrap_or(s.name);
            if short.contains('_') && !s.option.is_empty() && s.option.starts_with(&prefix) {
                e.requirement =
                    crate::params::replace_word(&e.requirement, short, &format!("--{}", s.option));
            }
        }
    }
    e
}

fn no_nic_param(index: usize) -> ConfigError {
    ConfigError::new("parameter", index, "no such NIC parameter")
}

fn nic_params_new() -> Box<NicParams> {
    Box::new(NicParams(NicConfig::default()))
}

fn nic_param_specs() -> Vec<ParamInfo> {
    let d = NicConfig::default();
    infos(&NicConfig::param_specs(), |i| d.get(i))
}

/// The INT records of `hops` (at most `int_max_hops()`; the rest are dropped).
fn int_records(hops: &[IntHop]) -> IntRecords {
    let mut int = IntRecords::EMPTY;
    for h in hops {
        if !int.push(HopRecord {
            qlen_bytes: h.qlen_bytes,
            tx_bytes: h.tx_bytes,
            ts_ns: h.ts_ns,
            line_rate_bps: h.line_rate_bps,
            port_id: h.port_id,
        }) {
            break;
        }
    }
    int
}

fn path_of(p: &PathInfo) -> Path {
    Path {
        line_rate: Rate(p.line_rate_bps),
        base_rtt: Time(p.base_rtt_ns),
        lossless: p.lossless,
        max_queueing: Time(p.max_queueing_ns),
        int_telemetry: p.int_telemetry,
        fabric_base_rtt: Time(p.fabric_base_rtt_ns),
    }
}

fn int_max_hops() -> u32 {
    rdma_cc_core::int::MAX_HOPS as u32
}

fn int_bytes_on_wire() -> u64 {
    rdma_cc_core::wire::INT_ON_WIRE
}

impl NicParams {
    fn set(&mut self, index: usize, v: &ParamValue) -> Result<(), ConfigError> {
        self.0.set(index, &from_ffi(v)?).map_err(as_attribute)
    }

    fn get(&self, index: usize) -> Result<ParamValue, ConfigError> {
        params::get_param(self.0.get(index), index, no_nic_param)
    }

    fn scheme_name(&self) -> String {
        self.0.scheme.name().to_string()
    }

    fn scheme(&self) -> ffi::Scheme {
        to_ffi_scheme(self.0.scheme)
    }

    fn priority(&self) -> u8 {
        self.0.priority
    }

    fn mtu(&self) -> u64 {
        self.0.sender.mtu.0
    }

    fn validate(&self, path: &PathInfo) -> Result<(), ConfigError> {
        self.0.validate(&path_of(path)).map_err(as_attribute)
    }

    fn snapshot(&self) -> Box<NicParams> {
        Box::new(NicParams(self.0))
    }

    fn same(&self, other: &NicParams) -> bool {
        params::same_params(&self.0, &other.0, |c, i| c.get(i))
    }

    fn set_option(&mut self, index: usize, text: &str) -> Result<(), ConfigError> {
        params::set_option(
            &NicConfig::param_specs(),
            index,
            text,
            no_nic_param,
            |v| self.0.set(index, v),
            |e, _| as_option(e),
        )
    }

    fn validate_options(&self, path: &PathInfo) -> Result<(), ConfigError> {
        self.0.validate(&path_of(path)).map_err(as_option)
    }

    fn take(&mut self, from: &NicParams, indices: &[usize]) -> Result<(), ConfigError> {
        for &i in indices {
            let v = from.0.get(i).ok_or_else(|| no_nic_param(i))?;
            self.0.set(i, &v).map_err(as_attribute)?;
        }
        Ok(())
    }
}

/// Opaque handle owning a [`QpSender`] with the controller its scheme names, and the context
/// of its log records.
pub struct Sender(QpSender<SchemeController>, LogContext);

fn sender_new(
    p: &NicParams,
    path: &PathInfo,
    flow_size: u64,
    now_ns: u64,
    node: u32,
    flow: u32,
) -> Result<Box<Sender>, ConfigError> {
    let ctx = LogContext::flow(node, flow);
    let q = in_context(ctx, || {
        p.0.build_sender(&path_of(path), flow_size, Time(now_ns))
    })
    .map_err(as_attribute)?;
    Ok(Box::new(Sender(q, ctx)))
}

const NO_POLL: PollOut = PollOut {
    kind: PollKind::Blocked,
    seq: 0,
    len: 0,
    ecn: 0,
    retx: false,
    last: false,
    ack_req: false,
    time_ns: 0,
    next_timer_ns: u64::MAX,
};

impl Sender {
    #[inline]
    fn poll(&mut self, now_ns: u64) -> PollOut {
        let out = match in_context(self.1, || self.0.poll(Time(now_ns))) {
            Poll::Send(t) => PollOut {
                kind: PollKind::Send,
                seq: t.seq,
                len: t.len,
                ecn: t.ecn.bits(),
                retx: t.retransmission,
                last: t.last,
                ack_req: t.ack_req,
                ..NO_POLL
            },
            Poll::SendProbe { probe_id } => PollOut {
                kind: PollKind::Probe,
                seq: probe_id,
                ecn: rdma_cc_transport::PROBE_ECN.bits(),
                ..NO_POLL
            },
            Poll::WaitUntil(t) => PollOut {
                kind: PollKind::Wait,
                time_ns: t.0,
                ..NO_POLL
            },
            Poll::Blocked => NO_POLL,
            Poll::Done => PollOut {
                kind: PollKind::Done,
                ..NO_POLL
            },
        };
        PollOut {
            next_timer_ns: self.next_timer(),
            ..out
        }
    }

    #[inline]
    fn on_ack(&mut self, now_ns: u64, ack_seq: u64, ece: bool, echo_ns: u64) -> u64 {
        in_context(self.1, || {
            self.0
                .on_ack_echo(Time(now_ns), ack_seq, ece, Some(Time(echo_ns)))
        });
        self.next_timer()
    }

    #[inline]
    fn on_ack_int(
        &mut self,
        now_ns: u64,
        ack_seq: u64,
        ece: bool,
        echo_ns: u64,
        hops: &[IntHop],
    ) -> u64 {
        let int = int_records(hops);
        in_context(self.1, || {
            self.0
                .on_ack_int(Time(now_ns), ack_seq, ece, Some(Time(echo_ns)), &int)
        });
        self.next_timer()
    }

    #[inline]
    fn on_nack(&mut self, now_ns: u64, expected_seq: u64, ece: bool, echo_ns: u64) -> u64 {
        in_context(self.1, || {
            self.0
                .on_nack_echo(Time(now_ns), expected_seq, ece, Some(Time(echo_ns)), None)
        });
        self.next_timer()
    }

    fn on_nack_int(
        &mut self,
        now_ns: u64,
        expected_seq: u64,
        ece: bool,
        echo_ns: u64,
        hops: &[IntHop],
    ) -> u64 {
        let int = int_records(hops);
        in_context(self.1, || {
            self.0.on_nack_echo(
                Time(now_ns),
                expected_seq,
                ece,
                Some(Time(echo_ns)),
                Some(&int),
            )
        });
        self.next_timer()
    }

    fn on_cnp(&mut self, now_ns: u64) -> u64 {
        in_context(self.1, || self.0.on_cnp(Time(now_ns)));
        self.next_timer()
    }

    fn on_probe_response(&mut self, now_ns: u64, probe_id: u64) -> u64 {
        in_context(self.1, || self.0.on_probe_response(Time(now_ns), probe_id));
        self.next_timer()
    }

    fn on_timer(&mut self, now_ns: u64) -> u64 {
        in_context(self.1, || self.0.on_timer(Time(now_ns)));
        self.next_timer()
    }

    #[inline]
    fn next_timer(&self) -> u64 {
        self.0.next_timer().map_or(u64::MAX, |t| t.0)
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
            nacks_ignored: s.nacks_ignored,
            timeouts: s.timeouts,
            cnps: s.cnps,
            min_cw: s.min_cw,
            sub_packet_sends: s.sub_packet_sends,
            probes_sent: s.probes_sent,
            done_ns: self.0.completion_time().map_or(u64::MAX, |t| t.0),
        }
    }
}

/// Opaque handle owning a [`QpReceiver`], and the context of its log records (the receiving
/// host: a data packet names its sender's queue pair, not the global flow id).
pub struct Receiver(QpReceiver, LogContext);

fn receiver_new(
    p: &NicParams,
    scheme: ffi::Scheme,
    flow_size: u64,
    node: u32,
) -> Result<Box<Receiver>, ConfigError> {
    let cfg = p.0.receiver_for(from_ffi_scheme(scheme)?);
    Ok(Box::new(Receiver(
        QpReceiver::new(&cfg, flow_size).map_err(as_attribute)?,
        LogContext::node(node),
    )))
}

fn read_requester_new(
    p: &NicParams,
    scheme: ffi::Scheme,
    flow_size: u64,
    node: u32,
) -> Result<Box<Receiver>, ConfigError> {
    let cfg = p.0.receiver_for(from_ffi_scheme(scheme)?);
    Ok(Box::new(Receiver(
        QpReceiver::new_read_requester(&cfg, flow_size).map_err(as_attribute)?,
        LogContext::node(node),
    )))
}

const NO_ACK: AckInfo = AckInfo {
    seq: 0,
    ece: false,
    nack: false,
    reread: false,
    echo_int: false,
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
        let a = in_context(self.1, || {
            self.0
                .on_data_req(Time(now_ns), seq, len, ce, last, ack_req)
        });
        let conv = |x: Option<rdma_cc_transport::AckOut>| {
            x.map_or(NO_ACK, |x| AckInfo {
                seq: x.seq,
                ece: x.ece,
                nack: x.nack,
                reread: x.reread,
                echo_int: x.echo_int,
            })
        };
        RxOut {
            accepted: a.accepted,
            delivered: a.delivered,
            n_acks: a.ack.is_some() as u8 + a.ack2.is_some() as u8,
            ack1: conv(a.ack),
            ack2: conv(a.ack2),
            cnp: a.cnp,
            next_timer_ns: self.next_timer(),
        }
    }

    #[inline]
    fn on_timer(&mut self, now_ns: u64) -> bool {
        in_context(self.1, || self.0.on_timeout(Time(now_ns)))
    }

    #[inline]
    fn next_timer(&self) -> u64 {
        self.0.next_timeout().map_or(u64::MAX, |t| t.0)
    }

    fn info(&self) -> ReceiverInfo {
        ReceiverInfo {
            received: self.0.received(),
            duplicate_bytes: self.0.stats().duplicate_bytes,
            complete: self.0.is_complete(),
            packets: self.0.stats().packets,
            rereads: self.0.stats().rereads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ffi::ParamKind;

    fn path() -> PathInfo {
        PathInfo {
            line_rate_bps: 100_000_000_000,
            base_rtt_ns: 8000,
            lossless: false,
            max_queueing_ns: 0,
            int_telemetry: false,
            fabric_base_rtt_ns: 0,
        }
    }

    fn index_of(attr: &str) -> usize {
        nic_param_specs()
            .iter()
            .position(|s| s.attr == attr)
            .unwrap()
    }

    #[test]
    fn errors_name_the_attribute() {
        let mut p = nic_params_new();
        let mut v = p.get(index_of("Alpha")).unwrap();
        v.real = 0.0;
        let e = p.set(index_of("Alpha"), &v).unwrap_err().to_string();
        assert!(e.starts_with("invalid Alpha = 0:"), "{e}");
        let mut v = p.get(index_of("AckEvery")).unwrap();
        assert_eq!(v.kind, ParamKind::Count);
        v.uint = 0;
        let e = p.set(index_of("AckEvery"), &v).unwrap_err().to_string();
        assert!(e.starts_with("invalid AckEvery = 0:"), "{e}");
        let mut v = p.get(index_of("Scheme")).unwrap();
        v.text = "cubic".into();
        assert!(p.set(index_of("Scheme"), &v).is_err());
    }

    #[test]
    fn same_is_every_parameter_the_same() {
        let mut p = nic_params_new();
        assert!(p.same(&nic_params_new()), "the defaults");
        assert!(p.same(&p.snapshot()), "a copy");
        let last = nic_param_specs().len() - 1;
        for i in [0, index_of("Alpha"), index_of("Scheme"), last] {
            let mut q = nic_params_new();
            let mut v = q.get(i).unwrap();
            match v.kind {
                ParamKind::Real => v.real = v.real * 0.5 + 0.125,
                ParamKind::Bool => v.flag = !v.flag,
                ParamKind::Choice | ParamKind::Text => v.text = "dcqcn".into(),
                _ => v.uint += 1,
            }
            q.set(i, &v).unwrap();
            assert!(!p.same(&q), "parameter {i} differs");
            assert!(!q.same(&p), "parameter {i} differs, either way");
        }
        let mut v = p.get(index_of("Alpha")).unwrap();
        v.real = 0.375;
        p.set(index_of("Alpha"), &v).unwrap();
        let mut q = nic_params_new();
        q.set(index_of("Alpha"), &v).unwrap();
        assert!(p.same(&q), "the same value set on both");
    }

    #[test]
    fn take_copies_the_chosen_parameters_as_parsed_and_only_them() {
        // the options' holder parses the text once; a NIC takes the typed value
        let mut options = nic_params_new();
        let timer = index_of("DcqcnIncreaseTimer");
        let alpha = index_of("Alpha");
        options.set_option(timer, "300us").unwrap();
        options.set_option(alpha, "0.25").unwrap();
        let mut nic = nic_params_new();
        nic.take(&options, &[timer]).unwrap();
        assert_eq!(nic.get(timer).unwrap().uint, 300_000);
        // a parameter not in `indices` keeps the NIC's own value (its default, 0.5)
        assert_eq!(nic.get(alpha).unwrap().real, 0.5);
        nic.take(&options, &[alpha]).unwrap();
        assert_eq!(nic.get(alpha).unwrap().real, 0.25);
        let e = nic.take(&options, &[usize::MAX]).unwrap_err().to_string();
        assert!(e.contains("no such NIC parameter"), "{e}");
    }

    #[test]
    fn specs_carry_defaults_and_rules() {
        let specs = nic_param_specs();
        let alpha = &specs[index_of("Alpha")];
        assert_eq!(
            (alpha.option.as_str(), alpha.default_text.as_str()),
            ("alpha", "0.5")
        );
        assert!(alpha.help.contains("in (0, 1]"), "{}", alpha.help);
        let iw = &specs[index_of("Iw")];
        assert_eq!(iw.default_text, "auto");
        let cc = &specs[index_of("Scheme")];
        // the --cc choices are rdma-cc-schemes' list, in its order (its own test spells it out)
        assert_eq!(cc.choices, Scheme::NAMES.to_vec());
        // DCQCN's constants: a preset, and every other one auto (the preset's value)
        let preset = &specs[index_of("DcqcnPreset")];
        assert_eq!(
            (preset.option.as_str(), preset.default_text.as_str()),
            ("dcqcnPreset", "paper")
        );
        let rai = &specs[index_of("DcqcnRai")];
        assert_eq!(rai.default_text, "auto");
        assert!(
            rai.help
                .contains("paper 40Mbps; mellanox rpg_ai_rate 5Mbps"),
            "{}",
            rai.help
        );
        let keep = &specs[index_of("DcqcnKeepTarget")];
        assert_eq!(keep.kind, ParamKind::Choice);
        assert_eq!(keep.default_text, "auto");
        assert_eq!(keep.choices, vec!["auto", "true", "false"]);
    }

    #[test]
    fn sender_and_receiver_exchange_a_short_message() {
        let p = nic_params_new();
        p.validate(&path()).unwrap();
        let mut s = sender_new(&p, &path(), 3000, 0, 1, 0).unwrap();
        let mut r = receiver_new(&p, p.scheme(), 3000, 2).unwrap();
        let mut sent = Vec::new();
        loop {
            let o = s.poll(0);
            if o.kind != PollKind::Send {
                break;
            }
            // a packet in flight arms the RTO: the deadline comes with the answer
            assert!(o.next_timer_ns < u64::MAX);
            sent.push(o);
        }
        assert_eq!(sent.len(), 3);
        // fast start: Not-ECT except the last packet (message shorter than IW)
        assert_eq!(
            sent.iter().map(|p| p.ecn).collect::<Vec<_>>(),
            vec![0, 0, 2]
        );
        for o in &sent {
            let a = r.on_data(1000, o.seq, o.len, false, o.last, o.ack_req);
            assert_eq!(a.n_acks, 1);
            s.on_ack(2000, a.ack1.seq, a.ack1.ece, 0);
        }
        assert!(s.is_done() && r.info().complete);
        assert_eq!(s.info().done_ns, 2000);
        assert_eq!(s.next_timer(), u64::MAX);
        // a header code that names no scheme
        assert!(receiver_new(&p, ffi::Scheme { repr: 7 }, 1, 2).is_err());
    }

    #[test]
    fn hpcc_without_int_is_refused_naming_the_option_and_with_int_reads_the_records() {
        let mut p = nic_params_new();
        p.set_option(index_of("Scheme"), "hpcc").unwrap();
        let e = p.validate_options(&path()).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid --cc = hpcc: HPCC needs INT at the switches (a hop record per switch in \
             every ACK), but the switches on this path write none: turn INT on (--int=auto \
             or true; ns3::SwitchNode::Int)"
        );
        assert!(p
            .validate(&path())
            .unwrap_err()
            .to_string()
            .starts_with("invalid Scheme = hpcc: HPCC needs INT"));
        assert!(sender_new(&p, &path(), 3000, 0, 1, 0).is_err());
        // with INT: the records reach the controller (exact with preset paper; hpcc-sim reads
        // them in the simulator's units)
        p.set_option(index_of("HpccPreset"), "paper").unwrap();
        let int_path = PathInfo {
            int_telemetry: true,
            ..path()
        };
        p.validate(&int_path).unwrap();
        let mut s = sender_new(&p, &int_path, 100_000, 0, 1, 0).unwrap();
        let mut end = 0;
        for t in 0..3 {
            let o = s.poll(100 * t);
            assert_eq!(o.kind, PollKind::Send);
            end = o.seq + u64::from(o.len);
        }
        let hop = |ts_ns, tx_bytes| IntHop {
            qlen_bytes: 100_000,
            tx_bytes,
            ts_ns,
            line_rate_bps: 100_000_000_000,
            port_id: 1,
        };
        // a sixth record is beyond what a packet carries and is not read
        let first = [hop(0, 0); 6];
        s.on_ack_int(8000, 1000, false, 0, &first);
        // every hop at 100 % with a queue of one BDP over T = 8 us: U = 2, R = 100 G x
        // 0.95 / 2 + 40 Mb/s
        let next = [hop(8000, 100_000); 5];
        s.on_ack_int(16_000, end, false, 0, &next);
        assert_eq!(s.info().rate_bps, 47_540_000_000);
        assert_eq!((int_max_hops(), int_bytes_on_wire()), (5, 42));
    }

    #[test]
    fn scheme_codes_round_trip_and_unknown_codes_are_refused() {
        for (i, s) in Scheme::ALL.into_iter().enumerate() {
            let code = scheme_from_code(i as u8).unwrap();
            assert_eq!(code, to_ffi_scheme(s));
            assert_eq!(scheme_name_of(code), s.name());
            assert_eq!(from_ffi_scheme(code).unwrap(), s);
        }
        let e = scheme_from_code(7).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("scheme code", "7"));
        assert_eq!(nic_params_new().scheme(), ffi::Scheme::Ldcp);
    }

    #[test]
    fn probes_carry_ect0_and_flows_their_source_port() {
        assert_eq!(flow_source_port(3), 10_003);
        assert_eq!(flow_source_port(50_001), 10_001);
        assert_eq!(rdma_cc_transport::PROBE_ECN.bits(), 2);
    }
}
