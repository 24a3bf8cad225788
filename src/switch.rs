//! Bridge for the switch (`rdma-cc-switch`): its parameters, the per-packet decisions of
//! one switch, routing, and the RED/ECN queue policy; and the wiring of RCM (`rdma-cc-rcm`)
//! into it, the one place the two crates meet.
//!
//! - `SwitchParams`: one per ns-3 `SwitchNode`, holding its `RcmNodeConfig` (the switch's
//!   `SwitchConfig` — MMU, ECMP seed, control pool — then RCM's parameters, one flat table);
//!   `RedEcnParams`: one per `RedEcnQueueDisc` (and the egress policy a `FabricHelper`
//!   installs), holding a [`RedEcnConfig`]. Their attributes are built from
//!   `switch_param_specs()` / `red_ecn_param_specs()` and read and written through `get`/`set`:
//!   every default, bound and help text comes from the Rust tables. Errors name the attribute
//!   (or, for the `*_option*` calls, the command-line option).
//! - `SwitchCore`, `RedEcn`: the decisions, called per packet with plain values.
//! - RCM (run beside the switch core as its `Mechanism` when the `Rcm` attribute is set,
//!   built by `RcmNodeConfig::build`): the core answers each data packet with `rcc` (a
//!   congestion-flow packet the port's scheduler keeps apart), takes a neighbour's CN frame's
//!   payload (`on_control`), and tells the module what to do through `rcm_pop_event` (a CN to
//!   send, whose payload `rcm_cn_payload` gives; an RCC budget to set at a port's scheduler)
//!   and when to wake it (`rcm_next_timeout`).

mod fabric;
mod node;
mod params;
mod red;
#[cfg(test)]
mod tests;

