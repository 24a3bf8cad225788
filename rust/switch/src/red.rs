//! RED/ECN marking on the instantaneous egress queue, and WRED threshold drop of Not-ECT
//! packets (LDCP fast start).
//!
//! Rules (DCQCN's congestion point, Zhu et al., SIGCOMM 2015 §3.1; the LDCP draft,
//! draft-dai-tsvwg-ldcp-01 §2.3, for the Not-ECT threshold), with `q` the egress queue length
//! in bytes *before* the arriving packet is added:
//!
//! | packet | condition | verdict |
//! | --- | --- | --- |
//! | any | `q + size > buf_max` | drop ([`DropReason::QueueFull`]) |
//! | ECN-capable | `q < K_min` | enqueue |
//! | ECN-capable | `K_min ≤ q < K_max` | mark with p = (q−K_min)/(K_max−K_min)·P_max |
//! | ECN-capable | `q ≥ K_max` | mark |
//! | Not-ECT | [`NotEct::ThresholdDrop`]: `q ≥ K_fs` | drop ([`DropReason::NotEctThreshold`]) |
//! | Not-ECT | [`NotEct::RedDrop`]: where an ECT packet would be marked | drop ([`DropReason::RedEarlyDrop`]) |
//! | Not-ECT | otherwise | enqueue, unmarked |
//!
//! Boundaries follow the LDCP draft (`q = K_max` marks with probability 1). The DCQCN paper
//! writes `K_min < q ≤ K_max` for the linear part; the two differ only at the single byte value
//! `q = K_max`, and the project uses one convention for every scheme (documented in the README).
//!
//! The random draw is the caller's (one uniform in `[0, 1)` per packet from an ns-3 random
//! stream), so runs are reproducible and this code holds no RNG.
//!
//! [`RedEcnConfig`]'s parameter table ([`RedEcnConfig::params`]) is the one definition of each
//! setting's name, default, bounds and help: the ns-3 queue disc's attributes are built from it.

use crate::{DropCounts, DropReason, Ecn};
use rdma_cc_core::param::{Limit, Param, ParamKind, ParamSpec, ParamValue, Params};
use rdma_cc_core::{Bytes, ConfigError, Rate};
use serde::{Deserialize, Serialize};

/// What happens to Not-ECT (ECN-incapable) packets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NotEct {
    /// Enqueue without any early drop (only `buf_max` applies).
    #[default]
    Accept,
    /// WRED threshold drop at [`RedEcnConfig::k_fs`] bytes (LDCP: first-RTT packets are
    /// Not-ECT).
    ThresholdDrop,
    /// Classic RED: drop where an ECN-capable packet would have been marked.
    RedDrop,
}

impl NotEct {
    /// Every mode, in the order of [`NotEct::NAMES`].
    pub const ALL: [NotEct; 3] = [NotEct::Accept, NotEct::ThresholdDrop, NotEct::RedDrop];

    /// The names used by the ns-3 attribute `NotEctMode` and the examples' options.
    pub const NAMES: [&'static str; 3] = ["Accept", "ThresholdDrop", "RedDrop"];

    /// The mode's name.
    pub const fn name(self) -> &'static str {
        match self {
            NotEct::Accept => Self::NAMES[0],
            NotEct::ThresholdDrop => Self::NAMES[1],
            NotEct::RedDrop => Self::NAMES[2],
        }
    }

    /// The mode called `name`, if any.
    pub fn from_name(name: &str) -> Option<NotEct> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The mode at `index` of [`NotEct::ALL`] (its code across the bridge); an unknown code
    /// is an error naming `NotEctMode`, never a silent fallback.
    pub fn from_index(index: u8) -> Result<NotEct, ConfigError> {
        Self::ALL.get(usize::from(index)).copied().ok_or_else(|| {
            ConfigError::new(
                "NotEctMode",
                index,
                format!(
                    "unknown mode: must be 0..{} ({})",
                    Self::ALL.len() - 1,
                    Self::NAMES.join(", ")
                ),
            )
        })
    }
}

/// Marking thresholds for one link speed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EcnThresholds {
    /// Queue length where marking starts (`K_min`).
    pub k_min: Bytes,
    /// Queue length from which every ECN-capable packet is marked (`K_max`).
    pub k_max: Bytes,
    /// Marking probability reached just below `K_max` (`P_max`), in `[0, 1]`.
    pub p_max: f64,
}

