//! The k-ary fat tree as a [`Topology`].

use crate::topology::{Link, Topology, MAX_NODES};
use rdma_cc_core::{ConfigError, Rate, Time};

/// A k-ary fat tree (Al-Fares et al., "A Scalable, Commodity Data Center Network
/// Architecture", SIGCOMM 2008, section 3) with a rate and a delay per tier: `k` pods of
/// `k/2` edge and `k/2` aggregation switches (every edge switch to every aggregation switch
/// of its pod), `k/2` hosts per edge switch, `(k/2)^2` core switches, aggregation switch `j`
/// of every pod to cores `j k/2 .. (j+1) k/2 - 1`. `k^3/4` hosts, `5k^2/4` switches.
///
/// Oversubscription comes from the rates: an edge switch has `k/2` host links and `k/2`
/// uplinks, so it is `host_rate / edge_rate` : 1 oversubscribed.
///
/// [`FatTreeSpec::build`] numbers the nodes and orders the links exactly as the ns-3
/// module's `FabricHelper::FatTree` creates and connects them (the cores; then pod by pod
/// each aggregation switch followed by its core links, then each edge switch followed by its
/// aggregation links and its hosts, each host followed by its link), so the topology built
/// from it by `FabricHelper::FromTopology` has the same node ids, host order and ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FatTreeSpec {
    /// Switch radix: even, at least 2.
    pub k: u32,
    /// Rate of the host–edge links.
    pub host_rate: Rate,
    /// Rate of the edge–aggregation links.
    pub edge_rate: Rate,
    /// Rate of the aggregation–core links.
    pub core_rate: Rate,
    /// One-way delay of the host–edge links.
    pub host_delay: Time,
    /// One-way delay of the edge–aggregation links.
    pub edge_delay: Time,
    /// One-way delay of the aggregation–core links.
    pub core_delay: Time,
}

impl FatTreeSpec {
    /// Checks the spec; the error names the field (`k`, `host_rate`, ...).
    pub fn validate(&self) -> Result<(), ConfigError> {
        ConfigError::check(
            self.k >= 2 && self.k.is_multiple_of(2),
            "k",
            self.k,
            "a k-ary fat tree needs an even k, at least 2",
        )?;
        let nodes = self.nodes();
        ConfigError::check(
            nodes <= MAX_NODES,
            "k",
            self.k,
            &format!("gives {nodes} nodes: at most {MAX_NODES}"),
        )?;
        for (field, r) in [
            ("host_rate", self.host_rate),
            ("edge_rate", self.edge_rate),
            ("core_rate", self.core_rate),
        ] {
            ConfigError::check(r.0 > 0, field, "0 bit/s", "must be above 0")?;
        }
        Ok(())
    }

    /// Number of nodes, `k^3/4 + 5k^2/4`.
    fn nodes(&self) -> u64 {
        let k = u64::from(self.k);
        k * k * k / 4 + 5 * k * k / 4
    }

    /// The fat tree (checked first): node ids and link order as documented on the type; each
    /// link's `line` is the line it has in [`Topology::to_text`].
    pub fn build(&self) -> Result<Topology, ConfigError> {
        self.validate()?;
        let h = self.k / 2;
        let mut next = 0u32;
        let mut id = || {
            next += 1;
            next - 1
        };
        let mut switches = Vec::new();
        let mut links = Vec::new();
        let mut link = |a: u32, b: u32, rate: Rate, delay: Time| {
            let line = links.len() + 3;
            links.push(Link {
                a,
                b,
                rate,
                delay,
                line,
            });
        };
        let cores: Vec<u32> = (0..h * h).map(|_| id()).collect();
        switches.extend(&cores);
        for _pod in 0..self.k {
            let mut aggs = Vec::with_capacity(h as usize);
            for j in 0..h {
                let a = id();
                switches.push(a);
                aggs.push(a);
                for i in 0..h {
                    link(
                        a,
                        cores[(j * h + i) as usize],
                        self.core_rate,
                        self.core_delay,
                    );
                }
            }
            for _e in 0..h {
                let e = id();
                switches.push(e);
                for &a in &aggs {
                    link(e, a, self.edge_rate, self.edge_delay);
                }
                for _ in 0..h {
                    let host = id();
                    link(host, e, self.host_rate, self.host_delay);
                }
            }
        }
        let nodes = next;
        debug_assert_eq!(u64::from(nodes), self.nodes());
        Ok(Topology::from_parts(nodes, switches, links))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(k: u32) -> FatTreeSpec {
        FatTreeSpec {
            k,
            host_rate: Rate::gbps(100),
            edge_rate: Rate::gbps(25),
            core_rate: Rate::gbps(40),
            host_delay: Time::us(1),
            edge_delay: Time::ns(500),
            core_delay: Time::us(2),
        }
    }

    #[test]
    fn k4_has_16_hosts_20_switches_48_links_in_fabric_helper_order() {
        let t = spec(4).build().unwrap();
        assert_eq!(
            (t.nodes(), t.switches().len(), t.links().len()),
            (36, 20, 48)
        );
        assert_eq!(t.host_count(), 16);
        // cores 0-3; pod 0: aggregation 4 (to cores 0, 1), 5 (to 2, 3), edge 6 with hosts 7, 8,
        // edge 9 with hosts 10, 11; pod 1 from 12
        assert_eq!(&t.switches()[..7], &[0, 1, 2, 3, 4, 5, 6]);
        let ends: Vec<(u32, u32)> = t.links().iter().take(10).map(|l| (l.a, l.b)).collect();
        assert_eq!(
            ends,
            vec![
                (4, 0),
                (4, 1),
                (5, 2),
                (5, 3),
                (6, 4),
                (6, 5),
                (7, 6),
                (8, 6),
                (9, 4),
                (9, 5)
            ]
        );
        assert_eq!(t.hosts().take(4).collect::<Vec<_>>(), vec![7, 8, 10, 11]);
        // each tier its own rate and delay
        let l = t.links();
        assert_eq!((l[0].rate, l[0].delay), (Rate::gbps(40), Time::us(2)));
        assert_eq!((l[4].rate, l[4].delay), (Rate::gbps(25), Time::ns(500)));
        assert_eq!((l[6].rate, l[6].delay), (Rate::gbps(100), Time::us(1)));
        // every switch has k ports
        let mut ports = [0; 36];
        for l in t.links() {
            ports[l.a as usize] += 1;
            ports[l.b as usize] += 1;
        }
        assert!(t.switches().iter().all(|&s| ports[s as usize] == 4));
    }

    #[test]
    fn written_out_it_parses_back_to_itself() {
        for k in [2, 4, 6] {
            let t = spec(k).build().unwrap();
            assert_eq!(Topology::parse("ft.txt", &t.to_text()).unwrap(), t);
        }
        let t = spec(12).build().unwrap();
        assert_eq!((t.host_count(), t.switches().len()), (432, 180));
    }

    #[test]
    fn errors_name_the_field() {
        for k in [0, 1, 3, 7] {
            assert_eq!(spec(k).build().unwrap_err().field, "k");
        }
        assert_eq!(spec(1000).build().unwrap_err().field, "k");
        let mut s = spec(4);
        s.edge_rate = Rate(0);
        assert_eq!(s.build().unwrap_err().field, "edge_rate");
    }
}
