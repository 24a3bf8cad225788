//! Sans-IO switch queue policies.
//!
//! - [`red`]: RED/ECN marking on the instantaneous egress queue and WRED threshold drop of
//!   Not-ECT packets at `K_fs` (LDCP fast start), answering each enqueue with a [`red::Verdict`].
//! - [`routing`]: shortest-path next hops from the topology and per-flow ECMP.
//! - [`core`]: one switch's decisions per packet (route, egress policy, MMU, PFC), combining the above.
//! - [`mmu`]: shared-buffer accounting with PFC (static or dynamic XOFF, XON hysteresis,
//!   headroom), answering each arrival and departure with admission and Pause/Resume decisions.
//!
//! The host (the ns-3 module) owns packets and queues; it passes in queue lengths, packet
//! metadata and random draws, and acts on the verdicts. Nothing here reads a clock or an RNG.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod core;
pub mod mmu;
pub mod red;
pub mod routing;

pub use rdma_cc_core::Ecn;

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
}

impl DropReason {
    /// All reasons, in their numeric order.
    pub const ALL: [DropReason; 6] = [
        DropReason::QueueFull,
        DropReason::BufferFull,
        DropReason::NotEctThreshold,
        DropReason::RedEarlyDrop,
        DropReason::HeadroomOverrun,
        DropReason::NoRoute,
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
        }
    }
}
