//! One switch's per-packet decisions: routing (ECMP), the egress queue policy (RED/ECN,
//! WRED), and the shared-buffer MMU with PFC (IEEE 802.1Qbb; DCQCN, SIGCOMM 2015, §4).
//!
//! The host (ns-3 switch node) turns each arriving packet into a [`PacketMeta`], calls
//! [`SwitchCore::on_arrival`] and acts on the [`Decision`]: drop, or enqueue at
//! `out_port` (setting CE if marked), and send PAUSE/RESUME on the ingress port if asked. When
//! the packet leaves its egress queue the host calls [`SwitchCore::on_departure`], which may
//! answer RESUME.
//!
//! Order of the checks for an arriving packet:
//! 1. route: ECMP over the shortest-path next hops (no route → drop `no_route`);
//! 2. egress policy of (out port, priority) on the egress queue length the MMU accounts:
//!    WRED drop of Not-ECT packets at `K_fs`, RED/ECN marking, the policy's queue limit;
//! 3. MMU admission: lossy tail drop / shared buffer full, or for lossless priorities
//!    headroom accounting with PFC.
//!
//! A packet dropped by step 2 never enters the MMU. Lossless priorities must not drop in
//! step 2: [`SwitchCore::set_queue_policy`] rejects early-drop modes for them and lifts their
//! queue limit (the MMU's headroom is their only limit).
//!
//! [`SwitchConfig`] is everything a switch configures (the MMU's parameters, the ECMP seed,
//! the control pool), with one flat parameter table ([`SwitchConfig::param_specs`]): the ns-3
//! switch's attributes are built from it (with those of the mechanism the bridge adds).
//!
//! # A mechanism
//!
//! The core may run a [`Mechanism`] beside its own decisions (RCM, regional congestion
//! mitigation, is one: the bridge wires it in, this crate does not know it): every admitted
//! data packet is reported to it with the MMU's ingress bytes of its port and priority and
//! egress bytes of its output queue ([`Admitted`]); the egress policy's RED/ECN sees the
//! output queue less what the mechanism holds apart ([`Mechanism::held`]: the held packets
//! would wait in the input queues of an input-and-output-queued switch); every data departure
//! is reported ([`Departed`]); the mechanism may detour a data packet among its equal-cost
//! ports ([`Detour`]); a neighbour's [`PacketKind::SwitchControl`] frame goes to
//! [`SwitchCore::on_control`]. What it asks of the host (frames to send, budgets to set at the
//! ports' schedulers) it answers through its own API ([`SwitchCore::mechanism_mut`]); its
//! timer is [`SwitchCore::next_timeout`] / [`SwitchCore::on_timeout`].

use crate::mechanism::{Admitted, Departed, Detour, Mechanism, NoMechanism};
use crate::mmu::{Admission, Mmu, MmuConfig, PfcAction, PortLink, PRIORITIES};
use crate::red::{EcnThresholds, NotEct, RedEcnConfig, RedEcnPolicy, Verdict};
use crate::routing::{ecmp_select, FiveTuple, Routes};
use crate::{DropCounts, DropReason, Ecn, PacketKind};
use rdma_cc_core::param::{
    Field, FlatTable, Limit, Param, ParamKind, ParamSpec, ParamValue, Params,
};
use rdma_cc_core::{Bytes, ConfigError, Time};
use serde::{Deserialize, Serialize};

/// What the host knows about an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacketMeta {
    /// Port the packet arrived on.
    pub in_port: u32,
    /// Priority class (0..8).
    pub prio: u8,
    /// Destination node id (an index into the routing table).
    pub dst_node: u32,
    /// The flow's 5-tuple, for ECMP.
    pub tuple: FiveTuple,
    /// Bytes the packet occupies in the buffer.
    pub size: Bytes,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// Kind: control kinds bypass the egress policy, the MMU and PFC.
    pub kind: PacketKind,
    /// Uniform random number in [0, 1) for RED marking.
    pub draw: f64,
    /// Fabric-wide flow id (what a mechanism tells flows apart by).
    pub flow: u64,
    /// When the packet arrived (a mechanism's samples and timers).
    pub now: Time,
}

/// What the host does with an arriving (or originated) packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Queue it at the egress port unchanged.
    Enqueue,
    /// Queue it with the ECN field set to CE.
    Mark,
    /// Drop it, for this reason.
    Drop(DropReason),
    /// A frame for this switch itself (a neighbour's [`PacketKind::SwitchControl`] frame, e.g.
    /// RCM's congestion notification): handed to the switch, never forwarded.
    Local,
}

impl From<Verdict> for Action {
    fn from(v: Verdict) -> Action {
        match v {
            Verdict::Enqueue => Action::Enqueue,
            Verdict::Mark => Action::Mark,
            Verdict::Drop(r) => Action::Drop(r),
        }
    }
}

/// What to do with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Egress port (meaningless when dropped for `NoRoute` or `Local`).
    pub out_port: u32,
    /// `Enqueue`, `Mark`, `Drop(reason)` or `Local`.
    pub action: Action,
    /// PFC action for the packet's ingress (port, priority).
    pub pfc: PfcAction,
}

