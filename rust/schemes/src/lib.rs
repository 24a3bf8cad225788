//! Run-time choice of a queue pair's congestion-control scheme, and the one definition of a
//! NIC's parameters.
//!
//! - [`Scheme`]: the scheme names (`ldcp`, `ldcp-rate`, `dcqcn`, `timely`, `dctcp`, `hpcc`,
//!   `none`).
//! - [`SchemeConfig`]: a scheme with its constants — the factory of one flow's controller
//!   (config-as-factory, as quinn's congestion configs): [`SchemeConfig::controller`] builds a
//!   [`SchemeController`], [`SchemeConfig::receiver`] adapts the receiver to the scheme (CNPs
//!   or ECN echo).
//! - [`SchemeController`]: an enum that implements the transport's [`Controller`] by delegating
//!   to the chosen controller (a `match` per call: no allocation, no dynamic dispatch).
//! - [`NicConfig`]: everything a host NIC configures — the default scheme of new flows, the
//!   transport's timers, the receiver's ACK/CNP policy and the constants of every scheme — with
//!   one flat parameter table ([`NicConfig::param_specs`], [`NicConfig::set`],
//!   [`NicConfig::get`]). The ns-3 NIC builds its attributes from that table and the examples
//!   their options, so a parameter's name, default, bounds, unit and help are written once,
//!   here or in the crate that owns the constant.
//!
//! Why a crate of its own: the algorithm crates depend only on `rdma-cc-transport` and never on
//! each other, so the one place that knows every scheme has to sit above all of them; the
//! bridge (`src/`) must hold nothing but the `#[cxx::bridge]`.
//!
//! # Adding a scheme
//! A new scheme (as DCTCP: its own crate `rdma-cc-dctcp` with a `DctcpConfig` implementing
//! [`Params`] and a controller implementing [`Controller`]) adds, in this file, a variant of
//! [`Scheme`] (its name, its marking and PFC defaults), of [`SchemeConfig`] (its constants) and
//! of [`SchemeController`] (its controller), and a field of [`NicConfig`] with its part in the
//! NIC's flat parameter table; outside it, the new crate in the workspace (root `Cargo.toml`,
//! `Cargo.lock`), the dependency in this crate's `Cargo.toml` and a log component
//! (`src/log.rs`). The complete list, checked against DCTCP and HPCC, is in
//! `docs/adding-a-scheme.md`. The bridge, the NIC's attributes, the examples' `--cc` choices and
//! options follow from the tables.
//!
//! Nothing here reads a clock or allocates per packet; construction validates every parameter,
//! after which no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use rdma_cc_core::param::{
    Field, FlatTable, Limit, Param, ParamKind, ParamSpec, ParamValue, Params,
};
use rdma_cc_core::{Bytes, ConfigError, Ecn, IntRecords, Rate, Time};
/// DCQCN's presets (the bridge picks the marking of `hpcc-sim` by name).
pub use rdma_cc_dcqcn::Preset as DcqcnPreset;
use rdma_cc_dcqcn::{Dcqcn, DcqcnConfig, RpModel};
use rdma_cc_dctcp::{Dctcp, DctcpConfig};
use rdma_cc_hpcc::{Hpcc, HpccConfig};
use rdma_cc_ldcp::{FastStartExit, Ldcp, LdcpConfig, LdcpRate, Stage};
use rdma_cc_timely::{Timely, TimelyConfig};
use rdma_cc_transport::{
    AckEvent, Controller, LineRate, NackEvent, Path, QpSender, ReceiverConfig, RttSource,
    SenderConfig, TxPacket,
};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Congestion-control scheme of a queue pair (chosen per flow).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scheme {
    /// LDCP window control with per-ACK window adjustment and zero-RTT fast start
    /// (draft-dai-tsvwg-ldcp-01 §2).
    #[default]
    Ldcp,
    /// LDCP's rate-based variant for NICs without per-packet ACK (draft §3.2): pacing at
    /// `cw·MTU/RTT`, `+α` per RTT-probe response, `−β` per CNP.
    LdcpRate,
    /// DCQCN's rate control (Zhu et al., SIGCOMM 2015, §3.1): line rate at start, a cut per
    /// CNP, recovery by timer and byte counter; deployed with PFC.
    Dcqcn,
    /// TIMELY's RTT-gradient rate control (Mittal et al., SIGCOMM 2015, Algorithm 1), RTT
    /// samples from the send timestamps ACKs echo; run with PFC, as the HPCC simulator does.
    Timely,
    /// DCTCP for RDMA (RFC 8257, as the HPCC simulator runs it): per-RTT α from the ECN-Echo
    /// fraction, one cut per window, window and pacing; run with PFC.
    Dctcp,
    /// HPCC (Li et al., SIGCOMM 2019, Algorithm 1): window and pacing from the INT hop
    /// records ACKs echo, towards a target utilisation `η` of the most utilised link; run with
    /// PFC, as the HPCC simulator does. Needs switches that write INT records (a path without
    /// them is refused).
    Hpcc,
    /// No congestion control: line rate back to back (relies on PFC, or loses).
    None,
}

impl Scheme {
    /// Every scheme, in the order help texts list them.
    pub const ALL: [Scheme; 7] = [
        Scheme::Ldcp,
        Scheme::LdcpRate,
        Scheme::Dcqcn,
        Scheme::Timely,
        Scheme::Dctcp,
        Scheme::Hpcc,
        Scheme::None,
    ];

    /// Every scheme's name, in [`Scheme::ALL`] order (the choices of the `--cc` option).
    pub const NAMES: [&'static str; 7] = [
        "ldcp",
        "ldcp-rate",
        "dcqcn",
        "timely",
        "dctcp",
        "hpcc",
        "none",
    ];

    /// The name used in options and output files: `ldcp`, `ldcp-rate`, `dcqcn`, `timely`,
    /// `dctcp`, `hpcc`, `none`.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Ldcp => Self::NAMES[0],
            Scheme::LdcpRate => Self::NAMES[1],
            Scheme::Dcqcn => Self::NAMES[2],
            Scheme::Timely => Self::NAMES[3],
            Scheme::Dctcp => Self::NAMES[4],
            Scheme::Hpcc => Self::NAMES[5],
            Scheme::None => Self::NAMES[6],
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
            .ok_or_else(|| {
                ConfigError::new(
                    "scheme",
                    s,
                    format!("must be one of {}", Scheme::NAMES.join(", ")),
                )
            })
    }
}

/// DCQCN's NP: at most one CNP per flow per 50 µs (DCQCN §3.1: "We use N = 50µs in our
/// deployment"), the receiver's automatic `cnp_interval` for DCQCN flows.
pub const DCQCN_CNP_INTERVAL: Time = Time::us(50);

/// The receiver's automatic `ack_interval` for DCQCN flows: one ACK per 64 KiB delivered, plus
/// one at the message's end (see [`SchemeConfig::receiver`]).
pub const DCQCN_ACK_INTERVAL: Bytes = Bytes(65536);

/// The HPCC simulator's receiver repeats a NACK for the same sequence after 500 µs
/// (`rdma-hw.cc`, attribute `NACK Generation Interval`, default 500 µs, which its `third.cc`
/// leaves as is): the receiver's automatic `renack_interval` under the `hpcc-sim` presets of
/// DCQCN, TIMELY, DCTCP and HPCC.
pub const HPCC_SIM_NACK_INTERVAL: Time = Time::us(500);

/// A scheme with its constants: builds the controller of each flow that uses it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SchemeConfig {
    /// [`Scheme::Ldcp`] with its constants.
    Ldcp(LdcpConfig),
    /// [`Scheme::LdcpRate`] with LDCP's constants.
    LdcpRate(LdcpConfig),
    /// [`Scheme::Dcqcn`] with its constants.
    Dcqcn(DcqcnConfig),
    /// [`Scheme::Timely`] with its constants.
    Timely(TimelyConfig),
    /// [`Scheme::Dctcp`] with its constants.
    Dctcp(DctcpConfig),
    /// [`Scheme::Hpcc`] with its constants.
    Hpcc(HpccConfig),
    /// [`Scheme::None`]: no constants.
    None,
}

impl SchemeConfig {
    /// The scheme this configures.
    pub fn scheme(&self) -> Scheme {
        match self {
            SchemeConfig::Ldcp(_) => Scheme::Ldcp,
            SchemeConfig::LdcpRate(_) => Scheme::LdcpRate,
            SchemeConfig::Dcqcn(_) => Scheme::Dcqcn,
            SchemeConfig::Timely(_) => Scheme::Timely,
            SchemeConfig::Dctcp(_) => Scheme::Dctcp,
            SchemeConfig::Hpcc(_) => Scheme::Hpcc,
            SchemeConfig::None => Scheme::None,
        }
    }

    /// Checks the constants on the path `sender` describes (e.g. LDCP's IW = BDP must be at
    /// least a byte, DCQCN's minimum rate at most the line rate, HPCC's path must deliver INT
    /// records); the error names the Rust field.
    pub fn validate(&self, sender: &SenderConfig) -> Result<(), ConfigError> {
        sender.validate()?;
        match self {
            SchemeConfig::Ldcp(c) | SchemeConfig::LdcpRate(c) => c.validate_for(sender),
            SchemeConfig::Dcqcn(c) => c.validate_for(sender),
            SchemeConfig::Timely(c) => c.validate_for(sender),
            SchemeConfig::Dctcp(c) => c.validate_for(sender),
            SchemeConfig::Hpcc(c) => c.validate_for(sender),
            SchemeConfig::None => Ok(()),
        }
    }

    /// The HPCC simulator's model: the `hpcc-sim` preset of DCQCN, TIMELY, DCTCP or HPCC.
    pub fn is_hpcc_sim(&self) -> bool {
        match self {
            SchemeConfig::Dcqcn(c) => c.resolved().model == RpModel::HpccSim,
            SchemeConfig::Timely(c) => c.preset == rdma_cc_timely::Preset::HpccSim,
            SchemeConfig::Dctcp(c) => c.preset == rdma_cc_dctcp::Preset::HpccSim,
            SchemeConfig::Hpcc(c) => c.preset == rdma_cc_hpcc::Preset::HpccSim,
            _ => false,
        }
    }

    /// The path the controller sees: the `hpcc-sim` presets take the fabric's largest base
    /// RTT ([`rdma_cc_transport::Path::fabric_base_rtt`], when known) for the flow's own, as
    /// the HPCC simulator gives every flow `maxRtt` and `maxBdp` (`GLOBAL_T 1`,
    /// `third.cc:138`, `run.py:37`): DCTCP's and HPCC's window `R·T` and HPCC's `T`. The
    /// transport's own RTT estimate and RTO keep the flow's path.
    pub fn controller_view(&self, sender: &SenderConfig) -> SenderConfig {
        let fabric = sender.path.fabric_base_rtt;
        if self.is_hpcc_sim() && fabric > Time::ZERO {
            let mut view = *sender;
            view.path.base_rtt = fabric;
            view
        } else {
            *sender
        }
    }

