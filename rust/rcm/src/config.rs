//! RCM's parameters: [`RcmConfig`] (what a user sets, with "auto" values) and [`RcmParams`]
//! (the values in effect, every "auto" resolved), built and validated once per switch.
//!
//! The parameter table ([`RcmConfig::params`]) is the one definition of every parameter's
//! name, bounds, unit, default and help: the ns-3 switch's attributes (`Rcm…`) and the
//! examples' options (`--rcm…`) are generated from it, as for the other configurations
//! (`rdma_cc_core::param`). Defaults are the paper's where it gives one (Liu et al., "Regional
//! Congestion Mitigation in Lossless Datacenter Networks", NPC 2017) and otherwise the
//! project's decisions, listed in the crate documentation.

use rdma_cc_core::param::{Limit, Param, ParamKind, ParamSpec, ParamValue, Params};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};

/// Most flow IDs a congestion flow recognition CAM holds, and so the most a congestion
/// notification carries ([`RcmConfig::cam_depth`] is at most this): a [`crate::FlowList`]'s
/// capacity.
pub const MAX_CAM_DEPTH: usize = rdma_cc_switch::flows::MAX_FLOWS;

/// Most CN arrival times a switch remembers for its congestion-region test
/// ([`RcmConfig::sar_cn_threshold`] is at most this).
pub const MAX_SAR_CN_THRESHOLD: usize = 64;

/// Which packets switch-level adaptive routing may send elsewhere than their flow's previous
/// port (NPC 2017 §3.4 "SAR"). Flows in a CAM (congestion flows) are never moved, whatever
/// the mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SarMode {
    /// No adaptive routing: every flow takes its ECMP port (RCC, CRD and CN still run).
    Off,
    /// Only a flow's first packet at this switch is routed adaptively; the choice then sticks
    /// (the paper's "new flows"). Default.
    #[default]
    New,
    /// A flow idle for longer than [`RcmConfig::flowlet_gap`] may move (a new flowlet).
    Flowlet,
    /// Every packet of a non-congestion flow is routed adaptively; receivers then see
    /// reordering (which go-back-N punishes).
    Packet,
}

impl SarMode {
    /// Every mode's name, in declaration order (the choices of `--rcmSarMode`).
    pub const NAMES: [&'static str; 4] = ["off", "new", "flowlet", "packet"];

    /// The name used in options and files.
    pub const fn name(self) -> &'static str {
        match self {
            SarMode::Off => Self::NAMES[0],
            SarMode::New => Self::NAMES[1],
            SarMode::Flowlet => Self::NAMES[2],
            SarMode::Packet => Self::NAMES[3],
        }
    }

    /// The mode called `name` ([`Self::name`]'s spelling).
    pub fn from_name(name: &str) -> Option<SarMode> {
        [
            SarMode::Off,
            SarMode::New,
            SarMode::Flowlet,
            SarMode::Packet,
        ]
        .into_iter()
        .find(|m| m.name() == name)
    }
}

