//! LDCP's constants.
//!
//! A plain struct with serde derives (scenarios read it from files; missing fields take their
//! defaults), `Default` taken from the LDCP draft (draft-dai-tsvwg-ldcp-01 §2.2–§2.3), and
//! `validate()` naming the first bad field the way it is spelled here (`"alpha"`, `"iw"`, ...).
//! Its parameter table ([`LdcpConfig::params`]) is the one definition of each constant's
//! name, bounds and help: the ns-3 NIC's attributes and the examples' options come from it.
//! The path and the transport's timers (MTU, line rate, base RTT, RTO, RTT gain) are the
//! transport's [`SenderConfig`].

use crate::ldcp::Ldcp;
use crate::rate::LdcpRate;
use rdma_cc_core::param::{Limit, Param, ParamKind, ParamSpec, ParamValue, Params};
use rdma_cc_core::{ConfigError, Time};
use rdma_cc_transport::{QpSender, SenderConfig};
use serde::{Deserialize, Serialize};

/// LDCP constants (draft-dai-tsvwg-ldcp-01 §2.2–2.3; the defaults are the draft's values
/// where it gives them: α = 1, β = 1/2, γ = 1/8, η = 1/2, IW = BDP).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LdcpConfig {
    /// Additive-increase step per RTT, in packets: `cw += α/cw` per unmarked ACK (draft eq. 1).
    /// Requires `0 < α ≤ 1`. Default 1/2 (sweep).
    pub alpha: f64,
    /// Decrease per marked ACK, in packets: `cw −= β` (draft eq. 1). Requires `0 < β ≤ 1`.
    /// Default 1/2.
    pub beta: f64,
    /// Sub-packet increase step and window floor `γ` (draft §2.2: "typical values of gamma
    /// include 1/4, 1/8, 1/16"). Requires `0 < γ ≤ 1`. Default 1/4 (sweep).
    pub gamma: f64,
    /// Multiplicative decrease below one packet: `cw = max(γ, η·cw)` (draft §2.2: "We choose
    /// eta = 1/2"). Requires `0 < η < 1`. Default 3/4 (sweep: a gentler cut below one packet
    /// keeps a 1000-sender incast's link busy).
    pub eta: f64,
    /// Initial window in packets (may be fractional). `None`: the path's BDP,
    /// `line_rate × base_rtt / mtu` (draft §2.3 "e.g., BDP"). Default `None`.
    pub iw: Option<f64>,
    /// Zero-RTT fast start (draft §2.3). When off, a flow starts in the stable stage with
    /// `cw = 1` and ECT packets (decision, see [`crate::ldcp`]). Default on.
    pub fast_start: bool,
    /// Let `cw` fall below one packet (draft §2.2, the sub-packet regime). When off, every
    /// decrease stops at one packet instead of `γ`: the DCTCP-style floor the draft compares
    /// against. Default on.
    pub sub_packet: bool,
    /// Smallest window a flow leaves fast start with after a loss (draft §3.1 condition 1 sets
    /// `cw` to the packets acknowledged before the loss, which is 0 for a flow whose first
    /// packets were dropped). Default [`LossFloor::Gamma`] (chosen by the sweep in the README:
    /// with the default `K_fs` both floors give the same 16-sender incast and churn, and `γ`
    /// keeps a 1000-sender incast's queue lower and its link busier).
    pub fs_loss_floor: LossFloor,
    /// The RTT the rate-based variant divides its window by (draft §3.2: "Divided by RTT, the
    /// window is converted to rate"; which RTT is not said). Default [`RateRtt::Srtt`]
    /// (chosen by the sweep in the README).
    pub rate_rtt: RateRtt,
    /// Rate variant with `fast_start`: first-RTT packets Not-ECT but the IW-th, as the window
    /// scheme's fast start (decision, see [`crate::LdcpRate`]); off: every packet ECT. Default
    /// on (sweep in the README: without it a 1000-sender incast at line rate loses 90 000
    /// stable-stage packets to the buffer, with it none).
    pub rate_not_ect_start: bool,
}

/// The floor of `cw` when a flow leaves fast start on a loss (see
/// [`LdcpConfig::fs_loss_floor`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossFloor {
    /// At least `γ` (the stable stage's own floor): a flow that got nothing acknowledged
    /// starts its stable stage in the sub-packet regime, one packet per `RTT/γ`.
    #[default]
    Gamma,
    /// At least one packet: a flow that got nothing acknowledged resends one packet at once
    /// and grows from there.
    One,
}

