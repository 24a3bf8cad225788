//! HPCC's constants.
//!
//! A plain struct with serde derives (missing fields take their defaults) and a parameter
//! table ([`HpccConfig::params`]), the one definition of each constant's name, bounds and help:
//! the ns-3 NIC's `Hpcc*` attributes and the examples' `--hpcc*` options come from it. Every
//! constant but the [`Preset`] is an `Option`: `None` ("auto") takes the preset's value, so
//! `--hpccPreset=paper --hpccEta=0.9` means the paper's values with one change whatever the
//! order of the options. [`HpccConfig::resolved`] gives the values in effect on a path
//! ([`HpccParams`]).
//!
//! Two presets:
//! - [`Preset::HpccSim`] (default): the values the HPCC simulator (Li et al., SIGCOMM 2019,
//!   alibaba-edu/High-Precision-Congestion-Control, `rdma-hw.cc` and `run.py`, `cc == "hp"`)
//!   runs HPCC with, so that comparisons made there can be reproduced: η = 0.95 (`U_TARGET`),
//!   `max_stage` = 0 (`MI_THRESH`: every update multiplicative), `R_AI` = 10 Mb/s × (line rate /
//!   25 Gb/s) (40 Mb/s at 100 Gb/s), fast react on (`FAST_REACT 1`), minimum rate 1 Gb/s
//!   (`MIN_RATE`, every scheme's), one reference rate for the whole path (`MULTI_RATE 0`).
//! - [`Preset::Paper`]: Li et al. where it differs: `max_stage` = 5 (the paper's additive
//!   stages before a multiplicative update). The paper gives its additive step as a rule of the
//!   deployment (how many flows the headroom `1 − η` must leave room for), not one value, and
//!   no minimum rate: both keep the simulator's values.
//!
//! Parameter names (the tables' `name`, the field of every [`ConfigError`] here) are the
//! fields' paths in a NIC's configuration, `hpcc.<field>` (e.g. `hpcc.rate_ai`): unique among
//! all of a NIC's parameters, whose flat table also holds DCQCN's, TIMELY's and DCTCP's
//! fields of the same names.

use crate::hpcc::Hpcc;
use rdma_cc_core::param::{
    opt_real, rate, set_rate, set_real, Limit, Param, ParamKind, ParamSpec, ParamValue, Params,
};
use rdma_cc_core::{ConfigError, Rate, Time};
use rdma_cc_transport::{QpSender, SenderConfig};
use serde::{Deserialize, Serialize};

/// Where the constants not given explicitly come from (shared by DCTCP, HPCC and TIMELY).
pub use rdma_cc_core::param::Preset;

/// `R_AI` of the HPCC simulator: 10 Mb/s per 25 Gb/s of line rate (`run.py`, HPCC:
/// `ai = 10 * bw / 25`).
const SIM_RATE_AI_PER_25G: u64 = 10_000_000;
/// The line rate [`SIM_RATE_AI_PER_25G`] is given for.
const RATE_AI_LINE: u64 = 25_000_000_000;

/// The largest `max_stage` the options offer (beyond it additive increase would run for more
/// than ten RTTs in a row between two multiplicative updates).
pub const MAX_STAGE_LIMIT: u32 = 10;

/// The choices of `--hpccMaxStage`: `auto`, then `0` to [`MAX_STAGE_LIMIT`] (a choice rather
/// than a number because 0 is a real value here, the simulator's, and not "auto").
const MAX_STAGE_CHOICES: [&str; 12] = [
    "auto", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10",
];

/// The HPCC constants in effect on a path (every "auto" resolved): what [`Hpcc`] runs with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HpccParams {
    /// `η`, the target utilisation of the most utilised link (Algorithm 1, `ComputeWind`).
    pub eta: f64,
    /// `maxStage`: additive updates in a row after which the next full update is
    /// multiplicative even below `η` (Algorithm 1, `ComputeWind`).
    pub max_stage: u32,
    /// `R_AI = W_AI/T`, the additive step of the rate.
    pub rate_ai: Rate,
    /// Whether ACKs between two full (per-RTT) updates adjust the rate too, from the
    /// reference rate (Algorithm 1, `NewAck`: `ComputeWind(…, False)`).
    pub fast_react: bool,
    /// The floor of the rate.
    pub min_rate: Rate,
}

impl HpccParams {
    /// Checks every value on its own; the error names the [`HpccConfig`] field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check(
            self.eta.is_finite() && self.eta > 0.0 && self.eta <= 1.0,
            "hpcc.eta",
            self.eta,
            "must be in (0, 1]",
        )?;
        ConfigError::check(
            self.max_stage <= MAX_STAGE_LIMIT,
            "hpcc.max_stage",
            self.max_stage,
            &format!("must be at most {MAX_STAGE_LIMIT}"),
        )?;
        ConfigError::check(
            self.rate_ai.0 > 0,
            "hpcc.rate_ai",
            self.rate_ai,
            "must be > 0",
        )?;
        ConfigError::check(
            self.min_rate.0 > 0,
            "hpcc.min_rate",
            self.min_rate,
            "must be > 0",
        )
    }
}

