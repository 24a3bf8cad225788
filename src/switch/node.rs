//! One switch's decisions across the bridge ([`SwitchCore`]): per packet, and RCM's events.

use super::fabric::Topology;
use super::params::{red_attr, switch_attr, RedEcnParams, SwitchParams};
use super::{
    decision, EgressSample, PfcAction, RcmCounters, RcmEvent, RcmEventKind, RcmRole,
    SwitchCounters, SwitchDecision, SwitchPacket, TxPacket,
};
use crate::log::{in_context, LogContext};
use rdma_cc_core::{Bytes, ConfigError, Time};
use rdma_cc_rcm::switch::{Event as RcmEv, RccChange};
use rdma_cc_rcm::{CnBytes, FlowList, RcmSwitch, RcmSwitchCore};
use rdma_cc_switch::core::PacketMeta;
use rdma_cc_switch::routing::FiveTuple;
use rdma_cc_switch::Ecn;

/// Opaque handle owning one switch's core (`RcmSwitchCore`), with the encoded payload of the
/// last CN RCM asked to send.
/// (Its log records name the switch's node: `LogContext::node`.)
pub struct SwitchCore(RcmSwitchCore, CnOut, LogContext);

/// The payload of the last CN popped (`rcm_cn_payload`) and the congestion flows of the last
/// RCC event (`rcm_event_flows`).
#[derive(Default)]
struct CnOut {
    cn: CnBytes,
    flows: FlowList,
}

pub(super) fn switch_core_new(
    p: &SwitchParams,
    rates_bps: &[u64],
    delays_ns: &[u64],
    topo: &Topology,
    node: u32,
) -> Result<Box<SwitchCore>, ConfigError> {
    let core =
        p.0.build_in(&topo.0, node, rates_bps, delays_ns)
            .map_err(switch_attr)?;
    Ok(Box::new(SwitchCore(
        core,
        CnOut::default(),
        LogContext::node(node),
    )))
}

impl SwitchCore {
    /// RCM, when it runs.
    pub(super) fn rcm(&self) -> Option<&RcmSwitch> {
        self.0.mechanism().as_ref()
    }

    pub(super) fn set_queue_policy(
        &mut self,
        port: u32,
        prio: u8,
        p: &RedEcnParams,
    ) -> Result<(), ConfigError> {
        self.0.set_queue_policy(port, prio, p.0).map_err(red_attr)
    }

    pub(super) fn warnings(&self, marking: bool, k_min: u64) -> Vec<String> {
        self.0.mmu().warnings(marking.then_some(Bytes(k_min)))
    }

    pub(super) fn headroom(&self, port: u32) -> u64 {
        self.0.mmu().headroom(port as usize).0
    }

    #[inline]
    pub(super) fn on_arrival(&mut self, p: &SwitchPacket) -> SwitchDecision {
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
    pub(super) fn on_departure(&mut self, p: &TxPacket, out_port: u32) -> PfcAction {
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

    pub(super) fn rcm_enabled(&self) -> bool {
        self.rcm().is_some()
    }

    pub(super) fn on_control(&mut self, now_ns: u64, port: u32, payload: &[u8]) -> bool {
        in_context(self.2, || self.0.on_control(Time(now_ns), port, payload))
    }

    pub(super) fn rcm_pop_event(&mut self) -> RcmEvent {
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
                self.1.cn = cn.to_bytes();
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

    pub(super) fn rcm_cn_payload(&self) -> &[u8] {
        self.1.cn.as_slice()
    }

    pub(super) fn rcm_event_flows(&self) -> &[u64] {
        self.1.flows.as_slice()
    }

    pub(super) fn rcm_rcc_period_ns(&self, port: u32, prio: u8) -> u64 {
        self.rcm()
            .and_then(|r| r.rcc_period(port, prio))
            .map_or(0, |t| t.0)
    }

    pub(super) fn rcm_next_timeout(&self) -> u64 {
        self.0.next_timeout().map_or(u64::MAX, |t| t.0)
    }

    pub(super) fn rcm_on_timeout(&mut self, now_ns: u64) {
        in_context(self.2, || self.0.on_timeout(Time(now_ns)));
    }

    pub(super) fn rcm_counters(&self) -> RcmCounters {
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

    pub(super) fn rcm_cam(&self, port: u32, prio: u8) -> Vec<u64> {
        self.rcm()
            .map(|r| r.cam(port, prio).to_vec())
            .unwrap_or_default()
    }

    pub(super) fn originate(&mut self, out_port: u32, size: u64) -> SwitchDecision {
        decision(in_context(self.2, || {
            self.0.originate(out_port, Bytes(size))
        }))
    }

    pub(super) fn counters(&self) -> SwitchCounters {
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

    pub(super) fn max_egress_bytes(&self, port: u32, prio: u8) -> u64 {
        self.0.mmu().egress_max(port as usize, prio as usize).0
    }

    pub(super) fn reset_max_egress(&mut self) {
        self.0.reset_egress_max();
    }

    pub(super) fn sample_egress(&self, prio_mask: u8, out: &mut Vec<EgressSample>) {
        self.0.mmu().sample_egress(prio_mask, out);
    }

    pub(super) fn egress_bytes(&self, port: u32, prio: u8) -> u64 {
        self.0.mmu().egress_bytes(port as usize, prio as usize).0
    }

    pub(super) fn check_invariants(&self) -> String {
        self.0.check_invariants().err().unwrap_or_default()
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
