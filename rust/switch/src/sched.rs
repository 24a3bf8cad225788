//! Egress scheduling of one port: which queued frame (or which ready flow) is sent next.
//!
//! One [`Scheduler`] per transmitting port — every switch egress port and every host NIC's
//! transmit side. The host (the ns-3 device) keeps the frames; the scheduler keeps, per class,
//! a FIFO of *items* with the frames' metadata ([`QueuedPacket`], carrying the host's slot
//! handle) or *flows* (a host NIC's queue pairs, served lazily: see below), and answers
//! [`Scheduler::next`] with a [`Pick`].
//!
//! # Classes
//!
//! - The **control class** (ACK, NACK, CNP, probe responses, switch-originated frames: every
//!   [`PacketKind::is_control`] kind) has strict priority over data and is never paused: IEEE
//!   802.1Q strict-priority selection, with the control traffic in the highest class.
//!   PFC frames themselves are MAC control and never reach the scheduler (the device sends them
//!   first).
//! - **8 data classes**, one per IEEE 802.1p priority, each of which the peer can PAUSE (IEEE
//!   802.1Qbb). A paused class is never picked. Among the data classes the [`DataPolicy`]
//!   decides:
//!   - [`DataPolicy::RoundRobin`] (default): per-packet round robin over the non-empty,
//!     non-paused classes, starting after the class served last;
//!   - [`DataPolicy::Dwrr`]: deficit weighted round robin (Shreedhar and Varghese, "Efficient
//!     fair queuing using deficit round robin", SIGCOMM 1995) in its credit form (as Linux's
//!     `fq` qdisc): the class at the cursor sends while its credit is positive and is charged
//!     each frame's bytes after sending it; a class whose credit is used up gets one quantum
//!     more and passes the turn. Charging after the fact serves flows whose next frame size is
//!     unknown until they are asked; long-run byte shares are proportional to the quanta. An
//!     emptied class keeps a debt but forfeits unused credit (DRR resets an idle queue's
//!     deficit);
//!   - [`DataPolicy::StrictPriority`]: the highest-numbered eligible class first (IEEE 802.1Q
//!     strict priority: 7 is the highest priority).
//!
//! # Flows (lazy items)
//!
//! A host NIC does not build a frame before the link can take it (its congestion controller
//! decides at that moment). Its ready queue pairs are *flow items* in their priority's class
//! ([`Scheduler::add_flow`]). When a flow item is picked ([`Pick::Flow`]) the host asks the
//! flow for a frame and reports the result with [`Scheduler::flow_served`]: if the flow sent
//! one, the item rotates to the back of its class (round robin over the ready flows of a
//! class), and DWRR charges the bytes; if it had nothing, the item leaves the class until the
//! host adds it again when the flow becomes ready. A host adds a flow only when it is not in
//! the scheduler (it keeps that state itself).
//!
//! # RCM's regional congestion control
//!
//! The switch sets a data class's RCC ([`Scheduler::set_rcc`]: the budget `(W, W_c)` and the
//! congestion flows, Liu et al., NPC 2017 §3.4). The paper's switch keeps the packets of each
//! input in virtual output queues, so its output scheduler can pass over the congestion flows'
//! packets whenever they were queued; here each data class is one [`ClassQueue`] with a second
//! FIFO for them: when the class is served, the congestion-flow packets at the head of its
//! queue move to the second FIFO (each packet at most once, in arrival order), so RCC applies
//! at once to packets queued before it started. Within a class the older head of the two FIFOs
//! goes first, except that a congestion-flow packet waits once the congestion flows have sent
//! `W_c` in the current window of `W` bytes while another packet of the class waits
//! ([`RccWindow`]). A class with work is always eligible (a window ends when nothing else
//! waits: the port never idles). The second FIFO holds frames of congestion flows only, so a
//! flow keeps its order: while it is a congestion flow each of its frames reaching the head
//! moves there, and the first FIFO's head is never one of them; when the congestion flows
//! change (or RCC stops), the frames of flows that are no longer congestion flows move back
//! to the first FIFO, merged in arrival order, so that they are not held behind the
//! congestion flows' frames. With a timed window ([`Scheduler::set_rcc_timed`], RCM's
//! `rcc_timed`) the congestion flows may send `W_c` per period and a class whose only frames
//! are held ones is not eligible: [`Pick::WaitUntil`] the next period. Served packets say which
//! FIFO they came from ([`QueuedPacket::rcc`]), and [`ClassQueue::rcc_bytes`] is what the
//! switch's congestion point leaves out of the queue.
//!
//! # Input-fair service (VOQ)
//!
//! Off by default: a data class is served in arrival order (one FIFO per egress queue).
//! With [`Scheduler::set_input_fair`] (a switch's `Voq`), the frames of a data class's first
//! FIFO are served by deficit round robin by bytes over the *input ports* that have frames
//! queued in it, as an input-queued switch with virtual output queues and a fair crossbar
//! schedule serves its inputs (Liu et al., NPC 2017 §4.1: "input-and-output queuing
//! architecture, with virtual input queues (VOQ) at the input port"; §4.2: "because of the
//! fair scheduling"): the input port at the cursor sends its oldest frame while its credit is
//! positive and is charged the frame's bytes; an input whose credit is used up gets one
//! quantum ([`INPUT_DRR_QUANTUM`]) more and passes the turn; an input with nothing queued
//! forfeits unused credit. Each input's frames keep their order (so does every flow: a flow
//! arrives on one port). The control class stays FIFO. With RCM the choice between the two
//! FIFOs is unchanged (the older head goes, under the window); each FIFO serves its frames
//! by DRR over their inputs (a DRR state each), and the first FIFO's pick passes over
//! congestion-flow frames not yet moved to the second. The cost is a scan of the class's
//! first FIFO per frame sent (O(frames queued + ports)), only when the service is on.
//!
//! A class can also be held until a time ([`Scheduler::hold`]); when only held classes have
//! work, the answer is [`Pick::WaitUntil`], and the host calls `next` again at that time.
//!
//! Nothing here allocates per packet once the queues' capacities have grown to the working
//! set (a `VecDeque` keeps its capacity).

use crate::flows::FlowList;
use crate::window::RccWindow;
use rdma_cc_core::{Bytes, ConfigError, PacketKind, Time};
use std::collections::VecDeque;

/// Number of data classes (IEEE 802.1p priorities).
pub const DATA_CLASSES: usize = 8;

/// Bytes of DWRR quantum per unit of weight in the `dwrr:` form of [`DataPolicy::parse`]:
/// one standard Ethernet MTU, so that a class of weight 1 sends at least one full frame
/// per round.
pub const DWRR_WEIGHT_UNIT: Bytes = Bytes(1500);

/// Quantum of the input-fair service ([`Scheduler::set_input_fair`]): bytes an input port
/// may send per round, one standard Ethernet MTU.
pub const INPUT_DRR_QUANTUM: Bytes = Bytes(1500);

/// Largest weight accepted by [`DataPolicy::parse`].
pub const DWRR_MAX_WEIGHT: u64 = 1_000_000;

/// How the data classes share a port (the control class always goes first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DataPolicy {
    /// Per-packet round robin over the non-empty, non-paused classes, starting after the class
    /// served last.
    #[default]
    RoundRobin,
    /// Deficit weighted round robin with a quantum per class (bytes, each > 0).
    Dwrr {
        /// Quantum of each data class.
        quantum: [Bytes; DATA_CLASSES],
    },
    /// Strict priority: the highest-numbered eligible class first.
    StrictPriority,
}

impl DataPolicy {
    /// The attribute form of the default policy ([`DataPolicy::RoundRobin`]).
    pub const DEFAULT_FORM: &'static str = "rr";

    /// The help text of the attribute form [`Self::parse`] reads.
    pub fn help() -> String {
        format!(
            "How the {DATA_CLASSES} data classes share the port (the control class always goes \
             first): rr (round robin over the classes with frames, per frame), strict (highest \
             priority first, IEEE 802.1Q), or dwrr:w0,w1,...,w{} (deficit weighted round robin; \
             class c's quantum is w_c x {} B, weights integers in [1, {DWRR_MAX_WEIGHT}]).",
            DATA_CLASSES - 1,
            DWRR_WEIGHT_UNIT.0
        )
    }

