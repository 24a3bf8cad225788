//! Bridge for workloads: the HPCC simulator's topology and flow files, parsed and checked by
//! `rdma-cc-workload` from the text the C++ side read, returned as plain vectors (errors name
//! the file, the line, the field and the value: `fat-tree.txt:17: invalid rate = 100Gbs: ...`);
//! the k-ary fat tree as such a topology; the Poisson flow generator from a flow-size CDF file;
//! and the slowdown table per flow-size bucket.

use cxx::CxxString;
use rdma_cc_core::{ConfigError, Rate, Time};
use rdma_cc_workload::{
    parse_flows_on, Cdf, FatTreeSpec, GeneratorConfig, ParseError, Pattern, PatternSettings,
    TextInput, Topology, WorkloadError,
};
use std::io::Read;

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
        /// Priority class the file asks for (0-7): the flow's data priority.
        priority: u8,
        /// Destination port the file gives (recorded).
        dport: u16,
        /// Message bytes (>= 1).
        bytes: u64,
        /// Start time, ns.
        start_ns: u64,
        /// The line of the file it is on.
        line: u64,
        /// The RDMA operation (`rdma_cc_core::Operation` code: 0 WRITE, 1 SEND, 2 READ), the
        /// optional seventh column.
        op: u8,
    }

    /// A k-ary fat tree with a rate and delay per tier (`rdma_cc_workload::FatTreeSpec`).
    #[derive(Clone, Copy, Debug)]
    struct FatTreeParams {
        /// Switch radix (even, >= 2).
        k: u32,
        /// Host-edge links, bit/s.
        host_rate_bps: u64,
        /// Edge-aggregation links, bit/s.
        edge_rate_bps: u64,
        /// Aggregation-core links, bit/s.
        core_rate_bps: u64,
        /// Host-edge links' one-way delay, ns.
        host_delay_ns: u64,
        /// Edge-aggregation links' one-way delay, ns.
        edge_delay_ns: u64,
        /// Aggregation-core links' one-way delay, ns.
        core_delay_ns: u64,
    }

    /// The Poisson flow generator's settings (`rdma_cc_workload::GeneratorConfig`).
    #[derive(Clone, Debug)]
    struct GeneratorParams {
        /// `uniform`, `group`, `hotspot` or `incast`.
        pattern: String,
        /// Offered payload load, a fraction of a host's link rate.
        load: f64,
        /// First arrival time, ns.
        start_ns: u64,
        /// Arrivals in [start, start + duration), ns.
        duration_ns: u64,
        /// Seed of the generator's random numbers.
        seed: u64,
        /// `group`: hosts per group.
        group: u32,
        /// `hotspot`: share of the flows to the hot hosts.
        hotspot_traffic: f64,
        /// `hotspot`: share of the hosts that are hot.
        hotspot_hosts: f64,
        /// `incast`: number of senders.
        incast_senders: u32,
        /// Probability that a flow is a READ (`--readFraction`), in [0, 1].
        read_fraction: f64,
    }

    /// One generated flow, between host indexes.
    #[derive(Clone, Copy, Debug)]
    struct GenFlow {
        /// Sending host index.
        src: u32,
        /// Receiving host index.
        dst: u32,
        /// Message bytes (>= 1).
        bytes: u64,
        /// Start time, ns.
        start_ns: u64,
        /// The RDMA operation (`rdma_cc_core::Operation` code: 0 WRITE, 2 READ).
        op: u8,
    }

    /// A generated workload.
    #[derive(Clone, Debug)]
    struct GenWorkload {
        /// The flows, by start time.
        flows: Vec<GenFlow>,
        /// `hotspot`: the hot hosts (indexes), ascending.
        hot_hosts: Vec<u32>,
        /// `incast`: the senders, ascending.
        incast_senders: Vec<u32>,
        /// `incast`: the receiver (meaningful when `has_incast_receiver`).
        incast_receiver: u32,
        /// Whether the pattern chose a receiver (`incast`).
        has_incast_receiver: bool,
        /// The CDF's mean size the arrival rates follow, bytes.
        mean_bytes: f64,
        /// The realised load: payload bits / (duration x the capacity the load refers to).
        offered_load: f64,
    }

    /// The slowdowns of one flow-size bucket (`rdma_cc_workload::BucketStats`).
    #[derive(Clone, Debug)]
    struct SlowdownBucket {
        /// Label, e.g. `10KB-100KB`.
        label: String,
        /// Smallest size, bytes.
        min_bytes: u64,
        /// First size above the bucket (u64::MAX: open).
        max_bytes: u64,
        /// Finished flows.
        flows: u64,
        /// Unfinished flows.
        unfinished: u64,
        /// Mean slowdown.
        avg: f64,
        /// Median (nearest rank).
        p50: f64,
        /// 95th percentile.
        p95: f64,
        /// 99th percentile.
        p99: f64,
        /// Largest.
        max: f64,
    }

    /// Mean, percentiles (nearest rank) and largest of a sample
    /// (`rdma_cc_workload::Summary`); zeros without samples.
    #[derive(Clone, Copy, Debug, Default)]
    struct SampleSummary {
        /// Samples.
        n: u64,
        /// Mean.
        avg: f64,
        /// Median (nearest rank: the `ceil(q n)`-th smallest).
        p50: f64,
        /// 95th percentile.
        p95: f64,
        /// 99th percentile.
        p99: f64,
        /// Largest.
        max: f64,
    }

    extern "Rust" {
        /// The mean, nearest-rank percentiles and largest of `values` (any order), as every
        /// example's summary reports FCTs and slowdowns.
        fn sample_summary(values: &[f64]) -> SampleSummary;
        /// The `percent`-th percentile by floor rank (0-based rank `min(n - 1, floor(n ·
        /// percent / 100))`) of samples where `values[i]` (ascending, distinct) occurred
        /// `counts[i]` times: a sampler's histogram. 0 without samples.
        fn histogram_percentile(values: &[u64], counts: &[u64], percent: u64) -> u64;
        /// The size class of a flow of `size` bytes (RCM's FCT figure): 0 mice (< 1 MB), 1
        /// medium (1-10 MB, both ends in), 2 elephants (> 10 MB).
        fn size_class(size: u64) -> usize;
        /// Size class `index`'s short name (`mice`, `medium`, `elephants`; JSON keys) or, with
        /// `label`, its table label (`mice <1MB`); "" for no class.
        fn size_class_name(index: usize, label: bool) -> &'static str;
        /// The number of size classes (3).
        fn size_classes() -> usize;

        /// The text of the file at `path` (bytes, as the user wrote it) given as option
        /// `option` (`--topo`): read whole, at most `MAX_TEXT_BYTES`, and checked to be UTF-8
        /// text without a byte-order mark or NUL byte. Errors, one line each, name the option
        /// and the path (`invalid --topo = x: is a directory, not a file`: missing, unreadable,
        /// a directory, too large, changed while read, a path that is not UTF-8) or the file,
        /// line and byte (`x:3: invalid text = byte 0xFF at column 7: ...`).
        fn read_text_file(path: &CxxString, option: &str) -> Result<String>;
        /// ldcp-churn, before its short flows are drawn: `long_flows` long flows and short flows
        /// arriving for `churn_ns` (`churn` as written) at `load` of `capacity_bps` (payload
        /// bit/s) with a mean size of `mean_bytes`. Refuses a run of no flow at all (`--long`
        /// 0 and no arrivals) and an expected count above the workload crate's
        /// `MAX_EXPECTED_FLOWS`, naming the option to change and the estimate.
        fn churn_arrivals_check(
            long_flows: u64,
            load: f64,
            capacity_bps: f64,
            mean_bytes: f64,
            churn_ns: u64,
            churn: &str,
        ) -> Result<()>;
        /// ldcp-churn, after drawing: refuses a run of no flow (`--long` 0 and no short flow
        /// drawn), naming `--churn` (`churn` as written).
        fn churn_flows_check(long_flows: u64, short_flows: u64, churn: &str) -> Result<()>;
        /// Parses and checks the text of topology file `file` (`file` names it in errors).
        fn hpcc_topology_parse(file: &str, text: &str) -> Result<HpccTopology>;
        /// The k-ary fat tree as a topology (node ids and link order as FabricHelper::FatTree
        /// builds it); errors name fat-tree-workload's options (`--k`).
        fn fat_tree_topology(params: &FatTreeParams) -> Result<HpccTopology>;
        /// Parses and checks flow-size CDF file `file`; returns its mean size (bytes).
        fn cdf_mean_bytes(file: &str, text: &str) -> Result<f64>;
        /// `n` message sizes drawn from CDF file `file` (text `text`) with the generator's
        /// random numbers seeded by `seed` (the same seed gives the same sizes).
        fn cdf_sample_sizes(file: &str, text: &str, n: u64, seed: u64) -> Result<Vec<u64>>;
        /// Generates Poisson flows with sizes from CDF file `file` (text `text`, checked with
        /// cdf_mean_bytes first) for hosts of link rates `host_rates_bps` (index = host);
        /// errors name fat-tree-workload's options (`invalid --load = ...`).
        fn generate_flows(
            file: &str,
            text: &str,
            params: &GeneratorParams,
            host_rates_bps: &[u64],
        ) -> Result<GenWorkload>;
        /// The slowdown statistics per flow-size bucket (< 10 KB, 10-100 KB, 100 KB-1 MB,
        /// 1-10 MB, >= 10 MB) of flows of `sizes` and `slowdowns` (NaN: unfinished).
        fn slowdown_buckets(sizes: &[u64], slowdowns: &[f64]) -> Vec<SlowdownBucket>;
        /// Parses and checks the text of flow file `file` for `topology`: rows in file order.
        fn hpcc_flows_parse(
            file: &str,
            text: &str,
            topology: &HpccTopology,
        ) -> Result<Vec<HpccFlow>>;
    }
}