    /// Validates and builds the controller of a `flow_size`-byte message on the path
    /// `sender` describes (as [`Self::controller_view`] shows it to the controller).
    pub fn controller(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
    ) -> Result<SchemeController, ConfigError> {
        let view = self.controller_view(sender);
        let sender = &view;
        self.validate(sender)?;
        Ok(match self {
            SchemeConfig::Ldcp(c) => SchemeController::Ldcp(Ldcp::new(sender, c, flow_size)?),
            SchemeConfig::LdcpRate(c) => {
                SchemeController::LdcpRate(LdcpRate::new(sender, c, flow_size)?)
            }
            SchemeConfig::Dcqcn(c) => SchemeController::Dcqcn(Dcqcn::new(sender, c)?),
            SchemeConfig::Timely(c) => SchemeController::Timely(Timely::new(sender, c)?),
            SchemeConfig::Dctcp(c) => SchemeController::Dctcp(Dctcp::new(sender, c)?),
            SchemeConfig::Hpcc(c) => SchemeController::Hpcc(Hpcc::new(sender, c)?),
            SchemeConfig::None => SchemeController::LineRate(LineRate),
        })
    }

    /// Validates and builds the sender of a `flow_size`-byte message starting at `now`.
    pub fn build(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<SchemeController>, ConfigError> {
        let cc = self.controller(sender, flow_size)?;
        QpSender::new(&self.sender(sender), cc, flow_size, now)
    }

    /// The transport's configuration for this scheme: `sender` with the `hpcc-sim` presets of
    /// TIMELY, DCTCP and HPCC handing NACKs to the controller as ACKs
    /// ([`SenderConfig::nack_as_ack`]): the HPCC simulator's `ReceiveAck` runs
    /// `HandleAckTimely` / `HandleAckDctcp` / `HandleAckHp` for a NACK too
    /// (`rdma-hw.cc:416-434`). DCQCN (`CC_MODE 1`) has no ACK handler there; its controller
    /// reads the NACK's CNP flag in `on_nack`.
    pub fn sender(&self, sender: &SenderConfig) -> SenderConfig {
        let nack_as_ack = self.is_hpcc_sim() && self.scheme() != Scheme::Dcqcn;
        SenderConfig {
            nack_as_ack: sender.nack_as_ack || nack_as_ack,
            ..*sender
        }
    }

    /// The receiver this scheme needs, from the receiving NIC's `base` policy: CNPs for
    /// [`Scheme::LdcpRate`] (draft §3.2: the window decreases "upon every CNP") and
    /// [`Scheme::Dcqcn`] (DCQCN §3.1: the NP sends CNPs, the RP cuts on them), ECN echo in
    /// ACKs otherwise.
    ///
    /// What the receiving NIC leaves automatic (`None`) becomes the scheme's choice:
    /// - DCQCN: its NP's CNP interval `N` = [`DCQCN_CNP_INTERVAL`] (DCQCN §3.1, "We use N = 50µs");
    ///   ACKs by bytes, one per [`DCQCN_ACK_INTERVAL`] and one at the message's end (decision:
    ///   DCQCN's rate control needs no ACKs, so they only carry reliability, as a RoCE
    ///   responder's coalesced ACKs do; 64 KiB keeps them to ~1.6 % of the packets at 1000 B
    ///   payloads while the sender still frees its go-back-N state every 64 KiB);
    /// - LDCP-rate: a CNP per marked packet (N = 0; draft §3.2's "upon *every* CNP");
    /// - the others: ACKs by packets (`ack_every`, default one per packet as the HPCC
    ///   simulator's `L2_ACK_INTERVAL 1` gives TIMELY, DCTCP and HPCC), no CNPs; DCTCP reads
    ///   the ECN-Echo of each ACK, TIMELY the send timestamp it echoes, HPCC the INT hop
    ///   records it echoes. Under their `hpcc-sim` presets a NACK is repeated after 500 µs
    ///   ([`HPCC_SIM_NACK_INTERVAL`], the simulator's receiver for every scheme) unless the
    ///   NIC sets `renack_interval`; as the simulator's receiver they send nothing for a
    ///   duplicate packet (`ack_duplicates` off, `rdma-hw.cc:476-478`) and their NACKs echo
    ///   INT (`nack_echoes_int`, `rdma-hw.cc:313-320`), and the sender hands each NACK to the
    ///   controller as an ACK too ([`SenderConfig::nack_as_ack`], `rdma-hw.cc:416-434`).
    ///
    /// DCQCN under its `hpcc-sim` preset ([`RpModel::HpccSim`]) takes the HPCC simulator's
    /// receiver instead (`rdma-hw.cc` `ReceiveUdp` / `ReceiverCheckSeq`, its `run.py`
    /// `L2_ACK_INTERVAL 1`): every packet is ACKed (`ack_every`, default 1; no ACK by bytes),
    /// the ACK's ECN-Echo is the CE of the packet it answers (the peer's CNP flag, which the
    /// sender treats as a CNP), no CNP packets, and a NACK repeated after 500 µs
    /// (`NACK Generation Interval`, default 500 µs); nothing for a duplicate, INT-echoing
    /// NACKs as above. What the NIC sets explicitly still wins:
    /// `ack_interval` ACKs by bytes (ECE: any covered packet marked), `cnp_interval` sends CNP
    /// packets as well (the sender reacts to both the same way), `renack_interval` its own.
    pub fn receiver(&self, base: &ReceiverConfig) -> ReceiverConfig {
        if let SchemeConfig::Dcqcn(c) = self {
            if c.resolved().model == RpModel::HpccSim {
                return ReceiverConfig {
                    send_cnp: base.cnp_interval.is_some(),
                    renack_interval: base.renack_interval.or(Some(HPCC_SIM_NACK_INTERVAL)),
                    ack_duplicates: false,
                    nack_echoes_int: true,
                    ..*base
                };
            }
        }
        // the HPCC simulator's receiver repeats a NACK after 500 µs for every scheme
        // (rdma-hw.cc:37-41,467-468): TIMELY's, DCTCP's and HPCC's hpcc-sim presets too
        let renack_interval = if self.is_hpcc_sim() {
            base.renack_interval.or(Some(HPCC_SIM_NACK_INTERVAL))
        } else {
            base.renack_interval
        };
        let (cnp_interval, ack_interval) = match self {
            SchemeConfig::Dcqcn(_) => (
                base.cnp_interval.or(Some(DCQCN_CNP_INTERVAL)),
                base.ack_interval.or(Some(DCQCN_ACK_INTERVAL)),
            ),
            _ => (base.cnp_interval, base.ack_interval),
        };
        let sim = self.is_hpcc_sim();
        ReceiverConfig {
            send_cnp: matches!(self, SchemeConfig::LdcpRate(_) | SchemeConfig::Dcqcn(_)),
            cnp_interval,
            ack_interval,
            renack_interval,
            // the simulator's receiver: nothing for a duplicate (rdma-hw.cc:476-478), and
            // its NACK is the ACK's header with the packet's INT (rdma-hw.cc:313-320)
            ack_duplicates: base.ack_duplicates && !sim,
            nack_echoes_int: base.nack_echoes_int || sim,
            ..*base
        }
    }
}

/// The controller chosen by a [`SchemeConfig`]; implements [`Controller`] by delegating.
#[derive(Debug, Clone)]
pub enum SchemeController {
    /// [`Scheme::Ldcp`].
    Ldcp(Ldcp),
    /// [`Scheme::LdcpRate`].
    LdcpRate(LdcpRate),
    /// [`Scheme::Dcqcn`].
    Dcqcn(Dcqcn),
    /// [`Scheme::Timely`].
    Timely(Timely),
    /// [`Scheme::Dctcp`].
    Dctcp(Dctcp),
    /// [`Scheme::Hpcc`].
    Hpcc(Hpcc),
    /// [`Scheme::None`].
    LineRate(LineRate),
}

impl SchemeController {
    /// The scheme of this controller.
    pub fn scheme(&self) -> Scheme {
        match self {
            SchemeController::Ldcp(_) => Scheme::Ldcp,
            SchemeController::LdcpRate(_) => Scheme::LdcpRate,
            SchemeController::Dcqcn(_) => Scheme::Dcqcn,
            SchemeController::Timely(_) => Scheme::Timely,
            SchemeController::Dctcp(_) => Scheme::Dctcp,
            SchemeController::Hpcc(_) => Scheme::Hpcc,
            SchemeController::LineRate(_) => Scheme::None,
        }
    }

    /// How the flow left fast start: window LDCP's [`Ldcp::fast_start_exit`];
    /// [`FastStartExit::None`] for schemes without fast start.
    pub fn fast_start_exit(&self) -> FastStartExit {
        match self {
            SchemeController::Ldcp(c) => c.fast_start_exit(),
            SchemeController::LdcpRate(_)
            | SchemeController::Dcqcn(_)
            | SchemeController::Timely(_)
            | SchemeController::Dctcp(_)
            | SchemeController::Hpcc(_)
            | SchemeController::LineRate(_) => FastStartExit::None,
        }
    }

    /// The LDCP stage, for the LDCP schemes.
    pub fn stage(&self) -> Option<Stage> {
        match self {
            SchemeController::Ldcp(c) => Some(c.stage()),
            SchemeController::LdcpRate(c) => Some(c.stage()),
            SchemeController::Dcqcn(_)
            | SchemeController::Timely(_)
            | SchemeController::Dctcp(_)
            | SchemeController::Hpcc(_)
            | SchemeController::LineRate(_) => None,
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            SchemeController::Ldcp($c) => $e,
            SchemeController::LdcpRate($c) => $e,
            SchemeController::Dcqcn($c) => $e,
            SchemeController::Timely($c) => $e,
            SchemeController::Dctcp($c) => $e,
            SchemeController::Hpcc($c) => $e,
            SchemeController::LineRate($c) => $e,
        }
    };
}

impl Controller for SchemeController {
    fn window(&self) -> Option<f64> {
        dispatch!(self, c => c.window())
    }
    fn cw(&self) -> Option<f64> {
        dispatch!(self, c => c.cw())
    }
    fn pacing_rate(&self, srtt: Time) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate(srtt))
    }
    fn ecn(&self, seq: u64, len: u32) -> Ecn {
        dispatch!(self, c => c.ecn(seq, len))
    }
    fn rtt_source(&self) -> RttSource {
        dispatch!(self, c => c.rtt_source())
    }
    fn in_fast_start(&self) -> bool {
        dispatch!(self, c => c.in_fast_start())
    }
    fn on_sent(&mut self, now: Time, pkt: &TxPacket) {
        dispatch!(self, c => c.on_sent(now, pkt))
    }
    fn on_ack(&mut self, ack: &AckEvent) {
        dispatch!(self, c => c.on_ack(ack))
    }
    fn on_ack_int(&mut self, ack: &AckEvent, int: &IntRecords) {
        dispatch!(self, c => c.on_ack_int(ack, int))
    }
    fn on_nack(&mut self, nack: &NackEvent) {
        dispatch!(self, c => c.on_nack(nack))
    }
    fn on_rto(&mut self, now: Time, acked_packets: u64) {
        dispatch!(self, c => c.on_rto(now, acked_packets))
    }
    fn on_cnp(&mut self, now: Time) {
        dispatch!(self, c => c.on_cnp(now))
    }
    fn on_probe_response(&mut self, now: Time) {
        dispatch!(self, c => c.on_probe_response(now))
    }
    fn next_timeout(&self) -> Option<Time> {
        dispatch!(self, c => c.next_timeout())
    }
    fn on_timeout(&mut self, now: Time) {
        dispatch!(self, c => c.on_timeout(now))
    }
}