impl LossFloor {
    /// Every floor's name, in declaration order (the choices of `--fsLossFloor`).
    pub const NAMES: [&'static str; 2] = ["gamma", "one"];

    /// The name used in options and files.
    pub const fn name(self) -> &'static str {
        match self {
            LossFloor::Gamma => Self::NAMES[0],
            LossFloor::One => Self::NAMES[1],
        }
    }

    /// The floor called `name` ([`Self::name`]'s spelling).
    pub fn from_name(name: &str) -> Option<LossFloor> {
        [LossFloor::Gamma, LossFloor::One]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// The RTT the rate-based variant turns its window into a rate with (see
/// [`LdcpConfig::rate_rtt`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RateRtt {
    /// The path's base RTT (no queueing): `R = cw·MTU/base_rtt`, so the rate depends on the
    /// window only and the queue acts through the CNPs alone.
    Base,
    /// The smoothed RTT measured by the probes (RFC 6298 estimator): the queueing delay also
    /// lowers the rate, as a window would.
    #[default]
    Srtt,
}

impl RateRtt {
    /// Every choice's name, in declaration order (the choices of `--rateRtt`).
    pub const NAMES: [&'static str; 2] = ["base", "srtt"];

    /// The name used in options and files.
    pub const fn name(self) -> &'static str {
        match self {
            RateRtt::Base => Self::NAMES[0],
            RateRtt::Srtt => Self::NAMES[1],
        }
    }