    /// Parses the ns-3 attribute form (`DataScheduler`): `rr`, `strict`, or
    /// `dwrr:w0,w1,...,w7` with eight integer weights in `[1, DWRR_MAX_WEIGHT]` (class `c`'s
    /// quantum = `w_c` × [`DWRR_WEIGHT_UNIT`]). The error names the field `DataScheduler`.
    pub fn parse(s: &str) -> Result<DataPolicy, ConfigError> {
        let bad = |why: &str| ConfigError::new("DataScheduler", s, why);
        match s.trim() {
            "rr" => return Ok(DataPolicy::RoundRobin),
            "strict" => return Ok(DataPolicy::StrictPriority),
            _ => {}
        }
        let Some(list) = s.trim().strip_prefix("dwrr:") else {
            return Err(bad("must be rr, strict or dwrr:w0,w1,...,w7"));
        };
        let mut quantum = [Bytes::ZERO; DATA_CLASSES];
        let mut n = 0;
        for w in list.split(',') {
            let v: u64 = w.trim().parse().map_err(|_| {
                bad(&format!(
                    "DWRR weight {w:?} is not an integer (dwrr:w0,w1,...,w7)"
                ))
            })?;
            if !(1..=DWRR_MAX_WEIGHT).contains(&v) {
                return Err(bad(&format!(
                    "DWRR weights must be in [1, {DWRR_MAX_WEIGHT}] (got {v})"
                )));
            }
            if n == DATA_CLASSES {
                return Err(bad("needs exactly 8 DWRR weights, one per priority"));
            }
            quantum[n] = Bytes(v * DWRR_WEIGHT_UNIT.0);
            n += 1;
        }
        if n != DATA_CLASSES {
            return Err(bad("needs exactly 8 DWRR weights, one per priority"));
        }
        Ok(DataPolicy::Dwrr { quantum })
    }

    /// Checks the policy: every DWRR quantum > 0 (field `DataScheduler`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let DataPolicy::Dwrr { quantum } = self {
            ConfigError::check(
                quantum
                    .iter()
                    .all(|q| q.0 > 0 && q.0 <= i64::MAX as u64 / 4),
                "DataScheduler",
                format!("{quantum:?}"),
                "every DWRR quantum must be > 0",
            )?;
        }
        Ok(())
    }
}

/// Where a frame waits: the control class or a data class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// The strict-priority control class.
    Control,
    /// Data class (priority) `0..8`.
    Data(u8),
}

/// What the scheduler keeps about a queued frame (the frame itself stays with the host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueuedPacket {
    /// The host's handle of the frame (a slot in its table).
    pub handle: u32,
    /// Frame bytes.
    pub size: Bytes,
    /// Kind; control kinds go to the control class.
    pub kind: PacketKind,
    /// Priority (data class) of the frame; kept for control frames too (the host's accounting).
    pub prio: u8,
    /// Fabric-wide flow id (source and queue pair), for per-flow rules such as RCM's.
    pub flow: u64,
    /// When the frame was queued here.
    pub arrival: Time,
    /// Port the frame arrived on (switches; 0 at a host).
    pub in_port: u32,
    /// RCM: set by the scheduler on a frame it served from its class's congestion-flow FIFO
    /// (ignored when queuing).
    pub rcc: bool,
}

/// The scheduler's answer to [`Scheduler::next`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Send this queued frame (already removed from its class).
    Packet {
        /// The class it was served from.
        class: Class,
        /// Its metadata.
        packet: QueuedPacket,
    },
    /// Ask flow `flow` of data class `prio` for a frame, then call
    /// [`Scheduler::flow_served`].
    Flow {
        /// The class (priority).
        prio: u8,
        /// The host's flow handle.
        flow: u32,
    },
    /// Nothing can be sent now (empty, or only paused classes have frames).
    Idle,
    /// Nothing can be sent before this time (only held classes have work).
    WaitUntil(Time),
}

/// An item of a class FIFO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Packet(QueuedPacket),
    Flow(u32),
}

/// RCM's part of one class: its second FIFO, the window that admits it and the congestion
/// flows. Boxed, and only once RCM first sets the class's RCC ([`ClassQueue::set_rcc`]), then
/// kept: inline it would take 792 bytes in each of a port's nine classes, and most ports of
/// most runs never use it.
#[derive(Debug, Clone, Default)]
struct RcmFifo {
    /// Frames of congestion flows, in arrival order.
    items: VecDeque<QueuedPacket>,
    /// Their bytes.
    bytes: Bytes,
    /// The window that admits them (inactive: every frame may go).
    window: RccWindow,
    /// The congestion flows while RCC is active (every frame in `items` is one of theirs).
    harmful: FlowList,
    /// Reused buffers of [`ClassQueue::release`] (kept for their capacity: no allocation once
    /// grown).
    scratch_items: VecDeque<Item>,
    scratch_rcc: VecDeque<QueuedPacket>,
    /// Input-fair service of this FIFO (`None`: arrival order).
    fair: Option<InputDrr>,
}

impl RcmFifo {
    /// Moves the frames of congestion flows at the head of `first` (the class's first FIFO)
    /// to this one, in order, while the window is active.
    fn classify_head(&mut self, first: &mut VecDeque<Item>) {
        if !self.window.is_active() {
            return;
        }
        while let Some(&Item::Packet(p)) = first.front() {
            if !self.harmful.contains(p.flow) {
                break;
            }
            first.pop_front();
            self.bytes += p.size;
            // in arrival order: frames released back to the first FIFO (ClassQueue::release)
            // may have arrived before some still held; usually this is the back
            let mut at = self.items.len();
            while at > 0 {
                let q = &self.items[at - 1];
                if q.arrival <= p.arrival || q.flow == p.flow {
                    break;
                }
                at -= 1;
            }
            self.items.insert(at, p);
        }
    }
}

/// The window of a class RCM never used: inactive.
static NO_RCC: RccWindow = RccWindow::INACTIVE;

/// The FIFO of one class: queued frames and ready flows, in arrival order, and RCM's second
/// FIFO of congestion-flow frames with its window (see the [module docs](self)).
#[derive(Debug, Clone, Default)]
pub struct ClassQueue {
    items: VecDeque<Item>,
    /// Bytes of queued frames, both FIFOs (flows count nothing until they send).
    bytes: Bytes,
    /// Not served before this time ([`Scheduler::hold`]).
    held_until: Time,
    /// Input-fair service of the first FIFO (`None`: arrival order); the second FIFO's
    /// ([`RcmFifo::fair`]) is on exactly when this one is.
    fair: Option<Box<InputDrr>>,
    /// RCM: the second FIFO (`None`: RCM never set this class's RCC).
    rcm: Option<Box<RcmFifo>>,
}

/// Deficit round robin by bytes over the input ports of one class (see the
/// [module docs](self)). The vectors are indexed by input port and grow to the largest port
/// seen (no allocation once grown).
#[derive(Debug, Clone, Default)]
struct InputDrr {
    /// Credit of each input, bytes (negative: debt).
    credit: Vec<i64>,
    /// Input holding the turn.
    cursor: usize,
    /// Scratch of [`ClassQueue::fair_pick`]: position in the first FIFO of each input's oldest
    /// frame it may serve (`usize::MAX`: none).
    head: Vec<usize>,
}

impl InputDrr {
    const NONE: usize = usize::MAX;

    /// The position, among `ports` (each frame's input port in FIFO order, `None` for an
    /// item that may not be served), of the frame to send: the oldest frame of the input
    /// whose turn it is. `None` when no item may be served.
    fn pick(&mut self, ports: impl Iterator<Item = Option<u32>>) -> Option<usize> {
        self.head.iter_mut().for_each(|h| *h = Self::NONE);
        for (i, port) in ports.enumerate() {
            let Some(c) = port else { continue };
            let c = c as usize;
            if c >= self.head.len() {
                // first frame seen from this input: grow (once per port)
                self.head.resize(c + 1, Self::NONE);
                self.credit.resize(c + 1, 0);
            }
            if self.head[c] == Self::NONE {
                self.head[c] = i;
            }
        }
        let c = self.turn()?;
        Some(self.head[c])
    }

    /// Charges input `port` for a frame of `size` bytes it sent.
    fn charge(&mut self, port: u32, size: Bytes) {
        if let Some(c) = self.credit.get_mut(port as usize) {
            *c = c.saturating_sub(size.0.min(i64::MAX as u64) as i64);
        }
    }

    /// Which input sends now, given each input's oldest servable frame in `self.head`; `None`
    /// when no input has one. Credit form of DRR, as [`Scheduler::dwrr_turn`]: rounds in which
    /// no input would reach a positive credit are added at once.
    fn turn(&mut self) -> Option<usize> {
        let q = INPUT_DRR_QUANTUM.0 as i64;
        let n = self.head.len();
        let mut any = false;
        let mut positive = false;
        for (c, h) in self.head.iter().enumerate() {
            if *h == Self::NONE {
                // an input with nothing to send forfeits unused credit (keeps a debt)
                self.credit[c] = self.credit[c].min(0);
            } else {
                any = true;
                positive |= self.credit[c] > 0;
            }
        }
        if !any {
            return None;
        }
        if !positive {
            let rounds = (0..n)
                .filter(|&c| self.head[c] != Self::NONE)
                .map(|c| (-self.credit[c]) / q + 1)
                .min()
                .unwrap_or(1);
            for c in 0..n {
                if self.head[c] != Self::NONE {
                    self.credit[c] += (rounds - 1) * q;
                }
            }
        }
        for _ in 0..(2 * n + 1) {
            let c = self.cursor % n;
            if self.head[c] != Self::NONE {
                if self.credit[c] > 0 {
                    self.cursor = c;
                    return Some(c);
                }
                self.credit[c] += q;
            }
            self.cursor = (c + 1) % n;
        }
        debug_assert!(false, "input DRR found no input in two passes");
        (0..n).find(|&c| self.head[c] != Self::NONE)
    }
}