/// HPCC constants: a [`Preset`] and any constant given explicitly; `None` is "auto", the
/// preset's value. Default: the HPCC simulator's values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HpccConfig {
    /// Where the constants left "auto" come from. Default [`Preset::HpccSim`].
    pub preset: Preset,
    /// `η` in `(0, 1]`. Both presets 0.95 (the simulator's `U_TARGET`).
    pub eta: Option<f64>,
    /// `maxStage`, at most [`MAX_STAGE_LIMIT`]. Simulator 0 (`MI_THRESH`); paper 5.
    pub max_stage: Option<u32>,
    /// `R_AI`. Both presets 10 Mb/s × (line rate / 25 Gb/s) (the simulator's `RATE_AI`).
    pub rate_ai: Option<Rate>,
    /// Fast react. Both presets on (`FAST_REACT 1`; the paper's per-ACK reaction).
    pub fast_react: Option<bool>,
    /// The rate's floor, at most the line rate. Both presets 1 Gb/s (the simulator's
    /// `MIN_RATE`; the paper sets none).
    pub min_rate: Option<Rate>,
}

const HPCC_PARAMS: &[Param<HpccConfig>] = &[
    Param {
        spec: ParamSpec {
            choices: &Preset::NAMES,
            ..ParamSpec::new(
                "hpcc.preset",
                "hpccPreset",
                "HpccPreset",
                ParamKind::Choice,
                "HPCC: where the constants left auto come from: hpcc-sim (the HPCC \
                 simulator's HPCC, rdma-hw.cc and run.py) or paper (Li et al., SIGCOMM 2019: \
                 maxStage 5).",
            )
        },
        get: |c| ParamValue::Choice(c.preset.name().to_string()),
        set: |c, v| c.preset = Preset::from_name(v.text()).unwrap_or(c.preset),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            max: Limit::incl(1.0),
            auto: Some("hpcc-sim and paper 0.95 (run.py U_TARGET)"),
            ..ParamSpec::new(
                "hpcc.eta",
                "hpccEta",
                "HpccEta",
                ParamKind::Real,
                "HPCC target utilisation eta: the rate is scaled by eta/U, U the smoothed \
                 normalised inflight bytes of the most utilised link (Algorithm 1).",
            )
        },
        get: |c| opt_real(c.eta),
        set: |c, v| c.eta = set_real(v),
    },
    Param {
        spec: ParamSpec {
            choices: &MAX_STAGE_CHOICES,
            auto: Some("hpcc-sim 0 (run.py MI_THRESH); paper 5"),
            zero_is_auto: false,
            ..ParamSpec::new(
                "hpcc.max_stage",
                "hpccMaxStage",
                "HpccMaxStage",
                ParamKind::Choice,
                "HPCC maxStage: additive increases in a row (U below eta) after which the \
                 next per-RTT update is multiplicative, eta/U (Algorithm 1); 0: always \
                 multiplicative.",
            )
        },
        get: |c| {
            ParamValue::Choice(
                c.max_stage
                    .and_then(|n| MAX_STAGE_CHOICES.get(n as usize + 1))
                    .map_or("auto", |s| s)
                    .to_string(),
            )
        },
        set: |c, v| c.max_stage = v.text().parse().ok(),
    },
    Param {
        spec: rate(
            "hpcc.rate_ai",
            "hpccRai",
            "HpccRai",
            "hpcc-sim and paper 10Mbps x line rate / 25Gbps (run.py)",
            "HPCC additive step R_AI = W_AI/T of the rate, added at every update \
             (Algorithm 1).",
        ),
        get: |c| ParamValue::Rate(c.rate_ai.unwrap_or(Rate(0))),
        set: |c, v| c.rate_ai = set_rate(v),
    },
    Param {
        spec: ParamSpec {
            choices: &["auto", "true", "false"],
            auto: Some("hpcc-sim and paper true (run.py FAST_REACT; Algorithm 1)"),
            zero_is_auto: false,
            ..ParamSpec::new(
                "hpcc.fast_react",
                "hpccFastReact",
                "HpccFastReact",
                ParamKind::Choice,
                "HPCC fast react: every ACK adjusts the rate from the reference rate, which \
                 only the per-RTT update commits (Algorithm 1); false: per-RTT updates only.",
            )
        },
        get: |c| {
            ParamValue::Choice(
                match c.fast_react {
                    None => "auto",
                    Some(true) => "true",
                    Some(false) => "false",
                }
                .to_string(),
            )
        },
        set: |c, v| {
            c.fast_react = match v.text() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        },
    },
    Param {
        spec: rate(
            "hpcc.min_rate",
            "hpccMinRate",
            "HpccMinRate",
            "hpcc-sim and paper 1Gbps (run.py MIN_RATE; the paper sets none)",
            "HPCC floor of the rate; at most the line rate (the window never goes below one \
             packet whatever it is).",
        ),
        get: |c| ParamValue::Rate(c.min_rate.unwrap_or(Rate(0))),
        set: |c, v| c.min_rate = set_rate(v),
    },
];

