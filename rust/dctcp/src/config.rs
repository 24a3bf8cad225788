//! DCTCP's constants.
//!
//! A plain struct with serde derives and a parameter table ([`DctcpConfig::params`]), the one
//! definition of each constant's name, bounds and help (the NIC's `Dctcp*` attributes and the
//! examples' `--dctcp*` options). Every constant but the [`Preset`] is an `Option`: `None`
//! ("auto", also `0` on the command line) takes the preset's value.
//! [`DctcpConfig::resolved`] gives the values in effect on a path ([`DctcpParams`]).
//!
//! Two presets:
//! - [`Preset::HpccSim`] (default): the HPCC simulator's DCTCP (Li et al., SIGCOMM 2019,
//!   alibaba-edu/High-Precision-Congestion-Control `run.py`, `cc == "dctcp"`): g = 1/16
//!   (`EWMA_GAIN 0.0625`), α = 1 at start (`dctcp.m_alpha = 1`), additive step 615 Mb/s at
//!   every link speed (`DCTCP_RATE_AI 615Mb/s`, "calculated from RTT=13us and MTU=1KB, because
//!   DCTCP add 1 MTU per RTT"), minimum rate 1 Gb/s (`MIN_RATE`); the sender's rules of
//!   `HandleAckDctcp` (see [`crate::dctcp`]).
//! - [`Preset::Paper`]: RFC 8257 where it differs: one MTU per base RTT of the flow's path
//!   added per window, the rate's floor is the window's, one packet per base RTT (TCP's congestion window never goes below one segment; the RFC sets
//!   no other floor). g = 1/16 and α = 1 at start are RFC 8257's too (§4.2: "g = 1/16";
//!   §3.3: α initialised to 1).
//!
//! Parameter names (the tables' `name`, the field of every [`ConfigError`] here) are the
//! fields' paths in a NIC's configuration, `dctcp.<field>` (e.g. `dctcp.rate_ai`): unique among all
//! of a NIC's parameters, whose flat table also holds DCQCN's and LDCP's fields of the same
//! names.

use crate::dctcp::Dctcp;
use rdma_cc_core::param::{
    fraction, opt_real, rate, set_rate, set_real, Param, ParamKind, ParamSpec, ParamValue, Params,
};
use rdma_cc_core::{ConfigError, Rate, Time};
use rdma_cc_transport::{QpSender, SenderConfig};
use serde::{Deserialize, Serialize};

/// Where the constants not given explicitly come from (shared by DCTCP, HPCC and TIMELY).
pub use rdma_cc_core::param::Preset;

/// The DCTCP constants in effect on a path (every "auto" resolved): what [`Dctcp`] runs with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DctcpParams {
    /// `g`, the gain of `α` (RFC 8257 §3.3).
    pub g: f64,
    /// `α` at the flow's start.
    pub alpha_init: f64,
    /// The additive step per window without a cut.
    pub rate_ai: Rate,
    /// The floor of the rate.
    pub min_rate: Rate,
}

/// The simulator's additive step, `DCTCP_RATE_AI 615Mb/s` (`run.py:127`: "calculated from
/// RTT=13us and MTU=1KB"), the same at every link speed.
pub const SIM_RATE_AI: Rate = Rate::mbps(615);

/// The rate of one `mtu`-byte packet per `base_rtt`, at most `line` and at least 1 bit/s.
pub fn one_packet_per_rtt(mtu: u64, base_rtt: Time, line: Rate) -> Rate {
    let bits = u128::from(mtu) * 8 * 1_000_000_000;
    let r = bits / u128::from(base_rtt.0.max(1));
    Rate(u64::try_from(r).unwrap_or(u64::MAX).clamp(1, line.0.max(1)))
}

/// DCTCP constants: a [`Preset`] and any constant given explicitly; `None` is "auto", the
/// preset's value. Default: the HPCC simulator's values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DctcpConfig {
    /// Where the constants left "auto" come from. Default [`Preset::HpccSim`].
    pub preset: Preset,
    /// `g` in `(0, 1]`. Both presets 1/16.
    pub g: Option<f64>,
    /// `α` at start, in `(0, 1]`. Both presets 1.
    pub alpha_init: Option<f64>,
    /// The additive step per window. Simulator 615 Mb/s at every speed (`run.py:127`);
    /// paper one MTU per base RTT of the flow's path.
    pub rate_ai: Option<Rate>,
    /// The rate's floor, at most the line rate. Simulator 1 Gb/s; paper one packet per base
    /// RTT.
    pub min_rate: Option<Rate>,
}

