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

use crate::log::{in_context, LogContext};
use crate::params::{self, from_ffi, infos, to_attr, to_options};
use rdma_cc_core::param::{ParamSpec, Params};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_rcm::switch::{Event as RcmEv, RccChange};
use rdma_cc_rcm::{RcmNodeConfig, RcmSwitch, RcmSwitchCore, Role, CN_MAX_BYTES};
use rdma_cc_switch::core::{Action as CoreAction, Decision, PacketMeta};
use rdma_cc_switch::mmu::{self, PortLink};
use rdma_cc_switch::red::{EcnThresholds, NotEct, RedEcnConfig, RedEcnPolicy};
use rdma_cc_switch::routing::{FiveTuple, RouteTable, Topology as Topo};
use rdma_cc_switch::{DropCounts, DropReason as Reason, Ecn};
use std::sync::Arc;

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
        /// Sets the treatment of Not-ECT packets and K_fs; checked when built.
        fn set_not_ect(self: &mut RedEcnParams, mode: NotEctMode, k_fs: u64);
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
use ffi::{ParamInfo, ParamValue};

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

/// Opaque handle: one switch's [`RcmNodeConfig`] (the switch's own parameters, then RCM's).
pub struct SwitchParams(RcmNodeConfig);

/// Opaque handle: one RED/ECN queue policy's [`RedEcnConfig`].
pub struct RedEcnParams(RedEcnConfig);

/// The specs of [`RedEcnConfig`]'s table.
pub(crate) fn red_ecn_specs() -> Vec<&'static ParamSpec<'static>> {
    RedEcnConfig::params().iter().map(|p| &p.spec).collect()
}

fn switch_attr(e: ConfigError) -> ConfigError {
    to_attr(e, &RcmNodeConfig::param_specs())
}

fn red_attr(e: ConfigError) -> ConfigError {
    to_attr(e, &red_ecn_specs())
}

fn switch_params_new() -> Box<SwitchParams> {
    Box::new(SwitchParams(RcmNodeConfig::default()))
}

fn switch_param_specs() -> Vec<ParamInfo> {
    let d = RcmNodeConfig::default();
    infos(&RcmNodeConfig::param_specs(), |i| d.get(i))
}

fn no_param(index: usize) -> ConfigError {
    ConfigError::new("parameter", index, "no such parameter")
}

impl SwitchParams {
    fn set(&mut self, index: usize, v: &ParamValue) -> Result<(), ConfigError> {
        self.0.set(index, &from_ffi(v)?).map_err(switch_attr)
    }

    fn get(&self, index: usize) -> Result<ParamValue, ConfigError> {
        params::get_param(self.0.get(index), index, no_param)
    }

    fn set_option(&mut self, index: usize, text: &str) -> Result<(), ConfigError> {
        let specs = RcmNodeConfig::param_specs();
        params::set_option(
            &specs,
            index,
            text,
            no_param,
            |v| self.0.set(index, v),
            |e, spec| to_options(e, &specs, &[spec.option.to_string()]),
        )
    }

    fn validate_options(
        &self,
        options: &[String],
        pfc_mask: u8,
        mmu_mtu: u64,
        egress_limit: u64,
        rates_bps: &[u64],
        delays_ns: &[u64],
    ) -> Result<(), ConfigError> {
        let mut c = self.0;
        // the frame and egress limit the scenario sets from its own options (0: the table's),
        // so that the buffer is checked here, naming --buffer, against the switch it builds
        let m = &mut c.switch.mmu;
        if mmu_mtu > 0 {
            m.mtu = Bytes(mmu_mtu);
        }
        if egress_limit > 0 {
            m.egress_limit = Bytes(egress_limit);
        }
        m.set_lossless_mask(pfc_mask);
        let links = links_of(rates_bps, delays_ns)?;
        c.validate()
            .and_then(|_| mmu::Mmu::new(c.switch.mmu, &links).map(|_| ()))
            .map_err(|e| to_options(e, &RcmNodeConfig::param_specs(), options))
    }

    fn take(&mut self, from: &SwitchParams, indices: &[usize]) -> Result<(), ConfigError> {
        for &i in indices {
            let v = from.0.get(i).ok_or_else(|| no_param(i))?;
            self.0.set(i, &v).map_err(switch_attr)?;
        }
        Ok(())
    }

    fn buffer_size(&self) -> u64 {
        self.0.switch.mmu.buffer_size.0
    }

    fn pfc_priorities(&self) -> u8 {
        self.0.switch.mmu.lossless_mask()
    }

    fn voq(&self) -> bool {
        self.0.switch.voq
    }
}

fn red_ecn_params_new() -> Box<RedEcnParams> {
    Box::new(RedEcnParams(RedEcnConfig::default()))
}

