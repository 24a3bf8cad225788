//! The HPCC simulator's topology file.

use crate::error::ParseError;
use crate::text::{parse_data_rate, parse_delay, parse_digits, records, DELAY_RULE, RATE_RULE};
use rdma_cc_core::param::parse_real;
use rdma_cc_core::{Rate, Time};
use std::collections::HashMap;

/// Most nodes a topology may have: 2^24, as the ns-3 module's addresses encode a node id in
/// 24 bits.
pub const MAX_NODES: u64 = 1 << 24;

/// One link of a [`Topology`]: its two ends (node ids of the file), rate and one-way delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    /// One end (the file's `src`).
    pub a: u32,
    /// The other end (the file's `dst`); links are full duplex, the order carries no meaning.
    pub b: u32,
    /// Rate of each direction, bit/s.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
    /// The line of the file it is on.
    pub line: usize,
}

/// A fabric as the HPCC simulator's topology file describes it, checked whole.
///
/// Format (whitespace-separated; blank lines are skipped, line numbers still count them):
///
/// ```text
/// NODES SWITCHES LINKS
/// SWITCH_ID ...                       (SWITCHES ids)
/// SRC DST RATE DELAY ERROR_RATE       (LINKS lines)
/// ```
///
/// Nodes are numbered `0..NODES`; the ids on line 2 are the switches, every other id is a
/// host. `RATE` is an ns-3 `DataRate` string (`100Gbps`, [`crate::parse_data_rate`]), `DELAY` a
/// duration with its unit (`1000ns`, `1us`, `0.001ms`, [`crate::parse_delay`]), `ERROR_RATE`
/// the link's packet error rate, which must be 0: links do not lose packets here — the fabric
/// is lossless (PFC) or lossy (switch drops) by design of the run, never by a random error
/// model.
///
/// Checked: the counts match the lines; at least one switch and one host, at most
/// [`MAX_NODES`] nodes; switch ids in range and distinct; link ends in range, distinct (no
/// self-link), no two links between the same nodes; every host has exactly one link; the
/// graph is connected (every node reaches every host). Every error names the line, the field
/// and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    nodes: u32,
    switches: Vec<u32>,
    is_host: Vec<bool>,
    links: Vec<Link>,
}

