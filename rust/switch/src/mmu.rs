//! Shared-buffer memory-management unit (MMU) of a switch, with PFC (IEEE 802.1Qbb) ingress
//! logic and the buffer settings of DCQCN (Zhu et al., "Congestion Control for Large-Scale
//! RDMA Deployments", SIGCOMM 2015, §4).
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
//! - a **headroom** for every ingress (port, *lossless* priority) queue, which absorbs what is
//!   still in flight after a PAUSE (DCQCN §4 `t_flight`): by default each port's own
//!   [`MmuConfig::headroom_needed`], from the rate and delay of its link ([`PortLink`]), or the
//!   explicit [`MmuConfig::headroom`] for every port (`#lossless · Σ_ports headroom` in total);
//! - the **shared pool**, everything else ([`Mmu::shared_pool`]).
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
//! [`DropReason::HeadroomOverrun`]. With the default headroom this cannot happen (see
//! [`MmuConfig::headroom_needed`]); an explicit headroom below it is a configuration error
//! unless [`MmuConfig::allow_headroom_overrun`] accepts overruns, which are then counted in
//! [`MmuStats`]. The drop still pauses the peer, unless the queue is empty (then no departure
//! would ever resume it). A lossless packet is never dropped for any other reason (no egress
//! limit, no shared-pool drop).
//!
//! On departure the bytes leave the headroom first, then the shared part, then the reserve.
//! A paused queue is resumed ([`PfcAction::Resume`]) when its headroom is empty and its shared
//! use is `<= XOFF − xon_delta` (saturating at zero), DCQCN §4: "RESUME when the ingress queue
//! falls below `t_PFC − 2·MTU`". Only the queue's own departures resume it: a queue that
//! empties completely is always resumed.
//!
//! ## XOFF threshold
//!
//! - [`Xoff::Static`]: a fixed number of bytes of shared use per ingress queue (by default
//!   DCQCN §4's static `t_PFC = (B − 8·n·t_flight)/(8·n)`: the shared pool split over every
//!   ingress queue).
//! - [`Xoff::Dynamic`]: DCQCN §4 `t_PFC = β·(B − 8·n·t_flight − s)/8`, with `s` the shared
//!   buffer in use. Here `B − 8·n·t_flight` becomes the configured shared pool (equal to it
//!   when all 8 priorities are lossless with a zero reserve, the paper's setting), so
//!   `XOFF = β · (shared pool − shared used) / 8`. **The `/8` is kept as the constant
//!   [`PRIORITIES`]**, not the number of lossless priorities: β keeps the paper's meaning and
//!   the paper's value β = 8 gives every queue the whole free shared buffer (the "α = 1" of
//!   commodity switches' dynamic thresholds, where `XOFF = α · free`; α = β/8). The
//!   paper's bound for ECN thresholds ([`Mmu::max_ecn_threshold_before_pfc`]) then
//!   holds with the same β.
//!
//! # Lossy priorities (PFC disabled, e.g. LDCP)
//!
//! Tail drop: [`DropReason::QueueFull`] when the egress (port, priority) queue plus the packet
//! would exceed [`MmuConfig::egress_limit`] (`buf_max`), else [`DropReason::BufferFull`] when
//! the ingress queue's free reserve plus the free shared pool cannot hold the packet. Lossy
//! queues never use headroom and never PAUSE.
//!
//! # Parameters
//!
//! [`MmuConfig`]'s parameter table ([`MmuConfig::params`]) is the one definition of each
//! setting's name, default, bounds and help; the ns-3 switch's attributes and the examples'
//! options are built from it. Errors of the single-field bounds name the Rust field
//! (`buffer_size`); the checks across fields and links name the ns-3 attributes (`BufferSize`,
//! `Headroom`, ...). The bridge renames both to what the user typed.
//!
//! # Host bugs
//!
//! A port or priority out of range is a bug in the host: it trips a `debug_assert!`, and in
//! release builds the arrival is answered with a [`DropReason::BufferFull`] drop (counted) and
//! the departure with [`PfcAction::None`], never an out-of-bounds index or panic. A departure
//! of more bytes than are queued also trips a `debug_assert!` and saturates at zero.

use crate::{DropCounts, DropReason};
use rdma_cc_core::param::{
    format_rate, format_time, Limit, Param, ParamKind, ParamSpec, ParamValue, Params,
};
use rdma_cc_core::wire::{on_wire, DATA_HEADERS, MIN_FRAME};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use serde::{Deserialize, Serialize};

/// Number of IEEE 802.1p priority classes per port.
pub const PRIORITIES: usize = 8;

/// Marks an egress queue that is not in the MMU's list of non-empty queues.
const NOT_LISTED: u32 = u32::MAX;

/// Most ports of one switch (so that every (port, priority) index fits in 32 bits).
pub const MAX_PORTS: usize = (u32::MAX as usize) / PRIORITIES;

/// How the PFC XOFF threshold of an ingress (port, priority) queue is set, once resolved by
/// [`Mmu::new`] from [`MmuConfig::xoff_beta`] and [`MmuConfig::xoff_static`].
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

/// The link on one switch port, as the MMU needs it: the headroom of the port's lossless
/// queues covers what the peer can still send after a PAUSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortLink {
    /// Line rate of the link.
    pub rate: Rate,
    /// One-way propagation delay of the link.
    pub delay: Time,
}

/// A row of an egress-queue sample ([`Mmu::sample_egress`]): the queue (port, priority)
/// and the bytes it holds.
pub trait EgressRow {
    /// The row of queue (`port`, `prio`) holding `bytes`.
    fn new(port: u32, prio: u8, bytes: Bytes) -> Self;
    /// The row's queue: (port, priority).
    fn queue(&self) -> (u32, u8);
}

impl EgressRow for (u32, u8, Bytes) {
    fn new(port: u32, prio: u8, bytes: Bytes) -> Self {
        (port, prio, bytes)
    }
    fn queue(&self) -> (u32, u8) {
        (self.0, self.1)
    }
}

impl PortLink {
    /// The links of a switch's ports from two parallel lists, port `p` at `rates_bps[p]`
    /// and `delays_ns[p]`. The error (field `links`) says when the lists differ in length.
    pub fn from_lists(rates_bps: &[u64], delays_ns: &[u64]) -> Result<Vec<PortLink>, ConfigError> {
        ConfigError::check(
            rates_bps.len() == delays_ns.len(),
            "links",
            rates_bps.len(),
            &format!("rates and delays differ in length ({})", delays_ns.len()),
        )?;
        Ok(rates_bps
            .iter()
            .zip(delays_ns)
            .map(|(&r, &d)| PortLink {
                rate: Rate(r),
                delay: Time(d),
            })
            .collect())
    }
}