fn read_text_file(path: &CxxString, option: &str) -> Result<String, WorkloadError> {
    read_text(path.as_bytes(), option)
}

/// [`read_text_file`] of a path given as bytes: the file read here, the rules
/// ([`TextInput`]) in `rdma-cc-workload`.
pub(crate) fn read_text(path: &[u8], option: &str) -> Result<String, WorkloadError> {
    use std::os::unix::ffi::OsStrExt;
    let input = TextInput::new(path, option)?;
    let io = |e: std::io::Error| input.io_error(e.kind(), &e.to_string());
    let os = std::ffi::OsStr::from_bytes(path);
    let meta = std::fs::metadata(os).map_err(io)?;
    input.check_not_dir(meta.is_dir())?;
    let file = std::fs::File::open(os).map_err(io)?;
    let regular = meta.is_file();
    let cap = input.read_limit(regular, meta.len())?;
    let mut bytes = Vec::new();
    file.take(cap).read_to_end(&mut bytes).map_err(io)?;
    let read = bytes.len() as u64;
    let now = std::fs::metadata(os).map(|m| m.len()).unwrap_or(read);
    input.check_read(regular, meta.len(), read, now)?;
    input.decode(&bytes)
}

fn churn_arrivals_check(
    long_flows: u64,
    load: f64,
    capacity_bps: f64,
    mean_bytes: f64,
    churn_ns: u64,
    churn: &str,
) -> Result<(), ConfigError> {
    rdma_cc_workload::churn_arrivals_check(
        long_flows,
        load,
        capacity_bps,
        mean_bytes,
        Time(churn_ns),
        churn,
    )
}

