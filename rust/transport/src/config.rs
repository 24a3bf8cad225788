//! Configuration of the queue-pair sender and receiver (transport parameters only).
//!
//! Plain structs with serde derives (scenarios read them from files; missing fields take their
//! defaults), `Default` from the LDCP draft's transport rules (draft-dai-tsvwg-ldcp-01 §2.2,
//! per-packet ACK), RFC 6298 (RTT estimation and the retransmission timer) and the
//! `ldcp-incast` topology, and `validate()` naming the first bad field the way it is spelled
//! here (`"mtu"`, `"rtt_gain"`, ...).
//!
//! The user-facing fields are published as parameter tables ([`SenderConfig::params`],
//! [`ReceiverConfig::params`]): the ns-3 NIC's attributes and the examples' options are built
//! from them. The path of [`SenderConfig`] ([`Path`]: `line_rate`, `base_rtt`, `lossless`,
//! `max_queueing`) is not a parameter: the NIC fills it in from the topology for each flow.
//! Congestion-control parameters live with their controller (e.g. `rdma-cc-ldcp`'s
//! `LdcpConfig`).

use crate::receiver::QpReceiver;
use crate::sender::QpSender;
use crate::Controller;
use rdma_cc_core::param::{Limit, Param, ParamKind, ParamSpec, ParamValue, Params};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};

/// Configuration of a queue pair's sending side: the path and the transport's timers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SenderConfig {
    /// Payload bytes per full packet (default 1000). The last packet of a message may be shorter.
    pub mtu: Bytes,
    /// The flow's path: line rate, base RTT, losslessness, worst queueing (not parameters: the
    /// NIC fills them in from the topology for each flow, [`Self::on_path`]). A file names its
    /// fields beside the others (`line_rate = ...`, not in a table of their own).
    #[serde(flatten)]
    pub path: Path,
    /// Floor of the retransmission timeout (RFC 6298 §2.4's lower bound); `None` → the
    /// default of [`Self::effective_rto`]. The RTO is `max(floor, srtt + 4·rttvar)` once the RTT
    /// has been sampled (see [`crate::sender`] for backoff, fast start and lossless paths).
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
    /// `None` → the current smoothed RTT (decision: "within one RTT"). The parameter table
    /// (attribute `NackHoldoff`, option `--nackHoldoff`) reads 0 as automatic and stores
    /// `None`, so there the shortest hold-off is 1 ns; only `Some(0)` set here directly (or in
    /// a file) turns the filter off.
    pub dup_nack_holdoff: Option<Time>,
    /// EWMA gain of the smoothed RTT over per-ACK (or per-probe) samples (RFC 6298 §2.3's
    /// α = 1/8). Requires `0 < rtt_gain ≤ 1`.
    pub rtt_gain: f64,
    /// RTT probes (controllers that measure RTT with them, [`crate::RttSource::Probes`]): the
    /// next probe goes only once this many data packets were sent since the previous one (and
    /// its response returned or it timed out), so probes stay at most `1/(probe_packets + 1)`
    /// of a flow's frames; 0: the next probe at once (one per RTT, the draft's §3.2 schedule).
    /// Default 0 (chosen by the sweep in the README: spacing probes by packets slows the
    /// increase of flows below one packet, which send less than one packet per RTT).
    pub probe_packets: u64,
    /// A NACK also reaches the controller as an ACK ([`Controller::on_ack`] /
    /// [`Controller::on_ack_int`], with the NACK's ECN-Echo, echoed timestamp and INT records)
    /// after the go-back-N, as the HPCC simulator's `ReceiveAck` runs `HandleAckHp`,
    /// `HandleAckTimely` and `HandleAckDctcp` for NACKs too (`rdma-hw.cc:393,416-434`). Not a
    /// parameter: the scheme's preset sets it. Default off.
    pub nack_as_ack: bool,
}