impl Params for HpccConfig {
    fn params() -> &'static [Param<Self>] {
        HPCC_PARAMS
    }
}

/// What a NIC is told when HPCC is asked for on a path whose switches write no INT records
/// (the requirement of the [`ConfigError`] naming the field `scheme` with the value `hpcc`).
pub const NEEDS_INT: &str = "HPCC needs INT at the switches (a hop record per switch in every \
                             ACK), but the switches on this path write none: turn INT on \
                             (--int=auto or true; ns3::SwitchNode::Int)";

impl HpccConfig {
    /// The constants in effect on a path of `line_rate`: each given value, else the preset's.
    pub fn resolved(&self, line_rate: Rate) -> HpccParams {
        let paper = self.preset == Preset::Paper;
        let rate_ai = self.rate_ai.unwrap_or_else(|| {
            // run.py (hp): ai = 10 * bw / 25 (Mb/s), bw in Gb/s
            let r = u128::from(SIM_RATE_AI_PER_25G) * u128::from(line_rate.0)
                / u128::from(RATE_AI_LINE);
            Rate(u64::try_from(r).unwrap_or(u64::MAX))
        });
        HpccParams {
            eta: self.eta.unwrap_or(0.95),
            max_stage: self.max_stage.unwrap_or(if paper { 5 } else { 0 }),
            rate_ai,
            fast_react: self.fast_react.unwrap_or(true),
            min_rate: self.min_rate.unwrap_or(Rate::gbps(1)),
        }
    }

    /// Checks every field, then the values in effect on the path `sender` describes
    /// (`min_rate` at most its line rate, `R_AI` at least 1 bit/s there) and that the path
    /// delivers INT records ([`rdma_cc_transport::Path::int_telemetry`]; else the error names
    /// the field `scheme`, value `hpcc`, with [`NEEDS_INT`]). The error names the first bad
    /// field (its Rust name). A value given as `Some(0)` (a file may hold one) is an error.
    pub fn validate_for(&self, sender: &SenderConfig) -> Result<(), ConfigError> {
        self.validate_all()?;
        let line = sender.path.line_rate;
        let p = self.resolved(line);
        p.validate()?;
        ConfigError::check(
            p.min_rate <= line,
            "hpcc.min_rate",
            p.min_rate,
            &format!("must be <= the line rate ({line})"),
        )?;
        ConfigError::check(sender.path.int_telemetry, "scheme", "hpcc", NEEDS_INT)
    }