impl EcnThresholds {
    /// Checks `k_min ≤ k_max` and `p_max ∈ [0, 1]`, naming the field otherwise.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check_with(self.k_min <= self.k_max, "KMin", self.k_min, || {
            format!("must be <= KMax ({})", self.k_max)
        })?;
        ConfigError::check(
            self.p_max.is_finite() && (0.0..=1.0).contains(&self.p_max),
            "PMax",
            self.p_max,
            "must be a probability in [0, 1]",
        )
    }

    /// Marking probability for an ECN-capable packet arriving at queue length `q`.
    #[inline]
    pub fn mark_probability(&self, q: Bytes) -> f64 {
        if q < self.k_min {
            0.0
        } else if q >= self.k_max {
            1.0
        } else {
            // k_min <= q < k_max, so k_max > k_min here
            (q.0 - self.k_min.0) as f64 / (self.k_max.0 - self.k_min.0) as f64 * self.p_max
        }
    }
}

/// Configuration of one RED/ECN egress queue.
///
/// Errors name the ns-3 attributes (`KMin`, `KFs`, ...); single-field errors from the table
/// name the Rust field (`k_min`), which the bridge renames to the attribute or option.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RedEcnConfig {
    /// Marking thresholds.
    pub ecn: EcnThresholds,
    /// Treatment of Not-ECT packets.
    pub not_ect: NotEct,
    /// Drop threshold `K_fs` of [`NotEct::ThresholdDrop`] ("K" in the LDCP draft).
    pub k_fs: Bytes,
    /// Queue limit `buf_max`: a packet that would take the queue past it is tail-dropped.
    pub buf_max: Bytes,
}

impl Default for RedEcnConfig {
    /// - `K_min` 5 KB, `K_max` 200 KB, `P_max` 1 %: the DCQCN paper's marking for 40 Gb/s links
    ///   (Zhu et al., SIGCOMM 2015), the values its deployment started from.
    /// - Not-ECT packets accepted: without LDCP's fast start, an ECN-incapable packet is
    ///   ordinary traffic.
    /// - `K_fs` 5 KB, the default `K_min`: where the LDCP draft's fast start meets the queue
    ///   the marking already signals (draft-dai-tsvwg-ldcp-01 §2.3; the draft's starting point:
    ///   `rdma-cc-schemes`' marking derives each scheme's own, LDCP's `12·K_min` from a sweep).
    /// - `buf_max` 1 MB: a queue limit above anything the marking lets build, so that tail
    ///   drop is the exception.
    fn default() -> Self {
        const K_MIN: Bytes = Bytes::kb(5);
        RedEcnConfig {
            ecn: EcnThresholds {
                k_min: K_MIN,
                k_max: Bytes::kb(200),
                p_max: 0.01,
            },
            not_ect: NotEct::Accept,
            k_fs: K_MIN,
            buf_max: Bytes::mb(1),
        }
    }
}

const RED_ECN_PARAMS: &[Param<RedEcnConfig>] = &[
    Param {
        spec: ParamSpec::new(
            "k_min",
            "kmin",
            "KMin",
            ParamKind::Bytes,
            "Queue length at which ECN marking starts: below it no packet is marked. Must be \
             <= KMax.",
        ),
        get: |c| ParamValue::Bytes(c.ecn.k_min),
        set: |c, v| c.ecn.k_min = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec::new(
            "k_max",
            "kmax",
            "KMax",
            ParamKind::Bytes,
            "Queue length from which every ECN-capable packet is marked; between KMin and KMax \
             the probability rises linearly to PMax (DCQCN's congestion point).",
        ),
        get: |c| ParamValue::Bytes(c.ecn.k_max),
        set: |c, v| c.ecn.k_max = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            max: Limit::incl(1.0),
            ..ParamSpec::new(
                "p_max",
                "pmax",
                "PMax",
                ParamKind::Real,
                "Marking probability reached just below KMax (DCQCN: 1 % at 40 Gb/s).",
            )
        },
        get: |c| ParamValue::Real(c.ecn.p_max),
        set: |c, v| c.ecn.p_max = v.real(),
    },
    Param {
        spec: ParamSpec {
            choices: &NotEct::NAMES,
            ..ParamSpec::new(
                "not_ect",
                "notEct",
                "NotEctMode",
                ParamKind::Choice,
                "Treatment of Not-ECT packets: Accept (only BufMax applies), ThresholdDrop (drop \
                 when the queue is at or above KFs: LDCP fast start's WRED drop), RedDrop (drop \
                 where an ECT packet would be marked).",
            )
        },
        get: |c| ParamValue::Choice(c.not_ect.name().to_string()),
        set: |c, v| c.not_ect = NotEct::from_name(v.text()).unwrap_or(c.not_ect),
    },
    Param {
        spec: ParamSpec::new(
            "k_fs",
            "kfs",
            "KFs",
            ParamKind::Bytes,
            "WRED drop threshold of Not-ECT packets with NotEctMode ThresholdDrop (\"K\" in the \
             LDCP draft, section 2.3; the default is the default KMin, where a sweep starts). \
             Must be <= BufMax.",
        ),
        get: |c| ParamValue::Bytes(c.k_fs),
        set: |c, v| c.k_fs = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            ..ParamSpec::new(
                "buf_max",
                "bufMax",
                "BufMax",
                ParamKind::Bytes,
                "Queue limit: a packet that would take the queue past it is tail-dropped \
                 (reason queue_full).",
            )
        },
        get: |c| ParamValue::Bytes(c.buf_max),
        set: |c, v| c.buf_max = Bytes(v.int()),
    },
];