impl ClassQueue {
    /// Whether the class has neither frames nor flows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.rcc_len() == 0
    }

    /// Bytes of queued frames.
    pub fn bytes(&self) -> Bytes {
        self.bytes
    }

    /// Number of items (frames and flows), both FIFOs.
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len() + self.rcc_len()
    }

    /// Frames waiting in the congestion-flow FIFO (RCM).
    #[inline]
    pub fn rcc_len(&self) -> usize {
        self.rcm.as_ref().map_or(0, |r| r.items.len())
    }

    /// Bytes waiting in the congestion-flow FIFO (RCM).
    #[inline]
    pub fn rcc_bytes(&self) -> Bytes {
        self.rcm.as_ref().map_or(Bytes::ZERO, |r| r.bytes)
    }

    /// The class's RCC window (RCM).
    #[inline]
    pub fn rcc(&self) -> &RccWindow {
        self.rcm.as_ref().map_or(&NO_RCC, |r| &r.window)
    }

    /// Whether RCM's window is active here (then the second FIFO is in use).
    #[inline]
    fn rcc_active(&self) -> bool {
        self.rcm.as_ref().is_some_and(|r| r.window.is_active())
    }

    /// Number of ready flows in the class.
    pub fn flows(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i, Item::Flow(_)))
            .count()
    }

    #[inline]
    fn push(&mut self, p: QueuedPacket) {
        self.bytes += p.size;
        self.items
            .push_back(Item::Packet(QueuedPacket { rcc: false, ..p }));
    }

    /// Moves the frames of congestion flows at the head of the first FIFO to the second, in
    /// order.
    fn classify_head(&mut self) {
        if let Some(r) = self.rcm.as_deref_mut() {
            r.classify_head(&mut self.items);
        }
    }

    /// Whether the congestion-flow FIFO sends next: its head is older than the first FIFO's
    /// (or that is empty) and the window admits it (NPC 2017 §3.4: held once `W_c` is spent
    /// while another frame waits).
    #[inline]
    fn rcc_turn(&mut self, now: Time) -> bool {
        let Some(r) = self.rcm.as_deref_mut() else {
            return false;
        };
        if !r.window.is_active() {
            // RCC off: the second FIFO is empty (Self::set_rcc releases it)
            return false;
        }
        r.classify_head(&mut self.items);
        let Some(head) = r.items.front() else {
            return false;
        };
        let older = match self.items.front() {
            Some(Item::Packet(p)) => head.arrival < p.arrival,
            // flows only exist at a host, which never sets RCC frames apart
            Some(Item::Flow(_)) | None => true,
        };
        older && r.window.admits_congestion_at(now, !self.items.is_empty())
    }

    /// Timed RCC: when the class can send again, if all it has is congestion-flow frames
    /// whose budget of the current window is spent (`None`: it can send, as far as RCC goes).
    fn rcc_blocked_until(&mut self, now: Time) -> Option<Time> {
        self.classify_head();
        if !self.items.is_empty() {
            return None;
        }
        let r = self.rcm.as_deref_mut()?;
        r.items.front()?;
        r.window.blocked_until(now)
    }

    /// The frame to send from this class: the congestion-flow FIFO's head when `rcc_first`
    /// ([`Self::rcc_turn`]), else the first FIFO's if its head is a frame (not a flow). The
    /// RCC window counts it.
    #[inline(always)]
    fn pop_packet(&mut self, rcc_first: bool) -> Option<QueuedPacket> {
        if rcc_first || self.fair.is_some() {
            return self.pop_packet_slow(rcc_first);
        }
        // arrival order from the first FIFO (every port without RCM or input-fair service)
        let Some(&Item::Packet(p)) = self.items.front() else {
            return None;
        };
        self.items.pop_front();
        Some(self.sent(p))
    }

    /// [`Self::pop_packet`] from the congestion-flow FIFO, or with input-fair service.
    #[inline(never)]
    fn pop_packet_slow(&mut self, rcc_first: bool) -> Option<QueuedPacket> {
        let p = if rcc_first {
            let r = self.rcm.as_deref_mut()?;
            let p = match r.fair.as_mut() {
                None => r.items.pop_front()?,
                Some(f) => {
                    let at = f.pick(r.items.iter().map(|p| Some(p.in_port)))?;
                    let p = r.items.remove(at)?;
                    f.charge(p.in_port, p.size);
                    p
                }
            };
            r.bytes = r.bytes.saturating_sub(p.size);
            QueuedPacket { rcc: true, ..p }
        } else {
            match self.items.front() {
                Some(&Item::Packet(p)) if self.fair.is_none() => {
                    self.items.pop_front();
                    p
                }
                Some(&Item::Packet(_)) => {
                    let at = self.fair_pick()?;
                    let Some(Item::Packet(p)) = self.items.remove(at) else {
                        return None;
                    };
                    if let Some(f) = self.fair.as_mut() {
                        f.charge(p.in_port, p.size);
                    }
                    p
                }
                _ => return None,
            }
        };
        Some(self.sent(p))
    }

    /// Byte count and RCC window after frame `p` left the class.
    #[inline]
    fn sent(&mut self, p: QueuedPacket) -> QueuedPacket {
        self.bytes = self.bytes.saturating_sub(p.size);
        // a frame of the second FIFO is a congestion flow's (a class without RCM: the
        // inactive window would count nothing)
        if let Some(r) = self.rcm.as_deref_mut() {
            r.window.on_sent(p.size, p.rcc);
        }
        p
    }

    /// Input-fair service: the position in the first FIFO of the frame to send (the oldest
    /// frame of the input whose DRR turn it is; congestion-flow frames, while RCC is active,
    /// are passed over: they go through the second FIFO). `None` when it has no such frame.
    fn fair_pick(&mut self) -> Option<usize> {
        let harmful = self
            .rcm
            .as_deref()
            .filter(|r| r.window.is_active())
            .map(|r| &r.harmful);
        let f = self.fair.as_mut()?;
        f.pick(self.items.iter().map(|it| match it {
            Item::Packet(p) if !harmful.is_some_and(|h| h.contains(p.flow)) => Some(p.in_port),
            _ => None,
        }))
    }

    /// Sets the class's RCC: `Some((W, W_c))` and the congestion flows while active.
    fn set_rcc(&mut self, budget: Option<(Bytes, Bytes)>, flows: &[u64], period: Option<Time>) {
        if self.rcm.is_none() && budget.is_none() {
            // RCC off where it never was on: nothing held, nothing to release
            return;
        }
        let fair = self.fair.is_some();
        let r = self.rcm.get_or_insert_with(|| {
            Box::new(RcmFifo {
                fair: fair.then(InputDrr::default),
                ..RcmFifo::default()
            })
        });
        r.window.set_period(period);
        r.window.set(budget);
        r.harmful = if budget.is_some() {
            FlowList::from_ids(flows)
        } else {
            FlowList::new()
        };
        self.release();
    }

    /// Moves the frames of the second FIFO whose flow is no longer a congestion flow back
    /// into the first, merged in arrival order (a tie goes after the first FIFO's frame, as
    /// [`Self::rcc_turn`] serves it, unless that frame is of the same flow), so that the
    /// second FIFO holds congestion flows' frames only: a flow dropped from the set (a victim
    /// a root's CAM named before a CN narrowed it) is not held behind them.
    fn release(&mut self) {
        let Some(r) = self.rcm.as_deref_mut() else {
            return;
        };
        let harmful = &r.harmful;
        if r.items.iter().all(|p| harmful.contains(p.flow)) {
            return;
        }
        let mut keep = std::mem::take(&mut r.scratch_rcc);
        let mut merged = std::mem::take(&mut r.scratch_items);
        keep.clear();
        merged.clear();
        let mut first = self.items.drain(..).peekable();
        for p in r.items.drain(..) {
            if harmful.contains(p.flow) {
                keep.push_back(p);
                continue;
            }
            while let Some(&it) = first.peek() {
                // stop at a newer frame, or at a frame of the same flow (its later frames
                // are in the first FIFO: order within a flow even when arrivals tie)
                if matches!(it, Item::Packet(q) if q.arrival > p.arrival || q.flow == p.flow) {
                    break;
                }
                merged.push_back(it);
                first.next();
            }
            r.bytes = r.bytes.saturating_sub(p.size);
            merged.push_back(Item::Packet(QueuedPacket { rcc: false, ..p }));
        }
        merged.extend(first);
        std::mem::swap(&mut self.items, &mut merged);
        std::mem::swap(&mut r.items, &mut keep);
        r.scratch_items = merged;
        r.scratch_rcc = keep;
    }
}

/// Byte and frame counters of one class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassStats {
    /// Frames queued.
    pub enqueued: u64,
    /// Bytes queued.
    pub enqueued_bytes: Bytes,
    /// Queued frames sent.
    pub dequeued: u64,
    /// Bytes of queued frames sent.
    pub dequeued_bytes: Bytes,
    /// Frames flows sent when asked.
    pub pulled: u64,
    /// Bytes flows sent when asked.
    pub pulled_bytes: Bytes,
}

