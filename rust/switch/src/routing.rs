//! Shortest-path routing tables and per-flow ECMP (fabric.md "Switch").
//!
//! The host builds a [`Topology`] once from the ns-3 links, then asks [`Topology::routes`] for
//! each switch's next hops: for every destination host, the set of the switch's ports that lie
//! on a shortest path to it (all of them: equal-cost multi-path). Hosts never forward: a path
//! never passes through a host other than its destination.
//!
//! Per packet, [`ecmp_select`] picks one of those ports from a hash of the flow's 5-tuple and
//! the switch's seed, so a flow keeps its path and different switches hash differently (no
//! polarisation).

use rdma_cc_core::ConfigError;
use std::collections::VecDeque;

/// The fabric's graph: nodes (hosts and switches) and point-to-point links between ports.
#[derive(Debug, Clone, Default)]
pub struct Topology {
    /// adjacency: for each node, (local port, peer node)
    adj: Vec<Vec<(u32, u32)>>,
    is_host: Vec<bool>,
}

/// Next hops of one switch: for each destination node, the ports on shortest paths to it.
/// Stored compactly (one offsets array, one ports array): no allocation per lookup.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routes {
    offsets: Vec<u32>,
    ports: Vec<u32>,
}

impl Routes {
    /// Builds routes from `(destination node, ports)` lists; destinations not listed have no
    /// route. Used by hosts that compute routes elsewhere, and by tests.
    pub fn from_lists(n_nodes: usize, lists: &[(u32, Vec<u32>)]) -> Routes {
        let mut per: Vec<Vec<u32>> = vec![Vec::new(); n_nodes];
        for (d, ps) in lists {
            if let Some(slot) = per.get_mut(*d as usize) {
                slot.extend_from_slice(ps);
            }
        }
        Self::from_per_node(per)
    }

    fn from_per_node(per: Vec<Vec<u32>>) -> Routes {
        let mut offsets = Vec::with_capacity(per.len() + 1);
        let mut ports = Vec::new();
        offsets.push(0);
        for mut ps in per {
            ps.sort_unstable();
            ps.dedup();
            ports.extend_from_slice(&ps);
            offsets.push(ports.len() as u32);
        }
        Routes { offsets, ports }
    }

    /// The ports towards `dst` (empty when unreachable or unknown).
    #[inline]
    pub fn next_hops(&self, dst: u32) -> &[u32] {
        let d = dst as usize;
        match (self.offsets.get(d), self.offsets.get(d + 1)) {
            (Some(&a), Some(&b)) => &self.ports[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Number of destination slots (nodes) this table covers.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// Whether the table covers no node.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Topology {
    /// A topology of `n_nodes` nodes (ids `0..n_nodes`) and no links.
    pub fn new(n_nodes: usize) -> Topology {
        Topology {
            adj: vec![Vec::new(); n_nodes],
            is_host: vec![false; n_nodes],
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.adj.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.adj.is_empty()
    }

    /// Marks `node` as a host (an end point that never forwards).
    pub fn set_host(&mut self, node: u32) -> Result<(), ConfigError> {
        let n = self.len();
        let slot = self
            .is_host
            .get_mut(node as usize)
            .ok_or_else(|| ConfigError::new("node", node, format!("must be < {n}")))?;
        *slot = true;
        Ok(())
    }

    /// Adds a full-duplex link between port `pa` of node `a` and port `pb` of node `b`.
    pub fn add_link(&mut self, a: u32, pa: u32, b: u32, pb: u32) -> Result<(), ConfigError> {
        let n = self.len() as u32;
        ConfigError::check(a < n, "link.a", a, &format!("node id must be < {n}"))?;
        ConfigError::check(b < n, "link.b", b, &format!("node id must be < {n}"))?;
        ConfigError::check(a != b, "link.b", b, "a link must join two different nodes")?;
        for (node, port) in [(a, pa), (b, pb)] {
            ConfigError::check(
                !self.adj[node as usize].iter().any(|&(p, _)| p == port),
                "link.port",
                format!("{node}:{port}"),
                "port already connected",
            )?;
        }
        self.adj[a as usize].push((pa, b));
        self.adj[b as usize].push((pb, a));
        Ok(())
    }

    /// Hop distances from every node to `dst`, walking only through switches (and `dst`).
    fn distances_to(&self, dst: usize) -> Vec<u32> {
        let mut dist = vec![u32::MAX; self.len()];
        let mut q = VecDeque::new();
        dist[dst] = 0;
        q.push_back(dst);
        while let Some(v) = q.pop_front() {
            // hosts other than the destination do not forward
            if v != dst && self.is_host[v] {
                continue;
            }
            for &(_, u) in &self.adj[v] {
                let u = u as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    q.push_back(u);
                }
            }
        }
        dist
    }

    /// Shortest-path next hops of every node towards every host: `result[node]` is that node's
    /// [`Routes`]. Cost: one breadth-first search per host.
    pub fn routes(&self) -> Vec<Routes> {
        let n = self.len();
        let mut per: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); n]; n];
        for h in (0..n).filter(|&h| self.is_host[h]) {
            let dist = self.distances_to(h);
            for (node, links) in self.adj.iter().enumerate() {
                if node == h || dist[node] == u32::MAX {
                    continue;
                }
                for &(port, peer) in links {
                    if dist[peer as usize] + 1 == dist[node] {
                        per[node][h].push(port);
                    }
                }
            }
        }
        per.into_iter().map(Routes::from_per_node).collect()
    }
}

/// A flow's 5-tuple, the input of ECMP hashing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    /// Source IPv4 address.
    pub src_ip: u32,
    /// Destination IPv4 address.
    pub dst_ip: u32,
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// IP protocol number (17 for RoCEv2's UDP).
    pub protocol: u8,
}