use fabric::{topology_new, Topology};
use node::{switch_core_new, SwitchCore};
pub(crate) use params::red_ecn_specs;
use params::{
    ecn_map_lookup, red_ecn_param_specs, red_ecn_params_new, switch_param_specs, switch_params_new,
    RedEcnParams, SwitchParams,
};
use rdma_cc_core::Bytes;
use rdma_cc_rcm::Role;
use rdma_cc_switch::core::{Action as CoreAction, Decision};
use rdma_cc_switch::mmu::{self, EgressRow};
use rdma_cc_switch::{DropCounts, DropReason as Reason};
use red::{drop_list, drop_reason_name, drop_reasons, red_ecn_new, RedEcn};

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

    /// What to do with a packet.
    #[derive(Debug)]
    #[repr(u8)]
    enum Action {
        /// Queue it unchanged.
        Enqueue = 0,
        /// Queue it with ECN set to CE.
        Mark = 1,
        /// Drop it (see the reason).
        Drop = 2,
        /// A frame for the switch itself (a neighbour's switch-control frame): not forwarded.
        Local = 3,
    }

    /// Why a packet was dropped (`None`: it was not). `drop_reason_name` gives the stable
    /// name used in traces and output files.
    #[derive(Debug)]
    #[repr(u8)]
    enum DropReason {
        None = 0,
        QueueFull = 1,
        BufferFull = 2,
        NotEctThreshold = 3,
        RedEarlyDrop = 4,
        HeadroomOverrun = 5,
        NoRoute = 6,
        Control = 7,
    }

    /// PFC action for the packet's ingress (port, priority).
    #[derive(Debug)]
    #[repr(u8)]
    enum PfcAction {
        /// Nothing.
        None = 0,
        /// Send PAUSE (and keep refreshing it).
        Pause = 1,
        /// Send RESUME.
        Resume = 2,
    }

    /// Verdict of a RED/ECN queue for one packet.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct EnqueueVerdict {
        action: Action,
        reason: DropReason,
    }

    /// Drops (packets) per reason.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
    struct DropCounters {
        queue_full: u64,
        buffer_full: u64,
        not_ect_threshold: u64,
        red_early_drop: u64,
        headroom_overrun: u64,
        no_route: u64,
        control: u64,
    }

    /// One line of a drop listing: the reason's stable name and its count.
    #[derive(Debug, Clone)]
    struct DropCount {
        name: String,
        count: u64,
    }

    /// Counters of one RED/ECN queue.
    #[derive(Debug, Clone, Copy)]
    struct RedEcnCounters {
        enqueued: u64,
        marked: u64,
        drops: DropCounters,
    }

    /// What the switch knows about an arriving packet.
    #[derive(Clone, Copy)]
    struct SwitchPacket {
        in_port: u32,
        prio: u8,
        dst_node: u32,
        src_ip: u32,
        dst_ip: u32,
        src_port: u16,
        dst_port: u16,
        protocol: u8,
        size: u64,
        ecn: u8,
        kind: PacketKind,
        draw: f64,
        /// Fabric-wide flow id (RCM).
        flow: u64,
        /// Arrival time, ns (RCM).
        now_ns: u64,
    }

    /// The switch's answer: `action` (with `reason` when it is Drop) at egress `out_port`,
    /// and the PFC action for the packet's ingress (port, priority).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct SwitchDecision {
        out_port: u32,
        action: Action,
        reason: DropReason,
        pfc: PfcAction,
    }

    /// What RCM asks of the module (`rcm_pop_event`).
    #[derive(Debug)]
    #[repr(u8)]
    enum RcmEventKind {
        /// Nothing (more) to do.
        None = 0,
        /// Send a CN out of `port`: a switch-control frame whose payload is
        /// `rcm_cn_payload()` (about priority `prio`).
        SendCn = 1,
        /// RCC started at output (`port`, `prio`): set its scheduler's budget (`w`, `w_c`)
        /// and congestion flows (`rcm_event_flows()`).
        RccOn = 2,
        /// A congestion event of `degree` cut `w_c`: set the budget and flows.
        RccCut = 3,
        /// RCC stopped at (`port`, `prio`): clear the budget.
        RccOff = 4,
        /// The congestion flows of an active RCC changed: set the budget and flows.
        RccFlows = 5,
        /// No congestion event for a while: `W_c` grew (RCM's `rcc_recover_time`); set the
        /// budget and flows.
        RccRecover = 6,
    }

    /// The role of an RCM output point (NPC 2017 section 3.2).
    #[derive(Debug)]
    #[repr(u8)]
    enum RcmRole {
        /// No flag set.
        Clear = 0,
        /// Local flag only: the root congestion point.
        Root = 1,
        /// Remote flag only: the edge of the congestion region.
        Edge = 2,
        /// Both flags: inside the region.
        Inner = 3,
    }

    /// One thing RCM asks of the module; `kind` says which fields matter.
    #[derive(Clone, Copy, Debug)]
    struct RcmEvent {
        kind: RcmEventKind,
        port: u32,
        prio: u8,
        /// RccOn: the point's role.
        role: RcmRole,
        /// RccCut: the event's degree; SendCn: the CN's degree.
        degree: u8,
        /// RccOn, RccCut: the window W, bytes.
        w: u64,
        /// RccOn, RccCut: the congestion flows' budget W_c, bytes.
        w_c: u64,
        /// SendCn, RccOn, RccCut, RccFlows: flow IDs the CN carries / the congestion flows.
        flows: u32,
    }

    /// RCM counters of one switch.
    #[derive(Clone, Copy, Debug, Default)]
    struct RcmCounters {
        /// Whether RCM runs.
        enabled: bool,
        cn_sent: u64,
        cn_received: u64,
        /// Congestion detections at output queues.
        detections: u64,
        rcc_activations: u64,
        rcc_cuts: u64,
        /// SAR decisions that chose another port than ECMP's.
        detours: u64,
        /// Packets sent to another port than their flow's previous one.
        moves: u64,
    }

    /// Counters of one switch.
    #[derive(Clone, Copy, Debug, Default)]
    struct SwitchCounters {
        /// Frames received (data and control).
        received: u64,
        /// Frames admitted to an egress queue (received or originated).
        forwarded: u64,
        marked: u64,
        drops: DropCounters,
        /// Sum of `drops`.
        drops_total: u64,
        drop_bytes: u64,
        pauses: u64,
        resumes: u64,
        /// Data bytes buffered now (the MMU).
        occupancy: u64,
        max_occupancy: u64,
        max_headroom_used: u64,
        /// Received control frames forwarded.
        control_forwarded: u64,
        /// Frames the switch originated (queued or dropped).
        originated: u64,
        /// Frames received for the switch itself.
        local: u64,
        /// Control bytes buffered now, and the most at once.
        control_occupancy: u64,
        max_control_occupancy: u64,
    }

    /// One non-empty egress queue of a switch: (port, priority) and its bytes.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct EgressSample {
        port: u32,
        prio: u8,
        bytes: u64,
    }

    /// Marking thresholds looked up in a per-speed map.
    #[derive(Clone, Copy, Debug)]
    struct EcnLookup {
        found: bool,
        k_min: u64,
        k_max: u64,
        p_max: f64,
    }

    extern "C++" {
        include!("rdma-cc/src/params.rs.h");
        type ParamValue = crate::params::ffi::ParamValue;
        type ParamInfo = crate::params::ffi::ParamInfo;
    }

    extern "C++" {
        include!("rdma-cc/src/sched.rs.h");
        /// Shared with the scheduler bridge.
        type PacketKind = crate::sched::PacketKind;
        /// Shared with the scheduler bridge.
        type TxPacket = crate::sched::TxPacket;
    }

    extern "Rust" {
        /// The parameters of one switch (its MMU, ECMP seed and control pool).
        type SwitchParams;
        /// A switch's parameters at their defaults.
        fn switch_params_new() -> Box<SwitchParams>;
        /// Every switch parameter, in index order.
        fn switch_param_specs() -> Vec<ParamInfo>;
        /// Checks `v` against parameter `index` and stores it; the error names the attribute.
        fn set(self: &mut SwitchParams, index: usize, v: &ParamValue) -> Result<()>;
        /// Parameter `index`.
        fn get(self: &SwitchParams, index: usize) -> Result<ParamValue>;
        /// Parses `text` for parameter `index` given as its command-line option and stores it;
        /// the error is one line naming the option.
        fn set_option(self: &mut SwitchParams, index: usize, text: &str) -> Result<()>;
        /// Takes parameters `indices` of `from` (the values the command line's options
        /// parsed, once, into the options' own `SwitchParams`) as they are: the typed values
        /// are copied in Rust, with no text and no ns-3 attribute in between; the error names
        /// the attribute.
        fn take(self: &mut SwitchParams, from: &SwitchParams, indices: &[usize]) -> Result<()>;
        /// Checks these parameters together, with the priorities of `pfc_mask` lossless, for a
        /// switch whose port `p` has a link of `rates_bps[p]` and one-way `delays_ns[p]` (e.g.
        /// an explicit headroom below a link's need); `mmu_mtu` and `egress_limit`, when not 0,
        /// replace MmuMtu and EgressLimit (what the scenario will set from its own options);
        /// errors name the command-line options of `options` (names without dashes) and the
        /// attributes otherwise.
        fn validate_options(
            self: &SwitchParams,
            options: &[String],
            pfc_mask: u8,
            mmu_mtu: u64,
            egress_limit: u64,
            rates_bps: &[u64],
            delays_ns: &[u64],
        ) -> Result<()>;
        /// Total buffer (attribute BufferSize), bytes.
        fn buffer_size(self: &SwitchParams) -> u64;
        /// Mask of the lossless priorities (attribute PfcPriorities).
        fn pfc_priorities(self: &SwitchParams) -> u8;
        /// Whether the switch's ports serve each egress queue fairly across input ports
        /// (attribute Voq).
        fn voq(self: &SwitchParams) -> bool;

        /// The settings of one RED/ECN + WRED egress queue policy.
        type RedEcnParams;
        /// A RED/ECN queue's settings at their defaults.
        fn red_ecn_params_new() -> Box<RedEcnParams>;
        /// Every RED/ECN parameter, in index order.
        fn red_ecn_param_specs() -> Vec<ParamInfo>;
        /// Checks `v` against parameter `index` and stores it; the error names the attribute.
        fn set(self: &mut RedEcnParams, index: usize, v: &ParamValue) -> Result<()>;
        /// Parameter `index`.
        fn get(self: &RedEcnParams, index: usize) -> Result<ParamValue>;
        /// Parses `text` for parameter `index` given as its command-line option and stores it;
        /// the error is one line naming the option.
        fn set_option(self: &mut RedEcnParams, index: usize, text: &str) -> Result<()>;
        /// Checks the settings together; errors name the command-line options of `options`
        /// (names without dashes) and the attributes otherwise.
        fn validate_options(self: &RedEcnParams, options: &[String]) -> Result<()>;
        /// A copy.
        fn snapshot(self: &RedEcnParams) -> Box<RedEcnParams>;
        /// The policy of a lossless (PFC) priority made from this one (`SwitchCore::
        /// lossless_queue_policy`: Not-ECT accepted, no queue limit).
        fn lossless(self: &RedEcnParams) -> Box<RedEcnParams>;
        /// The policy of a priority whose queues do not mark, made from this one
        /// (`SwitchCore::unmarked_queue_policy`: never marks, same queue limit and K_fs).
        fn unmarked(self: &RedEcnParams) -> Box<RedEcnParams>;
        /// Sets the marking (bytes, bytes, probability); checked when the policy is built.
        fn set_ecn(self: &mut RedEcnParams, k_min: u64, k_max: u64, p_max: f64);
        /// Sets the treatment of Not-ECT packets and K_fs; checked when built. An unknown
        /// mode is an error naming `NotEctMode` (nothing is set).
        fn set_not_ect(self: &mut RedEcnParams, mode: NotEctMode, k_fs: u64) -> Result<()>;
        /// Sets the queue limit; checked when the policy is built.
        fn set_buf_max(self: &mut RedEcnParams, buf_max: u64);
        /// The marking threshold K_min, bytes.
        fn k_min(self: &RedEcnParams) -> u64;
        /// The queue limit, bytes.
        fn buf_max(self: &RedEcnParams) -> u64;
        /// Checks the settings together; the error names the attribute.
        fn validate(self: &RedEcnParams) -> Result<()>;

        /// Parses a per-link-speed marking map "GBPS:KMIN:KMAX:PMAX,..." and returns the
        /// entry for a link of `rate_bps` (found = false for an empty map).
        fn ecn_map_lookup(map: &str, rate_bps: u64) -> Result<EcnLookup>;

        /// The fabric graph, for shortest-path routing; once computed, the routes of every node
        /// (one table shared by all switches, O(nodes + links) in a leaf-spine fabric).
        type Topology;
        /// A topology of `n` nodes and no links.
        fn topology_new(n: u32) -> Box<Topology>;
        /// Marks a node as a host.
        fn set_host(self: &mut Topology, node: u32) -> Result<()>;
        /// Adds a link between port `pa` of `a` and port `pb` of `b`.
        fn add_link(self: &mut Topology, a: u32, pa: u32, b: u32, pb: u32) -> Result<()>;
        /// Computes every node's shortest-path next hops (call after the last link). Fails,
        /// naming the host, if a host has no link or more than one.
        fn compute_routes(self: &mut Topology) -> Result<()>;
        /// Ports of switch or host `node` on shortest paths to host `dst`, ascending
        /// (setup and tests only).
        fn next_hops(self: &Topology, node: u32, dst: u32) -> Vec<u32>;

        /// One switch's decisions (routing, egress policy, MMU with PFC).
        type SwitchCore;
        /// Builds the switch core of `node` with parameters `p`, ports whose links are
        /// `rates_bps[i]`, `delays_ns[i]` (port i; each port's PFC headroom follows from its
        /// link) and routes from `topo` (compute_routes first); the switch shares the
        /// topology's route table. The error names the attribute.
        fn switch_core_new(
            p: &SwitchParams,
            rates_bps: &[u64],
            delays_ns: &[u64],
            topo: &Topology,
            node: u32,
        ) -> Result<Box<SwitchCore>>;
        /// Installs the RED/ECN policy of egress queue (port, prio); the error names the
        /// attribute.
        fn set_queue_policy(
            self: &mut SwitchCore,
            port: u32,
            prio: u8,
            p: &RedEcnParams,
        ) -> Result<()>;
        /// Start-up warnings: ECN before PFC (DCQCN section 4) for the smallest marking
        /// threshold `k_min` of the switch's policies (when `marking`), and an explicit headroom
        /// below a link's need that AllowHeadroomOverrun accepted.
        fn warnings(self: &SwitchCore, marking: bool, k_min: u64) -> Vec<String>;
        /// PFC headroom of each lossless ingress queue of `port` (0 without lossless
        /// priorities).
        fn headroom(self: &SwitchCore, port: u32) -> u64;
        /// Decides for an arriving packet.
        fn on_arrival(self: &mut SwitchCore, p: &SwitchPacket) -> SwitchDecision;
        /// Whether RCM runs (attribute Rcm).
        fn rcm_enabled(self: &SwitchCore) -> bool;
        /// A neighbour's switch-control frame arrived on `port` with `payload` (after its
        /// RoCE header); returns whether RCM took it (a CN).
        fn on_control(self: &mut SwitchCore, now_ns: u64, port: u32, payload: &[u8]) -> bool;
        /// The next thing RCM asks (kind None: nothing); drain after every call.
        fn rcm_pop_event(self: &mut SwitchCore) -> RcmEvent;
        /// The payload of the CN of the last SendCn event.
        fn rcm_cn_payload(self: &SwitchCore) -> &[u8];
        /// The congestion flows of the last RccOn, RccCut or RccFlows event.
        fn rcm_event_flows(self: &SwitchCore) -> &[u64];
        /// RCM: the period of the timed RCC window of output (port, prio) as of its last event,
        /// ns (0: the paper's window of W bytes).
        fn rcm_rcc_period_ns(self: &SwitchCore, port: u32, prio: u8) -> u64;
        /// When RCM's timer should fire, ns (u64::MAX: nothing pending).
        fn rcm_next_timeout(self: &SwitchCore) -> u64;
        /// RCM's timer fired at `now_ns`.
        fn rcm_on_timeout(self: &mut SwitchCore, now_ns: u64);
        /// RCM counters.
        fn rcm_counters(self: &SwitchCore) -> RcmCounters;
        /// The CAM of output queue (port, prio), slot order (empty without RCM).
        fn rcm_cam(self: &SwitchCore, port: u32, prio: u8) -> Vec<u64>;
        /// Stable name of an RCM role (clear, root, edge, inner).
        fn rcm_role_name(role: RcmRole) -> &'static str;
        /// Stable name of an RCM event kind (cn, on, cut, off, flows; "" for None).
        fn rcm_event_name(kind: RcmEventKind) -> &'static str;
        /// The command-line options of RCM's parameters (part of the switch table), in table
        /// order: `rcm` (enable) first.
        fn rcm_param_options() -> Vec<String>;
        /// The frame `p` (as the port's scheduler gives it back) left egress port
        /// `out_port`; returns the PFC action for its ingress (p.in_port, p.prio).
        fn on_departure(self: &mut SwitchCore, p: &TxPacket, out_port: u32) -> PfcAction;
        /// The switch built a control frame of `size` bytes for port `out_port`: Enqueue
        /// (accounted in the control pool) or Drop (reason Control).
        fn originate(self: &mut SwitchCore, out_port: u32, size: u64) -> SwitchDecision;
        /// Counters so far.
        fn counters(self: &SwitchCore) -> SwitchCounters;
        /// Bytes in egress queue (port, prio) as accounted by the MMU.
        fn egress_bytes(self: &SwitchCore, port: u32, prio: u8) -> u64;
        /// Largest egress queue (port, prio) since the start or the last reset_max_egress
        /// (exact: updated at every admission).
        fn max_egress_bytes(self: &SwitchCore, port: u32, prio: u8) -> u64;
        /// Restarts every egress maximum at its queue's current length.
        fn reset_max_egress(self: &mut SwitchCore);
        /// Replaces `out` with the non-empty egress queues of the priorities in `prio_mask`,
        /// by ascending (port, priority): a queue sample, at a cost proportional to what it
        /// records (the core keeps the list of non-empty queues at every admission and
        /// departure). `out` is reused between calls.
        fn sample_egress(self: &SwitchCore, prio_mask: u8, out: &mut Vec<EgressSample>);
        /// "" when every accounting invariant holds, else what is wrong.
        fn check_invariants(self: &SwitchCore) -> String;
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
        /// Stable name of drop reason `reason` (e.g. "not_ect_threshold"); "" for None.
        fn drop_reason_name(reason: DropReason) -> &'static str;
        /// Every drop reason (not None), in the order of every listing.
        fn drop_reasons() -> Vec<DropReason>;
        /// (name, count) of every drop reason, in the order of `drop_reasons`.
        fn drop_list(c: &DropCounters) -> Vec<DropCount>;
    }
}