/// RCM's parameters for one switch. `Default` is the paper's values where it gives them and
/// the project's decisions otherwise (each field says which).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RcmConfig {
    /// Whether the switch runs RCM at all. Default false.
    pub enabled: bool,
    /// `Q_eq`, the equilibrium queue length of every congestion point (§3.2 eq. 1): `Q_off =
    /// Q_len − Q_eq`. Decision: 20 KB (at 100 Gb/s, 1.6 µs of line rate); > 0.
    pub q_eq: Bytes,
    /// `w_q`, the weight of the queue's growth in `Fb = Q_off + w_q·Q_delta` (§3.2 eq. 1).
    /// Default 2 (QCN's `w`, IEEE 802.1Qau); in `[0, 1000]`.
    pub w_q: f64,
    /// `w`, the weight of the downstream neighbour's degree in the regional degree `Fb' =
    /// (1 − w)·Fb + w·Fb_r` (§3.2 eq. 2). Decision: 0.5; in `[0, 1]`.
    pub w: f64,
    /// Bytes of arrivals between two samples of an uncongested queue (§3.2: "samples incoming
    /// packets with a predefined sampling interval depending on the degree of congestion").
    /// Decision: 150 KB (QCN's 1 % of 1500-byte frames); after a positive `Fb` the interval
    /// shrinks with it, down to a tenth at `Fb_max` ([`crate::crd`]); ≥ 1 B.
    pub sample_bytes: Bytes,
    /// `Fb_max`, the largest quantised congestion degree (§3.4 eq. 4). Decision: 63 (6 bits,
    /// as QCN's feedback); in `[1, 255]`.
    pub fb_max: u8,
    /// Bytes of `Fb` per quantum of the quantised degree. `None` (auto): `Q_eq / 8` (rounded
    /// up), so `Fb_max` = 63 quanta is 7.9 × `Q_eq`.
    pub fb_quantum: Option<Bytes>,
    /// `G_d`, the gain of the cut `W_c ← W_c·(1 − Fb·G_d)` (§3.4 eq. 4–5). `None` (auto):
    /// `1 / (2·Fb_max)`, the paper's "`Fb_max·G_d = 1/2`"; `G_d·Fb_max` must not exceed 1/2
    /// (a cut never exceeds 50 %).
    pub g_d: Option<f64>,
    /// How long a local or remote congestion flag stays set after the last positive `Fb` /
    /// the last CN. Decision: 20 µs (2 × a CNP-scale control period); > 0.
    pub hold: Time,
    /// Least time between two CNs an input queue sends while congested. Decision: 10 µs;
    /// > 0.
    pub cn_interval: Time,
    /// Entries of each output queue's congestion flow recognition CAM (§3.3, Fig. 5).
    /// Decision: 16; in `[1, 64]`.
    pub cam_depth: u32,
    /// CFR samples one in `cfr_sample` packets leaving an output queue (§3.3: "periodic
    /// sampling on the packets passing through the output queue"). Decision: 8; ≥ 1.
    pub cfr_sample: u32,
    /// Decision: the gaps between CFR samples are drawn (deterministically, a fixed xorshift
    /// sequence) uniform in `[1, 2·cfr_sample − 1]` instead of exactly `cfr_sample`, so that
    /// the samples cannot alias with a regular interleaving of flows (measured: rcm-burst,
    /// where the two input ports' packets alternate and periodic sampling saw only one).
    /// Default true.
    pub cfr_jitter: bool,
    /// A flow is a congestion flow of a queue when its ID fills at least this many entries of
    /// the queue's CAM. Default 1 (membership, as the paper); at most `cam_depth`. Larger
    /// values keep only the heaviest flows (decision: configurable, see the crate docs).
    /// 0: a flow is one when it fills more entries than the mean of the flows in the CAM
    /// (§3.3's "relatively high injection rate"; all of them when they fill as many).
    pub cfr_min_hits: u32,
    /// RCC's window period: `W` is the bytes the port sends in this time at its line rate
    /// (§3.4 eq. 3). Decision: 10 µs; > 0.
    pub window_time: Time,
    /// Decision: RCC's window is a period of `window_time` (true) in which the congestion
    /// flows may send `W_c` bytes, held packets waiting for the next period even when nothing
    /// else waits (a rate limit, so that held packets back-pressure upstream), instead of the
    /// paper's window of `W` bytes sent that also ends early when no other packet waits
    /// (false). Default true (measured: rcm-victim, see the README).
    pub rcc_timed: bool,
    /// Decision: at activation, `W_c` is measured over the first `rcc_measure` of the episode
    /// (nothing held meanwhile): the congestion flows' share of the bytes the port sent, times
    /// `W`, then cut by the largest degree of the events meanwhile (§3.4: "`W_nc` and `W` are
    /// estimated by the data amount sent in a time period from a given start when a congestion
    /// is detected"). 0: `W_c` starts at the congestion flows' share of the CAM entries, at
    /// once. Default 0 (measured: on rcm-burst and rcm-victim no value beat it on both).
    pub rcc_measure: Time,
    /// Decision: at an edge or inner point (whose `W_c` every CN cuts), `W_c` recovers when no
    /// congestion event arrived for this long while RCC is active:
    /// `W_c ← min(W, W_c + rcc_recover_step·W)`, once per quiet period (the paper only cuts:
    /// an edge's `W_c` then only falls, to ~0 in a long incast). A root's `W_c` comes from its
    /// own detection and does not recover. 0: no recovery. Default 10 µs (measured:
    /// rcm-victim, the victim at 50-52 Gb/s for seeds 1-4, against 45-47 with 20 µs and 41-43
    /// with 5 µs or none).
    pub rcc_recover_time: Time,
    /// The fraction of `W` one recovery adds to `W_c` (see `rcc_recover_time`). Default 1/16;
    /// in `[0, 1]`.
    pub rcc_recover_step: f64,
    /// Which packets switch-level adaptive routing may move (§3.4 "SAR"). Decision: `new`.
    pub sar_mode: SarMode,
    /// A switch is in a congestion region when it is congested itself or has received at
    /// least this many CNs within `hold` (§3.4: "has received several server congestion
    /// notifications"). Decision: 2; in `[1, 64]`.
    pub sar_cn_threshold: u32,
    /// In [`SarMode::Flowlet`], a flow idle for longer than this may move; in every mode, the
    /// least idle time after which a flow's routing entry may be reclaimed. Decision: 50 µs;
    /// > 0.
    pub flowlet_gap: Time,
    /// Entries of the switch's flow table (each flow's chosen port, for SAR), rounded up to
    /// a power of two. Decision: 4096; in `[8, 2^24]`.
    pub sar_table: u32,
}