/// What a flow's sender learns from the fabric: the properties of its path
/// ([`SenderConfig::path`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)] // as SenderConfig's: a file may omit any field (flatten needs it here)
pub struct Path {
    /// Line rate of the host link, bit/s (default 100 Gb/s). The transport itself does not
    /// pace by it; controllers use it (LDCP: the BDP that is the default IW, and the cap of the
    /// rate-based variant's pacing rate).
    pub line_rate: Rate,
    /// Base (unloaded) round-trip time: propagation both ways plus one data frame and one ACK
    /// serialised per hop (default 8 µs: two 2 µs hops each way, the `ldcp-incast` topology).
    /// Initial smoothed RTT and the BDP's time.
    pub base_rtt: Time,
    /// The flow's data priority is lossless (PFC, IEEE 802.1Qbb) end to end: nothing is lost,
    /// so a timeout can only be spurious. The RTO floor defaults to the path's worst queueing
    /// (see [`SenderConfig::effective_rto`]) and, before the first RTT sample, the RTO is its
    /// ceiling (the first ACK may wait behind every PAUSE of a deep incast). Default false.
    pub lossless: bool,
    /// On a lossless path: the longest a packet can queue without being lost, the time every
    /// switch on the path takes to drain its whole buffer at the rate of the port toward the
    /// receiver (0: unknown, the default). A timeout before that can only be spurious.
    pub max_queueing: Time,
    /// The switches on the path append INT hop records to the flow's data packets and the
    /// receiver echoes them in its ACKs ([`crate::QpSender::on_ack_int`]): what HPCC needs
    /// (Li et al., SIGCOMM 2019, §3). Default false.
    pub int_telemetry: bool,
    /// The largest [`Self::base_rtt`] between any two hosts of the fabric, by the same formula
    /// ([`Time::ZERO`]: unknown, the default). Not used by the transport; a scheme whose
    /// preset takes one fabric-wide base RTT (the HPCC simulator's `GLOBAL_T 1`,
    /// `third.cc:138`) gives it to its controller instead of the path's own.
    pub fabric_base_rtt: Time,
}

impl Default for Path {
    /// A 100 Gb/s host link, an 8 µs base RTT, lossy.
    fn default() -> Self {
        Path {
            line_rate: Rate::gbps(100),
            base_rtt: Time::us(8),
            lossless: false,
            max_queueing: Time::ZERO,
            int_telemetry: false,
            fabric_base_rtt: Time::ZERO,
        }
    }
}

impl SenderConfig {
    /// This configuration on `path`.
    pub fn on_path(&self, path: &Path) -> SenderConfig {
        SenderConfig {
            path: *path,
            ..*self
        }
    }
}

/// Smallest default RTO floor on a lossless (PFC) priority: 1 ms. Nothing is lost there, so a timeout
/// only fires spuriously behind deep queues or PAUSEs; RoCE NICs' local ACK timeouts are of
/// the order of milliseconds (InfiniBand Architecture Specification, Vol. 1, §9.7.6.1.3: the
/// Local ACK Timeout is 4.096 µs · 2^n).
pub const LOSSLESS_RTO_FLOOR: Time = Time::ms(1);

impl Default for SenderConfig {
    /// 1000 B payloads at 100 Gb/s, an 8 µs base RTT, RTO floor 4 × base RTT with up to six
    /// doublings, NACK hold-off one RTT, RTT gain 1/8 (RFC 6298 §2, and the decisions of the LDCP work).
    fn default() -> Self {
        SenderConfig {
            mtu: Bytes(1000),
            path: Path::default(),
            rto: None,
            rto_backoff: 6,
            dup_nack_holdoff: None,
            rtt_gain: 0.125,
            probe_packets: 0,
            nack_as_ack: false,
        }
    }
}

