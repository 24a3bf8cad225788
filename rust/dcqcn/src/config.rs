//! DCQCN's reaction-point constants.
//!
//! A plain struct with serde derives (scenarios read it from files; missing fields take their
//! defaults) and a parameter table ([`DcqcnConfig::params`]), the one definition of each
//! constant's name, bounds and help: the ns-3 NIC's attributes and the examples' options come
//! from it. Every constant but the [`Preset`] is an `Option`: `None` ("auto") takes the
//! preset's value, so `--dcqcnPreset=mellanox --dcqcnRai=10Mbps` means the deployed NICs'
//! defaults with one change whatever the order of the options. [`DcqcnConfig::resolved`]
//! gives the values in effect ([`DcqcnParams`]).
//!
//! Two presets:
//! - [`Preset::Paper`] (default): the values of Zhu et al., "Congestion Control for Large-Scale
//!   RDMA Deployments" (SIGCOMM 2015), for 40 Gb/s (§3.1, §5 and the §6 testbed); the paper
//!   is silent on the hyper-increase step, taken as 10 × R_AI.
//! - [`Preset::Mellanox`]: the firmware defaults of NVIDIA/Mellanox ConnectX-4 and later NICs,
//!   as NVIDIA's "DCQCN CC Parameters" page documents them (each field names its firmware
//!   parameter). Those NICs update α periodically ([`AlphaMode::Periodic`]), cut at most once
//!   per `rate_reduce_monitor_period` and keep the target rate unless the rate rose since the
//!   last cut (`clamp_tgt_rate = 0`).
//!
//! The table reads a value of 0 (also written `auto`) as "auto" for every optional field, as
//! the other tables do. Where 0 is itself a meaningful value (`min_cut_interval`: cut at every
//! CNP), the command line and the attributes cannot set it under a preset whose value differs
//! (`mellanox`): `1ns` has the same effect there, and a file may write `0`. The switches
//! (`keep_target_after_cut`, `alpha_mode`) are choices with an `auto` entry, so `false` and
//! `auto` stay distinct.

use crate::dcqcn::Dcqcn;
use rdma_cc_core::param::{
    fraction, opt_real, positive, set_rate, set_real, set_time, Limit, Param, ParamKind, ParamSpec,
    ParamValue, Params,
};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_transport::{QpSender, SenderConfig};
use serde::{Deserialize, Serialize};

/// Where the constants not given explicitly come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// The paper's values for 40 Gb/s (DCQCN §3.1, §5): [`DcqcnParams::PAPER`].
    #[default]
    Paper,
    /// NVIDIA/Mellanox ConnectX-4-and-later firmware defaults (NVIDIA, "DCQCN CC
    /// Parameters"): [`DcqcnParams::MELLANOX`].
    Mellanox,
    /// The HPCC simulator's DCQCN at 100 Gb/s (Li et al., SIGCOMM 2019, its public simulator):
    /// [`DcqcnParams::HPCC_SIM`], so the field's reference runs can be repeated.
    HpccSim,
}

impl Preset {
    /// Every preset's name, in declaration order (the choices of `--dcqcnPreset`).
    pub const NAMES: [&'static str; 3] = ["paper", "mellanox", "hpcc-sim"];

    /// The name used in options and files: `paper`, `mellanox`.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Paper => Self::NAMES[0],
            Preset::Mellanox => Self::NAMES[1],
            Preset::HpccSim => Self::NAMES[2],
        }
    }

    /// The preset called `name` ([`Self::name`]'s spelling).
    pub fn from_name(name: &str) -> Option<Preset> {
        [Preset::Paper, Preset::Mellanox, Preset::HpccSim]
            .into_iter()
            .find(|p| p.name() == name)
    }

    /// The preset's constants. [`DcqcnParams::rate_hai`] is the preset's own: under
    /// [`Preset::Paper`], [`DcqcnConfig::resolved`] takes 10 × the R_AI in effect.
    pub const fn params(self) -> DcqcnParams {
        match self {
            Preset::Paper => DcqcnParams::PAPER,
            Preset::Mellanox => DcqcnParams::MELLANOX,
            Preset::HpccSim => DcqcnParams::HPCC_SIM,
        }
    }

    /// The hyper-increase step this preset gives when R_HAI is not set and R_AI is `rate_ai`:
    /// paper 10 × R_AI (the paper is silent on R_HAI), mellanox its `rpg_hai_rate` (50 Mb/s).
    pub fn rate_hai_for(self, rate_ai: Rate) -> Rate {
        match self {
            Preset::Paper => Rate(rate_ai.0.saturating_mul(10)),
            Preset::Mellanox => DcqcnParams::MELLANOX.rate_hai,
            Preset::HpccSim => DcqcnParams::HPCC_SIM.rate_hai,
        }
    }
}

/// How `α` is updated (DCQCN §3.1 eq. 1–2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlphaMode {
    /// The paper's: `α ← (1−g)·α + g` at each cut (eq. 1), which restarts the α timer; each
    /// period `K` without a cut, `α ← (1−g)·α` (eq. 2).
    #[default]
    OnCnp,
    /// The deployed NICs' (NVIDIA, "DCQCN CC Parameters", `dce_tcp_g` / `dce_tcp_rtt`): every
    /// period `K`, `α ← (1−g)·α + g` if a CNP arrived during the period, else `α ← (1−g)·α`;
    /// a CNP does not change `α` itself.
    Periodic,
}