#[inline]
fn mix64(mut x: u64) -> u64 {
    // MurmurHash3's 64-bit finaliser: every input bit affects every output bit
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// Hash of a 5-tuple under a switch's `seed`.
#[inline]
pub fn flow_hash(seed: u64, t: &FiveTuple) -> u64 {
    let a = ((t.src_ip as u64) << 32) | t.dst_ip as u64;
    let b = ((t.src_port as u64) << 24) | ((t.dst_port as u64) << 8) | t.protocol as u64;
    mix64(mix64(a ^ seed) ^ b.wrapping_add(seed.rotate_left(17)))
}

/// Picks one of `choices` for the flow `t` at a switch with `seed`; `None` if there is no
/// choice. The same flow always gets the same port at the same switch.
#[inline]
pub fn ecmp_select(seed: u64, t: &FiveTuple, choices: &[u32]) -> Option<u32> {
    match choices.len() {
        0 => None,
        1 => Some(choices[0]),
        n => Some(choices[(flow_hash(seed, t) % n as u64) as usize]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two-tier leaf-spine: `leaves` leaves with `hosts_per_leaf` hosts, `spines` spines.
    /// Node ids: hosts first, then leaves, then spines. Host port 0 → leaf; leaf ports
    /// 0..hpl to hosts, hpl.. to spines; spine port i → leaf i.
    fn leaf_spine(leaves: u32, spines: u32, hpl: u32) -> (Topology, u32) {
        let hosts = leaves * hpl;
        let mut t = Topology::new((hosts + leaves + spines) as usize);
        for h in 0..hosts {
            t.set_host(h).unwrap();
            t.add_link(h, 0, hosts + h / hpl, h % hpl).unwrap();
        }
        for l in 0..leaves {
            for s in 0..spines {
                t.add_link(hosts + l, hpl + s, hosts + leaves + s, l)
                    .unwrap();
            }
        }
        (t, hosts)
    }

    #[test]
    fn leaf_reaches_remote_hosts_over_every_spine() {
        let (t, hosts) = leaf_spine(4, 3, 2);
        let r = t.routes();
        let leaf0 = hosts as usize;
        // host 7 sits under leaf 3: leaf 0 may use all 3 spine ports (2, 3, 4)
        assert_eq!(r[leaf0].next_hops(7), &[2, 3, 4]);
        // host 1 sits under leaf 0, port 1
        assert_eq!(r[leaf0].next_hops(1), &[1]);
        // a spine goes down to the destination's leaf: spine 0 port 3 → leaf 3
        assert_eq!(r[(hosts + 4) as usize].next_hops(7), &[3]);
        // hosts have one way out
        assert_eq!(r[0].next_hops(7), &[0]);
    }

    #[test]
    fn paths_never_transit_through_hosts() {
        // s0 - h1 - s2 - h3, plus s0 - s4 - s5 - s2: the only switch path is longer
        let mut t = Topology::new(6);
        t.set_host(1).unwrap();
        t.set_host(3).unwrap();
        t.add_link(0, 0, 1, 0).unwrap();
        t.add_link(1, 1, 2, 0).unwrap();
        t.add_link(2, 1, 3, 0).unwrap();
        t.add_link(0, 1, 4, 0).unwrap();
        t.add_link(4, 1, 5, 0).unwrap();
        t.add_link(5, 1, 2, 2).unwrap();
        let r = t.routes();
        assert_eq!(r[0].next_hops(3), &[1]); // not via host 1
    }

    #[test]
    fn unreachable_and_unknown_destinations_have_no_hops() {
        let mut t = Topology::new(3);
        t.set_host(0).unwrap();
        t.set_host(2).unwrap();
        t.add_link(0, 0, 1, 0).unwrap();
        let r = t.routes();
        assert!(r[1].next_hops(2).is_empty());
        assert!(r[1].next_hops(99).is_empty());
    }

    #[test]
    fn add_link_rejects_bad_ids_and_reused_ports() {
        let mut t = Topology::new(2);
        assert_eq!(t.add_link(0, 0, 5, 0).unwrap_err().field, "link.b");
        t.add_link(0, 0, 1, 0).unwrap();
        assert_eq!(t.add_link(0, 0, 1, 1).unwrap_err().field, "link.port");
    }

    #[test]
    fn ecmp_spreads_64_flows_over_spines_within_twice_the_share() {
        let (t, hosts) = leaf_spine(4, 4, 16);
        let r = t.routes();
        let leaf0 = &r[hosts as usize];
        let mut count = [0u32; 4];
        for f in 0..64u32 {
            let tuple = FiveTuple {
                src_ip: 0x0a00_0001 + (f % 16) * 256,
                dst_ip: 0x0a00_3001 + (f / 16) * 256,
                src_port: 10_000 + f as u16,
                dst_port: 4791,
                protocol: 17,
            };
            let p = ecmp_select(0x1234, &tuple, leaf0.next_hops(hosts - 1)).unwrap();
            // the same flow always gets the same port
            assert_eq!(
                ecmp_select(0x1234, &tuple, leaf0.next_hops(hosts - 1)),
                Some(p)
            );
            count[(p - 16) as usize] += 1;
        }
        // share 16 per spine; none above 2x
        assert!(count.iter().all(|&c| c <= 32), "{count:?}");
        assert!(count.iter().all(|&c| c > 0), "{count:?}");
    }

    #[test]
    fn different_seeds_hash_differently() {
        let t = FiveTuple {
            src_ip: 1,
            dst_ip: 2,
            src_port: 3,
            dst_port: 4,
            protocol: 17,
        };
        assert_ne!(flow_hash(1, &t), flow_hash(2, &t));
    }
}