/// The user-facing fields of [`SenderConfig`] (the path fields are the NIC's).
const SENDER_PARAMS: &[Param<SenderConfig>] = &[
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            max: Limit::incl(9000.0),
            ..ParamSpec::new(
                "mtu",
                "mtu",
                "Mtu",
                ParamKind::Bytes,
                "Payload bytes per full packet; each frame adds 62 B of RoCEv2 headers \
                 (Ethernet, IPv4, UDP, BTH, ICRC) and 20 B of preamble and gap on the wire.",
            )
        },
        get: |c| ParamValue::Bytes(c.mtu),
        set: |c, v| c.mtu = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            auto: Some(
                "4 x the flow's base RTT; on a lossless (PFC) priority the base RTT plus the \
                 time every switch on the path takes to drain its whole buffer, at least 1ms",
            ),
            ..ParamSpec::new(
                "rto",
                "rto",
                "Rto",
                ParamKind::Time,
                "Floor of the retransmission timeout; the timeout is max(floor, srtt + 4 \
                 rttvar) (RFC 6298), doubling on repeated timeouts.",
            )
        },
        get: |c| ParamValue::Time(c.rto.unwrap_or(Time::ZERO)),
        set: |c, v| c.rto = (v.int() > 0).then_some(Time(v.int())),
    },
    Param {
        spec: ParamSpec {
            max: Limit::incl(32.0),
            unit: "doublings",
            ..ParamSpec::new(
                "rto_backoff",
                "rtoBackoff",
                "RtoBackoff",
                ParamKind::Count,
                "Most doublings of the RTO after consecutive timeouts (Karn's backoff); \
                 also sets the RTO's ceiling, floor x 2^RtoBackoff.",
            )
        },
        get: |c| ParamValue::Count(c.rto_backoff.into()),
        set: |c, v| c.rto_backoff = u32::try_from(v.int()).unwrap_or(u32::MAX),
    },
    Param {
        spec: ParamSpec {
            auto: Some("one smoothed RTT"),
            ..ParamSpec::new(
                "dup_nack_holdoff",
                "nackHoldoff",
                "NackHoldoff",
                ParamKind::Time,
                "A NACK for the same sequence as the previous one within this time is \
                 ignored (go-back-N resends once per loss).",
            )
        },
        get: |c| ParamValue::Time(c.dup_nack_holdoff.unwrap_or(Time::ZERO)),
        set: |c, v| c.dup_nack_holdoff = (v.int() > 0).then_some(Time(v.int())),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            max: Limit::incl(1.0),
            ..ParamSpec::new(
                "rtt_gain",
                "rttGain",
                "RttGain",
                ParamKind::Real,
                "EWMA gain of the smoothed RTT (RFC 6298 alpha = 1/8).",
            )
        },
        get: |c| ParamValue::Real(c.rtt_gain),
        set: |c, v| c.rtt_gain = v.real(),
    },
    Param {
        spec: ParamSpec {
            unit: "packets",
            ..ParamSpec::new(
                "probe_packets",
                "probePackets",
                "ProbePackets",
                ParamKind::Count,
                "RTT probes (rate-based LDCP): the next probe goes once this many data packets \
                 were sent since the previous one and its response returned (or it timed out), \
                 so probes are at most 1/(ProbePackets + 1) of a flow's frames; 0: one per RTT.",
            )
        },
        get: |c| ParamValue::Count(c.probe_packets),
        set: |c, v| c.probe_packets = v.int(),
    },
];

impl Params for SenderConfig {
    fn params() -> &'static [Param<Self>] {
        SENDER_PARAMS
    }
}

impl SenderConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        if let Some(rto) = self.rto {
            // the table reads None and Some(0) alike (0 = automatic); Some(0) is not a floor
            ConfigError::check(rto.0 > 0, "rto", rto, "must be > 0")?;
        }
        ConfigError::check(
            self.path.line_rate.0 > 0,
            "line_rate",
            self.path.line_rate,
            "must be > 0",
        )?;
        ConfigError::check(
            self.path.base_rtt.0 > 0,
            "base_rtt",
            self.path.base_rtt,
            "must be > 0",
        )?;
        Ok(())
    }

    /// The RTO floor in effect: [`Self::rto`] if set. Otherwise, on a lossless path, the base
    /// RTT plus the path's worst queueing ([`Path::max_queueing`]), at least
    /// [`LOSSLESS_RTO_FLOOR`]: no packet can take longer without being lost, so no timeout
    /// fires spuriously however deep the PFC-paused queues grow (RFC 6298's estimator still
    /// raises the RTO above it when the measured RTT is larger). On a lossy path, 4 ×
    /// [`Path::base_rtt`] (a few base RTTs, so a tail loss costs little).
    pub fn effective_rto(&self) -> Time {
        let path = &self.path;
        match self.rto {
            Some(t) => t,
            None if path.lossless => path
                .base_rtt
                .saturating_add(path.max_queueing)
                .max(LOSSLESS_RTO_FLOOR),
            None => Time(path.base_rtt.0.saturating_mul(4)),
        }
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
    /// Delayed ACK: one ACK per at most `m` unmarked in-order packets (draft §2.2;
    /// default 1 = per-packet ACK). Requires `m ≥ 1`. Not used when [`Self::ack_interval`] is
    /// set.
    pub ack_every: u32,
    /// ACK by bytes (DCQCN's receiver, a standard RoCE responder's coalesced ACKs): one ACK
    /// each time at least this many bytes were delivered in order since the previous ACK, plus
    /// one for the message's last packet and one for every packet with AckReq. CE marks do not
    /// cause ACKs in this mode (the NP turns them into CNPs); an ACK's ECE says whether any
    /// packet it covers was marked. `None`: the scheme's choice (DCQCN 64 KiB, see
    /// `rdma-cc-schemes`; the others ACK by [`Self::ack_every`]).
    pub ack_interval: Option<Bytes>,
    /// The NP's CNP interval `N` (DCQCN §3.1, Figure 6): the first CE-marked packet of a flow
    /// gets a CNP at once; afterwards at most one CNP per `N` for the flow, sent at the end of
    /// the `N` that follows the previous CNP if a marked packet arrived within it (a deferred
    /// CNP, [`crate::QpReceiver::next_timeout`]). `Some(0)`: one CNP per marked packet.
    /// `None`: the scheme's choice (DCQCN 50 µs, LDCP-rate 0).
    pub cnp_interval: Option<Time>,
    /// Send CNPs for CE-marked packets (LDCP-rate and DCQCN: on; window LDCP echoes ECE in ACKs).
    pub send_cnp: bool,
    /// Payload bytes per full packet. The policy does not depend on it (a packet counts once
    /// whatever its length); it is validated so that sender and receiver configs agree.
    pub mtu: Bytes,
    /// Delayed ACK only: when a CE-marked packet arrives while unmarked packets wait for their
    /// ACK, first flush an ACK (ECE = 0) for them, so that every ACK covers packets of one CE
    /// state and the sender's `n` is exact (decision; default on). Off: one ACK with
    /// ECE = 1 covers them all.
    pub split_ack_on_ce_change: bool,
    /// After a NACK, further out-of-order packets are not NACKed again until the expected
    /// sequence advances (decision). `Some(t)`: also NACK again once `t` has passed since
    /// the last NACK. Default `None`.
    pub renack_interval: Option<Time>,
    /// A duplicate packet (entirely below the expected sequence) is answered by an ACK of the
    /// cumulative sequence, which recovers a lost final ACK (decision; default on). Off: it is
    /// dropped silently, as the HPCC simulator's receiver does (`rdma-hw.cc:476-478`).
    pub ack_duplicates: bool,
    /// A NACK echoes the timestamp and the INT records of the out-of-order packet that
    /// triggered it, as an ACK does (the HPCC simulator's, `rdma-hw.cc:313-320`: one header
    /// for both). Default off: a NACK carries no INT records.
    pub nack_echoes_int: bool,
}