impl Params for RedEcnConfig {
    fn params() -> &'static [Param<Self>] {
        RED_ECN_PARAMS
    }
}

impl RedEcnConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        self.ecn.validate()?;
        if self.not_ect == NotEct::ThresholdDrop {
            ConfigError::check_with(self.k_fs <= self.buf_max, "KFs", self.k_fs, || {
                format!("must be <= BufMax ({})", self.buf_max)
            })?;
        }
        Ok(())
    }

    /// Checks an example's marking options ([`Self::validate`]). The error goes through
    /// `name` (which names the example's option), then, when it is about a value in
    /// `derived` (one the user did not give), says it was derived from `derived_from` and to
    /// set the option explicitly.
    pub fn check_given(
        &self,
        derived: DerivedMarking,
        derived_from: &str,
        name: impl FnOnce(ConfigError) -> ConfigError,
    ) -> Result<(), ConfigError> {
        self.validate().map_err(|e| {
            let was_derived = derived.has(&e.field);
            let mut e = name(e);
            if was_derived {
                e.value = format!("{} (not given: derived from {derived_from})", e.value);
                e.requirement = format!("{}; set {} explicitly", e.requirement, e.field);
            }
            e
        })
    }

    /// Validates and builds the policy.
    pub fn build(self) -> Result<RedEcnPolicy, ConfigError> {
        self.validate()?;
        Ok(RedEcnPolicy {
            cfg: self,
            stats: RedEcnStats::default(),
        })
    }
}

/// Which thresholds of an example's marking were derived from other options rather than
/// given by the user ([`RedEcnConfig::check_given`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DerivedMarking {
    /// `K_min` ([`EcnThresholds::k_min`]).
    pub k_min: bool,
    /// `K_max` ([`EcnThresholds::k_max`]).
    pub k_max: bool,
    /// `K_fs` ([`RedEcnConfig::k_fs`]).
    pub k_fs: bool,
}

impl DerivedMarking {
    /// Whether the value of `field` (a name or an attribute of [`RedEcnConfig`]'s table)
    /// was derived.
    pub fn has(&self, field: &str) -> bool {
        let attr = RedEcnConfig::params()
            .iter()
            .map(|p| &p.spec)
            .find(|s| s.name == field || s.attr == field)
            .map(|s| s.attr);
        match attr {
            Some("KMin") => self.k_min,
            Some("KMax") => self.k_max,
            Some("KFs") => self.k_fs,
            _ => false,
        }
    }
}

/// The policy's answer for one arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Enqueue unchanged.
    Enqueue,
    /// Enqueue with the ECN field set to CE.
    Mark,
    /// Drop, for this reason.
    Drop(DropReason),
}

/// Counters kept by a [`RedEcnPolicy`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RedEcnStats {
    /// Packets accepted (marked or not).
    pub enqueued: u64,
    /// Packets accepted with CE set.
    pub marked: u64,
    /// Drops by reason.
    pub drops: DropCounts,
}

impl RedEcnStats {
    /// Drops for all reasons.
    pub fn total_drops(&self) -> u64 {
        self.drops.total()
    }
}