/// The switch settings a scheme expects on the egress queue of its data priority: ECN marking
/// on the instantaneous queue and, for LDCP's fast start, the WRED threshold of Not-ECT
/// packets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Marking {
    /// Marking starts at this queue length (bytes).
    pub k_min: u64,
    /// Marking probability reaches 1 at this queue length (bytes).
    pub k_max: u64,
    /// Marking probability just below `k_max`.
    pub p_max: f64,
    /// Not-ECT packets are dropped at or above this queue length (bytes).
    pub k_fs: u64,
    /// Egress queue limit of the data priority on lossy runs (bytes): a packet that would
    /// take the queue past it is tail-dropped.
    pub buf_max: u64,
}

/// LDCP's `K_fs` in units of `K_min` (with `K_min` half a hop's BDP: 6 hop BDPs, `K_max` plus
/// 4 hop BDPs). Chosen by the sweep in the README ("LDCP defaults"): first-RTT packets must
/// find room above the queue the long flows hold (up to `K_max`) for about two fast-start
/// bursts of one path BDP each; `K_fs = K_min`, the draft's starting point, dropped nearly
/// every first-RTT packet under churn.
const LDCP_K_FS_PER_K_MIN: u64 = 12;

/// LDCP's `K_max` in units of `K_min` (2 hop BDPs with `K_min` half a hop's BDP), chosen by
/// the sweep in the README ("LDCP defaults").
const LDCP_K_MAX_PER_K_MIN: u64 = 4;

/// LDCP's marking probability just below `K_max`, chosen by the sweep in the README.
const LDCP_P_MAX: f64 = 0.2;

/// DCTCP's step: every ECT packet at or above `K` is marked (DCTCP §3.1).
const DCTCP_P_MAX: f64 = 1.0;

/// The lossy queue limit in units of `K_min` (80 hop BDPs: 2 MB at 100 Gb/s with 1 µs links,
/// 8 MB at 400 Gb/s), at least [`BUF_MAX_FLOOR`]; chosen by the sweep in the README: no
/// stable-stage (ECT) packet is lost in a 1000-sender incast at 25, 100 or 400 Gb/s.
const BUF_MAX_PER_K_MIN: u64 = 160;

/// The smallest automatic lossy queue limit, 2 MB (a port's share of a 32 MB shallow-buffer
/// switch with 16 ports): an incast of `N` senders below one packet holds about `N·γ·MTU`
/// whatever the link's BDP, so a 1000-sender incast at 25 Gb/s needs about 1.1 MB.
const BUF_MAX_FLOOR: u64 = 2_000_000;

/// The automatic lossy queue limit for marking threshold `k_min` (at least `k_max`).
fn buf_max_for(k_min: u64, k_max: u64) -> u64 {
    k_min
        .saturating_mul(BUF_MAX_PER_K_MIN)
        .max(BUF_MAX_FLOOR)
        .max(k_max)
}

/// The link rate DCQCN's published marking thresholds are for (DCQCN §3.1 and §5: 40 Gb/s).
const DCQCN_MARKING_RATE: Rate = Rate::gbps(40);

/// DCQCN's congestion point at 40 Gb/s, the values the paper settles on (DCQCN §5):
/// `K_min` = 5 KB.
const DCQCN_K_MIN: u64 = 5_000;
/// `K_max` = 200 KB at 40 Gb/s (DCQCN §5).
const DCQCN_K_MAX: u64 = 200_000;
/// `P_max` = 1 % (DCQCN §5).
const DCQCN_P_MAX: f64 = 0.01;

/// `bytes` scaled by `rate / 40 Gb/s` (rounded down).
fn dcqcn_scaled(bytes: u64, rate: Rate) -> u64 {
    scaled(bytes, rate, DCQCN_MARKING_RATE)
}

/// `bytes` scaled by `rate / at` (rounded down).
fn scaled(bytes: u64, rate: Rate, at: Rate) -> u64 {
    let b = u128::from(bytes) * u128::from(rate.0) / u128::from(at.0.max(1));
    u64::try_from(b).unwrap_or(u64::MAX)
}

/// DCTCP's marking threshold `K` per 10 Gb/s of port speed: the HPCC simulator's `run.py`
/// (`cc == "dctcp"`: `KMIN_MAP = KMAX_MAP = 30 KB × bw / 10`, `PMAX_MAP 1.0`).
const DCTCP_K_PER_10G: u64 = 30_000;
/// The port speed [`DCTCP_K_PER_10G`] is for.
const DCTCP_MARKING_RATE: Rate = Rate::gbps(10);

/// The link speed the HPCC simulator's per-speed DCQCN marking maps are written for: its
/// `run.py` writes `KMIN_MAP` / `KMAX_MAP` as `100 KB × bw / 25` and `400 KB × bw / 25` for a
/// NIC speed of `bw` Gb/s (and 4 × for the 4 × faster core links), `PMAX_MAP 0.2`.
const HPCC_SIM_MARKING_RATE: Rate = Rate::gbps(25);
/// The HPCC simulator's DCQCN `K_min` per 25 Gb/s (`run.py`: `100*bw/25` KB; 400 KB at 100 Gb/s).
const HPCC_SIM_K_MIN_PER_25G: u64 = 100_000;
/// The HPCC simulator's DCQCN `K_max` per 25 Gb/s (`run.py`: `400*bw/25` KB; 1600 KB at 100 Gb/s).
const HPCC_SIM_K_MAX_PER_25G: u64 = 400_000;
/// The HPCC simulator's DCQCN `P_max` (`run.py`: `PMAX_MAP ... 0.2`).
const HPCC_SIM_P_MAX: f64 = 0.2;

/// The switch settings of DCQCN under its `hpcc-sim` preset on a link of `rate` carrying frames
/// of `frame` bytes: the HPCC simulator's per-speed maps (`run.py`, `cc == "dcqcn"`), `K_min` =
/// 100 KB and `K_max` = 400 KB per 25 Gb/s, `P_max` = 0.2 (`K_min` at least one frame);
/// `K_fs = K_min`, the queue limit as every scheme's.
pub fn hpcc_sim_dcqcn_marking(rate: Rate, frame: u64) -> Marking {
    hpcc_sim_dcqcn_marking_from(
        scaled(HPCC_SIM_K_MIN_PER_25G, rate, HPCC_SIM_MARKING_RATE).max(frame),
    )
}

/// [`hpcc_sim_dcqcn_marking`] from a given `K_min`: `K_max = 4·K_min` (the maps' ratio),
/// `P_max` = 0.2, `K_fs = K_min`.
pub fn hpcc_sim_dcqcn_marking_from(k_min: u64) -> Marking {
    let k_max = k_min.saturating_mul(HPCC_SIM_K_MAX_PER_25G / HPCC_SIM_K_MIN_PER_25G);
    Marking {
        k_min,
        k_max,
        p_max: HPCC_SIM_P_MAX,
        k_fs: k_min,
        buf_max: buf_max_for(k_min, k_max),
    }
}

impl Scheme {
    /// Whether the scheme runs on a lossless (PFC) priority as deployed: LDCP is PFC-free
    /// (draft-dai-tsvwg-ldcp-01 §1), and line-rate senders are shown lossy unless asked; DCQCN
    /// is deployed with PFC (DCQCN §3.2: "DCQCN does not obviate the need for PFC"); TIMELY and
    /// DCTCP run with PFC as the HPCC simulator runs them (decision: its users reproduce those
    /// comparisons, and neither controller reacts to loss); HPCC too (the simulator runs it
    /// with PFC; it defines no loss reaction). Examples use it as the default of their `--pfc`
    /// option.
    pub fn lossless_by_default(self) -> bool {
        match self {
            Scheme::Ldcp | Scheme::LdcpRate | Scheme::None => false,
            Scheme::Dcqcn | Scheme::Timely | Scheme::Dctcp | Scheme::Hpcc => true,
        }
    }

    /// Whether the scheme sends Not-ECT data that a lossy switch drops at `K_fs` (WRED
    /// threshold drop): LDCP's fast start sends its first-RTT packets Not-ECT so that the
    /// switch drops them rather than queue them (draft-dai-tsvwg-ldcp-01 §2.1), in both
    /// variants. Every other scheme's data is ECT(0), so a switch carrying only those needs
    /// no Not-ECT drop.
    pub fn drops_not_ect(self) -> bool {
        matches!(self, Scheme::Ldcp | Scheme::LdcpRate)
    }

    /// Whether the scheme needs the switches on its flows' paths to write INT hop records
    /// (HPCC, Li et al. SIGCOMM 2019 §3): the default of a switch's INT where the scheme runs.
    /// A flow of such a scheme on a path without them is refused
    /// ([`rdma_cc_transport::Path::int_telemetry`]).
    pub fn needs_int(self) -> bool {
        matches!(self, Scheme::Hpcc)
    }

    /// The switch settings this scheme starts from on a link of `rate` and one-way `delay`
    /// carrying frames of `frame` bytes (meant to be tuned by a sweep; every example exposes
    /// them).
    /// - LDCP (and line-rate senders, shown against the same switch): `K_min` = half the BDP
    ///   of one hop (`rate × 2·delay / 2`, at least one frame), and the rest from it
    ///   ([`Self::marking_from`]): `K_max` = 2, `K_fs` = 6 and the queue limit 80 hop BDPs.
    /// - DCQCN: the paper's 40 Gb/s values (`K_min` = 5 KB, `K_max` = 200 KB, `P_max` = 1 %,
    ///   DCQCN §5) scaled by `rate / 40 Gb/s`, `K_min` at least one frame and `K_max` at least
    ///   `K_min`; `K_fs = K_min`. Decision: the paper gives thresholds for 40 Gb/s only, and
    ///   deployed switches scale their ECN thresholds with port speed (per-speed maps, as
    ///   DCQCN's CP must allow); the thresholds do not depend on `delay`.
    /// - TIMELY and HPCC: DCQCN's (neither reacts to marks; the HPCC simulator runs every
    ///   scheme but DCTCP under the same marking as DCQCN, and marks on a queue HPCC keeps near
    ///   zero are rare).
    /// - DCTCP: a step at `K` = 30 KB × `rate` / 10 Gb/s, `K_min = K_max = K`, `P_max` = 1
    ///   (every ECT packet that finds `K` bytes queued is marked: DCTCP §3.1, "a single
    ///   parameter, the marking threshold K"), at least one frame; `K_fs = K`. The 30 KB per
    ///   10 Gb/s are the HPCC simulator's per-speed maps (its `run.py`).
    pub fn marking(self, rate: Rate, delay: Time, frame: u64) -> Marking {
        match self {
            Scheme::Dctcp => {
                self.marking_from(scaled(DCTCP_K_PER_10G, rate, DCTCP_MARKING_RATE).max(frame))
            }
            Scheme::Dcqcn | Scheme::Timely | Scheme::Hpcc => {
                let k_min = dcqcn_scaled(DCQCN_K_MIN, rate).max(frame);
                let k_max = dcqcn_scaled(DCQCN_K_MAX, rate).max(k_min);
                Marking {
                    k_min,
                    k_max,
                    p_max: DCQCN_P_MAX,
                    k_fs: k_min,
                    buf_max: buf_max_for(k_min, k_max),
                }
            }
            Scheme::Ldcp | Scheme::LdcpRate | Scheme::None => {
                let hop_bdp = rate.bytes_in(Time(delay.0.saturating_mul(2))).0;
                self.marking_from((hop_bdp / 2).max(frame))
            }
        }
    }

