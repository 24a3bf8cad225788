//! Shared-buffer memory-management unit (MMU) of a switch, with PFC (IEEE 802.1Qbb) ingress
//! logic (fabric.md "Switch"; DCQCN §4, dcqcn.md "Switch buffer settings").
//!
//! The host (the ns-3 switch) calls [`Mmu::on_arrival`] for every packet it receives and
//! [`Mmu::on_departure`] when that packet leaves the switch, and acts on the answers: drop the
//! packet, or send a PAUSE / RESUME for the packet's ingress (port, priority) to the peer on
//! that port. The MMU holds no packets, reads no clock and draws no random numbers; all
//! per-queue state lives in vectors allocated once in [`Mmu::new`].
//!
//! # Buffer layout
//!
//! The buffer of `B` = [`MmuConfig::buffer_size`] bytes is split into
//! - a **reserve** of [`MmuConfig::reserve`] bytes for every ingress (port, priority) queue,
//!   lossy and lossless alike (`ports · 8 · reserve` in total);
//! - a **headroom** of [`MmuConfig::headroom`] bytes for every ingress (port, *lossless*
//!   priority) queue, which absorbs what is still in flight after a PAUSE
//!   (`ports · #lossless · headroom` in total; DCQCN §4 `t_flight`);
//! - the **shared pool**, everything else ([`MmuConfig::shared_pool`]).
//!
//! Every admitted byte is accounted once at its ingress (port, priority) queue (split over
//! reserve, shared and headroom) and once at its egress (port, priority) queue; both sums equal
//! the buffer occupancy.
//!
//! # Lossless priorities (PFC enabled)
//!
//! An arriving packet's bytes go to the ingress queue's reserve first, then to the shared pool
//! while the queue's shared use stays `<=` the XOFF threshold (and the pool has room), and the
//! rest into the queue's headroom. As soon as a byte has to go to the headroom (the queue
//! exceeds XOFF, or the shared pool is full), the MMU answers [`PfcAction::Pause`] — once: no
//! second PAUSE before a RESUME. Filling the shared part to exactly XOFF does not pause; the
//! next byte does. If the headroom cannot take the rest, the packet is dropped with
//! [`DropReason::HeadroomOverrun`]: the headroom was too small for the link (a configuration
//! error, counted in [`MmuStats`]; compare [`MmuConfig::headroom_needed`]). The drop still
//! pauses the peer, unless the queue is empty (then no departure would ever resume it). A lossless packet is
//! never dropped for any other reason (no egress limit, no shared-pool drop).
//!
//! On departure the bytes leave the headroom first, then the shared part, then the reserve.
//! A paused queue is resumed ([`PfcAction::Resume`]) when its headroom is empty and its shared
//! use is `<= XOFF − xon_delta` (saturating at zero), DCQCN §4: "RESUME when the ingress queue
//! falls below `t_PFC − 2·MTU`". Only the queue's own departures resume it: a queue that
//! empties completely is always resumed.
//!
//! ## XOFF threshold
//!
//! - [`Xoff::Static`]: a fixed number of bytes of shared use per ingress queue.
//! - [`Xoff::Dynamic`]: DCQCN §4 `t_PFC = β·(B − 8·n·t_flight − s)/8`, with `s` the shared
//!   buffer in use. Here `B − 8·n·t_flight` becomes the configured shared pool (equal to it
//!   when all 8 priorities are lossless with a zero reserve, the paper's setting), so
//!   `XOFF = β · (shared pool − shared used) / 8`. **The `/8` is kept as the constant
//!   [`PRIORITIES`]**, not the number of lossless priorities: β keeps the paper's meaning and
//!   the paper's value β = 8 gives every queue the whole free shared buffer (the "α = 1" of
//!   commodity switches' dynamic thresholds, where `XOFF = α · free`; α = β/8). The
//!   paper's bound for ECN thresholds ([`MmuConfig::max_ecn_threshold_before_pfc`]) then
//!   holds with the same β.
//!
//! # Lossy priorities (PFC disabled, e.g. LDCP)
//!
//! Tail drop: [`DropReason::QueueFull`] when the egress (port, priority) queue plus the packet
//! would exceed [`MmuConfig::egress_limit`] (`buf_max`), else [`DropReason::BufferFull`] when
//! the ingress queue's free reserve plus the free shared pool cannot hold the packet. Lossy
//! queues never use headroom and never PAUSE.
//!
//! # Host bugs
//!
//! A port or priority out of range is a bug in the host: it trips a `debug_assert!`, and in
//! release builds the arrival is answered with a [`DropReason::BufferFull`] drop (counted) and
//! the departure with [`PfcAction::None`], never an out-of-bounds index or panic. A departure
//! of more bytes than are queued also trips a `debug_assert!` and saturates at zero.

use crate::{DropCounts, DropReason};
use rdma_cc_core::wire::{on_wire, MIN_FRAME};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};

/// Number of IEEE 802.1p priority classes per port.
pub const PRIORITIES: usize = 8;

/// Marks an egress queue that is not in the MMU's list of non-empty queues.
const NOT_LISTED: u32 = u32::MAX;

/// How the PFC XOFF threshold of an ingress (port, priority) queue is set.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Xoff {
    /// Fixed threshold `t_PFC` on the queue's shared-buffer use.
    Static(Bytes),
    /// Dynamic threshold `β · (free shared buffer) / 8` (DCQCN §4; see the module docs for
    /// the `/8`).
    Dynamic {
        /// The paper's β; finite and > 0. β = 8 lets one queue take all the free shared buffer.
        beta: f64,
    },
}

/// Configuration of a switch's shared buffer and PFC thresholds.
///
/// Field names in [`ConfigError`]s are the ns-3 attribute spellings (`BufferSize`, `Ports`, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MmuConfig {
    /// Total buffer `B` of the switch.
    pub buffer_size: Bytes,
    /// Number of ports `n` (at least 1).
    pub ports: usize,
    /// Largest frame size, used for the default XON hysteresis and the headroom estimate.
    pub mtu: Bytes,
    /// Reserved (guaranteed) bytes per ingress (port, priority) queue.
    pub reserve: Bytes,
    /// PFC headroom per ingress (port, lossless priority) queue (DCQCN §4 `t_flight`).
    pub headroom: Bytes,
    /// XOFF threshold on an ingress queue's shared-buffer use.
    pub xoff: Xoff,
    /// XON hysteresis: a paused queue resumes when its shared use is `<= XOFF − xon_delta`.
    pub xon_delta: Bytes,
    /// PFC enabled (lossless) per priority.
    pub lossless: [bool; PRIORITIES],
    /// Lossy egress (port, priority) queue limit `buf_max` (tail drop).
    pub egress_limit: Bytes,
}

impl Default for MmuConfig {
    /// - `buffer_size` 12 MB, `ports` 32: the switch of DCQCN §4 (B = 12 MB, n = 32).
    /// - `mtu` 1500 B: the MTU of DCQCN §4's headroom and XON numbers.
    /// - `reserve` 0: the paper's formulas have no per-queue reserve; with 0 they hold exactly.
    /// - `headroom` 22.4 KB: DCQCN §4 `t_flight` for 40 Gb/s and 1500 B MTU.
    /// - `xoff` dynamic with β = 8: DCQCN §4.
    /// - `xon_delta` 2 · MTU = 3000 B: DCQCN §4 "RESUME below `t_PFC − 2·MTU`".
    /// - `lossless` priority 3 only: the usual RoCEv2 deployment (RDMA on one PFC class).
    /// - `egress_limit` 375 KB = B / n: an equal split of the buffer over the ports
    ///   (LDCP's `buf_max`, "the port's buffer").
    fn default() -> Self {
        let mut lossless = [false; PRIORITIES];
        lossless[3] = true;
        MmuConfig {
            buffer_size: Bytes::mb(12),
            ports: 32,
            mtu: Bytes(1500),
            reserve: Bytes::ZERO,
            headroom: Bytes(22_400),
            xoff: Xoff::Dynamic { beta: 8.0 },
            xon_delta: Bytes(3000),
            lossless,
            egress_limit: Bytes(375_000),
        }
    }
}

