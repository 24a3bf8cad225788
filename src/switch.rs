//! Bridge for switch queue policies (`rdma-cc-switch`).

use rdma_cc_core::Bytes;
use rdma_cc_switch::red::{EcnThresholds, NotEct, RedEcnConfig, RedEcnPolicy, Verdict};
use rdma_cc_switch::{DropReason, Ecn};

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// How Not-ECT packets are treated by a RED/ECN queue.
    #[repr(u8)]
    enum NotEctMode {
        /// Enqueue; only the queue limit applies.
        Accept = 0,
        /// WRED threshold drop at `k_fs` (LDCP fast start).
        ThresholdDrop = 1,
        /// Classic RED: drop where an ECT packet would be marked.
        RedDrop = 2,
    }

    /// RED/ECN queue parameters, as the ns-3 attributes give them (bytes, probability).
    #[derive(Clone, Copy)]
    struct RedEcnParams {
        k_min: u64,
        k_max: u64,
        p_max: f64,
        not_ect: NotEctMode,
        k_fs: u64,
        buf_max: u64,
    }

    /// Verdict for one packet. `action`: 0 enqueue, 1 enqueue marked (CE), 2 drop with
    /// `reason` (see `drop_reason_name`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct EnqueueVerdict {
        action: u8,
        reason: u8,
    }

    /// Counters of one RED/ECN queue; `drops` indexed by reason.
    #[derive(Debug, Clone, Copy)]
    struct RedEcnCounters {
        enqueued: u64,
        marked: u64,
        drops: [u64; 5],
    }

    extern "Rust" {
        /// One RED/ECN + WRED egress queue policy.
        type RedEcn;
        /// Validates `p` and builds the policy; the error names the bad attribute.
        fn red_ecn_new(p: &RedEcnParams) -> Result<Box<RedEcn>>;
        /// Decides for a packet of `size` bytes with ECN bits `ecn` arriving at a queue of
        /// `queue_bytes`; `draw` is uniform in [0, 1).
        fn on_enqueue(
            self: &mut RedEcn,
            queue_bytes: u64,
            size: u64,
            ecn: u8,
            draw: f64,
        ) -> EnqueueVerdict;
        /// Marking probability at queue length `queue_bytes` for an ECN-capable packet.
        fn mark_probability(self: &RedEcn, queue_bytes: u64) -> f64;
        /// Counters so far.
        fn counters(self: &RedEcn) -> RedEcnCounters;
        /// Stable name of drop reason `reason` (e.g. "not_ect_threshold"), "" if unknown.
        fn drop_reason_name(reason: u8) -> &'static str;
        /// Number of drop reasons.
        fn drop_reason_count() -> u8;
    }
}

pub use ffi::{EnqueueVerdict, NotEctMode, RedEcnCounters, RedEcnParams};

/// Opaque handle owning a [`RedEcnPolicy`].
pub struct RedEcn(RedEcnPolicy);

impl TryFrom<&RedEcnParams> for RedEcnConfig {
    type Error = rdma_cc_core::ConfigError;
    fn try_from(p: &RedEcnParams) -> Result<Self, Self::Error> {
        let not_ect = match p.not_ect {
            NotEctMode::Accept => NotEct::Accept,
            NotEctMode::ThresholdDrop => NotEct::ThresholdDrop {
                k_fs: Bytes(p.k_fs),
            },
            NotEctMode::RedDrop => NotEct::RedDrop,
            other => {
                return Err(rdma_cc_core::ConfigError::new(
                    "NotEctMode",
                    other.repr,
                    "must be Accept, ThresholdDrop or RedDrop",
                ))
            }
        };
        Ok(RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes(p.k_min),
                k_max: Bytes(p.k_max),
                p_max: p.p_max,
            },
            not_ect,
            buf_max: Bytes(p.buf_max),
        })
    }
}

fn red_ecn_new(p: &RedEcnParams) -> Result<Box<RedEcn>, rdma_cc_core::ConfigError> {
    let cfg = RedEcnConfig::try_from(p)?;
    Ok(Box::new(RedEcn(cfg.build()?)))
}

impl RedEcn {
    #[inline]
    fn on_enqueue(&mut self, queue_bytes: u64, size: u64, ecn: u8, draw: f64) -> EnqueueVerdict {
        match self
            .0
            .on_enqueue(Bytes(queue_bytes), Bytes(size), Ecn::from_bits(ecn), draw)
        {
            Verdict::Enqueue => EnqueueVerdict {
                action: 0,
                reason: 0,
            },
            Verdict::Mark => EnqueueVerdict {
                action: 1,
                reason: 0,
            },
            Verdict::Drop(r) => EnqueueVerdict {
                action: 2,
                reason: r as u8,
            },
        }
    }

    fn mark_probability(&self, queue_bytes: u64) -> f64 {
        self.0.config().ecn.mark_probability(Bytes(queue_bytes))
    }

    fn counters(&self) -> RedEcnCounters {
        let s = self.0.stats();
        RedEcnCounters {
            enqueued: s.enqueued,
            marked: s.marked,
            drops: s.drops,
        }
    }
}

fn drop_reason_name(reason: u8) -> &'static str {
    DropReason::ALL
        .get(reason as usize)
        .map_or("", |r| r.name())
}

fn drop_reason_count() -> u8 {
    DropReason::ALL.len() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RedEcnParams {
        RedEcnParams {
            k_min: 10_000,
            k_max: 40_000,
            p_max: 0.2,
            not_ect: NotEctMode::ThresholdDrop,
            k_fs: 20_000,
            buf_max: 100_000,
        }
    }

    #[test]
    fn bridge_rejects_kmin_above_kmax_naming_attribute() {
        let mut p = params();
        p.k_min = 50_000;
        let e = red_ecn_new(&p).err().expect("must fail");
        assert!(e.to_string().starts_with("invalid KMin = 50000 B"), "{e}");
    }

    #[test]
    fn bridge_maps_verdicts_to_codes() {
        let mut q = red_ecn_new(&params()).unwrap();
        assert_eq!(q.on_enqueue(0, 1000, 2, 0.5).action, 0);
        assert_eq!(q.on_enqueue(40_000, 1000, 2, 0.5).action, 1);
        let d = q.on_enqueue(20_000, 1000, 0, 0.5);
        assert_eq!(
            (d.action, drop_reason_name(d.reason)),
            (2, "not_ect_threshold")
        );
        let c = q.counters();
        assert_eq!((c.enqueued, c.marked, c.drops[2]), (2, 1, 1));
    }

    #[test]
    fn drop_reason_names_cover_all_codes() {
        for i in 0..drop_reason_count() {
            assert!(!drop_reason_name(i).is_empty());
        }
        assert_eq!(drop_reason_name(drop_reason_count()), "");
    }
}