    /// The switch settings this scheme derives from the marking threshold `k_min` (bytes), the
    /// one [`Self::marking`] starts from or one the user gave. LDCP's (also used for line-rate
    /// senders, `none`), chosen by the sweep in the README: `K_max = 4·K_min`, `P_max = 0.2`,
    /// `K_fs = 12·K_min`. DCQCN's: the paper's ratio `K_max = 40·K_min` (200 KB / 5 KB),
    /// `P_max = 0.01`, `K_fs = K_min` (TIMELY's and HPCC's too). DCTCP's: the step `K_max = K_min`,
    /// `P_max = 1`, `K_fs = K_min`. Every scheme's lossy queue limit: `160·K_min`, at least
    /// 2 MB and `K_max`.
    pub fn marking_from(self, k_min: u64) -> Marking {
        match self {
            Scheme::Dctcp => Marking {
                k_min,
                k_max: k_min,
                p_max: DCTCP_P_MAX,
                k_fs: k_min,
                buf_max: buf_max_for(k_min, k_min),
            },
            Scheme::Dcqcn | Scheme::Timely | Scheme::Hpcc => Marking {
                k_min,
                k_max: k_min.saturating_mul(DCQCN_K_MAX / DCQCN_K_MIN),
                p_max: DCQCN_P_MAX,
                k_fs: k_min,
                buf_max: buf_max_for(k_min, k_min.saturating_mul(DCQCN_K_MAX / DCQCN_K_MIN)),
            },
            Scheme::Ldcp | Scheme::LdcpRate | Scheme::None => Marking {
                k_min,
                k_max: k_min.saturating_mul(LDCP_K_MAX_PER_K_MIN),
                p_max: LDCP_P_MAX,
                k_fs: k_min.saturating_mul(LDCP_K_FS_PER_K_MIN),
                buf_max: buf_max_for(k_min, k_min.saturating_mul(LDCP_K_MAX_PER_K_MIN)),
            },
        }
    }
}

/// The [`Marking`] values a user gave (`None`: not given; the scheme derives it).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GivenMarking {
    /// [`Marking::k_min`].
    pub k_min: Option<u64>,
    /// [`Marking::k_max`].
    pub k_max: Option<u64>,
    /// [`Marking::p_max`].
    pub p_max: Option<f64>,
    /// [`Marking::k_fs`].
    pub k_fs: Option<u64>,
    /// [`Marking::buf_max`].
    pub buf_max: Option<u64>,
}

impl Scheme {
    /// The marking a run of this scheme uses on links of `rate` and one-way `delay` carrying
    /// frames of `frame` bytes, with the values the user gave: derived from the given `K_min`
    /// ([`Self::marking_from`]: `K_max`, `K_fs` and the queue limit follow it) or from the link
    /// ([`Self::marking`]), then each other given value in place of the derived one. DCQCN under
    /// its `hpcc-sim` preset (`dcqcn_preset`) marks as the HPCC simulator
    /// ([`hpcc_sim_dcqcn_marking`], [`hpcc_sim_dcqcn_marking_from`]).
    pub fn marking_with(
        self,
        dcqcn_preset: Option<DcqcnPreset>,
        rate: Rate,
        delay: Time,
        frame: u64,
        given: &GivenMarking,
    ) -> Marking {
        let hpcc_sim = self == Scheme::Dcqcn && dcqcn_preset == Some(DcqcnPreset::HpccSim);
        let derived = match (given.k_min, hpcc_sim) {
            (Some(k_min), true) => hpcc_sim_dcqcn_marking_from(k_min),
            (Some(k_min), false) => self.marking_from(k_min),
            (None, true) => hpcc_sim_dcqcn_marking(rate, frame),
            (None, false) => self.marking(rate, delay, frame),
        };
        Marking {
            k_min: derived.k_min,
            k_max: given.k_max.unwrap_or(derived.k_max),
            p_max: given.p_max.unwrap_or(derived.p_max),
            k_fs: given.k_fs.unwrap_or(derived.k_fs),
            buf_max: given.buf_max.unwrap_or(derived.buf_max),
        }
    }
}

/// A value of [`Marking`] an example derives from the scheme when the user does not give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkingField {
    /// [`Marking::k_min`].
    KMin,
    /// [`Marking::k_max`].
    KMax,
    /// [`Marking::p_max`].
    PMax,
    /// [`Marking::k_fs`].
    KFs,
    /// [`Marking::buf_max`].
    BufMax,
}

impl FromStr for MarkingField {
    type Err = ConfigError;

    /// Parses a field name as [`Marking`] spells it (`k_min`, `k_max`, `p_max`, `k_fs`,
    /// `buf_max`); the error names the field `marking field`.
    fn from_str(s: &str) -> Result<MarkingField, ConfigError> {
        match s {
            "k_min" => Ok(MarkingField::KMin),
            "k_max" => Ok(MarkingField::KMax),
            "p_max" => Ok(MarkingField::PMax),
            "k_fs" => Ok(MarkingField::KFs),
            "buf_max" => Ok(MarkingField::BufMax),
            _ => Err(ConfigError::new(
                "marking field",
                s,
                "must be one of k_min, k_max, p_max, k_fs, buf_max",
            )),
        }
    }
}

/// `bytes` in KB, or MB when a whole number of them (help texts).
fn kb(bytes: u64) -> String {
    if bytes.is_multiple_of(1_000_000) {
        format!("{} MB", bytes / 1_000_000)
    } else {
        format!("{} KB", bytes as f64 / 1e3)
    }
}

/// `rate` in Gb/s (help texts).
fn gbps(rate: Rate) -> String {
    format!("{} Gb/s", rate.0 as f64 / 1e9)
}

/// How every scheme derives `field` when it is not given ([`Scheme::marking`] with the
/// automatic `K_min`, [`Scheme::marking_from`] with a given one), in words: the help text of
/// an example's `auto` value. Written from the same constants, so the numbers cannot drift.
pub fn marking_auto_help(field: MarkingField) -> String {
    const LDCP: &str = "ldcp, ldcp-rate and none";
    const DCQCN: &str = "dcqcn, timely and hpcc";
    match field {
        MarkingField::KMin => format!(
            "the scheme's starting point, at least one frame: {LDCP} half the BDP of one hop; \
             {DCQCN} {} per {} of link rate (DCQCN §5); dctcp {} per {}",
            kb(DCQCN_K_MIN),
            gbps(DCQCN_MARKING_RATE),
            kb(DCTCP_K_PER_10G),
            gbps(DCTCP_MARKING_RATE)
        ),
        MarkingField::KMax => format!(
            "the scheme's: {LDCP} {LDCP_K_MAX_PER_K_MIN} x K_min; {DCQCN} {} x K_min ({} per {} \
             with the automatic K_min); dctcp K_min (a step)",
            DCQCN_K_MAX / DCQCN_K_MIN,
            kb(DCQCN_K_MAX),
            gbps(DCQCN_MARKING_RATE)
        ),
        MarkingField::PMax => {
            format!("the scheme's: {LDCP} {LDCP_P_MAX}; {DCQCN} {DCQCN_P_MAX}; dctcp {DCTCP_P_MAX}")
        }
        MarkingField::KFs => format!(
            "the scheme's: {LDCP} {LDCP_K_FS_PER_K_MIN} x K_min ({} BDPs of one hop with the \
             automatic K_min); dcqcn, timely, hpcc and dctcp K_min",
            LDCP_K_FS_PER_K_MIN / 2
        ),
        MarkingField::BufMax => format!(
            "{BUF_MAX_PER_K_MIN} x K_min, at least {} and K_max ({} BDPs of one hop with LDCP's \
             automatic K_min)",
            kb(BUF_MAX_FLOOR),
            BUF_MAX_PER_K_MIN / 2
        ),
    }
}

/// The help text of an example's `auto` value for option field `field`: a marking field
/// ([`MarkingField`]'s names, [`marking_auto_help`]), `pfc` (which schemes are lossless by
/// default, [`Scheme::lossless_by_default`]) or `int` (which need INT, [`Scheme::needs_int`]).
/// The error names an unknown field (`marking field`).
pub fn auto_help(field: &str) -> Result<String, ConfigError> {
    let names = |f: fn(Scheme) -> bool| {
        Scheme::ALL
            .into_iter()
            .filter(|&s| f(s))
            .map(Scheme::name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Ok(match field {
        "pfc" => format!(
            "as the scheme is deployed: {} lossy; {} lossless",
            names(|s| !s.lossless_by_default()),
            names(Scheme::lossless_by_default)
        ),
        "int" => format!(
            "on when the scheme needs INT ({}), else off",
            names(Scheme::needs_int)
        ),
        _ => marking_auto_help(field.parse::<MarkingField>()?),
    })
}

/// Everything a host NIC configures for the flows it sends and receives: the scheme of new
/// flows, their data priority, the transport's timers, the receiver's ACK/CNP policy, and the
/// constants of every scheme (so that flows of different schemes can share a NIC).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NicConfig {
    /// Scheme of the flows added from now on (default [`Scheme::Ldcp`]).
    pub scheme: Scheme,
    /// Priority class (0–7) of the data of new flows (default 3, the lossless class of
    /// DCQCN's deployment; LDCP runs it lossy).
    pub priority: u8,
    /// Transport parameters (MTU, RTO, RTT gain; the path fields are set per flow).
    pub sender: SenderConfig,
    /// Receiver ACK/CNP policy (`send_cnp` is set per flow by the scheme).
    pub receiver: ReceiverConfig,
    /// LDCP's constants ([`Scheme::Ldcp`], [`Scheme::LdcpRate`]).
    pub ldcp: LdcpConfig,
    /// DCQCN's constants ([`Scheme::Dcqcn`]).
    pub dcqcn: DcqcnConfig,
    /// TIMELY's constants ([`Scheme::Timely`]).
    pub timely: TimelyConfig,
    /// DCTCP's constants ([`Scheme::Dctcp`]).
    pub dctcp: DctcpConfig,
    /// HPCC's constants ([`Scheme::Hpcc`]).
    pub hpcc: HpccConfig,
}

impl Default for NicConfig {
    fn default() -> Self {
        NicConfig {
            scheme: Scheme::Ldcp,
            priority: 3,
            sender: SenderConfig::default(),
            receiver: ReceiverConfig::default(),
            ldcp: LdcpConfig::default(),
            dcqcn: DcqcnConfig::default(),
            timely: TimelyConfig::default(),
            dctcp: DctcpConfig::default(),
            hpcc: HpccConfig::default(),
        }
    }
}

/// The NIC's own parameters (the first part of [`NicConfig::param_specs`]).
const NIC_PARAMS: &[Param<NicConfig>] = &[
    Param {
        spec: ParamSpec {
            choices: &Scheme::NAMES,
            ..ParamSpec::new(
                "scheme",
                "cc",
                "Scheme",
                ParamKind::Choice,
                "Congestion control of new flows: ldcp (LDCP window, per-ACK), ldcp-rate \
                 (LDCP rate-based: RTT probes and CNPs), dcqcn (DCQCN rate control on CNPs, \
                 with PFC), timely (TIMELY RTT-gradient rate, with PFC), dctcp (DCTCP for \
                 RDMA: ECN-echo window and rate, with PFC), hpcc (HPCC: INT-based window and \
                 rate, with PFC; needs INT at the switches), none (line rate).",
            )
        },
        get: |c| ParamValue::Choice(c.scheme.name().to_string()),
        set: |c, v| c.scheme = v.text().parse().unwrap_or(c.scheme),
    },
    Param {
        spec: ParamSpec {
            max: Limit::incl(7.0),
            ..ParamSpec::new(
                "priority",
                "priority",
                "Priority",
                ParamKind::Count,
                "Priority class (0-7) of the data of new flows that do not name their own (a \
                 flow file's priority column, --classes, AddFlow's priority: docs/classes.md); \
                 the switches mark it, and pause it when it is lossless; control frames (ACK, \
                 NACK, CNP) use the control class.",
            )
        },
        get: |c| ParamValue::Count(c.priority.into()),
        set: |c, v| c.priority = u8::try_from(v.int()).unwrap_or(7),
    },
];

impl Params for NicConfig {
    fn params() -> &'static [Param<Self>] {
        NIC_PARAMS
    }
}