impl MmuConfig {
    /// Number of lossless (PFC-enabled) priorities.
    pub fn lossless_priorities(&self) -> usize {
        self.lossless.iter().filter(|&&l| l).count()
    }

    /// Bytes reserved for all ingress queues (`ports · 8 · reserve`), without overflow.
    fn reserved_total(&self) -> u128 {
        (self.ports as u128)
            .saturating_mul(PRIORITIES as u128)
            .saturating_mul(self.reserve.0 as u128)
    }

    /// Bytes of headroom of all lossless ingress queues (`ports · #lossless · headroom`).
    fn headroom_total(&self) -> u128 {
        (self.ports as u128)
            .saturating_mul(self.lossless_priorities() as u128)
            .saturating_mul(self.headroom.0 as u128)
    }

    /// Checks the configuration, naming the first offending field.
    ///
    /// Requires: `BufferSize` > 0; `Mtu` > 0; `Ports` >= 1 and `Ports · Mtu <= BufferSize`
    /// (which also bounds the per-queue state allocated by [`Mmu::new`]); all reserves fit in
    /// the buffer (`Reserve`); the headroom of a lossless queue holds at least one MTU, and reserves plus
    /// headrooms leave at least one MTU of shared pool (`Headroom`); β finite and > 0
    /// (`XoffBeta`); a static XOFF > 0 (`XoffStatic`) and > `XonDelta` (`XonDelta`);
    /// `EgressLimit` >= MTU.
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check(
            self.buffer_size > Bytes::ZERO,
            "BufferSize",
            self.buffer_size,
            "must be > 0",
        )?;
        ConfigError::check(self.mtu > Bytes::ZERO, "Mtu", self.mtu, "must be > 0")?;
        let b = self.buffer_size.0 as u128;
        ConfigError::check(
            self.ports >= 1
                && self.ports < (u32::MAX as usize) / PRIORITIES
                && self.ports as u128 * self.mtu.0 as u128 <= b,
            "Ports",
            self.ports,
            &format!(
                "must be >= 1 (and below 2^29), and every port must be able to hold one frame \
                 of Mtu ({}) in BufferSize ({})",
                self.mtu, self.buffer_size
            ),
        )?;
        let reserved = self.reserved_total();
        ConfigError::check(
            reserved <= b,
            "Reserve",
            self.reserve,
            &format!(
                "Ports ({}) x {} priorities x Reserve = {} B must fit in BufferSize ({})",
                self.ports, PRIORITIES, reserved, self.buffer_size
            ),
        )?;
        if self.lossless_priorities() > 0 {
            ConfigError::check(
                self.headroom >= self.mtu,
                "Headroom",
                self.headroom,
                &format!(
                    "must hold at least one frame of Mtu ({}) per lossless queue",
                    self.mtu
                ),
            )?;
        }
        let headroom = self.headroom_total();
        ConfigError::check(
            reserved + headroom + self.mtu.0 as u128 <= b,
            "Headroom",
            self.headroom,
            &format!(
                "reserves ({} B) + headroom of {} ports x {} lossless priorities ({} B) \
                 must leave at least one Mtu ({}) of shared buffer in BufferSize ({})",
                reserved,
                self.ports,
                self.lossless_priorities(),
                headroom,
                self.mtu,
                self.buffer_size
            ),
        )?;
        match self.xoff {
            Xoff::Dynamic { beta } => ConfigError::check(
                beta.is_finite() && beta > 0.0,
                "XoffBeta",
                beta,
                "must be finite and > 0",
            )?,
            Xoff::Static(x) => {
                ConfigError::check(x > Bytes::ZERO, "XoffStatic", x, "must be > 0")?;
                ConfigError::check(
                    self.xon_delta < x,
                    "XonDelta",
                    self.xon_delta,
                    &format!("must be < XoffStatic ({x}) so that a paused queue can resume"),
                )?;
            }
        }
        ConfigError::check(
            self.egress_limit >= self.mtu,
            "EgressLimit",
            self.egress_limit,
            &format!("must hold at least one frame of Mtu ({})", self.mtu),
        )
    }

    /// Validates and builds the [`Mmu`].
    pub fn build(self) -> Result<Mmu, ConfigError> {
        Mmu::new(self)
    }

    /// The shared pool: `B − ports · 8 · reserve − ports · #lossless · headroom`
    /// (DCQCN §4 `B − 8·n·t_flight` when all 8 priorities are lossless and the reserve is 0).
    /// Zero if reserves and headrooms do not fit (an invalid configuration).
    pub fn shared_pool(&self) -> Bytes {
        let used = self.reserved_total() + self.headroom_total();
        Bytes((self.buffer_size.0 as u128).saturating_sub(used) as u64)
    }

    /// DCQCN §4 static `t_PFC = (B − 8·n·t_flight)/(8·n)`: the shared pool split equally over
    /// all `8·n` ingress queues, so that no ingress queue can be starved of shared buffer.
    pub fn fair_static_xoff(&self) -> Bytes {
        let queues = (self.ports.max(1) as u64).saturating_mul(PRIORITIES as u64);
        Bytes(self.shared_pool().0 / queues)
    }

    /// Exclusive upper bound on an egress ECN marking threshold so that ECN triggers before
    /// PFC (DCQCN §4): `t_ECN` must be strictly below the returned value.
    ///
    /// The paper's worst case is one ingress queue feeding all `n` egress queues, each just
    /// below `t_ECN`, so PFC must not trigger while the ingress queue holds `n · t_ECN`:
    /// - static: `n · t_ECN < t_PFC`, so `t_ECN < t_PFC / n` (the paper notes this is below one
    ///   MTU for its switch, which is why it uses dynamic thresholds);
    /// - dynamic, with at most `s = 8 · n · t_ECN` shared bytes in use:
    ///   `n · t_ECN < β·(S − s)/8` gives `t_ECN < β·S / (8·n·(β + 1))` with `S` the shared pool
    ///   (21.75 KB for B = 12 MB, n = 32, t_flight = 22.4 KB, β = 8, all priorities lossless).
    ///
    /// Rounded up, so that for integer `t_ECN`, `t_ECN < bound` is exactly the paper's
    /// condition. The reserve is ignored (it only delays PFC further), which is conservative.
    pub fn max_ecn_threshold_before_pfc(&self) -> Bytes {
        let n = self.ports.max(1) as u64;
        match self.xoff {
            Xoff::Static(x) => Bytes(x.0.div_ceil(n)),
            Xoff::Dynamic { beta } => {
                let s = self.shared_pool().0 as f64;
                let bound = beta * s / (PRIORITIES as f64 * n as f64 * (beta + 1.0));
                // `as` saturates (NaN → 0): never panics on a bad beta.
                Bytes(bound.ceil() as u64)
            }
        }
    }

    /// Headroom an ingress queue needs so that a PAUSE never overruns it on a link of
    /// `link_rate` and one-way propagation delay `link_delay`:
    /// `2 · link_rate · link_delay + 2 · MTU + one PFC frame`.
    ///
    /// After the queue crosses XOFF, the switch may first have to finish a frame it is sending
    /// (one MTU: a frame on the wire is never cut) before the PAUSE goes out (its own 64 B
    /// frame + preamble and gap, 84 B); the PAUSE travels one delay to the peer, which finishes
    /// the frame it is sending (one MTU), and what it sent meanwhile takes one more delay to
    /// arrive: two delays' worth of line rate.
    pub fn headroom_needed(&self, link_rate: Rate, link_delay: Time) -> Bytes {
        let bdp = link_rate.bytes_in(link_delay);
        Bytes(bdp.0.saturating_mul(2))
            .saturating_add(Bytes(self.mtu.0.saturating_mul(2)))
            .saturating_add(on_wire(Bytes(MIN_FRAME)))
    }

    /// Start-up warnings (not errors) for a researcher, one sentence each; empty if the
    /// configuration is consistent with an ECN threshold `k_min` on links of `link_rate` and
    /// one-way delay `link_delay`. Only meaningful when some priority is lossless; with none,
    /// there is nothing to warn about.
    ///
    /// - `k_min` not below [`Self::max_ecn_threshold_before_pfc`]: PFC may fire before ECN.
    /// - `headroom` below [`Self::headroom_needed`]: lossless packets may be dropped.
    pub fn check(&self, k_min: Bytes, link_rate: Rate, link_delay: Time) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.lossless_priorities() == 0 {
            return warnings;
        }
        let bound = self.max_ecn_threshold_before_pfc();
        if k_min >= bound {
            warnings.push(format!(
                "ECN threshold KMin ({k_min}) is not below {bound}, the largest value for which \
                 ECN triggers before PFC with BufferSize {}, {} ports and {:?} (DCQCN section 4): \
                 PFC may pause links before senders see congestion marks",
                self.buffer_size, self.ports, self.xoff
            ));
        }
        let needed = self.headroom_needed(link_rate, link_delay);
        if self.headroom < needed {
            warnings.push(format!(
                "PFC Headroom ({}) is below the {needed} needed on a {link_rate} link with \
                 {link_delay} delay and Mtu {} (2 x bandwidth-delay product + 2 x Mtu + one \
                 PFC frame): lossless packets may be dropped (headroom overrun)",
                self.headroom, self.mtu
            ));
        }
        warnings
    }
}