impl Default for RcmConfig {
    fn default() -> Self {
        RcmConfig {
            enabled: false,
            q_eq: Bytes::kb(20),
            w_q: 2.0,
            w: 0.5,
            sample_bytes: Bytes::kb(150),
            fb_max: 63,
            fb_quantum: None,
            g_d: None,
            hold: Time::us(20),
            cn_interval: Time::us(10),
            cam_depth: 16,
            cfr_sample: 8,
            cfr_jitter: true,
            cfr_min_hits: 1,
            window_time: Time::us(10),
            rcc_timed: false,
            rcc_measure: Time::ZERO,
            rcc_recover_time: Time::us(10),
            rcc_recover_step: 0.0625,
            sar_mode: SarMode::New,
            sar_cn_threshold: 2,
            flowlet_gap: Time::us(50),
            sar_table: 4096,
        }
    }
}

/// The values in effect (every "auto" resolved): what the RCM modules run with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RcmParams {
    /// `Q_eq`.
    pub q_eq: Bytes,
    /// `w_q`.
    pub w_q: f64,
    /// `w`.
    pub w: f64,
    /// Sampling interval of an uncongested queue.
    pub sample_bytes: Bytes,
    /// `Fb_max`.
    pub fb_max: u8,
    /// Bytes per quantum of `Fb`.
    pub fb_quantum: Bytes,
    /// `G_d`.
    pub g_d: f64,
    /// Flag hold time.
    pub hold: Time,
    /// Least time between two CNs of one input queue.
    pub cn_interval: Time,
    /// CAM entries per output queue.
    pub cam_depth: usize,
    /// One CFR sample per this many departures.
    pub cfr_sample: u32,
    /// CFR sampling gaps jittered.
    pub cfr_jitter: bool,
    /// CAM entries that make a flow a congestion flow.
    pub cfr_min_hits: u32,
    /// RCC window period.
    pub window_time: Time,
    /// RCC's window is a time period without early end.
    pub rcc_timed: bool,
    /// Measurement of `W_c` at activation (0: the CAM share at once).
    pub rcc_measure: Time,
    /// Quiet time after which `W_c` recovers (0: never).
    pub rcc_recover_time: Time,
    /// Fraction of `W` a recovery adds.
    pub rcc_recover_step: f64,
    /// SAR mode.
    pub sar_mode: SarMode,
    /// CNs within `hold` that put the switch in a congestion region.
    pub sar_cn_threshold: u32,
    /// Flowlet gap (and least idle time before a flow entry is reclaimed).
    pub flowlet_gap: Time,
    /// Flow-table entries (a power of two).
    pub sar_table: usize,
}

