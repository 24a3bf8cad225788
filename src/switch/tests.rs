//! The switch bridge's tests.

use super::*;
use crate::params::to_ffi;
use rdma_cc_rcm::CN_MAX_BYTES;

fn params() -> Box<RedEcnParams> {
    let mut p = red_ecn_params_new();
    p.set_ecn(10_000, 40_000, 0.2);
    p.set_not_ect(NotEctMode::ThresholdDrop, 20_000).unwrap();
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
    p.set_not_ect(NotEctMode::ThresholdDrop, 0).unwrap();
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
            "Voq",
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
    // rates and delays of different lengths: named as the lists, not renamed to an attribute
    let e = switch_core_new(&small, &RATES, &DELAYS[..1], &topo, 1)
        .err()
        .expect("rates and delays of different lengths");
    assert_eq!(e.field, "links");
    let e = small
        .validate_options(&[], 0, 0, 0, &RATES, &DELAYS[..1])
        .unwrap_err();
    assert_eq!(e.field, "links");
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

#[test]
fn an_unknown_not_ect_mode_is_refused_and_sets_nothing() {
    let mut p = params();
    let e = p.set_not_ect(NotEctMode { repr: 3 }, 7).unwrap_err();
    assert_eq!(e.field, "NotEctMode");
    assert!(e.to_string().contains("unknown mode"), "{e}");
    // the ThresholdDrop at K_fs = 20000 of params() is left as it was
    let mut q = red_ecn_new(&p).unwrap();
    assert_eq!(q.on_enqueue(19_000, 1000, 0, 0.5).action, Action::Enqueue);
    assert_eq!(q.on_enqueue(20_000, 1000, 0, 0.5).action, Action::Drop);
    // each mode of the bridge is the switch crate's mode of the same name
    let specs = red_ecn_param_specs();
    let m = index_of(&specs, "NotEctMode");
    for (mode, name) in [
        (NotEctMode::Accept, "Accept"),
        (NotEctMode::ThresholdDrop, "ThresholdDrop"),
        (NotEctMode::RedDrop, "RedDrop"),
    ] {
        p.set_not_ect(mode, 5000).unwrap();
        assert_eq!(p.get(m).unwrap().text, name);
    }
}