/// What the host must do about PFC for the ingress (port, priority) of the packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PfcAction {
    /// Nothing.
    None,
    /// Send PAUSE for this priority to the peer on the ingress port (and keep refreshing it
    /// while [`Mmu::is_paused`]).
    Pause,
    /// Send RESUME (pause time 0) for this priority to the peer on the ingress port.
    Resume,
}

/// The MMU's answer to an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admission {
    /// `Some(reason)` if the packet must be dropped; it was then not accounted.
    pub drop: Option<DropReason>,
    /// PFC action for the packet's ingress (port, priority); may be [`PfcAction::Pause`] even
    /// when the packet is dropped.
    pub pfc: PfcAction,
}

impl Admission {
    /// Whether the packet was admitted (not dropped).
    pub fn admitted(&self) -> bool {
        self.drop.is_none()
    }
}

/// Counters of an [`Mmu`] since construction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MmuStats {
    /// Packets admitted.
    pub admitted: u64,
    /// Packets dropped, by reason.
    pub drops: DropCounts,
    /// Bytes dropped, by reason.
    pub drop_bytes: DropCounts,
    /// PAUSEs requested ([`PfcAction::Pause`] answers).
    pub pauses: u64,
    /// RESUMEs requested ([`PfcAction::Resume`] answers).
    pub resumes: u64,
    /// Largest total occupancy seen.
    pub max_occupancy: Bytes,
    /// Largest shared-pool use seen.
    pub max_shared_used: Bytes,
    /// Largest headroom use of any single ingress queue seen (to size the headroom).
    pub max_headroom_used: Bytes,
}

impl MmuStats {
    /// Packets dropped for `reason`.
    pub fn drops_for(&self, reason: DropReason) -> u64 {
        self.drops.get(reason)
    }

    /// Lossless packets dropped because the headroom overflowed: a configuration error that
    /// should be reported loudly (fabric.md "Switch").
    pub fn headroom_overruns(&self) -> u64 {
        self.drops_for(DropReason::HeadroomOverrun)
    }

    /// Packets dropped for any reason.
    pub fn total_drops(&self) -> u64 {
        self.drops.total()
    }
}

/// Byte accounting of one ingress (port, priority) queue.
#[derive(Debug, Clone, Copy, Default)]
struct Ingress {
    /// Bytes in the queue's reserve (`<= reserve`).
    reserve: Bytes,
    /// Bytes in the shared pool.
    shared: Bytes,
    /// Bytes in the queue's headroom (lossless only, `<= headroom`).
    headroom: Bytes,
    /// A PAUSE is outstanding towards the peer on this port.
    paused: bool,
}

impl Ingress {
    fn total(&self) -> Bytes {
        self.reserve + self.shared + self.headroom
    }
}

/// A switch's shared-buffer MMU with PFC; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Mmu {
    cfg: MmuConfig,
    /// [`MmuConfig::shared_pool`], computed once.
    pool: Bytes,
    /// Per ingress (port, priority), index `port * PRIORITIES + prio`.
    ingress: Vec<Ingress>,
    /// Bytes per egress (port, priority), same indexing.
    egress: Vec<Bytes>,
    /// Largest value of each `egress` entry since construction or the last
    /// [`Mmu::reset_egress_max`] (updated at every admission, so it is exact).
    egress_max: Vec<Bytes>,
    /// Indexes of the non-empty egress queues, in no particular order (maintained at every
    /// admission and departure, so that sampling costs what it records).
    nonempty: Vec<u32>,
    /// Position of each egress queue in `nonempty` ([`NOT_LISTED`] when empty).
    listed_at: Vec<u32>,
    /// Sum of the ingress queues' shared parts.
    shared_used: Bytes,
    /// Total bytes buffered.
    occupancy: Bytes,
    stats: MmuStats,
}

impl Mmu {
    /// Validates `cfg` and allocates the per-queue state.
    pub fn new(cfg: MmuConfig) -> Result<Mmu, ConfigError> {
        cfg.validate()?;
        let queues = cfg.ports * PRIORITIES;
        Ok(Mmu {
            pool: cfg.shared_pool(),
            ingress: vec![Ingress::default(); queues],
            egress: vec![Bytes::ZERO; queues],
            egress_max: vec![Bytes::ZERO; queues],
            nonempty: Vec::with_capacity(queues),
            listed_at: vec![NOT_LISTED; queues],
            shared_used: Bytes::ZERO,
            occupancy: Bytes::ZERO,
            stats: MmuStats::default(),
            cfg,
        })
    }

    /// The configuration this MMU was built from.
    pub fn config(&self) -> &MmuConfig {
        &self.cfg
    }

    /// Index of (port, prio), or `None` if out of range.
    #[inline]
    fn index(&self, port: usize, prio: usize) -> Option<usize> {
        (port < self.cfg.ports && prio < PRIORITIES).then(|| port * PRIORITIES + prio)
    }

    /// Current XOFF threshold on an ingress queue's shared use: the static value, or
    /// `β · (shared pool − shared used) / 8` (DCQCN §4; see the module docs).
    pub fn xoff_threshold(&self) -> Bytes {
        match self.cfg.xoff {
            Xoff::Static(x) => x,
            Xoff::Dynamic { beta } => {
                let free = self.pool.saturating_sub(self.shared_used);
                // DCQCN §4: t_PFC = β·(B − 8·n·t_flight − s)/8; `as` saturates.
                Bytes((beta * free.0 as f64 / PRIORITIES as f64) as u64)
            }
        }
    }

    fn count_drop(&mut self, reason: DropReason, size: Bytes) {
        self.stats.drops.add(reason, 1);
        self.stats.drop_bytes.add(reason, size.0);
    }

    fn drop(&mut self, reason: DropReason, size: Bytes, pfc: PfcAction) -> Admission {
        log::trace!("drop {size} ({})", reason.name());
        self.count_drop(reason, size);
        Admission {
            drop: Some(reason),
            pfc,
        }
    }