impl RcmParams {
    /// RCC's window `W` for a port of line rate `rate`: the bytes it sends in `window_time`
    /// (at least one byte).
    pub fn window_bytes(&self, rate: Rate) -> Bytes {
        Bytes(rate.bytes_in(self.window_time).0.max(1))
    }
}

/// A positive duration.
const fn positive_time(
    name: &'static str,
    option: &'static str,
    attr: &'static str,
    help: &'static str,
) -> ParamSpec<'static> {
    ParamSpec {
        min: Limit::excl(0.0),
        ..ParamSpec::new(name, option, attr, ParamKind::Time, help)
    }
}

/// A whole number in `[lo, hi]` counting `unit`.
const fn count(
    name: &'static str,
    option: &'static str,
    attr: &'static str,
    unit: &'static str,
    lo: f64,
    hi: f64,
    help: &'static str,
) -> ParamSpec<'static> {
    ParamSpec {
        unit,
        min: Limit::incl(lo),
        max: Limit::incl(hi),
        ..ParamSpec::new(name, option, attr, ParamKind::Count, help)
    }
}

/// `v` as a `u32` (the table's bounds keep it in range).
fn as_u32(v: &ParamValue) -> u32 {
    u32::try_from(v.int()).unwrap_or(u32::MAX)
}

