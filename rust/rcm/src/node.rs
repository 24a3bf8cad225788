//! RCM inside a switch: [`RcmSwitch`] as the switch core's [`Mechanism`], and the
//! configuration of a switch that may run it ([`RcmNodeConfig`]: the switch's own and RCM's,
//! one flat parameter table) with the constructor that wires the two together
//! ([`RcmNodeConfig::build`]). The switch crate knows no mechanism by name; this is where RCM
//! meets it.

use crate::cn::Cn;
use crate::config::{RcmConfig, SarMode};
use crate::switch::{PortSetup, RcmSwitch};
use rdma_cc_core::param::{Field, FlatTable, ParamSpec, ParamValue};
use rdma_cc_core::{Bytes, ConfigError, Time};
use rdma_cc_switch::core::{SwitchConfig, SwitchCore};
use rdma_cc_switch::mechanism::{Admitted, Departed, Detour, Mechanism};
use rdma_cc_switch::mmu::{Mmu, PortLink};
use rdma_cc_switch::routing::{Fabric, Routes};
use serde::{Deserialize, Serialize};

/// The switch core of a switch that may run RCM (`None`: RCM off).
pub type RcmSwitchCore = SwitchCore<Option<RcmSwitch>>;

impl Mechanism for RcmSwitch {
    /// §3.4 SAR among the equal-cost ports, unless its mode is `off` (ECMP).
    #[inline]
    fn route(&mut self, now: Time, prio: u8, flow: u64, candidates: &[u32], ecmp: u32) -> Detour {
        if self.params().sar_mode == SarMode::Off {
            return Detour::Keep;
        }
        Detour::To(RcmSwitch::route(self, now, prio, flow, candidates, ecmp).port)
    }

    /// What the port's scheduler holds apart for RCC.
    #[inline]
    fn held(&self, port: u32, prio: u8) -> Bytes {
        RcmSwitch::held(self, port, prio)
    }

    /// §3.2: detection on the input queue (the bytes buffered from the packet's port and
    /// priority) and on the output queue.
    #[inline]
    fn on_admitted(&mut self, a: &Admitted) {
        self.on_ingress(a.now, a.in_port, a.prio, a.size, a.ingress);
        self.on_enqueue(a.now, a.out_port, a.prio, a.size, a.egress);
    }

    /// §3.3: the output queue's CFR samples the departure.
    #[inline]
    fn on_departed(&mut self, d: &Departed) {
        self.on_sent_bytes(d.out_port, d.prio, d.flow, d.size, d.held);
    }

    /// A neighbour's CN; anything else is not RCM's.
    fn on_control(&mut self, now: Time, port: u32, payload: &[u8]) -> bool {
        match Cn::decode(payload) {
            Some(cn) => {
                self.on_cn(now, port, &cn);
                true
            }
            None => false,
        }
    }

    fn next_timeout(&self) -> Option<Time> {
        RcmSwitch::next_timeout(self)
    }

    fn on_timeout(&mut self, now: Time) {
        RcmSwitch::on_timeout(self, now);
    }
}

/// Everything a switch that may run RCM configures: the switch's own ([`SwitchConfig`]) and
/// RCM's ([`RcmConfig`], off by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RcmNodeConfig {
    /// The switch: MMU, ECMP seed, control pool.
    #[serde(flatten)]
    pub switch: SwitchConfig,
    /// RCM (regional congestion mitigation, NPC 2017).
    pub rcm: RcmConfig,
}

/// The flat table of [`RcmNodeConfig::param_specs`]: the switch's parameters, then RCM's.
const NODE_TABLE: FlatTable<RcmNodeConfig> = FlatTable {
    parts: &[
        &SwitchPart,
        &Field {
            get: |c: &RcmNodeConfig| &c.rcm,
            get_mut: |c: &mut RcmNodeConfig| &mut c.rcm,
        },
    ],
};

/// The switch's own flat table as one part of [`NODE_TABLE`].
struct SwitchPart;

impl rdma_cc_core::param::Part<RcmNodeConfig> for SwitchPart {
    fn count(&self) -> usize {
        SwitchConfig::param_specs().len()
    }
    fn spec(&self, i: usize) -> Option<&'static ParamSpec<'static>> {
        SwitchConfig::param_specs().get(i).copied()
    }
    fn get(&self, c: &RcmNodeConfig, i: usize) -> Option<ParamValue> {
        c.switch.get(i)
    }
    fn set(&self, c: &mut RcmNodeConfig, i: usize, v: &ParamValue) -> Result<(), ConfigError> {
        c.switch.set(i, v)
    }
}

