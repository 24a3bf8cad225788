//! Sans-IO switch queue policies.
//!
//! - [`red`]: RED/ECN marking on the instantaneous egress queue and WRED threshold drop of
//!   Not-ECT packets at `K_fs` (LDCP fast start), answering each enqueue with a [`red::Verdict`].
//! - [`routing`]: shortest-path next hops from the topology and per-flow ECMP.
//! - [`core`]: one switch's decisions per packet (route, egress policy, MMU, PFC), combining the above.
//! - [`mmu`]: shared-buffer accounting with PFC (static or dynamic XOFF, XON hysteresis,
//!   headroom), answering each arrival and departure with admission and Pause/Resume decisions.
//! - [`sched`]: the egress scheduler of one port (a switch port or a host NIC's transmit side):
//!   strict priority for the control class, then round robin, DWRR or strict priority among the
//!   8 data classes.
//!
//! The host (the ns-3 module) owns packets and queues; it passes in queue lengths, packet
//! metadata and random draws, and acts on the verdicts. Nothing here reads a clock or an RNG.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod core;
#[cfg(any(test, feature = "fixtures"))]
#[doc(hidden)]
pub mod fixtures;
pub mod flows;
pub mod mechanism;
pub mod mmu;
pub mod red;
pub mod routing;
pub mod sched;
pub mod window;

pub use rdma_cc_core::{Ecn, PacketKind};

/// Why a switch dropped a packet. Reported per reason in every run's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum DropReason {
    /// The egress queue would exceed its limit (`buf_max`): tail drop.
    QueueFull = 0,
    /// The shared buffer has no room left for a lossy packet.
    BufferFull = 1,
    /// A Not-ECT packet found the queue at or above `K_fs` (WRED threshold drop).
    NotEctThreshold = 2,
    /// A Not-ECT packet was chosen by RED where an ECN-capable one would have been marked
    /// (classic RED without ECN support).
    RedEarlyDrop = 3,
    /// A lossless (PFC) priority overran its headroom: a configuration error.
    HeadroomOverrun = 4,
    /// The switch has no route to the packet's destination.
    NoRoute = 5,
    /// A control frame found the switch's control pool full (see
    /// [`core::SwitchCore::new`]): with an adequate pool this never happens.
    Control = 6,
}

impl DropReason {
    /// All reasons, in their numeric order (the order of every per-reason listing).
    pub const ALL: [DropReason; 7] = [
        DropReason::QueueFull,
        DropReason::BufferFull,
        DropReason::NotEctThreshold,
        DropReason::RedEarlyDrop,
        DropReason::HeadroomOverrun,
        DropReason::NoRoute,
        DropReason::Control,
    ];

    /// Stable snake-case name used in output files.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::BufferFull => "buffer_full",
            DropReason::NotEctThreshold => "not_ect_threshold",
            DropReason::RedEarlyDrop => "red_early_drop",
            DropReason::HeadroomOverrun => "headroom_overrun",
            DropReason::NoRoute => "no_route",
            DropReason::Control => "control",
        }
    }
}

/// A count per [`DropReason`] (packets or bytes), one named field per reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// [`DropReason::QueueFull`].
    pub queue_full: u64,
    /// [`DropReason::BufferFull`].
    pub buffer_full: u64,
    /// [`DropReason::NotEctThreshold`].
    pub not_ect_threshold: u64,
    /// [`DropReason::RedEarlyDrop`].
    pub red_early_drop: u64,
    /// [`DropReason::HeadroomOverrun`].
    pub headroom_overrun: u64,
    /// [`DropReason::NoRoute`].
    pub no_route: u64,
    /// [`DropReason::Control`].
    pub control: u64,
}

impl DropCounts {
    fn slot(&mut self, r: DropReason) -> &mut u64 {
        match r {
            DropReason::QueueFull => &mut self.queue_full,
            DropReason::BufferFull => &mut self.buffer_full,
            DropReason::NotEctThreshold => &mut self.not_ect_threshold,
            DropReason::RedEarlyDrop => &mut self.red_early_drop,
            DropReason::HeadroomOverrun => &mut self.headroom_overrun,
            DropReason::NoRoute => &mut self.no_route,
            DropReason::Control => &mut self.control,
        }
    }

    /// The count of reason `r`.
    pub fn get(&self, r: DropReason) -> u64 {
        match r {
            DropReason::QueueFull => self.queue_full,
            DropReason::BufferFull => self.buffer_full,
            DropReason::NotEctThreshold => self.not_ect_threshold,
            DropReason::RedEarlyDrop => self.red_early_drop,
            DropReason::HeadroomOverrun => self.headroom_overrun,
            DropReason::NoRoute => self.no_route,
            DropReason::Control => self.control,
        }
    }

    /// Adds `n` to reason `r` (saturating).
    #[inline]
    pub fn add(&mut self, r: DropReason, n: u64) {
        let s = self.slot(r);
        *s = s.saturating_add(n);
    }

    /// The sum over every reason.
    pub fn total(&self) -> u64 {
        DropReason::ALL.iter().map(|&r| self.get(r)).sum()
    }

    /// `(reason, count)` for every reason, in [`DropReason::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (DropReason, u64)> + '_ {
        DropReason::ALL.iter().map(move |&r| (r, self.get(r)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_counts_have_one_field_per_reason() {
        let mut c = DropCounts::default();
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(*r as usize, i, "ALL is in numeric order");
            c.add(*r, i as u64 + 1);
        }
        for (i, (r, n)) in c.iter().enumerate() {
            assert_eq!((r, n), (DropReason::ALL[i], i as u64 + 1));
        }
        assert_eq!(c.total(), 28);
        assert_eq!(c.control, 7);
        let names: Vec<_> = DropReason::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(
            names,
            [
                "queue_full",
                "buffer_full",
                "not_ect_threshold",
                "red_early_drop",
                "headroom_overrun",
                "no_route",
                "control"
            ]
        );
    }
}