/// Per-switch counters beyond the MMU's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SwitchStats {
    /// Packets received (data and control).
    pub received: u64,
    /// Packets admitted to an egress queue (received or originated).
    pub forwarded: u64,
    /// Packets marked CE.
    pub marked: u64,
    /// Drops by reason, all steps together.
    pub drops: DropCounts,
    /// Bytes dropped, all reasons.
    pub drop_bytes: u64,
    /// Received control frames (ACK, NACK, CNP, probe responses) admitted to an egress queue.
    pub control_forwarded: u64,
    /// Frames the switch originated ([`SwitchCore::originate`]), queued or dropped.
    pub originated: u64,
    /// Received frames addressed to the switch itself ([`Action::Local`]).
    pub local: u64,
}

/// The control pool: the buffer of control frames, apart from the data MMU (so control frames
/// never change data accounting or PFC thresholds). A control frame is admitted while the pool
/// has room, else dropped with [`DropReason::Control`].
#[derive(Debug, Clone)]
struct ControlPool {
    capacity: Bytes,
    used: Bytes,
    /// Bytes queued per egress port.
    per_port: Vec<Bytes>,
    max_used: Bytes,
}

impl ControlPool {
    /// Admits `size` bytes at `port` if the pool has room.
    #[inline]
    fn admit(&mut self, port: usize, size: Bytes) -> bool {
        let Some(q) = self.per_port.get_mut(port) else {
            debug_assert!(false, "control frame for port {port} out of range");
            return false;
        };
        if self.used.saturating_add(size) > self.capacity {
            return false;
        }
        *q += size;
        self.used += size;
        self.max_used = self.max_used.max(self.used);
        true
    }

    /// Releases `size` bytes that left `port`.
    #[inline]
    fn release(&mut self, port: usize, size: Bytes) {
        let Some(q) = self.per_port.get_mut(port) else {
            debug_assert!(false, "control departure from port {port} out of range");
            return;
        };
        debug_assert!(
            *q >= size,
            "control departure of {size} exceeds what is queued"
        );
        *q = q.saturating_sub(size);
        self.used = self.used.saturating_sub(size);
    }
}

/// Everything one switch configures: its MMU, the seed of its ECMP hash and its control pool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SwitchConfig {
    /// The shared buffer and PFC.
    pub mmu: MmuConfig,
    /// Seed of the ECMP hash; `None`: derived from the node id ([`Self::seed_for`]).
    pub ecmp_seed: Option<u64>,
    /// Bytes of the control pool, apart from the data buffer (> 0).
    pub control_buffer: Bytes,
    /// Input-fair egress service (`Voq`): each data class of every port serves its frames
    /// by DRR over their input ports ([`crate::sched::Scheduler::set_input_fair`]), not in
    /// arrival order. Off by default.
    pub voq: bool,
}

impl Default for SwitchConfig {
    /// The MMU's defaults ([`MmuConfig::default`]); the ECMP seed derived from the node id, so
    /// that switches hash differently (no polarisation: two switches of a path with one seed
    /// would make the same choice for every flow); a control pool of
    /// [`SwitchConfig::DEFAULT_CONTROL_BUFFER`].
    fn default() -> Self {
        SwitchConfig {
            mmu: MmuConfig::default(),
            ecmp_seed: None,
            control_buffer: Self::DEFAULT_CONTROL_BUFFER,
            voq: false,
        }
    }
}

/// The switch's own parameters (after the MMU's in [`SwitchConfig::param_specs`]).
const SWITCH_PARAMS: &[Param<SwitchConfig>] = &[
    Param {
        spec: ParamSpec {
            auto: Some("derived from the node id alone, so that switches hash differently"),
            ..ParamSpec::new(
                "ecmp_seed",
                "ecmpSeed",
                "EcmpSeed",
                ParamKind::Count,
                "Seed of the ECMP mapping of flows to paths: every switch hashes the 5-tuple \
                 under a seed of its own, derived from its node id and this value (a flow keeps \
                 its path; another value, another mapping, as the DCQCN paper's Fig. 3/4 vary).",
            )
        },
        get: |c| ParamValue::Count(c.ecmp_seed.unwrap_or(0)),
        set: |c, v| c.ecmp_seed = (v.int() != 0).then_some(v.int()),
    },
    Param {
        spec: ParamSpec {
            min: Limit::excl(0.0),
            ..ParamSpec::new(
                "control_buffer",
                "controlBuffer",
                "ControlBuffer",
                ParamKind::Bytes,
                "Bytes of the control pool, apart from BufferSize: control frames (ACK, NACK, \
                 CNP, probe responses, frames the switch originates) are accounted here, never \
                 in the data MMU, and dropped (reason control) only when it is full. Control \
                 frames have strict priority at every port, so a port's control queue only \
                 holds what arrives while one frame is on the wire (about one control frame per \
                 ingress port), and control traffic is a few percent of the data rate that \
                 causes it (a 66 B ACK per 1062 B data frame): the default, 1 MB, holds about \
                 15000 ACKs and never fills in a normal run.",
            )
        },
        get: |c| ParamValue::Bytes(c.control_buffer),
        set: |c, v| c.control_buffer = Bytes(v.int()),
    },
    Param {
        spec: ParamSpec::new(
            "voq",
            "voq",
            "Voq",
            ParamKind::Bool,
            "Serve each egress queue (port, priority) fairly across its input ports, as a \
             switch with virtual output queues and a fair crossbar schedule does (RCM, NPC \
             2017 section 4.1): deficit round robin by bytes (quantum 1500 B) over the input \
             ports with frames queued for it, each input's frames in arrival order; off: one \
             FIFO per egress queue (arrival order). The MMU's accounting and PFC do not depend \
             on it; control frames stay first, in arrival order.",
        ),
        get: |c| ParamValue::Bool(c.voq),
        set: |c, v| c.voq = v.flag(),
    },
];