impl RcmNodeConfig {
    /// Every parameter, in one flat table: the switch's ([`SwitchConfig::param_specs`]), then
    /// RCM's ([`RcmConfig`]'s table) (indexes for [`Self::get`] / [`Self::set`]).
    pub fn param_specs() -> Vec<&'static ParamSpec<'static>> {
        NODE_TABLE.specs()
    }

    /// Reads parameter `i` of [`Self::param_specs`].
    pub fn get(&self, i: usize) -> Option<ParamValue> {
        NODE_TABLE.get(self, i)
    }

    /// Checks `v` against parameter `i`'s spec and stores it; the error names the Rust field.
    pub fn set(&mut self, i: usize, v: &ParamValue) -> Result<(), ConfigError> {
        NODE_TABLE.set_checked(self, i, v)
    }

    /// Checks the switch's fields ([`SwitchConfig::validate`]), then RCM's.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.switch.validate()?;
        self.rcm.validate()
    }

    /// Checks this configuration as a scenario sets it on a switch whose ports have `links`:
    /// with the scenario's frame size `mtu` and egress limit `egress_limit` (0: the table's)
    /// and lossless priorities `lossless_mask`, the fields are valid ([`Self::validate`]) and
    /// the MMU can be built over the links ([`Mmu::new`]: the buffer holds what they need).
    /// The error names the field.
    pub fn check_on(
        &self,
        lossless_mask: u8,
        mtu: Bytes,
        egress_limit: Bytes,
        links: &[PortLink],
    ) -> Result<(), ConfigError> {
        let mut c = *self;
        let m = &mut c.switch.mmu;
        if mtu.0 > 0 {
            m.mtu = mtu;
        }
        if egress_limit.0 > 0 {
            m.egress_limit = egress_limit;
        }
        m.set_lossless_mask(lossless_mask);
        c.validate()?;
        Mmu::new(c.switch.mmu, links).map(|_| ())
    }

    /// The switch of node `node` of `fabric` ([`Self::build`]), its ports linked as the
    /// parallel lists `rates_bps` / `delays_ns` say ([`PortLink::from_lists`]); RCM sends CNs
    /// only to the ports whose neighbour is a switch. Errors: the fabric's routes are not
    /// computed or `node` is not a switch (field `node`), the lists differ in length (field
    /// `links`), or [`Self::build`]'s.
    pub fn build_in(
        &self,
        fabric: &Fabric,
        node: u32,
        rates_bps: &[u64],
        delays_ns: &[u64],
    ) -> Result<RcmSwitchCore, ConfigError> {
        let routes = fabric.switch_routes(node)?;
        let links = PortLink::from_lists(rates_bps, delays_ns)?;
        let to_switch = fabric.switch_neighbours(node, links.len());
        self.build(&links, routes, node, &to_switch)
    }

    /// The switch of node `node` ([`SwitchCore::new`]), running RCM if the configuration
    /// enables it ([`RcmConfig::enabled`]): `neighbour_is_switch[p]` says whether port `p`'s
    /// link leads to a switch (CNs go only there). SAR detours data packets unless its mode is
    /// `off`. The error names the field.
    pub fn build(
        &self,
        links: &[PortLink],
        routes: Routes,
        node: u32,
        neighbour_is_switch: &[bool],
    ) -> Result<RcmSwitchCore, ConfigError> {
        self.validate()?;
        let mut core = SwitchCore::with_mechanism(&self.switch, links, routes, node, None)?;
        if !self.rcm.enabled {
            return Ok(core);
        }
        ConfigError::check(
            neighbour_is_switch.len() == links.len(),
            "ports",
            neighbour_is_switch.len(),
            &format!("must be the switch's {} ports", links.len()),
        )?;
        let ports: Vec<PortSetup> = links
            .iter()
            .zip(neighbour_is_switch)
            .map(|(l, &s)| PortSetup {
                rate: l.rate,
                neighbour_is_switch: s,
            })
            .collect();
        *core.mechanism_mut() = Some(RcmSwitch::new(&self.rcm, &ports)?);
        Ok(core)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::switch::{Event, RccChange};
    use crate::{FlowList, Role};
    use rdma_cc_core::{Ecn, PacketKind};
    use rdma_cc_switch::core::PacketMeta;
    use rdma_cc_switch::fixtures::{links, meta, routes};

    fn pop(c: &mut RcmSwitchCore) -> Option<Event> {
        c.mechanism_mut().as_mut().and_then(RcmSwitch::pop_event)
    }

    #[test]
    fn check_on_uses_the_scenarios_frame_limit_and_lossless_priorities() {
        let mut cfg = RcmNodeConfig::default();
        // room for 3 frames of 1000 B, not of the table's MmuMtu
        cfg.switch.mmu.buffer_size = Bytes(3_000);
        cfg.switch.mmu.reserve = Bytes::ZERO;
        let e = cfg
            .check_on(0, Bytes::ZERO, Bytes::ZERO, &links(3))
            .unwrap_err();
        assert_eq!(e.field, "BufferSize");
        assert!(e.to_string().contains("one frame of MmuMtu"), "{e}");
        cfg.check_on(0, Bytes(1_000), Bytes(1_000), &links(3))
            .unwrap();
        // a lossless priority needs PFC headroom per port the buffer does not hold
        let e = cfg
            .check_on(1 << 3, Bytes(1_000), Bytes(1_000), &links(3))
            .unwrap_err();
        assert_eq!(e.field, "BufferSize");
        // the configuration itself is left as it was
        assert_eq!(
            cfg.switch.mmu.lossless_mask(),
            RcmNodeConfig::default().switch.mmu.lossless_mask()
        );
        // a field error of the table comes first
        cfg.switch.mmu.egress_limit = Bytes::ZERO;
        assert!(cfg
            .check_on(0, Bytes(1_000), Bytes::ZERO, &links(3))
            .is_err());
    }

    #[test]
    fn build_in_needs_computed_routes_and_sends_cns_only_to_switches() {
        // switch 0: port 0 to host 1, port 1 to switch 2 (port 0 to host 3)
        let mut f = Fabric::new(4);
        f.set_host(1).unwrap();
        f.set_host(3).unwrap();
        f.add_link(0, 0, 1, 0).unwrap();
        f.add_link(0, 1, 2, 1).unwrap();
        f.add_link(2, 0, 3, 0).unwrap();
        let mut cfg = RcmNodeConfig::default();
        cfg.rcm.enabled = true;
        let (rates, delays) = ([10_000_000_000u64; 2], [1_000u64; 2]);
        let e = cfg.build_in(&f, 0, &rates, &delays).unwrap_err();
        assert_eq!(e.field, "node");
        assert!(e.to_string().contains("has no routes"), "{e}");
        f.compute_routes().unwrap();
        assert_eq!(
            cfg.build_in(&f, 0, &rates, &delays[..1]).unwrap_err().field,
            "links"
        );
        assert_eq!(
            cfg.build_in(&f, 1, &rates[..1], &delays[..1])
                .unwrap_err()
                .field,
            "node"
        );
        let c = cfg.build_in(&f, 0, &rates, &delays).unwrap();
        let r = c.mechanism().as_ref().unwrap();
        assert!(!r.neighbour_is_switch(0) && r.neighbour_is_switch(1));
    }

    #[test]
    fn rcm_samples_queues_marks_congestion_flows_and_takes_cns() {
        // RCM off: no mechanism, and no check of the ports
        let off = RcmNodeConfig::default()
            .build(&links(3), routes(), 0, &[])
            .unwrap();
        assert!(off.mechanism().is_none());
        let mut cfg = RcmNodeConfig {
            rcm: RcmConfig {
                enabled: true,
                sample_bytes: Bytes(10_000),
                q_eq: Bytes(5_000),
                cfr_jitter: false,
                ..RcmConfig::default()
            },
            ..RcmNodeConfig::default()
        };
        cfg.switch.mmu.egress_limit = Bytes(30_000);
        let err = cfg.build(&links(3), routes(), 0, &[true; 2]).unwrap_err();
        assert_eq!(err.field, "ports");
        let mut c = cfg
            .build(&links(3), routes(), 0, &[true, true, false])
            .unwrap();
        assert!(c.mechanism().is_some());
        let pkt = |in_port: u32, t: u64| PacketMeta {
            now: Time::ns(t),
            ..meta(in_port, 9, 1, Ecn::Ect0)
        };
        // flows 0 and 1 pass through port 2 without a queue: the CAM learns them
        for k in 0..16u32 {
            c.on_arrival(&pkt(k % 2, u64::from(k)));
            c.on_departure(
                k % 2,
                2,
                1,
                Bytes(1000),
                PacketKind::Data,
                u64::from(k % 2),
                Bytes::ZERO,
            );
        }
        assert_eq!(c.mechanism().as_ref().unwrap().cam(2, 1), [1, 1]);
        assert_eq!(pop(&mut c), None);
        // then the queue builds: the output queue's sample detects it (NPC 2017 §3.2 eq. 1)
        for k in 0..12u32 {
            c.on_arrival(&pkt(k % 2, 1000 + u64::from(k)));
        }
        let ev: Vec<Event> = std::iter::from_fn(|| pop(&mut c)).collect();
        // the input queues of ports 0 and 1 (switches upstream) detect it too: a CN back on
        // each, naming the root's congestion flow (1: every 8th departure was flow 1's)
        for port in [0, 1] {
            assert!(
                ev.iter().any(|e| matches!(e, Event::SendCn { port: p, cn }
                    if *p == port && cn.prio == 1 && cn.flows.as_slice() == [1])),
                "{ev:?}"
            );
        }
        let rcc_ev: Vec<&Event> = ev
            .iter()
            .filter(|e| matches!(e, Event::Rcc { .. }))
            .collect();
        assert!(
            matches!(
                rcc_ev[..],
                [
                    Event::Rcc {
                        port: 2,
                        prio: 1,
                        change: RccChange::On {
                            role: Role::Root,
                            flows,
                            ..
                        }
                    },
                    Event::Rcc {
                        port: 2,
                        prio: 1,
                        change: RccChange::Cut { .. }
                    }
                ] if flows.as_slice() == [1]
            ),
            "{rcc_ev:?}"
        );
        // a CN from port 2's neighbour: the point becomes an inner point
        let mut buf = [0u8; 64];
        let n = Cn {
            prio: 1,
            degree: 10,
            flows: FlowList::from_ids(&[0]),
        }
        .encode(&mut buf)
        .unwrap();
        assert!(c.on_control(Time::ns(2000), 2, &buf[..n]));
        assert!(!c.on_control(Time::ns(2000), 2, b"not a CN"));
        let st = c
            .mechanism()
            .as_ref()
            .unwrap()
            .point(Time::ns(2000), 2, 1)
            .unwrap();
        assert_eq!(st.role, Role::Inner);
        // the inner point holds the CN's flows (0), no longer its CAM's (1)
        let ev = pop(&mut c);
        assert!(
            matches!(ev, Some(Event::Rcc { port: 2, prio: 1, change: RccChange::Cut { degree: 10, flows, .. } })
                if flows.as_slice() == [0]),
            "{ev:?}"
        );
        // the port's scheduler reports what it holds: the output point leaves it out
        c.on_departure(0, 2, 1, Bytes(1000), PacketKind::Data, 0, Bytes(4000));
        assert_eq!(
            c.mechanism()
                .as_ref()
                .unwrap()
                .point(Time::ns(2000), 2, 1)
                .unwrap()
                .held,
            Bytes(4000)
        );
        while pop(&mut c).is_some() {}
        // the held packets leave (decision: RCC stays on while packets are held apart), and
        // hold after the CN and the last detection, RCC quits
        c.on_departure(0, 2, 1, Bytes(1000), PacketKind::Data, 0, Bytes::ZERO);
        let t = c.next_timeout().unwrap();
        c.on_timeout(t);
        while let Some(t) = c.next_timeout() {
            c.on_timeout(t);
        }
        let ev: Vec<Event> = std::iter::from_fn(|| pop(&mut c)).collect();
        assert!(ev.contains(&Event::Rcc {
            port: 2,
            prio: 1,
            change: RccChange::Off
        }));
        c.check_invariants().unwrap();
    }

    #[test]
    fn the_flat_table_is_the_switch_then_rcm_and_reaches_rcm_fields() {
        let specs = RcmNodeConfig::param_specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        let sw: Vec<&str> = SwitchConfig::param_specs().iter().map(|s| s.name).collect();
        let rcm: Vec<&str> = <RcmConfig as rdma_cc_core::param::Params>::params()
            .iter()
            .map(|p| p.spec.name)
            .collect();
        assert_eq!(names[..sw.len()], sw[..]);
        assert_eq!(names[sw.len()..], rcm[..]);
        let d = RcmNodeConfig::default();
        d.validate().unwrap();
        for (i, s) in specs.iter().enumerate() {
            assert!(d.get(i).is_some(), "{}", s.name);
        }
        assert_eq!(d.get(specs.len()), None);
        let at = |a: &str| specs.iter().position(|s| s.attr == a).unwrap();
        let mut c = d;
        c.set(at("Rcm"), &ParamValue::Bool(true)).unwrap();
        assert!(c.rcm.enabled);
        assert_eq!(
            c.set(at("RcmW"), &ParamValue::Real(2.0)).unwrap_err().field,
            "w"
        );
        c.set(at("EcmpSeed"), &ParamValue::Count(5)).unwrap();
        assert_eq!(c.switch.ecmp_seed, Some(5));
        assert_eq!(
            c.set(specs.len(), &ParamValue::Count(0)).unwrap_err().field,
            "parameter"
        );
    }
}