const RCM_PARAMS: &[Param<RcmConfig>] = &[
    Param {
        spec: ParamSpec::new(
            "enabled",
            "rcm",
            "Rcm",
            ParamKind::Bool,
            "RCM: run regional congestion mitigation in the switch (Liu et al., NPC 2017): \
             detection on input and output queues, notifications to neighbour switches, \
             window-based control of congestion flows and adaptive routing.",
        ),
        get: |c| ParamValue::Bool(c.enabled),
        set: |c, v| c.enabled = v.flag(),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            ..ParamSpec::new(
                "q_eq",
                "rcmQeq",
                "RcmQeq",
                ParamKind::Bytes,
                "RCM equilibrium queue length Q_eq of every congestion point: Q_off = Q_len - \
                 Q_eq (NPC 2017 section 3.2 eq. 1).",
            )
        },
        get: |c| ParamValue::Bytes(c.q_eq),
        set: |c, v| c.q_eq = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            max: Limit::incl(1000.0),
            ..ParamSpec::new(
                "w_q",
                "rcmWq",
                "RcmWq",
                ParamKind::Real,
                "RCM weight w_q of the queue growth: Fb = Q_off + w_q Q_delta (NPC 2017 section \
                 3.2 eq. 1; QCN's w = 2).",
            )
        },
        get: |c| ParamValue::Real(c.w_q),
        set: |c, v| c.w_q = v.real(),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            max: Limit::incl(1.0),
            ..ParamSpec::new(
                "w",
                "rcmW",
                "RcmW",
                ParamKind::Real,
                "RCM weight w of the downstream degree in the regional degree sent upstream: \
                 Fb' = (1-w) Fb + w Fb_r (NPC 2017 section 3.2 eq. 2).",
            )
        },
        get: |c| ParamValue::Real(c.w),
        set: |c, v| c.w = v.real(),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            ..ParamSpec::new(
                "sample_bytes",
                "rcmSampleBytes",
                "RcmSampleBytes",
                ParamKind::Bytes,
                "RCM bytes of arrivals between two samples of an uncongested queue; after a \
                 positive Fb the interval shrinks to sample_bytes / (1 + 9 Fb/Fb_max), as \
                 QCN's sampling (NPC 2017 section 3.2).",
            )
        },
        get: |c| ParamValue::Bytes(c.sample_bytes),
        set: |c, v| c.sample_bytes = Bytes(v.int()),
    },
    Param {
        spec: count(
            "fb_max",
            "rcmFbMax",
            "RcmFbMax",
            "quanta",
            1.0,
            255.0,
            "RCM largest quantised congestion degree Fb_max (6 bits: 63); Fb is clamped to \
             [0, Fb_max] quanta (NPC 2017 section 3.4 eq. 4).",
        ),
        get: |c| ParamValue::Count(u64::from(c.fb_max)),
        set: |c, v| c.fb_max = u8::try_from(v.int()).unwrap_or(u8::MAX),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            auto: Some("Q_eq/8, rounded up"),
            ..ParamSpec::new(
                "fb_quantum",
                "rcmFbQuantum",
                "RcmFbQuantum",
                ParamKind::Bytes,
                "RCM bytes of Fb per quantum of the quantised degree (a positive Fb is at least \
                 one quantum).",
            )
        },
        get: |c| ParamValue::Bytes(c.fb_quantum.unwrap_or(Bytes::ZERO)),
        set: |c, v| c.fb_quantum = (v.int() > 0).then_some(Bytes(v.int())),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            max: Limit::incl(0.5),
            auto: Some("1/(2 Fb_max)"),
            ..ParamSpec::new(
                "g_d",
                "rcmGd",
                "RcmGd",
                ParamKind::Real,
                "RCM gain G_d of the cut W_c = W_c (1 - Fb G_d) (NPC 2017 section 3.4 eq. 5); \
                 Fb_max G_d must not exceed 1/2 (a cut of at most 50 %).",
            )
        },
        get: |c| ParamValue::Real(c.g_d.unwrap_or(0.0)),
        set: |c, v| c.g_d = (v.real() != 0.0).then_some(v.real()),
    },
    Param {
        spec: positive_time(
            "hold",
            "rcmHold",
            "RcmHold",
            "RCM: a local (remote) congestion flag clears this long after the last positive Fb \
             (the last CN); RCC quits when both are clear (NPC 2017 section 3.2, 3.4).",
        ),
        get: |c| ParamValue::Time(c.hold),
        set: |c, v| c.hold = Time(v.int()),
    },
    Param {
        spec: positive_time(
            "cn_interval",
            "rcmCnInterval",
            "RcmCnInterval",
            "RCM least time between two congestion notifications an input queue sends \
             upstream while congested (NPC 2017 section 3.2).",
        ),
        get: |c| ParamValue::Time(c.cn_interval),
        set: |c, v| c.cn_interval = Time(v.int()),
    },
    Param {
        spec: count(
            "cam_depth",
            "rcmCamDepth",
            "RcmCamDepth",
            "entries",
            1.0,
            MAX_CAM_DEPTH as f64,
            "RCM entries of each output queue's congestion flow recognition CAM, written \
             cyclically (NPC 2017 section 3.3, Fig. 5).",
        ),
        get: |c| ParamValue::Count(u64::from(c.cam_depth)),
        set: |c, v| c.cam_depth = as_u32(v),
    },
    Param {
        spec: count(
            "cfr_sample",
            "rcmCfrSample",
            "RcmCfrSample",
            "packets",
            1.0,
            1_000_000.0,
            "RCM: the CAM samples one in this many packets leaving the output queue (NPC 2017 \
             section 3.3).",
        ),
        get: |c| ParamValue::Count(u64::from(c.cfr_sample)),
        set: |c, v| c.cfr_sample = as_u32(v),
    },
    Param {
        spec: ParamSpec::new(
            "cfr_jitter",
            "rcmCfrJitter",
            "RcmCfrJitter",
            ParamKind::Bool,
            "RCM (project decision): the gaps between CFR samples are drawn from a fixed \
             pseudo-random sequence, uniform in [1, 2 cfr_sample - 1], so that sampling cannot \
             alias with a regular interleaving of flows; false: exactly every cfr_sample-th \
             departure.",
        ),
        get: |c| ParamValue::Bool(c.cfr_jitter),
        set: |c, v| c.cfr_jitter = v.flag(),
    },
    Param {
        spec: count(
            "cfr_min_hits",
            "rcmCfrMinHits",
            "RcmCfrMinHits",
            "entries",
            0.0,
            MAX_CAM_DEPTH as f64,
            "RCM: a flow is a congestion flow of a queue when it fills at least this many \
             entries of the queue's CAM (1: membership, as NPC 2017 section 3.3; 0: more \
             entries than the mean of the flows in the CAM, the paper's relatively heavy \
             flows, all of them when they fill as many); at most the CAM depth.",
        ),
        get: |c| ParamValue::Count(u64::from(c.cfr_min_hits)),
        set: |c, v| c.cfr_min_hits = as_u32(v),
    },
    Param {
        spec: positive_time(
            "window_time",
            "rcmWindow",
            "RcmWindow",
            "RCM window period: RCC's window W = W_c + W_nc is the bytes the port sends in \
             this time at line rate (NPC 2017 section 3.4 eq. 3).",
        ),
        get: |c| ParamValue::Time(c.window_time),
        set: |c, v| c.window_time = Time(v.int()),
    },
    Param {
        spec: ParamSpec::new(
            "rcc_timed",
            "rcmRccTimed",
            "RcmRccTimed",
            ParamKind::Bool,
            "RCM (project decision): RCC's window is a period of the window time in which the \
             congestion flows may send W_c bytes, held packets waiting for the next period even \
             when nothing else waits (a rate limit); false: the paper's window of W bytes, \
             ended early when no other packet waits.",
        ),
        get: |c| ParamValue::Bool(c.rcc_timed),
        set: |c, v| c.rcc_timed = v.flag(),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            ..ParamSpec::new(
                "rcc_measure",
                "rcmRccMeasure",
                "RcmRccMeasure",
                ParamKind::Time,
                "RCM (project decision): at activation W_c is the congestion flows' share of \
                 the bytes sent during this time (nothing held meanwhile) times W, then cut by \
                 the largest degree seen meanwhile (NPC 2017 section 3.4); 0: their share of the \
                 CAM entries, at once.",
            )
        },
        get: |c| ParamValue::Time(c.rcc_measure),
        set: |c, v| c.rcc_measure = Time(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            ..ParamSpec::new(
                "rcc_recover_time",
                "rcmRccRecoverTime",
                "RcmRccRecoverTime",
                ParamKind::Time,
                "RCM (project decision): at an edge or inner point (whose W_c every CN cuts) \
                 with RCC active, W_c grows by rcc_recover_step W (up to W) each time no \
                 congestion event arrived for this long; a root's W_c does not grow; 0: W_c \
                 never grows (the paper only cuts).",
            )
        },
        get: |c| ParamValue::Time(c.rcc_recover_time),
        set: |c, v| c.rcc_recover_time = Time(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            max: Limit::incl(1.0),
            ..ParamSpec::new(
                "rcc_recover_step",
                "rcmRccRecoverStep",
                "RcmRccRecoverStep",
                ParamKind::Real,
                "RCM (project decision): the fraction of W one recovery of W_c adds (see \
                 rcc_recover_time).",
            )
        },
        get: |c| ParamValue::Real(c.rcc_recover_step),
        set: |c, v| c.rcc_recover_step = v.real(),
    },
    Param {
        spec: ParamSpec {
            choices: &SarMode::NAMES,
            ..ParamSpec::new(
                "sar_mode",
                "rcmSarMode",
                "RcmSarMode",
                ParamKind::Choice,
                "RCM adaptive routing (NPC 2017 section 3.4 SAR): off, new (a flow's first \
                 packet only), flowlet (a flow idle longer than the flowlet gap) or packet \
                 (every packet); congestion flows are never moved.",
            )
        },
        get: |c| ParamValue::Choice(c.sar_mode.name().to_string()),
        set: |c, v| c.sar_mode = SarMode::from_name(v.text()).unwrap_or(c.sar_mode),
    },
    Param {
        spec: count(
            "sar_cn_threshold",
            "rcmSarCnThreshold",
            "RcmSarCnThreshold",
            "CNs",
            1.0,
            MAX_SAR_CN_THRESHOLD as f64,
            "RCM: a switch that received at least this many CNs within the hold time (or is \
             congested itself) is in a congestion region and routes adaptively (NPC 2017 \
             section 3.4 SAR).",
        ),
        get: |c| ParamValue::Count(u64::from(c.sar_cn_threshold)),
        set: |c, v| c.sar_cn_threshold = as_u32(v),
    },
    Param {
        spec: positive_time(
            "flowlet_gap",
            "rcmFlowletGap",
            "RcmFlowletGap",
            "RCM: with sar_mode flowlet, a flow idle this long may move; in every mode, the \
             least idle time before a flow's routing entry may be reclaimed.",
        ),
        get: |c| ParamValue::Time(c.flowlet_gap),
        set: |c, v| c.flowlet_gap = Time(v.int()),
    },
    Param {
        spec: count(
            "sar_table",
            "rcmSarTable",
            "RcmSarTable",
            "entries",
            8.0,
            16_777_216.0,
            "RCM entries of the switch's flow table (each flow's port), rounded up to a power \
             of two; a flow without an entry takes its ECMP port.",
        ),
        get: |c| ParamValue::Count(u64::from(c.sar_table)),
        set: |c, v| c.sar_table = as_u32(v),
    },
];

