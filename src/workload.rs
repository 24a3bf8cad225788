//! Bridge for workload files: the HPCC simulator's topology and flow files, parsed and checked
//! by `rdma-cc-workload` from the text the C++ side read, returned as plain vectors. Errors name
//! the file, the line, the field and the value (`fat-tree.txt:17: invalid rate = 100Gbs: ...`).

use rdma_cc_core::ConfigError;
use rdma_cc_workload::{parse_flows, ParseError, Topology, MAX_NODES};

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// One link of an HPCC topology file.
    #[derive(Clone, Copy, Debug)]
    struct HpccLink {
        /// One end: a node id of the file (`src`).
        a: u32,
        /// The other end (`dst`).
        b: u32,
        /// Rate, bit/s.
        rate_bps: u64,
        /// One-way delay, ns.
        delay_ns: u64,
        /// The line of the file it is on.
        line: u64,
    }

    /// An HPCC topology file, checked (counts, ids, one link per host, no duplicate or self
    /// links, connected). Node ids `0..nodes`; the ids in `switches` are switches, every other
    /// id is a host.
    #[derive(Clone, Debug)]
    struct HpccTopology {
        /// Number of nodes.
        nodes: u32,
        /// The switch ids, in the file's order.
        switches: Vec<u32>,
        /// The links, in the file's order.
        links: Vec<HpccLink>,
    }

    /// One flow of an HPCC flow file.
    #[derive(Clone, Copy, Debug)]
    struct HpccFlow {
        /// Sending host (node id of the topology file).
        src: u32,
        /// Receiving host.
        dst: u32,
        /// Priority class the file asks for (0-7; recorded, see `rdma-cc-workload`'s `Flow`).
        priority: u8,
        /// Destination port the file gives (recorded).
        dport: u16,
        /// Message bytes (>= 1).
        bytes: u64,
        /// Start time, ns.
        start_ns: u64,
        /// The line of the file it is on.
        line: u64,
    }

    extern "Rust" {
        /// Parses and checks the text of topology file `file` (`file` names it in errors).
        fn hpcc_topology_parse(file: &str, text: &str) -> Result<HpccTopology>;
        /// Parses and checks the text of flow file `file` for `topology`: rows in file order.
        fn hpcc_flows_parse(
            file: &str,
            text: &str,
            topology: &HpccTopology,
        ) -> Result<Vec<HpccFlow>>;
    }
}

pub use ffi::{HpccFlow, HpccLink, HpccTopology};

fn hpcc_topology_parse(file: &str, text: &str) -> Result<HpccTopology, ParseError> {
    let t = Topology::parse(file, text)?;
    Ok(HpccTopology {
        nodes: t.nodes(),
        switches: t.switches().to_vec(),
        links: t
            .links()
            .iter()
            .map(|l| HpccLink {
                a: l.a,
                b: l.b,
                rate_bps: l.rate.0,
                delay_ns: l.delay.0,
                line: l.line as u64,
            })
            .collect(),
    })
}

fn hpcc_flows_parse(
    file: &str,
    text: &str,
    topology: &HpccTopology,
) -> Result<Vec<HpccFlow>, ParseError> {
    if u64::from(topology.nodes) > MAX_NODES {
        return Err(ParseError {
            file: file.to_string(),
            line: None,
            error: ConfigError::new(
                "topology nodes",
                topology.nodes,
                format!("must be at most {MAX_NODES}"),
            ),
        });
    }
    let mut is_host = vec![true; topology.nodes as usize];
    for &s in &topology.switches {
        if let Some(h) = is_host.get_mut(s as usize) {
            *h = false;
        }
    }
    Ok(parse_flows(file, text, &is_host)?
        .iter()
        .map(|f| HpccFlow {
            src: f.src,
            dst: f.dst,
            priority: f.priority,
            dport: f.dport,
            bytes: f.bytes.0,
            start_ns: f.start.0,
            line: f.line as u64,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOPO: &str = "4 1 3\n3\n0 3 100Gbps 1us 0\n1 3 25Gbps 0.002ms 0\n2 3 100Gbps 1000ns 0\n";

    #[test]
    fn topology_and_flows_cross_as_plain_vectors() {
        let t = hpcc_topology_parse("t.txt", TOPO).unwrap();
        assert_eq!((t.nodes, t.switches.clone()), (4, vec![3]));
        assert_eq!(t.links.len(), 3);
        let l = t.links[1];
        assert_eq!(
            (l.a, l.b, l.rate_bps, l.delay_ns, l.line),
            (1, 3, 25_000_000_000, 2000, 4)
        );
        let f = hpcc_flows_parse("f", "2\n0 2 3 100 5000 2.000000001\n2 1 0 7 1 0\n", &t).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(
            (
                f[0].src,
                f[0].dst,
                f[0].priority,
                f[0].dport,
                f[0].bytes,
                f[0].start_ns
            ),
            (0, 2, 3, 100, 5000, 2_000_000_001)
        );
        assert_eq!((f[1].line, f[1].priority), (3, 0));
    }

    #[test]
    fn errors_carry_file_line_field_and_value() {
        let e = hpcc_topology_parse("fat-tree.txt", &TOPO.replace("25Gbps", "25Gbs"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("fat-tree.txt:4: invalid rate = 25Gbs: "),
            "{e}"
        );
        let t = hpcc_topology_parse("t.txt", TOPO).unwrap();
        let e = hpcc_flows_parse("w.flows", "1\n0 3 3 100 5000 2\n", &t)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "w.flows:2: invalid dst = 3: is a switch of the topology, not a host"
        );
        let huge = HpccTopology {
            nodes: u32::MAX,
            switches: vec![],
            links: vec![],
        };
        assert!(hpcc_flows_parse("w", "0\n", &huge).is_err());
    }
}