pub use ffi::{
    Action, DropCount, DropCounters, DropReason, EgressSample, EnqueueVerdict, NotEctMode,
    PfcAction, RcmCounters, RcmEvent, RcmEventKind, RcmRole, RedEcnCounters, SwitchCounters,
    SwitchDecision, SwitchPacket,
};
use ffi::{EcnLookup, ParamInfo, ParamValue, TxPacket};

impl From<Reason> for DropReason {
    fn from(r: Reason) -> DropReason {
        match r {
            Reason::QueueFull => DropReason::QueueFull,
            Reason::BufferFull => DropReason::BufferFull,
            Reason::NotEctThreshold => DropReason::NotEctThreshold,
            Reason::RedEarlyDrop => DropReason::RedEarlyDrop,
            Reason::HeadroomOverrun => DropReason::HeadroomOverrun,
            Reason::NoRoute => DropReason::NoRoute,
            Reason::Control => DropReason::Control,
        }
    }
}

impl From<mmu::PfcAction> for PfcAction {
    fn from(a: mmu::PfcAction) -> PfcAction {
        match a {
            mmu::PfcAction::None => PfcAction::None,
            mmu::PfcAction::Pause => PfcAction::Pause,
            mmu::PfcAction::Resume => PfcAction::Resume,
        }
    }
}