impl AlphaMode {
    /// The name used in options and files: `on-cnp`, `periodic`.
    pub const fn name(self) -> &'static str {
        match self {
            AlphaMode::OnCnp => "on-cnp",
            AlphaMode::Periodic => "periodic",
        }
    }
}

/// Which reaction-point state machine runs the constants: the paper's Figure 7 or the HPCC
/// simulator's `rdma-hw.cc` ("Mellanox's version of DCQCN"). Set by the [`Preset`] only: a
/// preset named after a simulator is that simulator's model in every rule that shapes results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RpModel {
    /// DCQCN §3.1 and Figure 7 (see the module documentation of [`crate::dcqcn`]): cuts on
    /// CNP packets, at once when `min_cut_interval` has passed since the last cut; timer and
    /// byte counter, counts compared after they are incremented; hyper increase by
    /// `i·R_HAI`.
    #[default]
    Figure7,
    /// The HPCC simulator's (alibaba-edu/High-Precision-Congestion-Control,
    /// `simulation/src/point-to-point/model/rdma-hw.cc`, `CC_MODE 1`):
    /// - an ACK or NACK whose ECN-Echo (the peer's CNP flag, set by the receiver on the ACK of
    ///   a marked packet, `ReceiveUdp`) is set counts as a CNP (`ReceiveAck` →
    ///   `cnp_received_mlx`);
    /// - the first CNP sets α to `alpha_init`, starts the α timer (every `alpha_period`) and
    ///   the decrease check, `min_cut_interval` + 1 ns later and then every
    ///   `min_cut_interval`; the first CNP does not count for α's first period
    ///   (`cnp_received_mlx`);
    /// - a check cuts only if a CNP arrived since the previous check (`CheckRateDecreaseMlx`);
    ///   at a cut `Rt ← Rc` unless no rate-increase event happened since the last cut
    ///   (`CLAMP_TARGET_RATE 0`: `m_rpTimeStage == 0`);
    /// - rate increase by the timer only (no byte counter), the stage compared before it is
    ///   incremented: stage < F fast recovery, = F additive (`Rt += R_AI`), > F hyper
    ///   (`Rt += R_HAI`, a fixed step) (`RateIncEventMlx`).
    HpccSim,
}

/// The DCQCN constants in effect (every "auto" resolved): what [`Dcqcn`] runs with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DcqcnParams {
    /// `g`, the gain of `α`'s moving average (eq. 1–2).
    pub g: f64,
    /// `α` when the flow gets its first CNP.
    pub alpha_init: f64,
    /// `K`, the α-update period (eq. 2).
    pub alpha_period: Time,
    /// `T`, the rate-increase timer.
    pub increase_timer: Time,
    /// `B`, the byte counter: one rate-increase event per `B` bytes sent.
    pub byte_counter: Bytes,
    /// `F`, the fast-recovery threshold of the timer and byte-counter counts.
    pub fast_recovery_steps: u32,
    /// `R_AI`, the additive-increase step of the target rate (eq. 4).
    pub rate_ai: Rate,
    /// `R_HAI`, the hyper-increase step of the target rate.
    pub rate_hai: Rate,
    /// The floor of the current rate.
    pub min_rate: Rate,
    /// Least time between two cuts; a CNP sooner after the last cut leaves a cut pending
    /// until the interval ends (0: a cut at every CNP).
    pub min_cut_interval: Time,
    /// On a cut, `Rt ← Rc` only when the rate rose since the last cut (false: always).
    pub keep_target_after_cut: bool,
    /// `Some(r)`: the flow's first CNP sets `Rc = Rt = r` instead of the cut of eq. 1.
    pub first_cnp_rate: Option<Rate>,
    /// How `α` is updated.
    pub alpha_mode: AlphaMode,
    /// The reaction point's state machine (the preset's; not a parameter of its own).
    pub model: RpModel,
}

impl DcqcnParams {
    /// The paper's values for 40 Gb/s (DCQCN §3.1 and §5, the `Parameters` table of the
    /// deployment): g = 1/256, α starts at 1, K = 55 µs, T = 55 µs, B = 10 MB, F = 5,
    /// R_AI = 40 Mb/s, R_HAI = 10 × R_AI (the paper is silent on it), min rate 100 Mb/s, a cut
    /// at every CNP, `Rt ← Rc` at every cut, no special first-CNP rate, α updated at each CNP
    /// (eq. 1) and by its timer (eq. 2).
    pub const PAPER: DcqcnParams = DcqcnParams {
        g: 1.0 / 256.0,
        alpha_init: 1.0,
        alpha_period: Time::us(55),
        increase_timer: Time::us(55),
        byte_counter: Bytes(10_000_000),
        fast_recovery_steps: 5,
        rate_ai: Rate::mbps(40),
        rate_hai: Rate::mbps(400),
        min_rate: Rate::mbps(100),
        min_cut_interval: Time::ZERO,
        keep_target_after_cut: false,
        first_cnp_rate: None,
        alpha_mode: AlphaMode::OnCnp,
        model: RpModel::Figure7,
    };