impl Params for SwitchConfig {
    fn params() -> &'static [Param<Self>] {
        SWITCH_PARAMS
    }
}

/// The flat table of [`SwitchConfig::param_specs`]: the MMU's parameters, then the switch's.
const SWITCH_TABLE: FlatTable<SwitchConfig> = FlatTable {
    parts: &[
        &Field {
            get: |c: &SwitchConfig| &c.mmu,
            get_mut: |c: &mut SwitchConfig| &mut c.mmu,
        },
        &Field {
            get: |c: &SwitchConfig| c,
            get_mut: |c: &mut SwitchConfig| c,
        },
    ],
};

impl SwitchConfig {
    /// Default size of the control pool: 1 MB. Control frames have strict priority at every
    /// port, so a port's control queue only holds what arrives while one frame is on the wire
    /// — about one control frame per ingress port — and control traffic is a few percent of
    /// the data rate that causes it (a 66 B ACK per 1062 B data frame). 1 MB holds about
    /// 15 000 ACKs: no drop with any port count simulated here.
    pub const DEFAULT_CONTROL_BUFFER: Bytes = Bytes(1_000_000);

    /// Every parameter of a switch, in one flat table: the MMU's ([`MmuConfig::params`]),
    /// then the switch's own (indexes for [`Self::get`] / [`Self::set`]).
    pub fn param_specs() -> Vec<&'static ParamSpec<'static>> {
        SWITCH_TABLE.specs()
    }

    /// Reads parameter `i` of [`Self::param_specs`].
    pub fn get(&self, i: usize) -> Option<ParamValue> {
        SWITCH_TABLE.get(self, i)
    }

    /// Checks `v` against parameter `i`'s spec and stores it; the error names the Rust field.
    pub fn set(&mut self, i: usize, v: &ParamValue) -> Result<(), ConfigError> {
        SWITCH_TABLE.set_checked(self, i, v)
    }

    /// The spec of the parameter whose Rust field or ns-3 attribute is `name`.
    pub fn spec_by_name(name: &str) -> Option<&'static ParamSpec<'static>> {
        Self::param_specs()
            .into_iter()
            .find(|s| s.name == name || s.attr == name)
    }

    /// The ECMP seed of node `node`: its own (a Fibonacci-hash multiple of `node + 1`, so that
    /// neighbouring ids give unrelated seeds), perturbed by [`Self::ecmp_seed`] when one is set:
    /// another mapping of the flows to paths, every switch still hashing differently (one seed
    /// shared by every switch would make them all choose alike, polarising the paths).
    pub fn seed_for(&self, node: u32) -> u64 {
        let own = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(u64::from(node) + 1);
        match self.ecmp_seed {
            None => own,
            Some(s) => own ^ s.wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(29),
        }
    }

    /// Checks what can be checked without the ports (the MMU's [`MmuConfig::validate`] and the
    /// switch's own fields); [`SwitchCore::new`] checks the rest against the ports' links.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.mmu.validate()?;
        self.validate_all()
    }
}

/// The decisions of one switch, with mechanism `M` beside them ([`NoMechanism`]: none).
#[derive(Debug, Clone)]
pub struct SwitchCore<M = NoMechanism> {
    mmu: Mmu,
    control: ControlPool,
    policies: Vec<Option<RedEcnPolicy>>,
    routes: Routes,
    seed: u64,
    stats: SwitchStats,
    mech: M,
}

impl SwitchCore {
    /// The switch of node `node` with configuration `cfg`, ports whose links are `links`
    /// (`links[p]` is port `p`'s: each port's PFC headroom follows from it) and routing table
    /// `routes`, without a mechanism; no egress policy yet (packets are only subject to the
    /// MMU). Validates everything; the error names the field (see [`SwitchConfig::validate`],
    /// [`Mmu::new`]).
    pub fn new(
        cfg: &SwitchConfig,
        links: &[PortLink],
        routes: Routes,
        node: u32,
    ) -> Result<SwitchCore, ConfigError> {
        SwitchCore::with_mechanism(cfg, links, routes, node, NoMechanism)
    }
}

impl<M: Mechanism> SwitchCore<M> {
    /// [`SwitchCore::new`] with mechanism `mech` beside the switch's decisions.
    pub fn with_mechanism(
        cfg: &SwitchConfig,
        links: &[PortLink],
        routes: Routes,
        node: u32,
        mech: M,
    ) -> Result<SwitchCore<M>, ConfigError> {
        cfg.validate()?;
        let ports = links.len();
        let mmu = Mmu::new(cfg.mmu, links)?;
        Ok(SwitchCore {
            mmu,
            control: ControlPool {
                capacity: cfg.control_buffer,
                used: Bytes::ZERO,
                per_port: vec![Bytes::ZERO; ports],
                max_used: Bytes::ZERO,
            },
            policies: vec![None; ports * PRIORITIES],
            routes,
            seed: cfg.seed_for(node),
            stats: SwitchStats::default(),
            mech,
        })
    }

    /// The mechanism.
    pub fn mechanism(&self) -> &M {
        &self.mech
    }