fn churn_flows_check(long_flows: u64, short_flows: u64, churn: &str) -> Result<(), ConfigError> {
    rdma_cc_workload::churn_flows_check(long_flows, short_flows, churn)
}

pub use ffi::{
    FatTreeParams, GenFlow, GenWorkload, GeneratorParams, HpccFlow, HpccLink, HpccTopology,
    SampleSummary, SlowdownBucket,
};

fn hpcc_topology_parse(file: &str, text: &str) -> Result<HpccTopology, ParseError> {
    Ok(to_ffi(&Topology::parse(file, text)?))
}

fn to_ffi(t: &Topology) -> HpccTopology {
    HpccTopology {
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
    }
}

/// `err` with its field renamed to the command-line option `--NAME` it comes from.
fn as_option(mut err: ConfigError, name: &str) -> ConfigError {
    err.field = format!("--{name}");
    err
}

fn fat_tree_topology(p: &FatTreeParams) -> Result<HpccTopology, ConfigError> {
    let spec = FatTreeSpec {
        k: p.k,
        host_rate: Rate(p.host_rate_bps),
        edge_rate: Rate(p.edge_rate_bps),
        core_rate: Rate(p.core_rate_bps),
        host_delay: Time(p.host_delay_ns),
        edge_delay: Time(p.edge_delay_ns),
        core_delay: Time(p.core_delay_ns),
    };
    spec.build().map(|t| to_ffi(&t)).map_err(|e| {
        let option = match e.field.as_str() {
            "host_rate" => "rate",
            "k" => "k",
            _ => "fabricRate",
        };
        as_option(e, option)
    })
}