    /// NVIDIA/Mellanox ConnectX-4-and-later firmware defaults (NVIDIA, "DCQCN CC
    /// Parameters"): `dce_tcp_g` = 1019 (g = (1024 − 1019)/1024), `initial_alpha_value` =
    /// 1023 (α = 1023/1024), `dce_tcp_rtt` = 1 µs (K, periodic α update), `rpg_time_reset` =
    /// 300 µs (T), `rpg_byte_reset` = 32767 B (B), `rpg_threshold` = 1 (F), `rpg_ai_rate` =
    /// 5 Mb/s, `rpg_hai_rate` = 50 Mb/s, `rpg_min_rate` = 1 Mb/s,
    /// `rate_reduce_monitor_period` = 4 µs (least time between cuts), `clamp_tgt_rate` = 0
    /// (the target rate is kept unless the rate rose since the last cut),
    /// `rate_to_set_on_first_cnp` = 0 (the normal cut).
    pub const MELLANOX: DcqcnParams = DcqcnParams {
        g: (1024.0 - 1019.0) / 1024.0,
        alpha_init: 1023.0 / 1024.0,
        alpha_period: Time::us(1),
        increase_timer: Time::us(300),
        byte_counter: Bytes(32_767),
        fast_recovery_steps: 1,
        rate_ai: Rate::mbps(5),
        rate_hai: Rate::mbps(50),
        min_rate: Rate::mbps(1),
        min_cut_interval: Time::us(4),
        keep_target_after_cut: true,
        first_cnp_rate: None,
        alpha_mode: AlphaMode::Periodic,
        model: RpModel::Figure7,
    };

    /// The HPCC simulator's DCQCN with its 100 Gb/s settings (the reference runs of the field:
    /// its `run.py` for `--cc dcqcn` and the "Mellanox's version" of its `rdma-hw.cc`, run by
    /// [`RpModel::HpccSim`]): EWMA gain g = 1/256, α starts at 1 at the first CNP and is
    /// updated every `ALPHA_RESUME_INTERVAL` = 1 µs ([`AlphaMode::Periodic`]), rate-increase
    /// timer `RP_TIMER` = 300 µs, no byte counter (B is set beyond any flow, 1 PB, and not
    /// used), fast recovery `FAST_RECOVERY_TIMES` = 1, `RATE_AI` = 20 Mb/s and `RATE_HAI` =
    /// 200 Mb/s (5 and 50 Mb/s × 100/25), `MIN_RATE` = 1 Gb/s, a decrease check every
    /// `RATE_DECREASE_INTERVAL` = 4 µs, `CLAMP_TARGET_RATE` = 0. The preset also sets the
    /// receiver (an ACK per packet with the CE echoed, no CNP packets: `rdma-cc-schemes`'
    /// `SchemeConfig::receiver`) and the switches' marking (K_min/K_max = 400/1600 KB at
    /// 100 Gb/s, P_max = 0.2: `hpcc_sim_dcqcn_marking`). The documentation's "Presets" section
    /// lists every rule with its source line.
    pub const HPCC_SIM: DcqcnParams = DcqcnParams {
        g: 1.0 / 256.0,
        alpha_init: 1.0,
        alpha_period: Time::us(1),
        increase_timer: Time::us(300),
        byte_counter: Bytes(1_000_000_000_000_000),
        fast_recovery_steps: 1,
        rate_ai: Rate::mbps(20),
        rate_hai: Rate::mbps(200),
        min_rate: Rate::gbps(1),
        min_cut_interval: Time::us(4),
        keep_target_after_cut: true,
        first_cnp_rate: None,
        alpha_mode: AlphaMode::Periodic,
        model: RpModel::HpccSim,
    };

    /// Checks every value on its own; the error names the [`DcqcnConfig`] field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let unit = |x: f64| x.is_finite() && x > 0.0 && x <= 1.0;
        ConfigError::check(unit(self.g), "g", self.g, "must be a number in (0, 1]")?;
        ConfigError::check(
            unit(self.alpha_init),
            "alpha_init",
            self.alpha_init,
            "must be a number in (0, 1]",
        )?;
        for (ok, field, value) in [
            (self.alpha_period.0 > 0, "alpha_period", self.alpha_period.0),
            (
                self.increase_timer.0 > 0,
                "increase_timer",
                self.increase_timer.0,
            ),
        ] {
            ConfigError::check(ok, field, Time(value), "must be > 0")?;
        }
        ConfigError::check(
            self.byte_counter.0 > 0,
            "byte_counter",
            self.byte_counter,
            "must be > 0",
        )?;
        ConfigError::check(
            self.fast_recovery_steps > 0,
            "fast_recovery_steps",
            self.fast_recovery_steps,
            "must be >= 1",
        )?;
        for (field, r) in [
            ("rate_ai", self.rate_ai),
            ("rate_hai", self.rate_hai),
            ("min_rate", self.min_rate),
        ] {
            ConfigError::check(r.0 > 0, field, r, "must be > 0")?;
        }
        if let Some(r) = self.first_cnp_rate {
            ConfigError::check(r.0 > 0, "first_cnp_rate", r, "must be > 0")?;
        }
        Ok(())
    }
}