    /// The mechanism, to drain what it asks of the host or to configure it.
    pub fn mechanism_mut(&mut self) -> &mut M {
        &mut self.mech
    }

    /// A neighbour's switch-control frame arrived on `port` with `payload` (after its RoCE
    /// header): it goes to the mechanism. Returns whether the mechanism took it.
    pub fn on_control(&mut self, now: Time, port: u32, payload: &[u8]) -> bool {
        self.mech.on_control(now, port, payload)
    }

    /// When the mechanism's timer should fire next (`None`: nothing pending).
    pub fn next_timeout(&self) -> Option<Time> {
        self.mech.next_timeout()
    }

    /// The mechanism's timer fired at `now`.
    pub fn on_timeout(&mut self, now: Time) {
        self.mech.on_timeout(now);
    }

    /// Replaces the routing table.
    pub fn set_routes(&mut self, routes: Routes) {
        self.routes = routes;
    }

    /// The routing table.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// The egress port for a packet, `None` without a route: ECMP's choice, unless the
    /// mechanism detours a data packet that has more than one candidate.
    #[inline]
    fn route(&mut self, m: &PacketMeta) -> Option<u32> {
        let candidates = self.routes.next_hops(m.dst_node);
        let ecmp = ecmp_select(self.seed, &m.tuple, candidates)?;
        if candidates.len() < 2 || m.kind.is_control() {
            return Some(ecmp);
        }
        match self.mech.route(m.now, m.prio, m.flow, candidates, ecmp) {
            Detour::Keep => Some(ecmp),
            Detour::To(port) => Some(port),
        }
    }

    /// The policy a lossless (PFC) priority's queue runs, made from a lossy one `cfg`: the
    /// same marking, every Not-ECT packet accepted and no queue limit (PFC, not the egress
    /// queue, bounds it; an early drop would be a loss on a lossless class). The one
    /// definition of this rule: the fabric builder asks it for its lossless queues.
    pub fn lossless_queue_policy(cfg: RedEcnConfig) -> RedEcnConfig {
        RedEcnConfig {
            not_ect: NotEct::Accept,
            k_fs: Bytes(0),
            buf_max: Bytes::MAX,
            ..cfg
        }
    }

