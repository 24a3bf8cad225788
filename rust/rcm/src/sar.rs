//! SAR, switch-level adaptive routing (NPC 2017 §3.4 "SAR"): the choice among a packet's
//! equal-cost next hops ([`Sar::route`]).
//!
//! A switch in a congestion region (it is congested itself, or has received at least
//! `sar_cn_threshold` CNs within `hold`; the caller says which) sends a non-congestion flow
//! to the candidate port with the lowest regional degree `Fb'` (§3.2 eq. 2). Congestion flows
//! (in a CAM, or named by a CN) are never moved, and with a single candidate nothing is
//! detoured. Outside a region, or for a congestion flow, a flow keeps the port it used last
//! at this switch, and a flow seen for the first time takes its ECMP port.
//!
//! Which flows may move is the [`SarMode`]: `new` (only a flow's first packet; the choice then
//! sticks), `flowlet` (also a flow idle for more than `flowlet_gap`), `packet` (every packet),
//! or `off` (always the ECMP port).
//!
//! # The flow table (decisions)
//!
//! Sticking to a choice needs each flow's port: a table of `sar_table` entries (a power of
//! two, allocated once), open addressing with a probe window of [`PROBE`] slots from the
//! flow's hash. An entry is reclaimed for another flow only after its flow has been idle for
//! more than `flowlet_gap` (the oldest such entry of the window). A flow for which no entry
//! can be had (the window full of active flows) is routed as if SAR were off — its ECMP port —
//! and never detoured, so a detoured flow always has an entry. A flow whose entry was
//! reclaimed is a new flow when it comes back. Ties between ports of equal degree go to the
//! flow's current port (its previous one, else its ECMP port): a flow only moves to a port
//! strictly less congested.

use crate::cfr::FlowId;
use crate::config::{RcmParams, SarMode};
use rdma_cc_core::hash::mix64;
use rdma_cc_core::Time;

/// Slots probed from a flow's hash, looking it up or finding it a slot.
pub const PROBE: usize = 8;

/// What SAR needs to know about a packet to route it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteQuery<'a> {
    /// The packet's flow.
    pub flow: FlowId,
    /// The equal-cost next hops (ports), as the routing table gives them.
    pub candidates: &'a [u32],
    /// The port ECMP chose among them.
    pub ecmp: u32,
    /// Whether the switch is in a congestion region.
    pub in_region: bool,
}

/// SAR's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// The port to send the packet to.
    pub port: u32,
    /// The port differs from the ECMP port.
    pub detoured: bool,
    /// The port differs from the one the flow used last at this switch.
    pub moved: bool,
}

/// Counters of SAR.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SarStats {
    /// Adaptive decisions (the flow was free to move and the switch in a region).
    pub decisions: u64,
    /// Decisions that chose another port than the ECMP one (detours).
    pub detours: u64,
    /// Packets sent to another port than their flow's previous one.
    pub moves: u64,
    /// Packets of flows that found no table entry (routed by ECMP).
    pub untracked: u64,
    /// Entries reclaimed from idle flows.
    pub reclaimed: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Entry {
    flow: FlowId,
    port: u32,
    last: Time,
    used: bool,
}

/// Switch-level adaptive routing of one switch.
#[derive(Debug, Clone)]
pub struct Sar {
    mode: SarMode,
    gap: Time,
    table: Box<[Entry]>,
    mask: usize,
    stats: SarStats,
}

impl Sar {
    /// SAR with `p`'s mode, flowlet gap and table size (allocated here, once; none when the
    /// mode is [`SarMode::Off`]).
    pub fn new(p: &RcmParams) -> Sar {
        let n = if p.sar_mode == SarMode::Off {
            0
        } else {
            p.sar_table.max(PROBE).next_power_of_two()
        };
        Sar {
            mode: p.sar_mode,
            gap: p.flowlet_gap,
            table: vec![Entry::default(); n].into_boxed_slice(),
            mask: n.saturating_sub(1),
            stats: SarStats::default(),
        }
    }