    /// Validates both configurations and builds the sender of a `flow_size`-byte message
    /// starting at `now`, with HPCC's controller ([`Hpcc`]).
    pub fn build(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<Hpcc>, ConfigError> {
        let cc = Hpcc::new(sender, self)?;
        QpSender::new(sender, cc, flow_size, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_transport::Path;

    fn set(c: &mut HpccConfig, option: &str, text: &str) {
        c.set_by_option(option, text).unwrap();
    }

    /// 100 Gb/s, INT on the path.
    fn sender() -> SenderConfig {
        SenderConfig {
            path: Path {
                int_telemetry: true,
                ..Path::default()
            },
            ..SenderConfig::default()
        }
    }

    #[test]
    fn default_is_the_hpcc_simulators_hpcc_at_100g() {
        // run.py (hp): U_TARGET 0.95, MI_THRESH 0, ai = 10 * bw / 25 Mb/s, FAST_REACT 1,
        // MIN_RATE 1000Mb/s
        let p = HpccConfig::default().resolved(Rate::gbps(100));
        assert_eq!(
            p,
            HpccParams {
                eta: 0.95,
                max_stage: 0,
                rate_ai: Rate::mbps(40),
                fast_react: true,
                min_rate: Rate::gbps(1),
            }
        );
        HpccConfig::default().validate_for(&sender()).unwrap();
        // R_AI scales with the line rate: 10 Mb/s at 25 Gb/s, 160 Mb/s at 400 Gb/s
        assert_eq!(
            HpccConfig::default().resolved(Rate::gbps(25)).rate_ai,
            Rate::mbps(10)
        );
        assert_eq!(
            HpccConfig::default().resolved(Rate::gbps(400)).rate_ai,
            Rate::mbps(160)
        );
    }

    #[test]
    fn paper_preset_differs_in_max_stage() {
        let c = HpccConfig {
            preset: Preset::Paper,
            ..HpccConfig::default()
        };
        let p = c.resolved(Rate::gbps(100));
        assert_eq!(p.max_stage, 5);
        assert_eq!(
            (p.eta, p.rate_ai, p.fast_react, p.min_rate),
            (0.95, Rate::mbps(40), true, Rate::gbps(1))
        );
    }

    #[test]
    fn options_resolve_whatever_their_order() {
        let opts = [
            ("hpccPreset", "paper"),
            ("hpccMaxStage", "0"),
            ("hpccEta", "0.9"),
            ("hpccFastReact", "false"),
        ];
        let mut a = HpccConfig::default();
        let mut b = HpccConfig::default();
        for (o, t) in opts {
            set(&mut a, o, t);
        }
        for (o, t) in opts.iter().rev() {
            set(&mut b, o, t);
        }
        assert_eq!(a, b);
        let p = a.resolved(Rate::gbps(100));
        // 0 is a value here (the simulator's), not "auto"
        assert_eq!((p.max_stage, p.eta, p.fast_react), (0, 0.9, false));
        set(&mut a, "hpccMaxStage", "auto");
        assert_eq!(a.max_stage, None);
        assert_eq!(a.resolved(Rate::gbps(100)).max_stage, 5);
        set(&mut a, "hpccMaxStage", "10");
        assert_eq!(a.max_stage, Some(10));
        let i = HpccConfig::params()
            .iter()
            .position(|p| p.spec.option == "hpccMaxStage")
            .unwrap();
        assert!(HpccConfig::params()[i]
            .spec
            .parse("11", "hpccMaxStage")
            .is_err());
    }

    #[test]
    fn every_default_prints_as_text_that_parses_back() {
        let mut c = HpccConfig::default();
        for round in 0..2 {
            for (i, p) in HpccConfig::params().iter().enumerate() {
                let v = c.get_param(i).unwrap();
                p.spec.check(&v, p.spec.name).unwrap();
                assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
                assert!(p.spec.option.starts_with("hpcc"), "{}", p.spec.option);
                assert!(p.spec.attr.starts_with("Hpcc"), "{}", p.spec.attr);
                if p.spec.name != "hpcc.preset" {
                    let auto = p.spec.auto.unwrap_or("");
                    assert!(
                        auto.contains("hpcc-sim") && auto.contains("paper"),
                        "{auto}"
                    );
                }
            }
            // and every value given explicitly round-trips too
            if round == 0 {
                c = HpccConfig {
                    preset: Preset::Paper,
                    eta: Some(0.9),
                    max_stage: Some(3),
                    rate_ai: Some(Rate::mbps(20)),
                    fast_react: Some(false),
                    min_rate: Some(Rate::mbps(500)),
                };
                let mut d = HpccConfig::default();
                for i in 0..HpccConfig::params().len() {
                    d.set_param(i, &c.get_param(i).unwrap()).unwrap();
                }
                assert_eq!(d, c);
            }
        }
    }

    #[test]
    fn validation_errors_name_the_field() {
        let check = |f: &dyn Fn(&mut HpccConfig), field: &str| {
            let mut c = HpccConfig::default();
            f(&mut c);
            assert_eq!(c.validate_for(&sender()).unwrap_err().field, field);
        };
        check(&|c| c.eta = Some(1.5), "hpcc.eta");
        check(&|c| c.eta = Some(0.0), "hpcc.eta");
        check(&|c| c.eta = Some(f64::NAN), "hpcc.eta");
        check(&|c| c.max_stage = Some(11), "hpcc.max_stage");
        check(&|c| c.rate_ai = Some(Rate(0)), "hpcc.rate_ai");
        check(&|c| c.min_rate = Some(Rate(0)), "hpcc.min_rate");
        check(&|c| c.min_rate = Some(Rate::gbps(101)), "hpcc.min_rate");
        // a line rate so slow that R_AI rounds to nothing
        let slow = SenderConfig {
            path: Path {
                line_rate: Rate(1000),
                int_telemetry: true,
                ..Path::default()
            },
            ..SenderConfig::default()
        };
        let c = HpccConfig {
            min_rate: Some(Rate(1)),
            ..HpccConfig::default()
        };
        assert_eq!(c.validate_for(&slow).unwrap_err().field, "hpcc.rate_ai");
    }

    #[test]
    fn a_path_without_int_is_refused_naming_the_scheme() {
        let e = HpccConfig::default()
            .build(&SenderConfig::default(), 1000, Time::ZERO)
            .unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("scheme", "hpcc"));
        assert_eq!(
            e.to_string(),
            "invalid scheme = hpcc: HPCC needs INT at the switches (a hop record per switch \
             in every ACK), but the switches on this path write none: turn INT on \
             (--int=auto or true; ns3::SwitchNode::Int)"
        );
    }
}
