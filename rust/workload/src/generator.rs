//! Poisson flow arrivals from a flow-size distribution, with destination patterns.

use crate::cdf::Cdf;
use crate::rng::Rng;
use rdma_cc_core::{Bytes, ConfigError, Operation, Rate, Time};

/// Where a flow goes: the destination patterns of datacenter congestion-control studies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pattern {
    /// Every host sends; each flow's destination is uniform over the other hosts (the HPCC
    /// simulator's traffic generator; DCTCP, pFabric, HPCC evaluations).
    Uniform,
    /// Hosts in groups of `size` consecutive host indexes (group `i / size`; the last group
    /// may be smaller, but not a single host); each flow's destination is uniform over the
    /// other hosts of its source's group (RCM's grouped traffic).
    Group {
        /// Hosts per group, at least 2.
        size: u32,
    },
    /// A share of every host's flows goes to a few hot hosts: `hosts` (a fraction of the
    /// hosts, at least one, not all) are drawn from the seed; with probability `traffic` a
    /// flow's destination is uniform over the hot hosts, otherwise over the others (in both
    /// cases never the source; when the source is the only host of its draw's set, the other
    /// set is used).
    Hotspot {
        /// Share of the flows that go to the hot hosts, in [0, 1].
        traffic: f64,
        /// Share of the hosts that are hot, in (0, 1): `max(1, round(hosts x N))`, below N.
        hosts: f64,
    },
    /// Incast: `senders` hosts (drawn from the seed) send to one receiver (drawn from the
    /// seed, not a sender) together: each arrival is one flow from every sender, all at the
    /// same time, each size drawn from the distribution (a partition-aggregate burst). The
    /// load is the receiver's: arrivals are a Poisson process whose bytes fill `load` of the
    /// receiver's link.
    Incast {
        /// Number of senders, in [1, hosts - 1].
        senders: u32,
    },
}

/// The settings of every pattern, of which [`Pattern::from_name`] takes the named one's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PatternSettings {
    /// [`Pattern::Group`]: hosts per group.
    pub group: u32,
    /// [`Pattern::Hotspot`]: share of the flows to the hot hosts.
    pub hotspot_traffic: f64,
    /// [`Pattern::Hotspot`]: share of the hosts that are hot.
    pub hotspot_hosts: f64,
    /// [`Pattern::Incast`]: number of senders.
    pub incast_senders: u32,
}

impl Pattern {
    /// Every pattern's name, in declaration order (the choices of `--pattern`).
    pub const NAMES: [&'static str; 4] = ["uniform", "group", "hotspot", "incast"];

    /// The pattern's name, as `fat-tree-workload --pattern` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Pattern::Uniform => Self::NAMES[0],
            Pattern::Group { .. } => Self::NAMES[1],
            Pattern::Hotspot { .. } => Self::NAMES[2],
            Pattern::Incast { .. } => Self::NAMES[3],
        }
    }

    /// The pattern called `name` ([`Self::name`]'s spelling) with its settings from `s`; the
    /// error names the field `pattern` and lists the names.
    pub fn from_name(name: &str, s: &PatternSettings) -> Result<Pattern, ConfigError> {
        match name {
            "uniform" => Ok(Pattern::Uniform),
            "group" => Ok(Pattern::Group { size: s.group }),
            "hotspot" => Ok(Pattern::Hotspot {
                traffic: s.hotspot_traffic,
                hosts: s.hotspot_hosts,
            }),
            "incast" => Ok(Pattern::Incast {
                senders: s.incast_senders,
            }),
            other => Err(ConfigError::new(
                "pattern",
                other,
                format!("must be one of {}", Self::NAMES.join(", ")),
            )),
        }
    }
}

/// Memory a flow costs a run, bytes, for the estimate [`flow_budget`] gives: a finished flow
/// keeps a compact record of about 570 B (tests/test_memory.py measures it), the generated
/// flow and its copies across the bridge come on top while the run is built.
pub const FLOW_MEMORY_BYTES: f64 = 600.0;

/// Most flows a run that draws arrivals may expect (from the load, the hosts' rates, the
/// distribution's mean and the arrival window): 4 million, about 2.4 GB at
/// [`FLOW_MEMORY_BYTES`], and minutes of building before the first event.
pub const MAX_EXPECTED_FLOWS: f64 = 4e6;

/// Checks, before anything is drawn, that `expected` flows (a run's estimate) fit
/// [`MAX_EXPECTED_FLOWS`]; the error names `field` = `value`, the estimate and its memory,
/// `basis` (what the estimate comes from) and `fix` (the options to change), e.g.
/// `invalid --churn = 100s: gives about 1.2e12 flows, about 7.5e14 B of memory (...): at most
/// 4e6 flows; shorten it or lower --load`.
pub fn flow_budget(
    expected: f64,
    field: &str,
    value: impl std::fmt::Display,
    basis: &str,
    fix: &str,
) -> Result<(), ConfigError> {
    // NaN (no arrivals defined) counts as too many: it is never below the bound
    ConfigError::check(
        expected <= MAX_EXPECTED_FLOWS,
        field,
        value,
        &format!(
            "gives about {expected:.2e} flows, about {:.2e} B of memory ({basis}): at most \
             {MAX_EXPECTED_FLOWS:.0e} flows; {fix}",
            expected * FLOW_MEMORY_BYTES
        ),
    )
}