fn cdf_mean_bytes(file: &str, text: &str) -> Result<f64, ParseError> {
    Ok(Cdf::parse(file, text)?.mean_bytes())
}

fn cdf_sample_sizes(file: &str, text: &str, n: u64, seed: u64) -> Result<Vec<u64>, ParseError> {
    Ok(Cdf::parse(file, text)?.sample_sizes(n, seed))
}

fn generate_flows(
    file: &str,
    text: &str,
    p: &GeneratorParams,
    host_rates_bps: &[u64],
) -> Result<GenWorkload, WorkloadError> {
    let cdf = Cdf::parse(file, text)?;
    let settings = PatternSettings {
        group: p.group,
        hotspot_traffic: p.hotspot_traffic,
        hotspot_hosts: p.hotspot_hosts,
        incast_senders: p.incast_senders,
    };
    let pattern = Pattern::from_name(&p.pattern, &settings).map_err(|e| as_option(e, "pattern"))?;
    let cfg = GeneratorConfig {
        load: p.load,
        pattern,
        start: Time(p.start_ns),
        duration: Time(p.duration_ns),
        seed: p.seed,
        read_fraction: p.read_fraction,
    };
    let rates: Vec<Rate> = host_rates_bps.iter().map(|&r| Rate(r)).collect();
    let w = cfg.generate(&cdf, &rates).map_err(|e| {
        let name = e.field.clone();
        as_option(e, &name)
    })?;
    Ok(GenWorkload {
        flows: w
            .flows
            .iter()
            .map(|f| GenFlow {
                src: f.src,
                dst: f.dst,
                bytes: f.bytes.0,
                start_ns: f.start.0,
                op: f.op.code(),
            })
            .collect(),
        hot_hosts: w.hot_hosts,
        incast_senders: w.incast_senders,
        incast_receiver: w.incast_receiver.unwrap_or(0),
        has_incast_receiver: w.incast_receiver.is_some(),
        mean_bytes: w.mean_bytes,
        offered_load: w.offered_load,
    })
}

fn slowdown_buckets(sizes: &[u64], slowdowns: &[f64]) -> Vec<SlowdownBucket> {
    rdma_cc_workload::slowdown_buckets(sizes, slowdowns)
        .into_iter()
        .map(|b| SlowdownBucket {
            label: b.label.to_string(),
            min_bytes: b.min_bytes,
            max_bytes: b.max_bytes,
            flows: b.flows,
            unfinished: b.unfinished,
            avg: b.avg,
            p50: b.p50,
            p95: b.p95,
            p99: b.p99,
            max: b.max,
        })
        .collect()
}

fn sample_summary(values: &[f64]) -> SampleSummary {
    let s = rdma_cc_workload::Summary::of(values.to_vec());
    SampleSummary {
        n: s.n,
        avg: s.avg,
        p50: s.p50,
        p95: s.p95,
        p99: s.p99,
        max: s.max,
    }
}

