//! TIMELY's constants.
//!
//! A plain struct with serde derives (missing fields take their defaults) and a parameter
//! table ([`TimelyConfig::params`]), the one definition of each constant's name, bounds and
//! help: the ns-3 NIC's attributes and the examples' `--timely*` options come from it. Every
//! constant but the [`Preset`] is an `Option`: `None` ("auto", also written `0` on the command
//! line) takes the preset's value, so `--timelyPreset=paper --timelyBeta=0.5` means the
//! paper's values with one change whatever the order of the options.
//! [`TimelyConfig::resolved`] gives the values in effect on a path ([`TimelyParams`]).
//!
//! Two presets:
//! - [`Preset::HpccSim`] (default): the values the HPCC simulator (Li et al., SIGCOMM 2019,
//!   alibaba-edu/High-Precision-Congestion-Control, `rdma-hw.cc` and `run.py`) runs TIMELY
//!   with, so that comparisons made there can be reproduced: α = 0.875, β = 0.8, T_low =
//!   50 µs, T_high = 500 µs, min_rtt = 20 µs, δ = 10 Mb/s × (line rate / 10 Gb/s), hyper
//!   step 5·δ after 5 consecutive increases (whichever rule made them), minimum rate 1 Gb/s,
//!   one update per RTT.
//! - [`Preset::Paper`]: Mittal et al., "TIMELY: RTT-based Congestion Control for the
//!   Datacenter" (SIGCOMM 2015), where it differs: δ = 10 Mb/s as published (for its 10 Gb/s
//!   NICs, not scaled), hyper-active increase (`N = 5`) only for increases of the gradient
//!   rule (Algorithm 1: below `T_low` the step is always `δ`), and one update per completed
//!   segment of 64 KB (§4: the NIC timestamps segments of 16–64 KB; decision: the upper end,
//!   the closest to one update per RTT at 100 Gb/s). Where the paper is silent (the minimum
//!   rate) it keeps the simulator's value.
//!
//! Parameter names (the tables' `name`, the field of every [`ConfigError`] here) are the
//! fields' paths in a NIC's configuration, `timely.<field>` (e.g. `timely.rate_ai`): unique among all
//! of a NIC's parameters, whose flat table also holds DCQCN's and LDCP's fields of the same
//! names.

use crate::timely::Timely;
use rdma_cc_core::param::{
    fraction, opt_real, positive, set_rate, set_real, set_time, switch_text, Limit, Param,
    ParamKind, ParamSpec, ParamValue, Params,
};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_transport::{QpSender, SenderConfig};
use serde::{Deserialize, Serialize};

/// Where the constants not given explicitly come from (shared by DCTCP, HPCC and TIMELY).
pub use rdma_cc_core::param::Preset;

/// When the rate is updated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Granularity {
    /// Once per RTT: at the first ACK beyond the sequence that was next to send at the
    /// previous update (the HPCC simulator's `m_lastUpdateSeq`).
    #[default]
    PerRtt,
    /// Once per completed segment of [`TimelyParams::segment`] bytes (the paper's completion
    /// events, §4.1).
    Segment,
}

impl Granularity {
    /// The name used in options and files: `per-rtt`, `segment`.
    pub const fn name(self) -> &'static str {
        match self {
            Granularity::PerRtt => "per-rtt",
            Granularity::Segment => "segment",
        }
    }
}

/// δ of the HPCC simulator: 10 Mb/s per 10 Gb/s of line rate (`run.py`: `ai = 10 * bw / 10`).
const SIM_RATE_AI_PER_10G: u64 = 10_000_000;
/// The line rate the simulator's and the paper's δ are given for.
const RATE_AI_LINE: u64 = 10_000_000_000;