impl From<&DropCounts> for DropCounters {
    fn from(c: &DropCounts) -> DropCounters {
        DropCounters {
            queue_full: c.queue_full,
            buffer_full: c.buffer_full,
            not_ect_threshold: c.not_ect_threshold,
            red_early_drop: c.red_early_drop,
            headroom_overrun: c.headroom_overrun,
            no_route: c.no_route,
            control: c.control,
        }
    }
}

impl From<&DropCounters> for DropCounts {
    fn from(c: &DropCounters) -> DropCounts {
        DropCounts {
            queue_full: c.queue_full,
            buffer_full: c.buffer_full,
            not_ect_threshold: c.not_ect_threshold,
            red_early_drop: c.red_early_drop,
            headroom_overrun: c.headroom_overrun,
            no_route: c.no_route,
            control: c.control,
        }
    }
}

impl EgressRow for EgressSample {
    fn new(port: u32, prio: u8, bytes: Bytes) -> Self {
        EgressSample {
            port,
            prio,
            bytes: bytes.0,
        }
    }
    fn queue(&self) -> (u32, u8) {
        (self.port, self.prio)
    }
}

/// (action, reason) of a verdict.
fn action_of(a: CoreAction) -> (Action, DropReason) {
    match a {
        CoreAction::Enqueue => (Action::Enqueue, DropReason::None),
        CoreAction::Mark => (Action::Mark, DropReason::None),
        CoreAction::Drop(r) => (Action::Drop, r.into()),
        CoreAction::Local => (Action::Local, DropReason::None),
    }
}