/// DCQCN reaction-point constants (DCQCN §3.1): a [`Preset`] and any constant given
/// explicitly; `None` is "auto", the preset's value. Default: the paper's values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DcqcnConfig {
    /// Where the constants left "auto" come from. Default [`Preset::Paper`].
    pub preset: Preset,
    /// `g`, the gain of `α` (eq. 1–2); requires `0 < g ≤ 1`. Paper 1/256; mellanox
    /// `dce_tcp_g` = 1019, g = (1024 − 1019)/1024.
    pub g: Option<f64>,
    /// `α` at the flow's first CNP; requires `0 < α ≤ 1`. Paper 1 (§3.1: "Initial value of α
    /// is 1"); mellanox `initial_alpha_value` = 1023, α = 1023/1024.
    pub alpha_init: Option<f64>,
    /// `K`, the α-update period (eq. 2; §3.1: "K must be larger than the CNP generation
    /// timer"); requires `K > 0`. Paper 55 µs; mellanox `dce_tcp_rtt` = 1 µs.
    pub alpha_period: Option<Time>,
    /// `T`, the rate-increase timer; requires `T > 0`. Paper 55 µs; mellanox `rpg_time_reset`
    /// = 300 µs.
    pub increase_timer: Option<Time>,
    /// `B`, the byte counter; requires `B > 0`. Paper 10 MB; mellanox `rpg_byte_reset` =
    /// 32767 B.
    pub byte_counter: Option<Bytes>,
    /// `F`, the fast-recovery threshold (§3.1: "F = 5 successive iterations"); requires
    /// `F ≥ 1`. Paper 5; mellanox `rpg_threshold` = 1.
    pub fast_recovery_steps: Option<u32>,
    /// `R_AI`, the additive-increase step (eq. 4); requires `> 0`. Paper 40 Mb/s; mellanox
    /// `rpg_ai_rate` = 5 Mb/s.
    pub rate_ai: Option<Rate>,
    /// `R_HAI`, the hyper-increase step; requires `> 0`. Paper: silent, 10 × R_AI (of the
    /// R_AI in effect); mellanox `rpg_hai_rate` = 50 Mb/s.
    pub rate_hai: Option<Rate>,
    /// The floor of the current rate; requires `0 < min_rate ≤` line rate. Paper 100 Mb/s;
    /// mellanox `rpg_min_rate` = 1 Mb/s.
    pub min_rate: Option<Rate>,
    /// Least time between two cuts: a CNP sooner after the last cut leaves a cut pending, made
    /// when the interval ends. Paper 0 (a cut at every CNP); mellanox
    /// `rate_reduce_monitor_period` = 4 µs. The parameter table reads 0 as auto (see the
    /// module documentation).
    pub min_cut_interval: Option<Time>,
    /// On a cut, set the target rate to the current rate only when the current rate rose
    /// since the last cut. Paper false (eq. 1: `Rt ← Rc` at every CNP); mellanox true
    /// (`clamp_tgt_rate` = 0).
    pub keep_target_after_cut: Option<bool>,
    /// The rate the flow's first CNP sets (`Rc = Rt = r`) instead of the cut of eq. 1;
    /// requires `min_rate ≤ r ≤` line rate. `None`: the preset's, the normal cut for both
    /// (mellanox `rate_to_set_on_first_cnp` = 0).
    pub first_cnp_rate: Option<Rate>,
    /// How `α` is updated. Paper [`AlphaMode::OnCnp`]; mellanox [`AlphaMode::Periodic`].
    pub alpha_mode: Option<AlphaMode>,
}

