//! The RED/ECN queue policy of a queue disc ([`RedEcn`]) and the drop reasons' names.

use super::params::{red_attr, RedEcnParams};
use super::{action_of, DropCount, DropCounters, DropReason, EnqueueVerdict, RedEcnCounters};
use rdma_cc_core::{Bytes, ConfigError};
use rdma_cc_switch::red::RedEcnPolicy;
use rdma_cc_switch::{DropCounts, DropReason as Reason, Ecn};

/// Opaque handle owning a [`RedEcnPolicy`].
pub struct RedEcn(RedEcnPolicy);

pub(super) fn red_ecn_new(p: &RedEcnParams) -> Result<Box<RedEcn>, ConfigError> {
    Ok(Box::new(RedEcn(p.0.build().map_err(red_attr)?)))
}

impl RedEcn {
    #[inline]
    pub(super) fn on_enqueue(
        &mut self,
        queue_bytes: u64,
        size: u64,
        ecn: u8,
        draw: f64,
    ) -> EnqueueVerdict {
        let v = self
            .0
            .on_enqueue(Bytes(queue_bytes), Bytes(size), Ecn::from_bits(ecn), draw);
        let (action, reason) = action_of(v.into());
        EnqueueVerdict { action, reason }
    }

    pub(super) fn mark_probability(&self, queue_bytes: u64) -> f64 {
        self.0.config().ecn.mark_probability(Bytes(queue_bytes))
    }

    pub(super) fn counters(&self) -> RedEcnCounters {
        let s = self.0.stats();
        RedEcnCounters {
            enqueued: s.enqueued,
            marked: s.marked,
            drops: (&s.drops).into(),
        }
    }
}

pub(super) fn drop_reason_name(reason: DropReason) -> &'static str {
    Reason::ALL
        .iter()
        .find(|&&r| DropReason::from(r) == reason)
        .map_or("", |r| r.name())
}

pub(super) fn drop_reasons() -> Vec<DropReason> {
    Reason::ALL.iter().map(|&r| r.into()).collect()
}

pub(super) fn drop_list(c: &DropCounters) -> Vec<DropCount> {
    DropCounts::from(c)
        .iter()
        .map(|(r, count)| DropCount {
            name: r.name().to_string(),
            count,
        })
        .collect()
}