/// The check of a run of long flows and short flows arriving (ldcp-churn's), before the short
/// flows are drawn: `long_flows` long flows and short flows arriving for `churn_time` (`churn`
/// as the user wrote it) at `load` of `capacity_bps` (payload bit/s) with a mean size of
/// `mean_bytes`. Refuses a run of no flow at all (`--long` 0 and no arrivals, naming `--load`
/// or `--churn`) and an expected count above [`MAX_EXPECTED_FLOWS`] ([`flow_budget`], naming
/// `--churn`).
pub fn churn_arrivals_check(
    long_flows: u64,
    load: f64,
    capacity_bps: f64,
    mean_bytes: f64,
    churn_time: Time,
    churn: &str,
) -> Result<(), ConfigError> {
    let churn_ns = churn_time.0;
    if load <= 0.0 || churn_ns == 0 {
        let (field, value) = if load <= 0.0 {
            ("--load", load.to_string())
        } else {
            ("--churn", churn.to_string())
        };
        return ConfigError::check(
            long_flows > 0,
            field,
            value,
            "with --long = 0 gives no flow to simulate: give long flows (--long) or short ones \
             (--load and --churn above 0)",
        );
    }
    let expected = load * capacity_bps / 8.0 / mean_bytes * (churn_ns as f64 * 1e-9);
    let expected = if expected.is_finite() {
        expected
    } else {
        f64::INFINITY
    };
    flow_budget(
        expected,
        "--churn",
        churn,
        &format!(
            "--load of the bottleneck's {capacity_bps:.3e} bit/s of payload, short flows of \
             {mean_bytes:.0} B on average"
        ),
        "shorten it, lower --load or use larger short flows",
    )
}

/// The check of such a run after drawing: refuses a run of no flow (`long_flows` 0 and no short
/// flow drawn), naming `--churn` (`churn` as the user wrote it).
pub fn churn_flows_check(
    long_flows: u64,
    short_flows: u64,
    churn: &str,
) -> Result<(), ConfigError> {
    ConfigError::check(
        long_flows + short_flows > 0,
        "--churn",
        churn,
        "draws no short flow and --long = 0: no flow to simulate; lengthen it or raise --load",
    )
}

/// A Poisson workload: flows arrive at each sending host as a Poisson process, sizes from a
/// [`Cdf`], destinations from a [`Pattern`], so that the **payload** each sender offers is
/// `load` of its own link's rate — the flows' message bytes, as the distributions give them,
/// not the bytes on the wire (headers, ACKs and retransmissions come on top; at a 1000-B MTU
/// with 82 B of headers per frame the wire load of large flows is 8.2 % higher). This is the
/// HPCC simulator's traffic generator's rule: the mean gap between a host's arrivals is
/// `8 mean_size / (load x rate)`, with `mean_size` the distribution's mean
/// ([`Cdf::mean_bytes`]). For [`Pattern::Incast`] the load is the receiver's.
///
/// Field names in errors are those of `fat-tree-workload`'s options (`load`, `duration`,
/// `group`, `hotspotTraffic`, `hotspotHosts`, `incastSenders`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeneratorConfig {
    /// Offered payload load, a fraction of a host's link rate, in (0, 1].
    pub load: f64,
    /// Destination pattern.
    pub pattern: Pattern,
    /// First instant an arrival may have.
    pub start: Time,
    /// Arrivals fall in `[start, start + duration)`; above 0.
    pub duration: Time,
    /// Seed of the generator's own random numbers ([`Rng`]): the same seed, configuration,
    /// hosts and distribution give the same flows.
    pub seed: u64,
    /// Probability in [0, 1] that a flow is a READ ([`GeneratedFlow::op`]); the others are
    /// WRITEs. Drawn from a stream of its own (seeded from `seed`), after the flows: the
    /// flows' hosts, sizes and times do not depend on it, and 0 draws nothing.
    pub read_fraction: f64,
}

/// One generated flow: `bytes` from host index `src` to host index `dst`, starting at
/// `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratedFlow {
    /// Sending host (index into the hosts' rates the generator was given).
    pub src: u32,
    /// Receiving host (differs from `src`).
    pub dst: u32,
    /// Message size (at least 1 byte).
    pub bytes: Bytes,
    /// Arrival (start) time.
    pub start: Time,
    /// WRITE, or READ (with probability [`GeneratorConfig::read_fraction`]): a READ's data
    /// still travels from `src` to `dst` (`dst` posts it at `start`), so the traffic matrix
    /// and the offered load are the same.
    pub op: Operation,
}