impl Params for RcmConfig {
    fn params() -> &'static [Param<Self>] {
        RCM_PARAMS
    }

    fn validate_fields(&self) -> Result<(), ConfigError> {
        ConfigError::check(
            self.cfr_min_hits <= self.cam_depth,
            "cfr_min_hits",
            self.cfr_min_hits,
            &format!("must be <= cam_depth ({})", self.cam_depth),
        )?;
        if let Some(g) = self.g_d {
            // NPC 2017 §3.4: "G_d is chosen to satisfy Fb_max·G_d = 1/2"; a smaller product
            // is a gentler cut, a larger one could cut more than half
            ConfigError::check(
                g * f64::from(self.fb_max) <= 0.5 + 1e-12,
                "g_d",
                g,
                &format!(
                    "must be <= 1/(2 Fb_max) = {} (a cut of at most 50 %)",
                    0.5 / f64::from(self.fb_max.max(1))
                ),
            )?;
        }
        Ok(())
    }
}

impl RcmConfig {
    /// Checks every field against its bounds and the relations between them; the error names
    /// the first bad field (its Rust name). A value given as `Some(0)` (a file may hold one;
    /// the table reads 0 as auto) is an error.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        if let Some(q) = self.fb_quantum {
            ConfigError::check(q.0 > 0, "fb_quantum", q, "must be > 0")?;
        }
        if let Some(g) = self.g_d {
            ConfigError::check(g.is_finite() && g > 0.0, "g_d", g, "must be > 0")?;
        }
        Ok(())
    }

    /// Validates, then gives the values in effect.
    pub fn resolved(&self) -> Result<RcmParams, ConfigError> {
        self.validate()?;
        let fb_max = self.fb_max.max(1);
        Ok(RcmParams {
            q_eq: self.q_eq,
            w_q: self.w_q,
            w: self.w,
            sample_bytes: self.sample_bytes,
            fb_max,
            fb_quantum: self
                .fb_quantum
                .unwrap_or(Bytes(self.q_eq.0.div_ceil(8).max(1))),
            g_d: self.g_d.unwrap_or(0.5 / f64::from(fb_max)),
            hold: self.hold,
            cn_interval: self.cn_interval,
            cam_depth: self.cam_depth.clamp(1, MAX_CAM_DEPTH as u32) as usize,
            cfr_sample: self.cfr_sample.max(1),
            cfr_jitter: self.cfr_jitter,
            cfr_min_hits: self.cfr_min_hits,
            window_time: self.window_time,
            rcc_timed: self.rcc_timed,
            rcc_measure: self.rcc_measure,
            rcc_recover_time: self.rcc_recover_time,
            rcc_recover_step: self.rcc_recover_step,
            sar_mode: self.sar_mode,
            sar_cn_threshold: self.sar_cn_threshold.clamp(1, MAX_SAR_CN_THRESHOLD as u32),
            flowlet_gap: self.flowlet_gap,
            sar_table: (self.sar_table.max(8) as usize).next_power_of_two(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(c: &mut RcmConfig, option: &str, text: &str) -> Result<(), ConfigError> {
        c.set_by_option(option, text)
    }

    #[test]
    fn defaults_resolve_to_the_documented_values() {
        let p = RcmConfig::default().resolved().unwrap();
        assert_eq!(p.q_eq, Bytes(20_000));
        assert_eq!(p.fb_max, 63);
        // Q_eq/8 per quantum
        assert_eq!(p.fb_quantum, Bytes(2_500));
        // NPC 2017 §3.4 eq. 4: Fb_max·G_d = 1/2
        assert!((p.g_d * 63.0 - 0.5).abs() < 1e-12);
        assert_eq!((p.hold, p.cn_interval), (Time::us(20), Time::us(10)));
        assert_eq!((p.cam_depth, p.cfr_sample, p.cfr_min_hits), (16, 8, 1));
        assert_eq!(p.sar_mode, SarMode::New);
        assert_eq!(p.sar_table, 4096);
        // W at 100 Gb/s and 10 µs: 125 000 B
        assert_eq!(p.window_bytes(Rate::gbps(100)), Bytes(125_000));
        assert!(!RcmConfig::default().enabled);
    }

    #[test]
    fn every_default_prints_as_text_that_parses_back() {
        let c = RcmConfig::default();
        for (i, p) in RcmConfig::params().iter().enumerate() {
            let v = c.get_param(i).unwrap();
            p.spec.check(&v, p.spec.name).unwrap();
            assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
            assert!(p.spec.option.starts_with("rcm"), "{}", p.spec.option);
            assert!(p.spec.attr.starts_with("Rcm"), "{}", p.spec.attr);
            assert!(!p.spec.help.is_empty());
        }
    }

    #[test]
    fn options_set_fields_and_auto_resolves() {
        let mut c = RcmConfig::default();
        set(&mut c, "rcm", "1").unwrap();
        set(&mut c, "rcmQeq", "40KB").unwrap();
        set(&mut c, "rcmSarMode", "flowlet").unwrap();
        set(&mut c, "rcmFbMax", "15").unwrap();
        set(&mut c, "rcmSarTable", "1000").unwrap();
        let p = c.resolved().unwrap();
        assert!(c.enabled);
        assert_eq!(p.fb_quantum, Bytes(5_000));
        assert!((p.g_d - 0.5 / 15.0).abs() < 1e-15);
        assert_eq!(p.sar_mode, SarMode::Flowlet);
        assert_eq!(p.sar_table, 1024);
        set(&mut c, "rcmFbQuantum", "1KB").unwrap();
        assert_eq!(c.resolved().unwrap().fb_quantum, Bytes(1_000));
        set(&mut c, "rcmFbQuantum", "auto").unwrap();
        assert_eq!(c.fb_quantum, None);
    }

    #[test]
    fn bad_values_name_the_field() {
        let mut c = RcmConfig::default();
        for (opt, text) in [
            ("rcmQeq", "0"),
            ("rcmW", "1.5"),
            ("rcmWq", "-1"),
            ("rcmCamDepth", "65"),
            ("rcmCamDepth", "0"),
            ("rcmFbMax", "256"),
            ("rcmHold", "0"),
            ("rcmGd", "0.6"),
            ("rcmSarMode", "ecmp"),
            ("rcmSarTable", "4"),
        ] {
            assert_eq!(
                set(&mut c, opt, text).unwrap_err().field,
                opt,
                "{opt}={text}"
            );
        }
        let check = |f: &dyn Fn(&mut RcmConfig), field: &str| {
            let mut c = RcmConfig::default();
            f(&mut c);
            assert_eq!(c.validate().unwrap_err().field, field);
        };
        // relations between fields
        check(&|c| c.cfr_min_hits = 17, "cfr_min_hits");
        check(&|c| c.g_d = Some(0.5 / 63.0 * 1.01), "g_d");
        // Some(0) from a file is no auto
        check(&|c| c.fb_quantum = Some(Bytes(0)), "fb_quantum");
        check(&|c| c.g_d = Some(0.0), "g_d");
        check(&|c| c.g_d = Some(f64::NAN), "g_d");
        let e = RcmConfig {
            g_d: Some(0.005),
            fb_max: 63,
            ..RcmConfig::default()
        };
        assert!(e.validate().is_ok());
    }

    #[test]
    fn sar_mode_names_round_trip() {
        for n in SarMode::NAMES {
            assert_eq!(SarMode::from_name(n).unwrap().name(), n);
        }
        assert_eq!(SarMode::from_name("New"), None);
    }
}
