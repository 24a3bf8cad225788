//! RCM, regional congestion mitigation in the switches of a lossless (PFC) fabric: Liu et al.,
//! "Regional Congestion Mitigation in Lossless Datacenter Networks", NPC 2017 (the paper's
//! sections are cited as §).
//!
//! RCM acts inside switches, on top of an end-to-end scheme (DCQCN in the paper), to stop
//! congestion spreading faster than end-to-end control can: a switch port that detects
//! congestion tells its upstream neighbour, with the IDs of the harmful flows; the neighbour
//! slows those flows only, at its output port (the edge of the congestion region), and
//! switches in the region route other flows around it. One module per mechanism, each
//! sans-IO (time passed in, deadlines returned) and testable alone:
//!
//! - [`crd`] — congestion region detection (§3.2): a QCN-like congestion point on every input
//!   and output queue (`Fb = Q_off + w_q·Q_delta`, eq. 1, quantised), the local and remote
//!   flags with their hold timer, and the point's role (root, edge, inner).
//! - [`cn`] — congestion notification (§3.2): when an input queue sends one upstream, and
//!   what it carries (the regional degree `Fb' = (1 − w)·Fb + w·Fb_r`, eq. 2, and the harmful
//!   flows' IDs).
//! - [`cfr`] — congestion flow recognition (§3.3): the cyclic CAM of sampled flow IDs per
//!   output queue.
//! - [`rcc`] — regional congestion control (§3.4): the `W = W_c + W_nc` window of an output
//!   queue, its budget with the multiplicative cut `W_c ← W_c·(1 − Fb·G_d)` (eq. 3–6) and the
//!   window that holds congestion-flow packets once `W_c` is spent.
//! - [`sar`] — switch-level adaptive routing (§3.4): the least congested equal-cost port for
//!   flows that are not congestion flows.
//! - [`switch`] — one switch's RCM: the above wired together per port and priority, as the
//!   simulator's switch drives it ([`RcmSwitch`]).
//! - [`node`] — RCM as the switch core's mechanism (`rdma_cc_switch::mechanism`), and the
//!   configuration of a switch that may run it ([`RcmNodeConfig`]).
//! - [`config`] — every parameter ([`RcmConfig`], with its parameter table) and the values in
//!   effect ([`RcmParams`]).
//!
//! # Decisions (the paper leaves these open; each is configurable where it is a value)
//!
//! - Granularity: every queue point (input and output) is per port *and per priority*, as
//!   PFC's lossless classes are separate queues; a CN names its priority.
//! - `Q_eq` = 20 KB (1.6 µs at 100 Gb/s), `w_q` = 2 (QCN's), `w` = 0.5.
//! - Sampling ([`crd`]): every `sample_bytes` = 150 KB of arrivals while uncongested, shrinking
//!   after a positive `Fb` to `sample_bytes / (1 + 9·Fb/Fb_max)` (QCN's 1 %–10 %);
//!   deterministic.
//! - Quantisation ([`crd`]): `Fb_max` = 63 (6 bits) quanta of `Q_eq/8`; a positive `Fb` rounds
//!   up (congested ⇔ degree ≥ 1). `G_d = 1/(2·Fb_max)`.
//! - Flags ([`crd`]): set by a positive `Fb` / a CN, cleared `hold` = 20 µs after the last
//!   one; a non-positive sample does not clear the local flag early.
//! - CN timing ([`cn`]): at the first detection, then at most one per `cn_interval` = 10 µs
//!   while the input queue's flag holds (repeats by timer too). CNs go only to ports whose
//!   neighbour is a switch.
//! - CN content ([`switch`]): an input queue reports the output queue of its priority that is
//!   most congested (congested first, then by regional degree, then by queue length): `Fb'`
//!   from the input queue's `Fb` and that output queue's `Fb_r`; its CN's flows (edge, inner)
//!   or its CAM's congestion flows (root, or an uncongested queue).
//! - CFR ([`cfr`]): CAM depth 16, one in 8 departures sampled, the gap to the next sample
//!   drawn from a fixed xorshift sequence, uniform in `[1, 15]` (`cfr_jitter`, default on:
//!   periodic sampling aliases with two input ports whose packets alternate, and then sees
//!   only one of them — measured in rcm-burst, where it recognised the incast instead of the
//!   burst; off: exactly every 8th); a flow is a
//!   congestion flow when it fills at least `cfr_min_hits` entries (default 1: membership, as
//!   the paper; a larger value keeps only the heaviest flows when a queue carries a few heavy
//!   flows among many light ones).
//! - RCC ([`rcc`]): `W` = the bytes of `window_time` = 10 µs at line rate; at activation `W_c`
//!   = the congestion flows' share of the queue's CAM entries (an estimate of their share of
//!   the recent traffic) times `W`; a congestion event is a CN or the *rising* of the local
//!   flag (a detection; later positive samples of the same episode do not cut again), and
//!   activation is itself an event (activate, then cut). A cut never exceeds 50 % and rounds
//!   up; at edge and inner points `W_c` grows by a step after each `rcc_recover_time` without
//!   a congestion event (a root's does not). A window also ends when no
//!   non-congestion packet is
//!   waiting (work conserving). Edge and inner points hold the flows the CN named; a root its
//!   CAM's (reported again when a congested sample finds them changed). The switch decides
//!   the budget `(W, W_c)` and the congestion flows; the port's scheduler enforces them where
//!   the packets are: it sets a congestion flow's packets apart when they reach the head of
//!   its queue (so RCC applies at once to packets queued before it started, as the paper's
//!   virtual output queues allow) and keeps each flow in order (only congestion flows'
//!   packets are set apart, each as it reaches the head; when the congestion flows change,
//!   the set-apart packets of the others return to the first FIFO in arrival order). The output queue's congestion
//!   point, and the switch's RED/ECN marking, see the queue without the packets held apart
//!   (in the paper's input-and-output-queued switch they wait in the input queues, whose
//!   congestion points do see them).
//! - RCC options (chosen by measurement on rcm-burst and rcm-victim, see the README):
//!   `rcc_recover_time` / `rcc_recover_step` (10 µs, `W/16`: on), at edge and inner points
//!   `W_c` grows by a step of `W` when no congestion event came for that time; `rcc_timed`
//!   (off), an edge or inner point paces its held flows with a window of `window_time` in
//!   which they may send `W_c`, waiting for the next one even when nothing else waits (a
//!   root keeps the paper's work-conserving window: its own port is the bottleneck);
//!   `rcc_measure` (off), `W_c` at activation is measured over that time after the detection
//!   (nothing held meanwhile) from the bytes the port actually sends, then cut by the largest
//!   degree seen meanwhile. Always: RCC does not quit while the scheduler still holds packets
//!   apart (in the paper's switch they would wait in the input queues, whose congestion
//!   points still see them).
//! - SAR ([`sar`]): a switch is in a region when any of its queue points has its local flag
//!   set or it received `sar_cn_threshold` = 2 CNs within `hold`; "congestion flow" = in a
//!   CAM of the packet's priority at this switch or named by a valid CN; modes `off`, `new`
//!   (default), `flowlet` (gap 50 µs), `packet`; ties go to the current port; a flow table of
//!   4096 entries with a probe window of 8; a flow without an entry takes ECMP.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers. Memory is allocated
//! when a switch is built (its points, the CAMs inline, the flow table, the event queue);
//! after that no input allocates or panics.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cfr;
pub mod cn;
pub mod config;
pub mod crd;
pub mod node;
pub mod rcc;
pub mod sar;
pub mod switch;

pub use cfr::{Cam, FlowId, FlowList};
pub use cn::{regional_degree, Cn, CnBytes, CnSource, CN_MAX_BYTES};
pub use config::{RcmConfig, RcmParams, SarMode, MAX_CAM_DEPTH};
pub use crd::{CongestionPoint, Feedback, Flags, Role};
pub use node::{RcmNodeConfig, RcmSwitchCore};
pub use rcc::{Rcc, RccBudget, RccWindow};
pub use sar::{Route, RouteQuery, Sar, SarStats};
pub use switch::{Event, PointState, PortSetup, RccChange, RcmStats, RcmSwitch};

/// Priorities (IEEE 802.1p classes) per port: every port has this many input and output
/// queue points.
pub const PRIORITIES: usize = 8;