impl Topology {
    /// Parses and checks the text of topology file `file` (the name is used in messages only).
    pub fn parse(file: &str, text: &str) -> Result<Topology, ParseError> {
        let mut lines = records(text);
        let err = |line: usize, field: &str, value: &dyn std::fmt::Display, rule: &str| {
            ParseError::at(file, line, field, value, rule)
        };

        // line 1: NODES SWITCHES LINKS
        let Some((l1, head)) = lines.next() else {
            return Err(ParseError::whole(
                file,
                "file",
                "\"\"",
                "is empty: the first line must be `nodes switches links`",
            ));
        };
        if head.len() != 3 {
            return Err(err(
                l1,
                "header",
                &head.join(" "),
                "must be 3 numbers: nodes switches links",
            ));
        }
        let count = |i: usize, name: &str| {
            parse_digits(head[i])
                .ok_or_else(|| err(l1, name, &head[i], "must be a whole number (digits only)"))
        };
        let nodes = count(0, "nodes")?;
        let switches = count(1, "switches")?;
        let links = count(2, "links")?;
        if nodes > MAX_NODES {
            return Err(err(
                l1,
                "nodes",
                &nodes,
                &format!("must be at most {MAX_NODES} (node ids are addresses of 24 bits)"),
            ));
        }
        if switches == 0 {
            return Err(err(l1, "switches", &0, "must be at least 1"));
        }
        if switches >= nodes {
            return Err(err(
                l1,
                "switches",
                &switches,
                &format!("must be below nodes ({nodes}): at least one node must be a host"),
            ));
        }
        let nodes = nodes as u32; // <= 2^24

        // line 2: the switch ids
        let Some((l2, ids)) = lines.next() else {
            return Err(err(
                l1,
                "switches",
                &switches,
                "the file ends before the line of switch ids",
            ));
        };
        if ids.len() as u64 != switches {
            return Err(err(
                l2,
                "switch ids",
                &format!("{} ids", ids.len()),
                &format!("must be the {switches} ids line {l1} declares"),
            ));
        }
        let mut is_host = vec![true; nodes as usize];
        let mut switch_ids = Vec::with_capacity(ids.len());
        for id in ids {
            let s = node_id(id, nodes).ok_or_else(|| {
                err(
                    l2,
                    "switch id",
                    &id,
                    &format!("must be a node id in [0, {}]", nodes - 1),
                )
            })?;
            if !is_host[s as usize] {
                return Err(err(l2, "switch id", &id, "is listed twice"));
            }
            is_host[s as usize] = false;
            switch_ids.push(s);
        }

        // the links
        let mut out: Vec<Link> = Vec::new();
        let mut pairs: HashMap<(u32, u32), usize> = HashMap::new();
        let mut host_link: Vec<Option<usize>> = vec![None; nodes as usize];
        for (l, f) in lines {
            if out.len() as u64 == links {
                return Err(err(
                    l,
                    "links",
                    &links,
                    &format!(
                        "line {l1} declares {links} links but the file has more link lines, \
                         from this one on"
                    ),
                ));
            }
            if f.len() != 5 {
                return Err(err(
                    l,
                    "link",
                    &f.join(" "),
                    "must be 5 fields: src dst rate delay error_rate",
                ));
            }
            let end = |i: usize, name: &str| {
                node_id(f[i], nodes).ok_or_else(|| {
                    err(
                        l,
                        name,
                        &f[i],
                        &format!("must be a node id in [0, {}]", nodes - 1),
                    )
                })
            };
            let a = end(0, "src")?;
            let b = end(1, "dst")?;
            if a == b {
                return Err(err(l, "dst", &b, "must differ from src (no self-link)"));
            }
            let rate = parse_data_rate(f[2]).ok_or_else(|| err(l, "rate", &f[2], RATE_RULE))?;
            let delay = parse_delay(f[3]).ok_or_else(|| err(l, "delay", &f[3], DELAY_RULE))?;
            match parse_real(f[4]) {
                Some(0.0) => {}
                Some(_) => {
                    return Err(err(
                        l,
                        "error_rate",
                        &f[4],
                        "must be 0: links do not lose packets here (the fabric is lossless \
                         with PFC or drops at switch queues, by design of the run); a random \
                         link error model is not supported",
                    ))
                }
                None => {
                    return Err(err(
                        l,
                        "error_rate",
                        &f[4],
                        "must be a number (and 0: link error models are not supported)",
                    ))
                }
            }
            if let Some(first) = pairs.insert((a.min(b), a.max(b)), l) {
                return Err(err(
                    l,
                    "link",
                    &format!("{a} {b}"),
                    &format!(
                        "duplicates the link of line {first}: at most one link joins two nodes"
                    ),
                ));
            }
            for n in [a, b] {
                if is_host[n as usize] {
                    if let Some(first) = host_link[n as usize] {
                        return Err(err(
                            l,
                            if n == a { "src" } else { "dst" },
                            &n,
                            &format!(
                                "host {n} already has its link (line {first}): a host has \
                                 exactly one link"
                            ),
                        ));
                    }
                    host_link[n as usize] = Some(l);
                }
            }
            out.push(Link {
                a,
                b,
                rate,
                delay,
                line: l,
            });
        }
        if (out.len() as u64) < links {
            return Err(err(
                l1,
                "links",
                &links,
                &format!("the file has only {} link lines", out.len()),
            ));
        }
        if let Some(h) =
            (0..nodes).find(|&n| is_host[n as usize] && host_link[n as usize].is_none())
        {
            return Err(ParseError::whole(
                file,
                "host",
                h,
                "has no link: every host (a node id not on the switch line) has exactly one link",
            ));
        }
        let topo = Topology {
            nodes,
            switches: switch_ids,
            is_host,
            links: out,
        };
        topo.check_connected(file)?;
        Ok(topo)
    }