const DCQCN_PARAMS: &[Param<DcqcnConfig>] = &[
    Param {
        spec: ParamSpec {
            choices: &Preset::NAMES,
            ..ParamSpec::new(
                "preset",
                "dcqcnPreset",
                "DcqcnPreset",
                ParamKind::Choice,
                "DCQCN: where the constants left auto come from: paper (Zhu et al., SIGCOMM \
                 2015, the 40 Gb/s values of section 3.1 and 5), mellanox (the firmware \
                 defaults of NVIDIA/Mellanox ConnectX-4 and later, NVIDIA's DCQCN CC \
                 Parameters) or hpcc-sim (the HPCC simulator's DCQCN at 100 Gb/s).",
            )
        },
        get: |c| ParamValue::Choice(c.preset.name().to_string()),
        set: |c, v| c.preset = Preset::from_name(v.text()).unwrap_or(c.preset),
    },
    Param {
        spec: fraction(
            "g",
            "dcqcnG",
            "DcqcnG",
            "paper 1/256; mellanox (1024 - dce_tcp_g)/1024 = 5/1024; hpcc-sim 1/256",
            "DCQCN gain of alpha: alpha = (1-g) alpha + g at a CNP (section 3.1 eq. 1), \
             alpha = (1-g) alpha per period without one (eq. 2).",
        ),
        get: |c| opt_real(c.g),
        set: |c, v| c.g = set_real(v),
    },
    Param {
        spec: fraction(
            "alpha_init",
            "dcqcnAlphaInit",
            "DcqcnAlphaInit",
            "paper 1; mellanox initial_alpha_value 1023/1024; hpcc-sim 1",
            "DCQCN alpha at the flow's first CNP (section 3.1: initial value of alpha is 1).",
        ),
        get: |c| opt_real(c.alpha_init),
        set: |c, v| c.alpha_init = set_real(v),
    },
    Param {
        spec: positive(
            "alpha_period",
            "dcqcnAlphaPeriod",
            "DcqcnAlphaPeriod",
            ParamKind::Time,
            "paper 55us; mellanox dce_tcp_rtt 1us; hpcc-sim 1us",
            "DCQCN alpha-update period K (section 3.1 eq. 2; K must exceed the CNP interval).",
        ),
        get: |c| ParamValue::Time(c.alpha_period.unwrap_or(Time::ZERO)),
        set: |c, v| c.alpha_period = set_time(v),
    },
    Param {
        spec: positive(
            "increase_timer",
            "dcqcnIncreaseTimer",
            "DcqcnIncreaseTimer",
            ParamKind::Time,
            "paper 55us; mellanox rpg_time_reset 300us; hpcc-sim 300us",
            "DCQCN rate-increase timer T: one rate-increase event per T from the last cut \
             (section 3.1, Figure 7).",
        ),
        get: |c| ParamValue::Time(c.increase_timer.unwrap_or(Time::ZERO)),
        set: |c, v| c.increase_timer = set_time(v),
    },
    Param {
        spec: positive(
            "byte_counter",
            "dcqcnByteCounter",
            "DcqcnByteCounter",
            ParamKind::Bytes,
            "paper 10 MB; mellanox rpg_byte_reset 32767 B; hpcc-sim none (1 PB)",
            "DCQCN byte counter B: one rate-increase event per B bytes sent since the last \
             cut (section 3.1, Figure 7).",
        ),
        get: |c| ParamValue::Bytes(c.byte_counter.unwrap_or(Bytes(0))),
        set: |c, v| c.byte_counter = (v.int() > 0).then_some(Bytes(v.int())),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            max: Limit::incl(u32::MAX as f64),
            unit: "events",
            auto: Some("paper 5; mellanox rpg_threshold 1; hpcc-sim 1"),
            ..ParamSpec::new(
                "fast_recovery_steps",
                "dcqcnFastRecovery",
                "DcqcnFastRecovery",
                ParamKind::Count,
                "DCQCN fast-recovery threshold F: fast recovery while max(T_cnt, BC_cnt) < F \
                 (section 3.1 eq. 3), hyper increase once min(T_cnt, BC_cnt) > F, else \
                 additive increase (eq. 4).",
            )
        },
        get: |c| ParamValue::Count(c.fast_recovery_steps.map_or(0, u64::from)),
        set: |c, v| {
            c.fast_recovery_steps =
                (v.int() > 0).then(|| u32::try_from(v.int()).unwrap_or(u32::MAX))
        },
    },
    Param {
        spec: positive(
            "rate_ai",
            "dcqcnRai",
            "DcqcnRai",
            ParamKind::Rate,
            "paper 40Mbps; mellanox rpg_ai_rate 5Mbps; hpcc-sim 20Mbps",
            "DCQCN additive-increase step R_AI of the target rate (section 3.1 eq. 4).",
        ),
        get: |c| ParamValue::Rate(c.rate_ai.unwrap_or(Rate(0))),
        set: |c, v| c.rate_ai = set_rate(v),
    },
    Param {
        spec: positive(
            "rate_hai",
            "dcqcnRhai",
            "DcqcnRhai",
            ParamKind::Rate,
            "paper 10 x the R_AI in effect (the paper is silent); mellanox rpg_hai_rate \
             50Mbps; hpcc-sim 200Mbps",
            "DCQCN hyper-increase step R_HAI: Rt += i R_HAI with i = min(T_cnt, BC_cnt) - F \
             (section 3.1, Figure 7).",
        ),
        get: |c| ParamValue::Rate(c.rate_hai.unwrap_or(Rate(0))),
        set: |c, v| c.rate_hai = set_rate(v),
    },
    Param {
        spec: positive(
            "min_rate",
            "dcqcnMinRate",
            "DcqcnMinRate",
            ParamKind::Rate,
            "paper 100Mbps; mellanox rpg_min_rate 1Mbps; hpcc-sim 1Gbps",
            "DCQCN floor of the current rate (no cut of section 3.1 eq. 1 goes below it); at \
             most the line rate.",
        ),
        get: |c| ParamValue::Rate(c.min_rate.unwrap_or(Rate(0))),
        set: |c, v| c.min_rate = set_rate(v),
    },
    Param {
        spec: ParamSpec {
            auto: Some(
                "paper 0, a cut at every CNP; mellanox rate_reduce_monitor_period 4us, hpcc-sim \
                 4us (write 1ns for no interval there)",
            ),
            ..ParamSpec::new(
                "min_cut_interval",
                "dcqcnMinCutInterval",
                "DcqcnMinCutInterval",
                ParamKind::Time,
                "DCQCN least time between two rate cuts: a CNP sooner after the last cut \
                 leaves one cut (section 3.1 eq. 1) pending until the interval ends.",
            )
        },
        get: |c| ParamValue::Time(c.min_cut_interval.unwrap_or(Time::ZERO)),
        set: |c, v| c.min_cut_interval = set_time(v),
    },
    Param {
        spec: ParamSpec {
            choices: &["auto", "true", "false"],
            auto: Some("paper false; mellanox true (clamp_tgt_rate 0); hpcc-sim true"),
            zero_is_auto: false,
            ..ParamSpec::new(
                "keep_target_after_cut",
                "dcqcnKeepTarget",
                "DcqcnKeepTarget",
                ParamKind::Choice,
                "DCQCN: at a cut, set the target rate to the current rate only if the rate \
                 rose since the last cut; false: at every cut (section 3.1 eq. 1).",
            )
        },
        get: |c| {
            ParamValue::Choice(
                match c.keep_target_after_cut {
                    None => "auto",
                    Some(true) => "true",
                    Some(false) => "false",
                }
                .to_string(),
            )
        },
        set: |c, v| {
            c.keep_target_after_cut = match v.text() {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            }
        },
    },
    Param {
        spec: positive(
            "first_cnp_rate",
            "dcqcnFirstCnpRate",
            "DcqcnFirstCnpRate",
            ParamKind::Rate,
            "none for paper, mellanox and hpcc-sim: the first CNP cuts as every other (mellanox \
             rate_to_set_on_first_cnp 0)",
            "DCQCN: the flow's first CNP sets current and target rate to this rate instead of \
             the cut of section 3.1 eq. 1; between the min rate and the line rate.",
        ),
        get: |c| ParamValue::Rate(c.first_cnp_rate.unwrap_or(Rate(0))),
        set: |c, v| c.first_cnp_rate = set_rate(v),
    },
    Param {
        spec: ParamSpec {
            choices: &["auto", "on-cnp", "periodic"],
            auto: Some("paper on-cnp; mellanox periodic (dce_tcp_rtt); hpcc-sim periodic"),
            zero_is_auto: false,
            ..ParamSpec::new(
                "alpha_mode",
                "dcqcnAlphaMode",
                "DcqcnAlphaMode",
                ParamKind::Choice,
                "DCQCN alpha update: on-cnp (section 3.1 eq. 1 at each cut, eq. 2 per period K \
                 without one) or periodic (every K: alpha = (1-g) alpha + g if a CNP arrived \
                 in the period, else (1-g) alpha).",
            )
        },
        get: |c| ParamValue::Choice(c.alpha_mode.map_or("auto", AlphaMode::name).to_string()),
        set: |c, v| {
            c.alpha_mode = match v.text() {
                "on-cnp" => Some(AlphaMode::OnCnp),
                "periodic" => Some(AlphaMode::Periodic),
                _ => None,
            }
        },
    },
];

