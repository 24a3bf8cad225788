//! The repository's copies of the public workload files (workloads/, see its README) parse,
//! with the numbers their provenance states.

use rdma_cc_core::{Bytes, Rate, Time};
use rdma_cc_workload::{Cdf, Topology};

const FAT_TREE: &str = include_str!("../../../workloads/fat-tree-320.txt");
const FLOWS: &str = include_str!("../../../workloads/websearch-320hosts-load30-5ms.flows");

#[test]
fn fat_tree_320_is_the_hpcc_papers_topology() {
    let t = Topology::parse("fat-tree-320.txt", FAT_TREE).unwrap();
    assert_eq!(t.nodes(), 376);
    assert_eq!(t.switches().len(), 56);
    assert_eq!(t.host_count(), 320);
    assert_eq!(t.hosts().collect::<Vec<_>>(), (0..320).collect::<Vec<_>>());
    assert_eq!(t.links().len(), 480);
    // 320 host links at 100 Gb/s, 160 fabric links at 400 Gb/s, every link 1 us
    let host_links = t
        .links()
        .iter()
        .filter(|l| t.is_host(l.a) || t.is_host(l.b))
        .collect::<Vec<_>>();
    assert_eq!(host_links.len(), 320);
    assert!(host_links.iter().all(|l| l.rate == Rate::gbps(100)));
    assert!(t
        .links()
        .iter()
        .filter(|l| t.is_switch(l.a) && t.is_switch(l.b))
        .all(|l| l.rate == Rate::gbps(400)));
    assert!(t.links().iter().all(|l| l.delay == Time::us(1)));
    // line numbers: the first link is on line 3
    assert_eq!(t.links()[0].line, 3);
}

#[test]
fn websearch_flows_parse_on_fat_tree_320() {
    let t = Topology::parse("fat-tree-320.txt", FAT_TREE).unwrap();
    let f = t
        .parse_flows("websearch-320hosts-load30-5ms.flows", FLOWS)
        .unwrap();
    assert_eq!(f.len(), 3201);
    assert_eq!(
        (f[0].src, f[0].dst, f[0].priority, f[0].dport, f[0].bytes),
        (13, 6, 3, 100, Bytes(24375))
    );
    assert_eq!(f[0].start, Time(2_000_000_962));
    assert!(f.iter().all(|x| x.priority == 3 && x.dport == 100));
    // arrivals over 5 ms from t = 2 s
    let first = f.iter().map(|x| x.start).min().unwrap();
    let last = f.iter().map(|x| x.start).max().unwrap();
    assert!(
        first >= Time::ms(2000) && last < Time::ms(2005),
        "{first:?} {last:?}"
    );
    // web-search sizes: at most 30 MB
    assert!(f.iter().all(|x| x.bytes.0 >= 1 && x.bytes.0 <= 30_000_000));
}

#[test]
fn every_shipped_cdf_parses_and_samples_within_its_sizes() {
    for (name, text, max) in [
        (
            "WebSearch_distribution.txt",
            include_str!("../../../workloads/WebSearch_distribution.txt"),
            30_000_000,
        ),
        (
            "FbHdp_distribution.txt",
            include_str!("../../../workloads/FbHdp_distribution.txt"),
            10_000_000,
        ),
        (
            "DataMining_distribution.txt",
            include_str!("../../../workloads/DataMining_distribution.txt"),
            1_000_000_000,
        ),
        (
            "AliStorage2019.txt",
            include_str!("../../../workloads/AliStorage2019.txt"),
            2_000_000,
        ),
        (
            "GoogleRPC2008.txt",
            include_str!("../../../workloads/GoogleRPC2008.txt"),
            u64::MAX,
        ),
    ] {
        let c = Cdf::parse(name, text).unwrap();
        assert!(c.max_size().0 <= max, "{name}");
        let mut prev = Bytes(0);
        for i in 0..1000 {
            let s = c.sample(i as f64 / 1000.0);
            assert!(s >= prev && s <= c.max_size() && s.0 >= 1, "{name}");
            prev = s;
        }
        assert!(c.mean_bytes() > 0.0, "{name}");
    }
    // the data-mining distribution starts at 100 B with 0 %: no flow below 100 B
    let dm = Cdf::parse(
        "DataMining_distribution.txt",
        include_str!("../../../workloads/DataMining_distribution.txt"),
    )
    .unwrap();
    assert_eq!(dm.sample(0.0), Bytes(100));
}