/// What [`GeneratorConfig::generate`] made: the flows, ordered by start time (ties in the
/// order they were drawn: by source host, then as drawn), and the hosts its pattern chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// The flows, by start time.
    pub flows: Vec<GeneratedFlow>,
    /// [`Pattern::Hotspot`]: the hot hosts, ascending; empty otherwise.
    pub hot_hosts: Vec<u32>,
    /// [`Pattern::Incast`]: the senders, ascending; empty otherwise.
    pub incast_senders: Vec<u32>,
    /// [`Pattern::Incast`]: the receiver.
    pub incast_receiver: Option<u32>,
    /// The distribution's mean size the arrival rates follow ([`Cdf::mean_bytes`], at least 1).
    pub mean_bytes: f64,
    /// The load the flows offer (the realised `load`): their payload bits over the arrival
    /// window's duration, a fraction of the capacity `load` refers to (the sum of every host's
    /// link rate; for [`Pattern::Incast`] the receiver's).
    pub offered_load: f64,
}

impl GeneratorConfig {
    /// Checks the configuration for hosts of link rates `host_rates` (one per host, index =
    /// host) and the mean size `mean_bytes`; the error names the field (option) at fault.
    pub fn validate(&self, host_rates: &[Rate], mean_bytes: f64) -> Result<(), ConfigError> {
        ConfigError::check(
            (0.0..=1.0).contains(&self.read_fraction),
            "readFraction",
            self.read_fraction,
            "must be in [0, 1]",
        )?;
        let n = host_rates.len() as u64;
        ConfigError::check(
            n >= 2,
            "hosts",
            n,
            "a workload needs at least 2 hosts: a flow never goes to its own source",
        )?;
        ConfigError::check(
            n <= u64::from(u32::MAX),
            "hosts",
            n,
            "must be at most 2^32 - 1",
        )?;
        if let Some(i) = host_rates.iter().position(|r| r.0 == 0) {
            return Err(ConfigError::new(
                format!("host {i} rate"),
                "0 bit/s",
                "every host's link must have a rate above 0",
            ));
        }
        ConfigError::check(
            self.load.is_finite() && self.load > 0.0 && self.load <= 1.0,
            "load",
            self.load,
            "must be in (0, 1]: the payload a host offers, a fraction of its link's rate",
        )?;
        ConfigError::check(
            self.duration.0 > 0,
            "duration",
            format!("{}ns", self.duration.0),
            "must be above 0: flows arrive during [start, start + duration)",
        )?;
        ConfigError::check(
            self.start
                .0
                .checked_add(self.duration.0)
                .is_some_and(|e| e <= i64::MAX as u64),
            "duration",
            format!("{}ns", self.duration.0),
            "the arrivals must end within ns-3's time range (2^63 - 1 ns)",
        )?;
        match self.pattern {
            Pattern::Uniform => {}
            Pattern::Group { size } => {
                ConfigError::check(
                    size >= 2 && u64::from(size) <= n,
                    "group",
                    size,
                    &format!("must be in [2, {n}]: hosts per group, the hosts being {n}"),
                )?;
                ConfigError::check(
                    n % u64::from(size) != 1,
                    "group",
                    size,
                    &format!(
                        "leaves the last of the {n} hosts alone in its group, with no \
                         destination: choose a size whose remainder of {n} is not 1"
                    ),
                )?;
            }
            Pattern::Hotspot { traffic, hosts } => {
                ConfigError::check(
                    (0.0..=1.0).contains(&traffic),
                    "hotspotTraffic",
                    traffic,
                    "must be in [0, 1]: the share of flows that go to the hot hosts",
                )?;
                ConfigError::check(
                    hosts > 0.0 && hosts < 1.0,
                    "hotspotHosts",
                    hosts,
                    "must be in (0, 1): the share of the hosts that are hot",
                )?;
                let hot = hot_count(hosts, n);
                ConfigError::check(
                    hot < n,
                    "hotspotHosts",
                    hosts,
                    &format!(
                        "makes every one of the {n} hosts hot (round({hosts} x {n}) = {hot}): \
                         at least one host must stay cold"
                    ),
                )?;
            }
            Pattern::Incast { senders } => {
                ConfigError::check(
                    senders >= 1 && u64::from(senders) < n,
                    "incastSenders",
                    senders,
                    &format!(
                        "must be in [1, {}]: the senders and the receiver are distinct hosts",
                        n - 1
                    ),
                )?;
            }
        }
        flow_budget(
            self.expected_flows(host_rates, mean_bytes),
            "duration",
            format!("{}ns", self.duration.0),
            &format!("load, hosts' rates, the distribution's mean of {mean_bytes:.0} B, duration"),
            "shorten it, lower --load or use larger flows",
        )?;
        Ok(())
    }

