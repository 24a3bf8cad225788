//! Bridge for switch queue policies (`rdma-cc-switch`).

use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_switch::core::{PacketMeta, SwitchCore as Core};
use rdma_cc_switch::mmu::{MmuConfig, PfcAction, Xoff, PRIORITIES};
use rdma_cc_switch::red::{EcnThresholds, NotEct, RedEcnConfig, RedEcnPolicy, Verdict};
use rdma_cc_switch::routing::{FiveTuple, RouteTable, Topology as Topo};
use rdma_cc_switch::{DropReason, Ecn};
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

    /// RED/ECN queue parameters, as the ns-3 attributes give them (bytes, probability).
    #[derive(Clone, Copy)]
    struct RedEcnParams {
        k_min: u64,
        k_max: u64,
        p_max: f64,
        not_ect: NotEctMode,
        k_fs: u64,
        buf_max: u64,
    }

    /// Verdict for one packet. `action`: 0 enqueue, 1 enqueue marked (CE), 2 drop with
    /// `reason` (see `drop_reason_name`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct EnqueueVerdict {
        action: u8,
        reason: u8,
    }

    /// Counters of one RED/ECN queue; `drops` indexed by reason.
    #[derive(Debug, Clone, Copy)]
    struct RedEcnCounters {
        enqueued: u64,
        marked: u64,
        drops: [u64; 6],
    }

    /// Shared-buffer MMU parameters (ns-3 attributes of the switch).
    #[derive(Clone, Copy)]
    struct MmuParams {
        buffer_size: u64,
        ports: u32,
        mtu: u64,
        reserve: u64,
        headroom: u64,
        /// true: XOFF = beta * free shared / 8; false: XOFF = xoff_static bytes
        xoff_dynamic: bool,
        xoff_static: u64,
        xoff_beta: f64,
        xon_delta: u64,
        /// bit p set: priority p is lossless (PFC)
        lossless_mask: u8,
        egress_limit: u64,
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
        draw: f64,
    }

    /// The switch's answer. `action`: 0 enqueue, 1 enqueue marked CE, 2 drop (`reason`).
    /// `pfc` for the ingress (port, priority): 0 nothing, 1 send PAUSE, 2 send RESUME.
    /// `egress_bytes`: the egress queue (out_port, prio) after this packet (for maxima).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct SwitchDecision {
        out_port: u32,
        action: u8,
        reason: u8,
        pfc: u8,
        egress_bytes: u64,
    }

    /// Counters of one switch.
    #[derive(Clone, Copy, Debug)]
    struct SwitchCounters {
        received: u64,
        forwarded: u64,
        marked: u64,
        drops: [u64; 6],
        drop_bytes: u64,
        pauses: u64,
        resumes: u64,
        occupancy: u64,
        max_occupancy: u64,
        max_headroom_used: u64,
    }

    /// Marking thresholds looked up in a per-speed map.
    #[derive(Clone, Copy, Debug)]
    struct EcnLookup {
        found: bool,
        k_min: u64,
        k_max: u64,
        p_max: f64,
    }

    extern "Rust" {
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
        /// Builds the switch core of `node` with routes from `topo` (compute_routes first);
        /// the switch shares the topology's route table.
        fn switch_core_new(
            mmu: &MmuParams,
            topo: &Topology,
            node: u32,
            seed: u64,
        ) -> Result<Box<SwitchCore>>;
        /// Installs the RED/ECN policy of egress queue (port, prio).
        fn set_queue_policy(
            self: &mut SwitchCore,
            port: u32,
            prio: u8,
            p: &RedEcnParams,
        ) -> Result<()>;
        /// Decides for an arriving packet.
        fn on_arrival(self: &mut SwitchCore, p: &SwitchPacket) -> SwitchDecision;
        /// A packet left egress queue (out_port, prio); returns the PFC action (0/1/2) for
        /// its ingress (in_port, prio).
        fn on_departure(
            self: &mut SwitchCore,
            in_port: u32,
            out_port: u32,
            prio: u8,
            size: u64,
        ) -> u8;
        /// Counters so far.
        fn counters(self: &SwitchCore) -> SwitchCounters;
        /// Bytes in egress queue (port, prio) as accounted by the MMU.
        fn egress_bytes(self: &SwitchCore, port: u32, prio: u8) -> u64;
        /// Bytes of ingress queue (port, prio).
        fn ingress_bytes(self: &SwitchCore, port: u32, prio: u8) -> u64;
        /// Whether a PAUSE is outstanding for ingress (port, prio).
        fn is_paused(self: &SwitchCore, port: u32, prio: u8) -> bool;
        /// "" when every accounting invariant holds, else what is wrong.
        fn check_invariants(self: &SwitchCore) -> String;
        /// Validates MMU parameters (error names the attribute).
        fn mmu_validate(p: &MmuParams) -> Result<()>;
        /// Start-up warnings: ECN before PFC (DCQCN §4), headroom vs. link BDP.
        fn mmu_warnings(p: &MmuParams, k_min: u64, rate_bps: u64, delay_ns: u64) -> Vec<String>;
        /// The largest ECN threshold for which ECN triggers before PFC.
        fn mmu_max_ecn_threshold(p: &MmuParams) -> u64;
        /// Headroom needed on a link of this rate and one-way delay.
        fn mmu_headroom_needed(p: &MmuParams, rate_bps: u64, delay_ns: u64) -> u64;

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
        /// Stable name of drop reason `reason` (e.g. "not_ect_threshold"), "" if unknown.
        fn drop_reason_name(reason: u8) -> &'static str;
        /// Number of drop reasons.
        fn drop_reason_count() -> u8;
    }
}