    /// The mode.
    pub fn mode(&self) -> SarMode {
        self.mode
    }

    /// Counters.
    pub fn stats(&self) -> SarStats {
        self.stats
    }

    /// The slot holding `flow`, if any.
    fn find(&self, flow: FlowId, home: usize) -> Option<usize> {
        (0..PROBE)
            .map(|k| (home + k) & self.mask)
            .find(|&i| self.table[i].used && self.table[i].flow == flow)
    }

    /// A slot for a new flow: a free one, else the one idle longest if idle for more than
    /// the flowlet gap.
    fn free_slot(&mut self, now: Time, home: usize) -> Option<usize> {
        let window = (0..PROBE).map(|k| (home + k) & self.mask);
        if let Some(i) = window.clone().find(|&i| !self.table[i].used) {
            return Some(i);
        }
        let i = window
            .filter(|&i| now.saturating_sub(self.table[i].last) > self.gap)
            .min_by_key(|&i| self.table[i].last)?;
        self.stats.reclaimed += 1;
        Some(i)
    }

    /// Routes one packet (§3.4 "SAR"). `is_congestion()` says whether the flow is a
    /// congestion flow at this switch (never moved; asked only when the flow could move, as
    /// it costs a CAM search); `degree(port)` is the regional degree `Fb'` of the candidate
    /// output port for the packet's priority.
    pub fn route(
        &mut self,
        now: Time,
        q: &RouteQuery<'_>,
        is_congestion: impl FnOnce() -> bool,
        degree: impl Fn(u32) -> u8,
    ) -> Route {
        let ecmp = Route {
            port: q.ecmp,
            detoured: false,
            moved: false,
        };
        if self.mode == SarMode::Off || self.table.is_empty() {
            return ecmp;
        }
        let home = (mix64(q.flow) as usize) & self.mask;
        let (slot, prev, idle) = match self.find(q.flow, home) {
            Some(i) => {
                let e = self.table[i];
                (Some(i), Some(e.port), now.saturating_sub(e.last))
            }
            None => (self.free_slot(now, home), None, Time::ZERO),
        };
        let Some(slot) = slot else {
            // no entry to remember a choice by: ECMP, never detoured
            self.stats.untracked += 1;
            return ecmp;
        };
        // the flow's current port: its previous one while that is still a next hop
        let current = prev.filter(|p| q.candidates.contains(p)).unwrap_or(q.ecmp);
        let free_to_move = match self.mode {
            SarMode::Off => false,
            SarMode::New => prev.is_none(),
            SarMode::Flowlet => prev.is_none() || idle > self.gap,
            SarMode::Packet => true,
        };
        let port = if free_to_move && q.in_region && q.candidates.len() > 1 && !is_congestion() {
            self.stats.decisions += 1;
            // the least congested candidate; the current port wins ties
            let mut best = (degree(current), current);
            for &c in q.candidates {
                let d = degree(c);
                if d < best.0 {
                    best = (d, c);
                }
            }
            if best.1 != q.ecmp {
                self.stats.detours += 1;
            }
            best.1
        } else {
            current
        };
        let moved = prev.is_some_and(|p| p != port);
        if moved {
            self.stats.moves += 1;
            log::trace!("SAR moves flow {} to port {port}", q.flow);
        }
        self.table[slot] = Entry {
            flow: q.flow,
            port,
            last: now,
            used: true,
        };
        Route {
            port,
            detoured: port != q.ecmp,
            moved,
        }
    }