fn decision(d: Decision) -> SwitchDecision {
    let (action, reason) = action_of(d.action);
    SwitchDecision {
        out_port: d.out_port,
        action,
        reason,
        pfc: d.pfc.into(),
    }
}

impl From<Role> for RcmRole {
    fn from(r: Role) -> RcmRole {
        match r {
            Role::Clear => RcmRole::Clear,
            Role::Root => RcmRole::Root,
            Role::Edge => RcmRole::Edge,
            Role::Inner => RcmRole::Inner,
        }
    }
}

fn rcm_role_name(role: RcmRole) -> &'static str {
    match role {
        RcmRole::Root => Role::Root.name(),
        RcmRole::Edge => Role::Edge.name(),
        RcmRole::Inner => Role::Inner.name(),
        _ => Role::Clear.name(),
    }
}

fn rcm_param_options() -> Vec<String> {
    use rdma_cc_core::param::Params as _;
    rdma_cc_rcm::RcmConfig::params()
        .iter()
        .map(|p| p.spec.option.to_string())
        .collect()
}

fn rcm_event_name(kind: RcmEventKind) -> &'static str {
    match kind {
        RcmEventKind::SendCn => "cn",
        RcmEventKind::RccOn => "on",
        RcmEventKind::RccCut => "cut",
        RcmEventKind::RccOff => "off",
        RcmEventKind::RccFlows => "flows",
        RcmEventKind::RccRecover => "recover",
        _ => "",
    }
}