/// Configuration of a switch's shared buffer and PFC thresholds (the ports come from the
/// topology: [`Mmu::new`] takes the link of every port).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MmuConfig {
    /// Total buffer `B` of the switch.
    pub buffer_size: Bytes,
    /// Reserved (guaranteed) bytes per ingress (port, priority) queue.
    pub reserve: Bytes,
    /// PFC headroom per ingress (port, lossless priority) queue (DCQCN §4 `t_flight`), the same
    /// for every port; `None`: each port's [`Self::headroom_needed`] for its link.
    pub headroom: Option<Bytes>,
    /// Accept an explicit [`Self::headroom`] below what a port's link needs: lossless packets
    /// may then be dropped (counted as [`DropReason::HeadroomOverrun`]). Off: such a headroom
    /// is a configuration error.
    pub allow_headroom_overrun: bool,
    /// β of the dynamic XOFF threshold `β · free shared buffer / 8` (DCQCN §4); 0 selects the
    /// static threshold [`Self::xoff_static`].
    pub xoff_beta: f64,
    /// Static XOFF threshold (with `xoff_beta` = 0); `None`: DCQCN §4's
    /// [`Mmu::fair_static_xoff`], the shared pool split over every ingress queue.
    pub xoff_static: Option<Bytes>,
    /// XON hysteresis: a paused queue resumes when its shared use is `<= XOFF − xon_delta`.
    pub xon_delta: Bytes,
    /// PFC enabled (lossless) per priority.
    pub lossless: [bool; PRIORITIES],
    /// Lossy egress (port, priority) queue limit `buf_max` (tail drop).
    pub egress_limit: Bytes,
    /// Largest frame (Ethernet header to FCS) the switch receives: for the headroom, the XON
    /// and the "one frame fits" checks.
    pub mtu: Bytes,
}

impl Default for MmuConfig {
    /// - `buffer_size` 12 MB: the switch of DCQCN §4 (B = 12 MB, a 32-port 40 Gb/s switch).
    /// - `reserve` 0: the paper's formulas have no per-queue reserve; with 0 they hold exactly.
    /// - `headroom` automatic: each port's [`Self::headroom_needed`] (DCQCN §4's `t_flight`,
    ///   22.4 KB for its 40 Gb/s links and 1500 B MTU, computed for every link of the fabric
    ///   and this simulator's device model), so that a lossless priority never drops.
    /// - `allow_headroom_overrun` off: an explicit headroom too small for a link is an error.
    /// - `xoff_beta` 8: DCQCN §4 (every ingress queue may take the whole free shared buffer).
    /// - `xoff_static` automatic: DCQCN §4's static `t_PFC` (used only with `xoff_beta` = 0).
    /// - `xon_delta` 3000 B: DCQCN §4 "RESUME below `t_PFC − 2·MTU`" with the paper's 1500 B MTU.
    /// - `lossless` priority 3 only: RDMA on one PFC class, as RoCEv2 deployments run it
    ///   (DCQCN §2).
    /// - `egress_limit` 375 KB = B / 32: an equal split of the paper's buffer over its ports
    ///   (LDCP's `buf_max`, "the port's buffer").
    /// - `mtu` 1062 B: the largest frame of the transport's default 1000 B payload plus the
    ///   62 B of RoCEv2 headers (Ethernet, IPv4, UDP, BTH, ICRC).
    fn default() -> Self {
        let mut lossless = [false; PRIORITIES];
        lossless[3] = true;
        MmuConfig {
            buffer_size: Bytes::mb(12),
            reserve: Bytes::ZERO,
            headroom: None,
            allow_headroom_overrun: false,
            xoff_beta: 8.0,
            xoff_static: None,
            xon_delta: Bytes(3000),
            lossless,
            egress_limit: Bytes(375_000),
            mtu: Bytes(1000 + DATA_HEADERS),
        }
    }
}

const MMU_PARAMS: &[Param<MmuConfig>] = &[
    Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            ..ParamSpec::new(
                "buffer_size",
                "buffer",
                "BufferSize",
                ParamKind::Bytes,
                "Total shared buffer B of the switch (DCQCN section 4: 12 MB). It must hold the \
                 reserves, the PFC headroom of every port and one MmuMtu of shared buffer.",
            )
        },
        get: |c| ParamValue::Bytes(c.buffer_size),
        set: |c, v| c.buffer_size = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec::new(
            "reserve",
            "reserve",
            "Reserve",
            ParamKind::Bytes,
            "Reserved (guaranteed) bytes per ingress (port, priority) queue.",
        ),
        get: |c| ParamValue::Bytes(c.reserve),
        set: |c, v| c.reserve = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            auto: Some(
                "each port's need from its link: 2 x rate x delay + 2 x (MmuMtu + 20 B) + \
                 MmuMtu + one 84 B PFC frame per lossless priority",
            ),
            ..ParamSpec::new(
                "headroom",
                "headroom",
                "Headroom",
                ParamKind::Bytes,
                "PFC headroom per ingress (port, lossless priority): absorbs what still arrives \
                 after a PAUSE (DCQCN section 4 t_flight; IEEE 802.1Qbb). An explicit value \
                 below what a port's link needs is an error unless AllowHeadroomOverrun.",
            )
        },
        get: |c| ParamValue::Bytes(c.headroom.unwrap_or(Bytes::ZERO)),
        set: |c, v| c.headroom = (v.int() != 0).then_some(Bytes(v.int())),
    },
    Param {
        spec: ParamSpec::new(
            "allow_headroom_overrun",
            "allowHeadroomOverrun",
            "AllowHeadroomOverrun",
            ParamKind::Bool,
            "Accept an explicit Headroom below what a port's link needs: lossless frames may \
             then be dropped (reason headroom_overrun, a failed invariant of every example).",
        ),
        get: |c| ParamValue::Bool(c.allow_headroom_overrun),
        set: |c, v| c.allow_headroom_overrun = v.flag(),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(0.0),
            ..ParamSpec::new(
                "xoff_beta",
                "xoffBeta",
                "XoffBeta",
                ParamKind::Real,
                "Dynamic PFC threshold: an ingress queue pauses its peer when its shared-buffer \
                 use exceeds XoffBeta x (free shared buffer) / 8 (DCQCN section 4, beta = 8). \
                 0 selects the static XoffStatic.",
            )
        },
        get: |c| ParamValue::Real(c.xoff_beta),
        set: |c, v| c.xoff_beta = v.real(),
    },
    Param {
        spec: ParamSpec {
            auto: Some("DCQCN section 4's static threshold, the shared pool / (8 x ports)"),
            ..ParamSpec::new(
                "xoff_static",
                "xoffStatic",
                "XoffStatic",
                ParamKind::Bytes,
                "Static PFC threshold on an ingress queue's shared-buffer use (with XoffBeta = \
                 0). Must be > XonDelta.",
            )
        },
        get: |c| ParamValue::Bytes(c.xoff_static.unwrap_or(Bytes::ZERO)),
        set: |c, v| c.xoff_static = (v.int() != 0).then_some(Bytes(v.int())),
    },
    Param {
        spec: ParamSpec::new(
            "xon_delta",
            "xonDelta",
            "XonDelta",
            ParamKind::Bytes,
            "Hysteresis: a paused ingress queue resumes its peer when its shared use falls to \
             XOFF - XonDelta (DCQCN section 4: 2 MTU).",
        ),
        get: |c| ParamValue::Bytes(c.xon_delta),
        set: |c, v| c.xon_delta = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            max: Limit::incl(255.0),
            ..ParamSpec::new(
                "lossless",
                "",
                "PfcPriorities",
                ParamKind::Count,
                "Bit mask of the lossless priorities (PFC enabled; bit p = priority p). Other \
                 priorities are lossy: tail drop at EgressLimit.",
            )
        },
        get: |c| ParamValue::Count(u64::from(c.lossless_mask())),
        set: |c, v| c.set_lossless_mask(v.int() as u8),
    },
    Param {
        spec: ParamSpec::new(
            "egress_limit",
            "egressLimit",
            "EgressLimit",
            ParamKind::Bytes,
            "Egress queue limit of lossy priorities (buf_max): tail drop above it.",
        ),
        get: |c| ParamValue::Bytes(c.egress_limit),
        set: |c, v| c.egress_limit = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::incl(MIN_FRAME as f64),
            ..ParamSpec::new(
                "mtu",
                "mmuMtu",
                "MmuMtu",
                ParamKind::Bytes,
                "Largest frame the switch receives (Ethernet header to FCS): for the headroom, \
                 the XON hysteresis and the one-frame checks. The default is a 1000 B payload \
                 plus 62 B of RoCEv2 headers; set it to the NICs' payload + 62 B.",
            )
        },
        get: |c| ParamValue::Bytes(c.mtu),
        set: |c, v| c.mtu = Bytes(v.int()),
    },
];