impl Default for ReceiverConfig {
    /// Per-packet ACK, no CNPs, 1000 B payloads: the window-LDCP receiver (draft §2.2).
    fn default() -> Self {
        ReceiverConfig {
            ack_every: 1,
            ack_interval: None,
            cnp_interval: None,
            send_cnp: false,
            mtu: Bytes(1000),
            split_ack_on_ce_change: true,
            renack_interval: None,
            ack_duplicates: true,
            nack_echoes_int: false,
        }
    }
}

/// The user-facing fields of [`ReceiverConfig`] (`send_cnp` is the scheme's choice, `mtu`
/// the sender's).
const RECEIVER_PARAMS: &[Param<ReceiverConfig>] = &[
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            max: Limit::incl(4_294_967_295.0),
            unit: "packets",
            ..ParamSpec::new(
                "ack_every",
                "ackEvery",
                "AckEvery",
                ParamKind::Count,
                "Receiver: one ACK per at most this many unmarked in-order packets (LDCP \
                 delayed ACK m, draft-dai-tsvwg-ldcp-01 section 2.2); marked packets are \
                 acknowledged at once.",
            )
        },
        get: |c| ParamValue::Count(c.ack_every.into()),
        set: |c, v| c.ack_every = u32::try_from(v.int()).unwrap_or(u32::MAX),
    },
    Param {
        spec: ParamSpec {
            auto: Some("the scheme's: DCQCN 64KiB; LDCP per AckEvery packets"),
            ..ParamSpec::new(
                "ack_interval",
                "ackInterval",
                "AckInterval",
                ParamKind::Bytes,
                "Receiver: one ACK per this many bytes delivered in order, plus one for the \
                 message's last packet and for each AckReq packet (a RoCE responder's \
                 coalesced ACKs); CE marks then cause CNPs, not ACKs.",
            )
        },
        get: |c| ParamValue::Bytes(c.ack_interval.unwrap_or(Bytes(0))),
        set: |c, v| c.ack_interval = (v.int() > 0).then_some(Bytes(v.int())),
    },
    Param {
        spec: ParamSpec {
            auto: Some(
                "the scheme's: DCQCN 50us (its NP's N), LDCP-rate a CNP per marked packet; \
                 1ns gives a CNP per marked packet to any scheme",
            ),
            ..ParamSpec::new(
                "cnp_interval",
                "cnpInterval",
                "CnpInterval",
                ParamKind::Time,
                "Receiver (DCQCN's NP, section 3.1): the first CE-marked packet of a flow gets a \
                 CNP at once; afterwards at most one CNP per interval, sent when the interval \
                 ends if a marked packet arrived within it; for schemes that use CNPs.",
            )
        },
        get: |c| ParamValue::Time(c.cnp_interval.unwrap_or(Time::ZERO)),
        set: |c, v| c.cnp_interval = (v.int() > 0).then_some(Time(v.int())),
    },
    Param {
        spec: ParamSpec::new(
            "split_ack_on_ce_change",
            "splitAckOnCe",
            "SplitAckOnCe",
            ParamKind::Bool,
            "Receiver, delayed ACK: when a CE-marked packet arrives while unmarked ones wait \
             for their ACK, first acknowledge those (ECE = 0), so every ACK covers packets of \
             one CE state.",
        ),
        get: |c| ParamValue::Bool(c.split_ack_on_ce_change),
        set: |c, v| c.split_ack_on_ce_change = v.flag(),
    },
    Param {
        spec: ParamSpec {
            auto: Some("never: NACK again only once the expected sequence advances"),
            ..ParamSpec::new(
                "renack_interval",
                "renackInterval",
                "RenackInterval",
                ParamKind::Time,
                "Receiver: after a NACK, further out-of-order packets are NACKed again only \
                 once this time has passed since the last NACK.",
            )
        },
        get: |c| ParamValue::Time(c.renack_interval.unwrap_or(Time::ZERO)),
        set: |c, v| c.renack_interval = (v.int() > 0).then_some(Time(v.int())),
    },
];