/// The TIMELY constants in effect on a path (every "auto" resolved): what [`Timely`] runs with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimelyParams {
    /// `α`, the EWMA gain of the RTT difference (Algorithm 1).
    pub alpha: f64,
    /// `β`, the multiplicative-decrease factor (Algorithm 1).
    pub beta: f64,
    /// `T_low`: below it the rate always rises.
    pub t_low: Time,
    /// `T_high`: above it the rate falls by `β·(1 − T_high/rtt)`.
    pub t_high: Time,
    /// `minRTT`, the normalisation of the gradient.
    pub min_rtt: Time,
    /// `δ`, the additive step.
    pub rate_ai: Rate,
    /// The hyper-active step (`N·δ` in the paper, `R_HAI` in the simulator).
    pub rate_hai: Rate,
    /// Increases in a row after which the next ones use [`Self::rate_hai`].
    pub hai_after: u32,
    /// Whether increases below `T_low` also use the hyper step (simulator: yes; paper: no).
    pub hai_below_t_low: bool,
    /// The floor of the rate.
    pub min_rate: Rate,
    /// When the rate is updated.
    pub granularity: Granularity,
    /// The segment of [`Granularity::Segment`].
    pub segment: Bytes,
}

impl TimelyParams {
    /// Checks every value on its own and `T_low < T_high`; the error names the
    /// [`TimelyConfig`] field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let unit = |x: f64| x.is_finite() && x > 0.0 && x <= 1.0;
        ConfigError::check(
            unit(self.alpha),
            "timely.alpha",
            self.alpha,
            "must be in (0, 1]",
        )?;
        ConfigError::check(
            unit(self.beta),
            "timely.beta",
            self.beta,
            "must be in (0, 1]",
        )?;
        for (field, t) in [
            ("timely.t_low", self.t_low),
            ("timely.t_high", self.t_high),
            ("timely.min_rtt", self.min_rtt),
        ] {
            ConfigError::check(t.0 > 0, field, t, "must be > 0")?;
        }
        ConfigError::check(
            self.t_low < self.t_high,
            "timely.t_low",
            self.t_low,
            &format!("must be < t_high ({})", self.t_high),
        )?;
        for (field, r) in [
            ("timely.rate_ai", self.rate_ai),
            ("timely.rate_hai", self.rate_hai),
            ("timely.min_rate", self.min_rate),
        ] {
            ConfigError::check(r.0 > 0, field, r, "must be > 0")?;
        }
        ConfigError::check(
            self.hai_after >= 1,
            "timely.hai_after",
            self.hai_after,
            "must be >= 1",
        )?;
        ConfigError::check(
            self.segment.0 > 0,
            "timely.segment",
            self.segment,
            "must be > 0",
        )
    }
}

/// TIMELY constants: a [`Preset`] and any constant given explicitly; `None` is "auto", the
/// preset's value. Default: the HPCC simulator's values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TimelyConfig {
    /// Where the constants left "auto" come from. Default [`Preset::HpccSim`].
    pub preset: Preset,
    /// `α` in `(0, 1]`: `rtt_diff ← (1 − α)·rtt_diff + α·new_rtt_diff`. Both presets 0.875
    /// (the simulator's `TimelyAlpha`).
    pub alpha: Option<f64>,
    /// `β` in `(0, 1]`. Both presets 0.8 (`TimelyBeta`).
    pub beta: Option<f64>,
    /// `T_low`. Both presets 50 µs (`TimelyTLow`).
    pub t_low: Option<Time>,
    /// `T_high`, above `T_low`. Both presets 500 µs (`TimelyTHigh`).
    pub t_high: Option<Time>,
    /// `minRTT`, the gradient's normalisation. Both presets 20 µs (`TimelyMinRtt`).
    pub min_rtt: Option<Time>,
    /// `δ`. Simulator 10 Mb/s × (line rate / 10 Gb/s) (`RATE_AI`); paper 10 Mb/s.
    pub rate_ai: Option<Rate>,
    /// The hyper-active step. Both presets 5 × the `δ` in effect (simulator `RATE_HAI` =
    /// 50 Mb/s × line rate / 10 Gb/s; paper `N = 5`).
    pub rate_hai: Option<Rate>,
    /// Increases in a row before hyper-active increase, at least 1. Both presets 5 (the
    /// simulator's `m_incStage < 5`; the paper's "five completion events").
    pub hai_after: Option<u32>,
    /// Whether increases below `T_low` use the hyper step too. Simulator true; paper false.
    pub hai_below_t_low: Option<bool>,
    /// The rate's floor, at most the line rate. Both presets 1 Gb/s (the simulator's
    /// `MIN_RATE`; the paper is silent).
    pub min_rate: Option<Rate>,
    /// Update granularity. Simulator [`Granularity::PerRtt`]; paper [`Granularity::Segment`].
    pub granularity: Option<Granularity>,
    /// The segment of [`Granularity::Segment`]. Both presets 64 KB.
    pub segment: Option<Bytes>,
}