    /// The choice called `name` ([`Self::name`]'s spelling).
    pub fn from_name(name: &str) -> Option<RateRtt> {
        [RateRtt::Base, RateRtt::Srtt]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

impl LdcpConfig {
    /// The draft's own constants: α = 1, β = 1/2, γ = 1/8, η = 1/2 (draft-dai-tsvwg-ldcp-01
    /// §2.2), IW = BDP, fast start and the sub-packet regime on, floor γ after a fast-start
    /// loss, the rate variant over the smoothed RTT. The rule tests use it; the defaults
    /// ([`LdcpConfig::default`]) differ where the sweep found better values.
    pub const DRAFT: LdcpConfig = LdcpConfig {
        alpha: 1.0,
        beta: 0.5,
        gamma: 0.125,
        eta: 0.5,
        iw: None,
        fast_start: true,
        sub_packet: true,
        fs_loss_floor: LossFloor::Gamma,
        rate_rtt: RateRtt::Srtt,
        rate_not_ect_start: false,
    };
}

impl Default for LdcpConfig {
    /// α = 1/2, β = 1/2, γ = 1/4, η = 3/4, IW = BDP, fast start on, sub-packet regime on,
    /// fast-start loss floor γ, rate variant over the smoothed RTT: chosen by the sweep in the
    /// README ("LDCP defaults") within the draft's ranges (draft-dai-tsvwg-ldcp-01 §2.2:
    /// `0 < α, β ≤ 1`, γ among "1/4, 1/8, 1/16", `0 < η < 1` where the draft chooses 1/2;
    /// §2.3: IW "e.g., BDP"). The draft's own choices (α = 1, γ = 1/8, η = 1/2) kept a
    /// 1000-sender incast at 52–55 % of the link, against 94 % with these.
    fn default() -> Self {
        LdcpConfig {
            alpha: 0.5,
            beta: 0.5,
            gamma: 0.25,
            eta: 0.75,
            iw: None,
            fast_start: true,
            sub_packet: true,
            fs_loss_floor: LossFloor::Gamma,
            rate_rtt: RateRtt::Srtt,
            rate_not_ect_start: true,
        }
    }
}

/// A real-valued LDCP constant in `(0, 1]` (or `(0, 1)` when `open_top`).
const fn unit_interval(
    name: &'static str,
    attr: &'static str,
    open_top: bool,
    help: &'static str,
) -> ParamSpec<'static> {
    ParamSpec {
        min: Limit::excl(0.0),
        max: if open_top {
            Limit::excl(1.0)
        } else {
            Limit::incl(1.0)
        },
        ..ParamSpec::new(name, name, attr, ParamKind::Real, help)
    }
}

const LDCP_PARAMS: &[Param<LdcpConfig>] = &[
    Param {
        spec: ParamSpec {
            unit: "packets",
            ..unit_interval(
                "alpha",
                "Alpha",
                false,
                "LDCP additive increase per RTT: cw += alpha/cw per unmarked ACK \
                 (draft-dai-tsvwg-ldcp-01 section 2.2, eq. 1).",
            )
        },
        get: |c| ParamValue::Real(c.alpha),
        set: |c, v| c.alpha = v.real(),
    },
    Param {
        spec: ParamSpec {
            unit: "packets",
            ..unit_interval(
                "beta",
                "Beta",
                false,
                "LDCP decrease per marked ACK: cw -= beta (draft section 2.2, eq. 1).",
            )
        },
        get: |c| ParamValue::Real(c.beta),
        set: |c, v| c.beta = v.real(),
    },
    Param {
        spec: ParamSpec {
            unit: "packets",
            ..unit_interval(
                "gamma",
                "Gamma",
                false,
                "LDCP sub-packet increase step and window floor (draft section 2.2: typical \
                 1/4, 1/8, 1/16).",
            )
        },
        get: |c| ParamValue::Real(c.gamma),
        set: |c, v| c.gamma = v.real(),
    },
    Param {
        spec: unit_interval(
            "eta",
            "Eta",
            true,
            "LDCP multiplicative decrease below one packet: cw = max(gamma, eta cw) per \
             marked ACK (draft section 2.2: eta = 1/2).",
        ),
        get: |c| ParamValue::Real(c.eta),
        set: |c, v| c.eta = v.real(),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            unit: "packets",
            auto: Some("the path's BDP, line rate x base RTT"),
            ..ParamSpec::new(
                "iw",
                "iw",
                "Iw",
                ParamKind::Real,
                "LDCP initial window of zero-RTT fast start (draft section 2.3).",
            )
        },
        get: |c| ParamValue::Real(c.iw.unwrap_or(0.0)),
        set: |c, v| c.iw = (v.real() != 0.0).then_some(v.real()),
    },
    Param {
        spec: ParamSpec::new(
            "fast_start",
            "fastStart",
            "FastStart",
            ParamKind::Bool,
            "LDCP zero-RTT fast start: IW at line rate, first-RTT packets Not-ECT but the last \
             (draft section 2.3); off: start in the stable stage at cw = 1 with ECT packets.",
        ),
        get: |c| ParamValue::Bool(c.fast_start),
        set: |c, v| c.fast_start = v.flag(),
    },
    Param {
        spec: ParamSpec::new(
            "sub_packet",
            "subPacket",
            "SubPacket",
            ParamKind::Bool,
            "LDCP sub-packet regime: cw below one packet, one packet in flight sent every \
             RTT/cw (draft section 2.2); off: the window floor is one packet.",
        ),
        get: |c| ParamValue::Bool(c.sub_packet),
        set: |c, v| c.sub_packet = v.flag(),
    },
    Param {
        spec: ParamSpec {
            choices: &LossFloor::NAMES,
            ..ParamSpec::new(
                "fs_loss_floor",
                "fsLossFloor",
                "FsLossFloor",
                ParamKind::Choice,
                "LDCP: smallest cw a flow leaves fast start with after a loss, where the draft \
                 sets cw to the packets acknowledged before the loss (section 3.1): gamma (a \
                 flow with nothing acknowledged enters the sub-packet regime) or one (it resends \
                 one packet at once).",
            )
        },
        get: |c| ParamValue::Choice(c.fs_loss_floor.name().to_string()),
        set: |c, v| c.fs_loss_floor = LossFloor::from_name(v.text()).unwrap_or(c.fs_loss_floor),
    },
    Param {
        spec: ParamSpec {
            choices: &RateRtt::NAMES,
            ..ParamSpec::new(
                "rate_rtt",
                "rateRtt",
                "RateRtt",
                ParamKind::Choice,
                "LDCP rate variant: the RTT the window is divided by to give the rate (draft \
                 section 3.2): base (the path's base RTT) or srtt (the smoothed RTT of the \
                 probes, queueing included).",
            )
        },
        get: |c| ParamValue::Choice(c.rate_rtt.name().to_string()),
        set: |c, v| c.rate_rtt = RateRtt::from_name(v.text()).unwrap_or(c.rate_rtt),
    },
    Param {
        spec: ParamSpec::new(
            "rate_not_ect_start",
            "rateNotEctStart",
            "RateNotEctStart",
            ParamKind::Bool,
            "LDCP rate variant with fast start: first-RTT packets Not-ECT but the IW-th, as \
             the window scheme's fast start (draft section 2.3), so the switch's K_fs drops an \
             overloading start; a loss before the IW packets are acknowledged sets cw to the \
             packets acknowledged. Off: every packet ECT.",
        ),
        get: |c| ParamValue::Bool(c.rate_not_ect_start),
        set: |c, v| c.rate_not_ect_start = v.flag(),
    },
];

impl Params for LdcpConfig {
    fn params() -> &'static [Param<Self>] {
        LDCP_PARAMS
    }
}