const DCTCP_PARAMS: &[Param<DctcpConfig>] = &[
    Param {
        spec: ParamSpec {
            choices: &Preset::NAMES,
            ..ParamSpec::new(
                "dctcp.preset",
                "dctcpPreset",
                "DctcpPreset",
                ParamKind::Choice,
                "DCTCP: where the constants left auto come from: hpcc-sim (the HPCC \
                 simulator's DCTCP for RDMA, run.py) or paper (RFC 8257: no rate floor but \
                 the one-packet window).",
            )
        },
        get: |c| ParamValue::Choice(c.preset.name().to_string()),
        set: |c, v| c.preset = Preset::from_name(v.text()).unwrap_or(c.preset),
    },
    Param {
        spec: fraction(
            "dctcp.g",
            "dctcpG",
            "DctcpG",
            "hpcc-sim and paper 1/16 (run.py EWMA_GAIN; RFC 8257 section 4.2)",
            "DCTCP gain g: once per window alpha = (1-g) alpha + g F, F the fraction of \
             packets acknowledged with ECN-Echo (RFC 8257 section 3.3).",
        ),
        get: |c| opt_real(c.g),
        set: |c, v| c.g = set_real(v),
    },
    Param {
        spec: fraction(
            "dctcp.alpha_init",
            "dctcpAlphaInit",
            "DctcpAlphaInit",
            "hpcc-sim and paper 1",
            "DCTCP alpha at the flow's start (RFC 8257 section 3.3).",
        ),
        get: |c| opt_real(c.alpha_init),
        set: |c, v| c.alpha_init = set_real(v),
    },
    Param {
        spec: rate(
            "dctcp.rate_ai",
            "dctcpRai",
            "DctcpRai",
            "hpcc-sim 615Mbps at every speed (run.py DCTCP_RATE_AI, one 1 KB MTU per \
             13 us); paper one MTU per base RTT of the flow's path",
            "DCTCP additive increase: the rate grows by this once per window without a cut \
             (congestion avoidance: one MTU per RTT).",
        ),
        get: |c| ParamValue::Rate(c.rate_ai.unwrap_or(Rate(0))),
        set: |c, v| c.rate_ai = set_rate(v),
    },
    Param {
        spec: rate(
            "dctcp.min_rate",
            "dctcpMinRate",
            "DctcpMinRate",
            "hpcc-sim 1Gbps (run.py MIN_RATE); paper one MTU per base RTT (a one-packet \
             window)",
            "DCTCP floor of the rate, at most the line rate (the window never goes below one \
             packet whatever it is).",
        ),
        get: |c| ParamValue::Rate(c.min_rate.unwrap_or(Rate(0))),
        set: |c, v| c.min_rate = set_rate(v),
    },
];

impl Params for DctcpConfig {
    fn params() -> &'static [Param<Self>] {
        DCTCP_PARAMS
    }
}

impl DctcpConfig {
    /// The constants in effect on the path `sender` describes: each given value, else the
    /// preset's.
    pub fn resolved(&self, sender: &SenderConfig) -> DctcpParams {
        let line = sender.path.line_rate;
        let one = one_packet_per_rtt(sender.mtu.0, sender.path.base_rtt, line);
        DctcpParams {
            g: self.g.unwrap_or(1.0 / 16.0),
            alpha_init: self.alpha_init.unwrap_or(1.0),
            rate_ai: self.rate_ai.unwrap_or(match self.preset {
                // run.py:127 `dctcp_ai=615`, at every link speed
                Preset::HpccSim => SIM_RATE_AI,
                Preset::Paper => one,
            }),
            min_rate: self.min_rate.unwrap_or(match self.preset {
                Preset::HpccSim => Rate::gbps(1),
                Preset::Paper => one,
            }),
        }
    }