/// The egress scheduler of one port; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Scheduler {
    policy: DataPolicy,
    control: ClassQueue,
    data: [ClassQueue; DATA_CLASSES],
    /// Round robin: first class to consider.
    rr_next: usize,
    /// DWRR: class holding the turn.
    cursor: usize,
    /// DWRR: credit of each class, bytes (negative: debt).
    credit: [i64; DATA_CLASSES],
    /// Bit `c`: data class `c` holds an item (a frame in either FIFO, or a flow); kept by
    /// every change of the FIFOs' lengths, so that [`Self::next`] does not look at each class.
    nonempty: u8,
    /// Bit `c`: data class `c` may be ineligible although it has work and is not paused: it
    /// was held ([`Self::hold`]) or its RCC is active; only these classes get the full check
    /// of [`Self::eligible`].
    gated: u8,
    control_stats: ClassStats,
    data_stats: [ClassStats; DATA_CLASSES],
}

impl Scheduler {
    /// A scheduler with empty classes; the policy is validated first.
    pub fn new(policy: DataPolicy) -> Result<Scheduler, ConfigError> {
        policy.validate()?;
        Ok(Scheduler {
            policy,
            control: ClassQueue::default(),
            data: Default::default(),
            rr_next: 0,
            cursor: 0,
            credit: [0; DATA_CLASSES],
            nonempty: 0,
            gated: 0,
            control_stats: ClassStats::default(),
            data_stats: [ClassStats::default(); DATA_CLASSES],
        })
    }

    /// The data policy.
    pub fn policy(&self) -> DataPolicy {
        self.policy
    }

    /// Queues a frame: control kinds in the control class, others in data class `p.prio`
    /// (priorities above 7 count as 7). Returns the class.
    #[inline]
    pub fn enqueue(&mut self, p: QueuedPacket) -> Class {
        if p.kind.is_control() {
            // the control class is never held by RCC
            self.control.push(QueuedPacket { rcc: false, ..p });
            self.control_stats.enqueued += 1;
            self.control_stats.enqueued_bytes += p.size;
            Class::Control
        } else {
            let c = (p.prio as usize).min(DATA_CLASSES - 1);
            self.data[c].push(p);
            self.nonempty |= 1 << c;
            let s = &mut self.data_stats[c];
            s.enqueued += 1;
            s.enqueued_bytes += p.size;
            Class::Data(c as u8)
        }
    }

    /// Makes flow `flow` ready in data class `prio` (at the back of the class). The host adds
    /// a flow only when it is not already in the scheduler.
    #[inline]
    pub fn add_flow(&mut self, prio: u8, flow: u32) {
        let c = (prio as usize).min(DATA_CLASSES - 1);
        self.data[c].items.push_back(Item::Flow(flow));
        self.nonempty |= 1 << c;
    }

    /// Sets the RCC of data class `prio` (RCM, NPC 2017 §3.4): `Some((W, W_c))` and the
    /// congestion flows `flows` while RCC is active at this port for the class, `None` when it
    /// stops (the flows are then ignored).
    pub fn set_rcc(&mut self, prio: u8, budget: Option<(Bytes, Bytes)>, flows: &[u64]) {
        self.set_rcc_timed(prio, budget, flows, None);
    }

    /// [`Self::set_rcc`] with the window's mode: `period` `Some`, the congestion flows may send
    /// `W_c` bytes per period and wait for the next one even when nothing else waits (RCM's
    /// `rcc_timed`); `None`, the paper's window of `W` bytes.
    pub fn set_rcc_timed(
        &mut self,
        prio: u8,
        budget: Option<(Bytes, Bytes)>,
        flows: &[u64],
        period: Option<Time>,
    ) {
        let c = (prio as usize).min(DATA_CLASSES - 1);
        // moves frames between the class's two FIFOs: its emptiness stays
        self.data[c].set_rcc(budget, flows, period);
        self.update_gated(c);
    }

    /// Turns the input-fair service of the data classes on or off (see the
    /// [module docs](self)): DRR by bytes over the input ports ([`QueuedPacket::in_port`]) of
    /// each data class's frames instead of arrival order. A switch's `Voq`; off by default.
    pub fn set_input_fair(&mut self, on: bool) {
        for q in &mut self.data {
            q.fair = on.then(Box::default);
            if let Some(r) = q.rcm.as_deref_mut() {
                r.fair = on.then(InputDrr::default);
            }
        }
    }

    /// Whether the input-fair service is on.
    pub fn input_fair(&self) -> bool {
        self.data[0].fair.is_some()
    }

    /// Holds data class `prio` until `until`: it is not served before then (a seam for
    /// shapers; nothing in the default policies holds a class).
    pub fn hold(&mut self, prio: u8, until: Time) {
        let c = (prio as usize).min(DATA_CLASSES - 1);
        self.data[c].held_until = until;
        self.update_gated(c);
    }

    /// Sets bit `c` of [`Self::gated`]: whether class `c` is held at some time or has RCC
    /// active (with neither, a class with work that is not paused is eligible:
    /// [`ClassQueue::rcc_blocked_until`] is `None` and changes nothing while RCC is off).
    fn update_gated(&mut self, c: usize) {
        let q = &self.data[c];
        if q.held_until > Time::ZERO || q.rcc_active() {
            self.gated |= 1 << c;
        } else {
            self.gated &= !(1 << c);
        }
    }

    /// Mask of the data classes that can be served now: not empty, not paused (bit `c` of
    /// `paused`), not held.
    #[inline]
    fn eligible(&mut self, now: Time, paused: u8) -> u8 {
        let mut m = self.nonempty & !paused;
        let mut gated = m & self.gated;
        while gated != 0 {
            let c = gated.trailing_zeros() as usize;
            gated &= gated - 1;
            let q = &mut self.data[c];
            if !(q.held_until <= now && q.rcc_blocked_until(now).is_none()) {
                m &= !(1 << c);
            }
        }
        #[cfg(debug_assertions)]
        assert_eq!(
            m,
            self.eligible_by_scan(now, paused),
            "eligible masks differ"
        );
        m
    }

    /// [`Self::eligible`] by a look at every class (debug builds check the masks against it;
    /// what it changes, [`ClassQueue::classify_head`], `eligible` has done already).
    #[cfg(debug_assertions)]
    fn eligible_by_scan(&mut self, now: Time, paused: u8) -> u8 {
        let mut m = 0u8;
        for (c, q) in self.data.iter_mut().enumerate() {
            if !q.is_empty()
                && paused & (1 << c) == 0
                && q.held_until <= now
                && q.rcc_blocked_until(now).is_none()
            {
                m |= 1 << c;
            }
        }
        m
    }

    /// Whether [`Self::next`] would answer [`Pick::Idle`] at once, with the data classes of
    /// mask `paused` paused: no control frame waits and every data class with work is paused
    /// (a quick test the host's bridge makes before it asks `next`; `next` changes nothing
    /// then).
    #[inline]
    pub fn is_idle(&self, paused: u8) -> bool {
        self.control.items.is_empty() && self.nonempty & !paused == 0
    }

    /// What to send next at time `now`, with the peer pausing the data classes of bit mask
    /// `paused`. A [`Pick::Packet`] is removed from its class; a [`Pick::Flow`] stays until
    /// [`Scheduler::flow_served`].
    #[inline]
    pub fn next(&mut self, now: Time, paused: u8) -> Pick {
        if !self.control.items.is_empty() {
            if let Some(p) = self.control.pop_packet(false) {
                self.control_stats.dequeued += 1;
                self.control_stats.dequeued_bytes += p.size;
                return Pick::Packet {
                    class: Class::Control,
                    packet: p,
                };
            }
        }
        let eligible = self.eligible(now, paused);
        if eligible == 0 {
            return self.wake(now, paused);
        }
        let c = match self.policy {
            DataPolicy::RoundRobin => {
                // the first eligible class from rr_next on, cyclically
                let from = self.rr_next as u32 % DATA_CLASSES as u32;
                (from + eligible.rotate_right(from).trailing_zeros()) as usize % DATA_CLASSES
            }
            DataPolicy::StrictPriority => 7 - eligible.leading_zeros() as usize,
            DataPolicy::Dwrr { quantum } => self.dwrr_turn(eligible, &quantum),
        };
        let rcc_first = self.data[c].rcc_turn(now);
        match self.data[c].items.front() {
            Some(&Item::Flow(flow)) if !rcc_first => Pick::Flow {
                prio: c as u8,
                flow,
            },
            _ => {
                let Some(p) = self.data[c].pop_packet(rcc_first) else {
                    // eligible means non-empty, and the front is not a flow
                    debug_assert!(false, "class {c} eligible but empty");
                    return Pick::Idle;
                };
                let s = &mut self.data_stats[c];
                s.dequeued += 1;
                s.dequeued_bytes += p.size;
                self.served(c, p.size);
                Pick::Packet {
                    class: Class::Data(c as u8),
                    packet: p,
                }
            }
        }
    }