pub use ffi::{
    EnqueueVerdict, MmuParams, NotEctMode, RedEcnCounters, RedEcnParams, SwitchCounters,
    SwitchDecision, SwitchPacket,
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

impl TryFrom<&MmuParams> for MmuConfig {
    type Error = ConfigError;
    fn try_from(p: &MmuParams) -> Result<Self, ConfigError> {
        let mut lossless = [false; PRIORITIES];
        for (i, l) in lossless.iter_mut().enumerate() {
            *l = p.lossless_mask & (1 << i) != 0;
        }
        Ok(MmuConfig {
            buffer_size: Bytes(p.buffer_size),
            ports: p.ports as usize,
            mtu: Bytes(p.mtu),
            reserve: Bytes(p.reserve),
            headroom: Bytes(p.headroom),
            xoff: if p.xoff_dynamic {
                Xoff::Dynamic { beta: p.xoff_beta }
            } else {
                Xoff::Static(Bytes(p.xoff_static))
            },
            xon_delta: Bytes(p.xon_delta),
            lossless,
            egress_limit: Bytes(p.egress_limit),
        })
    }
}

fn mmu_validate(p: &MmuParams) -> Result<(), ConfigError> {
    MmuConfig::try_from(p)?.validate()
}

fn mmu_warnings(p: &MmuParams, k_min: u64, rate_bps: u64, delay_ns: u64) -> Vec<String> {
    match MmuConfig::try_from(p) {
        Ok(c) => c.check(Bytes(k_min), Rate(rate_bps), Time(delay_ns)),
        Err(e) => vec![e.to_string()],
    }
}

fn mmu_max_ecn_threshold(p: &MmuParams) -> u64 {
    MmuConfig::try_from(p).map_or(0, |c| c.max_ecn_threshold_before_pfc().0)
}

fn mmu_headroom_needed(p: &MmuParams, rate_bps: u64, delay_ns: u64) -> u64 {
    MmuConfig::try_from(p).map_or(0, |c| c.headroom_needed(Rate(rate_bps), Time(delay_ns)).0)
}

/// Opaque handle owning one switch's [`Core`].
pub struct SwitchCore(Core);

fn switch_core_new(
    mmu: &MmuParams,
    topo: &Topology,
    node: u32,
    seed: u64,
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
    Ok(Box::new(SwitchCore(Core::new(
        MmuConfig::try_from(mmu)?,
        routes,
        seed,
    )?)))
}

fn pfc_code(a: PfcAction) -> u8 {
    match a {
        PfcAction::None => 0,
        PfcAction::Pause => 1,
        PfcAction::Resume => 2,
    }
}

impl SwitchCore {
    fn set_queue_policy(
        &mut self,
        port: u32,
        prio: u8,
        p: &RedEcnParams,
    ) -> Result<(), ConfigError> {
        self.0
            .set_queue_policy(port, prio, RedEcnConfig::try_from(p)?)
    }

    #[inline]
    fn on_arrival(&mut self, p: &SwitchPacket) -> SwitchDecision {
        let d = self.0.on_arrival(&PacketMeta {
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
            draw: p.draw,
        });
        let (action, reason) = match d.verdict {
            Verdict::Enqueue => (0, 0),
            Verdict::Mark => (1, 0),
            Verdict::Drop(r) => (2, r as u8),
        };
        SwitchDecision {
            out_port: d.out_port,
            action,
            reason,
            pfc: pfc_code(d.pfc),
            egress_bytes: self
                .0
                .mmu()
                .egress_bytes(d.out_port as usize, p.prio as usize)
                .0,
        }
    }

    #[inline]
    fn on_departure(&mut self, in_port: u32, out_port: u32, prio: u8, size: u64) -> u8 {
        pfc_code(self.0.on_departure(in_port, out_port, prio, Bytes(size)))
    }

    fn counters(&self) -> SwitchCounters {
        let s = self.0.stats();
        let m = self.0.mmu().stats();
        SwitchCounters {
            received: s.received,
            forwarded: s.forwarded,
            marked: s.marked,
            drops: s.drops,
            drop_bytes: s.drop_bytes,
            pauses: m.pauses,
            resumes: m.resumes,
            occupancy: self.0.mmu().occupancy().0,
            max_occupancy: m.max_occupancy.0,
            max_headroom_used: m.max_headroom_used.0,
        }
    }

    fn egress_bytes(&self, port: u32, prio: u8) -> u64 {
        self.0.mmu().egress_bytes(port as usize, prio as usize).0
    }

    fn ingress_bytes(&self, port: u32, prio: u8) -> u64 {
        self.0.mmu().ingress_bytes(port as usize, prio as usize).0
    }

    fn is_paused(&self, port: u32, prio: u8) -> bool {
        self.0.mmu().is_paused(port as usize, prio as usize)
    }

    fn check_invariants(&self) -> String {
        self.0.check_invariants().err().unwrap_or_default()
    }
}

/// Opaque handle owning a [`RedEcnPolicy`].
pub struct RedEcn(RedEcnPolicy);

impl TryFrom<&RedEcnParams> for RedEcnConfig {
    type Error = ConfigError;
    fn try_from(p: &RedEcnParams) -> Result<Self, Self::Error> {
        let not_ect = match p.not_ect {
            NotEctMode::Accept => NotEct::Accept,
            NotEctMode::ThresholdDrop => NotEct::ThresholdDrop {
                k_fs: Bytes(p.k_fs),
            },
            NotEctMode::RedDrop => NotEct::RedDrop,
            other => {
                return Err(rdma_cc_core::ConfigError::new(
                    "NotEctMode",
                    other.repr,
                    "must be Accept, ThresholdDrop or RedDrop",
                ))
            }
        };
        Ok(RedEcnConfig {
            ecn: EcnThresholds {
                k_min: Bytes(p.k_min),
                k_max: Bytes(p.k_max),
                p_max: p.p_max,
            },
            not_ect,
            buf_max: Bytes(p.buf_max),
        })
    }
}

fn red_ecn_new(p: &RedEcnParams) -> Result<Box<RedEcn>, rdma_cc_core::ConfigError> {
    let cfg = RedEcnConfig::try_from(p)?;
    Ok(Box::new(RedEcn(cfg.build()?)))
}

impl RedEcn {
    #[inline]
    fn on_enqueue(&mut self, queue_bytes: u64, size: u64, ecn: u8, draw: f64) -> EnqueueVerdict {
        match self
            .0
            .on_enqueue(Bytes(queue_bytes), Bytes(size), Ecn::from_bits(ecn), draw)
        {
            Verdict::Enqueue => EnqueueVerdict {
                action: 0,
                reason: 0,
            },
            Verdict::Mark => EnqueueVerdict {
                action: 1,
                reason: 0,
            },
            Verdict::Drop(r) => EnqueueVerdict {
                action: 2,
                reason: r as u8,
            },
        }
    }

    fn mark_probability(&self, queue_bytes: u64) -> f64 {
        self.0.config().ecn.mark_probability(Bytes(queue_bytes))
    }

    fn counters(&self) -> RedEcnCounters {
        let s = self.0.stats();
        RedEcnCounters {
            enqueued: s.enqueued,
            marked: s.marked,
            drops: s.drops,
        }
    }
}

fn drop_reason_name(reason: u8) -> &'static str {
    DropReason::ALL
        .get(reason as usize)
        .map_or("", |r| r.name())
}

