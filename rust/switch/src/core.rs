//! One switch's per-packet decisions: routing (ECMP), the egress queue policy (RED/ECN,
//! WRED), and the shared-buffer MMU with PFC (architecture.md "A packet's way", steps 2–3).
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

use crate::mmu::{Admission, Mmu, MmuConfig, PfcAction, PRIORITIES};
use crate::red::{NotEct, RedEcnConfig, RedEcnPolicy, Verdict};
use crate::routing::{ecmp_select, FiveTuple, Routes};
use crate::{DropReason, Ecn};
use rdma_cc_core::{Bytes, ConfigError};

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
    /// Uniform random number in [0, 1) for RED marking.
    pub draw: f64,
}

/// What to do with an arriving packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// Egress port (meaningless when dropped for `NoRoute`).
    pub out_port: u32,
    /// `Enqueue`, `Mark` or `Drop(reason)`.
    pub verdict: Verdict,
    /// PFC action for the packet's ingress (port, priority).
    pub pfc: PfcAction,
}

/// Per-switch counters beyond the MMU's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SwitchStats {
    /// Packets received.
    pub received: u64,
    /// Packets forwarded (admitted to an egress queue).
    pub forwarded: u64,
    /// Packets marked CE.
    pub marked: u64,
    /// Drops by reason (index `DropReason as usize`), all steps together.
    pub drops: [u64; DropReason::ALL.len()],
    /// Bytes dropped, all reasons.
    pub drop_bytes: u64,
}

/// How the switch picks one of the equal-cost next hops (fabric.md: "A hook lets RCM's SAR
/// override the choice"). Every policy sees the same candidate ports; an adaptive policy
/// (RCM's switch-level adaptive routing) is added as a variant carrying its state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RoutePolicy {
    /// Per-flow ECMP: a hash of the 5-tuple and the switch seed; a flow never changes path.
    #[default]
    Ecmp,
}

/// The decisions of one switch.
#[derive(Debug, Clone)]
pub struct SwitchCore {
    mmu: Mmu,
    policies: Vec<Option<RedEcnPolicy>>,
    routes: Routes,
    route_policy: RoutePolicy,
    seed: u64,
    stats: SwitchStats,
}

impl SwitchCore {
    /// A switch with the given MMU, routing table and ECMP seed; no egress policy yet
    /// (packets are only subject to the MMU).
    pub fn new(mmu: MmuConfig, routes: Routes, seed: u64) -> Result<SwitchCore, ConfigError> {
        let ports = mmu.ports;
        let mmu = Mmu::new(mmu)?;
        Ok(SwitchCore {
            mmu,
            policies: vec![None; ports * PRIORITIES],
            routes,
            route_policy: RoutePolicy::Ecmp,
            seed,
            stats: SwitchStats::default(),
        })
    }

    /// Replaces the routing table.
    pub fn set_routes(&mut self, routes: Routes) {
        self.routes = routes;
    }

    /// The routing table.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// Sets how one of the equal-cost next hops is chosen.
    pub fn set_route_policy(&mut self, p: RoutePolicy) {
        self.route_policy = p;
    }