    /// The port the flow used last at this switch (`None`: no entry).
    pub fn port_of(&self, flow: FlowId) -> Option<u32> {
        if self.table.is_empty() {
            return None;
        }
        let home = (mix64(flow) as usize) & self.mask;
        self.find(flow, home).map(|i| self.table[i].port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RcmConfig;
    use proptest::prelude::*;

    fn sar(mode: SarMode, table: u32) -> Sar {
        Sar::new(
            &RcmConfig {
                sar_mode: mode,
                sar_table: table,
                ..RcmConfig::default()
            }
            .resolved()
            .unwrap(),
        )
    }

    /// A packet of `flow` (a congestion flow when `cam`) with next hops `candidates`.
    fn q(flow: FlowId, candidates: &[u32], ecmp: u32, cam: bool, region: bool) -> Q<'_> {
        Q(
            RouteQuery {
                flow,
                candidates,
                ecmp,
                in_region: region,
            },
            cam,
        )
    }

    struct Q<'a>(RouteQuery<'a>, bool);

    /// Routes `q` with SAR `s`.
    trait RouteQ {
        fn go(&mut self, now: Time, q: &Q<'_>, degree: impl Fn(u32) -> u8) -> Route;
    }

    impl RouteQ for Sar {
        fn go(&mut self, now: Time, q: &Q<'_>, degree: impl Fn(u32) -> u8) -> Route {
            Sar::route(self, now, &q.0, || q.1, degree)
        }
    }

    /// Port 1 congested (degree 40), port 2 lightly (5), port 3 clear.
    fn degrees(p: u32) -> u8 {
        match p {
            1 => 40,
            2 => 5,
            _ => 0,
        }
    }