    /// The policy of a priority whose queues do not mark (a class left out of `--ecn`), made
    /// from `cfg`: no packet is ever marked CE (K_min = K_max = the largest queue, P_max 0),
    /// RED early drop of Not-ECT packets is off with it (it follows the marking curve), the
    /// queue limit and the K_fs threshold drop stay as they were. The one definition of this
    /// rule: the fabric builder asks it for its unmarked queues.
    pub fn unmarked_queue_policy(cfg: RedEcnConfig) -> RedEcnConfig {
        RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes::MAX,
                k_max: Bytes::MAX,
                p_max: 0.0,
            },
            ..cfg
        }
    }

    /// Installs the RED/ECN + WRED policy of egress queue (`port`, `prio`). On a lossless
    /// priority only marking is allowed: Not-ECT early drop is rejected and the queue limit is
    /// lifted (PFC, not the egress queue, bounds a lossless queue).
    pub fn set_queue_policy(
        &mut self,
        port: u32,
        prio: u8,
        mut cfg: RedEcnConfig,
    ) -> Result<(), ConfigError> {
        let ports = self.mmu.ports();
        ConfigError::check_with((port as usize) < ports, "port", port, || {
            format!("must be < {ports}")
        })?;
        ConfigError::check(
            (prio as usize) < PRIORITIES,
            "priority",
            prio,
            "must be < 8",
        )?;
        if self.mmu.config().lossless[prio as usize] {
            let lossless = Self::lossless_queue_policy(cfg);
            ConfigError::check_with(
                cfg.not_ect == lossless.not_ect,
                "NotEctMode",
                cfg.not_ect.name(),
                || format!("priority {prio} is lossless (PFC): Not-ECT packets must be accepted"),
            )?;
            cfg = lossless;
        }
        let p = cfg.build()?;
        self.policies[port as usize * PRIORITIES + prio as usize] = Some(p);
        Ok(())
    }

    /// Decides for an arriving packet.
    ///
    /// A control frame ([`PacketKind::is_control`]) is routed like data but bypasses the egress
    /// policy (never marked, never early-dropped), the MMU and PFC: it is accounted in the
    /// control pool only. A [`PacketKind::SwitchControl`] frame is for this switch
    /// ([`Action::Local`]).
    #[inline]
    pub fn on_arrival(&mut self, m: &PacketMeta) -> Decision {
        self.stats.received += 1;
        if m.kind == PacketKind::SwitchControl {
            self.stats.local += 1;
            return Decision {
                out_port: m.in_port,
                action: Action::Local,
                pfc: PfcAction::None,
            };
        }
        let prio = (m.prio as usize).min(PRIORITIES - 1);
        let Some(out) = self.route(m) else {
            return self.dropped(m.size, 0, DropReason::NoRoute, PfcAction::None);
        };
        if m.kind.is_control() {
            if !self.control.admit(out as usize, m.size) {
                return self.dropped(m.size, out, DropReason::Control, PfcAction::None);
            }
            self.stats.forwarded += 1;
            self.stats.control_forwarded += 1;
            return Decision {
                out_port: out,
                action: Action::Enqueue,
                pfc: PfcAction::None,
            };
        }
        let idx = out as usize * PRIORITIES + prio;
        // the packets a mechanism holds apart are not in the output queue the egress policy
        // sees (RCM: in NPC 2017's input-and-output-queued switch they wait in the input queues)
        let held = self.mech.held(out, prio as u8);
        let verdict = match self.policies.get_mut(idx).and_then(Option::as_mut) {
            Some(p) => {
                let q = self
                    .mmu
                    .egress_bytes(out as usize, prio)
                    .saturating_sub(held);
                p.on_enqueue(q, m.size, m.ecn, m.draw)
            }
            None => Verdict::Enqueue,
        };
        if let Verdict::Drop(r) = verdict {
            return self.dropped(m.size, out, r, PfcAction::None);
        }
        let Admission { drop, pfc } =
            self.mmu
                .on_arrival(m.in_port as usize, out as usize, prio, m.size);
        if let Some(r) = drop {
            return self.dropped(m.size, out, r, pfc);
        }
        self.stats.forwarded += 1;
        if verdict == Verdict::Mark {
            self.stats.marked += 1;
        }
        self.mech.on_admitted(&Admitted {
            now: m.now,
            in_port: m.in_port,
            out_port: out,
            prio: prio as u8,
            size: m.size,
            ingress: self.mmu.ingress_bytes(m.in_port as usize, prio),
            egress: self.mmu.egress_bytes(out as usize, prio),
        });
        Decision {
            out_port: out,
            action: verdict.into(),
            pfc,
        }
    }

    /// The switch built a control frame of `size` bytes to send on `out_port` (e.g. a
    /// mechanism's notification to a neighbour): accounted in the control pool like a received
    /// control frame, or dropped with [`DropReason::Control`] if the pool is full. Its
    /// departure is reported with [`SwitchCore::on_departure`] and a control kind.
    pub fn originate(&mut self, out_port: u32, size: Bytes) -> Decision {
        self.stats.originated += 1;
        if !self.control.admit(out_port as usize, size) {
            return self.dropped(size, out_port, DropReason::Control, PfcAction::None);
        }
        self.stats.forwarded += 1;
        Decision {
            out_port,
            action: Action::Enqueue,
            pfc: PfcAction::None,
        }
    }

    fn dropped(&mut self, size: Bytes, out: u32, r: DropReason, pfc: PfcAction) -> Decision {
        self.stats.drops.add(r, 1);
        self.stats.drop_bytes += size.0;
        Decision {
            out_port: out,
            action: Action::Drop(r),
            pfc,
        }
    }

    /// A packet admitted earlier (of kind `kind` and flow `flow`) left egress queue
    /// (`out_port`, `prio`), whose scheduler now holds `held` bytes apart for the mechanism.
    /// Control kinds leave the control pool; data leaves the MMU, which may answer RESUME (and
    /// is reported to the mechanism).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn on_departure(
        &mut self,
        in_port: u32,
        out_port: u32,
        prio: u8,
        size: Bytes,
        kind: PacketKind,
        flow: u64,
        held: Bytes,
    ) -> PfcAction {
        if kind.is_control() {
            self.control.release(out_port as usize, size);
            return PfcAction::None;
        }
        self.mech.on_departed(&Departed {
            out_port,
            prio,
            flow,
            size,
            held,
        });
        let prio = (prio as usize).min(PRIORITIES - 1);
        self.mmu
            .on_departure(in_port as usize, out_port as usize, prio, size)
    }

    /// The MMU (accounting, thresholds, its own statistics).
    pub fn mmu(&self) -> &Mmu {
        &self.mmu
    }

    /// Restarts the exact egress maxima ([`Mmu::egress_max`]) at the current queue lengths.
    pub fn reset_egress_max(&mut self) {
        self.mmu.reset_egress_max();
    }

    /// Bytes of control frames buffered now.
    pub fn control_occupancy(&self) -> Bytes {
        self.control.used
    }

    /// Most bytes of control frames buffered at once.
    pub fn max_control_occupancy(&self) -> Bytes {
        self.control.max_used
    }

    /// Counters.
    pub fn stats(&self) -> &SwitchStats {
        &self.stats
    }

    /// The MMU's invariants, plus: received + originated = forwarded + dropped + local; the
    /// control pool's bytes equal the sum of its per-port queues and fit in the pool.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.mmu.check_invariants()?;
        let s = &self.stats;
        let dropped = s.drops.total();
        if s.received + s.originated != s.forwarded + dropped + s.local {
            return Err(format!(
                "received {} + originated {} != forwarded {} + dropped {} + local {}",
                s.received, s.originated, s.forwarded, dropped, s.local
            ));
        }
        let c = &self.control;
        let sum = c
            .per_port
            .iter()
            .fold(Bytes::ZERO, |acc, &b| acc.saturating_add(b));
        if sum != c.used || c.used > c.capacity {
            return Err(format!(
                "control pool: used {} != sum of ports {} or above the pool {}",
                c.used, sum, c.capacity
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{links, meta, routes};

    fn ack(in_port: u32, dst: u32, prio: u8) -> PacketMeta {
        PacketMeta {
            size: Bytes(66),
            kind: PacketKind::Ack,
            ..meta(in_port, dst, prio, Ecn::NotEct)
        }
    }

    /// 3 ports; host 9 reachable via port 2.
    fn core(lossless3: bool) -> SwitchCore {
        let mut lossless = [false; 8];
        lossless[3] = lossless3;
        let cfg = SwitchConfig {
            mmu: MmuConfig {
                buffer_size: Bytes(1_000_000),
                mtu: Bytes(1000),
                reserve: Bytes(0),
                headroom: Some(Bytes(20_000)),
                allow_headroom_overrun: false,
                xoff_beta: 0.0,
                xoff_static: Some(Bytes(50_000)),
                xon_delta: Bytes(2000),
                lossless,
                egress_limit: Bytes(30_000),
            },
            ecmp_seed: Some(7),
            control_buffer: Bytes(1000),
            voq: false,
        };
        SwitchCore::new(&cfg, &links(3), routes(), 0).unwrap()
    }

    #[test]
    fn forwards_along_the_route_and_accounts_egress() {
        let mut c = core(false);
        let d = c.on_arrival(&meta(0, 9, 1, Ecn::Ect0));
        assert_eq!((d.out_port, d.action), (2, Action::Enqueue));
        assert_eq!(c.mmu().egress_bytes(2, 1), Bytes(1000));
        assert_eq!(
            c.on_departure(0, 2, 1, Bytes(1000), PacketKind::Data, 0, Bytes::ZERO),
            PfcAction::None
        );
        assert_eq!(c.mmu().occupancy(), Bytes(0));
        c.check_invariants().unwrap();
    }

    #[test]
    fn an_unmarked_class_never_marks_and_keeps_its_queue_limit() {
        let cfg = RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes(1000),
                k_max: Bytes(2000),
                p_max: 1.0,
            },
            not_ect: NotEct::RedDrop,
            k_fs: Bytes(3000),
            buf_max: Bytes(50_000),
        };
        let u = <SwitchCore>::unmarked_queue_policy(cfg);
        assert_eq!(
            (u.buf_max, u.k_fs, u.not_ect),
            (cfg.buf_max, cfg.k_fs, cfg.not_ect)
        );
        let mut p = u.build().unwrap();
        // far above K_max of the marked policy, with a draw that would always mark
        for q in [0, 1000, 2000, 40_000] {
            assert_eq!(
                p.on_enqueue(Bytes(q), Bytes(1000), Ecn::Ect0, 0.0),
                Verdict::Enqueue
            );
            assert_eq!(
                p.on_enqueue(Bytes(q), Bytes(1000), Ecn::NotEct, 0.0),
                Verdict::Enqueue
            );
        }
        assert_eq!(
            p.on_enqueue(Bytes(49_500), Bytes(1000), Ecn::Ect0, 0.0),
            Verdict::Drop(DropReason::QueueFull)
        );
        assert_eq!(p.stats().marked, 0);
    }

    #[test]
    fn unknown_destination_is_dropped_as_no_route() {
        let mut c = core(false);
        let d = c.on_arrival(&meta(0, 5, 1, Ecn::Ect0));
        assert_eq!(d.action, Action::Drop(DropReason::NoRoute));
        assert_eq!(c.stats().drops.no_route, 1);
        c.check_invariants().unwrap();
    }

    #[test]
    fn wred_drops_not_ect_at_kfs_before_the_mmu_sees_it() {
        let mut c = core(false);
        c.set_queue_policy(
            2,
            1,
            RedEcnConfig {
                ecn: EcnThresholds {
                    k_min: Bytes(5000),
                    k_max: Bytes(20_000),
                    p_max: 0.2,
                },
                not_ect: NotEct::ThresholdDrop,
                k_fs: Bytes(3000),
                buf_max: Bytes(100_000),
            },
        )
        .unwrap();
        for _ in 0..3 {
            assert_eq!(
                c.on_arrival(&meta(0, 9, 1, Ecn::NotEct)).action,
                Action::Enqueue
            );
        }
        let d = c.on_arrival(&meta(0, 9, 1, Ecn::NotEct));
        assert_eq!(d.action, Action::Drop(DropReason::NotEctThreshold));
        assert_eq!(c.mmu().egress_bytes(2, 1), Bytes(3000));
        // ECT packets pass and are marked once above K_min... at 3000 B: not yet
        assert_eq!(
            c.on_arrival(&meta(0, 9, 1, Ecn::Ect0)).action,
            Action::Enqueue
        );
        c.check_invariants().unwrap();
    }

    #[test]
    fn lossy_egress_limit_tail_drops() {
        let mut c = core(false);
        for _ in 0..30 {
            assert!(matches!(
                c.on_arrival(&meta(0, 9, 1, Ecn::Ect0)).action,
                Action::Enqueue
            ));
        }
        let d = c.on_arrival(&meta(0, 9, 1, Ecn::Ect0));
        assert_eq!(d.action, Action::Drop(DropReason::QueueFull));
        c.check_invariants().unwrap();
    }

    #[test]
    fn lossless_priority_pauses_instead_of_dropping() {
        let mut c = core(true);
        let mut pauses = 0;
        for i in 0..70 {
            let d = c.on_arrival(&meta(0, 9, 3, Ecn::Ect0));
            assert!(
                !matches!(d.action, Action::Drop(_)),
                "packet {i} dropped: {d:?}"
            );
            pauses += (d.pfc == PfcAction::Pause) as u32;
        }
        assert_eq!(pauses, 1);
        assert!(c.mmu().is_paused(0, 3));
        c.check_invariants().unwrap();
    }

    #[test]
    fn lossless_priority_rejects_early_drop_policy() {
        let mut c = core(true);
        let e = c
            .set_queue_policy(
                2,
                3,
                RedEcnConfig {
                    not_ect: NotEct::ThresholdDrop,
                    k_fs: Bytes(1),
                    ..RedEcnConfig::default()
                },
            )
            .unwrap_err();
        assert_eq!(e.field, "NotEctMode");
    }

    #[test]
    fn control_frames_bypass_wred_mmu_and_pfc() {
        let mut c = core(true);
        // every Not-ECT data packet is dropped at K_fs = 0 on port 2, priority 1
        c.set_queue_policy(
            2,
            1,
            RedEcnConfig {
                not_ect: NotEct::ThresholdDrop,
                k_fs: Bytes(0),
                ..RedEcnConfig::default()
            },
        )
        .unwrap();
        assert_eq!(
            c.on_arrival(&meta(0, 9, 1, Ecn::NotEct)).action,
            Action::Drop(DropReason::NotEctThreshold)
        );
        let d = c.on_arrival(&ack(0, 9, 1));
        assert_eq!(
            (d.out_port, d.action, d.pfc),
            (2, Action::Enqueue, PfcAction::None)
        );
        // not in the data accounting
        assert_eq!(c.mmu().egress_bytes(2, 1), Bytes::ZERO);
        assert_eq!(c.mmu().occupancy(), Bytes::ZERO);
        assert_eq!(c.control_occupancy(), Bytes(66));
        // a lossless priority far above XOFF: control frames still never PAUSE
        for _ in 0..60 {
            c.on_arrival(&meta(0, 9, 3, Ecn::Ect0));
        }
        assert!(c.mmu().is_paused(0, 3));
        let ingress = c.mmu().ingress_bytes(0, 3);
        let d = c.on_arrival(&ack(0, 9, 3));
        assert_eq!((d.action, d.pfc), (Action::Enqueue, PfcAction::None));
        assert_eq!(c.mmu().ingress_bytes(0, 3), ingress, "MMU untouched");
        assert_eq!(
            c.on_departure(0, 2, 3, Bytes(66), PacketKind::Ack, 0, Bytes::ZERO),
            PfcAction::None
        );
        assert_eq!(c.stats().control_forwarded, 2);
        assert_eq!(c.stats().drops.control, 0);
        c.check_invariants().unwrap();
    }

    #[test]
    fn a_full_control_pool_drops_with_reason_control() {
        let mut c = core(false);
        // 1000 B pool: 15 ACKs of 66 B fit, the 16th does not
        for _ in 0..15 {
            assert_eq!(c.on_arrival(&ack(0, 9, 3)).action, Action::Enqueue);
        }
        assert_eq!(
            c.on_arrival(&ack(0, 9, 3)).action,
            Action::Drop(DropReason::Control)
        );
        assert_eq!(c.stats().drops.control, 1);
        assert_eq!(c.max_control_occupancy(), Bytes(990));
        for _ in 0..15 {
            c.on_departure(0, 2, 3, Bytes(66), PacketKind::Ack, 0, Bytes::ZERO);
        }
        assert_eq!(c.control_occupancy(), Bytes::ZERO);
        c.check_invariants().unwrap();
        let cfg = SwitchConfig {
            control_buffer: Bytes::ZERO,
            ..SwitchConfig::default()
        };
        assert_eq!(
            SwitchCore::new(&cfg, &links(3), routes(), 1)
                .unwrap_err()
                .field,
            "control_buffer"
        );
    }

    #[test]
    fn originated_frames_are_accounted_and_conserved() {
        let mut c = core(false);
        let d = c.originate(1, Bytes(80));
        assert_eq!((d.out_port, d.action), (1, Action::Enqueue));
        assert_eq!(c.control_occupancy(), Bytes(80));
        assert_eq!(
            c.originate(1, Bytes(950)).action,
            Action::Drop(DropReason::Control)
        );
        c.check_invariants().unwrap();
        c.on_departure(
            1,
            1,
            0,
            Bytes(80),
            PacketKind::SwitchControl,
            0,
            Bytes::ZERO,
        );
        let s = c.stats();
        assert_eq!((s.originated, s.forwarded, s.drops.control), (2, 1, 1));
        // a neighbour's switch-control frame is for this switch
        let d = c.on_arrival(&PacketMeta {
            kind: PacketKind::SwitchControl,
            ..ack(2, 9, 0)
        });
        assert_eq!(d.action, Action::Local);
        assert_eq!(c.stats().local, 1);
        c.check_invariants().unwrap();
    }

    #[test]
    fn the_flat_table_reaches_every_field_and_defaults_are_valid() {
        let specs = SwitchConfig::param_specs();
        let mut attrs = std::collections::HashSet::new();
        let d = SwitchConfig::default();
        d.validate().unwrap();
        for (i, s) in specs.iter().enumerate() {
            assert!(attrs.insert(s.attr), "duplicate attribute {}", s.attr);
            let v = d.get(i).unwrap();
            s.check(&v, s.name).unwrap();
            assert_eq!(s.parse(&v.to_string(), s.name).unwrap(), v, "{}", s.name);
        }
        assert_eq!(d.get(specs.len()), None);
        // past the end, the error names the index
        let mut e = d;
        assert_eq!(
            e.set(specs.len(), &ParamValue::Count(0))
                .unwrap_err()
                .to_string(),
            format!("invalid parameter = {}: no such parameter", specs.len())
        );
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        let mmu: Vec<&str> = MmuConfig::params().iter().map(|p| p.spec.name).collect();
        let n = mmu.len();
        assert_eq!(names[..n], mmu[..]);
        assert_eq!(names[n..], ["ecmp_seed", "control_buffer", "voq"]);
        let at = |a: &str| specs.iter().position(|s| s.attr == a).unwrap();
        let mut c = d;
        assert!(!d.voq, "input-fair service off by default");
        c.set(at("Voq"), &ParamValue::Bool(true)).unwrap();
        assert!(c.voq);
        c.set(at("EcmpSeed"), &ParamValue::Count(5)).unwrap();
        c.set(at("BufferSize"), &ParamValue::Bytes(Bytes(1000)))
            .unwrap();
        assert_eq!((c.ecmp_seed, c.mmu.buffer_size), (Some(5), Bytes(1000)));
        // a set seed changes every switch's seed, and the switches still differ
        assert_eq!(d.seed_for(0), 0x9E37_79B9_7F4A_7C15);
        assert_ne!(d.seed_for(1), d.seed_for(2));
        assert_ne!(c.seed_for(3), d.seed_for(3));
        assert_ne!(c.seed_for(1), c.seed_for(2));
        let mut e = c;
        e.set(at("EcmpSeed"), &ParamValue::Count(6)).unwrap();
        assert_ne!(e.seed_for(3), c.seed_for(3));
        assert_eq!(
            c.set(at("ControlBuffer"), &ParamValue::Bytes(Bytes::ZERO))
                .unwrap_err()
                .field,
            "control_buffer"
        );
        assert_eq!(
            SwitchConfig::spec_by_name("Headroom").map(|s| s.option),
            Some("headroom")
        );
        assert_eq!(
            SwitchConfig::spec_by_name("headroom").map(|s| s.attr),
            Some("Headroom")
        );
        assert!(SwitchConfig::spec_by_name("bufferSize").is_none());
    }

    #[test]
    fn egress_maxima_restart_at_the_current_queue() {
        let mut c = core(false);
        for _ in 0..4 {
            c.on_arrival(&meta(0, 9, 1, Ecn::Ect0));
        }
        c.reset_egress_max();
        // nothing arrives after the reset: the maximum is the 4000 B still queued
        c.on_departure(0, 2, 1, Bytes(1000), PacketKind::Data, 0, Bytes::ZERO);
        assert_eq!(c.mmu().egress_max(2, 1), Bytes(4000));
    }

    proptest::proptest! {
        /// The MMU accounts each frame by the ingress port it carries, so the egress service
        /// order does not change the accounting: with frames from two inputs on a lossless
        /// priority served FIFO or input-fair (VOQ), after every step each input's ingress
        /// bytes are exactly its frames still queued, the invariants hold, and once drained
        /// nothing is accounted and no input stays paused.
        #[test]
        fn mmu_accounting_does_not_depend_on_the_service_order(
            ops in proptest::collection::vec((0u8..3, 500u64..1500), 1..300),
            fair in proptest::prelude::any::<bool>(),
        ) {
            use crate::sched::{DataPolicy, Pick, QueuedPacket, Scheduler};
            let mut c = core(true);
            let mut s = Scheduler::new(DataPolicy::RoundRobin).unwrap();
            s.set_input_fair(fair);
            let mut queued = [0u64; 2];
            let mut handle = 0u32;
            let step = |c: &mut SwitchCore, s: &mut Scheduler, queued: &mut [u64; 2]| {
                if let Pick::Packet { packet: p, .. } = s.next(Time(0), 0) {
                    c.on_departure(p.in_port, 2, p.prio, p.size, p.kind, p.flow, Bytes::ZERO);
                    queued[p.in_port as usize] -= p.size.0;
                }
            };
            for (what, size) in ops {
                if what < 2 {
                    let m = PacketMeta { size: Bytes(size), ..meta(u32::from(what), 9, 3, Ecn::Ect0) };
                    let d = c.on_arrival(&m);
                    proptest::prop_assert_eq!(d.out_port, 2);
                    if !matches!(d.action, Action::Drop(_)) {
                        handle += 1;
                        s.enqueue(QueuedPacket {
                            handle,
                            size: m.size,
                            kind: m.kind,
                            prio: 3,
                            flow: m.flow,
                            arrival: Time(u64::from(handle)),
                            in_port: m.in_port,
                            rcc: false,
                        });
                        queued[what as usize] += size;
                    }
                } else {
                    step(&mut c, &mut s, &mut queued);
                }
                for (i, q) in queued.iter().enumerate() {
                    proptest::prop_assert_eq!(c.mmu().ingress_bytes(i, 3).0, *q);
                }
                proptest::prop_assert_eq!(c.mmu().egress_bytes(2, 3).0, queued[0] + queued[1]);
                if let Err(e) = c.check_invariants() {
                    return Err(proptest::test_runner::TestCaseError::fail(e));
                }
            }
            while !s.is_empty() {
                step(&mut c, &mut s, &mut queued);
            }
            proptest::prop_assert_eq!(c.mmu().occupancy(), Bytes::ZERO);
            for i in 0..2 {
                proptest::prop_assert!(!c.mmu().is_paused(i, 3), "input {} still paused", i);
            }
        }
    }
}