    /// The egress port for a packet, `None` without a route.
    #[inline]
    fn route(&self, m: &PacketMeta) -> Option<u32> {
        let candidates = self.routes.next_hops(m.dst_node);
        match self.route_policy {
            RoutePolicy::Ecmp => ecmp_select(self.seed, &m.tuple, candidates),
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
        let ports = self.mmu.config().ports;
        ConfigError::check(
            (port as usize) < ports,
            "port",
            port,
            &format!("must be < {ports}"),
        )?;
        ConfigError::check(
            (prio as usize) < PRIORITIES,
            "priority",
            prio,
            "must be < 8",
        )?;
        if self.mmu.config().lossless[prio as usize] {
            ConfigError::check(
                matches!(cfg.not_ect, NotEct::Accept),
                "NotEctMode",
                format!("{:?}", cfg.not_ect),
                &format!("priority {prio} is lossless (PFC): Not-ECT packets must be accepted"),
            )?;
            cfg.buf_max = Bytes::MAX;
        }
        let p = cfg.build()?;
        self.policies[port as usize * PRIORITIES + prio as usize] = Some(p);
        Ok(())
    }

    /// Decides for an arriving packet.
    #[inline]
    pub fn on_arrival(&mut self, m: &PacketMeta) -> Decision {
        self.stats.received += 1;
        let prio = (m.prio as usize).min(PRIORITIES - 1);
        let Some(out) = self.route(m) else {
            return self.dropped(m, 0, DropReason::NoRoute, PfcAction::None);
        };
        let idx = out as usize * PRIORITIES + prio;
        let verdict = match self.policies.get_mut(idx).and_then(Option::as_mut) {
            Some(p) => {
                let q = self.mmu.egress_bytes(out as usize, prio);
                p.on_enqueue(q, m.size, m.ecn, m.draw)
            }
            None => Verdict::Enqueue,
        };
        if let Verdict::Drop(r) = verdict {
            return self.dropped(m, out, r, PfcAction::None);
        }
        let Admission { drop, pfc } =
            self.mmu
                .on_arrival(m.in_port as usize, out as usize, prio, m.size);
        if let Some(r) = drop {
            return self.dropped(m, out, r, pfc);
        }
        self.stats.forwarded += 1;
        if verdict == Verdict::Mark {
            self.stats.marked += 1;
        }
        Decision {
            out_port: out,
            verdict,
            pfc,
        }
    }

    fn dropped(&mut self, m: &PacketMeta, out: u32, r: DropReason, pfc: PfcAction) -> Decision {
        self.stats.drops[r as usize] += 1;
        self.stats.drop_bytes += m.size.0;
        Decision {
            out_port: out,
            verdict: Verdict::Drop(r),
            pfc,
        }
    }

    /// A packet admitted earlier left egress queue (`out_port`, `prio`).
    #[inline]
    pub fn on_departure(
        &mut self,
        in_port: u32,
        out_port: u32,
        prio: u8,
        size: Bytes,
    ) -> PfcAction {
        let prio = (prio as usize).min(PRIORITIES - 1);
        self.mmu
            .on_departure(in_port as usize, out_port as usize, prio, size)
    }

    /// The MMU (accounting, thresholds, its own statistics).
    pub fn mmu(&self) -> &Mmu {
        &self.mmu
    }

    /// Counters.
    pub fn stats(&self) -> &SwitchStats {
        &self.stats
    }

    /// The MMU's invariants, plus: received = forwarded + dropped.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.mmu.check_invariants()?;
        let dropped: u64 = self.stats.drops.iter().sum();
        if self.stats.received != self.stats.forwarded + dropped {
            return Err(format!(
                "received {} != forwarded {} + dropped {}",
                self.stats.received, self.stats.forwarded, dropped
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mmu::Xoff;
    use crate::red::EcnThresholds;
    use crate::routing::Topology;
    use std::sync::Arc;

    fn meta(in_port: u32, dst: u32, prio: u8, ecn: Ecn) -> PacketMeta {
        PacketMeta {
            in_port,
            prio,
            dst_node: dst,
            tuple: FiveTuple {
                src_ip: in_port,
                dst_ip: dst,
                src_port: 1,
                dst_port: 4791,
                protocol: 17,
            },
            size: Bytes(1000),
            ecn,
            draw: 0.5,
        }
    }

    /// Switch 0 with 3 ports to hosts 1, 2 and 9 (node ids 0..10; others unused).
    fn routes() -> Routes {
        let mut t = Topology::new(10);
        for (port, host) in [(0, 1), (1, 2), (2, 9)] {
            t.set_host(host).unwrap();
            t.add_link(0, port, host, 0).unwrap();
        }
        Arc::new(t.routes().unwrap()).switch_routes(0).unwrap()
    }

    /// 3 ports; host 9 reachable via port 2.
    fn core(lossless3: bool) -> SwitchCore {
        let mut lossless = [false; 8];
        lossless[3] = lossless3;
        let cfg = MmuConfig {
            buffer_size: Bytes(1_000_000),
            ports: 3,
            mtu: Bytes(1000),
            reserve: Bytes(0),
            headroom: Bytes(20_000),
            xoff: Xoff::Static(Bytes(50_000)),
            xon_delta: Bytes(2000),
            lossless,
            egress_limit: Bytes(30_000),
        };
        SwitchCore::new(cfg, routes(), 7).unwrap()
    }

    #[test]
    fn forwards_along_the_route_and_accounts_egress() {
        let mut c = core(false);
        let d = c.on_arrival(&meta(0, 9, 1, Ecn::Ect0));
        assert_eq!((d.out_port, d.verdict), (2, Verdict::Enqueue));
        assert_eq!(c.mmu().egress_bytes(2, 1), Bytes(1000));
        assert_eq!(c.on_departure(0, 2, 1, Bytes(1000)), PfcAction::None);
        assert_eq!(c.mmu().occupancy(), Bytes(0));
        c.check_invariants().unwrap();
    }

    #[test]
    fn unknown_destination_is_dropped_as_no_route() {
        let mut c = core(false);
        let d = c.on_arrival(&meta(0, 5, 1, Ecn::Ect0));
        assert_eq!(d.verdict, Verdict::Drop(DropReason::NoRoute));
        assert_eq!(c.stats().drops[DropReason::NoRoute as usize], 1);
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
                not_ect: NotEct::ThresholdDrop { k_fs: Bytes(3000) },
                buf_max: Bytes(100_000),
            },
        )
        .unwrap();
        for _ in 0..3 {
            assert_eq!(
                c.on_arrival(&meta(0, 9, 1, Ecn::NotEct)).verdict,
                Verdict::Enqueue
            );
        }
        let d = c.on_arrival(&meta(0, 9, 1, Ecn::NotEct));
        assert_eq!(d.verdict, Verdict::Drop(DropReason::NotEctThreshold));
        assert_eq!(c.mmu().egress_bytes(2, 1), Bytes(3000));
        // ECT packets pass and are marked once above K_min... at 3000 B: not yet
        assert_eq!(
            c.on_arrival(&meta(0, 9, 1, Ecn::Ect0)).verdict,
            Verdict::Enqueue
        );
        c.check_invariants().unwrap();
    }

    #[test]
    fn lossy_egress_limit_tail_drops() {
        let mut c = core(false);
        for _ in 0..30 {
            assert!(matches!(
                c.on_arrival(&meta(0, 9, 1, Ecn::Ect0)).verdict,
                Verdict::Enqueue
            ));
        }
        let d = c.on_arrival(&meta(0, 9, 1, Ecn::Ect0));
        assert_eq!(d.verdict, Verdict::Drop(DropReason::QueueFull));
        c.check_invariants().unwrap();
    }

    #[test]
    fn lossless_priority_pauses_instead_of_dropping() {
        let mut c = core(true);
        let mut pauses = 0;
        for i in 0..70 {
            let d = c.on_arrival(&meta(0, 9, 3, Ecn::Ect0));
            assert!(
                !matches!(d.verdict, Verdict::Drop(_)),
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
                    not_ect: NotEct::ThresholdDrop { k_fs: Bytes(1) },
                    ..RedEcnConfig::default()
                },
            )
            .unwrap_err();
        assert_eq!(e.field, "NotEctMode");
    }
}
