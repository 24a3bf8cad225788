//! Fixtures for tests of the switch core and of the mechanisms that plug into it (built for
//! this crate's tests and, through the `fixtures` feature, for other crates' tests only).

use crate::core::PacketMeta;
use crate::mmu::PortLink;
use crate::routing::{FiveTuple, Routes, Topology};
use crate::{Ecn, PacketKind};
use rdma_cc_core::{Bytes, Rate, Time};
use std::sync::Arc;

/// A data packet of 1000 B arriving on `in_port` for node `dst` at time 0 (flow = `in_port`).
pub fn meta(in_port: u32, dst: u32, prio: u8, ecn: Ecn) -> PacketMeta {
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
        kind: PacketKind::Data,
        draw: 0.5,
        flow: u64::from(in_port),
        now: Time::ZERO,
    }
}

/// Switch 0 with 3 ports to hosts 1, 2 and 9 (node ids 0..10; others unused).
pub fn routes() -> Routes {
    let mut t = Topology::new(10);
    for (port, host) in [(0, 1), (1, 2), (2, 9)] {
        t.set_host(host).unwrap();
        t.add_link(0, port, host, 0).unwrap();
    }
    Arc::new(t.routes().unwrap()).switch_routes(0).unwrap()
}

/// 10 Gb/s, 1 µs links: a lossless queue needs 2 × 1250 + 2 × 1020 + 1000 + 84 B.
pub fn links(n: usize) -> Vec<PortLink> {
    vec![
        PortLink {
            rate: Rate::gbps(10),
            delay: Time::us(1),
        };
        n
    ]
}