fn red_ecn_param_specs() -> Vec<ParamInfo> {
    let d = RedEcnConfig::default();
    infos(&red_ecn_specs(), |i| d.get_param(i))
}

impl RedEcnParams {
    fn set(&mut self, index: usize, v: &ParamValue) -> Result<(), ConfigError> {
        self.0.set_param(index, &from_ffi(v)?).map_err(red_attr)
    }

    fn get(&self, index: usize) -> Result<ParamValue, ConfigError> {
        params::get_param(self.0.get_param(index), index, no_param)
    }

    fn set_option(&mut self, index: usize, text: &str) -> Result<(), ConfigError> {
        let specs = red_ecn_specs();
        params::set_option(
            &specs,
            index,
            text,
            no_param,
            |v| self.0.set_param(index, v),
            |e, spec| to_options(e, &specs, &[spec.option.to_string()]),
        )
    }

    fn validate_options(&self, options: &[String]) -> Result<(), ConfigError> {
        self.0
            .validate()
            .map_err(|e| to_options(e, &red_ecn_specs(), options))
    }

    fn snapshot(&self) -> Box<RedEcnParams> {
        Box::new(RedEcnParams(self.0))
    }

    fn lossless(&self) -> Box<RedEcnParams> {
        Box::new(RedEcnParams(
            <rdma_cc_switch::core::SwitchCore>::lossless_queue_policy(self.0),
        ))
    }

    fn unmarked(&self) -> Box<RedEcnParams> {
        Box::new(RedEcnParams(
            <rdma_cc_switch::core::SwitchCore>::unmarked_queue_policy(self.0),
        ))
    }

    fn set_ecn(&mut self, k_min: u64, k_max: u64, p_max: f64) {
        self.0.ecn = EcnThresholds {
            k_min: Bytes(k_min),
            k_max: Bytes(k_max),
            p_max,
        };
    }

    fn set_not_ect(&mut self, mode: NotEctMode, k_fs: u64) {
        self.0.not_ect = match mode {
            NotEctMode::ThresholdDrop => NotEct::ThresholdDrop,
            NotEctMode::RedDrop => NotEct::RedDrop,
            _ => NotEct::Accept,
        };
        self.0.k_fs = Bytes(k_fs);
    }

    fn set_buf_max(&mut self, buf_max: u64) {
        self.0.buf_max = Bytes(buf_max);
    }

    fn k_min(&self) -> u64 {
        self.0.ecn.k_min.0
    }

    fn buf_max(&self) -> u64 {
        self.0.buf_max.0
    }