    /// Every node reaches the first host (so every host reaches every other).
    fn check_connected(&self, file: &str) -> Result<(), ParseError> {
        let n = self.nodes as usize;
        let mut adj: Vec<Vec<u32>> = vec![Vec::new(); n];
        for l in &self.links {
            adj[l.a as usize].push(l.b);
            adj[l.b as usize].push(l.a);
        }
        let Some(first) = self.hosts().next() else {
            return Ok(()); // parse guarantees a host
        };
        let mut seen = vec![false; n];
        let mut stack = vec![first];
        seen[first as usize] = true;
        while let Some(v) = stack.pop() {
            for &w in &adj[v as usize] {
                if !seen[w as usize] {
                    seen[w as usize] = true;
                    stack.push(w);
                }
            }
        }
        // report a host if one is cut off, else the switch
        let cut = self
            .hosts()
            .find(|&h| !seen[h as usize])
            .or_else(|| (0..self.nodes).find(|&v| !seen[v as usize]));
        match cut {
            None => Ok(()),
            Some(v) => Err(ParseError::whole(
                file,
                if self.is_host(v) { "host" } else { "switch" },
                v,
                format!(
                    "is not connected to host {first}: every host must reach every other \
                     (the graph must be connected)"
                ),
            )),
        }
    }

    /// A topology made in this crate (valid by construction: one link per host, connected):
    /// `nodes` ids, the switch ids, the links.
    pub(crate) fn from_parts(nodes: u32, switches: Vec<u32>, links: Vec<Link>) -> Topology {
        let mut is_host = vec![true; nodes as usize];
        for &s in &switches {
            if let Some(h) = is_host.get_mut(s as usize) {
                *h = false;
            }
        }
        Topology {
            nodes,
            switches,
            is_host,
            links,
        }
    }

    /// The topology in the file format [`Topology::parse`] reads (and the HPCC simulator):
    /// rates in bit/s (`100000000000bps`), delays in ns (`1000ns`), error rate 0. Parsing the
    /// text gives this topology back, its links' `line`s being their lines in the text.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{} {} {}\n",
            self.nodes,
            self.switches.len(),
            self.links.len()
        );
        let ids: Vec<String> = self.switches.iter().map(|i| i.to_string()).collect();
        s.push_str(&ids.join(" "));
        s.push('\n');
        for l in &self.links {
            s.push_str(&format!(
                "{} {} {}bps {}ns 0\n",
                l.a, l.b, l.rate.0, l.delay.0
            ));
        }
        s
    }

    /// Number of nodes (ids `0..nodes`).
    pub fn nodes(&self) -> u32 {
        self.nodes
    }

    /// The switch ids, in the order of the file's second line.
    pub fn switches(&self) -> &[u32] {
        &self.switches
    }

    /// The links, in file order.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// Whether node `id` is a host (in range and not a switch).
    pub fn is_host(&self, id: u32) -> bool {
        self.is_host.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether node `id` is a switch.
    pub fn is_switch(&self, id: u32) -> bool {
        id < self.nodes && !self.is_host(id)
    }

    /// `host_mask()[id]`: whether node `id` is a host (one entry per node), as
    /// [`crate::parse_flows`] takes it.
    pub fn host_mask(&self) -> &[bool] {
        &self.is_host
    }

    /// The host ids, ascending.
    pub fn hosts(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.nodes).filter(|&v| self.is_host[v as usize])
    }

    /// Number of hosts.
    pub fn host_count(&self) -> usize {
        self.nodes as usize - self.switches.len()
    }

    /// Parses flow file `file` (text `text`) for this topology: see [`crate::parse_flows`].
    pub fn parse_flows(&self, file: &str, text: &str) -> Result<Vec<crate::Flow>, ParseError> {
        crate::parse_flows(file, text, &self.is_host)
    }
}