    /// Checks every field, then the values in effect on the path `sender` describes
    /// (`min_rate` at most its line rate); the error names the first bad field (its Rust
    /// name). A value given as `Some(0)` (a file may hold one) is an error.
    pub fn validate_for(&self, sender: &SenderConfig) -> Result<(), ConfigError> {
        self.validate_all()?;
        let p = self.resolved(sender);
        let unit = |x: f64| x.is_finite() && x > 0.0 && x <= 1.0;
        ConfigError::check(unit(p.g), "dctcp.g", p.g, "must be in (0, 1]")?;
        ConfigError::check(
            unit(p.alpha_init),
            "dctcp.alpha_init",
            p.alpha_init,
            "must be in (0, 1]",
        )?;
        ConfigError::check(p.rate_ai.0 > 0, "dctcp.rate_ai", p.rate_ai, "must be > 0")?;
        let line = sender.path.line_rate;
        ConfigError::check(
            p.min_rate.0 > 0 && p.min_rate <= line,
            "dctcp.min_rate",
            p.min_rate,
            &format!("must be in (0, line rate] = (0, {line}]"),
        )
    }

    /// Validates both configurations and builds the sender of a `flow_size`-byte message
    /// starting at `now`, with DCTCP's controller ([`Dctcp`]).
    pub fn build(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<Dctcp>, ConfigError> {
        let cc = Dctcp::new(sender, self)?;
        QpSender::new(sender, cc, flow_size, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_core::Bytes;
    use rdma_cc_transport::Path;

    fn sender(mtu: u64, rtt: Time) -> SenderConfig {
        SenderConfig {
            mtu: Bytes(mtu),
            path: Path {
                base_rtt: rtt,
                ..Path::default()
            },
            ..SenderConfig::default()
        }
    }

    #[test]
    fn default_is_the_hpcc_simulators_dctcp() {
        // run.py (dctcp): EWMA_GAIN 0.0625, DCTCP_RATE_AI 615 Mb/s "from RTT=13us and
        // MTU=1KB", MIN_RATE 1000Mb/s; rdma-queue-pair.cc: dctcp.m_alpha = 1
        let p = DctcpConfig::default().resolved(&sender(1000, Time::us(13)));
        assert_eq!(p.g, 0.0625);
        assert_eq!(p.alpha_init, 1.0);
        assert_eq!(p.rate_ai, Rate::mbps(615));
        assert_eq!(p.min_rate, Rate::gbps(1));
        // run.py:127: the same 615 Mb/s whatever the path's RTT and the link's speed
        let mut fast = sender(1000, Time::us(4));
        fast.path.line_rate = Rate::gbps(400);
        assert_eq!(
            DctcpConfig::default().resolved(&fast).rate_ai,
            Rate::mbps(615)
        );
        DctcpConfig::default()
            .validate_for(&SenderConfig::default())
            .unwrap();
    }

    #[test]
    fn paper_preset_floors_at_one_packet_per_rtt() {
        let c = DctcpConfig {
            preset: Preset::Paper,
            ..DctcpConfig::default()
        };
        let p = c.resolved(&sender(1000, Time::us(8)));
        assert_eq!(p.min_rate, Rate::gbps(1));
        assert_eq!(p.rate_ai, Rate::gbps(1));
        let p = c.resolved(&sender(1000, Time::us(16)));
        assert_eq!(p.min_rate, Rate::mbps(500));
    }

    #[test]
    fn table_and_validation_name_the_field() {
        let c = DctcpConfig::default();
        for (i, p) in DctcpConfig::params().iter().enumerate() {
            let v = c.get_param(i).unwrap();
            p.spec.check(&v, p.spec.name).unwrap();
            assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
            assert!(p.spec.option.starts_with("dctcp"), "{}", p.spec.option);
            assert!(p.spec.attr.starts_with("Dctcp"), "{}", p.spec.attr);
        }
        let s = SenderConfig::default();
        let check = |c: DctcpConfig, field: &str| {
            assert_eq!(c.validate_for(&s).unwrap_err().field, field);
        };
        check(DctcpConfig { g: Some(1.5), ..c }, "dctcp.g");
        check(
            DctcpConfig {
                alpha_init: Some(0.0),
                ..c
            },
            "dctcp.alpha_init",
        );
        check(
            DctcpConfig {
                rate_ai: Some(Rate(0)),
                ..c
            },
            "dctcp.rate_ai",
        );
        check(
            DctcpConfig {
                min_rate: Some(Rate::gbps(101)),
                ..c
            },
            "dctcp.min_rate",
        );
        assert_eq!(c.build(&s, 0, Time::ZERO).unwrap_err().field, "flow_size");
    }
}