    /// Expected number of flows.
    fn expected_flows(&self, host_rates: &[Rate], mean_bytes: f64) -> f64 {
        let mean = mean_bytes.max(1.0);
        let secs = self.duration.as_secs_f64();
        match self.pattern {
            // one flow per sender per arrival; the receiver's rate is at most the fastest
            Pattern::Incast { .. } => {
                let fastest = host_rates.iter().map(|r| r.0).max().unwrap_or(0);
                self.load * fastest as f64 / 8.0 / mean * secs
            }
            _ => host_rates
                .iter()
                .map(|r| self.load * r.0 as f64 / 8.0 / mean * secs)
                .sum(),
        }
    }

    /// Generates the workload for hosts of link rates `host_rates` (index = host) and flow
    /// sizes from `cdf` (checked first with [`GeneratorConfig::validate`]).
    ///
    /// Each sending host's arrivals are a Poisson process of rate `load x rate / (8 mean)`
    /// flows per second (exponential gaps from [`Rng::exponential`]), from `start` until
    /// `start + duration`; each flow's size is [`Cdf::sample`] of a uniform draw and its
    /// destination follows the pattern. The hosts are generated in index order from one
    /// stream of [`Rng`] numbers seeded by `seed` (the pattern's choice of hot hosts or incast
    /// hosts first), so the result depends on the seed, the configuration, the hosts' rates
    /// and the distribution only.
    pub fn generate(&self, cdf: &Cdf, host_rates: &[Rate]) -> Result<Workload, ConfigError> {
        let mean = cdf.mean_bytes().max(1.0);
        self.validate(host_rates, mean)?;
        let n = host_rates.len() as u32; // checked: at most u32::MAX
        let mut rng = Rng::new(self.seed);
        let end = self.start.0 + self.duration.0; // checked: no overflow
        let expected = self.expected_flows(host_rates, mean);
        let mut flows: Vec<GeneratedFlow> = Vec::with_capacity((expected * 1.05) as usize + 16);
        let mut out = Workload {
            flows: Vec::new(),
            hot_hosts: Vec::new(),
            incast_senders: Vec::new(),
            incast_receiver: None,
            mean_bytes: mean,
            offered_load: 0.0,
        };
        // arrival times: a running sum of exponential gaps (ns, as f64), from start
        let arrivals =
            |rng: &mut Rng, rate_bps: u64, per_arrival: f64, f: &mut dyn FnMut(&mut Rng, Time)| {
                // mean gap (ns) of a process whose arrivals carry `per_arrival` mean bytes each
                let gap = per_arrival * 8.0 / (self.load * rate_bps as f64) * 1e9;
                let mut t = self.start.0 as f64;
                loop {
                    t += rng.exponential(gap);
                    if t >= end as f64 {
                        break;
                    }
                    let at = (t as u64).min(end - 1);
                    f(rng, Time(at));
                }
            };
        match self.pattern {
            Pattern::Uniform => {
                for src in 0..n {
                    arrivals(
                        &mut rng,
                        host_rates[src as usize].0,
                        mean,
                        &mut |rng, at| {
                            let dst = other_than(rng, 0, n, src);
                            push(&mut flows, rng, cdf, src, dst, at);
                        },
                    );
                }
            }
            Pattern::Group { size } => {
                for src in 0..n {
                    let first = src / size * size;
                    let last = first.saturating_add(size).min(n); // exclusive
                    arrivals(
                        &mut rng,
                        host_rates[src as usize].0,
                        mean,
                        &mut |rng, at| {
                            let dst = other_than(rng, first, last, src);
                            push(&mut flows, rng, cdf, src, dst, at);
                        },
                    );
                }
            }
            Pattern::Hotspot { traffic, hosts } => {
                let hot = choose(&mut rng, n, hot_count(hosts, u64::from(n)) as u32);
                let mut is_hot = vec![false; n as usize];
                for &h in &hot {
                    is_hot[h as usize] = true;
                }
                let cold: Vec<u32> = (0..n).filter(|&h| !is_hot[h as usize]).collect();
                for src in 0..n {
                    arrivals(
                        &mut rng,
                        host_rates[src as usize].0,
                        mean,
                        &mut |rng, at| {
                            let to_hot = rng.next_f64() < traffic;
                            let (set, other) = if to_hot { (&hot, &cold) } else { (&cold, &hot) };
                            let dst = member_other_than(rng, set, src)
                                .or_else(|| member_other_than(rng, other, src))
                                .unwrap_or(src); // unreachable: hot and cold are both non-empty
                            push(&mut flows, rng, cdf, src, dst, at);
                        },
                    );
                }
                out.hot_hosts = hot;
            }
            Pattern::Incast { senders } => {
                let mut chosen = choose(&mut rng, n, senders + 1);
                // the first drawn is the receiver; `choose` returns them sorted, so draw
                // the receiver's position among them
                let r = rng.below(u64::from(senders) + 1) as usize;
                let receiver = chosen.remove(r);
                let per_event = mean * f64::from(senders);
                arrivals(
                    &mut rng,
                    host_rates[receiver as usize].0,
                    per_event,
                    &mut |rng, at| {
                        for &src in &chosen {
                            push(&mut flows, rng, cdf, src, receiver, at);
                        }
                    },
                );
                out.incast_senders = chosen;
                out.incast_receiver = Some(receiver);
            }
        }
        let capacity: f64 = match out.incast_receiver {
            Some(r) => host_rates[r as usize].0 as f64,
            None => host_rates.iter().map(|r| r.0 as f64).sum(),
        };
        let bits: f64 = flows.iter().map(|f| f.bytes.0 as f64 * 8.0).sum();
        out.offered_load = bits / (capacity * self.duration.as_secs_f64());
        // stable: equal start times keep the order they were drawn in
        flows.sort_by_key(|f| f.start);
        debug_assert!(flows
            .iter()
            .all(|f| f.src != f.dst && f.src < n && f.dst < n));
        // no empty success: a run of no flow simulates nothing
        ConfigError::check(
            !flows.is_empty(),
            "duration",
            format!("{}ns", self.duration.0),
            &format!(
                "draws no flow (about {:.2e} expected: load, hosts' rates, the distribution's \
                 mean of {mean:.0} B): lengthen it, raise --load or use smaller flows",
                self.expected_flows(host_rates, mean)
            ),
        )?;
        if self.read_fraction > 0.0 {
            // a stream of its own: the flows above do not move with the fraction
            let mut ops = Rng::new(self.seed ^ READ_STREAM);
            for f in &mut flows {
                if ops.next_f64() < self.read_fraction {
                    f.op = Operation::Read;
                }
            }
        }
        out.flows = flows;
        Ok(out)
    }
}