impl Params for DcqcnConfig {
    fn params() -> &'static [Param<Self>] {
        DCQCN_PARAMS
    }
}

impl DcqcnConfig {
    /// The constants in effect: each given value, else the preset's.
    pub fn resolved(&self) -> DcqcnParams {
        let base = self.preset.params();
        let rate_ai = self.rate_ai.unwrap_or(base.rate_ai);
        DcqcnParams {
            g: self.g.unwrap_or(base.g),
            alpha_init: self.alpha_init.unwrap_or(base.alpha_init),
            alpha_period: self.alpha_period.unwrap_or(base.alpha_period),
            increase_timer: self.increase_timer.unwrap_or(base.increase_timer),
            byte_counter: self.byte_counter.unwrap_or(base.byte_counter),
            fast_recovery_steps: self.fast_recovery_steps.unwrap_or(base.fast_recovery_steps),
            rate_ai,
            rate_hai: self
                .rate_hai
                .unwrap_or_else(|| self.preset.rate_hai_for(rate_ai)),
            min_rate: self.min_rate.unwrap_or(base.min_rate),
            min_cut_interval: self.min_cut_interval.unwrap_or(base.min_cut_interval),
            keep_target_after_cut: self
                .keep_target_after_cut
                .unwrap_or(base.keep_target_after_cut),
            first_cnp_rate: self.first_cnp_rate.or(base.first_cnp_rate),
            alpha_mode: self.alpha_mode.unwrap_or(base.alpha_mode),
            model: base.model,
        }
    }