fn drop_reason_count() -> u8 {
    DropReason::ALL.len() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RedEcnParams {
        RedEcnParams {
            k_min: 10_000,
            k_max: 40_000,
            p_max: 0.2,
            not_ect: NotEctMode::ThresholdDrop,
            k_fs: 20_000,
            buf_max: 100_000,
        }
    }

    #[test]
    fn bridge_rejects_kmin_above_kmax_naming_attribute() {
        let mut p = params();
        p.k_min = 50_000;
        let e = red_ecn_new(&p).err().expect("must fail");
        assert!(e.to_string().starts_with("invalid KMin = 50000 B"), "{e}");
    }

    #[test]
    fn bridge_maps_verdicts_to_codes() {
        let mut q = red_ecn_new(&params()).unwrap();
        assert_eq!(q.on_enqueue(0, 1000, 2, 0.5).action, 0);
        assert_eq!(q.on_enqueue(40_000, 1000, 2, 0.5).action, 1);
        let d = q.on_enqueue(20_000, 1000, 0, 0.5);
        assert_eq!(
            (d.action, drop_reason_name(d.reason)),
            (2, "not_ect_threshold")
        );
        let c = q.counters();
        assert_eq!((c.enqueued, c.marked, c.drops[2]), (2, 1, 1));
    }

    #[test]
    fn drop_reason_names_cover_all_codes() {
        for i in 0..drop_reason_count() {
            assert!(!drop_reason_name(i).is_empty());
        }
        assert_eq!(drop_reason_name(drop_reason_count()), "");
    }

    fn mmu_params(ports: u32) -> MmuParams {
        MmuParams {
            buffer_size: 12_000_000,
            ports,
            mtu: 1062,
            reserve: 0,
            headroom: 32_000,
            xoff_dynamic: true,
            xoff_static: 0,
            xoff_beta: 8.0,
            xon_delta: 3000,
            lossless_mask: 0x08,
            egress_limit: 1_000_000,
        }
    }

    #[test]
    fn bridge_routes_are_shared_and_bad_topologies_named() {
        // host 0 - switch 1 - host 2; node 3 is another helper's (no link)
        let mut t = topology_new(4);
        t.set_host(0).unwrap();
        t.set_host(2).unwrap();
        t.add_link(0, 0, 1, 0).unwrap();
        let e = switch_core_new(&mmu_params(2), &t, 1, 7)
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
        let e = switch_core_new(&mmu_params(1), &t, 0, 7)
            .err()
            .expect("a host");
        assert_eq!(e.field, "node");
        let mut sw = switch_core_new(&mmu_params(2), &t, 1, 7).unwrap();
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
            draw: 0.5,
        };
        let d = sw.on_arrival(&p);
        assert_eq!((d.out_port, d.action), (1, 0));
        p.dst_node = 3;
        let d = sw.on_arrival(&p);
        assert_eq!((d.action, drop_reason_name(d.reason)), (2, "no_route"));
    }
}