const TIMELY_PARAMS: &[Param<TimelyConfig>] = &[
    Param {
        spec: ParamSpec {
            choices: &Preset::NAMES,
            ..ParamSpec::new(
                "timely.preset",
                "timelyPreset",
                "TimelyPreset",
                ParamKind::Choice,
                "TIMELY: where the constants left auto come from: hpcc-sim (the HPCC \
                 simulator's TIMELY, rdma-hw.cc and run.py) or paper (Mittal et al., SIGCOMM \
                 2015: delta 10 Mbps, hyper increase only by the gradient rule, 64 KB \
                 segments).",
            )
        },
        get: |c| ParamValue::Choice(c.preset.name().to_string()),
        set: |c, v| c.preset = Preset::from_name(v.text()).unwrap_or(c.preset),
    },
    Param {
        spec: fraction(
            "timely.alpha",
            "timelyAlpha",
            "TimelyAlpha",
            "hpcc-sim and paper 0.875",
            "TIMELY EWMA gain alpha of the RTT difference: rtt_diff = (1-alpha) rtt_diff + \
             alpha (rtt - previous rtt) (Algorithm 1).",
        ),
        get: |c| opt_real(c.alpha),
        set: |c, v| c.alpha = set_real(v),
    },
    Param {
        spec: fraction(
            "timely.beta",
            "timelyBeta",
            "TimelyBeta",
            "hpcc-sim and paper 0.8",
            "TIMELY multiplicative decrease beta: rate (1 - beta gradient) in the gradient \
             region, rate (1 - beta (1 - T_high/rtt)) above T_high (Algorithm 1).",
        ),
        get: |c| opt_real(c.beta),
        set: |c, v| c.beta = set_real(v),
    },
    Param {
        spec: positive(
            "timely.t_low",
            "timelyTLow",
            "TimelyTLow",
            ParamKind::Time,
            "hpcc-sim and paper 50us",
            "TIMELY T_low: an RTT below it raises the rate (Algorithm 1); below t_high.",
        ),
        get: |c| ParamValue::Time(c.t_low.unwrap_or(Time::ZERO)),
        set: |c, v| c.t_low = set_time(v),
    },
    Param {
        spec: positive(
            "timely.t_high",
            "timelyTHigh",
            "TimelyTHigh",
            ParamKind::Time,
            "hpcc-sim and paper 500us",
            "TIMELY T_high: an RTT above it cuts the rate by beta (1 - T_high/rtt) \
             (Algorithm 1).",
        ),
        get: |c| ParamValue::Time(c.t_high.unwrap_or(Time::ZERO)),
        set: |c, v| c.t_high = set_time(v),
    },
    Param {
        spec: positive(
            "timely.min_rtt",
            "timelyMinRtt",
            "TimelyMinRtt",
            ParamKind::Time,
            "hpcc-sim and paper 20us",
            "TIMELY minRTT: the RTT difference is divided by it to give the normalised \
             gradient (Algorithm 1).",
        ),
        get: |c| ParamValue::Time(c.min_rtt.unwrap_or(Time::ZERO)),
        set: |c, v| c.min_rtt = set_time(v),
    },
    Param {
        spec: positive(
            "timely.rate_ai",
            "timelyRai",
            "TimelyRai",
            ParamKind::Rate,
            "hpcc-sim 10Mbps x line rate / 10Gbps (run.py); paper 10Mbps",
            "TIMELY additive step delta of the rate (Algorithm 1).",
        ),
        get: |c| ParamValue::Rate(c.rate_ai.unwrap_or(Rate(0))),
        set: |c, v| c.rate_ai = set_rate(v),
    },
    Param {
        spec: positive(
            "timely.rate_hai",
            "timelyRhai",
            "TimelyRhai",
            ParamKind::Rate,
            "hpcc-sim and paper 5 x the delta in effect (run.py RATE_HAI; paper N = 5)",
            "TIMELY hyper-active increase step, used after timelyHaiAfter increases in a row \
             (Algorithm 1, HAI mode).",
        ),
        get: |c| ParamValue::Rate(c.rate_hai.unwrap_or(Rate(0))),
        set: |c, v| c.rate_hai = set_rate(v),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            max: Limit::incl(u32::MAX as f64),
            unit: "increases",
            auto: Some("hpcc-sim and paper 5"),
            ..ParamSpec::new(
                "timely.hai_after",
                "timelyHaiAfter",
                "TimelyHaiAfter",
                ParamKind::Count,
                "TIMELY: increases in a row (no decrease between) after which the next \
                 increases use the hyper step (Algorithm 1: five completion events).",
            )
        },
        get: |c| ParamValue::Count(c.hai_after.map_or(0, u64::from)),
        set: |c, v| c.hai_after = u32::try_from(v.int()).ok().filter(|&n| n > 0),
    },
    Param {
        spec: ParamSpec {
            choices: &["auto", "true", "false"],
            auto: Some("hpcc-sim true (rdma-hw.cc); paper false (Algorithm 1)"),
            zero_is_auto: false,
            ..ParamSpec::new(
                "timely.hai_below_t_low",
                "timelyHaiBelowTLow",
                "TimelyHaiBelowTLow",
                ParamKind::Choice,
                "TIMELY: whether increases for an RTT below T_low may use the hyper step too \
                 (false: always delta there, as Algorithm 1).",
            )
        },
        get: |c| switch_text(c.hai_below_t_low),
        set: |c, v| {
            c.hai_below_t_low = match v.text() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        },
    },
    Param {
        spec: positive(
            "timely.min_rate",
            "timelyMinRate",
            "TimelyMinRate",
            ParamKind::Rate,
            "hpcc-sim and paper 1Gbps (run.py MIN_RATE; the paper is silent)",
            "TIMELY floor of the rate; at most the line rate.",
        ),
        get: |c| ParamValue::Rate(c.min_rate.unwrap_or(Rate(0))),
        set: |c, v| c.min_rate = set_rate(v),
    },
    Param {
        spec: ParamSpec {
            choices: &["auto", "per-rtt", "segment"],
            auto: Some("hpcc-sim per-rtt; paper segment"),
            zero_is_auto: false,
            ..ParamSpec::new(
                "timely.granularity",
                "timelyUpdate",
                "TimelyUpdate",
                ParamKind::Choice,
                "TIMELY rate updates: per-rtt (at the first ACK beyond what was sent at the \
                 previous update) or segment (per completed timelySegment bytes, the paper's \
                 completion events, section 4.1).",
            )
        },
        get: |c| ParamValue::Choice(c.granularity.map_or("auto", Granularity::name).to_string()),
        set: |c, v| {
            c.granularity = match v.text() {
                "per-rtt" => Some(Granularity::PerRtt),
                "segment" => Some(Granularity::Segment),
                _ => None,
            }
        },
    },
    Param {
        spec: positive(
            "timely.segment",
            "timelySegment",
            "TimelySegment",
            ParamKind::Bytes,
            "hpcc-sim and paper 64 KB",
            "TIMELY segment of --timelyUpdate=segment: one rate update per this many bytes \
             acknowledged (section 4.1: segments of 16-64 KB).",
        ),
        get: |c| ParamValue::Bytes(c.segment.unwrap_or(Bytes(0))),
        set: |c, v| c.segment = (v.int() > 0).then_some(Bytes(v.int())),
    },
];