fn histogram_percentile(values: &[u64], counts: &[u64], percent: u64) -> u64 {
    rdma_cc_workload::histogram_floor_rank(values, counts, percent)
}

fn size_class(size: u64) -> usize {
    rdma_cc_workload::size_class(size)
}

fn size_class_name(index: usize, label: bool) -> &'static str {
    rdma_cc_workload::SIZE_CLASSES
        .get(index)
        .map_or("", |&(name, long)| if label { long } else { name })
}

fn size_classes() -> usize {
    rdma_cc_workload::SIZE_CLASSES.len()
}

fn hpcc_flows_parse(
    file: &str,
    text: &str,
    topology: &HpccTopology,
) -> Result<Vec<HpccFlow>, ParseError> {
    Ok(
        parse_flows_on(file, text, topology.nodes, &topology.switches)?
            .iter()
            .map(|f| HpccFlow {
                src: f.src,
                dst: f.dst,
                priority: f.priority,
                dport: f.dport,
                bytes: f.bytes.0,
                start_ns: f.start.0,
                line: f.line as u64,
                op: f.op.code(),
            })
            .collect(),
    )
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
    fn cdf_sizes_follow_the_file_and_the_seed() {
        let text = "1000 0\n2000 50\n4000 100\n";
        let a = cdf_sample_sizes("c.txt", text, 1000, 7).unwrap();
        assert_eq!(a.len(), 1000);
        assert!(a.iter().all(|&b| (1000..=4000).contains(&b)));
        // half the mass below 2000 B
        let below = a.iter().filter(|&&b| b <= 2000).count();
        assert!((430..=570).contains(&below), "{below}");
        assert_eq!(a, cdf_sample_sizes("c.txt", text, 1000, 7).unwrap());
        assert_ne!(a, cdf_sample_sizes("c.txt", text, 1000, 8).unwrap());
        let e = cdf_sample_sizes("c.txt", "oops", 1, 1)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.txt:1:"), "{e}");
    }

    #[test]
    fn fat_tree_generator_and_buckets_cross_with_option_names_in_errors() {
        let mut p = FatTreeParams {
            k: 4,
            host_rate_bps: 100_000_000_000,
            edge_rate_bps: 100_000_000_000,
            core_rate_bps: 100_000_000_000,
            host_delay_ns: 1000,
            edge_delay_ns: 1000,
            core_delay_ns: 1000,
        };
        let t = fat_tree_topology(&p).unwrap();
        assert_eq!((t.nodes, t.switches.len(), t.links.len()), (36, 20, 48));
        p.k = 3;
        assert!(fat_tree_topology(&p)
            .unwrap_err()
            .to_string()
            .starts_with("invalid --k = 3: "));
        let cdf = "1000 50\n3000 100\n";
        assert_eq!(cdf_mean_bytes("c", cdf).unwrap(), 1500.0); // 1000 x 0.5 + 2000 x 0.5
        assert!(cdf_mean_bytes("c", "1000 50\n")
            .unwrap_err()
            .to_string()
            .starts_with("c:1: invalid cdf_percent = 50"));
        let mut g = GeneratorParams {
            pattern: "incast".into(),
            load: 0.5,
            start_ns: 1000,
            duration_ns: 1_000_000,
            seed: 1,
            group: 2,
            hotspot_traffic: 0.5,
            hotspot_hosts: 0.2,
            incast_senders: 3,
            read_fraction: 0.0,
        };
        let w = generate_flows("c", cdf, &g, &[100_000_000_000; 8]).unwrap();
        assert!(w.has_incast_receiver && w.incast_senders.len() == 3);
        assert!(w.flows.iter().all(|f| f.dst == w.incast_receiver));
        assert!(w.flows.len() > 1000, "{}", w.flows.len());
        g.load = 2.0;
        let e = generate_flows("c", cdf, &g, &[100_000_000_000; 8])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("invalid --load = 2: "), "{e}");
        g.load = 0.5;
        g.read_fraction = -0.1;
        let e = generate_flows("c", cdf, &g, &[100_000_000_000; 8])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("invalid --readFraction = -0.1: "), "{e}");
        g.pattern = "ring".into();
        let e = generate_flows("c", cdf, &g, &[100_000_000_000; 8]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --pattern = ring: must be one of uniform, group, hotspot, incast"
        );
        assert!(matches!(e, WorkloadError::Config(ref c) if c.field == "--pattern"));
        let b = slowdown_buckets(&[5000, 50_000, 20_000_000], &[1.5, 2.0, f64::NAN]);
        assert_eq!(b.len(), 5);
        assert_eq!(
            (b[0].label.as_str(), b[0].flows, b[0].p99),
            ("<10KB", 1, 1.5)
        );
        assert_eq!((b[4].flows, b[4].unfinished), (0, 1));
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

    #[test]
    fn files_are_read_as_bytes_and_every_fault_is_one_line_naming_the_option() {
        let dir = std::env::temp_dir().join(format!("rdmacc-read-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let put = |name: &str, bytes: &[u8]| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p.to_str().unwrap().to_string()
        };
        let read = |p: &str| read_text(p.as_bytes(), "--topo").map_err(|e| e.to_string());
        let ok = put("ok.txt", TOPO.as_bytes());
        assert_eq!(read(&ok).unwrap(), TOPO);
        let d = dir.to_str().unwrap().to_string();
        assert_eq!(
            read(&d).unwrap_err(),
            format!("invalid --topo = {d}: is a directory, not a file")
        );
        let missing = format!("{d}/none.txt");
        assert_eq!(
            read(&missing).unwrap_err(),
            format!("invalid --topo = {missing}: no such file")
        );
        assert_eq!(read("").unwrap_err(), "invalid --topo = : names no file");
        let bom = put(
            "bom.txt",
            &[b"\xEF\xBB\xBF".as_slice(), TOPO.as_bytes()].concat(),
        );
        assert!(read(&bom)
            .unwrap_err()
            .starts_with(&format!("{bom}:1: invalid text = byte-order mark EF BB BF")));
        let bin = put("bin.txt", b"4 1 3\n\x9f\x00\x01");
        assert!(read(&bin)
            .unwrap_err()
            .starts_with(&format!("{bin}:2: invalid text = NUL byte at column 2")));
        let e = read_text(b"/tmp/\xFFx\n", "--cdf").unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid --cdf = /tmp/\u{fffd}x\\n: the path must be UTF-8 text"
        );
        // a device is read up to the limit, never without end
        assert!(read("/dev/zero")
            .unwrap_err()
            .starts_with("invalid --topo = /dev/zero: gives more than 268435456 bytes"));
        for e in [read(&d), read(&missing), read(&bom), read(&bin)] {
            assert!(!e.unwrap_err().contains('\n'));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn churn_checks_cross_the_bridge() {
        // the rules and their tests: rdma_cc_workload::churn_arrivals_check, churn_flows_check
        assert!(churn_arrivals_check(0, 0.0, 1e11, 1000.0, 1000, "1us").is_err());
        assert!(churn_arrivals_check(0, 0.3, 1e11, 35000.0, 1_000_000, "1ms").is_ok());
        assert!(churn_flows_check(0, 0, "1ns").is_err());
        assert!(churn_flows_check(0, 1, "1ns").is_ok());
    }

    #[test]
    fn summaries_and_size_classes_cross_as_values() {
        let s = sample_summary(&[3.0, 1.0, 2.0, 4.0]);
        assert_eq!(
            (s.n, s.avg, s.p50, s.p95, s.p99, s.max),
            (4, 2.5, 2.0, 4.0, 4.0, 4.0)
        );
        assert_eq!(sample_summary(&[]).n, 0);
        assert_eq!(histogram_percentile(&[0, 5], &[99, 1], 99), 5);
        assert_eq!(
            (
                size_class(999_999),
                size_class(10_000_000),
                size_class(10_000_001)
            ),
            (0, 1, 2)
        );
        assert_eq!(
            (
                size_class_name(1, false),
                size_class_name(2, true),
                size_classes()
            ),
            ("medium", "elephants >10MB", 3)
        );
        assert_eq!(size_class_name(3, true), "");
    }
}