    /// A packet of `size` bytes arrived on `in_port` with priority `prio` and will be queued
    /// at `out_port`'s egress queue of the same priority. If admitted, it is accounted until
    /// the matching [`Mmu::on_departure`].
    pub fn on_arrival(
        &mut self,
        in_port: usize,
        out_port: usize,
        prio: usize,
        size: Bytes,
    ) -> Admission {
        let (Some(i), Some(e)) = (self.index(in_port, prio), self.index(out_port, prio)) else {
            debug_assert!(
                false,
                "MMU arrival out of range: in_port {in_port}, out_port {out_port}, prio {prio}, \
                 {} ports",
                self.cfg.ports
            );
            return self.drop(DropReason::BufferFull, size, PfcAction::None);
        };
        let q = self.ingress[i];
        let pool_free = self.pool.saturating_sub(self.shared_used);
        // Reserve first.
        let to_reserve = size.min(self.cfg.reserve.saturating_sub(q.reserve));
        let rest = size - to_reserve;
        let (to_shared, to_headroom, pfc) = if self.cfg.lossless[prio] {
            // Then shared while the queue's shared use stays <= XOFF, then headroom.
            let below_xoff = self.xoff_threshold().saturating_sub(q.shared);
            let to_shared = rest.min(below_xoff).min(pool_free);
            let to_headroom = rest - to_shared;
            let overrun = to_headroom > self.cfg.headroom.saturating_sub(q.headroom);
            // Over XOFF (or the pool is full): PAUSE the peer, once. Not for a dropped packet
            // at an empty queue: no departure would ever RESUME it.
            let over = to_headroom > Bytes::ZERO || q.headroom > Bytes::ZERO;
            let pfc = if !q.paused && over && !(overrun && q.total() == Bytes::ZERO) {
                self.ingress[i].paused = true;
                self.stats.pauses += 1;
                log::debug!(
                    "PAUSE port {in_port} prio {prio}: ingress queue {} + {size}",
                    q.total()
                );
                PfcAction::Pause
            } else {
                PfcAction::None
            };
            if overrun {
                // Headroom exhausted: the only drop of a lossless packet (a configuration error).
                log::warn!("headroom overrun: port {in_port} prio {prio}, {size} dropped");
                return self.drop(DropReason::HeadroomOverrun, size, pfc);
            }
            (to_shared, to_headroom, pfc)
        } else {
            // Lossy: tail drop at buf_max, then at a full buffer (fabric.md "Switch").
            if self.egress[e].saturating_add(size) > self.cfg.egress_limit {
                return self.drop(DropReason::QueueFull, size, PfcAction::None);
            }
            if rest > pool_free {
                return self.drop(DropReason::BufferFull, size, PfcAction::None);
            }
            (rest, Bytes::ZERO, PfcAction::None)
        };
        let q = &mut self.ingress[i];
        q.reserve += to_reserve;
        q.shared += to_shared;
        q.headroom += to_headroom;
        let headroom_now = q.headroom;
        if self.egress[e] == Bytes::ZERO && size > Bytes::ZERO {
            self.list(e);
        }
        self.egress[e] += size;
        self.egress_max[e] = self.egress_max[e].max(self.egress[e]);
        self.shared_used += to_shared;
        self.occupancy += size;
        let s = &mut self.stats;
        s.admitted += 1;
        s.max_occupancy = s.max_occupancy.max(self.occupancy);
        s.max_shared_used = s.max_shared_used.max(self.shared_used);
        s.max_headroom_used = s.max_headroom_used.max(headroom_now);
        Admission { drop: None, pfc }
    }

    /// The packet admitted earlier with the same `(in_port, out_port, prio, size)` left the
    /// switch. Answers [`PfcAction::Resume`] when its ingress queue was paused and has drained
    /// to the XON level.
    pub fn on_departure(
        &mut self,
        in_port: usize,
        out_port: usize,
        prio: usize,
        size: Bytes,
    ) -> PfcAction {
        let (Some(i), Some(e)) = (self.index(in_port, prio), self.index(out_port, prio)) else {
            debug_assert!(
                false,
                "MMU departure out of range: in_port {in_port}, out_port {out_port}, \
                 prio {prio}, {} ports",
                self.cfg.ports
            );
            return PfcAction::None;
        };
        debug_assert!(
            self.egress[e] >= size && self.ingress[i].total() >= size,
            "MMU departure of {size} exceeds what is queued"
        );
        self.egress[e] = self.egress[e].saturating_sub(size);
        if self.egress[e] == Bytes::ZERO {
            self.unlist(e);
        }
        let q = &mut self.ingress[i];
        // Headroom first, then shared, then reserve.
        let from_headroom = size.min(q.headroom);
        q.headroom -= from_headroom;
        let from_shared = (size - from_headroom).min(q.shared);
        q.shared -= from_shared;
        let from_reserve = (size - from_headroom - from_shared).min(q.reserve);
        q.reserve -= from_reserve;
        self.shared_used = self.shared_used.saturating_sub(from_shared);
        self.occupancy = self
            .occupancy
            .saturating_sub(from_headroom + from_shared + from_reserve);
        let q = self.ingress[i];
        // DCQCN §4: RESUME when the ingress queue falls below t_PFC − 2·MTU (xon_delta).
        if q.paused
            && q.headroom == Bytes::ZERO
            && q.shared <= self.xoff_threshold().saturating_sub(self.cfg.xon_delta)
        {
            self.ingress[i].paused = false;
            self.stats.resumes += 1;
            log::debug!(
                "RESUME port {in_port} prio {prio}: ingress queue {}",
                q.total()
            );
            PfcAction::Resume
        } else {
            PfcAction::None
        }
    }

    /// Adds egress queue `e` to the non-empty list.
    #[inline]
    fn list(&mut self, e: usize) {
        if self.listed_at[e] == NOT_LISTED {
            self.listed_at[e] = self.nonempty.len() as u32;
            self.nonempty.push(e as u32);
        }
    }

    /// Removes egress queue `e` from the non-empty list (swap-remove: O(1)).
    #[inline]
    fn unlist(&mut self, e: usize) {
        let at = self.listed_at[e];
        if at == NOT_LISTED {
            return;
        }
        self.listed_at[e] = NOT_LISTED;
        self.nonempty.swap_remove(at as usize);
        if let Some(&moved) = self.nonempty.get(at as usize) {
            self.listed_at[moved as usize] = at;
        }
    }

