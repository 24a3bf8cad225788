//! Property tests: any valid fabric or flow list written in the HPCC format parses back to
//! itself; one bad field is reported on its line; no text makes a parser panic; the CDF
//! sampler is monotone and stays on the segment of its draw.

use proptest::prelude::*;
use rdma_cc_core::{Bytes, Rate, Time};
use rdma_cc_workload::{parse_flows, Cdf, Topology};

/// A random connected fabric: `switches` switches in a random tree (plus a few extra
/// switch-to-switch links), `hosts` hosts each on a random switch, node ids shuffled.
#[derive(Debug, Clone)]
struct Fabric {
    nodes: u32,
    switch_ids: Vec<u32>,
    /// (a, b, rate text, rate, delay text, delay)
    links: Vec<(u32, u32, String, Rate, String, Time)>,
}

fn fabric() -> impl Strategy<Value = Fabric> {
    (1usize..8, 1usize..24)
        .prop_flat_map(|(s, h)| {
            let n = s + h;
            (
                Just((s, h)),
                Just((0..n as u32).collect::<Vec<_>>()).prop_shuffle(),
                prop::collection::vec(any::<prop::sample::Index>(), s + h),
                prop::collection::vec(
                    (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
                    0..6,
                ),
                prop::collection::vec((0usize..4, 0usize..4), n + 8),
            )
        })
        .prop_map(|((s, h), ids, parent, extra, units)| {
            const RATES: [(&str, u64); 4] = [
                ("100Gbps", 100_000_000_000),
                ("400Gb/s", 400_000_000_000),
                ("25Mbps", 25_000_000),
                ("12.5GBps", 100_000_000_000),
            ];
            const DELAYS: [(&str, u64); 4] = [
                ("1000ns", 1000),
                ("1us", 1000),
                ("0.001ms", 1000),
                ("2us", 2000),
            ];
            let sw = &ids[..s];
            let host = &ids[s..];
            let mut pairs: Vec<(u32, u32)> = Vec::new();
            for i in 1..s {
                pairs.push((sw[i], sw[parent[i].index(i)]));
            }
            for (a, b) in extra {
                let (a, b) = (sw[a.index(s)], sw[b.index(s)]);
                if a != b
                    && !pairs
                        .iter()
                        .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
                {
                    pairs.push((a, b));
                }
            }
            for (i, &hid) in host.iter().enumerate() {
                let to = sw[parent[s + i].index(s)];
                // either direction: a link's ends carry no order
                pairs.push(if i % 2 == 0 { (hid, to) } else { (to, hid) });
            }
            let links = pairs
                .iter()
                .zip(&units)
                .map(|(&(a, b), &(r, d))| {
                    (
                        a,
                        b,
                        RATES[r].0.to_string(),
                        Rate(RATES[r].1),
                        DELAYS[d].0.to_string(),
                        Time(DELAYS[d].1),
                    )
                })
                .collect();
            let _ = h;
            Fabric {
                nodes: (s + h) as u32,
                switch_ids: sw.to_vec(),
                links,
            }
        })
}

fn render(f: &Fabric) -> String {
    let mut t = format!("{} {} {}\n", f.nodes, f.switch_ids.len(), f.links.len());
    let ids: Vec<String> = f.switch_ids.iter().map(|i| i.to_string()).collect();
    t += &ids.join(" ");
    t += "\n";
    for (a, b, r, _, d, _) in &f.links {
        t += &format!("{a} {b} {r} {d} 0.000000\n");
    }
    t
}

proptest! {
    #[test]
    fn any_connected_fabric_parses_back_to_itself(f in fabric()) {
        let t = Topology::parse("t.txt", &render(&f)).unwrap();
        prop_assert_eq!(t.nodes(), f.nodes);
        prop_assert_eq!(t.switches(), &f.switch_ids[..]);
        prop_assert_eq!(t.links().len(), f.links.len());
        for (i, (l, g)) in t.links().iter().zip(&f.links).enumerate() {
            prop_assert_eq!((l.a, l.b, l.rate, l.delay, l.line), (g.0, g.1, g.3, g.5, i + 3));
        }
        prop_assert_eq!(t.host_count() + f.switch_ids.len(), f.nodes as usize);
    }

    #[test]
    fn a_bad_rate_or_delay_is_named_on_its_line(
        f in fabric(), pick in any::<prop::sample::Index>(), field in 0usize..3,
    ) {
        let i = pick.index(f.links.len());
        let mut text: Vec<String> = render(&f).lines().map(String::from).collect();
        let (a, b, r, _, d, _) = &f.links[i];
        let (line, name) = match field {
            0 => (format!("{a} {b} 100Gbs {d} 0"), "rate"),
            1 => (format!("{a} {b} {r} 1000 0"), "delay"),
            _ => (format!("{a} {b} {r} {d} 1e-6"), "error_rate"),
        };
        text[i + 2] = line;
        let e = Topology::parse("t.txt", &text.join("\n")).unwrap_err();
        prop_assert_eq!(e.line, Some(i + 3));
        prop_assert_eq!(e.error.field.as_str(), name);
    }

    #[test]
    fn flows_parse_back_to_themselves(
        f in fabric(),
        rows in prop::collection::vec(
            (any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0u8..8, any::<u16>(),
             1u64..1_000_000_000_000, 0u64..100_000_000_000_000), 1..40),
    ) {
        let t = Topology::parse("t.txt", &render(&f)).unwrap();
        let hosts: Vec<u32> = t.hosts().collect();
        prop_assume!(hosts.len() >= 2);
        let mut text = format!("{}\n", rows.len());
        let mut want = Vec::new();
        for (s, d, p, port, bytes, start_ns) in rows {
            let src = hosts[s.index(hosts.len())];
            let mut dst = hosts[d.index(hosts.len())];
            if dst == src {
                dst = *hosts.iter().find(|&&h| h != src).unwrap();
            }
            // as the HPCC generator writes it: seconds with 9 decimals
            text += &format!("{src} {dst} {p} {port} {bytes} {}.{:09}\n",
                             start_ns / 1_000_000_000, start_ns % 1_000_000_000);
            want.push((src, dst, p, port, Bytes(bytes), Time(start_ns)));
        }
        let got = parse_flows("w.flows", &text, t.host_mask()).unwrap();
        let got: Vec<_> = got.iter().map(|f| (f.src, f.dst, f.priority, f.dport, f.bytes, f.start)).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn no_text_makes_a_parser_panic(text in "[0-9a-zA-Z .\\-\n\t/]{0,200}") {
        let _ = Topology::parse("t", &text);
        let _ = parse_flows("f", &text, &[true, true, false]);
        let _ = Cdf::parse("c", &text);
    }

    #[test]
    fn sampling_is_monotone_and_stays_on_the_draws_segment(
        steps in prop::collection::vec((0u64..1_000_000, 0.0f64..30.0), 1..12),
        first in 1u64..1000, p0 in 0.0f64..50.0,
        mut us in prop::collection::vec(0.0f64..1.0, 1..50),
    ) {
        // nondecreasing points from (first, p0), the last percent set to 100
        let mut pts = vec![(first, p0)];
        for (ds, dp) in steps {
            let (s, p) = *pts.last().unwrap();
            pts.push((s + ds, (p + dp).min(100.0)));
        }
        pts.last_mut().unwrap().1 = 100.0;
        // a point at 100 ends the distribution: cut after the first one
        let end = pts.iter().position(|&(_, p)| p == 100.0).unwrap();
        pts.truncate(end + 1);
        let c = Cdf::new(&pts).unwrap();
        us.sort_by(f64::total_cmp);
        let mut prev = Bytes(0);
        for &u in &us {
            let s = c.sample(u);
            prop_assert!(s >= prev, "not monotone at u = {}", u);
            prev = s;
            prop_assert!(s.0 >= first.max(1) && s <= c.max_size());
            // on the segment whose percents hold 100 u
            let y = u * 100.0;
            if y >= pts[0].1 {
                let i = pts.iter().position(|&(_, p)| p > y).unwrap();
                prop_assert!(s.0 >= pts[i - 1].0.max(1) && s.0 <= pts[i].0.max(1),
                             "u = {} gave {:?} outside [{}, {}]", u, s, pts[i - 1].0, pts[i].0);
            } else {
                prop_assert_eq!(s.0, first.max(1));
            }
        }
    }

    #[test]
    fn sample_mean_approaches_the_mean(
        steps in prop::collection::vec((1u64..100_000, 1.0f64..30.0), 1..8),
    ) {
        let mut pts = vec![(0u64, 0.0f64)];
        for (ds, dp) in steps {
            let (s, p) = *pts.last().unwrap();
            pts.push((s + ds, (p + dp).min(100.0)));
        }
        pts.last_mut().unwrap().1 = 100.0;
        let end = pts.iter().position(|&(_, p)| p == 100.0).unwrap();
        pts.truncate(end + 1);
        let c = Cdf::new(&pts).unwrap();
        // a midpoint rule over [0, 1): exact for piecewise-linear quantiles up to truncation
        let n = 100_000;
        let mean = (0..n).map(|i| c.sample((i as f64 + 0.5) / n as f64).0 as f64).sum::<f64>() / n as f64;
        // truncation to whole bytes (and the 1-byte floor) moves the mean by at most a byte
        prop_assert!((mean - c.mean_bytes()).abs() <= 1.0 + 1e-6 * c.mean_bytes(),
                     "{} vs {}", mean, c.mean_bytes());
    }
}