    /// What [`Self::next`] answers when no class is eligible: the earliest time a held (or
    /// RCC-blocked) class with work that is not paused can send, else idle.
    #[cold]
    #[inline(never)]
    fn wake(&mut self, now: Time, paused: u8) -> Pick {
        let mut waiting = self.nonempty & !paused;
        let mut wake: Option<Time> = None;
        while waiting != 0 {
            let c = waiting.trailing_zeros() as usize;
            waiting &= waiting - 1;
            let q = &mut self.data[c];
            let t = if q.held_until > now {
                Some(q.held_until)
            } else {
                q.rcc_blocked_until(now)
            };
            wake = match (wake, t) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        wake.map_or(Pick::Idle, Pick::WaitUntil)
    }

    /// DWRR: the class that sends now among the `eligible` ones (non-empty mask). The class at
    /// the cursor keeps the turn while its credit is positive; otherwise it gets one quantum
    /// and the turn passes on. Rounds in which no class would reach a positive credit are
    /// added at once, so one call costs at most two passes over the classes.
    fn dwrr_turn(&mut self, eligible: u8, quantum: &[Bytes; DATA_CLASSES]) -> usize {
        let q = |c: usize| quantum[c].0 as i64;
        let positive = (0..DATA_CLASSES).any(|c| eligible & (1 << c) != 0 && self.credit[c] > 0);
        if !positive {
            // rounds r_c each class needs to become positive: credit + r_c * q > 0
            let rounds = (0..DATA_CLASSES)
                .filter(|&c| eligible & (1 << c) != 0)
                .map(|c| (-self.credit[c]) / q(c) + 1)
                .min()
                .unwrap_or(1);
            // skip all but the last of them; the loop below plays the last one in order
            for c in 0..DATA_CLASSES {
                if eligible & (1 << c) != 0 {
                    self.credit[c] += (rounds - 1) * q(c);
                }
            }
        }
        for _ in 0..(2 * DATA_CLASSES + 1) {
            let c = self.cursor;
            if eligible & (1 << c) != 0 {
                if self.credit[c] > 0 {
                    return c;
                }
                self.credit[c] += q(c);
            }
            self.cursor = (c + 1) % DATA_CLASSES;
        }
        debug_assert!(false, "DWRR found no class in two passes");
        self.cursor
    }

    /// Bookkeeping after class `c` sent `size` bytes.
    #[inline]
    fn served(&mut self, c: usize, size: Bytes) {
        self.rr_next = (c + 1) % DATA_CLASSES;
        if matches!(self.policy, DataPolicy::Dwrr { .. }) {
            self.credit[c] = self.credit[c].saturating_sub(size.0.min(i64::MAX as u64) as i64);
        }
        self.after_change(c);
    }

    /// An emptied class forfeits its unused DWRR credit (it keeps a debt) and leaves
    /// [`Self::nonempty`].
    #[inline]
    fn after_change(&mut self, c: usize) {
        if self.data[c].is_empty() {
            self.credit[c] = self.credit[c].min(0);
            self.nonempty &= !(1 << c);
        }
    }

    /// The host asked flow `flow` of class `prio` (the last [`Pick::Flow`]) for a frame: it
    /// sent `sent` bytes (`Some`: the flow rotates to the back of its class and DWRR charges
    /// the bytes) or had nothing (`None`: the flow leaves the class until added again).
    pub fn flow_served(&mut self, prio: u8, flow: u32, sent: Option<Bytes>) {
        let c = (prio as usize).min(DATA_CLASSES - 1);
        let q = &mut self.data[c].items;
        let at = if q.front() == Some(&Item::Flow(flow)) {
            Some(0)
        } else {
            debug_assert!(false, "flow {flow} served but not at the head of class {c}");
            q.iter().position(|i| *i == Item::Flow(flow))
        };
        let Some(at) = at else {
            return;
        };
        let _ = q.remove(at);
        match sent {
            Some(bytes) => {
                q.push_back(Item::Flow(flow));
                let s = &mut self.data_stats[c];
                s.pulled += 1;
                s.pulled_bytes += bytes;
                self.served(c, bytes);
            }
            None => self.after_change(c),
        }
    }

    /// Whether no class holds a frame or a flow.
    pub fn is_empty(&self) -> bool {
        self.control.is_empty() && self.nonempty == 0
    }

    /// Bytes of queued frames in `class`.
    pub fn queue_bytes(&self, class: Class) -> Bytes {
        self.queue(class).map_or(Bytes::ZERO, ClassQueue::bytes)
    }

    /// The FIFO of `class`, `None` for a data class out of range.
    pub fn queue(&self, class: Class) -> Option<&ClassQueue> {
        match class {
            Class::Control => Some(&self.control),
            Class::Data(c) => self.data.get(c as usize),
        }
    }

    /// Counters of `class` (zero for a data class out of range).
    pub fn stats(&self, class: Class) -> ClassStats {
        match class {
            Class::Control => self.control_stats,
            Class::Data(c) => self.data_stats.get(c as usize).copied().unwrap_or_default(),
        }
    }

    /// Checks, per class: bytes queued = bytes enqueued − bytes dequeued, and the byte count
    /// matches the frames in the FIFO; flows only in data classes.
    pub fn check_invariants(&self) -> Result<(), String> {
        for (c, q) in self.data.iter().enumerate() {
            if (self.nonempty >> c & 1 == 0) != q.is_empty() {
                return Err(format!(
                    "Data({c}): nonempty mask {:#010b} but {} items",
                    self.nonempty,
                    q.len()
                ));
            }
            if (q.held_until > Time::ZERO || q.rcc_active()) && self.gated >> c & 1 == 0 {
                return Err(format!("Data({c}): held or RCC but not in the gated mask"));
            }
        }
        let classes = std::iter::once(Class::Control).chain((0..8).map(Class::Data));
        for class in classes {
            let (Some(q), s) = (self.queue(class), self.stats(class)) else {
                continue;
            };
            let rcm = q.rcm.as_deref();
            let rcc_items = rcm.map(|r| &r.items).into_iter().flatten();
            let held = rcc_items.clone().fold(Bytes::ZERO, |acc, p| acc + p.size);
            let sum = q.items.iter().fold(Bytes::ZERO, |acc, i| match i {
                Item::Packet(p) => acc + p.size,
                Item::Flow(_) => acc,
            }) + held;
            if sum != q.bytes || s.enqueued_bytes != s.dequeued_bytes + q.bytes {
                return Err(format!(
                    "{class:?}: queued {} (items {sum}) != enqueued {} - dequeued {}",
                    q.bytes, s.enqueued_bytes, s.dequeued_bytes
                ));
            }
            if class == Class::Control && q.flows() > 0 {
                return Err("flows in the control class".to_string());
            }
            if held != q.rcc_bytes() || rcc_items.clone().any(|p| p.kind.is_control()) {
                return Err(format!(
                    "{class:?}: RCC FIFO holds {held} (counted {}) or a control frame",
                    q.rcc_bytes()
                ));
            }
            if let Some(p) = rcm.and_then(|r| r.items.iter().find(|p| !r.harmful.contains(p.flow)))
            {
                return Err(format!(
                    "{class:?}: RCC FIFO holds a frame of flow {}, not a congestion flow",
                    p.flow
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_port_scheduler_without_rcm_takes_at_most_1280_bytes() {
        // one per device: 768 in a k = 8 fat tree; RCM's part of a class (its second FIFO,
        // window and congestion flows: 792 bytes) is boxed only when RCM sets the class's RCC
        // (8.7 KiB per port when all of it was inline)
        assert!(
            std::mem::size_of::<Scheduler>() <= 1280,
            "{}",
            std::mem::size_of::<Scheduler>()
        );
        let mut s = Scheduler::new(DataPolicy::default()).unwrap();
        s.set_rcc(3, Some((Bytes(1000), Bytes(500))), &[7, 8]);
        let r = s.data[3].rcm.as_deref().unwrap();
        assert!(r.harmful.contains(8) && !r.harmful.contains(9) && r.window.is_active());
        s.set_rcc(3, None, &[7]);
        let r = s.data[3].rcm.as_deref().unwrap();
        assert!(!r.harmful.contains(7) && !r.window.is_active());
        assert!(s.data[2].rcm.is_none() && !s.data[2].rcc().is_active());
    }

    fn pkt(handle: u32, prio: u8, size: u64, kind: PacketKind) -> QueuedPacket {
        QueuedPacket {
            handle,
            size: Bytes(size),
            kind,
            prio,
            flow: handle as u64,
            arrival: Time(handle as u64),
            in_port: 1,
            rcc: false,
        }
    }

    fn data(handle: u32, prio: u8) -> QueuedPacket {
        pkt(handle, prio, 1000, PacketKind::Data)
    }

    fn served_class(p: Pick) -> Option<Class> {
        match p {
            Pick::Packet { class, .. } => Some(class),
            Pick::Flow { prio, .. } => Some(Class::Data(prio)),
            _ => None,
        }
    }

    #[test]
    fn default_form_parses_to_the_default_and_help_names_the_unit() {
        assert_eq!(
            DataPolicy::parse(DataPolicy::DEFAULT_FORM).unwrap(),
            DataPolicy::default()
        );
        assert!(DataPolicy::help().contains("quantum is w_c x 1500 B"));
    }

    #[test]
    fn parse_accepts_the_three_forms_and_names_the_field() {
        assert_eq!(DataPolicy::parse("rr").unwrap(), DataPolicy::RoundRobin);
        assert_eq!(
            DataPolicy::parse("strict").unwrap(),
            DataPolicy::StrictPriority
        );
        let DataPolicy::Dwrr { quantum } = DataPolicy::parse("dwrr:1,1,1,3,1,1,1,2").unwrap()
        else {
            panic!("dwrr")
        };
        assert_eq!(quantum[3], Bytes(4500));
        assert_eq!(quantum[7], Bytes(3000));
        for bad in [
            "fifo",
            "dwrr:1,2",
            "dwrr:1,1,1,1,1,1,1,1,1",
            "dwrr:1,1,1,0,1,1,1,1",
            "dwrr:1,1,1,x,1,1,1,1",
            "",
        ] {
            let e = DataPolicy::parse(bad).unwrap_err();
            assert_eq!(e.field, "DataScheduler", "{bad}");
            assert!(e.to_string().starts_with("invalid DataScheduler = "), "{e}");
        }
        let e = DataPolicy::Dwrr {
            quantum: [Bytes::ZERO; 8],
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.field, "DataScheduler");
    }

    #[test]
    fn control_goes_first_and_is_never_paused() {
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        assert_eq!(s.enqueue(data(1, 3)), Class::Data(3));
        assert_eq!(s.enqueue(pkt(2, 3, 66, PacketKind::Ack)), Class::Control);
        assert_eq!(s.enqueue(pkt(3, 3, 64, PacketKind::Probe)), Class::Data(3));
        assert_eq!(s.enqueue(pkt(4, 0, 78, PacketKind::Cnp)), Class::Control);
        // everything paused: only control goes, in FIFO order
        let p = s.next(Time(0), 0xFF);
        assert!(matches!(p, Pick::Packet { class: Class::Control, packet } if packet.handle == 2));
        let p = s.next(Time(0), 0xFF);
        assert!(matches!(p, Pick::Packet { class: Class::Control, packet } if packet.handle == 4));
        assert_eq!(s.next(Time(0), 0xFF), Pick::Idle);
        assert_eq!(s.queue_bytes(Class::Data(3)), Bytes(1064));
        assert!(!s.is_empty());
        s.check_invariants().unwrap();
    }

    #[test]
    fn round_robin_starts_after_the_class_served_last() {
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        for (h, prio) in [(1, 5), (2, 5), (3, 1), (4, 1), (5, 3)] {
            s.enqueue(data(h, prio));
        }
        let order: Vec<u32> = (0..5)
            .map(|_| match s.next(Time(0), 0) {
                Pick::Packet { packet, .. } => packet.handle,
                p => panic!("{p:?}"),
            })
            .collect();
        // classes 1, 3, 5, then 1, 5 again (after 5 comes 1 by wrapping)
        assert_eq!(order, [3, 5, 1, 4, 2]);
        // a paused class is skipped without losing its turn order
        s.enqueue(data(6, 2));
        s.enqueue(data(7, 4));
        let p = s.next(Time(0), 1 << 2);
        assert!(matches!(p, Pick::Packet { packet, .. } if packet.handle == 7));
        s.check_invariants().unwrap();
    }

    #[test]
    fn strict_priority_serves_the_highest_class() {
        let mut s = Scheduler::new(DataPolicy::StrictPriority).unwrap();
        s.enqueue(data(1, 1));
        s.enqueue(data(2, 6));
        s.enqueue(data(3, 6));
        s.enqueue(data(4, 3));
        let classes: Vec<_> = (0..4).map(|_| served_class(s.next(Time(0), 0))).collect();
        assert_eq!(classes, [6, 6, 3, 1].map(|c| Some(Class::Data(c))).to_vec());
    }

    #[test]
    fn flows_rotate_while_sending_and_leave_when_idle() {
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        s.add_flow(3, 10);
        s.add_flow(3, 11);
        s.add_flow(3, 12);
        assert_eq!(s.next(Time(0), 0), Pick::Flow { prio: 3, flow: 10 });
        s.flow_served(3, 10, Some(Bytes(1062)));
        assert_eq!(s.next(Time(0), 0), Pick::Flow { prio: 3, flow: 11 });
        s.flow_served(3, 11, None); // 11 had nothing: leaves
        assert_eq!(s.next(Time(0), 0), Pick::Flow { prio: 3, flow: 12 });
        s.flow_served(3, 12, Some(Bytes(1062)));
        assert_eq!(s.next(Time(0), 0), Pick::Flow { prio: 3, flow: 10 });
        // a paused class keeps its flows
        assert_eq!(s.next(Time(0), 1 << 3), Pick::Idle);
        assert_eq!(s.queue(Class::Data(3)).unwrap().flows(), 2);
        assert_eq!(s.stats(Class::Data(3)).pulled_bytes, Bytes(2124));
        // the queued bytes of a class do not include its flows
        assert_eq!(s.queue_bytes(Class::Data(3)), Bytes::ZERO);
    }

    #[test]
    fn a_held_class_answers_wait_until() {
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        s.enqueue(data(1, 2));
        s.hold(2, Time(500));
        assert_eq!(s.next(Time(100), 0), Pick::WaitUntil(Time(500)));
        // paused and held: nothing to wait for (the pause expiry wakes the host)
        assert_eq!(s.next(Time(100), 1 << 2), Pick::Idle);
        // another class is served meanwhile
        s.enqueue(data(2, 6));
        assert_eq!(served_class(s.next(Time(100), 0)), Some(Class::Data(6)));
        assert_eq!(served_class(s.next(Time(500), 0)), Some(Class::Data(2)));
    }

    #[test]
    fn dwrr_shares_bytes_by_weight_with_lazy_flows() {
        // class 1 weight 1 (1500 B), class 3 weight 3 (4500 B): flows send 1062 B frames
        let mut s = Scheduler::new(DataPolicy::parse("dwrr:1,1,1,3,1,1,1,1").unwrap()).unwrap();
        s.add_flow(1, 1);
        s.add_flow(3, 3);
        let mut bytes = [0u64; 8];
        for _ in 0..40_000 {
            match s.next(Time(0), 0) {
                Pick::Flow { prio, flow } => {
                    bytes[prio as usize] += 1062;
                    s.flow_served(prio, flow, Some(Bytes(1062)));
                }
                p => panic!("{p:?}"),
            }
        }
        let ratio = bytes[3] as f64 / bytes[1] as f64;
        assert!((ratio - 3.0).abs() < 0.01, "ratio {ratio}");
    }

    /// A 1000-byte data frame of flow `flow`.
    fn of(handle: u32, prio: u8, flow: u64) -> QueuedPacket {
        QueuedPacket {
            flow,
            ..data(handle, prio)
        }
    }

    fn handles(s: &mut Scheduler, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| match s.next(Time(0), 0) {
                Pick::Packet { packet, .. } => packet.handle,
                p => panic!("{p:?}"),
            })
            .collect()
    }

    #[test]
    fn rcc_holds_congestion_flows_once_w_c_is_spent() {
        // NPC 2017 §3.4: W = 10 000, W_c = 2 000; flow 1 (odd handles) is the congestion flow,
        // flow 2 (even handles) another; all queued before RCC starts
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        for h in 1..=20 {
            s.enqueue(of(h, 3, if h % 2 == 1 { 1 } else { 2 }));
        }
        s.set_rcc(3, Some((Bytes(10_000), Bytes(2_000))), &[1]);
        // two congestion frames in arrival order, then only the others until W is sent
        assert_eq!(handles(&mut s, 10), [1, 2, 3, 4, 6, 8, 10, 12, 14, 16]);
        let q = s.queue(Class::Data(3)).unwrap();
        // 5-15 moved apart as they reached the head (17 is next)
        assert_eq!((q.rcc_len(), q.rcc_bytes()), (6, Bytes(6000)));
        assert_eq!(s.queue_bytes(Class::Data(3)), Bytes(10_000));
        // a new window: the congestion flows' budget is back
        assert_eq!(handles(&mut s, 4), [5, 7, 18, 20]);
        // nothing else waits: the window ends early, the congestion frames go (work conserving)
        let mut rest = Vec::new();
        for _ in 0..6 {
            match s.next(Time(0), 0) {
                Pick::Packet { packet, .. } => {
                    assert!(packet.rcc, "served from the congestion-flow FIFO");
                    rest.push(packet.handle);
                }
                p => panic!("{p:?}"),
            }
        }
        assert_eq!(rest, [9, 11, 13, 15, 17, 19]);
        assert_eq!(s.next(Time(0), 0), Pick::Idle);
        let w = s.queue(Class::Data(3)).unwrap().rcc().stats();
        assert!(w.holds > 0 && w.windows == 1 && w.early_ends > 0, "{w:?}");
        s.check_invariants().unwrap();
    }

    #[test]
    fn rcc_off_releases_the_second_fifo_in_arrival_order() {
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        for h in 1..=6 {
            s.enqueue(of(h, 0, if h <= 3 { 1 } else { 2 }));
        }
        s.set_rcc(0, Some((Bytes(10_000), Bytes(0))), &[1]);
        // W_c = 0: the others first
        assert_eq!(handles(&mut s, 2), [4, 5]);
        s.set_rcc(0, None, &[1]);
        assert_eq!(handles(&mut s, 4), [1, 2, 3, 6]);
        // a paused class sends nothing, whichever FIFO
        s.set_rcc(0, Some((Bytes(10_000), Bytes(1_000))), &[7]);
        s.enqueue(of(7, 0, 7));
        assert_eq!(s.next(Time(0), 1), Pick::Idle);
        // control frames are never held
        s.enqueue(QueuedPacket {
            flow: 7,
            ..pkt(8, 0, 66, PacketKind::Ack)
        });
        let p = s.next(Time(0), 1);
        assert!(
            matches!(p, Pick::Packet { class: Class::Control, packet } if packet.handle == 8 && !packet.rcc)
        );
        s.check_invariants().unwrap();
    }

    #[test]
    fn a_flow_with_frames_held_apart_keeps_its_order() {
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        s.set_rcc(2, Some((Bytes(10_000), Bytes(1_000))), &[1]);
        for (h, f) in [(1, 1), (2, 1), (3, 2), (4, 1)] {
            s.enqueue(of(h, 2, f));
        }
        // 1 goes (budget), 2 is held while 3 waits
        assert_eq!(handles(&mut s, 2), [1, 3]);
        // flow 1 is no longer a congestion flow, but 2 is still held: 4 follows it
        s.set_rcc(2, Some((Bytes(10_000), Bytes(1_000))), &[9]);
        assert_eq!(handles(&mut s, 2), [2, 4]);
        s.check_invariants().unwrap();
    }

    #[test]
    fn a_flow_dropped_from_the_congestion_flows_is_not_held_behind_them() {
        // RCM's victim: a root's CAM named the victim (flow 2) with the incast (flow 1), then
        // a CN narrowed the set to the incast; the victim, backlogged, must not keep joining
        // the second FIFO behind the incast's held frames
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        s.set_rcc(0, Some((Bytes(10_000), Bytes(1_000))), &[1, 2]);
        for (h, f) in [(1, 1), (2, 2), (3, 1), (4, 2), (5, 1), (6, 2)] {
            s.enqueue(of(h, 0, f));
        }
        // 1 goes (budget), then everything is set apart: nothing else waits, the window ends
        assert_eq!(handles(&mut s, 1), [1]);
        assert_eq!(s.queue(Class::Data(0)).unwrap().rcc_len(), 5);
        s.set_rcc(0, Some((Bytes(10_000), Bytes(0))), &[1]);
        // the victim's frames are back in the first FIFO, in arrival order
        assert_eq!(s.queue(Class::Data(0)).unwrap().rcc_len(), 2);
        for (h, f) in [(7, 2), (8, 1), (9, 2)] {
            s.enqueue(of(h, 0, f));
        }
        // W_c = 0: the victim goes first, in order, and its new frames are not set apart
        assert_eq!(handles(&mut s, 4), [2, 4, 6, 7]);
        assert_eq!(handles(&mut s, 1), [9]);
        assert_eq!(handles(&mut s, 3), [3, 5, 8]);
        s.check_invariants().unwrap();
    }

    #[derive(Debug, Clone)]
    enum Op {
        Enqueue { prio: u8, size: u64, kind: u8 },
        AddFlow { prio: u8 },
        Next { paused: u8, flow_sends: Option<u64> },
    }

    #[test]
    fn input_fair_alternates_inputs_where_fifo_serves_in_arrival_order() {
        // a run of 6 frames from input 1, then 6 from input 2 (as PFC releases one sender at a
        // time): FIFO keeps the runs; input-fair interleaves them
        let frames = |s: &mut Scheduler| {
            for h in 1..=12u32 {
                let port = if h <= 6 { 1 } else { 2 };
                s.enqueue(QueuedPacket {
                    in_port: port,
                    flow: u64::from(port),
                    ..data(h, 3)
                });
            }
        };
        let mut fifo = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        frames(&mut fifo);
        assert!(!fifo.input_fair());
        assert_eq!(handles(&mut fifo, 12), (1..=12).collect::<Vec<_>>());
        let mut fair = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        fair.set_input_fair(true);
        assert!(fair.input_fair());
        frames(&mut fair);
        // quantum 1500 B, frames 1000 B: an input sends while its credit is positive and
        // carries the excess as a debt, so the inputs take turns of 2, 1, 2, ... frames
        // (1500 B per turn on average)
        assert_eq!(
            handles(&mut fair, 12),
            [1, 2, 7, 8, 3, 9, 4, 5, 10, 11, 6, 12]
        );
        fair.check_invariants().unwrap();
        // the control class stays FIFO and first
        fair.enqueue(QueuedPacket {
            in_port: 2,
            ..data(20, 3)
        });
        fair.enqueue(pkt(21, 3, 64, PacketKind::Ack));
        assert_eq!(handles(&mut fair, 2), [21, 20]);
    }

    #[test]
    fn input_fair_shares_bytes_not_frames() {
        // input 1 sends 500 B frames, input 2 1500 B: per byte, input 1 sends 3 frames per
        // frame of input 2
        let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
        s.set_input_fair(true);
        for h in 1..=60u32 {
            let (port, size) = if h % 2 == 1 { (1, 500) } else { (2, 1500) };
            s.enqueue(QueuedPacket {
                in_port: port,
                ..pkt(h, 0, size, PacketKind::Data)
            });
        }
        let mut bytes = [0u64; 3];
        for _ in 0..40 {
            let Pick::Packet { packet, .. } = s.next(Time(0), 0) else {
                panic!("no packet");
            };
            bytes[packet.in_port as usize] += packet.size.0;
        }
        assert_eq!((bytes[1], bytes[2]), (15_000, 15_000));
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0u8..8, 64u64..9000, 0u8..7)
                .prop_map(|(prio, size, kind)| Op::Enqueue { prio, size, kind }),
            1 => (0u8..8).prop_map(|prio| Op::AddFlow { prio }),
            5 => (any::<u8>(), prop::option::of(64u64..9000))
                .prop_map(|(paused, flow_sends)| Op::Next { paused, flow_sends }),
        ]
    }

    fn policy() -> impl Strategy<Value = DataPolicy> {
        prop_oneof![
            Just(DataPolicy::RoundRobin),
            Just(DataPolicy::StrictPriority),
            prop::array::uniform8(1u64..20_000).prop_map(|q| DataPolicy::Dwrr {
                quantum: q.map(Bytes)
            }),
        ]
    }

    proptest! {
        /// Random traffic: control always first, paused classes never picked, strict priority
        /// order, round-robin order, every byte accounted.
        #[test]
        fn picks_obey_the_policy_and_bytes_are_conserved(
            pol in policy(),
            ops in prop::collection::vec(op(), 1..400),
        ) {
            let mut s = Scheduler::new(pol).unwrap();
            let mut handle = 0u32;
            let mut flows = 0u32;
            let mut last_served: Option<usize> = None;
            for op in ops {
                match op {
                    Op::Enqueue { prio, size, kind } => {
                        handle += 1;
                        let k = PacketKind::from_code(kind).unwrap();
                        let c = s.enqueue(pkt(handle, prio, size, k));
                        prop_assert_eq!(c == Class::Control, k.is_control());
                    }
                    Op::AddFlow { prio } => {
                        flows += 1;
                        s.add_flow(prio, flows);
                    }
                    Op::Next { paused, flow_sends } => {
                        let control_waiting = !s.queue(Class::Control).unwrap().is_empty();
                        let eligible: Vec<usize> = (0..8)
                            .filter(|&c| !s.queue(Class::Data(c as u8)).unwrap().is_empty()
                                && paused & (1 << c) == 0)
                            .collect();
                        let pick = s.next(Time(0), paused);
                        if control_waiting {
                            prop_assert!(
                                matches!(pick, Pick::Packet { class: Class::Control, .. }),
                                "control first: {:?}", pick
                            );
                            continue;
                        }
                        let Some(Class::Data(c)) = served_class(pick) else {
                            prop_assert!(eligible.is_empty(), "idle with {:?}", eligible);
                            prop_assert_eq!(pick, Pick::Idle);
                            continue;
                        };
                        let c = c as usize;
                        prop_assert!(paused & (1 << c) == 0, "paused class {} picked", c);
                        prop_assert!(eligible.contains(&c));
                        match pol {
                            DataPolicy::StrictPriority => {
                                prop_assert_eq!(Some(&c), eligible.iter().max());
                            }
                            DataPolicy::RoundRobin => {
                                let start = last_served.map_or(0, |l| (l + 1) % 8);
                                let want = (0..8).map(|k| (start + k) % 8)
                                    .find(|x| eligible.contains(x));
                                prop_assert_eq!(Some(c), want);
                            }
                            DataPolicy::Dwrr { .. } => {}
                        }
                        if let Pick::Flow { prio, flow } = pick {
                            s.flow_served(prio, flow, flow_sends.map(Bytes));
                            if flow_sends.is_some() {
                                last_served = Some(c);
                            }
                        } else {
                            last_served = Some(c);
                        }
                    }
                }
                if let Err(e) = s.check_invariants() {
                    return Err(TestCaseError::fail(e));
                }
            }
        }

        /// RCM: with random frames of four flows, budgets and congestion-flow sets, every byte is
        /// accounted, a class with work is never idle, each flow's frames leave in order, and a
        /// congestion frame leaves past its window's budget only when no other frame of its
        /// class waits (frames of flows that are no longer congestion flows are not held).
        #[test]
        fn rcc_keeps_flows_in_order_and_holds_only_while_others_can_go(
            ops in prop::collection::vec(
                (0u8..3, 0u64..4, 64u64..9000,
                 prop::option::of((1u64..50_000, 0u64..50_000)), 0u8..16),
                1..400),
            fair in any::<bool>(),
        ) {
            let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
            // input-fair: flows 0, 1 arrive on port 0 and flows 2, 3 on port 1
            s.set_input_fair(fair);
            let mut handle = 0u32;
            let mut last_of_flow = [0u32; 4];
            let mut harmful: Vec<u64> = Vec::new();
            for (what, flow, size, budget, set) in ops {
                match what {
                    0 => {
                        handle += 1;
                        s.enqueue(QueuedPacket {
                            flow,
                            in_port: (flow / 2) as u32,
                            ..pkt(handle, 2, size, PacketKind::Data)
                        });
                    }
                    1 => {
                        let flows: Vec<u64> = (0..4).filter(|f| set & (1 << f) != 0).collect();
                        s.set_rcc(2, budget.map(|(w, c)| (Bytes(w), Bytes(c.min(w)))), &flows);
                        harmful = if budget.is_some() { flows } else { Vec::new() };
                    }
                    _ => {
                        let q = s.queue(Class::Data(2)).unwrap();
                        let budget = q.rcc().budget();
                        let before = q.rcc().sent();
                        let empty = q.is_empty();
                        match s.next(Time(0), 0) {
                            Pick::Packet { packet, .. } => {
                                prop_assert!(!empty);
                                let f = packet.flow as usize;
                                prop_assert!(packet.handle > last_of_flow[f],
                                    "flow {} reordered: {} after {}", f, packet.handle, last_of_flow[f]);
                                last_of_flow[f] = packet.handle;
                                // a frame set apart earlier whose flow is no longer a congestion
                                // flow is not subject to W_c
                                let harmful_now = harmful.contains(&packet.flow);
                                if let (true, true, Some((_, w_c))) = (packet.rcc, harmful_now, budget) {
                                    let q = s.queue(Class::Data(2)).unwrap();
                                    // others waited when the frame was picked if the first FIFO
                                    // still holds a frame
                                    let others = q.len() > q.rcc_len();
                                    prop_assert!(before.1 < w_c || !others,
                                        "congestion frame past W_c {} (sent {}) while others wait",
                                        w_c.0, before.1.0);
                                }
                            }
                            p => prop_assert!(empty && p == Pick::Idle, "{:?} with work", p),
                        }
                    }
                }
                if let Err(e) = s.check_invariants() {
                    return Err(TestCaseError::fail(e));
                }
            }
        }

        /// Input-fair service with random frames, input ports and pauses: every byte is
        /// accounted, each input's frames leave in arrival order, a class with frames is never
        /// idle, and no input waits longer than the DRR bound: while an input has frames
        /// queued, each other input sends at most one quantum plus two largest frames before it
        /// sends (a debt of up to one largest frame takes that many rounds to repay).
        #[test]
        fn input_fair_conserves_orders_and_never_starves(
            ops in prop::collection::vec((0u8..2, 0u32..5, 64u64..9000), 1..500),
        ) {
            let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
            s.set_input_fair(true);
            let mut handle = 0u32;
            let mut queued = [0u64; 5];
            let mut last = [0u32; 5];
            // bytes the other inputs sent since input i last sent while it had frames queued
            let mut waited = [0u64; 5];
            let (mut enq, mut deq) = (0u64, 0u64);
            for (what, port, size) in ops {
                if what == 0 {
                    handle += 1;
                    s.enqueue(QueuedPacket {
                        in_port: port,
                        flow: u64::from(port),
                        ..pkt(handle, 4, size, PacketKind::Data)
                    });
                    queued[port as usize] += 1;
                    enq += size;
                    continue;
                }
                match s.next(Time(0), 0) {
                    Pick::Packet { packet, .. } => {
                        let i = packet.in_port as usize;
                        prop_assert!(queued[i] > 0);
                        prop_assert!(packet.handle > last[i], "input {} reordered", i);
                        last[i] = packet.handle;
                        queued[i] -= 1;
                        deq += packet.size.0;
                        for j in 0..5 {
                            if j != i && queued[j] > 0 {
                                waited[j] += packet.size.0;
                            }
                        }
                        waited[i] = 0;
                        let bound = 4 * (INPUT_DRR_QUANTUM.0 + 2 * 9000);
                        for (j, w) in waited.iter().enumerate() {
                            prop_assert!(*w <= bound, "input {} waited {} B (bound {})", j, w, bound);
                        }
                    }
                    p => prop_assert!(queued.iter().all(|&q| q == 0) && p == Pick::Idle, "{:?}", p),
                }
                prop_assert_eq!(s.queue_bytes(Class::Data(4)).0, enq - deq);
                if let Err(e) = s.check_invariants() {
                    return Err(TestCaseError::fail(e));
                }
            }
        }

        /// Input-fair service with every input backlogged by frames of random sizes: the bytes
        /// two inputs have sent never differ by more than one quantum plus two largest frames
        /// (per-input fairness within one quantum: DRR's bound).
        #[test]
        fn input_fair_shares_bytes_within_one_quantum(
            sizes in prop::collection::vec(64u64..9000, 64),
            inputs in 2u32..6,
        ) {
            let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
            s.set_input_fair(true);
            let mut handle = 0u32;
            for k in 0..200usize {
                for i in 0..inputs {
                    handle += 1;
                    let size = sizes[(k * 7 + i as usize * 13) % 64];
                    s.enqueue(QueuedPacket {
                        in_port: i + 1,
                        ..pkt(handle, 0, size, PacketKind::Data)
                    });
                }
            }
            let mut sent = [0u64; 8];
            for _ in 0..(100 * inputs) {
                let Pick::Packet { packet, .. } = s.next(Time(0), 0) else {
                    return Err(TestCaseError::fail("no packet"));
                };
                sent[packet.in_port as usize] += packet.size.0;
                let lo = sent[1..=inputs as usize].iter().min().copied().unwrap_or(0);
                let hi = sent[1..=inputs as usize].iter().max().copied().unwrap_or(0);
                prop_assert!(hi - lo <= INPUT_DRR_QUANTUM.0 + 2 * 9000,
                    "inputs sent {:?}", &sent[1..=inputs as usize]);
            }
        }

        /// DWRR with positive quanta: with every class saturated by frames of random sizes,
        /// each class's bytes stay within a constant of its quantum share (no class starves).
        #[test]
        fn dwrr_never_starves_a_class(
            q in prop::array::uniform8(1u64..20_000),
            sizes in prop::collection::vec(64u64..9000, 64),
            active in 1u8..=255,
        ) {
            let mut s = Scheduler::new(DataPolicy::Dwrr { quantum: q.map(Bytes) }).unwrap();
            let classes: Vec<usize> = (0..8).filter(|c| active & (1 << c) != 0).collect();
            let mut handle = 0u32;
            for &c in &classes {
                for k in 0..4 {
                    handle += 1;
                    s.enqueue(pkt(handle, c as u8, sizes[(c * 8 + k) % 64], PacketKind::Data));
                }
            }
            let mut sent = [0u64; 8];
            let mut total = 0u64;
            let quanta: u64 = classes.iter().map(|&c| q[c]).sum();
            let bound: u64 = classes.iter().map(|&c| q[c] + 9000).sum();
            let mut i = 0usize;
            while total < 60 * bound {
                let Pick::Packet { class: Class::Data(c), packet } = s.next(Time(0), 0) else {
                    return Err(TestCaseError::fail("no packet"));
                };
                sent[c as usize] += packet.size.0;
                total += packet.size.0;
                // keep the class saturated
                handle += 1;
                i += 1;
                s.enqueue(pkt(handle, c, sizes[i % 64], PacketKind::Data));
            }
            for &c in &classes {
                let fair = total as f64 * q[c] as f64 / quanta as f64;
                prop_assert!(
                    (sent[c] as f64 - fair).abs() <= bound as f64,
                    "class {} sent {} of {}, fair {}", c, sent[c], total, fair
                );
                prop_assert!(sent[c] > 0);
            }
        }
    }
}