/// The flat table of [`NicConfig::param_specs`]: the NIC's own parameters, then the sender's
/// ([`SenderConfig`]), the receiver's ([`ReceiverConfig`]), LDCP's ([`LdcpConfig`]),
/// DCQCN's ([`DcqcnConfig`]), TIMELY's ([`TimelyConfig`]), DCTCP's ([`DctcpConfig`]) and
/// HPCC's ([`HpccConfig`]).
const NIC_TABLE: FlatTable<NicConfig> = FlatTable {
    parts: &[
        &Field {
            get: |c: &NicConfig| c,
            get_mut: |c: &mut NicConfig| c,
        },
        &Field {
            get: |c: &NicConfig| &c.sender,
            get_mut: |c: &mut NicConfig| &mut c.sender,
        },
        &Field {
            get: |c: &NicConfig| &c.receiver,
            get_mut: |c: &mut NicConfig| &mut c.receiver,
        },
        &Field {
            get: |c: &NicConfig| &c.ldcp,
            get_mut: |c: &mut NicConfig| &mut c.ldcp,
        },
        &Field {
            get: |c: &NicConfig| &c.dcqcn,
            get_mut: |c: &mut NicConfig| &mut c.dcqcn,
        },
        &Field {
            get: |c: &NicConfig| &c.timely,
            get_mut: |c: &mut NicConfig| &mut c.timely,
        },
        &Field {
            get: |c: &NicConfig| &c.dctcp,
            get_mut: |c: &mut NicConfig| &mut c.dctcp,
        },
        &Field {
            get: |c: &NicConfig| &c.hpcc,
            get_mut: |c: &mut NicConfig| &mut c.hpcc,
        },
    ],
};

impl NicConfig {
    /// Every parameter of a NIC, in one flat table (indexes for [`Self::get`]/[`Self::set`]).
    pub fn param_specs() -> Vec<&'static ParamSpec<'static>> {
        NIC_TABLE.specs()
    }

    /// Reads parameter `i` of [`Self::param_specs`].
    pub fn get(&self, i: usize) -> Option<ParamValue> {
        NIC_TABLE.get(self, i)
    }

    /// Checks `v` against parameter `i`'s spec and stores it; the error names the Rust field.
    pub fn set(&mut self, i: usize, v: &ParamValue) -> Result<(), ConfigError> {
        NIC_TABLE
            .set(self, i, v)
            .unwrap_or_else(|| Err(ConfigError::new("parameter", i, "no such NIC parameter")))
    }

    /// The spec of the parameter whose Rust field is `name` (names are unique across the
    /// parts).
    pub fn spec_by_name(name: &str) -> Option<&'static ParamSpec<'static>> {
        Self::param_specs().into_iter().find(|s| s.name == name)
    }

    /// The configuration of `scheme` with this NIC's constants.
    pub fn scheme_config(&self, scheme: Scheme) -> SchemeConfig {
        match scheme {
            Scheme::Ldcp => SchemeConfig::Ldcp(self.ldcp),
            Scheme::LdcpRate => SchemeConfig::LdcpRate(self.ldcp),
            Scheme::Dcqcn => SchemeConfig::Dcqcn(self.dcqcn),
            Scheme::Timely => SchemeConfig::Timely(self.timely),
            Scheme::Dctcp => SchemeConfig::Dctcp(self.dctcp),
            Scheme::Hpcc => SchemeConfig::Hpcc(self.hpcc),
            Scheme::None => SchemeConfig::None,
        }
    }

    /// The transport configuration of a flow on `path` (this NIC's MTU and timers).
    pub fn sender_on(&self, path: &Path) -> SenderConfig {
        self.sender.on_path(path)
    }