impl Params for ReceiverConfig {
    fn params() -> &'static [Param<Self>] {
        RECEIVER_PARAMS
    }
}

impl ReceiverConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        if let Some(b) = self.ack_interval {
            ConfigError::check(b.0 > 0, "ack_interval", b, "must be > 0")?;
        }
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
        check(&|c| c.mtu = Bytes(9001), "mtu");
        check(&|c| c.path.line_rate = Rate(0), "line_rate");
        check(&|c| c.path.base_rtt = Time::ZERO, "base_rtt");
        check(&|c| c.rto = Some(Time::ZERO), "rto");
        check(&|c| c.rto_backoff = 33, "rto_backoff");
    }

    /// `SenderConfig` read from a map of `entries` (a file's fields).
    fn sender_from<V>(entries: Vec<(&'static str, V)>) -> SenderConfig
    where
        V: serde::de::IntoDeserializer<'static, serde::de::value::Error>,
    {
        let map = serde::de::value::MapDeserializer::new(entries.into_iter());
        SenderConfig::deserialize(map).unwrap()
    }

    #[test]
    fn a_file_names_path_and_timer_fields_side_by_side_and_may_omit_any() {
        let d = SenderConfig::default();
        assert_eq!(sender_from::<u64>(vec![]), d);
        let c = sender_from(vec![
            ("mtu", 1500u64),
            ("line_rate", 40_000_000_000),
            ("rto_backoff", 3),
            ("max_queueing", 5000),
        ]);
        let want = SenderConfig {
            mtu: Bytes(1500),
            path: Path {
                line_rate: Rate::gbps(40),
                max_queueing: Time(5000),
                ..d.path
            },
            rto_backoff: 3,
            ..d
        };
        assert_eq!(c, want);
        assert_eq!(c.path.base_rtt, Time::us(8));
        let c = sender_from(vec![("lossless", true), ("unknown", false)]);
        assert_eq!(
            c,
            SenderConfig {
                path: Path {
                    lossless: true,
                    ..d.path
                },
                ..d
            }
        );
    }

    #[test]
    fn the_table_reads_a_zero_nack_holdoff_as_automatic() {
        let i = SenderConfig::params()
            .iter()
            .position(|p| p.spec.name == "dup_nack_holdoff")
            .unwrap();
        let mut c = SenderConfig {
            dup_nack_holdoff: Some(Time::us(3)),
            ..SenderConfig::default()
        };
        c.set_param(i, &ParamValue::Time(Time::ZERO)).unwrap();
        assert_eq!(c.dup_nack_holdoff, None);
        c.set_param(i, &ParamValue::Time(Time(1))).unwrap();
        assert_eq!(c.dup_nack_holdoff, Some(Time(1)));
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