impl Params for MmuConfig {
    fn params() -> &'static [Param<Self>] {
        MMU_PARAMS
    }
}

impl MmuConfig {
    /// Number of lossless (PFC-enabled) priorities.
    pub fn lossless_priorities(&self) -> usize {
        self.lossless.iter().filter(|&&l| l).count()
    }

    /// The lossless priorities as a bit mask (bit p = priority p; attribute `PfcPriorities`).
    pub fn lossless_mask(&self) -> u8 {
        self.lossless
            .iter()
            .enumerate()
            .filter(|(_, &l)| l)
            .fold(0u8, |m, (p, _)| m | (1 << p))
    }

    /// Makes the priorities of bit mask `mask` lossless and the others lossy.
    pub fn set_lossless_mask(&mut self, mask: u8) {
        for (p, l) in self.lossless.iter_mut().enumerate() {
            *l = mask & (1 << p) != 0;
        }
    }

    /// Checks what can be checked without the ports, naming the first offending field:
    /// every field's bounds (the table); a lossless queue's explicit `Headroom` holds one
    /// `MmuMtu`; `EgressLimit` holds one `MmuMtu`; an explicit static XOFF is above `XonDelta`.
    /// [`Mmu::new`] then checks the buffer against the ports' links.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_all()?;
        if let (Some(h), true) = (self.headroom, self.lossless_priorities() > 0) {
            ConfigError::check(
                h >= self.mtu,
                "Headroom",
                h,
                &format!(
                    "must hold at least one frame of MmuMtu ({}) per lossless queue",
                    self.mtu
                ),
            )?;
        }
        if let (Some(x), true) = (self.xoff_static, self.xoff_beta == 0.0) {
            ConfigError::check(
                self.xon_delta < x,
                "XonDelta",
                self.xon_delta,
                &format!("must be < XoffStatic ({x}) so that a paused queue can resume"),
            )?;
        }
        ConfigError::check(
            self.egress_limit >= self.mtu,
            "EgressLimit",
            self.egress_limit,
            &format!("must hold at least one frame of MmuMtu ({})", self.mtu),
        )
    }

    /// Headroom an ingress (port, lossless priority) queue needs so that a PAUSE never
    /// overruns it, on a link of `link.rate` and one-way propagation delay `link.delay`, in
    /// this simulator's device model (IEEE 802.1Qbb on `QbbNetDevice`):
    ///
    /// `2·rate·delay + 2·(MmuMtu + 20 B) + MmuMtu + P·84 B`, with `P` the number of lossless
    /// priorities (rate × delay rounded up to whole bytes).
    ///
    /// The switch decides to PAUSE when an arriving frame takes the queue past XOFF (time
    /// `t0`). What can still arrive after that decision:
    /// - the part of that frame above XOFF: at most one `MmuMtu`;
    /// - a frame on the wire is never cut, so the PAUSE leaves after the frame the port may be
    ///   sending towards the peer: one frame (`MmuMtu` + 20 B of preamble and inter-frame gap)
    ///   of wire time, one direction's "full frame";
    /// - the PAUSE frame itself, 64 B + 20 B on the wire, behind at most one PFC frame of each
    ///   of the port's other lossless priorities: `P·84 B` of wire time;
    /// - one delay for the PAUSE to reach the peer;
    /// - the **PFC reaction time** of the peer: a `QbbNetDevice` acts on a PAUSE the moment
    ///   it has fully arrived (no further processing delay is modelled) and starts no new frame
    ///   of the paused class, but finishes the frame it is sending: one more frame of wire
    ///   time, the other direction's "full frame";
    /// - what the peer sent until then needs one more delay to arrive: two delays in all.
    ///
    /// The peer sends back to back at line rate, so from `t0` on it fills at most
    /// `rate × (2·delay + 2 frames + P PFC frames)` of wire time with frames, each of which
    /// adds its bytes to the headroom.
    pub fn headroom_needed(&self, link: PortLink) -> Bytes {
        let wire = link.rate.bytes_in_ceil(link.delay);
        let pfc_frames = self.lossless_priorities().max(1) as u64;
        Bytes(wire.0.saturating_mul(2))
            .saturating_add(Bytes(on_wire(self.mtu).0.saturating_mul(2)))
            .saturating_add(self.mtu)
            .saturating_add(Bytes(
                on_wire(Bytes(MIN_FRAME)).0.saturating_mul(pfc_frames),
            ))
    }

    /// The headroom of a lossless queue on a port with link `link`: the explicit
    /// [`Self::headroom`], or [`Self::headroom_needed`].
    pub fn headroom_for(&self, link: PortLink) -> Bytes {
        self.headroom.unwrap_or_else(|| self.headroom_needed(link))
    }

    /// Validates against the ports' links and builds the [`Mmu`].
    pub fn build(&self, links: &[PortLink]) -> Result<Mmu, ConfigError> {
        Mmu::new(*self, links)
    }
}