    fn validate(&self) -> Result<(), ConfigError> {
        self.0.validate().map_err(red_attr)
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

const NO_RCM_EVENT: RcmEvent = RcmEvent {
    kind: RcmEventKind::None,
    port: 0,
    prio: 0,
    role: RcmRole::Clear,
    degree: 0,
    w: 0,
    w_c: 0,
    flows: 0,
};

fn ecn_map_lookup(map: &str, rate_bps: u64) -> Result<ffi::EcnLookup, ConfigError> {
    let m = rdma_cc_switch::red::SpeedMap::parse(map)?;
    Ok(match m.lookup(Rate(rate_bps)) {
        Some(t) => ffi::EcnLookup {
            found: true,
            k_min: t.k_min.0,
            k_max: t.k_max.0,
            p_max: t.p_max,
        },
        None => ffi::EcnLookup {
            found: false,
            k_min: 0,
            k_max: 0,
            p_max: 0.0,
        },
    })
}

/// Opaque handle: the fabric graph and, once computed, the route table of every node.
pub struct Topology {
    topo: Topo,
    routes: Option<Arc<RouteTable>>,
}

fn topology_new(n: u32) -> Box<Topology> {
    Box::new(Topology {
        topo: Topo::new(n as usize),
        routes: None,
    })
}

impl Topology {
    fn set_host(&mut self, node: u32) -> Result<(), ConfigError> {
        self.topo.set_host(node)
    }
    fn add_link(&mut self, a: u32, pa: u32, b: u32, pb: u32) -> Result<(), ConfigError> {
        self.topo.add_link(a, pa, b, pb)
    }
    fn compute_routes(&mut self) -> Result<(), ConfigError> {
        self.routes = Some(Arc::new(self.topo.routes()?));
        Ok(())
    }
    fn next_hops(&self, node: u32, dst: u32) -> Vec<u32> {
        self.routes
            .as_ref()
            .map(|r| r.next_hops(node, dst).to_vec())
            .unwrap_or_default()
    }
}

/// Opaque handle owning one switch's core (`RcmSwitchCore`), with the encoded payload of the
/// last CN RCM asked to send.
/// (Its log records name the switch's node: `LogContext::node`.)
pub struct SwitchCore(RcmSwitchCore, CnOut, LogContext);

/// The payload of the last CN popped (`rcm_cn_payload`) and the congestion flows of the last
/// RCC event (`rcm_event_flows`).
struct CnOut {
    buf: [u8; CN_MAX_BYTES],
    len: usize,
    flows: rdma_cc_rcm::FlowList,
}

fn links_of(rates_bps: &[u64], delays_ns: &[u64]) -> Result<Vec<PortLink>, ConfigError> {
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

fn switch_core_new(
    p: &SwitchParams,
    rates_bps: &[u64],
    delays_ns: &[u64],
    topo: &Topology,
    node: u32,
) -> Result<Box<SwitchCore>, ConfigError> {
    let routes = topo
        .routes
        .as_ref()
        .ok_or_else(|| {
            ConfigError::new(
                "node",
                node,
                "has no routes: call compute_routes after adding every link",
            )
        })?
        .switch_routes(node)?;
    let links = links_of(rates_bps, delays_ns)?;
    // RCM sends CNs only to neighbour switches
    let to_switch = topo.topo.switch_neighbours(node, links.len());
    let core =
        p.0.build(&links, routes, node, &to_switch)
            .map_err(switch_attr)?;
    Ok(Box::new(SwitchCore(
        core,
        CnOut {
            buf: [0; CN_MAX_BYTES],
            len: 0,
            flows: rdma_cc_rcm::FlowList::new(),
        },
        LogContext::node(node),
    )))
}

impl SwitchCore {
    /// RCM, when it runs.
    fn rcm(&self) -> Option<&RcmSwitch> {
        self.0.mechanism().as_ref()
    }

    fn set_queue_policy(
        &mut self,
        port: u32,
        prio: u8,
        p: &RedEcnParams,
    ) -> Result<(), ConfigError> {
        self.0.set_queue_policy(port, prio, p.0).map_err(red_attr)
    }

    fn warnings(&self, marking: bool, k_min: u64) -> Vec<String> {
        self.0.mmu().warnings(marking.then_some(Bytes(k_min)))
    }

    fn headroom(&self, port: u32) -> u64 {
        self.0.mmu().headroom(port as usize).0
    }

    #[inline]
    fn on_arrival(&mut self, p: &SwitchPacket) -> SwitchDecision {
        let meta = PacketMeta {
            in_port: p.in_port,
            prio: p.prio,
            dst_node: p.dst_node,
            tuple: FiveTuple {
                src_ip: p.src_ip,
                dst_ip: p.dst_ip,
                src_port: p.src_port,
                dst_port: p.dst_port,
                protocol: p.protocol,
            },
            size: Bytes(p.size),
            ecn: Ecn::from_bits(p.ecn),
            kind: p.kind.into(),
            draw: p.draw,
            flow: p.flow,
            now: Time(p.now_ns),
        };
        decision(in_context(self.2, || self.0.on_arrival(&meta)))
    }

    #[inline]
    fn on_departure(&mut self, p: &crate::sched::TxPacket, out_port: u32) -> PfcAction {
        in_context(self.2, || {
            self.0.on_departure(
                p.in_port,
                out_port,
                p.prio,
                Bytes(p.size),
                p.kind.into(),
                p.flow,
                Bytes(p.rcc_held),
            )
        })
        .into()
    }

    fn rcm_enabled(&self) -> bool {
        self.rcm().is_some()
    }

    fn on_control(&mut self, now_ns: u64, port: u32, payload: &[u8]) -> bool {
        in_context(self.2, || self.0.on_control(Time(now_ns), port, payload))
    }

    fn rcm_pop_event(&mut self) -> RcmEvent {
        let ctx = self.2;
        let Some(e) = in_context(ctx, || {
            self.0
                .mechanism_mut()
                .as_mut()
                .and_then(RcmSwitch::pop_event)
        }) else {
            return NO_RCM_EVENT;
        };
        match e {
            RcmEv::SendCn { port, cn } => {
                self.1.len = cn.encode(&mut self.1.buf).unwrap_or(0);
                RcmEvent {
                    kind: RcmEventKind::SendCn,
                    port,
                    prio: cn.prio,
                    degree: cn.degree,
                    flows: cn.flows.len() as u32,
                    ..NO_RCM_EVENT
                }
            }
            RcmEv::Rcc { port, prio, change } => {
                let (kind, role, degree) = match change {
                    RccChange::On { role, .. } => (RcmEventKind::RccOn, role.into(), 0),
                    RccChange::Cut { degree, .. } => (RcmEventKind::RccCut, RcmRole::Clear, degree),
                    RccChange::Flows { .. } => (RcmEventKind::RccFlows, RcmRole::Clear, 0),
                    RccChange::Recover { .. } => (RcmEventKind::RccRecover, RcmRole::Clear, 0),
                    RccChange::Off => (RcmEventKind::RccOff, RcmRole::Clear, 0),
                };
                let (w, w_c) = change.budget().unwrap_or_default();
                self.1.flows = change.flows();
                RcmEvent {
                    kind,
                    port,
                    prio,
                    role,
                    degree,
                    w: w.0,
                    w_c: w_c.0,
                    flows: self.1.flows.len() as u32,
                }
            }
        }
    }

    fn rcm_cn_payload(&self) -> &[u8] {
        &self.1.buf[..self.1.len.min(CN_MAX_BYTES)]
    }

    fn rcm_event_flows(&self) -> &[u64] {
        self.1.flows.as_slice()
    }

    fn rcm_rcc_period_ns(&self, port: u32, prio: u8) -> u64 {
        self.rcm()
            .and_then(|r| r.rcc_period(port, prio))
            .map_or(0, |t| t.0)
    }

    fn rcm_next_timeout(&self) -> u64 {
        self.0.next_timeout().map_or(u64::MAX, |t| t.0)
    }

    fn rcm_on_timeout(&mut self, now_ns: u64) {
        in_context(self.2, || self.0.on_timeout(Time(now_ns)));
    }

    fn rcm_counters(&self) -> RcmCounters {
        let Some(r) = self.rcm() else {
            return RcmCounters::default();
        };
        let (s, b, sar) = (r.stats(), r.rcc_stats(), r.sar_stats());
        RcmCounters {
            enabled: true,
            cn_sent: s.cn_sent,
            cn_received: s.cn_received,
            detections: s.detections,
            rcc_activations: b.activations,
            rcc_cuts: b.cuts,
            detours: sar.detours,
            moves: sar.moves,
        }
    }

    fn rcm_cam(&self, port: u32, prio: u8) -> Vec<u64> {
        self.rcm()
            .map(|r| r.cam(port, prio).to_vec())
            .unwrap_or_default()
    }

    fn originate(&mut self, out_port: u32, size: u64) -> SwitchDecision {
        decision(in_context(self.2, || {
            self.0.originate(out_port, Bytes(size))
        }))
    }

    fn counters(&self) -> SwitchCounters {
        let s = self.0.stats();
        let m = self.0.mmu().stats();
        SwitchCounters {
            received: s.received,
            forwarded: s.forwarded,
            marked: s.marked,
            drops: (&s.drops).into(),
            drops_total: s.drops.total(),
            drop_bytes: s.drop_bytes,
            pauses: m.pauses,
            resumes: m.resumes,
            occupancy: self.0.mmu().occupancy().0,
            max_occupancy: m.max_occupancy.0,
            max_headroom_used: m.max_headroom_used.0,
            control_forwarded: s.control_forwarded,
            originated: s.originated,
            local: s.local,
            control_occupancy: self.0.control_occupancy().0,
            max_control_occupancy: self.0.max_control_occupancy().0,
        }
    }

    fn max_egress_bytes(&self, port: u32, prio: u8) -> u64 {
        self.0.mmu().egress_max(port as usize, prio as usize).0
    }

    fn reset_max_egress(&mut self) {
        self.0.reset_egress_max();
    }

    fn sample_egress(&self, prio_mask: u8, out: &mut Vec<EgressSample>) {
        out.clear();
        out.extend(
            self.0
                .mmu()
                .nonempty_egress()
                .filter(|&(_, prio, _)| prio_mask & (1 << prio) != 0)
                .map(|(port, prio, bytes)| EgressSample {
                    port: port as u32,
                    prio: prio as u8,
                    bytes: bytes.0,
                }),
        );
        out.sort_unstable_by_key(|s| (s.port, s.prio));
    }

    fn egress_bytes(&self, port: u32, prio: u8) -> u64 {
        self.0.mmu().egress_bytes(port as usize, prio as usize).0
    }

    fn check_invariants(&self) -> String {
        self.0.check_invariants().err().unwrap_or_default()
    }
}

/// Opaque handle owning a [`RedEcnPolicy`].
pub struct RedEcn(RedEcnPolicy);

fn red_ecn_new(p: &RedEcnParams) -> Result<Box<RedEcn>, ConfigError> {
    Ok(Box::new(RedEcn(p.0.build().map_err(red_attr)?)))
}

impl RedEcn {
    #[inline]
    fn on_enqueue(&mut self, queue_bytes: u64, size: u64, ecn: u8, draw: f64) -> EnqueueVerdict {
        let v = self
            .0
            .on_enqueue(Bytes(queue_bytes), Bytes(size), Ecn::from_bits(ecn), draw);
        let (action, reason) = action_of(v.into());
        EnqueueVerdict { action, reason }
    }

    fn mark_probability(&self, queue_bytes: u64) -> f64 {
        self.0.config().ecn.mark_probability(Bytes(queue_bytes))
    }

    fn counters(&self) -> RedEcnCounters {
        let s = self.0.stats();
        RedEcnCounters {
            enqueued: s.enqueued,
            marked: s.marked,
            drops: (&s.drops).into(),
        }
    }
}

fn drop_reason_name(reason: DropReason) -> &'static str {
    Reason::ALL
        .iter()
        .find(|&&r| DropReason::from(r) == reason)
        .map_or("", |r| r.name())
}

fn drop_reasons() -> Vec<DropReason> {
    Reason::ALL.iter().map(|&r| r.into()).collect()
}

fn drop_list(c: &DropCounters) -> Vec<DropCount> {
    DropCounts::from(c)
        .iter()
        .map(|(r, count)| DropCount {
            name: r.name().to_string(),
            count,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::to_ffi;

    fn params() -> Box<RedEcnParams> {
        let mut p = red_ecn_params_new();
        p.set_ecn(10_000, 40_000, 0.2);
        p.set_not_ect(NotEctMode::ThresholdDrop, 20_000);
        p.set_buf_max(100_000);
        p
    }

    fn index_of(specs: &[ParamInfo], attr: &str) -> usize {
        specs.iter().position(|s| s.attr == attr).unwrap()
    }

    #[test]
    fn bridge_rejects_kmin_above_kmax_naming_attribute() {
        let mut p = params();
        p.set_ecn(50_000, 20_000, 0.2);
        let e = red_ecn_new(&p).err().expect("must fail");
        assert_eq!(
            e.to_string(),
            "invalid KMin = 50000 B: must be <= KMax (20000 B)"
        );
        assert_eq!(p.validate().unwrap_err(), e);
    }

    #[test]
    fn red_ecn_attributes_come_from_the_table_with_attribute_errors() {
        let specs = red_ecn_param_specs();
        let names: Vec<_> = specs.iter().map(|s| s.attr.as_str()).collect();
        assert_eq!(
            names,
            ["KMin", "KMax", "PMax", "NotEctMode", "KFs", "BufMax"]
        );
        let kfs = &specs[index_of(&specs, "KFs")];
        assert_eq!(kfs.default_text, "5000");
        let mode = &specs[index_of(&specs, "NotEctMode")];
        assert_eq!(mode.choices, ["Accept", "ThresholdDrop", "RedDrop"]);
        assert_eq!(mode.default_text, "Accept");
        let mut p = red_ecn_params_new();
        let pmax = index_of(&specs, "PMax");
        let e = p
            .set(pmax, &to_ffi(&rdma_cc_core::param::ParamValue::Real(1.5)))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid PMax = 1.5: must be a number in [0, 1]"
        );
        let m = index_of(&specs, "NotEctMode");
        let e = p
            .set(
                m,
                &to_ffi(&rdma_cc_core::param::ParamValue::Choice("Sometimes".into())),
            )
            .unwrap_err();
        assert_eq!(e.field, "NotEctMode");
        assert_eq!(p.get(m).unwrap().text, "Accept");
        // typed setters: K_fs 0 drops every Not-ECT packet
        p.set_not_ect(NotEctMode::ThresholdDrop, 0);
        p.set_ecn(300, 400, 0.1);
        let mut q = red_ecn_new(&p).unwrap();
        assert_eq!(q.on_enqueue(0, 1000, 0, 0.5).action, Action::Drop);
        assert_eq!(p.snapshot().k_min(), 300);
        // the examples' options: named as typed, relations too
        let mut o = red_ecn_params_new();
        o.set_option(index_of(&specs, "KMin"), "50000").unwrap();
        o.set_option(index_of(&specs, "KMax"), "20000").unwrap();
        let opts = ["kmin".to_string(), "kmax".to_string()];
        assert_eq!(
            o.validate_options(&opts).unwrap_err().to_string(),
            "invalid --kmin = 50000 B: must be <= --kmax (20000 B)"
        );
        let e = o.set_option(m, "Sometimes").unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid --notEct = Sometimes: must be one of Accept, ThresholdDrop, RedDrop"
        );
    }

    #[test]
    fn bridge_maps_verdicts_to_enums() {
        let mut q = red_ecn_new(&params()).unwrap();
        assert_eq!(q.on_enqueue(0, 1000, 2, 0.5).action, Action::Enqueue);
        assert_eq!(q.on_enqueue(40_000, 1000, 2, 0.5).action, Action::Mark);
        let d = q.on_enqueue(20_000, 1000, 0, 0.5);
        assert_eq!(
            (d.action, d.reason, drop_reason_name(d.reason)),
            (
                Action::Drop,
                DropReason::NotEctThreshold,
                "not_ect_threshold"
            )
        );
        let c = q.counters();
        assert_eq!((c.enqueued, c.marked, c.drops.not_ect_threshold), (2, 1, 1));
    }

    #[test]
    fn drop_reasons_are_listed_in_order_with_their_names() {
        let names: Vec<_> = drop_reasons().into_iter().map(drop_reason_name).collect();
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
        assert_eq!(drop_reason_name(DropReason::None), "");
        let list = drop_list(&DropCounters {
            control: 3,
            no_route: 1,
            ..DropCounters::default()
        });
        let got: Vec<_> = list.iter().map(|d| (d.name.as_str(), d.count)).collect();
        assert_eq!(got[5..], [("no_route", 1), ("control", 3)]);
    }

    fn two_host_switch() -> Box<SwitchCore> {
        let mut topo = topology_new(3);
        topo.set_host(0).unwrap();
        topo.set_host(2).unwrap();
        topo.add_link(0, 0, 1, 0).unwrap();
        topo.add_link(1, 1, 2, 0).unwrap();
        topo.compute_routes().unwrap();
        switch_core_new(&switch_params_new(), &RATES, &DELAYS, &topo, 1).unwrap()
    }

    #[test]
    fn control_frames_cross_the_bridge_outside_the_mmu() {
        let mut sw = two_host_switch();
        let pkt = SwitchPacket {
            in_port: 0,
            prio: 3,
            dst_node: 2,
            src_ip: 0,
            dst_ip: 2,
            src_port: 1000,
            dst_port: 4791,
            protocol: 17,
            size: 66,
            ecn: 0,
            kind: crate::sched::PacketKind::Ack,
            draw: 0.5,
            flow: 0,
            now_ns: 0,
        };
        let d = sw.on_arrival(&pkt);
        assert_eq!(
            (d.out_port, d.action, d.reason, d.pfc),
            (1, Action::Enqueue, DropReason::None, PfcAction::None)
        );
        assert_eq!(sw.egress_bytes(1, 3), 0);
        let c = sw.counters();
        assert_eq!((c.control_forwarded, c.control_occupancy), (1, 66));
        let tx = crate::sched::TxPacket {
            handle: 0,
            size: 66,
            kind: crate::sched::PacketKind::Ack,
            prio: 3,
            flow: 0,
            arrival_ns: 0,
            in_port: 0,
            control: true,
            rcc: false,
            rcc_held: 0,
        };
        assert_eq!(sw.on_departure(&tx, 1), PfcAction::None);
        let o = sw.originate(0, 80);
        assert_eq!((o.out_port, o.action), (0, Action::Enqueue));
        let c = sw.counters();
        assert_eq!((c.originated, c.forwarded, c.control_occupancy), (1, 2, 80));
        assert_eq!(sw.check_invariants(), "");
    }

    #[test]
    fn rcm_crosses_the_bridge() {
        use rdma_cc_core::param::ParamValue as V;
        // host 0 - switch 1 - switch 2 - host 3
        let mut topo = topology_new(4);
        topo.set_host(0).unwrap();
        topo.set_host(3).unwrap();
        topo.add_link(0, 0, 1, 0).unwrap();
        topo.add_link(1, 1, 2, 0).unwrap();
        topo.add_link(2, 1, 3, 0).unwrap();
        topo.compute_routes().unwrap();
        let specs = switch_param_specs();
        let mut p = switch_params_new();
        let off = switch_core_new(&p, &RATES, &DELAYS, &topo, 1).unwrap();
        assert!(!off.rcm_enabled());
        assert!(!off.rcm_counters().enabled);
        assert_eq!(off.rcm_next_timeout(), u64::MAX);
        p.set(index_of(&specs, "Rcm"), &to_ffi(&V::Bool(true)))
            .unwrap();
        p.set_option(index_of(&specs, "RcmSampleBytes"), "10KB")
            .unwrap();
        let mut sw = switch_core_new(&p, &RATES, &DELAYS, &topo, 1).unwrap();
        assert!(sw.rcm_enabled());
        assert_eq!(sw.rcm_pop_event().kind, RcmEventKind::None);
        // data from host 0 towards host 3 queues at port 1 (nothing leaves)
        for k in 0..40u64 {
            let d = sw.on_arrival(&SwitchPacket {
                in_port: 0,
                prio: 3,
                dst_node: 3,
                src_ip: 0,
                dst_ip: 3,
                src_port: 1000,
                dst_port: 4791,
                protocol: 17,
                size: 1000,
                ecn: 2,
                kind: crate::sched::PacketKind::Data,
                draw: 0.5,
                flow: 5,
                now_ns: k * 80,
            });
            assert_eq!((d.out_port, d.action), (1, Action::Enqueue));
        }
        let on = sw.rcm_pop_event();
        assert_eq!(
            (on.kind, on.port, on.prio, on.role, on.w),
            (RcmEventKind::RccOn, 1, 3, RcmRole::Root, 125_000)
        );
        let cut = sw.rcm_pop_event();
        assert_eq!(
            (cut.kind, cut.port, cut.w),
            (RcmEventKind::RccCut, 1, 125_000)
        );
        assert!(cut.w_c <= on.w_c);
        // port 0 faces a host: its input queue sends no CN
        assert_eq!(sw.rcm_pop_event().kind, RcmEventKind::None);
        assert_eq!(sw.rcm_counters().cn_sent, 0);
        // no departure yet: an empty CAM, no congestion flow at the root
        assert_eq!((on.flows, sw.rcm_event_flows().len()), (0, 0));
        assert!(sw.rcm_cam(1, 3).is_empty());
        // a CN from switch 2 on port 1
        let cn = rdma_cc_rcm::Cn {
            prio: 3,
            degree: 9,
            flows: rdma_cc_rcm::FlowList::from_ids(&[5]),
        };
        let mut buf = [0u8; CN_MAX_BYTES];
        let n = cn.encode(&mut buf).unwrap();
        assert!(sw.on_control(5000, 1, &buf[..n]));
        let c = sw.rcm_counters();
        assert_eq!((c.cn_received, c.detections, c.rcc_activations), (1, 1, 1));
        let ev = sw.rcm_pop_event();
        assert_eq!((ev.kind, ev.degree, ev.flows), (RcmEventKind::RccCut, 9, 1));
        assert_eq!(sw.rcm_event_flows(), [5]);
        assert!(sw.rcm_next_timeout() < u64::MAX);
        assert_eq!(rcm_role_name(RcmRole::Inner), "inner");
        assert_eq!(rcm_event_name(RcmEventKind::RccCut), "cut");
        let opts = rcm_param_options();
        assert_eq!(opts[0], "rcm");
        assert!(opts.iter().all(|o| specs.iter().any(|s| s.option == *o)));
        assert_eq!(sw.check_invariants(), "");
    }

    const RATES: [u64; 2] = [100_000_000_000; 2];
    const DELAYS: [u64; 2] = [1000; 2];

    #[test]
    fn take_copies_the_chosen_switch_parameters_as_parsed_and_only_them() {
        let specs = switch_param_specs();
        let buffer = index_of(&specs, "BufferSize");
        let seed = index_of(&specs, "EcmpSeed");
        let mut options = switch_params_new();
        options.set_option(buffer, "4MB").unwrap();
        options.set_option(seed, "7").unwrap();
        let mut sw = switch_params_new();
        let default_seed = sw.get(seed).unwrap().uint;
        sw.take(&options, &[buffer]).unwrap();
        assert_eq!(sw.buffer_size(), 4_000_000);
        // a parameter not in `indices` keeps the switch's own value
        assert_eq!(sw.get(seed).unwrap().uint, default_seed);
        sw.take(&options, &[seed]).unwrap();
        assert_eq!(sw.get(seed).unwrap().uint, 7);
        let e = sw.take(&options, &[usize::MAX]).unwrap_err().to_string();
        assert!(e.contains("no such parameter"), "{e}");
    }

    #[test]
    fn switch_attributes_come_from_the_table_with_named_errors() {
        let specs = switch_param_specs();
        let attrs: Vec<_> = specs.iter().map(|s| s.attr.as_str()).collect();
        assert_eq!(
            attrs,
            [
                "BufferSize",
                "Reserve",
                "Headroom",
                "AllowHeadroomOverrun",
                "XoffBeta",
                "XoffStatic",
                "XonDelta",
                "PfcPriorities",
                "EgressLimit",
                "MmuMtu",
                "EcmpSeed",
                "ControlBuffer",
                "Rcm",
                "RcmQeq",
                "RcmWq",
                "RcmW",
                "RcmSampleBytes",
                "RcmFbMax",
                "RcmFbQuantum",
                "RcmGd",
                "RcmHold",
                "RcmCnInterval",
                "RcmCamDepth",
                "RcmCfrSample",
                "RcmCfrJitter",
                "RcmCfrMinHits",
                "RcmWindow",
                "RcmRccTimed",
                "RcmRccMeasure",
                "RcmRccRecoverTime",
                "RcmRccRecoverStep",
                "RcmSarMode",
                "RcmSarCnThreshold",
                "RcmFlowletGap",
                "RcmSarTable"
            ]
        );
        let headroom = index_of(&specs, "Headroom");
        assert_eq!(specs[headroom].default_text, "auto");
        assert_eq!(specs[index_of(&specs, "MmuMtu")].default_text, "1062");
        let mut p = switch_params_new();
        assert_eq!((p.buffer_size(), p.pfc_priorities()), (12_000_000, 0x08));
        let beta = index_of(&specs, "XoffBeta");
        let e = p
            .set(beta, &to_ffi(&rdma_cc_core::param::ParamValue::Real(-2.0)))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid XoffBeta = -2: must be a number >= 0"
        );
        let e = p.set_option(beta, "-2").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --xoffBeta = -2: must be a number >= 0"
        );
        // an explicit headroom below the links' need: named as the option the example has
        p.set_option(headroom, "3000").unwrap();
        let opts = vec!["headroom".to_string(), "allowHeadroomOverrun".to_string()];
        let e = p
            .validate_options(&opts, 0x08, 0, 0, &RATES, &DELAYS)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid --headroom = 3000 B: below the 28310 B port 0 needs"),
            "{e}"
        );
        assert!(
            e.contains("leave --headroom automatic or set --allowHeadroomOverrun"),
            "{e}"
        );
        // without the options, the attributes
        let e = p
            .validate_options(&[], 0x08, 0, 0, &RATES, &DELAYS)
            .unwrap_err();
        assert_eq!(e.field, "Headroom");
        // lossy: no headroom needed
        p.validate_options(&opts, 0, 0, 0, &RATES, &DELAYS).unwrap();
        let allow = index_of(&specs, "AllowHeadroomOverrun");
        p.set_option(allow, "1").unwrap();
        p.validate_options(&opts, 0x08, 0, 0, &RATES, &DELAYS)
            .unwrap();
        // the core reports the headroom it uses and warns about the overrun it accepts
        let mut topo = topology_new(3);
        topo.set_host(0).unwrap();
        topo.set_host(2).unwrap();
        topo.add_link(0, 0, 1, 0).unwrap();
        topo.add_link(1, 1, 2, 0).unwrap();
        topo.compute_routes().unwrap();
        let sw = switch_core_new(&p, &RATES, &DELAYS, &topo, 1).unwrap();
        assert_eq!(sw.headroom(1), 3000);
        assert_eq!(sw.warnings(false, 0).len(), 1);
        let auto = switch_core_new(&switch_params_new(), &RATES, &DELAYS, &topo, 1).unwrap();
        assert_eq!(auto.headroom(0), 28_310);
        assert!(auto.warnings(true, 5000).is_empty());
        // the buffer cannot hold the headroom of these ports
        let mut small = switch_params_new();
        small
            .set_option(index_of(&specs, "BufferSize"), "50000")
            .unwrap();
        let e = switch_core_new(&small, &RATES, &DELAYS, &topo, 1)
            .err()
            .expect("too small");
        assert_eq!(e.field, "BufferSize");
        let e = small
            .validate_options(&["buffer".to_string()], 0x08, 0, 0, &RATES, &DELAYS)
            .unwrap_err();
        assert_eq!(e.field, "--buffer");
        assert!(
            switch_core_new(&small, &RATES, &DELAYS[..1], &topo, 1).is_err(),
            "rates and delays of different lengths"
        );
    }

    #[test]
    fn bridge_routes_are_shared_and_bad_topologies_named() {
        // host 0 - switch 1 - host 2; node 3 is another helper's (no link)
        let mut t = topology_new(4);
        t.set_host(0).unwrap();
        t.set_host(2).unwrap();
        t.add_link(0, 0, 1, 0).unwrap();
        let p = switch_params_new();
        let e = switch_core_new(&p, &RATES, &DELAYS, &t, 1)
            .err()
            .expect("no routes yet");
        assert_eq!(e.field, "node");
        let e = t.compute_routes().unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.value.as_str()),
            ("links of host 2", "0")
        );
        t.add_link(1, 1, 2, 0).unwrap();
        t.compute_routes().unwrap();
        assert_eq!(t.next_hops(1, 2), vec![1]);
        assert_eq!(t.next_hops(0, 2), vec![0]);
        assert!(t.next_hops(1, 3).is_empty());
        let e = switch_core_new(&p, &RATES[..1], &DELAYS[..1], &t, 0)
            .err()
            .expect("a host");
        assert_eq!(e.field, "node");
        let mut sw = switch_core_new(&p, &RATES, &DELAYS, &t, 1).unwrap();
        let mut p = SwitchPacket {
            in_port: 0,
            prio: 3,
            dst_node: 2,
            src_ip: 1,
            dst_ip: 2,
            src_port: 1000,
            dst_port: 4791,
            protocol: 17,
            size: 1062,
            ecn: 2,
            kind: crate::sched::PacketKind::Data,
            draw: 0.5,
            flow: 7,
            now_ns: 0,
        };
        let d = sw.on_arrival(&p);
        assert_eq!((d.out_port, d.action), (1, Action::Enqueue));
        let mut samples = vec![EgressSample {
            port: 9,
            prio: 9,
            bytes: 9,
        }];
        sw.sample_egress(0xFF, &mut samples);
        assert_eq!(
            samples,
            [EgressSample {
                port: 1,
                prio: 3,
                bytes: 1062
            }]
        );
        sw.sample_egress(0x01, &mut samples);
        assert!(samples.is_empty());
        p.dst_node = 3;
        let d = sw.on_arrival(&p);
        assert_eq!(
            (d.action, drop_reason_name(d.reason)),
            (Action::Drop, "no_route")
        );
    }
}