/// A node id below `nodes`, digits only.
fn node_id(text: &str, nodes: u32) -> Option<u32> {
    parse_digits(text)
        .filter(|&v| v < u64::from(nodes))
        .map(|v| v as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two switches joined by a 400 Gb/s link, hosts 0, 1 on switch 4 and 2, 3 on switch 5.
    const SMALL: &str = "6 2 5\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1us 0\n\
                         2 5 100Gbps 0.001ms 0.000000\n3 5 100Gbps 1000ns 0\n4 5 400Gbps 2us 0\n";

    fn parse(text: &str) -> Result<Topology, String> {
        Topology::parse("t.txt", text).map_err(|e| e.to_string())
    }

    /// The text of SMALL with line `n` (1-based) replaced.
    fn with_line(n: usize, line: &str) -> String {
        let mut v: Vec<&str> = SMALL.lines().collect();
        v[n - 1] = line;
        v.join("\n")
    }

    #[test]
    fn a_small_fabric_parses_with_its_rates_and_delays() {
        let t = parse(SMALL).unwrap();
        assert_eq!(t.nodes(), 6);
        assert_eq!(t.switches(), &[4, 5]);
        assert_eq!(t.hosts().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(t.host_count(), 4);
        assert!(t.is_switch(4) && !t.is_switch(0) && !t.is_switch(6));
        assert!(t.is_host(3) && !t.is_host(4) && !t.is_host(99));
        assert_eq!(t.links().len(), 5);
        assert_eq!(
            t.links()[4],
            Link {
                a: 4,
                b: 5,
                rate: Rate::gbps(400),
                delay: Time::us(2),
                line: 7
            }
        );
        assert!(t.links()[..4]
            .iter()
            .all(|l| l.rate == Rate::gbps(100) && l.delay == Time::us(1)));
    }

    #[test]
    fn blank_lines_and_crlf_are_accepted_and_lines_still_counted() {
        let text = format!("\n{}", SMALL.replace('\n', "\r\n\r\n"));
        let t = parse(&text).unwrap();
        assert_eq!(t.links()[0].line, 6);
    }

    #[test]
    fn header_errors_name_the_field() {
        assert_eq!(
            parse("").unwrap_err(),
            "t.txt: invalid file = \"\": is empty: the first line must be `nodes switches links`"
        );
        assert!(parse("6 2\n")
            .unwrap_err()
            .starts_with("t.txt:1: invalid header = 6 2:"));
        assert!(parse("6 x 5\n")
            .unwrap_err()
            .starts_with("t.txt:1: invalid switches = x: must be a whole number"));
        assert!(parse("16777217 2 5\n")
            .unwrap_err()
            .starts_with("t.txt:1: invalid nodes = 16777217: must be at most 16777216"));
        assert!(parse("6 0 5\n")
            .unwrap_err()
            .starts_with("t.txt:1: invalid switches = 0"));
        assert!(parse("6 6 5\n")
            .unwrap_err()
            .starts_with("t.txt:1: invalid switches = 6: must be below nodes (6)"));
        assert!(parse("6 2 5\n")
            .unwrap_err()
            .contains("ends before the line of switch ids"));
    }

    #[test]
    fn switch_line_errors() {
        assert_eq!(
            parse(&with_line(2, "4")).unwrap_err(),
            "t.txt:2: invalid switch ids = 1 ids: must be the 2 ids line 1 declares"
        );
        assert_eq!(
            parse(&with_line(2, "4 6")).unwrap_err(),
            "t.txt:2: invalid switch id = 6: must be a node id in [0, 5]"
        );
        assert_eq!(
            parse(&with_line(2, "4 4")).unwrap_err(),
            "t.txt:2: invalid switch id = 4: is listed twice"
        );
    }

    #[test]
    fn link_field_errors_name_line_field_and_value() {
        assert_eq!(
            parse(&with_line(3, "0 4 100Gbs 1000ns 0")).unwrap_err(),
            format!("t.txt:3: invalid rate = 100Gbs: {RATE_RULE}")
        );
        assert_eq!(
            parse(&with_line(3, "0 4 100Gbps 1000 0")).unwrap_err(),
            format!("t.txt:3: invalid delay = 1000: {DELAY_RULE}")
        );
        assert!(parse(&with_line(3, "0 4 100Gbps 1000ns 0.01"))
            .unwrap_err()
            .starts_with("t.txt:3: invalid error_rate = 0.01: must be 0: links do not lose"));
        assert!(parse(&with_line(3, "0 4 100Gbps 1000ns zero"))
            .unwrap_err()
            .starts_with("t.txt:3: invalid error_rate = zero: must be a number"));
        assert_eq!(
            parse(&with_line(3, "0 4 100Gbps 1000ns")).unwrap_err(),
            "t.txt:3: invalid link = 0 4 100Gbps 1000ns: must be 5 fields: src dst rate delay \
             error_rate"
        );
        assert_eq!(
            parse(&with_line(3, "0 9 100Gbps 1000ns 0")).unwrap_err(),
            "t.txt:3: invalid dst = 9: must be a node id in [0, 5]"
        );
        assert_eq!(
            parse(&with_line(3, "-1 4 100Gbps 1000ns 0")).unwrap_err(),
            "t.txt:3: invalid src = -1: must be a node id in [0, 5]"
        );
        assert_eq!(
            parse(&with_line(7, "4 4 400Gbps 2us 0")).unwrap_err(),
            "t.txt:7: invalid dst = 4: must differ from src (no self-link)"
        );
    }

    #[test]
    fn structure_errors() {
        // a duplicate (either direction)
        assert_eq!(
            parse(&with_line(7, "4 0 400Gbps 2us 0")).unwrap_err(),
            "t.txt:7: invalid link = 4 0: duplicates the link of line 3: at most one link \
             joins two nodes"
        );
        // a host with two links
        assert_eq!(
            parse(&with_line(7, "0 5 400Gbps 2us 0")).unwrap_err(),
            "t.txt:7: invalid src = 0: host 0 already has its link (line 3): a host has \
             exactly one link"
        );
        // a host with none (host 3's link goes to host 2's... replaced by a switch link)
        let t = "6 2 5\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 5 100Gbps 1us 0\n\
                 4 5 400Gbps 1us 0\n";
        assert_eq!(
            parse(t).unwrap_err(),
            "t.txt:1: invalid links = 5: the file has only 4 link lines"
        );
        let t = t.replace("6 2 5", "6 2 4");
        assert_eq!(
            parse(&t).unwrap_err(),
            "t.txt: invalid host = 3: has no link: every host (a node id not on the switch \
             line) has exactly one link"
        );
        // one more line than declared
        let t = format!("{SMALL}3 4 100Gbps 1us 0\n");
        assert_eq!(
            parse(&t).unwrap_err(),
            "t.txt:8: invalid links = 5: line 1 declares 5 links but the file has more link \
             lines, from this one on"
        );
        // two islands: no link between the switches
        let t = "6 2 4\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 5 100Gbps 1us 0\n\
                 3 5 100Gbps 1us 0\n";
        assert_eq!(
            parse(t).unwrap_err(),
            "t.txt: invalid host = 2: is not connected to host 0: every host must reach every \
             other (the graph must be connected)"
        );
        // a switch on its own
        let t = "7 3 5\n4 5 6\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n2 5 100Gbps 1us 0\n\
                 3 5 100Gbps 1us 0\n4 5 1Gbps 1us 0\n";
        assert!(parse(t)
            .unwrap_err()
            .starts_with("t.txt: invalid switch = 6: is not connected to host 0"));
    }

    #[test]
    fn flows_parse_against_the_topology() {
        let t = parse(SMALL).unwrap();
        let f = t.parse_flows("f", "1\n0 3 3 100 1000 2.5\n").unwrap();
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].src, f[0].dst), (0, 3));
        assert!(t.parse_flows("f", "1\n0 4 3 100 1000 2.5\n").is_err());
    }
}