    /// Checks every field, then the values in effect; the error names the first bad field
    /// (its Rust name). A value given as `Some(0)` (a file may hold one; the table reads 0 as
    /// auto) is an error wherever 0 is not a valid value.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        self.resolved().validate()
    }

    /// [`Self::validate`], then the rates against the path `sender` describes: `min_rate` and
    /// `first_cnp_rate` at most the line rate, `first_cnp_rate` at least `min_rate`.
    pub fn validate_for(&self, sender: &SenderConfig) -> Result<(), ConfigError> {
        self.validate()?;
        let p = self.resolved();
        let line = sender.path.line_rate;
        ConfigError::check(
            p.min_rate <= line,
            "min_rate",
            p.min_rate,
            &format!("must be <= the line rate ({line})"),
        )?;
        if let Some(r) = p.first_cnp_rate {
            ConfigError::check(
                r >= p.min_rate && r <= line,
                "first_cnp_rate",
                r,
                &format!(
                    "must be in [min_rate, line rate] = [{}, {line}]",
                    p.min_rate
                ),
            )?;
        }
        Ok(())
    }

    /// Validates both configurations and builds the sender of a `flow_size`-byte message
    /// starting at `now`, with DCQCN's reaction point ([`Dcqcn`]).
    pub fn build(
        &self,
        sender: &SenderConfig,
        flow_size: u64,
        now: Time,
    ) -> Result<QpSender<Dcqcn>, ConfigError> {
        let cc = Dcqcn::new(sender, self)?;
        QpSender::new(sender, cc, flow_size, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdma_cc_transport::Path;

    fn table_index(option: &str) -> usize {
        DcqcnConfig::params()
            .iter()
            .position(|p| p.spec.option == option)
            .unwrap()
    }

    /// Sets `--OPTION=text` through the table, as the examples and the NIC do.
    fn set(c: &mut DcqcnConfig, option: &str, text: &str) {
        c.set_by_option(option, text).unwrap();
    }

    #[test]
    fn default_resolves_to_the_papers_values() {
        let p = DcqcnConfig::default().resolved();
        assert_eq!(p, DcqcnParams::PAPER);
        assert_eq!(p.g, 0.00390625);
        assert_eq!(p.rate_hai, Rate::mbps(400)); // 10 × R_AI
        DcqcnConfig::default()
            .validate_for(&SenderConfig::default())
            .unwrap();
    }

    #[test]
    fn mellanox_preset_resolves_to_the_firmware_defaults() {
        let c = DcqcnConfig {
            preset: Preset::Mellanox,
            ..DcqcnConfig::default()
        };
        let p = c.resolved();
        assert_eq!(p, DcqcnParams::MELLANOX);
        // dce_tcp_g = 1019, initial_alpha_value = 1023 (10-bit fixed point)
        assert_eq!(p.g, 5.0 / 1024.0);
        assert_eq!(p.alpha_init, 0.9990234375);
        assert_eq!(p.alpha_period, Time::us(1));
        assert_eq!(p.increase_timer, Time::us(300));
        assert_eq!(p.byte_counter, Bytes(32_767));
        assert_eq!(p.fast_recovery_steps, 1);
        assert_eq!((p.rate_ai, p.rate_hai), (Rate::mbps(5), Rate::mbps(50)));
        assert_eq!(p.min_rate, Rate::mbps(1));
        assert_eq!(p.min_cut_interval, Time::us(4));
        assert!(p.keep_target_after_cut);
        assert_eq!(p.first_cnp_rate, None);
        assert_eq!(p.alpha_mode, AlphaMode::Periodic);
        c.validate_for(&SenderConfig::default()).unwrap();
    }

    #[test]
    fn options_resolve_whatever_their_order() {
        let opts = [
            ("dcqcnPreset", "mellanox"),
            ("dcqcnRai", "10Mbps"),
            ("dcqcnKeepTarget", "false"),
            ("dcqcnAlphaMode", "on-cnp"),
            ("dcqcnG", "0.5"),
        ];
        let mut forward = DcqcnConfig::default();
        for (o, t) in opts {
            set(&mut forward, o, t);
        }
        let mut backward = DcqcnConfig::default();
        for (o, t) in opts.iter().rev() {
            set(&mut backward, o, t);
        }
        assert_eq!(forward, backward);
        let p = forward.resolved();
        assert_eq!(p.rate_ai, Rate::mbps(10));
        assert!(!p.keep_target_after_cut);
        assert_eq!(p.alpha_mode, AlphaMode::OnCnp);
        assert_eq!(p.g, 0.5);
        // the rest is the preset's, R_HAI included (mellanox's is not tied to R_AI)
        assert_eq!(p.rate_hai, Rate::mbps(50));
        assert_eq!(p.min_cut_interval, Time::us(4));
        // under the paper preset an unset R_HAI follows the R_AI in effect
        set(&mut forward, "dcqcnPreset", "paper");
        assert_eq!(forward.resolved().rate_hai, Rate::mbps(100));
        // auto goes back to the preset's value
        set(&mut forward, "dcqcnKeepTarget", "auto");
        set(&mut forward, "dcqcnRai", "auto");
        assert_eq!(forward.keep_target_after_cut, None);
        assert_eq!(forward.rate_ai, None);
        assert_eq!(forward.resolved().rate_ai, Rate::mbps(40));
    }

    #[test]
    fn every_default_prints_as_text_that_parses_back() {
        let c = DcqcnConfig::default();
        for (i, p) in DcqcnConfig::params().iter().enumerate() {
            let v = c.get_param(i).unwrap();
            p.spec.check(&v, p.spec.name).unwrap();
            assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
            assert!(p.spec.option.starts_with("dcqcn"), "{}", p.spec.option);
            assert!(p.spec.attr.starts_with("Dcqcn"), "{}", p.spec.attr);
            if p.spec.name != "preset" {
                let auto = p.spec.auto.unwrap_or("");
                assert!(
                    auto.contains("paper") && auto.contains("mellanox"),
                    "{auto}"
                );
            }
        }
        // the switches keep false and auto apart
        let spec = DcqcnConfig::spec("keep_target_after_cut").unwrap();
        assert_eq!(spec.parse("auto", "k").unwrap().text(), "auto");
        assert_eq!(spec.parse("false", "k").unwrap().text(), "false");
        assert!(spec.parse("0", "k").is_err());
        assert!(spec.requirement().contains("mellanox true"));
    }

    #[test]
    fn validation_errors_name_the_field() {
        let check = |f: &dyn Fn(&mut DcqcnConfig), field: &str| {
            let mut c = DcqcnConfig::default();
            f(&mut c);
            assert_eq!(
                c.validate_for(&SenderConfig::default()).unwrap_err().field,
                field
            );
        };
        check(&|c| c.g = Some(1.5), "g");
        check(&|c| c.g = Some(f64::NAN), "g");
        check(&|c| c.g = Some(-0.1), "g");
        check(&|c| c.alpha_init = Some(2.0), "alpha_init");
        // Some(0) (from a file) is no auto
        check(&|c| c.alpha_init = Some(0.0), "alpha_init");
        check(&|c| c.alpha_period = Some(Time::ZERO), "alpha_period");
        check(&|c| c.increase_timer = Some(Time::ZERO), "increase_timer");
        check(&|c| c.byte_counter = Some(Bytes(0)), "byte_counter");
        check(&|c| c.fast_recovery_steps = Some(0), "fast_recovery_steps");
        check(&|c| c.rate_ai = Some(Rate(0)), "rate_ai");
        check(&|c| c.rate_hai = Some(Rate(0)), "rate_hai");
        check(&|c| c.min_rate = Some(Rate(0)), "min_rate");
        check(&|c| c.first_cnp_rate = Some(Rate(0)), "first_cnp_rate");
        // against the path: 100 Gb/s line rate
        check(&|c| c.min_rate = Some(Rate::gbps(101)), "min_rate");
        check(
            &|c| c.first_cnp_rate = Some(Rate::gbps(101)),
            "first_cnp_rate",
        );
        check(
            &|c| c.first_cnp_rate = Some(Rate::mbps(50)),
            "first_cnp_rate",
        );
        let e = DcqcnConfig {
            min_rate: Some(Rate::gbps(101)),
            ..DcqcnConfig::default()
        }
        .validate_for(&SenderConfig::default())
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid min_rate = 101000000000 bit/s: must be <= the line rate (100000000000 \
             bit/s)"
        );
        // explicit zero of the cut interval is valid: a cut at every CNP
        let c = DcqcnConfig {
            preset: Preset::Mellanox,
            min_cut_interval: Some(Time::ZERO),
            ..DcqcnConfig::default()
        };
        c.validate().unwrap();
        assert_eq!(c.resolved().min_cut_interval, Time::ZERO);
    }

    #[test]
    fn table_bounds_name_the_rust_field() {
        let mut c = DcqcnConfig::default();
        let i = table_index("dcqcnG");
        let e = c.set_param(i, &ParamValue::Real(2.0)).unwrap_err();
        assert_eq!(e.field, "g");
        let e = DcqcnConfig::params()[i]
            .spec
            .parse("2", "--dcqcnG")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --dcqcnG = 2: must be a number in (0, 1] (or 0/auto: paper 1/256; mellanox \
             (1024 - dce_tcp_g)/1024 = 5/1024; hpcc-sim 1/256)"
        );
    }

    #[test]
    fn build_validates_both_configs() {
        let s = SenderConfig::default();
        let bad = DcqcnConfig {
            g: Some(0.0),
            ..DcqcnConfig::default()
        };
        assert_eq!(bad.build(&s, 1, Time::ZERO).unwrap_err().field, "g");
        let c = DcqcnConfig::default();
        assert_eq!(c.build(&s, 0, Time::ZERO).unwrap_err().field, "flow_size");
        let slow = SenderConfig {
            path: Path {
                line_rate: Rate::mbps(50),
                ..Path::default()
            },
            ..SenderConfig::default()
        };
        assert_eq!(c.build(&slow, 1, Time::ZERO).unwrap_err().field, "min_rate");
    }

    #[test]
    fn names_are_kebab_case() {
        assert_eq!(Preset::NAMES, ["paper", "mellanox", "hpcc-sim"]);
        assert_eq!(Preset::from_name("hpcc-sim"), Some(Preset::HpccSim));
        assert_eq!(Preset::HpccSim.params(), DcqcnParams::HPCC_SIM);
        DcqcnParams::HPCC_SIM.validate().unwrap();
        assert_eq!(AlphaMode::OnCnp.name(), "on-cnp");
        assert_eq!(Preset::from_name("mellanox"), Some(Preset::Mellanox));
        assert_eq!(Preset::from_name("Mellanox"), None);
    }
}
