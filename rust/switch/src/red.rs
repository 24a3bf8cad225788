//! RED/ECN marking on the instantaneous egress queue, and WRED threshold drop of Not-ECT
//! packets (LDCP fast start).
//!
//! Rules (ldcp.md "Roles", dcqcn.md "CP"), with `q` the egress queue length in bytes *before*
//! the arriving packet is added:
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
//! Boundaries follow ldcp.md (`q = K_max` marks with probability 1). The DCQCN paper writes
//! `K_min < q ≤ K_max` for the linear part; the two differ only at the single byte value
//! `q = K_max`, and the project uses one convention for every scheme (documented in the README).
//!
//! The random draw is the caller's (one uniform in `[0, 1)` per packet from an ns-3 random
//! stream), so runs are reproducible and this code holds no RNG.

use crate::{DropCounts, DropReason, Ecn};
use rdma_cc_core::{Bytes, ConfigError, Rate};
use serde::{Deserialize, Serialize};

/// What happens to Not-ECT (ECN-incapable) packets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum NotEct {
    /// WRED threshold drop at `k_fs` bytes (LDCP: first-RTT packets are Not-ECT).
    ThresholdDrop {
        /// Drop threshold `K_fs` ("K" in the LDCP draft).
        k_fs: Bytes,
    },
    /// Classic RED: drop where an ECN-capable packet would have been marked.
    RedDrop,
    /// Enqueue without any early drop (only `buf_max` applies).
    Accept,
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
        ConfigError::check(
            self.k_min <= self.k_max,
            "KMin",
            self.k_min,
            &format!("must be <= KMax ({})", self.k_max),
        )?;
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
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RedEcnConfig {
    /// Marking thresholds.
    pub ecn: EcnThresholds,
    /// Treatment of Not-ECT packets.
    pub not_ect: NotEct,
    /// Queue limit `buf_max`: a packet that would take the queue past it is tail-dropped.
    pub buf_max: Bytes,
}

impl Default for RedEcnConfig {
    /// DCQCN's 40 Gb/s marking (dcqcn.md: K_min 5 KB, K_max 200 KB, P_max 1 %), Not-ECT packets
    /// accepted, and a 1 MB queue limit.
    fn default() -> Self {
        RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes::kb(5),
                k_max: Bytes::kb(200),
                p_max: 0.01,
            },
            not_ect: NotEct::Accept,
            buf_max: Bytes::mb(1),
        }
    }
}

impl RedEcnConfig {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.ecn.validate()?;
        ConfigError::check(
            self.buf_max > Bytes::ZERO,
            "BufMax",
            self.buf_max,
            "must be > 0",
        )?;
        if let NotEct::ThresholdDrop { k_fs } = self.not_ect {
            ConfigError::check(
                k_fs <= self.buf_max,
                "KFs",
                k_fs,
                &format!("must be <= BufMax ({})", self.buf_max),
            )?;
        }
        Ok(())
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
            // ldcp.md / dcqcn.md CP: mark with p(q) on the instantaneous queue
            if draw < self.cfg.ecn.mark_probability(q) {
                Verdict::Mark
            } else {
                Verdict::Enqueue
            }
        } else {
            match self.cfg.not_ect {
                // ldcp.md: Not-ECT (first-RTT) packets are dropped when q >= K_fs
                NotEct::ThresholdDrop { k_fs } if q >= k_fs => {
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

/// Marking thresholds chosen by link speed, as deployed switches configure them
/// (dcqcn.md: "per-link-speed maps of K_min/K_max/P_max").
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
            buf_max: Bytes(100_000),
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
        // K_min = K_max = K, P_max = 1 mimics DCTCP (dcqcn.md CP)
        let t = cfg(30_000, 30_000, 1.0, NotEct::Accept).ecn;
        assert_eq!(t.mark_probability(Bytes(29_999)), 0.0);
        assert_eq!(t.mark_probability(Bytes(30_000)), 1.0);
    }

    #[test]
    fn not_ect_dropped_at_kfs_and_never_marked() {
        let mut p = cfg(
            10_000,
            40_000,
            0.2,
            NotEct::ThresholdDrop {
                k_fs: Bytes(20_000),
            },
        )
        .build()
        .unwrap();
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
        let e = cfg(1, 2, 1.5, NotEct::Accept).validate().unwrap_err();
        assert_eq!(e.field, "PMax");
        let e = cfg(1, 2, f64::NAN, NotEct::Accept).validate().unwrap_err();
        assert_eq!(e.field, "PMax");
        let e = cfg(
            1,
            2,
            0.1,
            NotEct::ThresholdDrop {
                k_fs: Bytes(200_000),
            },
        )
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "KFs");
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
            let mut p = cfg(10_000, 40_000, 0.2, NotEct::ThresholdDrop { k_fs: Bytes(10_000) })
                .build().unwrap();
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