/// DCQCN §4 static `t_PFC`: the shared pool `pool` split equally over the `8·ports` ingress
/// queues ([`Mmu::fair_static_xoff`]).
fn fair_static_xoff(pool: Bytes, ports: usize) -> Bytes {
    let queues = (ports.max(1) as u64).saturating_mul(PRIORITIES as u64);
    Bytes(pool.0 / queues)
}

/// A link as the user wrote it (`100Gbps, 1us`).
fn show_link(l: PortLink) -> String {
    format!(
        "{} link with {} delay",
        format_rate(l.rate),
        format_time(l.delay)
    )
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

    /// Lossless packets dropped because the headroom overflowed: possible only with an
    /// explicit headroom that `AllowHeadroomOverrun` accepted, and reported loudly.
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
    /// The link of every port (index = port).
    links: Vec<PortLink>,
    /// Headroom of each lossless ingress queue, per port.
    headroom: Vec<Bytes>,
    /// The XOFF threshold, resolved.
    xoff: Xoff,
    /// The shared pool, computed once: `B − reserves − headrooms`.
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
    /// Validates `cfg` against the links of the switch's ports (`links[p]` is port `p`'s) and
    /// allocates the per-queue state. Besides [`MmuConfig::validate`], requires: at least one
    /// port (`Ports`) and every port able to hold one `MmuMtu` in `BufferSize`; the reserves
    /// fit in `BufferSize` (`Reserve`); an explicit `Headroom` covers every port's
    /// [`MmuConfig::headroom_needed`] unless `AllowHeadroomOverrun`; reserves, the headroom of
    /// every (port, lossless priority) and one `MmuMtu` of shared pool fit in `BufferSize`
    /// (naming `Headroom` when it was given, else `BufferSize`); the static XOFF in effect is
    /// > 0 (`XoffStatic`) and > `XonDelta`.
    pub fn new(cfg: MmuConfig, links: &[PortLink]) -> Result<Mmu, ConfigError> {
        cfg.validate()?;
        let ports = links.len();
        let b = cfg.buffer_size.0 as u128;
        ConfigError::check(
            (1..MAX_PORTS).contains(&ports),
            "Ports",
            ports,
            &format!("a switch needs 1 to {MAX_PORTS} ports"),
        )?;
        // the buffer is what the user sets (--buffer): name it, not the ports
        ConfigError::check(
            ports as u128 * cfg.mtu.0 as u128 <= b,
            "BufferSize",
            cfg.buffer_size,
            &format!(
                "must hold one frame of MmuMtu ({}) per port: {ports} ports need {} B",
                cfg.mtu,
                ports as u128 * cfg.mtu.0 as u128
            ),
        )?;
        let reserved = (ports as u128)
            .saturating_mul(PRIORITIES as u128)
            .saturating_mul(cfg.reserve.0 as u128);
        ConfigError::check(
            reserved <= b,
            "Reserve",
            cfg.reserve,
            &format!(
                "{ports} ports x {PRIORITIES} priorities x Reserve = {reserved} B must fit in \
                 BufferSize ({})",
                cfg.buffer_size
            ),
        )?;
        let lossless = cfg.lossless_priorities();
        let headroom: Vec<Bytes> = if lossless == 0 {
            vec![Bytes::ZERO; ports]
        } else {
            links.iter().map(|&l| cfg.headroom_for(l)).collect()
        };
        if let (Some(h), false, true) = (cfg.headroom, cfg.allow_headroom_overrun, lossless > 0) {
            if let Some((port, &l)) = links
                .iter()
                .enumerate()
                .find(|(_, &l)| cfg.headroom_needed(l) > h)
            {
                return Err(ConfigError::new(
                    "Headroom",
                    h,
                    format!(
                        "below the {} port {port} needs on its {} (2 x rate x delay + 2 x \
                         (MmuMtu {} + 20 B) + MmuMtu + {lossless} PFC frame(s) of 84 B): a \
                         PAUSE cannot stop the peer before the headroom overflows; leave \
                         Headroom automatic or set AllowHeadroomOverrun to accept drops",
                        cfg.headroom_needed(l),
                        show_link(l),
                        cfg.mtu
                    ),
                ));
            }
        }
        let headroom_total = headroom
            .iter()
            .fold(0u128, |acc, h| acc.saturating_add(h.0 as u128))
            .saturating_mul(lossless as u128);
        if reserved + headroom_total + cfg.mtu.0 as u128 > b {
            let detail = format!(
                "reserves ({reserved} B) + the PFC headroom of {ports} ports x {lossless} \
                 lossless priorities ({headroom_total} B) + one MmuMtu ({}) of shared buffer \
                 must fit in BufferSize ({})",
                cfg.mtu, cfg.buffer_size
            );
            return Err(match cfg.headroom {
                Some(h) => ConfigError::new("Headroom", h, detail),
                None => ConfigError::new(
                    "BufferSize",
                    cfg.buffer_size,
                    format!(
                        "{detail}; each port's headroom covers its link (Headroom automatic, \
                         e.g. {} for port 0's {})",
                        headroom[0],
                        show_link(links[0])
                    ),
                ),
            });
        }
        let pool = Bytes((b - reserved - headroom_total) as u64);
        let queues = ports * PRIORITIES;
        let xoff = if cfg.xoff_beta > 0.0 {
            Xoff::Dynamic {
                beta: cfg.xoff_beta,
            }
        } else {
            let x = cfg.xoff_static.unwrap_or(fair_static_xoff(pool, ports));
            let value = if cfg.xoff_static.is_some() {
                x.to_string()
            } else {
                format!("{x} (automatic: shared pool {pool} / {queues} ingress queues)")
            };
            ConfigError::check(x > Bytes::ZERO, "XoffStatic", &value, "must be > 0")?;
            ConfigError::check(
                cfg.xon_delta < x,
                "XonDelta",
                cfg.xon_delta,
                &format!("must be < XoffStatic ({value}) so that a paused queue can resume"),
            )?;
            Xoff::Static(x)
        };
        Ok(Mmu {
            cfg,
            links: links.to_vec(),
            headroom,
            xoff,
            pool,
            ingress: vec![Ingress::default(); queues],
            egress: vec![Bytes::ZERO; queues],
            egress_max: vec![Bytes::ZERO; queues],
            nonempty: Vec::with_capacity(queues),
            listed_at: vec![NOT_LISTED; queues],
            shared_used: Bytes::ZERO,
            occupancy: Bytes::ZERO,
            stats: MmuStats::default(),
        })
    }

    /// The configuration this MMU was built from.
    pub fn config(&self) -> &MmuConfig {
        &self.cfg
    }

    /// Number of ports.
    pub fn ports(&self) -> usize {
        self.links.len()
    }

    /// The headroom of each lossless ingress queue of `port` (0 without lossless priorities,
    /// or out of range).
    pub fn headroom(&self, port: usize) -> Bytes {
        self.headroom.get(port).copied().unwrap_or_default()
    }

    /// The XOFF threshold in effect (the static value resolved).
    pub fn xoff(&self) -> Xoff {
        self.xoff
    }

    /// Index of (port, prio), or `None` if out of range.
    #[inline]
    fn index(&self, port: usize, prio: usize) -> Option<usize> {
        (port < self.links.len() && prio < PRIORITIES).then(|| port * PRIORITIES + prio)
    }

    /// Current XOFF threshold on an ingress queue's shared use: the static value, or
    /// `β · (shared pool − shared used) / 8` (DCQCN §4; see the module docs).
    pub fn xoff_threshold(&self) -> Bytes {
        match self.xoff {
            Xoff::Static(x) => x,
            Xoff::Dynamic { beta } => {
                let free = self.pool.saturating_sub(self.shared_used);
                // DCQCN §4: t_PFC = β·(B − 8·n·t_flight − s)/8; `as` saturates.
                Bytes((beta * free.0 as f64 / PRIORITIES as f64) as u64)
            }
        }
    }

    /// DCQCN §4 static `t_PFC = (B − 8·n·t_flight)/(8·n)`: the shared pool split equally over
    /// all `8·n` ingress queues, so that no ingress queue can be starved of shared buffer (the
    /// automatic [`MmuConfig::xoff_static`]).
    pub fn fair_static_xoff(&self) -> Bytes {
        fair_static_xoff(self.pool, self.ports())
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
        let n = self.ports().max(1) as u64;
        match self.xoff {
            Xoff::Static(x) => Bytes(x.0.div_ceil(n)),
            Xoff::Dynamic { beta } => {
                let s = self.pool.0 as f64;
                let bound = beta * s / (PRIORITIES as f64 * n as f64 * (beta + 1.0));
                // `as` saturates (NaN → 0): never panics on a bad beta.
                Bytes(bound.ceil() as u64)
            }
        }
    }

    /// Start-up warnings (not errors) for a researcher, one sentence each; empty when the
    /// configuration is consistent. Only meaningful when some priority is lossless; with none,
    /// there is nothing to warn about.
    ///
    /// - `k_min` (the smallest ECN threshold of the switch's egress policies, if it has any)
    ///   not below [`Self::max_ecn_threshold_before_pfc`]: PFC may fire before ECN.
    /// - an explicit headroom below a port's [`MmuConfig::headroom_needed`], accepted by
    ///   `AllowHeadroomOverrun`: lossless packets may be dropped (one warning per distinct
    ///   link).
    pub fn warnings(&self, k_min: Option<Bytes>) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.cfg.lossless_priorities() == 0 {
            return warnings;
        }
        let bound = self.max_ecn_threshold_before_pfc();
        if let Some(k_min) = k_min.filter(|&k| k >= bound) {
            warnings.push(format!(
                "ECN threshold KMin ({k_min}) is not below {bound}, the largest value for which \
                 ECN triggers before PFC with BufferSize {}, {} ports and {:?} (DCQCN section 4): \
                 PFC may pause links before senders see congestion marks",
                self.cfg.buffer_size,
                self.ports(),
                self.xoff
            ));
        }
        if let Some(h) = self.cfg.headroom {
            let mut seen: Vec<PortLink> = Vec::new();
            for (port, &l) in self.links.iter().enumerate() {
                let needed = self.cfg.headroom_needed(l);
                if needed > h && !seen.contains(&l) {
                    seen.push(l);
                    warnings.push(format!(
                        "PFC Headroom ({h}) is below the {needed} needed on port {port}'s {} \
                         with MmuMtu {} (2 x rate x delay + 2 frames on the wire + one frame + \
                         the PFC frames), accepted by AllowHeadroomOverrun: lossless frames may \
                         be dropped (headroom overrun)",
                        show_link(l),
                        self.cfg.mtu
                    ));
                }
            }
        }
        warnings
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
                self.ports()
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
            let overrun = to_headroom > self.headroom[in_port].saturating_sub(q.headroom);
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
            // Lossy: tail drop at buf_max, then at a full buffer.
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
                self.ports()
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

    /// The non-empty egress queues of the priorities in `prio_mask` (bit `p`: priority `p`),
    /// written into `out` (cleared first) in (port, priority) order: a queue-depth sample.
    pub fn sample_egress<T: EgressRow>(&self, prio_mask: u8, out: &mut Vec<T>) {
        out.clear();
        out.extend(
            self.nonempty_egress()
                .filter(|&(_, prio, _)| prio_mask & (1 << prio) != 0)
                .map(|(port, prio, bytes)| T::new(port as u32, prio as u8, bytes)),
        );
        out.sort_unstable_by_key(T::queue);
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

    /// Size of the shared pool: `B − reserves − the headroom of every (port, lossless priority)`
    /// (DCQCN §4 `B − 8·n·t_flight` when all 8 priorities are lossless and the reserve is 0).
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
                self.headroom[port]
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

    #[test]
    fn the_lossless_mask_is_bit_p_for_priority_p() {
        let mut c = MmuConfig::default();
        c.set_lossless_mask(0b1000_1001);
        assert_eq!(
            c.lossless,
            [true, false, false, true, false, false, false, true]
        );
        assert_eq!(
            (c.lossless_mask(), c.lossless_priorities()),
            (0b1000_1001, 3)
        );
        c.set_lossless_mask(0);
        assert_eq!(c.lossless_mask(), 0);
    }

    const P3: usize = 3;

    fn only(prio: usize) -> [bool; PRIORITIES] {
        let mut l = [false; PRIORITIES];
        l[prio] = true;
        l
    }

    /// `n` ports on 1 Gb/s links without delay: a lossless queue needs
    /// 2 x 1020 + 1000 + 84 = 3124 B of headroom with 1000 B frames.
    fn links(n: usize) -> Vec<PortLink> {
        vec![
            PortLink {
                rate: Rate::gbps(1),
                delay: Time::ZERO,
            };
            n
        ]
    }

    /// reserve 1000, headroom 5000, static XOFF 4000, XON delta 2000, priority 3 lossless;
    /// on 2 ports (`links(2)`): shared pool = 76 000 − 16 000 − 10 000 = 50 000.
    fn static_cfg() -> MmuConfig {
        MmuConfig {
            buffer_size: Bytes(76_000),
            mtu: Bytes(1000),
            reserve: Bytes(1000),
            headroom: Some(Bytes(5000)),
            allow_headroom_overrun: false,
            xoff_beta: 0.0,
            xoff_static: Some(Bytes(4000)),
            xon_delta: Bytes(2000),
            lossless: only(P3),
            egress_limit: Bytes(3000),
        }
    }

    fn two_ports(c: MmuConfig) -> Mmu {
        Mmu::new(c, &links(2)).unwrap()
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
        // 32 ports of 100 Gb/s with 1 µs links: 2 × 12 500 + 2 × 1082 + 1062 + 84 each
        let l = PortLink {
            rate: Rate::gbps(100),
            delay: Time::us(1),
        };
        assert_eq!(c.headroom_needed(l), Bytes(28_310));
        let m = Mmu::new(c, &[l; 32]).unwrap();
        assert_eq!(m.headroom(31), Bytes(28_310));
        // 12 MB − 32 ports × 1 lossless priority × 28 310 B
        assert_eq!(m.shared_pool(), Bytes(11_094_080));
        assert_eq!(m.xoff(), Xoff::Dynamic { beta: 8.0 });
        // DCQCN's 2 MTU of its 1500 B frames
        assert_eq!(c.xon_delta, Bytes(2 * 1500));
        assert_eq!(c.mtu, Bytes(1062));
    }

    #[test]
    fn static_xoff_fills_reserve_then_shared_then_pauses_once_into_headroom() {
        let mut m = two_ports(static_cfg());
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
        let mut m = two_ports(static_cfg());
        m.on_arrival(0, 1, P3, Bytes(1000)); // reserve
        m.on_arrival(0, 1, P3, Bytes(3500)); // shared 3500
        let a = m.on_arrival(0, 1, P3, Bytes(1000));
        assert_eq!(a.pfc, PfcAction::Pause);
        assert_eq!(m.ingress_shared_bytes(0, P3), Bytes(4000));
        assert_eq!(m.headroom_used(0, P3), Bytes(500));
    }

    #[test]
    fn lossless_over_xoff_pauses_even_when_the_packet_overruns_headroom() {
        let mut m = two_ports(static_cfg());
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
        let mut m = two_ports(c);
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
        c.xoff_static = Some(Bytes(60_000));
        let mut m = two_ports(c);
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
            mtu: Bytes(1000),
            reserve: Bytes::ZERO,
            headroom: Some(Bytes(10_000)),
            allow_headroom_overrun: false,
            xoff_beta: 2.0,
            xoff_static: None,
            xon_delta: Bytes(2000),
            lossless: only(P3),
            egress_limit: Bytes(100_000),
        };
        let mut m = two_ports(c);
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
        let mut m = two_ports(static_cfg());
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
    fn egress_samples_keep_the_masked_priorities_in_port_then_priority_order() {
        let mut m = two_ports(static_cfg());
        m.on_arrival(0, 1, 3, Bytes(700));
        m.on_arrival(0, 0, 2, Bytes(500));
        m.on_arrival(1, 1, 0, Bytes(100));
        m.on_arrival(1, 0, 3, Bytes(300));
        let mut out = vec![(9, 9, Bytes(9))];
        m.sample_egress(0xff, &mut out);
        assert_eq!(
            out,
            [
                (0, 2, Bytes(500)),
                (0, 3, Bytes(300)),
                (1, 0, Bytes(100)),
                (1, 3, Bytes(700))
            ]
        );
        // priority 3 only (bit 3); priority 2 and 0 left out
        m.sample_egress(1 << 3, &mut out);
        assert_eq!(out, [(0, 3, Bytes(300)), (1, 3, Bytes(700))]);
        m.sample_egress(0, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn port_links_come_from_parallel_lists_of_equal_length() {
        let l = PortLink::from_lists(&[100, 200], &[5, 6]).unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!((l[1].rate, l[1].delay), (Rate(200), Time(6)));
        let e = PortLink::from_lists(&[100, 200], &[5]).unwrap_err();
        assert_eq!(e.field, "links");
        assert!(e.to_string().contains("differ in length (1)"), "{e}");
    }

    #[test]
    fn nonempty_egress_lists_exactly_the_queues_holding_bytes() {
        let mut m = two_ports(static_cfg());
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
        // B = 12 MB, n = 32, t_flight = 22.4 KB on all 8 priorities, β = 8, 1500 B MTU,
        // 40 Gb/s links
        let c = MmuConfig {
            buffer_size: Bytes::mb(12),
            mtu: Bytes(1500),
            headroom: Some(Bytes(22_400)),
            reserve: Bytes::ZERO,
            lossless: [true; PRIORITIES],
            xoff_beta: 8.0,
            ..MmuConfig::default()
        };
        let l = PortLink {
            rate: Rate::gbps(40),
            delay: Time::us(1),
        };
        let m = Mmu::new(c, &[l; 32]).unwrap();
        // B − 8·n·t_flight
        assert_eq!(m.shared_pool(), Bytes(6_265_600));
        // static t_PFC = (B − 8·n·t_flight)/(8·n)
        assert_eq!(m.fair_static_xoff(), Bytes(24_475));
        // t_ECN < β(B − 8 n t_flight)/(8 n (β+1)) = 21 755.6 B, the paper's 21.75 KB
        let bound = m.max_ecn_threshold_before_pfc();
        assert_eq!(bound, Bytes(21_756));
        assert!(bound.0.abs_diff(21_750) <= 500);
        // with the static threshold the bound is t_PFC / n, below one MTU (the paper's point);
        // the automatic static threshold is the paper's
        let s = Mmu::new(
            MmuConfig {
                xoff_beta: 0.0,
                ..c
            },
            &[l; 32],
        )
        .unwrap();
        assert_eq!(s.xoff(), Xoff::Static(Bytes(24_475)));
        assert_eq!(s.max_ecn_threshold_before_pfc(), Bytes(765));
        assert!(s.max_ecn_threshold_before_pfc() < c.mtu);
        // at dynamic XOFF with an empty buffer, one queue may take β/8 of the free pool
        assert_eq!(m.xoff_threshold(), Bytes(6_265_600));
        // warnings: the paper's K_min = 5 KB is fine, 30 KB is not; no marking, no warning
        assert!(m.warnings(Some(Bytes(5000))).is_empty());
        assert!(m.warnings(None).is_empty());
        let w = m.warnings(Some(Bytes(30_000)));
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("KMin"), "{}", w[0]);
    }

    #[test]
    fn headroom_needed_covers_two_delays_three_frames_and_the_pfc_frames() {
        let c = MmuConfig {
            mtu: Bytes(1500),
            ..MmuConfig::default()
        };
        // 40 Gb/s × 1 µs = 5000 B; 2·5000 + 2·1520 + 1500 + 84
        let l = PortLink {
            rate: Rate::gbps(40),
            delay: Time::us(1),
        };
        assert_eq!(c.headroom_needed(l), Bytes(14_624));
        // rate × delay is rounded up: 100 Gb/s × 2055 ns = 25 687.5 B
        let l = PortLink {
            rate: Rate::gbps(100),
            delay: Time::ns(2055),
        };
        assert_eq!(c.headroom_needed(l), Bytes(2 * 25_688 + 3040 + 1500 + 84));
        // one PFC frame per lossless priority
        let all = MmuConfig {
            lossless: [true; PRIORITIES],
            ..c
        };
        assert_eq!(all.headroom_needed(l) - c.headroom_needed(l), Bytes(7 * 84));
        // automatic: each port its own link's
        let slow = PortLink {
            rate: Rate::gbps(25),
            delay: Time::us(1),
        };
        let m = Mmu::new(c, &[l, slow]).unwrap();
        assert_eq!(m.headroom(0), c.headroom_needed(l));
        assert_eq!(m.headroom(1), c.headroom_needed(slow));
        assert!(m.headroom(1) < m.headroom(0));
        assert!(m.warnings(None).is_empty());
    }

    #[test]
    fn explicit_headroom_below_the_link_need_is_an_error_unless_allowed() {
        let l = PortLink {
            rate: Rate::gbps(100),
            delay: Time::us(1),
        };
        let c = MmuConfig {
            headroom: Some(Bytes(3000)),
            ..MmuConfig::default()
        };
        let e = Mmu::new(c, &[l; 4]).unwrap_err();
        assert_eq!(e.field, "Headroom");
        assert!(
            e.to_string().starts_with(
                "invalid Headroom = 3000 B: below the 28310 B port 0 needs on its 100Gbps link \
                 with 1us delay"
            ),
            "{e}"
        );
        assert!(e.requirement.contains("AllowHeadroomOverrun"), "{e}");
        // exactly the need is enough
        Mmu::new(
            MmuConfig {
                headroom: Some(Bytes(28_310)),
                ..c
            },
            &[l; 4],
        )
        .unwrap();
        // allowed: built, with a warning per distinct link
        let m = Mmu::new(
            MmuConfig {
                allow_headroom_overrun: true,
                ..c
            },
            &[l; 4],
        )
        .unwrap();
        assert_eq!(m.headroom(2), Bytes(3000));
        let w = m.warnings(None);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("PFC Headroom (3000 B) is below the 28310 B needed"),
            "{}",
            w[0]
        );
        // without a lossless priority the headroom is irrelevant
        let lossy = MmuConfig {
            lossless: [false; PRIORITIES],
            ..c
        };
        let m = Mmu::new(lossy, &[l; 4]).unwrap();
        assert_eq!(m.headroom(0), Bytes::ZERO);
        assert_eq!(m.shared_pool(), Bytes::mb(12));
    }

    #[test]
    fn the_buffer_must_cover_every_port_headroom() {
        let l = PortLink {
            rate: Rate::gbps(100),
            delay: Time::us(1),
        };
        // 33 ports × 28 310 B = 934 230 B + 1062 B > 900 000 B
        let c = MmuConfig {
            buffer_size: Bytes(900_000),
            ..MmuConfig::default()
        };
        let e = Mmu::new(c, &[l; 33]).unwrap_err();
        assert_eq!(e.field, "BufferSize");
        assert!(e.requirement.contains("934230 B"), "{e}");
        assert!(e.requirement.contains("28310 B"), "{e}");
        // 31 ports fit: 877 610 + 1062 <= 900 000
        Mmu::new(c, &[l; 31]).unwrap();
        // an explicit headroom is named instead
        let e = Mmu::new(
            MmuConfig {
                headroom: Some(Bytes(30_000)),
                ..c
            },
            &[l; 33],
        )
        .unwrap_err();
        assert_eq!(e.field, "Headroom");
    }

    #[test]
    fn no_warnings_without_lossless_priorities() {
        let c = MmuConfig {
            lossless: [false; PRIORITIES],
            headroom: Some(Bytes(1000)),
            ..MmuConfig::default()
        };
        let l = PortLink {
            rate: Rate::gbps(100),
            delay: Time::ms(1),
        };
        assert!(Mmu::new(c, &[l; 2])
            .unwrap()
            .warnings(Some(Bytes::mb(1)))
            .is_empty());
    }

    #[test]
    fn lossy_tail_drops_at_egress_limit_and_full_buffer_without_pfc() {
        // pool 50 000 with reserve 1000 per queue; egress_limit 3000
        let mut c = static_cfg();
        c.egress_limit = Bytes(30_000);
        let mut m = two_ports(c);
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
        let field = |c: MmuConfig, ports: usize| Mmu::new(c, &links(ports)).unwrap_err().field;
        let base = static_cfg();
        // single-field bounds (the table) name the Rust field
        assert_eq!(
            field(
                MmuConfig {
                    buffer_size: Bytes::ZERO,
                    ..base
                },
                2
            ),
            "buffer_size"
        );
        assert_eq!(
            field(
                MmuConfig {
                    mtu: Bytes(63),
                    ..base
                },
                2
            ),
            "mtu"
        );
        for beta in [-1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                field(
                    MmuConfig {
                        xoff_beta: beta,
                        ..base
                    },
                    2
                ),
                "xoff_beta"
            );
        }
        // checks across fields and ports name the attribute
        assert_eq!(field(base, 0), "Ports");
        assert_eq!(
            field(
                MmuConfig {
                    reserve: Bytes(10_000),
                    ..base
                },
                2
            ),
            "Reserve"
        );
        // 16 000 reserved + 2 × 30 000 headroom > 76 000
        assert_eq!(
            field(
                MmuConfig {
                    headroom: Some(Bytes(30_000)),
                    ..base
                },
                2
            ),
            "Headroom"
        );
        assert_eq!(
            field(
                MmuConfig {
                    headroom: Some(Bytes(999)),
                    ..base
                },
                2
            ),
            "Headroom"
        );
        assert_eq!(
            field(
                MmuConfig {
                    xon_delta: Bytes(4000),
                    ..base
                },
                2
            ),
            "XonDelta"
        );
        assert_eq!(
            field(
                MmuConfig {
                    egress_limit: Bytes(999),
                    ..base
                },
                2
            ),
            "EgressLimit"
        );
        // an automatic static threshold too small for the XON hysteresis: 50 000 / 16 = 3125
        let e = Mmu::new(
            MmuConfig {
                xoff_static: None,
                xon_delta: Bytes(3125),
                ..base
            },
            &links(2),
        )
        .unwrap_err();
        assert_eq!(e.field, "XonDelta");
        assert!(e.requirement.contains("automatic"), "{e}");
        // headroom is irrelevant without lossless priorities
        Mmu::new(
            MmuConfig {
                headroom: Some(Bytes(1)),
                lossless: [false; PRIORITIES],
                ..base
            },
            &links(2),
        )
        .unwrap();
        // overflow-sized values do not panic
        assert_eq!(
            field(
                MmuConfig {
                    reserve: Bytes::MAX,
                    ..base
                },
                2
            ),
            "Reserve"
        );
        // 77 ports cannot each hold a 1000 B frame in 76 000 B: the buffer is at fault
        assert_eq!(field(base, 77), "BufferSize");
        assert_eq!(
            field(
                MmuConfig {
                    buffer_size: Bytes::MAX,
                    reserve: Bytes::MAX,
                    ..base
                },
                3
            ),
            "Reserve"
        );
    }

    #[test]
    fn validate_message_gives_numbers() {
        let e = Mmu::new(
            MmuConfig {
                headroom: Some(Bytes(30_000)),
                ..static_cfg()
            },
            &links(2),
        )
        .unwrap_err();
        assert!(e.requirement.contains("60000 B"), "{e}");
        assert!(e.requirement.contains("76000 B"), "{e}");
    }

    #[test]
    fn table_defaults_are_valid_and_print_as_they_parse() {
        let d = MmuConfig::default();
        for (i, p) in MmuConfig::params().iter().enumerate() {
            let v = d.get_param(i).unwrap();
            p.spec.check(&v, p.spec.name).unwrap();
            assert_eq!(p.spec.parse(&v.to_string(), p.spec.name).unwrap(), v);
            assert!(!p.spec.help.is_empty());
        }
        let mask = MmuConfig::params()
            .iter()
            .position(|p| p.spec.attr == "PfcPriorities")
            .unwrap();
        assert_eq!(d.get_param(mask), Some(ParamValue::Count(0x08)));
        let mut c = d;
        c.set_param(mask, &ParamValue::Count(0x11)).unwrap();
        assert_eq!(c.lossless_priorities(), 2);
        assert!(c.lossless[0] && c.lossless[4]);
        assert!(c.set_param(mask, &ParamValue::Count(256)).is_err());
        let headroom = MmuConfig::params()
            .iter()
            .position(|p| p.spec.attr == "Headroom")
            .unwrap();
        assert_eq!(
            MmuConfig::params()[headroom]
                .spec
                .parse("auto", "--headroom"),
            Ok(ParamValue::Bytes(Bytes::ZERO))
        );
        c.set_param(headroom, &ParamValue::Bytes(Bytes(40_000)))
            .unwrap();
        assert_eq!(c.headroom, Some(Bytes(40_000)));
        c.set_param(headroom, &ParamValue::Bytes(Bytes::ZERO))
            .unwrap();
        assert_eq!(c.headroom, None);
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "out of range")]
    fn out_of_range_port_is_a_host_bug_in_debug() {
        let mut m = two_ports(static_cfg());
        m.on_arrival(2, 0, 0, Bytes(100));
    }

    #[cfg(not(debug_assertions))]
    #[test]
    fn out_of_range_port_drops_in_release() {
        let mut m = two_ports(static_cfg());
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
        let m = two_ports(static_cfg());
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

    fn config() -> impl Strategy<Value = (MmuConfig, usize)> {
        (
            1usize..4,
            500u64..1500,
            0u64..2000,
            0u64..10_000,
            prop::array::uniform4(any::<bool>()),
            prop_oneof![
                (0.05f64..16.0).prop_map(|beta| (beta, 0u64)),
                (1u64..20_000).prop_map(|x| (0.0, x)),
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
                    let (xoff_beta, xoff_static) = xoff;
                    let xon_delta = if xoff_beta == 0.0 {
                        Bytes(xon % xoff_static)
                    } else {
                        Bytes(xon)
                    };
                    let cfg = MmuConfig {
                        buffer_size: Bytes(
                            n * PRIORITIES as u64 * reserve + n * nl * headroom + n * mtu + pool,
                        ),
                        mtu: Bytes(mtu),
                        reserve: Bytes(reserve),
                        headroom: Some(Bytes(headroom)),
                        // headrooms below the links' need: overruns must stay consistent too
                        allow_headroom_overrun: true,
                        xoff_beta,
                        xoff_static: (xoff_static > 0).then_some(Bytes(xoff_static)),
                        xon_delta,
                        lossless,
                        egress_limit: Bytes(mtu + egress_extra),
                    };
                    (cfg, ports)
                },
            )
    }

    fn cfg_and_ops() -> impl Strategy<Value = ((MmuConfig, usize), Vec<Op>)> {
        config().prop_flat_map(|c| {
            let ports = c.1;
            (Just(c), prop::collection::vec(op(ports), 1..300))
        })
    }

    proptest! {
        #[test]
        fn random_traffic_keeps_accounting_and_pfc_consistent(((cfg, ports), ops) in cfg_and_ops()) {
            let built = Mmu::new(cfg, &links(ports));
            prop_assert!(built.is_ok(), "{:?}", built.err());
            let mut m = built.unwrap();
            let mut paused = vec![false; ports * PRIORITIES];
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
            for port in 0..ports {
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