/// Mixed into the seed of the stream that draws the READs (`read_fraction`).
const READ_STREAM: u64 = 0x5245_4144_5f4f_5053; // "READ_OPS"

/// Number of hot hosts: `max(1, round(fraction x n))`.
fn hot_count(fraction: f64, n: u64) -> u64 {
    ((fraction * n as f64).round() as u64).max(1)
}

/// Appends a flow with a size drawn from `cdf`.
fn push(flows: &mut Vec<GeneratedFlow>, rng: &mut Rng, cdf: &Cdf, src: u32, dst: u32, at: Time) {
    flows.push(GeneratedFlow {
        src,
        dst,
        bytes: cdf.sample(rng.next_f64()),
        start: at,
        op: Operation::Write,
    });
}

/// A uniform host of `[first, last)` other than `src` (which lies in it; at least 2 hosts).
fn other_than(rng: &mut Rng, first: u32, last: u32, src: u32) -> u32 {
    let d = first + rng.below(u64::from(last - first - 1)) as u32;
    if d >= src {
        d + 1
    } else {
        d
    }
}

/// A uniform member of `set` (ascending) other than `src`; `None` when there is none.
fn member_other_than(rng: &mut Rng, set: &[u32], src: u32) -> Option<u32> {
    match set.binary_search(&src) {
        Ok(p) => {
            if set.len() < 2 {
                return None;
            }
            let i = rng.below(set.len() as u64 - 1) as usize;
            Some(set[if i >= p { i + 1 } else { i }])
        }
        Err(_) => {
            if set.is_empty() {
                return None;
            }
            Some(set[rng.below(set.len() as u64) as usize])
        }
    }
}