    /// The non-empty egress queues as `(port, prio, bytes)`, in no particular order: what a
    /// queue sample records, at a cost proportional to its length (not to the port count).
    pub fn nonempty_egress(&self) -> impl Iterator<Item = (usize, usize, Bytes)> + '_ {
        self.nonempty.iter().map(move |&e| {
            let e = e as usize;
            (e / PRIORITIES, e % PRIORITIES, self.egress[e])
        })
    }

    fn ingress_at(&self, port: usize, prio: usize) -> Ingress {
        self.index(port, prio)
            .map(|i| self.ingress[i])
            .unwrap_or_default()
    }

    /// Bytes accounted to ingress queue (`port`, `prio`): reserve + shared + headroom.
    /// Zero when out of range.
    pub fn ingress_bytes(&self, port: usize, prio: usize) -> Bytes {
        self.ingress_at(port, prio).total()
    }

    /// Bytes queued at egress (`port`, `prio`). Zero when out of range.
    pub fn egress_bytes(&self, port: usize, prio: usize) -> Bytes {
        self.index(port, prio)
            .map(|i| self.egress[i])
            .unwrap_or_default()
    }

    /// Largest length egress queue (`port`, `prio`) reached since construction or the last
    /// [`Mmu::reset_egress_max`]; exact (updated at every admission). Zero when out of range.
    pub fn egress_max(&self, port: usize, prio: usize) -> Bytes {
        self.index(port, prio)
            .map(|i| self.egress_max[i])
            .unwrap_or_default()
    }

    /// Restarts every egress maximum at its queue's current length (e.g. to measure the
    /// stable stage after the first RTTs: a queue that is long now and only drains afterwards
    /// reports its current length, not zero).
    pub fn reset_egress_max(&mut self) {
        self.egress_max.copy_from_slice(&self.egress);
    }

    /// Headroom bytes in use by ingress queue (`port`, `prio`). Zero when out of range.
    pub fn headroom_used(&self, port: usize, prio: usize) -> Bytes {
        self.ingress_at(port, prio).headroom
    }

    /// Shared-pool bytes used by ingress queue (`port`, `prio`) (the part XOFF applies to).
    /// Zero when out of range.
    pub fn ingress_shared_bytes(&self, port: usize, prio: usize) -> Bytes {
        self.ingress_at(port, prio).shared
    }

    /// Shared-pool bytes in use by all queues.
    pub fn shared_used(&self) -> Bytes {
        self.shared_used
    }

    /// Size of the shared pool ([`MmuConfig::shared_pool`]).
    pub fn shared_pool(&self) -> Bytes {
        self.pool
    }

    /// Total bytes buffered (reserve + shared + headroom of every queue).
    pub fn occupancy(&self) -> Bytes {
        self.occupancy
    }

    /// Whether a PAUSE is outstanding towards the peer on `port` for `prio` (the host keeps
    /// refreshing it before it expires). False when out of range.
    pub fn is_paused(&self, port: usize, prio: usize) -> bool {
        self.ingress_at(port, prio).paused
    }

    /// Counters since construction.
    pub fn stats(&self) -> &MmuStats {
        &self.stats
    }

    /// Checks the accounting: occupancy equals the sum of the ingress queues and the sum of the
    /// egress queues; the shared parts sum to [`Mmu::shared_used`], which fits in the pool;
    /// every reserve and headroom within its size (headroom only on lossless queues); the
    /// reserve fills first (a queue with a free reserve has no shared or headroom bytes);
    /// paused only on lossless queues and only while holding bytes (so that a departure will
    /// resume it); headroom in use only while paused.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut ingress_sum = Bytes::ZERO;
        let mut shared_sum = Bytes::ZERO;
        for (i, q) in self.ingress.iter().enumerate() {
            let (port, prio) = (i / PRIORITIES, i % PRIORITIES);
            let at = || format!("ingress (port {port}, prio {prio})");
            ingress_sum += q.total();
            shared_sum += q.shared;
            if q.reserve > self.cfg.reserve {
                return Err(format!(
                    "{}: reserve {} > {}",
                    at(),
                    q.reserve,
                    self.cfg.reserve
                ));
            }
            if q.reserve < self.cfg.reserve && (q.shared > Bytes::ZERO || q.headroom > Bytes::ZERO)
            {
                return Err(format!(
                    "{}: reserve not full ({}) but shared {} / headroom {} in use",
                    at(),
                    q.reserve,
                    q.shared,
                    q.headroom
                ));
            }
            let headroom = if self.cfg.lossless[prio] {
                self.cfg.headroom
            } else {
                Bytes::ZERO
            };
            if q.headroom > headroom {
                return Err(format!("{}: headroom {} > {}", at(), q.headroom, headroom));
            }
            if q.paused && !self.cfg.lossless[prio] {
                return Err(format!("{}: paused on a lossy priority", at()));
            }
            if q.paused && q.total() == Bytes::ZERO {
                return Err(format!(
                    "{}: paused while empty: nothing would resume it",
                    at()
                ));
            }
            if q.headroom > Bytes::ZERO && !q.paused {
                return Err(format!(
                    "{}: headroom {} in use but not paused",
                    at(),
                    q.headroom
                ));
            }
        }
        let egress_sum = self
            .egress
            .iter()
            .fold(Bytes::ZERO, |acc, &b| acc.saturating_add(b));
        if let Some(i) = (0..self.egress.len()).find(|&i| self.egress_max[i] < self.egress[i]) {
            return Err(format!(
                "egress (port {}, prio {}): maximum {} below the queue {}",
                i / PRIORITIES,
                i % PRIORITIES,
                self.egress_max[i],
                self.egress[i]
            ));
        }
        for (e, &b) in self.egress.iter().enumerate() {
            let at = self.listed_at[e];
            let listed = at != NOT_LISTED && self.nonempty.get(at as usize) == Some(&(e as u32));
            if listed != (b > Bytes::ZERO) {
                return Err(format!(
                    "egress (port {}, prio {}): {} but {} in the non-empty list",
                    e / PRIORITIES,
                    e % PRIORITIES,
                    b,
                    if listed { "listed" } else { "not" }
                ));
            }
        }
        if self.nonempty.len() != self.egress.iter().filter(|&&b| b > Bytes::ZERO).count() {
            return Err("the non-empty egress list has stale entries".to_string());
        }
        if ingress_sum != self.occupancy || egress_sum != self.occupancy {
            return Err(format!(
                "occupancy {} != sum of ingress {} or sum of egress {}",
                self.occupancy, ingress_sum, egress_sum
            ));
        }
        if shared_sum != self.shared_used {
            return Err(format!(
                "shared used {} != sum of ingress shared parts {}",
                self.shared_used, shared_sum
            ));
        }
        if self.shared_used > self.pool {
            return Err(format!(
                "shared used {} > shared pool {}",
                self.shared_used, self.pool
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const P3: usize = 3;

    fn only(prio: usize) -> [bool; PRIORITIES] {
        let mut l = [false; PRIORITIES];
        l[prio] = true;
        l
    }

    /// 2 ports, reserve 1000, headroom 5000, static XOFF 4000, XON delta 2000, priority 3
    /// lossless: shared pool = 76 000 − 16 000 − 10 000 = 50 000.
    fn static_cfg() -> MmuConfig {
        MmuConfig {
            buffer_size: Bytes(76_000),
            ports: 2,
            mtu: Bytes(1000),
            reserve: Bytes(1000),
            headroom: Bytes(5000),
            xoff: Xoff::Static(Bytes(4000)),
            xon_delta: Bytes(2000),
            lossless: only(P3),
            egress_limit: Bytes(3000),
        }
    }

    fn admit() -> Admission {
        Admission {
            drop: None,
            pfc: PfcAction::None,
        }
    }

    #[test]
    fn default_config_is_valid_with_paper_numbers() {
        let c = MmuConfig::default();
        c.validate().unwrap();
        // 12 MB − 32 ports × 1 lossless priority × 22 400 B
        assert_eq!(c.shared_pool(), Bytes(11_283_200));
        assert_eq!(c.xon_delta, Bytes(2 * c.mtu.0));
    }

    #[test]
    fn static_xoff_fills_reserve_then_shared_then_pauses_once_into_headroom() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        assert_eq!(m.shared_pool(), Bytes(50_000));
        let a = |m: &mut Mmu| m.on_arrival(0, 1, P3, Bytes(1000));
        // reserve
        assert_eq!(a(&mut m), admit());
        assert_eq!(m.ingress_bytes(0, P3), Bytes(1000));
        assert_eq!(m.shared_used(), Bytes::ZERO);
        // shared up to exactly XOFF = 4000: no pause yet
        for k in 1..=4 {
            assert_eq!(a(&mut m), admit());
            assert_eq!(m.ingress_shared_bytes(0, P3), Bytes(1000 * k));
        }
        assert_eq!(m.shared_used(), Bytes(4000));
        assert!(!m.is_paused(0, P3));
        // the next byte goes over XOFF: into headroom, PAUSE once
        assert_eq!(
            a(&mut m),
            Admission {
                drop: None,
                pfc: PfcAction::Pause
            }
        );
        assert!(m.is_paused(0, P3));
        assert_eq!(m.headroom_used(0, P3), Bytes(1000));
        // headroom absorbs the in-flight bytes, no second PAUSE
        for k in 2..=5 {
            assert_eq!(a(&mut m), admit());
            assert_eq!(m.headroom_used(0, P3), Bytes(1000 * k));
        }
        assert_eq!(m.shared_used(), Bytes(4000));
        // headroom full: overrun drop, counted
        assert_eq!(
            a(&mut m),
            Admission {
                drop: Some(DropReason::HeadroomOverrun),
                pfc: PfcAction::None
            }
        );
        assert_eq!(m.stats().headroom_overruns(), 1);
        assert_eq!(m.stats().drop_bytes.headroom_overrun, 1000);
        assert_eq!(m.stats().pauses, 1);
        assert_eq!(m.occupancy(), Bytes(10_000));
        assert_eq!(m.egress_bytes(1, P3), Bytes(10_000));
        assert_eq!(m.stats().max_headroom_used, Bytes(5000));
        m.check_invariants().unwrap();

        // departures drain headroom first: 5 × 1000, still paused (shared 4000 > 4000 − 2000)
        let d = |m: &mut Mmu| m.on_departure(0, 1, P3, Bytes(1000));
        for _ in 0..5 {
            assert_eq!(d(&mut m), PfcAction::None);
        }
        assert_eq!(m.headroom_used(0, P3), Bytes::ZERO);
        assert_eq!(m.ingress_shared_bytes(0, P3), Bytes(4000));
        // shared 3000 > 2000: not yet
        assert_eq!(d(&mut m), PfcAction::None);
        assert!(m.is_paused(0, P3));
        // shared 2000 = XOFF − XON delta: RESUME
        assert_eq!(d(&mut m), PfcAction::Resume);
        assert!(!m.is_paused(0, P3));
        assert_eq!(m.stats().resumes, 1);
        for _ in 0..3 {
            assert_eq!(d(&mut m), PfcAction::None);
        }
        assert_eq!(m.occupancy(), Bytes::ZERO);
        assert_eq!(m.egress_bytes(1, P3), Bytes::ZERO);
        m.check_invariants().unwrap();
    }

    #[test]
    fn packet_straddling_xoff_splits_between_shared_and_headroom() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        m.on_arrival(0, 1, P3, Bytes(1000)); // reserve
        m.on_arrival(0, 1, P3, Bytes(3500)); // shared 3500
        let a = m.on_arrival(0, 1, P3, Bytes(1000));
        assert_eq!(a.pfc, PfcAction::Pause);
        assert_eq!(m.ingress_shared_bytes(0, P3), Bytes(4000));
        assert_eq!(m.headroom_used(0, P3), Bytes(500));
    }

    #[test]
    fn lossless_over_xoff_pauses_even_when_the_packet_overruns_headroom() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        m.on_arrival(0, 1, P3, Bytes(5000)); // reserve 1000 + shared 4000
        let a = m.on_arrival(0, 1, P3, Bytes(6000)); // larger than the whole headroom
        assert_eq!(
            a,
            Admission {
                drop: Some(DropReason::HeadroomOverrun),
                pfc: PfcAction::Pause
            }
        );
        assert!(m.is_paused(0, P3));
        // the paused queue drains to zero: RESUME
        assert_eq!(m.on_departure(0, 1, P3, Bytes(5000)), PfcAction::Resume);
        m.check_invariants().unwrap();
    }

    #[test]
    fn overrun_at_an_empty_queue_drops_without_pause() {
        // lossy traffic fills the pool; an empty lossless queue gets a packet larger than
        // reserve (1000) + headroom (5000): dropped, and no PAUSE that nothing would resume
        let mut c = static_cfg();
        c.egress_limit = Bytes(100_000);
        let mut m = Mmu::new(c).unwrap();
        assert!(m.on_arrival(1, 0, 0, Bytes(51_000)).admitted());
        assert_eq!(
            m.on_arrival(0, 1, P3, Bytes(6001)),
            Admission {
                drop: Some(DropReason::HeadroomOverrun),
                pfc: PfcAction::None
            }
        );
        assert!(!m.is_paused(0, P3));
        assert_eq!(m.ingress_bytes(0, P3), Bytes::ZERO);
        m.check_invariants().unwrap();
    }

    #[test]
    fn lossless_goes_to_headroom_when_shared_pool_is_full() {
        // pool 50 000 filled by lossy priority 0 (big egress limit), then a lossless packet
        let mut c = static_cfg();
        c.egress_limit = Bytes(100_000);
        c.xoff = Xoff::Static(Bytes(60_000));
        let mut m = Mmu::new(c).unwrap();
        assert!(m.on_arrival(1, 0, 0, Bytes(51_000)).admitted()); // 1000 reserve + 50 000
        assert_eq!(m.shared_used(), Bytes(50_000));
        m.on_arrival(0, 1, P3, Bytes(1000)); // reserve
        let a = m.on_arrival(0, 1, P3, Bytes(1000));
        assert_eq!(a.pfc, PfcAction::Pause);
        assert!(a.admitted());
        assert_eq!(m.headroom_used(0, P3), Bytes(1000));
        m.check_invariants().unwrap();
    }

    #[test]
    fn dynamic_xoff_shrinks_as_shared_use_grows() {
        // 2 ports, no reserve, headroom 10 000 for priority 3: pool = 100 000 − 20 000 = 80 000
        let c = MmuConfig {
            buffer_size: Bytes(100_000),
            ports: 2,
            mtu: Bytes(1000),
            reserve: Bytes::ZERO,
            headroom: Bytes(10_000),
            xoff: Xoff::Dynamic { beta: 2.0 },
            xon_delta: Bytes(2000),
            lossless: only(P3),
            egress_limit: Bytes(100_000),
        };
        let mut m = Mmu::new(c).unwrap();
        // β/8 · free = 80 000 / 4
        assert_eq!(m.xoff_threshold(), Bytes(20_000));
        m.on_arrival(0, 1, P3, Bytes(1000));
        assert_eq!(m.xoff_threshold(), Bytes(19_750));
        m.on_arrival(1, 0, 0, Bytes(39_000)); // lossy, shared 40 000
        assert_eq!(m.xoff_threshold(), Bytes(10_000));
        m.on_arrival(1, 0, 1, Bytes(36_000)); // lossy, shared 76 000
        assert_eq!(m.xoff_threshold(), Bytes(1000));
        // the lossless queue (shared 1000) is at XOFF: the next byte pauses
        let a = m.on_arrival(0, 1, P3, Bytes(1));
        assert_eq!(a.pfc, PfcAction::Pause);
        // the lossy departures grow XOFF again; the queue's own departure resumes it once
        // shared (1000) <= XOFF − 2000
        m.on_departure(1, 0, 1, Bytes(36_000)); // shared 40 000 (the byte is in headroom)
        assert_eq!(m.xoff_threshold(), Bytes(10_000));
        assert_eq!(m.on_departure(0, 1, P3, Bytes(1)), PfcAction::Resume);
        m.check_invariants().unwrap();
    }

    #[test]
    fn egress_maximum_is_exact_and_restarts_at_the_current_queue() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        for _ in 0..5 {
            assert_eq!(m.on_arrival(0, 1, P3, Bytes(1000)), admit());
        }
        assert_eq!(m.on_departure(0, 1, P3, Bytes(1000)), PfcAction::None);
        assert_eq!(m.egress_max(1, P3), Bytes(5000));
        // a reset while 4000 B are queued: the maximum is the queue now, not zero, even if
        // nothing arrives afterwards
        m.reset_egress_max();
        assert_eq!(m.egress_max(1, P3), Bytes(4000));
        assert_eq!(m.on_departure(0, 1, P3, Bytes(1000)), PfcAction::None);
        assert_eq!(m.egress_max(1, P3), Bytes(4000));
        assert_eq!(m.on_arrival(0, 1, P3, Bytes(1000)), admit());
        assert_eq!(m.on_arrival(0, 1, P3, Bytes(1000)), admit());
        assert_eq!(m.egress_max(1, P3), Bytes(5000));
        assert_eq!(m.egress_max(9, 0), Bytes::ZERO);
        m.check_invariants().unwrap();
    }

    #[test]
    fn nonempty_egress_lists_exactly_the_queues_holding_bytes() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        m.on_arrival(0, 1, 0, Bytes(1000));
        m.on_arrival(0, 0, 2, Bytes(500));
        m.on_arrival(1, 1, 0, Bytes(100));
        let sorted = |m: &Mmu| {
            let mut l: Vec<_> = m.nonempty_egress().collect();
            l.sort();
            l
        };
        assert_eq!(sorted(&m), [(0, 2, Bytes(500)), (1, 0, Bytes(1100))]);
        m.check_invariants().unwrap();
        m.on_departure(0, 1, 0, Bytes(1000));
        assert_eq!(sorted(&m), [(0, 2, Bytes(500)), (1, 0, Bytes(100))]);
        m.on_departure(1, 1, 0, Bytes(100));
        assert_eq!(sorted(&m), [(0, 2, Bytes(500))]);
        m.on_departure(0, 0, 2, Bytes(500));
        assert_eq!(sorted(&m), []);
        m.check_invariants().unwrap();
    }

    #[test]
    fn dcqcn_section4_thresholds() {
        // B = 12 MB, n = 32, t_flight = 22.4 KB on all 8 priorities, β = 8
        let c = MmuConfig {
            buffer_size: Bytes::mb(12),
            ports: 32,
            headroom: Bytes(22_400),
            reserve: Bytes::ZERO,
            lossless: [true; PRIORITIES],
            xoff: Xoff::Dynamic { beta: 8.0 },
            ..MmuConfig::default()
        };
        c.validate().unwrap();
        // B − 8·n·t_flight
        assert_eq!(c.shared_pool(), Bytes(6_265_600));
        // static t_PFC = (B − 8·n·t_flight)/(8·n)
        assert_eq!(c.fair_static_xoff(), Bytes(24_475));
        // t_ECN < β(B − 8 n t_flight)/(8 n (β+1)) = 21 755.6 B, the paper's 21.75 KB
        let bound = c.max_ecn_threshold_before_pfc();
        assert_eq!(bound, Bytes(21_756));
        assert!(bound.0.abs_diff(21_750) <= 500);
        // with the static threshold the bound is t_PFC / n, below one MTU (the paper's point)
        let s = MmuConfig {
            xoff: Xoff::Static(c.fair_static_xoff()),
            ..c.clone()
        };
        assert_eq!(s.max_ecn_threshold_before_pfc(), Bytes(765));
        assert!(s.max_ecn_threshold_before_pfc() < s.mtu);
        // at dynamic XOFF with an empty buffer, one queue may take β/8 of the free pool
        let m = Mmu::new(c.clone()).unwrap();
        assert_eq!(m.xoff_threshold(), Bytes(6_265_600));
        // warnings: the paper's K_min = 5 KB is fine, 30 KB is not
        let rate = Rate::gbps(40);
        let delay = Time::ns(1000);
        assert!(c.check(Bytes(5000), rate, delay).is_empty());
        let w = c.check(Bytes(30_000), rate, delay);
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("KMin"), "{}", w[0]);
    }

    #[test]
    fn headroom_needed_is_two_bdp_plus_two_mtu_plus_pause_frame() {
        let c = MmuConfig::default();
        // 40 Gb/s × 1 µs = 5000 B; 2·5000 + 2·1500 + 84
        assert_eq!(
            c.headroom_needed(Rate::gbps(40), Time::us(1)),
            Bytes(13_084)
        );
        assert!(c.check(Bytes(5000), Rate::gbps(40), Time::us(1)).is_empty());
        // 2 µs: 23 084 B > 22 400 B of headroom
        let w = c.check(Bytes(5000), Rate::gbps(40), Time::us(2));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("Headroom"), "{}", w[0]);
    }

    #[test]
    fn no_warnings_without_lossless_priorities() {
        let c = MmuConfig {
            lossless: [false; PRIORITIES],
            ..MmuConfig::default()
        };
        assert!(c
            .check(Bytes::mb(1), Rate::gbps(100), Time::ms(1))
            .is_empty());
    }

    #[test]
    fn lossy_tail_drops_at_egress_limit_and_full_buffer_without_pfc() {
        // pool 50 000 with reserve 1000 per queue; egress_limit 3000
        let mut c = static_cfg();
        c.egress_limit = Bytes(30_000);
        let mut m = Mmu::new(c).unwrap();
        // egress (1, 0): 30 × 1000 admitted, the 31st is QueueFull
        for _ in 0..30 {
            assert_eq!(m.on_arrival(0, 1, 0, Bytes(1000)), admit());
        }
        assert_eq!(m.egress_bytes(1, 0), Bytes(30_000));
        assert_eq!(
            m.on_arrival(0, 1, 0, Bytes(1000)),
            Admission {
                drop: Some(DropReason::QueueFull),
                pfc: PfcAction::None
            }
        );
        // ingress (0, 0) used 1000 reserve + 29 000 shared; ingress (0, 1) takes its reserve
        // (1000) and the rest of the pool (21 000)
        for _ in 0..22 {
            assert_eq!(m.on_arrival(0, 0, 1, Bytes(1000)), admit());
        }
        assert_eq!(m.shared_used(), Bytes(50_000));
        assert_eq!(
            m.on_arrival(0, 0, 1, Bytes(1000)),
            Admission {
                drop: Some(DropReason::BufferFull),
                pfc: PfcAction::None
            }
        );
        // another ingress queue still has its reserve
        assert_eq!(m.on_arrival(1, 0, 2, Bytes(1000)), admit());
        assert_eq!(
            m.on_arrival(1, 0, 2, Bytes(1)).drop,
            Some(DropReason::BufferFull)
        );
        assert_eq!(m.stats().drops_for(DropReason::QueueFull), 1);
        assert_eq!(m.stats().drops_for(DropReason::BufferFull), 2);
        assert_eq!(m.stats().pauses, 0);
        assert!(!m.is_paused(0, 0) && !m.is_paused(0, 1) && !m.is_paused(1, 2));
        assert_eq!(m.headroom_used(0, 1), Bytes::ZERO);
        // departures never resume
        assert_eq!(m.on_departure(0, 1, 0, Bytes(1000)), PfcAction::None);
        m.check_invariants().unwrap();
    }

    #[test]
    fn validate_names_the_field() {
        let field = |c: MmuConfig| c.validate().unwrap_err().field;
        let base = static_cfg();
        assert_eq!(
            field(MmuConfig {
                buffer_size: Bytes::ZERO,
                ..base.clone()
            }),
            "BufferSize"
        );
        assert_eq!(
            field(MmuConfig {
                ports: 0,
                ..base.clone()
            }),
            "Ports"
        );
        assert_eq!(
            field(MmuConfig {
                reserve: Bytes(10_000),
                ..base.clone()
            }),
            "Reserve"
        );
        // 16 000 reserved + 2 × 30 000 headroom > 76 000
        assert_eq!(
            field(MmuConfig {
                headroom: Bytes(30_000),
                ..base.clone()
            }),
            "Headroom"
        );
        assert_eq!(
            field(MmuConfig {
                headroom: Bytes(999),
                ..base.clone()
            }),
            "Headroom"
        );
        for beta in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                field(MmuConfig {
                    xoff: Xoff::Dynamic { beta },
                    ..base.clone()
                }),
                "XoffBeta"
            );
        }
        assert_eq!(
            field(MmuConfig {
                xoff: Xoff::Static(Bytes::ZERO),
                ..base.clone()
            }),
            "XoffStatic"
        );
        assert_eq!(
            field(MmuConfig {
                xon_delta: Bytes(4000),
                ..base.clone()
            }),
            "XonDelta"
        );
        assert_eq!(
            field(MmuConfig {
                egress_limit: Bytes(999),
                ..base.clone()
            }),
            "EgressLimit"
        );
        // headroom is irrelevant without lossless priorities
        MmuConfig {
            headroom: Bytes::ZERO,
            lossless: [false; PRIORITIES],
            ..base.clone()
        }
        .validate()
        .unwrap();
        // overflow-sized values do not panic
        assert_eq!(
            field(MmuConfig {
                reserve: Bytes::MAX,
                ..base.clone()
            }),
            "Reserve"
        );
        // 77 ports cannot each hold a 1000 B frame in 76 000 B
        assert_eq!(
            field(MmuConfig {
                ports: 77,
                ..base.clone()
            }),
            "Ports"
        );
        assert_eq!(
            field(MmuConfig {
                ports: usize::MAX,
                buffer_size: Bytes::MAX,
                mtu: Bytes(1),
                reserve: Bytes::MAX,
                ..base
            }),
            "Ports"
        );
    }

    #[test]
    fn validate_message_gives_numbers() {
        let e = MmuConfig {
            headroom: Bytes(30_000),
            ..static_cfg()
        }
        .validate()
        .unwrap_err();
        assert!(e.requirement.contains("60000 B"), "{e}");
        assert!(e.requirement.contains("76000 B"), "{e}");
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "out of range")]
    fn out_of_range_port_is_a_host_bug_in_debug() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        m.on_arrival(2, 0, 0, Bytes(100));
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn out_of_range_port_drops_in_release() {
        let mut m = Mmu::new(static_cfg()).unwrap();
        assert_eq!(
            m.on_arrival(2, 0, 0, Bytes(100)).drop,
            Some(DropReason::BufferFull)
        );
        assert_eq!(m.on_arrival(0, 0, 8, Bytes(100)).pfc, PfcAction::None);
        assert_eq!(m.on_departure(0, 5, 0, Bytes(100)), PfcAction::None);
        assert_eq!(m.on_departure(0, 0, 0, Bytes(100)), PfcAction::None);
        m.check_invariants().unwrap();
    }

    #[test]
    fn accessors_are_zero_out_of_range() {
        let m = Mmu::new(static_cfg()).unwrap();
        assert_eq!(m.ingress_bytes(9, 0), Bytes::ZERO);
        assert_eq!(m.egress_bytes(0, 9), Bytes::ZERO);
        assert!(!m.is_paused(9, 9));
    }

    #[derive(Debug, Clone)]
    enum Op {
        Arrive {
            in_port: usize,
            out_port: usize,
            prio: usize,
            size: u64,
        },
        /// Departure of the admitted packet at this index (modulo the number in the switch).
        Depart(usize),
    }

    fn op(ports: usize) -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0..ports, 0..ports, 0..4usize, 1u64..3000).prop_map(
                |(in_port, out_port, prio, size)| Op::Arrive { in_port, out_port, prio, size }
            ),
            2 => any::<usize>().prop_map(Op::Depart),
        ]
    }

    fn config() -> impl Strategy<Value = MmuConfig> {
        (
            1usize..4,
            500u64..1500,
            0u64..2000,
            0u64..10_000,
            prop::array::uniform4(any::<bool>()),
            prop_oneof![
                (0.05f64..16.0).prop_map(|beta| Xoff::Dynamic { beta }),
                (1u64..20_000).prop_map(|x| Xoff::Static(Bytes(x))),
            ],
            0u64..4000,
            0u64..60_000,
            0u64..20_000,
        )
            .prop_map(
                |(ports, mtu, reserve, headroom_extra, l, xoff, xon, pool, egress_extra)| {
                    let mut lossless = [false; PRIORITIES];
                    lossless[..4].copy_from_slice(&l);
                    let headroom = mtu + headroom_extra;
                    let nl = lossless.iter().filter(|&&x| x).count() as u64;
                    let n = ports as u64;
                    let xon_delta = match xoff {
                        Xoff::Static(x) => Bytes(xon % x.0),
                        Xoff::Dynamic { .. } => Bytes(xon),
                    };
                    MmuConfig {
                        buffer_size: Bytes(
                            n * PRIORITIES as u64 * reserve + n * nl * headroom + n * mtu + pool,
                        ),
                        ports,
                        mtu: Bytes(mtu),
                        reserve: Bytes(reserve),
                        headroom: Bytes(headroom),
                        xoff,
                        xon_delta,
                        lossless,
                        egress_limit: Bytes(mtu + egress_extra),
                    }
                },
            )
    }

    fn cfg_and_ops() -> impl Strategy<Value = (MmuConfig, Vec<Op>)> {
        config().prop_flat_map(|c| {
            let ports = c.ports;
            (Just(c), prop::collection::vec(op(ports), 1..300))
        })
    }

    proptest! {
        #[test]
        fn random_traffic_keeps_accounting_and_pfc_consistent((cfg, ops) in cfg_and_ops()) {
            prop_assert!(cfg.validate().is_ok(), "{:?}", cfg.validate());
            let mut m = Mmu::new(cfg.clone()).unwrap();
            let mut paused = vec![false; cfg.ports * PRIORITIES];
            let mut inside: Vec<(usize, usize, usize, Bytes)> = Vec::new();
            let mut track = |pfc: PfcAction, port: usize, prio: usize, m: &Mmu|
                -> Result<(), TestCaseError> {
                let p = &mut paused[port * PRIORITIES + prio];
                match pfc {
                    PfcAction::Pause => {
                        prop_assert!(!*p, "second PAUSE on ({}, {})", port, prio);
                        prop_assert!(cfg.lossless[prio]);
                        *p = true;
                    }
                    PfcAction::Resume => {
                        prop_assert!(*p, "RESUME without PAUSE on ({}, {})", port, prio);
                        *p = false;
                    }
                    PfcAction::None => {}
                }
                prop_assert_eq!(m.is_paused(port, prio), *p);
                Ok(())
            };
            for op in ops {
                match op {
                    Op::Arrive { in_port, out_port, prio, size } => {
                        let a = m.on_arrival(in_port, out_port, prio, Bytes(size));
                        if cfg.lossless[prio] {
                            prop_assert!(
                                a.drop.is_none() || a.drop == Some(DropReason::HeadroomOverrun),
                                "{:?}", a
                            );
                        } else {
                            prop_assert_eq!(a.pfc, PfcAction::None);
                            prop_assert!(m.egress_bytes(out_port, prio) <= cfg.egress_limit);
                        }
                        if a.admitted() {
                            inside.push((in_port, out_port, prio, Bytes(size)));
                        }
                        track(a.pfc, in_port, prio, &m)?;
                    }
                    Op::Depart(k) => {
                        if inside.is_empty() {
                            continue;
                        }
                        let (i, o, p, s) = inside.swap_remove(k % inside.len());
                        let r = m.on_departure(i, o, p, s);
                        if !cfg.lossless[p] {
                            prop_assert_eq!(r, PfcAction::None);
                        }
                        track(r, i, p, &m)?;
                    }
                }
                if let Err(e) = m.check_invariants() {
                    return Err(TestCaseError::fail(e));
                }
            }
            for (i, o, p, s) in inside.drain(..) {
                let r = m.on_departure(i, o, p, s);
                track(r, i, p, &m)?;
                if let Err(e) = m.check_invariants() {
                    return Err(TestCaseError::fail(e));
                }
            }
            prop_assert_eq!(m.occupancy(), Bytes::ZERO);
            prop_assert_eq!(m.shared_used(), Bytes::ZERO);
            for port in 0..cfg.ports {
                for prio in 0..PRIORITIES {
                    prop_assert!(!m.is_paused(port, prio));
                    prop_assert_eq!(m.ingress_bytes(port, prio), Bytes::ZERO);
                    prop_assert_eq!(m.egress_bytes(port, prio), Bytes::ZERO);
                }
            }
            prop_assert_eq!(m.stats().pauses, m.stats().resumes);
        }
    }
}