    #[test]
    fn a_new_flow_in_a_region_takes_the_least_congested_port() {
        let mut s: Sar = sar(SarMode::New, 4096);
        let r = s.go(Time::ZERO, &q(7, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(
            r,
            Route {
                port: 3,
                detoured: true,
                moved: false
            }
        );
        // the choice sticks, even once port 3 is the most congested
        let r = s.go(Time::us(1), &q(7, &[1, 2, 3], 1, false, true), |p| {
            if p == 3 {
                60
            } else {
                0
            }
        });
        assert_eq!(r.port, 3);
        assert!(!r.moved);
        assert_eq!(s.port_of(7), Some(3));
        assert_eq!(s.stats().detours, 1);
    }

    #[test]
    fn outside_a_region_flows_take_ecmp_and_keep_it() {
        let mut s: Sar = sar(SarMode::New, 4096);
        let r = s.go(Time::ZERO, &q(7, &[1, 2, 3], 1, false, false), degrees);
        assert_eq!(r.port, 1);
        assert!(!r.detoured);
        // the region forms: the flow is not new any more, it stays
        let r = s.go(Time::us(1), &q(7, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(r.port, 1);
        assert_eq!(s.stats().decisions, 0);
    }

    #[test]
    fn congestion_flows_are_never_detoured() {
        for mode in [SarMode::New, SarMode::Flowlet, SarMode::Packet] {
            let mut s: Sar = sar(mode, 4096);
            let r = s.go(Time::ZERO, &q(7, &[1, 2, 3], 1, true, true), degrees);
            assert_eq!(r.port, 1, "{mode:?}");
            // a flow detoured earlier that became a congestion flow stays where it is
            s.go(Time::ZERO, &q(8, &[1, 2, 3], 1, false, true), degrees);
            assert_eq!(s.port_of(8), Some(3));
            let r = s.go(Time::ms(1), &q(8, &[1, 2, 3], 1, true, true), degrees);
            assert_eq!(r.port, 3, "{mode:?}");
            assert!(!r.moved);
        }
    }

    #[test]
    fn a_single_path_detours_nothing_and_ties_stay() {
        let mut s: Sar = sar(SarMode::Packet, 4096);
        let r = s.go(Time::ZERO, &q(7, &[1], 1, false, true), degrees);
        assert_eq!(r.port, 1);
        // equal degrees: the ECMP port
        let r = s.go(Time::ZERO, &q(9, &[2, 3], 2, false, true), |_| 4);
        assert_eq!(r.port, 2);
        assert_eq!(s.stats().detours, 0);
    }

    #[test]
    fn flowlet_mode_moves_only_after_the_gap() {
        let mut s: Sar = sar(SarMode::Flowlet, 4096);
        let gap = RcmConfig::default().flowlet_gap;
        s.go(Time::ZERO, &q(7, &[1, 2, 3], 1, false, false), degrees);
        // in a region, but within the gap: stays on 1
        let r = s.go(Time::us(10), &q(7, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(r.port, 1);
        // idle longer than the gap: a new flowlet may move
        let t = Time::us(10) + gap + Time(1);
        let r = s.go(t, &q(7, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(
            r,
            Route {
                port: 3,
                detoured: true,
                moved: true
            }
        );
    }

    #[test]
    fn packet_mode_reroutes_every_packet_of_a_non_congestion_flow() {
        let mut s: Sar = sar(SarMode::Packet, 4096);
        assert_eq!(
            s.go(Time::ZERO, &q(7, &[1, 2, 3], 1, false, true), degrees)
                .port,
            3
        );
        let r = s.go(Time::ns(1), &q(7, &[1, 2, 3], 1, false, true), |p| {
            if p == 3 {
                9
            } else {
                1
            }
        });
        // tie between 1 and 2 at degree 1 goes to the first found below the current port's
        assert!(r.moved && r.port == 1, "{r:?}");
    }

    #[test]
    fn off_mode_is_ecmp() {
        let mut s: Sar = sar(SarMode::Off, 4096);
        let r = s.go(Time::ZERO, &q(7, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(r.port, 1);
        assert_eq!(s.port_of(7), None);
    }

    #[test]
    fn a_full_table_routes_by_ecmp_and_reclaims_idle_entries() {
        let mut s: Sar = sar(SarMode::New, 8);
        // 8 flows fill the table (one probe window covers it)
        for f in 0..8 {
            s.go(Time::ZERO, &q(f, &[1, 2, 3], 1, false, false), degrees);
        }
        // a ninth flow in a region: no entry, so no detour
        let r = s.go(Time::us(1), &q(100, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(r.port, 1);
        assert_eq!(s.stats().untracked, 1);
        // once the others are idle past the gap, an entry is reclaimed and the flow detoured
        let r = s.go(Time::ms(1), &q(100, &[1, 2, 3], 1, false, true), degrees);
        assert_eq!(r.port, 3);
        assert_eq!(s.stats().reclaimed, 1);
    }

    proptest! {
        /// SAR never moves a congestion flow: a packet of a congestion flow leaves by the port
        /// its flow used last at this switch, or by its ECMP port when it has none (new or
        /// reclaimed); and every port is a candidate.
        #[test]
        fn sar_never_moves_a_cam_flow(
            mode in prop_oneof![Just(SarMode::New), Just(SarMode::Flowlet), Just(SarMode::Packet)],
            table in 8u32..64,
            pkts in prop::collection::vec(
                (0u64..40, 0u64..30_000, any::<bool>(), any::<bool>(), prop::array::uniform4(0u8..64)),
                1..500),
        ) {
            let mut s: Sar = sar(mode, table);
            let cands = [4u32, 5, 6, 7];
            let mut now = Time::ZERO;
            for (flow, dt, cam, region, deg) in pkts {
                now += Time(dt);
                let ecmp = cands[(flow % 4) as usize];
                let before = s.port_of(flow);
                let r = s.go(now, &q(flow, &cands, ecmp, cam, region), |p| deg[(p - 4) as usize]);
                prop_assert!(cands.contains(&r.port));
                prop_assert_eq!(r.detoured, r.port != ecmp);
                if cam {
                    prop_assert_eq!(r.port, before.unwrap_or(ecmp));
                    prop_assert!(!r.moved);
                }
                if !region {
                    prop_assert_eq!(r.port, before.unwrap_or(ecmp));
                }
                // a detoured flow always has an entry that remembers it
                if r.detoured {
                    prop_assert_eq!(s.port_of(flow), Some(r.port));
                }
            }
        }
    }
}