/// A validated RED/ECN + WRED queue policy (one per egress queue).
#[derive(Debug, Clone)]
pub struct RedEcnPolicy {
    cfg: RedEcnConfig,
    stats: RedEcnStats,
}

impl RedEcnPolicy {
    /// The configuration this policy was built from.
    pub fn config(&self) -> &RedEcnConfig {
        &self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> &RedEcnStats {
        &self.stats
    }

    /// Decides the fate of a packet of `size` bytes with ECN codepoint `ecn` arriving at an
    /// egress queue holding `q` bytes. `draw` is a uniform random number in `[0, 1)`.
    #[inline]
    pub fn on_enqueue(&mut self, q: Bytes, size: Bytes, ecn: Ecn, draw: f64) -> Verdict {
        let v = self.decide(q, size, ecn, draw);
        match v {
            Verdict::Enqueue => self.stats.enqueued += 1,
            Verdict::Mark => {
                self.stats.enqueued += 1;
                self.stats.marked += 1;
            }
            Verdict::Drop(r) => self.stats.drops.add(r, 1),
        }
        v
    }

    #[inline]
    fn decide(&self, q: Bytes, size: Bytes, ecn: Ecn, draw: f64) -> Verdict {
        if q.saturating_add(size) > self.cfg.buf_max {
            return Verdict::Drop(DropReason::QueueFull);
        }
        if ecn.is_capable() {
            // DCQCN §3.1 (CP), LDCP draft §2.2: mark with p(q) on the instantaneous queue
            if draw < self.cfg.ecn.mark_probability(q) {
                Verdict::Mark
            } else {
                Verdict::Enqueue
            }
        } else {
            match self.cfg.not_ect {
                // LDCP draft §2.3: Not-ECT (first-RTT) packets are dropped when q >= K_fs
                NotEct::ThresholdDrop if q >= self.cfg.k_fs => {
                    Verdict::Drop(DropReason::NotEctThreshold)
                }
                NotEct::RedDrop if draw < self.cfg.ecn.mark_probability(q) => {
                    Verdict::Drop(DropReason::RedEarlyDrop)
                }
                _ => Verdict::Enqueue,
            }
        }
    }
}

/// Marking thresholds chosen by link speed, as deployed switches configure them (one
/// K_min/K_max/P_max per port speed, as the DCQCN paper's thresholds are given for 40 Gb/s).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SpeedMap {
    entries: Vec<(Rate, EcnThresholds)>,
}

impl SpeedMap {
    /// Builds a map from `(link speed, thresholds)` pairs; each entry is validated and speeds
    /// must be distinct.
    pub fn new(mut entries: Vec<(Rate, EcnThresholds)>) -> Result<SpeedMap, ConfigError> {
        entries.sort_by_key(|e| e.0);
        for w in entries.windows(2) {
            ConfigError::check(
                w[0].0 != w[1].0,
                "EcnMap",
                w[0].0,
                "link speed listed twice",
            )?;
        }
        for (_, t) in &entries {
            t.validate()?;
        }
        Ok(SpeedMap { entries })
    }