/// `k` distinct hosts of `0..n`, uniformly (a partial Fisher–Yates shuffle), ascending.
fn choose(rng: &mut Rng, n: u32, k: u32) -> Vec<u32> {
    let mut all: Vec<u32> = (0..n).collect();
    let k = k.min(n) as usize;
    for i in 0..k {
        let j = i + rng.below((all.len() - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(k);
    all.sort_unstable();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn churn_runs_are_bounded_and_never_empty() {
        // ldcp-churn --long=2 --longSize=50000 --churn=100s --load=1 --minShort=1 --maxShort=1
        let e = churn_arrivals_check(2, 1.0, 1e11, 1.0, Time(100_000_000_000_000), "100s")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid --churn = 100s: gives about 1.25e15 flows"),
            "{e}"
        );
        assert!(
            e.contains("at most 4e6 flows; shorten it, lower --load"),
            "{e}"
        );
        let e = churn_arrivals_check(0, 0.0, 1e11, 1000.0, Time(1000), "1us")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid --load = 0: with --long = 0 gives no flow"),
            "{e}"
        );
        assert!(churn_arrivals_check(0, 0.3, 1e11, 1000.0, Time(0), "0").is_err());
        assert!(churn_arrivals_check(1, 0.0, 1e11, 1000.0, Time(1000), "1us").is_ok());
        assert!(churn_arrivals_check(0, 0.3, 1e11, 35000.0, Time(1_000_000), "1ms").is_ok());
        assert!(churn_flows_check(0, 0, "1ns").is_err());
        assert!(churn_flows_check(0, 1, "1ns").is_ok());
    }

    #[test]
    fn pattern_names_round_trip_and_an_unknown_name_lists_them() {
        let s = PatternSettings {
            group: 4,
            hotspot_traffic: 0.5,
            hotspot_hosts: 0.25,
            incast_senders: 3,
        };
        for name in Pattern::NAMES {
            assert_eq!(Pattern::from_name(name, &s).unwrap().name(), name);
        }
        assert_eq!(
            Pattern::from_name("group", &s),
            Ok(Pattern::Group { size: 4 })
        );
        let e = Pattern::from_name("ring", &s).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid pattern = ring: must be one of uniform, group, hotspot, incast"
        );
    }

    const WEB: &str = include_str!("../../../workloads/WebSearch_distribution.txt");

    fn web() -> Cdf {
        Cdf::parse("WebSearch_distribution.txt", WEB).unwrap()
    }

    fn config(pattern: Pattern, load: f64, duration: Time, seed: u64) -> GeneratorConfig {
        GeneratorConfig {
            load,
            pattern,
            start: Time::ms(2),
            duration,
            seed,
            read_fraction: 0.0,
        }
    }

    #[test]
    fn read_fraction_draws_reads_from_a_stream_of_its_own() {
        let rates = vec![Rate::gbps(100); 16];
        let base = config(Pattern::Uniform, 0.5, Time::ms(5), 7);
        let w0 = base.generate(&web(), &rates).unwrap();
        assert!(w0.flows.iter().all(|f| f.op == Operation::Write));
        let half = GeneratorConfig {
            read_fraction: 0.5,
            ..base
        };
        let w = half.generate(&web(), &rates).unwrap();
        // the same flows (hosts, sizes, times), only the operation drawn
        assert_eq!(w.flows.len(), w0.flows.len());
        for (a, b) in w.flows.iter().zip(&w0.flows) {
            assert_eq!(
                (a.src, a.dst, a.bytes, a.start),
                (b.src, b.dst, b.bytes, b.start)
            );
        }
        let reads = w.flows.iter().filter(|f| f.op == Operation::Read).count() as f64;
        let share = reads / w.flows.len() as f64;
        assert!(
            w.flows.len() > 150 && (share - 0.5).abs() < 0.1,
            "{share} of {}",
            w.flows.len()
        );
        // reproducible
        assert_eq!(half.generate(&web(), &rates).unwrap().flows, w.flows);
        let all = GeneratorConfig {
            read_fraction: 1.0,
            ..base
        };
        assert!(all
            .generate(&web(), &rates)
            .unwrap()
            .flows
            .iter()
            .all(|f| f.op == Operation::Read));
        let bad = GeneratorConfig {
            read_fraction: 1.5,
            ..base
        };
        assert_eq!(
            bad.generate(&web(), &rates).unwrap_err().field,
            "readFraction"
        );
    }

    /// Payload bits offered per second by each host, over the arrival window.
    fn sent_bps(w: &Workload, hosts: usize, duration: Time) -> Vec<f64> {
        let mut b = vec![0.0; hosts];
        for f in &w.flows {
            b[f.src as usize] += f.bytes.0 as f64 * 8.0;
        }
        b.iter().map(|x| x / duration.as_secs_f64()).collect()
    }

    #[test]
    fn offered_payload_load_is_within_5_percent_of_the_target_over_a_long_run() {
        // 16 hosts, half at 100 Gb/s and half at 25 Gb/s: each offers 30 % of its own link
        let rates: Vec<Rate> = (0..16)
            .map(|h| {
                if h < 8 {
                    Rate::gbps(100)
                } else {
                    Rate::gbps(25)
                }
            })
            .collect();
        let d = Time::ms(3000);
        let w = config(Pattern::Uniform, 0.3, d, 1)
            .generate(&web(), &rates)
            .unwrap();
        assert!(w.flows.len() > 30_000, "{}", w.flows.len());
        let sent = sent_bps(&w, 16, d);
        let total: f64 = sent.iter().sum();
        let capacity: f64 = rates.iter().map(|r| r.0 as f64).sum();
        let load = total / capacity;
        assert!((load - 0.3).abs() < 0.3 * 0.05, "offered load {load}");
        assert!((w.offered_load - load).abs() < 1e-9, "{}", w.offered_load);
        for (h, s) in sent.iter().enumerate() {
            let l = s / rates[h].0 as f64;
            assert!((l - 0.3).abs() < 0.3 * 0.15, "host {h}: load {l}");
        }
        // every arrival in the window, in order, never to its source
        assert!(w.flows.windows(2).all(|p| p[0].start <= p[1].start));
        assert!(w
            .flows
            .iter()
            .all(|f| f.start >= Time::ms(2) && f.start < Time::ms(3002)));
        assert!(w.flows.iter().all(|f| f.src != f.dst && f.dst < 16));
        assert!((w.mean_bytes - web().mean_bytes()).abs() < 1e-9);
    }

    /// The distribution's CDF at `x` (linear between its points, as the sampler draws).
    fn cdf_at(c: &Cdf, x: f64) -> f64 {
        let pts: Vec<(u64, f64)> = c.points().collect();
        let mut prev: Option<(f64, f64)> = None;
        for &(s, p) in &pts {
            let s = s as f64;
            if x < s {
                return match prev {
                    None => 0.0,
                    Some((s0, p0)) => (p0 + (p - p0) * (x - s0) / (s - s0)) / 100.0,
                };
            }
            prev = Some((s, p));
        }
        1.0
    }

    /// Kolmogorov–Smirnov statistic of `sizes` against `c`.
    fn ks(c: &Cdf, sizes: &mut [u64]) -> f64 {
        sizes.sort_unstable();
        let n = sizes.len() as f64;
        let mut d: f64 = 0.0;
        let mut i = 0;
        while i < sizes.len() {
            let mut j = i;
            while j < sizes.len() && sizes[j] == sizes[i] {
                j += 1;
            }
            // a draw of size s is a continuous draw in [s, s + 1) truncated
            let x = sizes[i] as f64;
            let below = i as f64 / n;
            let at = j as f64 / n;
            d = d.max((at - cdf_at(c, x + 1.0)).abs());
            d = d.max((below - cdf_at(c, x)).abs());
            i = j;
        }
        d
    }

    #[test]
    fn sizes_follow_the_distribution_kolmogorov_smirnov_below_0_01() {
        let rates = vec![Rate::gbps(100); 32];
        for (file, text, seed) in [
            ("WebSearch", WEB, 3),
            (
                "FbHdp",
                include_str!("../../../workloads/FbHdp_distribution.txt"),
                4,
            ),
        ] {
            let c = Cdf::parse(file, text).unwrap();
            // about 100 000 flows
            let d = Time((1e5 * c.mean_bytes() * 8.0 / (0.5 * 3.2e12) * 1e9) as u64);
            let w = config(Pattern::Uniform, 0.5, d, seed)
                .generate(&c, &rates)
                .unwrap();
            let mut sizes: Vec<u64> = w.flows.iter().map(|f| f.bytes.0).collect();
            assert!(sizes.len() > 80_000, "{file}: {}", sizes.len());
            let stat = ks(&c, &mut sizes);
            // the 0.1 % critical value at n = 80 000 is 1.95 / sqrt(n) = 0.0069
            assert!(stat < 0.01, "{file}: KS statistic {stat}");
        }
        // a wrong distribution is far off: the check has teeth
        let c = web();
        let other = Cdf::new(&[(0, 0.0), (20000, 50.0), (30_000_000, 100.0)]).unwrap();
        let w = config(Pattern::Uniform, 0.5, Time::ms(100), 3)
            .generate(&other, &rates)
            .unwrap();
        let mut sizes: Vec<u64> = w.flows.iter().map(|f| f.bytes.0).collect();
        assert!(ks(&c, &mut sizes) > 0.1);
    }

    #[test]
    fn same_seed_same_flows_other_seed_other_flows() {
        let rates = vec![Rate::gbps(100); 16];
        for p in [
            Pattern::Uniform,
            Pattern::Group { size: 4 },
            Pattern::Hotspot {
                traffic: 0.5,
                hosts: 0.25,
            },
            Pattern::Incast { senders: 5 },
        ] {
            let a = config(p, 0.3, Time::ms(50), 11)
                .generate(&web(), &rates)
                .unwrap();
            let b = config(p, 0.3, Time::ms(50), 11)
                .generate(&web(), &rates)
                .unwrap();
            let c = config(p, 0.3, Time::ms(50), 12)
                .generate(&web(), &rates)
                .unwrap();
            assert!(a.flows.len() > 50, "{}: {}", p.name(), a.flows.len());
            assert_eq!(a, b, "{}", p.name());
            assert_ne!(a.flows, c.flows, "{}", p.name());
        }
    }

    #[test]
    fn group_destinations_stay_in_the_group() {
        // 18 hosts in groups of 4: the last group has 2
        let rates = vec![Rate::gbps(100); 18];
        let w = config(Pattern::Group { size: 4 }, 0.5, Time::ms(20), 5)
            .generate(&web(), &rates)
            .unwrap();
        assert!(w
            .flows
            .iter()
            .all(|f| f.src / 4 == f.dst / 4 && f.src != f.dst));
        // every host sends, and every other member of its group is reached
        let mut seen = [[false; 18]; 18];
        for f in &w.flows {
            seen[f.src as usize][f.dst as usize] = true;
        }
        for (s, row) in seen.iter().enumerate() {
            for (d, &reached) in row.iter().enumerate() {
                assert_eq!(reached, s / 4 == d / 4 && s != d, "{s} -> {d}");
            }
        }
    }

    #[test]
    fn hotspot_sends_its_share_to_its_hot_hosts() {
        let rates = vec![Rate::gbps(100); 40];
        let p = Pattern::Hotspot {
            traffic: 0.3,
            hosts: 0.1,
        };
        let w = config(p, 0.5, Time::ms(200), 9)
            .generate(&web(), &rates)
            .unwrap();
        assert_eq!(w.hot_hosts.len(), 4);
        let hot = |h: u32| w.hot_hosts.contains(&h);
        let to_hot = w.flows.iter().filter(|f| hot(f.dst)).count() as f64;
        let share = to_hot / w.flows.len() as f64;
        assert!((share - 0.3).abs() < 0.02, "share to hot hosts {share}");
        // the cold share is spread over the 36 cold hosts
        let mut per = [0u32; 40];
        for f in &w.flows {
            per[f.dst as usize] += 1;
        }
        assert!((0..40).filter(|&h| !hot(h)).all(|h| per[h as usize] > 0));
        assert!(w.flows.iter().all(|f| f.src != f.dst));
        // a single hot host: its own flows go to cold hosts
        let p = Pattern::Hotspot {
            traffic: 1.0,
            hosts: 0.01,
        };
        let w = config(p, 0.5, Time::ms(50), 9)
            .generate(&web(), &rates)
            .unwrap();
        assert_eq!(w.hot_hosts.len(), 1);
        let h = w.hot_hosts[0];
        assert!(w.flows.iter().all(|f| (f.src == h) != (f.dst == h)));
    }

    #[test]
    fn incast_bursts_from_every_sender_at_the_receivers_load() {
        let rates = vec![Rate::gbps(100); 16];
        let d = Time::ms(2000);
        let w = config(Pattern::Incast { senders: 7 }, 0.4, d, 2)
            .generate(&web(), &rates)
            .unwrap();
        let r = w.incast_receiver.unwrap();
        assert_eq!(w.incast_senders.len(), 7);
        assert!(!w.incast_senders.contains(&r));
        assert!(w
            .flows
            .iter()
            .all(|f| f.dst == r && w.incast_senders.contains(&f.src)));
        // each arrival is one flow from every sender at one instant
        assert_eq!(w.flows.len() % 7, 0);
        for burst in w.flows.chunks(7) {
            assert!(burst.iter().all(|f| f.start == burst[0].start));
            let srcs: Vec<u32> = burst.iter().map(|f| f.src).collect();
            assert_eq!(srcs, w.incast_senders);
        }
        let bits: f64 = w.flows.iter().map(|f| f.bytes.0 as f64 * 8.0).sum();
        let load = bits / d.as_secs_f64() / 100e9;
        assert!((load - 0.4).abs() < 0.4 * 0.05, "receiver load {load}");
        assert!((w.offered_load - load).abs() < 1e-9, "{}", w.offered_load);
    }

    #[test]
    fn config_errors_name_the_field() {
        let rates = vec![Rate::gbps(100); 16];
        let err = |p: Pattern, load: f64, d: Time, rates: &[Rate]| {
            config(p, load, d, 1)
                .generate(&web(), rates)
                .unwrap_err()
                .field
        };
        let ms = Time::ms(1);
        assert_eq!(err(Pattern::Uniform, 0.0, ms, &rates), "load");
        assert_eq!(err(Pattern::Uniform, 1.5, ms, &rates), "load");
        assert_eq!(err(Pattern::Uniform, f64::NAN, ms, &rates), "load");
        assert_eq!(err(Pattern::Uniform, 0.3, Time::ZERO, &rates), "duration");
        assert_eq!(
            err(Pattern::Uniform, 0.3, Time(u64::MAX), &rates),
            "duration"
        );
        // 100 s of 16 hosts at full load: about 12 M flows x 100 / 16 ... too many
        assert_eq!(
            err(Pattern::Uniform, 1.0, Time::ms(1_000_000), &rates),
            "duration"
        );
        assert_eq!(err(Pattern::Uniform, 0.3, ms, &rates[..1]), "hosts");
        let mut zero = rates.clone();
        zero[3] = Rate(0);
        assert_eq!(err(Pattern::Uniform, 0.3, ms, &zero), "host 3 rate");
        assert_eq!(err(Pattern::Group { size: 1 }, 0.3, ms, &rates), "group");
        assert_eq!(err(Pattern::Group { size: 17 }, 0.3, ms, &rates), "group");
        assert_eq!(err(Pattern::Group { size: 5 }, 0.3, ms, &rates), "group"); // 16 = 3 x 5 + 1
        let hs = |traffic, hosts| Pattern::Hotspot { traffic, hosts };
        assert_eq!(err(hs(1.5, 0.1), 0.3, ms, &rates), "hotspotTraffic");
        assert_eq!(err(hs(0.5, 0.0), 0.3, ms, &rates), "hotspotHosts");
        assert_eq!(err(hs(0.5, 0.99), 0.3, ms, &rates), "hotspotHosts");
        assert_eq!(
            err(Pattern::Incast { senders: 0 }, 0.3, ms, &rates),
            "incastSenders"
        );
        assert_eq!(
            err(Pattern::Incast { senders: 16 }, 0.3, ms, &rates),
            "incastSenders"
        );
        let e = config(Pattern::Group { size: 5 }, 0.3, ms, 1)
            .generate(&web(), &rates)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid group = 5: leaves the last of the 16 hosts alone in its group, with no \
             destination: choose a size whose remainder of 16 is not 1"
        );
    }
}