impl Params for TimelyConfig {
    fn params() -> &'static [Param<Self>] {
        TIMELY_PARAMS
    }
}

/// The 64 KB segment of both presets.
pub const SEGMENT: Bytes = Bytes(65_536);

impl TimelyConfig {
    /// The constants in effect on a path of `line_rate`: each given value, else the preset's.
    pub fn resolved(&self, line_rate: Rate) -> TimelyParams {
        let paper = self.preset == Preset::Paper;
        let rate_ai = self.rate_ai.unwrap_or_else(|| {
            if paper {
                Rate(SIM_RATE_AI_PER_10G)
            } else {
                // run.py: ai = 10 * bw / 10 (Mb/s), bw in Gb/s
                let r = u128::from(SIM_RATE_AI_PER_10G) * u128::from(line_rate.0)
                    / u128::from(RATE_AI_LINE);
                Rate(u64::try_from(r).unwrap_or(u64::MAX))
            }
        });
        TimelyParams {
            alpha: self.alpha.unwrap_or(0.875),
            beta: self.beta.unwrap_or(0.8),
            t_low: self.t_low.unwrap_or(Time::us(50)),
            t_high: self.t_high.unwrap_or(Time::us(500)),
            min_rtt: self.min_rtt.unwrap_or(Time::us(20)),
            rate_ai,
            rate_hai: self.rate_hai.unwrap_or(Rate(rate_ai.0.saturating_mul(5))),
            hai_after: self.hai_after.unwrap_or(5),
            hai_below_t_low: self.hai_below_t_low.unwrap_or(!paper),
            min_rate: self.min_rate.unwrap_or(Rate::gbps(1)),
            granularity: self.granularity.unwrap_or(if paper {
                Granularity::Segment
            } else {
                Granularity::PerRtt
            }),
            segment: self.segment.unwrap_or(SEGMENT),
        }
    }