    /// Parses `"RATE:KMIN:KMAX:PMAX,..."` with RATE in Gb/s and thresholds in bytes, e.g.
    /// `"25:10000:40000:0.2,100:40000:160000:0.2"`.
    pub fn parse(s: &str) -> Result<SpeedMap, ConfigError> {
        let mut entries = Vec::new();
        for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let parts: Vec<&str> = item.split(':').collect();
            let bad = || {
                ConfigError::new(
                    "EcnMap",
                    item,
                    "each entry must be GBPS:KMIN_BYTES:KMAX_BYTES:PMAX",
                )
            };
            if parts.len() != 4 {
                return Err(bad());
            }
            let gbps: f64 = parts[0].parse().map_err(|_| bad())?;
            if !(gbps.is_finite() && gbps > 0.0) {
                return Err(bad());
            }
            let t = EcnThresholds {
                k_min: Bytes(parts[1].parse().map_err(|_| bad())?),
                k_max: Bytes(parts[2].parse().map_err(|_| bad())?),
                p_max: parts[3].parse().map_err(|_| bad())?,
            };
            entries.push((Rate((gbps * 1e9).round() as u64), t));
        }
        SpeedMap::new(entries)
    }

    /// Thresholds for a link of speed `rate`: the entry with the largest speed not above it
    /// (or the slowest entry when `rate` is below all of them); `None` for an empty map.
    pub fn lookup(&self, rate: Rate) -> Option<EcnThresholds> {
        let idx = self.entries.partition_point(|e| e.0 <= rate);
        self.entries
            .get(idx.saturating_sub(1))
            .map(|e| e.1)
            .or_else(|| self.entries.first().map(|e| e.1))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_derived_thresholds_error_says_where_it_came_from_and_a_given_ones_does_not() {
        let cfg = RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes(50_000),
                k_max: Bytes(20_000),
                p_max: 0.2,
            },
            not_ect: NotEct::ThresholdDrop,
            k_fs: Bytes(1),
            buf_max: Bytes(2_000_000),
        };
        let rename = |mut e: ConfigError| {
            e.field = format!("--{}", e.field.to_lowercase());
            e
        };
        let all = DerivedMarking {
            k_min: true,
            k_max: true,
            k_fs: true,
        };
        let e = cfg.check_given(all, "--rate", rename).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --kmin = 50000 B (not given: derived from --rate): must be <= KMax \
             (20000 B); set --kmin explicitly"
        );
        // only K_max derived: the error is about K_min, given, so no note
        let e = cfg
            .check_given(
                DerivedMarking {
                    k_max: true,
                    ..DerivedMarking::default()
                },
                "--rate",
                rename,
            )
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --kmin = 50000 B: must be <= KMax (20000 B)"
        );
        // a valid marking passes whatever was derived
        let ok = RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes(20_000),
                k_max: Bytes(50_000),
                p_max: 0.2,
            },
            ..cfg
        };
        ok.check_given(all, "--rate", rename).unwrap();
        // fields are found by name or attribute
        assert!(all.has("KFs") && all.has("KMin"));
        assert!(!all.has("PMax") && !all.has("BufMax") && !all.has("nothing"));
    }

    #[test]
    fn not_ect_codes_are_the_order_of_all_and_an_unknown_one_is_refused() {
        assert_eq!(NotEct::from_index(0).unwrap(), NotEct::Accept);
        assert_eq!(NotEct::from_index(1).unwrap(), NotEct::ThresholdDrop);
        assert_eq!(NotEct::from_index(2).unwrap(), NotEct::RedDrop);
        let e = NotEct::from_index(3).unwrap_err();
        assert_eq!(e.field, "NotEctMode");
        assert!(e.to_string().contains("unknown mode"), "{e}");
    }

    use super::*;
    use proptest::prelude::*;

    fn cfg(k_min: u64, k_max: u64, p_max: f64, not_ect: NotEct) -> RedEcnConfig {
        RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes(k_min),
                k_max: Bytes(k_max),
                p_max,
            },
            not_ect,
            k_fs: Bytes(k_min),
            buf_max: Bytes(100_000),
        }
    }

    fn threshold_drop(k_min: u64, k_max: u64, p_max: f64, k_fs: u64) -> RedEcnConfig {
        RedEcnConfig {
            k_fs: Bytes(k_fs),
            ..cfg(k_min, k_max, p_max, NotEct::ThresholdDrop)
        }
    }

    #[test]
    fn below_kmin_never_marks() {
        let mut p = cfg(10_000, 40_000, 0.2, NotEct::Accept).build().unwrap();
        assert_eq!(
            p.on_enqueue(Bytes(9_999), Bytes(1000), Ecn::Ect0, 0.0),
            Verdict::Enqueue
        );
    }

    #[test]
    fn probability_is_linear_between_kmin_and_kmax() {
        let t = cfg(10_000, 40_000, 0.2, NotEct::Accept).ecn;
        assert_eq!(t.mark_probability(Bytes(10_000)), 0.0);
        assert!((t.mark_probability(Bytes(25_000)) - 0.1).abs() < 1e-12);
        assert!((t.mark_probability(Bytes(39_999)) - 0.2 * 29_999.0 / 30_000.0).abs() < 1e-12);
        assert_eq!(t.mark_probability(Bytes(40_000)), 1.0);
    }

    #[test]
    fn draw_below_probability_marks() {
        let mut p = cfg(10_000, 40_000, 0.2, NotEct::Accept).build().unwrap();
        // p(25 KB) = 0.1
        assert_eq!(
            p.on_enqueue(Bytes(25_000), Bytes(1000), Ecn::Ect1, 0.099),
            Verdict::Mark
        );
        assert_eq!(
            p.on_enqueue(Bytes(25_000), Bytes(1000), Ecn::Ect1, 0.101),
            Verdict::Enqueue
        );
        assert_eq!(p.stats().marked, 1);
        assert_eq!(p.stats().enqueued, 2);
    }

    #[test]
    fn at_or_above_kmax_always_marks() {
        let mut p = cfg(10_000, 40_000, 0.2, NotEct::Accept).build().unwrap();
        assert_eq!(
            p.on_enqueue(Bytes(40_000), Bytes(1000), Ecn::Ect0, 0.999_999),
            Verdict::Mark
        );
    }

    #[test]
    fn dctcp_step_marking_with_equal_thresholds() {
        // K_min = K_max = K, P_max = 1 mimics DCTCP (DCQCN §3.1)
        let t = cfg(30_000, 30_000, 1.0, NotEct::Accept).ecn;
        assert_eq!(t.mark_probability(Bytes(29_999)), 0.0);
        assert_eq!(t.mark_probability(Bytes(30_000)), 1.0);
    }

    #[test]
    fn not_ect_dropped_at_kfs_and_never_marked() {
        let mut p = threshold_drop(10_000, 40_000, 0.2, 20_000).build().unwrap();
        assert_eq!(
            p.on_enqueue(Bytes(19_999), Bytes(1000), Ecn::NotEct, 0.0),
            Verdict::Enqueue
        );
        assert_eq!(
            p.on_enqueue(Bytes(20_000), Bytes(1000), Ecn::NotEct, 0.999),
            Verdict::Drop(DropReason::NotEctThreshold)
        );
        // ECT packets at the same queue length are marked (p = 1/3 * 0.2), not dropped
        assert_eq!(
            p.on_enqueue(Bytes(20_000), Bytes(1000), Ecn::Ect0, 0.0),
            Verdict::Mark
        );
        assert_eq!(p.stats().drops.not_ect_threshold, 1);
    }

    #[test]
    fn red_drop_drops_not_ect_where_ect_would_be_marked() {
        let mut p = cfg(10_000, 40_000, 0.2, NotEct::RedDrop).build().unwrap();
        assert_eq!(
            p.on_enqueue(Bytes(25_000), Bytes(1000), Ecn::NotEct, 0.05),
            Verdict::Drop(DropReason::RedEarlyDrop)
        );
        assert_eq!(
            p.on_enqueue(Bytes(25_000), Bytes(1000), Ecn::NotEct, 0.5),
            Verdict::Enqueue
        );
    }

    #[test]
    fn tail_drop_when_packet_would_exceed_buf_max() {
        let mut p = cfg(10_000, 40_000, 0.2, NotEct::Accept).build().unwrap();
        assert_eq!(
            p.on_enqueue(Bytes(99_000), Bytes(1000), Ecn::Ect0, 0.5),
            Verdict::Mark
        );
        assert_eq!(
            p.on_enqueue(Bytes(99_001), Bytes(1000), Ecn::Ect0, 0.5),
            Verdict::Drop(DropReason::QueueFull)
        );
    }

    #[test]
    fn validate_names_the_bad_field() {
        let e = cfg(50_000, 40_000, 0.2, NotEct::Accept)
            .validate()
            .unwrap_err();
        assert_eq!(e.field, "KMin");
        assert!(e.to_string().contains("50000"));
        // single-field bounds come from the table and name the Rust field (the bridge
        // renames it to the attribute or option)
        let e = cfg(1, 2, 1.5, NotEct::Accept).validate().unwrap_err();
        assert_eq!(e.field, "p_max");
        let e = cfg(1, 2, f64::NAN, NotEct::Accept).validate().unwrap_err();
        assert_eq!(e.field, "p_max");
        // the thresholds alone (speed maps) name the attribute
        let e = cfg(1, 2, 1.5, NotEct::Accept).ecn.validate().unwrap_err();
        assert_eq!(e.field, "PMax");
        let e = threshold_drop(1, 2, 0.1, 200_000).validate().unwrap_err();
        assert_eq!(e.field, "KFs");
        assert_eq!(
            e.to_string(),
            "invalid KFs = 200000 B: must be <= BufMax (100000 B)"
        );
        let e = cfg(1, 2, 0.1, NotEct::Accept);
        let e = RedEcnConfig {
            buf_max: Bytes::ZERO,
            ..e
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "buf_max");
        // the table's bound rejects 0 (before any relation between fields is checked)
        assert_eq!(
            e.to_string(),
            "invalid buf_max = 0: must be a whole number of bytes >= 1"
        );
        let e = RedEcnConfig {
            buf_max: Bytes::ZERO,
            not_ect: NotEct::ThresholdDrop,
            ..cfg(1, 2, 0.1, NotEct::Accept)
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid buf_max = 0: must be a whole number of bytes >= 1"
        );
    }

    #[test]
    fn table_defaults_are_valid_and_print_as_they_parse() {
        let d = RedEcnConfig::default();
        d.validate().unwrap();
        for (i, p) in RedEcnConfig::params().iter().enumerate() {
            let v = d.get_param(i).unwrap();
            p.spec.check(&v, p.spec.name).unwrap();
            assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
            assert!(!p.spec.help.is_empty());
        }
        let mut c = d;
        let mode = RedEcnConfig::params()
            .iter()
            .position(|p| p.spec.attr == "NotEctMode")
            .unwrap();
        c.set_param(mode, &ParamValue::Choice("RedDrop".into()))
            .unwrap();
        assert_eq!(c.not_ect, NotEct::RedDrop);
        assert!(c
            .set_param(mode, &ParamValue::Choice("Sometimes".into()))
            .is_err());
        assert_eq!(
            NotEct::from_name("ThresholdDrop"),
            Some(NotEct::ThresholdDrop)
        );
    }

    #[test]
    fn speed_map_picks_entry_for_link_speed() {
        let m = SpeedMap::parse("25:10000:40000:0.2, 100:40000:160000:0.2").unwrap();
        assert_eq!(m.lookup(Rate::gbps(100)).unwrap().k_min, Bytes(40_000));
        assert_eq!(m.lookup(Rate::gbps(400)).unwrap().k_min, Bytes(40_000));
        assert_eq!(m.lookup(Rate::gbps(40)).unwrap().k_min, Bytes(10_000));
        assert_eq!(m.lookup(Rate::gbps(10)).unwrap().k_min, Bytes(10_000));
        assert!(SpeedMap::default().lookup(Rate::gbps(10)).is_none());
    }

    #[test]
    fn speed_map_rejects_malformed_entries() {
        assert_eq!(SpeedMap::parse("25:1:2").unwrap_err().field, "EcnMap");
        assert_eq!(SpeedMap::parse("x:1:2:0.1").unwrap_err().field, "EcnMap");
        assert_eq!(SpeedMap::parse("25:3:2:0.1").unwrap_err().field, "KMin");
        assert_eq!(
            SpeedMap::parse("25:1:2:0.1,25:1:2:0.1").unwrap_err().field,
            "EcnMap"
        );
    }

    proptest! {
        #[test]
        fn probability_in_unit_interval_and_monotone(
            k_min in 0u64..100_000, span in 0u64..100_000, p_max in 0.0f64..=1.0,
            q1 in 0u64..300_000, q2 in 0u64..300_000,
        ) {
            let t = EcnThresholds { k_min: Bytes(k_min), k_max: Bytes(k_min + span), p_max };
            let (lo, hi) = if q1 <= q2 { (q1, q2) } else { (q2, q1) };
            let (plo, phi) = (t.mark_probability(Bytes(lo)), t.mark_probability(Bytes(hi)));
            prop_assert!((0.0..=1.0).contains(&plo) && (0.0..=1.0).contains(&phi));
            prop_assert!(plo <= phi);
        }

        #[test]
        fn accepted_packets_never_exceed_buf_max(
            q in 0u64..200_000, size in 1u64..10_000, ecn in 0u8..4, draw in 0.0f64..1.0,
        ) {
            let mut p = threshold_drop(10_000, 40_000, 0.2, 10_000).build().unwrap();
            let v = p.on_enqueue(Bytes(q), Bytes(size), Ecn::from_bits(ecn), draw);
            if v != Verdict::Drop(DropReason::QueueFull) && !matches!(v, Verdict::Drop(DropReason::NotEctThreshold)) {
                prop_assert!(q + size <= 100_000);
            }
            if Ecn::from_bits(ecn) == Ecn::NotEct {
                prop_assert!(v != Verdict::Mark);
            }
            let s = p.stats();
            prop_assert_eq!(s.enqueued + s.total_drops(), 1);
        }
    }
}