    /// Validates everything a flow of [`Self::scheme`] on `path` would use; the error names
    /// the Rust field.
    pub fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        self.validate_all()?;
        self.receiver.validate()?;
        self.scheme_config(self.scheme)
            .validate(&self.sender_on(path))
    }

    /// Validates and builds the sender of a `flow_size`-byte message of [`Self::scheme`] on
    /// `path`, starting at `now`.
    pub fn build_sender(
        &self,
        path: &Path,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<SchemeController>, ConfigError> {
        self.validate_all()?;
        self.scheme_config(self.scheme)
            .build(&self.sender_on(path), flow_size, now)
    }

    /// The receiver of a flow of `scheme` arriving at this NIC: this NIC's ACK/CNP policy,
    /// adapted to the scheme, with the sender's `mtu`.
    pub fn receiver_for(&self, scheme: Scheme) -> ReceiverConfig {
        ReceiverConfig {
            mtu: self.sender.mtu,
            ..self.scheme_config(scheme).receiver(&self.receiver)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::Bytes;
    use rdma_cc_transport::Poll;
    use std::collections::HashSet;

    #[test]
    fn marking_with_puts_given_values_in_place_of_the_derived_ones() {
        let (rate, delay, frame) = (Rate::gbps(100), Time::us(1), 1062);
        let none = GivenMarking::default();
        // LDCP at 100 Gb/s, 1 us: K_min half a hop's BDP (25 KB), K_max 4x, K_fs 12x
        let m = Scheme::Ldcp.marking_with(None, rate, delay, frame, &none);
        assert_eq!(
            (m.k_min, m.k_max, m.k_fs, m.buf_max),
            (12_500, 50_000, 150_000, 2_000_000)
        );
        assert_eq!(m, Scheme::Ldcp.marking(rate, delay, frame));
        // a given K_min: K_max, K_fs and the queue limit follow it; a given K_fs wins
        let given = GivenMarking {
            k_min: Some(30_000),
            k_fs: Some(20_000),
            ..none
        };
        let m = Scheme::Ldcp.marking_with(None, rate, delay, frame, &given);
        assert_eq!(
            (m.k_min, m.k_max, m.p_max, m.k_fs, m.buf_max),
            (30_000, 120_000, 0.2, 20_000, 4_800_000)
        );
        let all = GivenMarking {
            k_min: Some(1000),
            k_max: Some(2000),
            p_max: Some(0.5),
            k_fs: Some(3000),
            buf_max: Some(4000),
        };
        let m = Scheme::Dcqcn.marking_with(None, rate, delay, frame, &all);
        assert_eq!(
            (m.k_min, m.k_max, m.p_max, m.k_fs, m.buf_max),
            (1000, 2000, 0.5, 3000, 4000)
        );
        // DCQCN's hpcc-sim preset marks as the HPCC simulator (400 KB at 100 Gb/s); the same
        // preset name changes nothing for another scheme
        let sim = Some(DcqcnPreset::HpccSim);
        let m = Scheme::Dcqcn.marking_with(sim, rate, delay, frame, &none);
        assert_eq!(m, hpcc_sim_dcqcn_marking(rate, frame));
        assert_eq!((m.k_min, m.k_max), (400_000, 1_600_000));
        let m = Scheme::Dcqcn.marking_with(sim, rate, delay, frame, &given);
        assert_eq!((m.k_min, m.k_max, m.k_fs), (30_000, 120_000, 20_000));
        assert_eq!(
            Scheme::Timely.marking_with(sim, rate, delay, frame, &none),
            Scheme::Timely.marking(rate, delay, frame)
        );
    }

    fn path() -> Path {
        Path {
            line_rate: Rate::gbps(100),
            base_rtt: Time::us(8),
            lossless: false,
            max_queueing: Time::ZERO,
            // the switches write INT records (HPCC needs them; the other schemes ignore it)
            int_telemetry: true,
            fabric_base_rtt: Time::ZERO,
        }
    }

    fn nic(scheme: Scheme) -> NicConfig {
        NicConfig {
            scheme,
            ..NicConfig::default()
        }
    }

    #[test]
    fn dcqcn_receivers_default_to_cnps_every_50us_and_acks_every_64kib() {
        let base = ReceiverConfig::default();
        let r = nic(Scheme::Dcqcn).receiver_for(Scheme::Dcqcn);
        assert!(r.send_cnp);
        assert_eq!(r.cnp_interval, Some(Time::us(50)));
        assert_eq!(r.ack_interval, Some(Bytes(65536)));
        // what the NIC sets wins
        let given = ReceiverConfig {
            cnp_interval: Some(Time::us(4)),
            ack_interval: Some(Bytes(4096)),
            ..base
        };
        let r = nic(Scheme::Dcqcn)
            .scheme_config(Scheme::Dcqcn)
            .receiver(&given);
        assert_eq!(
            (r.cnp_interval, r.ack_interval),
            (Some(Time::us(4)), Some(Bytes(4096)))
        );
        // LDCP-rate: a CNP per marked packet, ACKs by packets; window LDCP: no CNP
        let r = nic(Scheme::LdcpRate).receiver_for(Scheme::LdcpRate);
        assert!(r.send_cnp);
        assert_eq!((r.cnp_interval, r.ack_interval), (None, None));
        assert!(!nic(Scheme::Ldcp).receiver_for(Scheme::Ldcp).send_cnp);
    }

    #[test]
    fn hpcc_sim_presets_of_timely_dctcp_and_hpcc_repeat_a_nack_after_500_us() {
        // rdma-hw.cc:37-41 (NACK Generation Interval 500 µs), 467-468: the simulator's
        // receiver, whatever the scheme; the paper presets keep the transport's rule
        for s in [Scheme::Timely, Scheme::Dctcp, Scheme::Hpcc] {
            let r = nic(s).receiver_for(s);
            assert_eq!(r.renack_interval, Some(Time::us(500)), "{s:?}");
            assert_eq!((r.ack_every, r.ack_interval), (1, None), "{s:?}");
            assert!(!r.send_cnp, "{s:?}");
        }
        let mut n = nic(Scheme::Dctcp);
        n.dctcp.preset = rdma_cc_dctcp::Preset::Paper;
        n.timely.preset = rdma_cc_timely::Preset::Paper;
        n.hpcc.preset = rdma_cc_hpcc::Preset::Paper;
        for s in [Scheme::Timely, Scheme::Dctcp, Scheme::Hpcc] {
            assert_eq!(n.receiver_for(s).renack_interval, None, "{s:?}");
        }
        n.receiver.renack_interval = Some(Time::us(20));
        n.dctcp.preset = rdma_cc_dctcp::Preset::HpccSim;
        assert_eq!(
            n.receiver_for(Scheme::Dctcp).renack_interval,
            Some(Time::us(20))
        );
    }

    #[test]
    fn hpcc_sim_presets_drop_duplicates_silently_and_treat_a_nack_as_an_ack() {
        // rdma-hw.cc:476-478 (a duplicate: nothing sent), :313-320 (the NACK is the ACK's
        // header with the packet's INT), :416-434 (ReceiveAck runs the scheme's ACK handler
        // for a NACK); DCQCN's CC_MODE 1 has no ACK handler
        let mut d = nic(Scheme::Dcqcn);
        d.dcqcn.preset = rdma_cc_dcqcn::Preset::HpccSim;
        let base = SenderConfig::default();
        for (s, n) in [
            (Scheme::Timely, nic(Scheme::Timely)),
            (Scheme::Dctcp, nic(Scheme::Dctcp)),
            (Scheme::Hpcc, nic(Scheme::Hpcc)),
            (Scheme::Dcqcn, d),
        ] {
            let r = n.receiver_for(s);
            assert!(!r.ack_duplicates && r.nack_echoes_int, "{s:?}");
            let c = n.scheme_config(s);
            assert_eq!(c.sender(&base).nack_as_ack, s != Scheme::Dcqcn, "{s:?}");
        }
        // the paper presets (and every other scheme) keep the transport's rules
        let mut n = nic(Scheme::Dctcp);
        n.dctcp.preset = rdma_cc_dctcp::Preset::Paper;
        n.timely.preset = rdma_cc_timely::Preset::Paper;
        n.hpcc.preset = rdma_cc_hpcc::Preset::Paper;
        for s in Scheme::ALL {
            let r = n.receiver_for(s);
            assert!(r.ack_duplicates && !r.nack_echoes_int, "{s:?}");
            assert!(!n.scheme_config(s).sender(&base).nack_as_ack, "{s:?}");
        }
    }

    fn hpcc_sim_dcqcn() -> NicConfig {
        NicConfig {
            scheme: Scheme::Dcqcn,
            dcqcn: DcqcnConfig {
                preset: rdma_cc_dcqcn::Preset::HpccSim,
                ..DcqcnConfig::default()
            },
            ..NicConfig::default()
        }
    }

    #[test]
    fn hpcc_sim_dcqcn_receivers_ack_every_packet_echo_ce_and_send_no_cnp_packets() {
        let r = hpcc_sim_dcqcn().receiver_for(Scheme::Dcqcn);
        // rdma-hw.cc ReceiveUdp with L2_ACK_INTERVAL 1: an ACK per packet, CNP flag = CE
        assert_eq!((r.ack_every, r.ack_interval), (1, None));
        assert!(!r.send_cnp);
        assert_eq!(r.cnp_interval, None);
        // NACK Generation Interval 500 µs
        assert_eq!(r.renack_interval, Some(Time::us(500)));
        let mut rx = rdma_cc_transport::QpReceiver::new(&r, 10_000).unwrap();
        for (i, ce) in [false, true, false, true].into_iter().enumerate() {
            let a = rx.on_data(Time::us(i as u64), i as u64 * 1000, 1000, ce, false);
            let acks: Vec<_> = a.acks().collect();
            assert_eq!(acks.len(), 1, "one ACK per packet");
            assert_eq!((acks[0].seq, acks[0].ece), ((i as u64 + 1) * 1000, ce));
            assert!(!a.cnp);
        }
        assert_eq!((rx.stats().acks, rx.stats().cnps), (4, 0));
    }

    #[test]
    fn hpcc_sim_dcqcn_receivers_keep_what_the_nic_sets() {
        let mut nic = hpcc_sim_dcqcn();
        nic.receiver.ack_every = 4;
        nic.receiver.ack_interval = Some(Bytes(4096));
        nic.receiver.cnp_interval = Some(Time::us(4));
        nic.receiver.renack_interval = Some(Time::us(20));
        let r = nic.receiver_for(Scheme::Dcqcn);
        assert_eq!(
            (
                r.ack_every,
                r.ack_interval,
                r.cnp_interval,
                r.renack_interval
            ),
            (4, Some(Bytes(4096)), Some(Time::us(4)), Some(Time::us(20)))
        );
        // a CNP interval given: CNP packets as well
        assert!(r.send_cnp);
        // the other presets keep DCQCN's coalesced receiver
        for preset in [
            rdma_cc_dcqcn::Preset::Paper,
            rdma_cc_dcqcn::Preset::Mellanox,
        ] {
            let mut nic = hpcc_sim_dcqcn();
            nic.dcqcn.preset = preset;
            let r = nic.receiver_for(Scheme::Dcqcn);
            assert_eq!(
                (
                    r.send_cnp,
                    r.cnp_interval,
                    r.ack_interval,
                    r.renack_interval
                ),
                (true, Some(Time::us(50)), Some(Bytes(65536)), None)
            );
        }
    }

    #[test]
    fn hpcc_sim_dcqcn_marking_is_the_peers_per_speed_map() {
        // run.py: KMIN_MAP 400 KB, KMAX_MAP 1600 KB, PMAX_MAP 0.2 at 100 Gb/s; 1600/6400 KB at
        // 400 Gb/s; 100/400 KB at 25 Gb/s
        for (gbps, k_min) in [(25, 100_000), (100, 400_000), (400, 1_600_000)] {
            let m = hpcc_sim_dcqcn_marking(Rate::gbps(gbps), 1062);
            assert_eq!(
                (m.k_min, m.k_max, m.p_max, m.k_fs),
                (k_min, 4 * k_min, 0.2, k_min)
            );
        }
        let m = hpcc_sim_dcqcn_marking_from(50_000);
        assert_eq!((m.k_min, m.k_max, m.p_max), (50_000, 200_000, 0.2));
    }

    #[test]
    fn scheme_names_round_trip() {
        for s in Scheme::ALL {
            assert_eq!(s.name().parse::<Scheme>().unwrap(), s);
            assert_eq!(s.to_string(), s.name());
        }
        assert_eq!(
            Scheme::NAMES,
            [
                "ldcp",
                "ldcp-rate",
                "dcqcn",
                "timely",
                "dctcp",
                "hpcc",
                "none"
            ]
        );
        assert_eq!("cubic".parse::<Scheme>().unwrap_err().field, "scheme");
        let base = ReceiverConfig::default();
        for cnp in [Scheme::LdcpRate, Scheme::Dcqcn] {
            assert!(
                nic(Scheme::Ldcp)
                    .scheme_config(cnp)
                    .receiver(&base)
                    .send_cnp
            );
        }
        assert!(
            !nic(Scheme::Ldcp)
                .scheme_config(Scheme::Ldcp)
                .receiver(&base)
                .send_cnp
        );
        assert!(
            !nic(Scheme::Ldcp)
                .scheme_config(Scheme::None)
                .receiver(&base)
                .send_cnp
        );
    }

    #[test]
    fn each_scheme_builds_its_controller() {
        for s in Scheme::ALL {
            let q = nic(s).build_sender(&path(), 10_000, Time::ZERO).unwrap();
            assert_eq!(q.controller().scheme(), s);
        }
        let ldcp = nic(Scheme::Ldcp)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        // fast start with IW = BDP (100 packets): the whole 10-packet message at once
        assert!(ldcp.controller().in_fast_start());
        assert_eq!(ldcp.cw(), 100.0);
        assert!(ldcp.controller().stage().is_some_and(|s| !s.is_stable()));
        let mut rate = nic(Scheme::LdcpRate)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        assert_eq!(rate.poll(Time::ZERO), Poll::SendProbe { probe_id: 0 });
        assert_eq!(rate.rate(), Some(Rate::gbps(100)));
        let none = nic(Scheme::None)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        assert_eq!(none.cw(), f64::INFINITY);
        assert_eq!(none.controller().stage(), None);
        assert_eq!(none.controller().fast_start_exit(), FastStartExit::None);
        let mut dcqcn = nic(Scheme::Dcqcn)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        // DCQCN §3.1: line rate at start, no window, every packet ECT(0)
        assert_eq!(dcqcn.rate(), Some(Rate::gbps(100)));
        assert_eq!(dcqcn.cw(), f64::INFINITY);
        assert_eq!(dcqcn.controller().stage(), None);
        assert_eq!(dcqcn.controller().fast_start_exit(), FastStartExit::None);
        assert!(matches!(dcqcn.poll(Time::ZERO), Poll::Send(p) if p.ecn == Ecn::Ect0));
        // the dispatcher reaches the controller: a CNP halves the rate (α = 1)
        dcqcn.on_cnp(Time::us(1));
        assert_eq!(dcqcn.rate(), Some(Rate::gbps(50)));
        assert!(matches!(&dcqcn.controller(), SchemeController::Dcqcn(c)
            if c.next_timeout() == Some(Time::us(56))));
    }

    #[test]
    fn dcqcn_runs_with_pfc_and_the_papers_marking_scaled_to_the_link() {
        assert!(Scheme::Dcqcn.lossless_by_default());
        assert!(!Scheme::Ldcp.lossless_by_default());
        let m = |gbps| Scheme::Dcqcn.marking(Rate::gbps(gbps), Time::us(1), 1062);
        // DCQCN §5 at 40 Gb/s: K_min = 5 KB, K_max = 200 KB, P_max = 1 %
        assert_eq!(
            m(40),
            Marking {
                k_min: 5_000,
                k_max: 200_000,
                p_max: 0.01,
                k_fs: 5_000,
                buf_max: 2_000_000
            }
        );
        let m100 = m(100);
        assert_eq!(
            (m100.k_min, m100.k_max, m100.k_fs),
            (12_500, 500_000, 12_500)
        );
        // at least one frame, K_max at least K_min
        let m1 = m(1);
        assert_eq!((m1.k_min, m1.k_max), (1062, 5_000));
        let tiny = Scheme::Dcqcn.marking(Rate::mbps(100), Time::us(1), 1062);
        assert_eq!((tiny.k_min, tiny.k_max), (1062, 1062));
        // a given K_min: the paper's ratio K_max = 40 K_min
        assert_eq!(
            Scheme::Dcqcn.marking_from(30_000),
            Marking {
                k_min: 30_000,
                k_max: 1_200_000,
                p_max: 0.01,
                k_fs: 30_000,
                buf_max: 4_800_000
            }
        );
        // LDCP's: K_min half a hop's BDP, K_max 2, K_fs 6 and the queue limit 80 hop BDPs
        let l = Scheme::Ldcp.marking(Rate::gbps(100), Time::us(1), 1062);
        assert_eq!(
            (l.k_min, l.k_max, l.p_max, l.k_fs, l.buf_max),
            (12_500, 50_000, 0.2, 150_000, 2_000_000)
        );
    }

    #[test]
    fn timely_and_dctcp_run_with_pfc_and_dctcp_marks_at_a_step_per_speed() {
        for s in [Scheme::Timely, Scheme::Dctcp] {
            assert!(s.lossless_by_default(), "{s}");
            // ACKs per packet, no CNPs
            let r = nic(s).receiver_for(s);
            assert!(!r.send_cnp);
            assert_eq!((r.ack_every, r.ack_interval), (1, None));
        }
        // the HPCC simulator's run.py (dctcp): K_min = K_max = 30 KB × bw / 10, P_max = 1
        let m = |gbps| Scheme::Dctcp.marking(Rate::gbps(gbps), Time::us(1), 1062);
        assert_eq!(
            m(10),
            Marking {
                k_min: 30_000,
                k_max: 30_000,
                p_max: 1.0,
                k_fs: 30_000,
                buf_max: 4_800_000
            }
        );
        assert_eq!((m(100).k_min, m(100).k_max), (300_000, 300_000));
        assert_eq!((m(25).k_min, m(25).k_max), (75_000, 75_000));
        assert_eq!(m(0).k_min, 1062);
        assert_eq!(
            Scheme::Dctcp.marking_from(50_000),
            Marking {
                k_min: 50_000,
                k_max: 50_000,
                p_max: 1.0,
                k_fs: 50_000,
                buf_max: 8_000_000
            }
        );
        // TIMELY ignores marks: DCQCN's thresholds, as the simulator runs it
        assert_eq!(
            Scheme::Timely.marking(Rate::gbps(100), Time::us(1), 1062),
            Scheme::Dcqcn.marking(Rate::gbps(100), Time::us(1), 1062)
        );
        // window and rate reach the transport through the dispatcher
        let dctcp = nic(Scheme::Dctcp)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        // 100 Gb/s × 8 µs = 100 packets of 1000 B, and the simulator's one packet more
        assert_eq!((dctcp.cw(), dctcp.rate()), (101.0, Some(Rate::gbps(100))));
        let timely = nic(Scheme::Timely)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        assert_eq!(
            (timely.cw(), timely.rate()),
            (f64::INFINITY, Some(Rate::gbps(100)))
        );
    }

    #[test]
    fn hpcc_runs_with_pfc_dcqcn_marking_and_acks_per_packet() {
        assert!(Scheme::Hpcc.lossless_by_default());
        let r = nic(Scheme::Hpcc).receiver_for(Scheme::Hpcc);
        assert!(!r.send_cnp);
        assert_eq!((r.ack_every, r.ack_interval), (1, None));
        // HPCC ignores marks: DCQCN's thresholds, as the simulator's maps are the same for
        // every scheme but DCTCP
        for gbps in [25, 100, 400] {
            assert_eq!(
                Scheme::Hpcc.marking(Rate::gbps(gbps), Time::us(1), 1062),
                Scheme::Dcqcn.marking(Rate::gbps(gbps), Time::us(1), 1062)
            );
        }
        assert_eq!(
            Scheme::Hpcc.marking_from(7_000),
            Scheme::Dcqcn.marking_from(7_000)
        );
        // window R·T + 1 packet and pacing at R reach the transport through the dispatcher:
        // 100 Gb/s × 8 µs = 100 packets of 1000 B
        let q = nic(Scheme::Hpcc)
            .build_sender(&path(), 10_000, Time::ZERO)
            .unwrap();
        assert_eq!((q.cw(), q.rate()), (101.0, Some(Rate::gbps(100))));
        assert_eq!(q.controller().stage(), None);
        assert_eq!(q.controller().fast_start_exit(), FastStartExit::None);
    }

    #[test]
    fn hpcc_sim_windows_use_the_fabrics_largest_base_rtt_as_third_cc_138_does() {
        // third.cc:138 (GLOBAL_T 1, run.py:37): every flow gets maxBdp and maxRtt; the flow's
        // own path is 8 µs, the fabric's longest 12 µs: R·T + 1 = 151 packets, not 101
        let far = Path {
            fabric_base_rtt: Time::us(12),
            ..path()
        };
        for s in [Scheme::Dctcp, Scheme::Hpcc] {
            let q = nic(s).build_sender(&far, 10_000_000, Time::ZERO).unwrap();
            assert_eq!(q.cw(), 151.0, "{s} hpcc-sim");
            // the transport keeps the flow's own base RTT (srtt before the first sample)
            assert_eq!(q.srtt(), Time::us(8), "{s}");
            // preset paper: the flow's own path (its window is its own, 100 or 101 packets)
            let mut n = nic(s);
            n.dctcp.preset = rdma_cc_dctcp::Preset::Paper;
            n.hpcc.preset = rdma_cc_hpcc::Preset::Paper;
            let cw = |p: &Path| n.build_sender(p, 10_000_000, Time::ZERO).unwrap().cw();
            assert_eq!(cw(&far), cw(&path()), "{s} paper");
            assert!(cw(&far) <= 101.0, "{s} paper");
            // unknown (0): the flow's own path under hpcc-sim too
            let q = nic(s)
                .build_sender(&path(), 10_000_000, Time::ZERO)
                .unwrap();
            assert_eq!(q.cw(), 101.0, "{s} hpcc-sim without a fabric RTT");
        }
        // DCQCN's and TIMELY's hpcc-sim presets see it too (neither uses a base RTT)
        let mut n = nic(Scheme::Dcqcn);
        n.dcqcn.preset = rdma_cc_dcqcn::Preset::HpccSim;
        let sender = SenderConfig {
            path: far,
            ..SenderConfig::default()
        };
        for c in [
            n.scheme_config(Scheme::Dcqcn),
            nic(Scheme::Timely).scheme_config(Scheme::Timely),
        ] {
            assert!(c.is_hpcc_sim());
            assert_eq!(c.controller_view(&sender).path.base_rtt, Time::us(12));
        }
    }

    #[test]
    fn only_hpcc_needs_int() {
        for s in Scheme::ALL {
            assert_eq!(s.needs_int(), s == Scheme::Hpcc, "{s}");
        }
    }

    #[test]
    fn hpcc_on_a_path_without_int_is_refused_by_name() {
        let no_int = Path {
            int_telemetry: false,
            ..path()
        };
        let e = nic(Scheme::Hpcc).validate(&no_int).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("scheme", "hpcc"));
        assert!(
            e.requirement.starts_with("HPCC needs INT at the switches"),
            "{e}"
        );
        let e = nic(Scheme::Hpcc)
            .build_sender(&no_int, 10_000, Time::ZERO)
            .unwrap_err();
        assert_eq!(e.field, "scheme");
        // every other scheme runs without INT
        for s in Scheme::ALL.into_iter().filter(|&s| s != Scheme::Hpcc) {
            nic(s).build_sender(&no_int, 10_000, Time::ZERO).unwrap();
        }
    }

    #[test]
    fn hpcc_acks_reach_the_controller_with_their_records() {
        use rdma_cc_core::HopRecord;
        // exact records (preset paper; hpcc-sim reads them in the simulator's units); U ≥ η,
        // so both presets' updates are multiplicative
        let mut n = nic(Scheme::Hpcc);
        n.hpcc.preset = rdma_cc_hpcc::Preset::Paper;
        let mut q = n.build_sender(&path(), 1_000_000, Time::ZERO).unwrap();
        let hop = |ts_ns, tx_bytes, qlen_bytes| HopRecord {
            qlen_bytes,
            tx_bytes,
            ts_ns,
            line_rate_bps: 100_000_000_000,
            port_id: 7,
        };
        let mut sent = 0;
        for k in 0..3 {
            // paced at line rate: 1082 B on the wire each, 86.56 ns apart
            match q.poll(Time(100 * k)) {
                Poll::Send(p) => sent = p.seq + u64::from(p.len),
                other => panic!("{other:?}"),
            }
        }
        q.on_ack_int(
            Time::us(8),
            1000,
            false,
            None,
            &IntRecords::from_slice(&[hop(0, 0, 100_000)]),
        );
        // the hop at 100 % with a queue of one BDP over T = 8 µs: U = 2, R = 100 G·0.95/2 +
        // 40 Mb/s
        q.on_ack_int(
            Time::us(16),
            sent,
            false,
            None,
            &IntRecords::from_slice(&[hop(8000, 100_000, 100_000)]),
        );
        assert_eq!(q.rate(), Some(Rate(47_540_000_000)));
        // without records (on_ack) nothing changes
        q.on_ack(Time::us(17), sent, false);
        assert_eq!(q.rate(), Some(Rate(47_540_000_000)));
    }

    #[test]
    fn hpcc_options_reach_its_constants_and_errors_name_them() {
        let specs = NicConfig::param_specs();
        let set = |c: &mut NicConfig, option: &str, text: &str| {
            let i = specs.iter().position(|s| s.option == option).unwrap();
            let v = specs[i].parse(text, option).unwrap();
            c.set(i, &v)
        };
        let mut c = NicConfig::default();
        set(&mut c, "cc", "hpcc").unwrap();
        set(&mut c, "hpccEta", "0.9").unwrap();
        set(&mut c, "hpccMaxStage", "0").unwrap();
        set(&mut c, "hpccPreset", "paper").unwrap();
        assert_eq!(c.scheme, Scheme::Hpcc);
        assert_eq!((c.hpcc.eta, c.hpcc.max_stage), (Some(0.9), Some(0)));
        c.validate(&path()).unwrap();
        c.hpcc.min_rate = Some(Rate::gbps(200));
        let e = c.validate(&path()).unwrap_err();
        assert_eq!(e.field, "hpcc.min_rate");
        assert_eq!(
            NicConfig::spec_by_name(&e.field).map(|s| s.attr),
            Some("HpccMinRate")
        );
        let eta = specs.iter().position(|s| s.option == "hpccEta").unwrap();
        assert_eq!(
            c.set(eta, &ParamValue::Real(1.5)).unwrap_err().field,
            "hpcc.eta"
        );
    }

    #[test]
    fn timely_and_dctcp_options_reach_their_constants_and_errors_name_them() {
        let specs = NicConfig::param_specs();
        let set = |c: &mut NicConfig, option: &str, text: &str| {
            let i = specs.iter().position(|s| s.option == option).unwrap();
            let v = specs[i].parse(text, option).unwrap();
            c.set(i, &v)
        };
        let mut c = NicConfig::default();
        set(&mut c, "cc", "timely").unwrap();
        set(&mut c, "timelyBeta", "0.5").unwrap();
        set(&mut c, "dctcpG", "0.125").unwrap();
        assert_eq!(c.timely.beta, Some(0.5));
        assert_eq!(c.dctcp.g, Some(0.125));
        // the DCQCN and LDCP fields of the same names are untouched
        assert_eq!((c.dcqcn.g, c.ldcp.beta), (None, LdcpConfig::default().beta));
        c.validate(&path()).unwrap();
        c.timely.min_rate = Some(Rate::gbps(200));
        let e = c.validate(&path()).unwrap_err();
        assert_eq!(e.field, "timely.min_rate");
        assert_eq!(
            NicConfig::spec_by_name(&e.field).map(|s| s.attr),
            Some("TimelyMinRate")
        );
        let i = specs.iter().position(|s| s.option == "dctcpG").unwrap();
        assert_eq!(
            c.set(i, &ParamValue::Real(2.0)).unwrap_err().field,
            "dctcp.g"
        );
    }

    #[test]
    fn dcqcn_options_reach_its_constants_whatever_their_order() {
        let specs = NicConfig::param_specs();
        let set = |c: &mut NicConfig, option: &str, text: &str| {
            let i = specs.iter().position(|s| s.option == option).unwrap();
            let v = specs[i].parse(text, option).unwrap();
            c.set(i, &v).unwrap();
        };
        let opts = [
            ("cc", "dcqcn"),
            ("dcqcnRai", "10Mbps"),
            ("dcqcnPreset", "mellanox"),
        ];
        let mut a = NicConfig::default();
        let mut b = NicConfig::default();
        for (o, t) in opts {
            set(&mut a, o, t);
        }
        for (o, t) in opts.iter().rev() {
            set(&mut b, o, t);
        }
        assert_eq!(a, b);
        assert_eq!(a.scheme, Scheme::Dcqcn);
        let p = a.dcqcn.resolved();
        assert_eq!(p.rate_ai, Rate::mbps(10));
        assert_eq!(p.increase_timer, Time::us(300));
        a.validate(&path()).unwrap();
        // a bad value names the Rust field; the receiver of a DCQCN flow sends CNPs
        let i = specs.iter().position(|s| s.option == "dcqcnG").unwrap();
        assert_eq!(a.set(i, &ParamValue::Real(2.0)).unwrap_err().field, "g");
        assert!(a.receiver_for(Scheme::Dcqcn).send_cnp);
        a.dcqcn.min_rate = Some(Rate::gbps(200));
        assert_eq!(a.validate(&path()).unwrap_err().field, "min_rate");
    }

    #[test]
    fn every_scheme_validates_what_it_uses() {
        for s in Scheme::ALL {
            let mut c = nic(s);
            c.sender.mtu = Bytes(0);
            assert_eq!(c.validate(&path()).unwrap_err().field, "mtu");
            let e = nic(s).build_sender(&path(), 0, Time::ZERO).unwrap_err();
            assert_eq!(e.field, "flow_size");
        }
        let mut c = nic(Scheme::Ldcp);
        c.ldcp.alpha = 0.0;
        assert_eq!(c.validate(&path()).unwrap_err().field, "alpha");
    }

    #[test]
    fn dispatch_reaches_the_ldcp_controller() {
        let mut c = nic(Scheme::Ldcp);
        c.ldcp.iw = Some(2.0);
        let mut q = c.build_sender(&path(), 10_000, Time::ZERO).unwrap();
        for _ in 0..2 {
            assert!(matches!(q.poll(Time::ZERO), Poll::Send(_)));
        }
        // loss before any ACK: fast start ends with cw = γ (1/4 by default)
        q.on_nack(Time::us(8), 0, false);
        assert_eq!(q.controller().fast_start_exit(), FastStartExit::Loss);
        assert_eq!(q.cw(), 0.25);
        assert!(!q.controller().in_fast_start());
    }

    #[test]
    fn flat_table_names_are_unique_and_defaults_are_valid() {
        let specs = NicConfig::param_specs();
        let mut names = HashSet::new();
        let mut options = HashSet::new();
        let mut attrs = HashSet::new();
        let c = NicConfig::default();
        for (i, s) in specs.iter().enumerate() {
            assert!(names.insert(s.name), "duplicate name {}", s.name);
            assert!(attrs.insert(s.attr), "duplicate attribute {}", s.attr);
            if !s.option.is_empty() {
                assert!(options.insert(s.option), "duplicate option {}", s.option);
            }
            assert!(!s.help.is_empty(), "{} has no help", s.name);
            let v = c.get(i).unwrap();
            s.check(&v, s.name).unwrap();
            // the default prints as text that parses back to itself
            assert_eq!(s.parse(&v.to_string(), s.name).unwrap(), v, "{}", s.name);
        }
        assert_eq!(c.get(specs.len()), None);
        c.validate(&path()).unwrap();
    }

    #[test]
    fn set_by_index_checks_bounds_and_reaches_the_field() {
        let specs = NicConfig::param_specs();
        let alpha = specs.iter().position(|s| s.attr == "Alpha").unwrap();
        let mut c = NicConfig::default();
        c.set(alpha, &ParamValue::Real(0.25)).unwrap();
        assert_eq!(c.ldcp.alpha, 0.25);
        let e = c.set(alpha, &ParamValue::Real(2.0)).unwrap_err();
        assert_eq!(e.field, "alpha");
        let e = c.set(alpha, &ParamValue::Bool(true)).unwrap_err();
        assert_eq!(e.field, "alpha");
        let cc = specs.iter().position(|s| s.option == "cc").unwrap();
        c.set(cc, &ParamValue::Choice("none".into())).unwrap();
        assert_eq!(c.scheme, Scheme::None);
        assert!(c.set(cc, &ParamValue::Choice("cubic".into())).is_err());
        let ack = specs.iter().position(|s| s.attr == "AckEvery").unwrap();
        assert!(c.set(ack, &ParamValue::Count(0)).is_err());
        assert_eq!(
            c.set(specs.len(), &ParamValue::Count(0))
                .unwrap_err()
                .to_string(),
            format!("invalid parameter = {}: no such NIC parameter", specs.len())
        );
        // the groups in order: the NIC's own, sender, receiver, LDCP
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        let mut want: Vec<&str> = Vec::new();
        want.extend(NicConfig::params().iter().map(|p| p.spec.name));
        want.extend(SenderConfig::params().iter().map(|p| p.spec.name));
        want.extend(ReceiverConfig::params().iter().map(|p| p.spec.name));
        want.extend(LdcpConfig::params().iter().map(|p| p.spec.name));
        want.extend(DcqcnConfig::params().iter().map(|p| p.spec.name));
        want.extend(TimelyConfig::params().iter().map(|p| p.spec.name));
        want.extend(DctcpConfig::params().iter().map(|p| p.spec.name));
        want.extend(HpccConfig::params().iter().map(|p| p.spec.name));
        assert_eq!(names, want);
        // by Rust name only
        assert_eq!(
            NicConfig::spec_by_name("ack_every").map(|s| s.attr),
            Some("AckEvery")
        );
        assert!(NicConfig::spec_by_name("AckEvery").is_none());
    }

    #[test]
    fn receiver_takes_the_mtu_of_the_nic_and_cnps_from_the_scheme() {
        let mut c = NicConfig::default();
        c.sender.mtu = Bytes(4000);
        c.receiver.ack_every = 4;
        let r = c.receiver_for(Scheme::LdcpRate);
        assert_eq!((r.mtu, r.ack_every, r.send_cnp), (Bytes(4000), 4, true));
    }

    #[test]
    fn auto_help_lists_the_schemes_by_their_defaults_and_names_unknown_fields() {
        let pfc = auto_help("pfc").unwrap();
        assert!(pfc.starts_with("as the scheme is deployed: "), "{pfc}");
        for s in Scheme::ALL {
            let side = if s.lossless_by_default() {
                "lossless"
            } else {
                "lossy"
            };
            let part = pfc
                .split("; ")
                .find(|p| p.ends_with(side))
                .unwrap_or_default();
            assert!(part.contains(s.name()), "{} not {side} in {pfc}", s.name());
        }
        let int = auto_help("int").unwrap();
        let needing: Vec<_> = Scheme::ALL
            .into_iter()
            .filter(|s| s.needs_int())
            .map(Scheme::name)
            .collect();
        assert_eq!(
            int,
            format!(
                "on when the scheme needs INT ({}), else off",
                needing.join(", ")
            )
        );
        assert_eq!(
            auto_help("k_fs").unwrap(),
            marking_auto_help(MarkingField::KFs)
        );
        assert_eq!(auto_help("kfs").unwrap_err().field, "marking field");
    }

    #[test]
    fn marking_help_states_the_numbers_marking_from_uses() {
        let ldcp = Scheme::Ldcp.marking_from(1000);
        let dcqcn = Scheme::Dcqcn.marking_from(1000);
        let dctcp = Scheme::Dctcp.marking_from(1000);
        let help = |f| marking_auto_help(f);
        assert!(help(MarkingField::KMax).contains(&format!(
            "ldcp, ldcp-rate and none {} x K_min; dcqcn, timely and hpcc {} x K_min",
            ldcp.k_max / 1000,
            dcqcn.k_max / 1000
        )));
        assert_eq!(dctcp.k_max, 1000);
        assert!(help(MarkingField::KFs).contains(&format!(
            "ldcp, ldcp-rate and none {} x K_min",
            ldcp.k_fs / 1000
        )));
        assert_eq!((dcqcn.k_fs, dctcp.k_fs), (1000, 1000));
        assert!(help(MarkingField::PMax).contains(&format!(
            "ldcp, ldcp-rate and none {}; dcqcn, timely and hpcc {}; dctcp {}",
            ldcp.p_max, dcqcn.p_max, dctcp.p_max
        )));
        // K_min 100 KB: 160 x K_min is above the 2 MB floor
        assert_eq!(Scheme::Ldcp.marking_from(100_000).buf_max, 16_000_000);
        assert!(help(MarkingField::BufMax).starts_with("160 x K_min, at least 2 MB and K_max"));
        // DCQCN at 40 Gb/s: the paper's K_min
        let d = Scheme::Dcqcn.marking(Rate::gbps(40), Time(1000), 1000);
        assert_eq!((d.k_min, d.k_max), (5_000, 200_000));
        assert!(help(MarkingField::KMin).contains("dcqcn, timely and hpcc 5 KB per 40 Gb/s"));
        assert!(help(MarkingField::KMin).contains("dctcp 30 KB per 10 Gb/s"));
        assert!("k_fs".parse::<MarkingField>().is_ok());
        assert!("kfs".parse::<MarkingField>().is_err());
    }

    #[test]
    fn only_ldcp_sends_not_ect_data_for_the_switch_to_drop() {
        let drop: Vec<&str> = Scheme::ALL
            .into_iter()
            .filter(|s| s.drops_not_ect())
            .map(Scheme::name)
            .collect();
        assert_eq!(drop, vec!["ldcp", "ldcp-rate"]);
    }
}