    /// Checks every field, then the values in effect on the path `sender` describes
    /// (`min_rate` at most its line rate); the error names the first bad field (its Rust
    /// name). A value given as `Some(0)` (a file may hold one) is an error.
    pub fn validate_for(&self, sender: &SenderConfig) -> Result<(), ConfigError> {
        self.validate_all()?;
        let line = sender.path.line_rate;
        let p = self.resolved(line);
        p.validate()?;
        ConfigError::check(
            p.min_rate <= line,
            "timely.min_rate",
            p.min_rate,
            &format!("must be <= the line rate ({line})"),
        )
    }

    /// Validates both configurations and builds the sender of a `flow_size`-byte message
    /// starting at `now`, with TIMELY's controller ([`Timely`]).
    pub fn build(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<Timely>, ConfigError> {
        let cc = Timely::new(sender, self)?;
        QpSender::new(sender, cc, flow_size, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_transport::Path;

    fn set(c: &mut TimelyConfig, option: &str, text: &str) {
        c.set_by_option(option, text).unwrap();
    }

    #[test]
    fn default_is_the_hpcc_simulators_timely_at_100g() {
        // run.py (timely): ai = 10 * bw / 10, hai = 50 * bw / 10 Mb/s; MIN_RATE 1000Mb/s;
        // rdma-hw.cc: TimelyAlpha 0.875, TimelyBeta 0.8, TLow 50 us, THigh 500 us, MinRtt 20 us
        let p = TimelyConfig::default().resolved(Rate::gbps(100));
        assert_eq!(
            p,
            TimelyParams {
                alpha: 0.875,
                beta: 0.8,
                t_low: Time::us(50),
                t_high: Time::us(500),
                min_rtt: Time::us(20),
                rate_ai: Rate::mbps(100),
                rate_hai: Rate::mbps(500),
                hai_after: 5,
                hai_below_t_low: true,
                min_rate: Rate::gbps(1),
                granularity: Granularity::PerRtt,
                segment: Bytes(65_536),
            }
        );
        TimelyConfig::default()
            .validate_for(&SenderConfig::default())
            .unwrap();
        // δ scales with the line rate
        let p25 = TimelyConfig::default().resolved(Rate::gbps(25));
        assert_eq!(
            (p25.rate_ai, p25.rate_hai),
            (Rate::mbps(25), Rate::mbps(125))
        );
    }

    #[test]
    fn paper_preset_differs_where_the_paper_does() {
        let c = TimelyConfig {
            preset: Preset::Paper,
            ..TimelyConfig::default()
        };
        let p = c.resolved(Rate::gbps(100));
        // TIMELY §5: δ = 10 Mb/s, N = 5; Algorithm 1: +δ below T_low; §4.1 completion events
        assert_eq!((p.rate_ai, p.rate_hai), (Rate::mbps(10), Rate::mbps(50)));
        assert!(!p.hai_below_t_low);
        assert_eq!(p.granularity, Granularity::Segment);
        assert_eq!((p.alpha, p.beta, p.t_low), (0.875, 0.8, Time::us(50)));
    }

    #[test]
    fn options_resolve_whatever_their_order() {
        let opts = [
            ("timelyPreset", "paper"),
            ("timelyRai", "20Mbps"),
            ("timelyUpdate", "per-rtt"),
            ("timelyHaiBelowTLow", "true"),
        ];
        let mut a = TimelyConfig::default();
        let mut b = TimelyConfig::default();
        for (o, t) in opts {
            set(&mut a, o, t);
        }
        for (o, t) in opts.iter().rev() {
            set(&mut b, o, t);
        }
        assert_eq!(a, b);
        let p = a.resolved(Rate::gbps(100));
        assert_eq!((p.rate_ai, p.rate_hai), (Rate::mbps(20), Rate::mbps(100)));
        assert_eq!(p.granularity, Granularity::PerRtt);
        assert!(p.hai_below_t_low);
        set(&mut a, "timelyUpdate", "auto");
        assert_eq!(a.resolved(Rate::gbps(1)).granularity, Granularity::Segment);
    }

    #[test]
    fn every_default_prints_as_text_that_parses_back() {
        let c = TimelyConfig::default();
        for (i, p) in TimelyConfig::params().iter().enumerate() {
            let v = c.get_param(i).unwrap();
            p.spec.check(&v, p.spec.name).unwrap();
            assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
            assert!(p.spec.option.starts_with("timely"), "{}", p.spec.option);
            assert!(p.spec.attr.starts_with("Timely"), "{}", p.spec.attr);
            if p.spec.name != "timely.preset" {
                let auto = p.spec.auto.unwrap_or("");
                assert!(
                    auto.contains("hpcc-sim") && auto.contains("paper"),
                    "{auto}"
                );
            }
        }
    }

    #[test]
    fn validation_errors_name_the_field() {
        let check = |f: &dyn Fn(&mut TimelyConfig), field: &str| {
            let mut c = TimelyConfig::default();
            f(&mut c);
            assert_eq!(
                c.validate_for(&SenderConfig::default()).unwrap_err().field,
                field
            );
        };
        check(&|c| c.alpha = Some(1.5), "timely.alpha");
        check(&|c| c.alpha = Some(0.0), "timely.alpha");
        check(&|c| c.beta = Some(f64::NAN), "timely.beta");
        check(&|c| c.t_low = Some(Time::ZERO), "timely.t_low");
        check(&|c| c.t_low = Some(Time::us(500)), "timely.t_low");
        check(&|c| c.t_high = Some(Time::us(40)), "timely.t_low");
        check(&|c| c.min_rtt = Some(Time::ZERO), "timely.min_rtt");
        check(&|c| c.rate_ai = Some(Rate(0)), "timely.rate_ai");
        check(&|c| c.rate_hai = Some(Rate(0)), "timely.rate_hai");
        check(&|c| c.hai_after = Some(0), "timely.hai_after");
        check(&|c| c.segment = Some(Bytes(0)), "timely.segment");
        check(&|c| c.min_rate = Some(Rate::gbps(101)), "timely.min_rate");
        let slow = SenderConfig {
            path: Path {
                line_rate: Rate::mbps(500),
                ..Path::default()
            },
            ..SenderConfig::default()
        };
        let e = TimelyConfig::default()
            .build(&slow, 1, Time::ZERO)
            .unwrap_err();
        assert_eq!(e.field, "timely.min_rate");
    }
}