impl LdcpConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        if let Some(iw) = self.iw {
            // the table reads None and Some(0) alike (0 = automatic)
            ConfigError::check(iw > 0.0, "iw", iw, "must be a finite number of packets > 0")?;
        }
        Ok(())
    }

    /// [`Self::validate`], then the initial window on the path `sender` describes: without an
    /// explicit [`Self::iw`] the BDP must be at least one byte (the error names `iw`).
    pub fn validate_for(&self, sender: &SenderConfig) -> Result<(), ConfigError> {
        self.validate()?;
        let iw = self.iw_packets(sender);
        ConfigError::check(
            iw.is_finite() && iw > 0.0,
            "iw",
            iw,
            "the BDP (line_rate × base_rtt) is below one byte; set iw explicitly",
        )
    }

    /// The initial window in effect on the path `sender` describes, in packets: [`Self::iw`]
    /// or the BDP `line_rate × base_rtt / mtu` of the path.
    pub fn iw_packets(&self, sender: &SenderConfig) -> f64 {
        match self.iw {
            Some(iw) => iw,
            None => {
                let path = &sender.path;
                path.line_rate.bytes_in(path.base_rtt).0 as f64 / sender.mtu.0.max(1) as f64
            }
        }
    }

    /// Validates both configurations and builds the sender of a `flow_size`-byte message
    /// starting at `now`, with LDCP's window controller ([`Ldcp`]).
    pub fn build(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<Ldcp>, ConfigError> {
        let cc = Ldcp::new(sender, self, flow_size)?;
        QpSender::new(sender, cc, flow_size, now)
    }

    /// Validates both configurations and builds the sender of a `flow_size`-byte message
    /// starting at `now`, with LDCP's rate-based variant ([`LdcpRate`]).
    pub fn build_rate(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<LdcpRate>, ConfigError> {
        let cc = LdcpRate::new(sender, self, flow_size)?;
        QpSender::new(sender, cc, flow_size, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::Rate;
    use rdma_cc_transport::Path;

    #[test]
    fn defaults_are_valid_and_iw_is_the_bdp() {
        let c = LdcpConfig::default();
        let s = SenderConfig::default();
        c.validate_for(&s).unwrap();
        // 100 Gb/s × 8 µs = 100 KB = 100 packets of 1000 B
        assert_eq!(c.iw_packets(&s), 100.0);
    }

    #[test]
    fn alpha_out_of_range_is_named_alpha() {
        for bad in [0.0, -1.0, 1.5, f64::NAN] {
            let c = LdcpConfig {
                alpha: bad,
                ..LdcpConfig::default()
            };
            assert_eq!(c.validate().unwrap_err().field, "alpha");
        }
    }

    #[test]
    fn gamma_above_one_is_named_gamma() {
        let mut c = LdcpConfig {
            gamma: 1.5,
            ..LdcpConfig::default()
        };
        let e = c.validate().unwrap_err();
        assert_eq!(e.field, "gamma");
        assert_eq!(e.value, "1.5");
        c.gamma = 0.0;
        assert_eq!(c.validate().unwrap_err().field, "gamma");
    }

    #[test]
    fn every_bad_field_is_named() {
        let check = |f: &dyn Fn(&mut LdcpConfig), field: &str| {
            let mut c = LdcpConfig::default();
            f(&mut c);
            assert_eq!(
                c.validate_for(&SenderConfig::default()).unwrap_err().field,
                field
            );
        };
        check(&|c| c.beta = 0.0, "beta");
        check(&|c| c.beta = 1.01, "beta");
        check(&|c| c.eta = 1.0, "eta");
        check(&|c| c.eta = 0.0, "eta");
        check(&|c| c.iw = Some(0.0), "iw");
        check(&|c| c.iw = Some(f64::INFINITY), "iw");
        // a BDP below one byte cannot be the initial window
        let tiny = SenderConfig {
            path: Path {
                line_rate: Rate(1),
                base_rtt: Time(1),
                ..Path::default()
            },
            ..SenderConfig::default()
        };
        let e = LdcpConfig::default().validate_for(&tiny).unwrap_err();
        assert_eq!(e.field, "iw");
    }

    #[test]
    fn build_validates_both_configs_and_the_flow_size() {
        let s = SenderConfig::default();
        let bad = LdcpConfig {
            alpha: 0.0,
            ..LdcpConfig::default()
        };
        assert_eq!(bad.build(&s, 1, Time::ZERO).unwrap_err().field, "alpha");
        assert_eq!(
            bad.build_rate(&s, 1, Time::ZERO).unwrap_err().field,
            "alpha"
        );
        let c = LdcpConfig::default();
        let e = c.build(&s, 0, Time::ZERO).unwrap_err();
        assert_eq!(e.field, "flow_size");
        let bad_mtu = SenderConfig {
            mtu: rdma_cc_core::Bytes(0),
            ..SenderConfig::default()
        };
        assert_eq!(c.build(&bad_mtu, 1, Time::ZERO).unwrap_err().field, "mtu");
    }
}
