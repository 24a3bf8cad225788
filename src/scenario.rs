//! Bridge for what a scenario derives from its options and fabric: the switch settings a
//! scheme starts from, the checks of an example's marking options (errors name the options,
//! and say when a value was derived rather than given), the lower bound of a flow's completion
//! time and the payload limit of a link.

use crate::params::to_options;
use crate::switch::red_ecn_specs;
use rdma_cc_core::wire;
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_schemes::{DcqcnPreset, GivenMarking, Scheme};
use rdma_cc_switch::red::{DerivedMarking, EcnThresholds, NotEct, RedEcnConfig};
use rdma_cc_workload::RunLoad;

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// An egress queue's marking and Not-ECT threshold (bytes, probability).
    #[derive(Clone, Copy, Debug)]
    struct Marking {
        k_min: u64,
        k_max: u64,
        p_max: f64,
        k_fs: u64,
        /// Lossy egress queue limit (bytes).
        buf_max: u64,
    }

    /// An example's marking options as its command line gave them, parsed (`has_*` false:
    /// the option is `auto`, the scheme derives it).
    #[derive(Clone, Copy, Debug, Default)]
    struct MarkingOptions {
        has_k_min: bool,
        k_min: u64,
        has_k_max: bool,
        k_max: u64,
        has_p_max: bool,
        p_max: f64,
        has_k_fs: bool,
        k_fs: u64,
        has_buf_max: bool,
        buf_max: u64,
    }

    /// What a scenario's egress queues run: the scheme's marking with the given options in
    /// place of the derived values, checked together, and the Not-ECT treatment the scheme
    /// needs.
    #[derive(Clone, Copy)]
    struct ScenarioMarking {
        marking: Marking,
        not_ect: NotEctMode,
    }

    unsafe extern "C++" {
        // the framing (wire_constants, frame_on_wire, largest_frame, ...) is the device's own
        // bridge; scenario code that includes this header still sees it
        include!("rdma-cc/src/wire.rs.h");
        include!("rdma-cc/src/switch.rs.h");
        /// The switch's treatment of Not-ECT packets (the switch bridge's enum).
        type NotEctMode = crate::switch::NotEctMode;
    }

    extern "Rust" {
        /// How every scheme derives `field` when it is not given: the help text of an
        /// example's `auto`. Fields: the marking's (`k_min`, `k_max`, `p_max`, `k_fs`,
        /// `buf_max`), `pfc` (lossless by default) and `int` (INT needed).
        fn scheme_auto_help(field: &str) -> Result<String>;
        /// Whether `scheme` runs on a lossless (PFC) priority by default.
        fn scheme_lossless_by_default(scheme: &str) -> Result<bool>;
        /// Whether `scheme` needs INT hop records from the switches on its paths (HPCC): the
        /// default of the switches' INT when flows of `scheme` run.
        fn scheme_needs_int(scheme: &str) -> Result<bool>;
        /// The marking of a scenario running `scheme` under `preset` on links of `rate_bps`
        /// and one-way `delay_ns` carrying frames of `frame` bytes, from its options `given`
        /// (parsed once; each given value wins over the derived one): the scheme's marking
        /// from the given K_min (K_max and K_fs follow it) or from the link, checked together
        /// by the RED/ECN policy's rules (errors name the options, `--kmin`, `--kfs`,
        /// `--bufMax`; `derived_from` names what the values not given came from), and the
        /// scheme's Not-ECT treatment (threshold drop at K_fs for LDCP's fast start, else
        /// accept).
        fn scenario_marking(
            scheme: &str,
            preset: &str,
            rate_bps: u64,
            delay_ns: u64,
            frame: u64,
            given: &MarkingOptions,
            derived_from: &str,
        ) -> Result<ScenarioMarking>;
        /// The least time a `size`-byte message can take over store-and-forward hops of
        /// `rates_bps[i]` and `delays_ns[i]` (sender's link first), ACK back included.
        fn ideal_fct_ns(rates_bps: &[u64], delays_ns: &[u64], size: u64, mtu: u64) -> u64;
        /// The least time from a READ's post to its last response byte at the requester: the
        /// READ request over `request_rates_bps[i]`, `request_delays_ns[i]` (requester's link
        /// first), then `size` bytes of responses over `rates_bps`, `delays_ns` (responder's
        /// link first), without an ACK.
        fn ideal_read_fct_ns(
            request_rates_bps: &[u64],
            request_delays_ns: &[u64],
            rates_bps: &[u64],
            delays_ns: &[u64],
            size: u64,
            mtu: u64,
        ) -> u64;
        /// Payload bit/s a link of `rate_bps` carries at most with `mtu`-byte payloads, each
        /// data frame `extra` bytes longer (INT's hop records; 0 without INT).
        fn payload_limit_bps(rate_bps: u64, mtu: u64, extra: u64) -> f64;
        /// Checks that a run limited to `limit_ns` of simulated time can carry its flows at
        /// all. Flow `i` carries `sizes[i]` payload bytes in `mtu`-byte packets (each data
        /// frame with its RoCEv2 headers, padding, preamble and gap, and `extra` bytes more:
        /// INT's) to receiver `receivers[i]`, an index into `receiver_rates_bps` (that
        /// receiver's link), and cannot finish before `finish_bounds_ns[i]` (its start plus its
        /// completion-time lower bound; 0: none known). A receiver's link carries the frames of
        /// every flow to it one after the other. The error names `--limit` and says how long
        /// the run needs at least, and why.
        fn run_limit_check(
            limit_ns: u64,
            finish_bounds_ns: &[u64],
            sizes: &[u64],
            receivers: &[u32],
            receiver_rates_bps: &[u64],
            mtu: u64,
            extra: u64,
        ) -> Result<()>;
        /// The priority mask of a per-priority on/off option (`--pfc`, `--ecn`): true/1 (the
        /// data priority `data`), false/0/none, all, or a list `3,4`
        /// (`rdma_cc_core::classes::parse_priority_set`); the error names `field`.
        fn priority_set(text: &str, data: u8, field: &str) -> Result<u8>;
        /// The priorities of `mask` as a list `3,5` (empty for none).
        fn priority_list(mask: u8) -> String;
        /// Checks a class mix `PRIORITY:SHARE,...` (`--classes`) and returns its priorities as a
        /// mask; the error names `field`.
        fn class_mix_mask(text: &str, field: &str) -> Result<u8>;
        /// The priorities of flows 0..n of a run of seed `seed` under the class mix `text`
        /// (each flow a draw of its own); the error names `field`.
        fn class_mix_priorities(text: &str, field: &str, seed: u64, n: u64) -> Result<Vec<u8>>;
        /// The longest a packet can queue along a lossless path without being lost: the sum,
        /// over its hops, of `buffers[i]` bytes (0 for a host's link) drained at `rates_bps[i]`.
        fn max_queueing_ns(rates_bps: &[u64], buffers: &[u64]) -> u64;
    }
}

pub use ffi::Marking;
use ffi::{MarkingOptions, NotEctMode, ScenarioMarking};

fn scheme_auto_help(field: &str) -> Result<String, ConfigError> {
    rdma_cc_schemes::auto_help(field)
}

fn to_ffi(m: rdma_cc_schemes::Marking) -> Marking {
    Marking {
        k_min: m.k_min,
        k_max: m.k_max,
        p_max: m.p_max,
        k_fs: m.k_fs,
        buf_max: m.buf_max,
    }
}

fn scheme_lossless_by_default(scheme: &str) -> Result<bool, ConfigError> {
    let s: Scheme = scheme.parse()?;
    Ok(s.lossless_by_default())
}

/// The treatment of Not-ECT data a lossy switch needs when flows of `scheme` run: threshold
/// drop at `K_fs` when the scheme sends Not-ECT data for the switch to drop (LDCP's fast
/// start), else accept (its packets are ECT and none is dropped early).
fn scheme_not_ect_mode(scheme: &str) -> Result<NotEctMode, ConfigError> {
    Ok(if scheme.parse::<Scheme>()?.drops_not_ect() {
        NotEctMode::ThresholdDrop
    } else {
        NotEctMode::Accept
    })
}

fn scheme_needs_int(scheme: &str) -> Result<bool, ConfigError> {
    let s: Scheme = scheme.parse()?;
    Ok(s.needs_int())
}

/// Checks an example's marking options against each other and the queue limit `buf_max` (the
/// RED/ECN policy's rules). Errors name the options (`--kmin`, `--kfs`, `--bufMax`);
/// `derived_from` names what a value derived from other options came from when the user did
/// not give it (`k_min_derived` etc.).
fn marking_check(
    m: &Marking,
    buf_max: u64,
    k_min_derived: bool,
    k_max_derived: bool,
    k_fs_derived: bool,
    derived_from: &str,
) -> Result<(), ConfigError> {
    let derived = DerivedMarking {
        k_min: k_min_derived,
        k_max: k_max_derived,
        k_fs: k_fs_derived,
    };
    // an example's marking options (named in the policy's table): the error and the rules it
    // quotes are in their words
    const OPTIONS: [&str; 5] = ["kmin", "kmax", "pmax", "kfs", "bufMax"];
    RedEcnConfig {
        ecn: EcnThresholds {
            k_min: Bytes(m.k_min),
            k_max: Bytes(m.k_max),
            p_max: m.p_max,
        },
        not_ect: NotEct::ThresholdDrop,
        k_fs: Bytes(m.k_fs),
        buf_max: Bytes(buf_max),
    }
    .check_given(derived, derived_from, |e| {
        to_options(e, &red_ecn_specs(), &OPTIONS.map(String::from))
    })
}

fn scenario_marking(
    scheme: &str,
    preset: &str,
    rate_bps: u64,
    delay_ns: u64,
    frame: u64,
    given: &MarkingOptions,
    derived_from: &str,
) -> Result<ScenarioMarking, ConfigError> {
    let s: Scheme = scheme.parse()?;
    let given_marking = GivenMarking {
        k_min: given.has_k_min.then_some(given.k_min),
        k_max: given.has_k_max.then_some(given.k_max),
        p_max: given.has_p_max.then_some(given.p_max),
        k_fs: given.has_k_fs.then_some(given.k_fs),
        buf_max: given.has_buf_max.then_some(given.buf_max),
    };
    let marking = to_ffi(s.marking_with(
        DcqcnPreset::from_name(preset),
        Rate(rate_bps),
        Time(delay_ns),
        frame,
        &given_marking,
    ));
    marking_check(
        &marking,
        marking.buf_max,
        !given.has_k_min,
        !given.has_k_max,
        !given.has_k_fs,
        derived_from,
    )?;
    Ok(ScenarioMarking {
        marking,
        not_ect: scheme_not_ect_mode(scheme)?,
    })
}

fn ideal_fct_ns(rates_bps: &[u64], delays_ns: &[u64], size: u64, mtu: u64) -> u64 {
    wire::ideal_fct(&crate::wire::hops(rates_bps, delays_ns), size, mtu).0
}

fn ideal_read_fct_ns(
    request_rates_bps: &[u64],
    request_delays_ns: &[u64],
    rates_bps: &[u64],
    delays_ns: &[u64],
    size: u64,
    mtu: u64,
) -> u64 {
    wire::ideal_read_fct(
        &crate::wire::hops(request_rates_bps, request_delays_ns),
        &crate::wire::hops(rates_bps, delays_ns),
        size,
        mtu,
    )
    .0
}

fn payload_limit_bps(rate_bps: u64, mtu: u64, extra: u64) -> f64 {
    wire::payload_limit_with_extra(Rate(rate_bps), Bytes(mtu), Bytes(extra))
}

fn run_limit_check(
    limit_ns: u64,
    finish_bounds_ns: &[u64],
    sizes: &[u64],
    receivers: &[u32],
    receiver_rates_bps: &[u64],
    mtu: u64,
    extra: u64,
) -> Result<(), ConfigError> {
    let load = RunLoad {
        finish_bounds: finish_bounds_ns.iter().map(|&t| Time(t)).collect(),
        sizes: sizes.iter().map(|&b| Bytes(b)).collect(),
        receivers: receivers.to_vec(),
        receiver_rates: receiver_rates_bps.iter().map(|&r| Rate(r)).collect(),
        mtu: Bytes(mtu),
        extra: Bytes(extra),
    };
    load.check_limit(Time(limit_ns))
}

fn max_queueing_ns(rates_bps: &[u64], buffers: &[u64]) -> u64 {
    wire::max_queueing(
        rates_bps
            .iter()
            .zip(buffers)
            .map(|(&r, &b)| (Rate(r), Bytes(b))),
    )
    .0
}

fn priority_set(text: &str, data: u8, field: &str) -> Result<u8, ConfigError> {
    rdma_cc_core::classes::parse_priority_set(text, data, field)
}

fn priority_list(mask: u8) -> String {
    rdma_cc_core::classes::priority_list(mask)
}

fn class_mix_mask(text: &str, field: &str) -> Result<u8, ConfigError> {
    Ok(rdma_cc_core::classes::ClassMix::parse(text, field)?.mask())
}

fn class_mix_priorities(
    text: &str,
    field: &str,
    seed: u64,
    n: u64,
) -> Result<Vec<u8>, ConfigError> {
    let mix = rdma_cc_core::classes::ClassMix::parse(text, field)?;
    Ok((0..n).map(|i| mix.priority_of_flow(seed, i)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_threshold_errors_say_where_the_value_came_from() {
        let m = Marking {
            k_min: 2_500_000,
            k_max: 10_000_000,
            p_max: 0.2,
            k_fs: 2_500_000,
            buf_max: 0,
        };
        let e = marking_check(&m, 2_000_000, true, true, true, "--rate and --delay")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid --kfs = 2500000 B (not given: derived from --rate and --delay): must be \
             <= --bufMax (2000000 B); set --kfs explicitly"
        );
        let m = Marking {
            k_min: 50_000,
            k_max: 20_000,
            p_max: 0.2,
            k_fs: 1,
            buf_max: 0,
        };
        let e = marking_check(&m, 2_000_000, false, false, false, "")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "invalid --kmin = 50000 B: must be <= --kmax (20000 B)");
    }

    #[test]
    fn only_hpcc_needs_int_and_names_are_checked() {
        assert!(scheme_needs_int("hpcc").unwrap());
        assert!(!scheme_needs_int("dcqcn").unwrap());
        assert!(scheme_lossless_by_default("hpcc").unwrap());
        assert_eq!(scheme_needs_int("cubic").unwrap_err().field, "scheme");
    }

    #[test]
    fn a_limit_shorter_than_the_wire_time_is_named() {
        // 8 x 4 MB at 100 Gb/s: 32 000 frames of 1082 B, 2.77 ms
        let incast = |limit_ns: u64, rate: u64| {
            run_limit_check(
                limit_ns,
                &[0; 8],
                &[4_000_000; 8],
                &[0; 8],
                &[rate],
                1000,
                0,
            )
        };
        incast(1_000_000_000, 100_000_000_000).unwrap();
        let e = incast(2_000_000, 100_000_000_000).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid --limit = 2ms: the run needs at least 0.002770 s of simulated time: \
             32000000 B of payload in 8 flows through the receiver's 100Gbps link; raise --limit"
        );
        // 1 bit/s: hundreds of millions of seconds, no overflow
        let e = incast(1_000_000_000, 1).unwrap_err();
        assert_eq!(e.field, "--limit");
        assert!(run_limit_check(u64::MAX, &[], &[u64::MAX; 4], &[0; 4], &[1], 1, 0).is_err());
        assert_eq!(incast(1, 0).unwrap_err().field, "--rate");
        // a short last frame is padded and carries its headers: 1001 B is 2 frames
        let one = |size: u64, extra: u64, limit_ns: u64| {
            run_limit_check(limit_ns, &[0], &[size], &[0], &[8_000_000_000], 1000, extra)
        };
        // 1082 + 84 (64 + 20) wire bytes at 1 B/ns
        one(1001, 0, 1166).unwrap();
        assert!(one(1001, 0, 1165).is_err());
        // INT: 42 B more in each data frame: 1124 + 125 (1 + 42 + 62, padding not needed)
        one(1001, 42, 1249).unwrap();
        assert!(one(1001, 42, 1248).is_err());
    }

    #[test]
    fn a_limit_below_a_flows_lower_bound_is_named() {
        let rates = [100_000_000_000; 2];
        let check = |limit_ns| {
            run_limit_check(
                limit_ns,
                &[5_000, 30_000],
                &[1000, 1000],
                &[0, 1],
                &rates,
                1000,
                0,
            )
        };
        check(30_000).unwrap();
        assert_eq!(
            check(20_000).unwrap_err().to_string(),
            "invalid --limit = 20us: the run needs at least 0.000030 s of simulated time: the \
             latest flow's start plus the lower bound of its completion time; raise --limit"
        );
        let bad = run_limit_check(1, &[], &[1], &[2], &rates, 1000, 0).unwrap_err();
        assert_eq!(bad.field, "receiver");
    }

    #[test]
    fn scenario_marking_takes_given_values_over_derived_ones_and_checks_them_together() {
        let ldcp = |given: &MarkingOptions| {
            scenario_marking(
                "ldcp",
                "none",
                100_000_000_000,
                1000,
                1062,
                given,
                "--rate and --delay",
            )
        };
        // nothing given: the scheme's own (Scheme::marking), and LDCP's WRED drop
        let r = ldcp(&MarkingOptions::default()).unwrap();
        let m = r.marking;
        assert_eq!(
            (m.k_min, m.k_max, m.k_fs, m.buf_max),
            (12_500, 50_000, 150_000, 2_000_000)
        );
        assert!(r.not_ect == NotEctMode::ThresholdDrop);
        // a given K_fs wins; the others stay derived
        let kfs = MarkingOptions {
            has_k_fs: true,
            k_fs: 20_000,
            ..Default::default()
        };
        let m = ldcp(&kfs).unwrap().marking;
        assert_eq!((m.k_min, m.k_max, m.k_fs), (12_500, 50_000, 20_000));
        // a given K_min: K_max and K_fs follow it, unless given
        let kmin = MarkingOptions {
            has_k_min: true,
            k_min: 30_000,
            has_p_max: true,
            p_max: 0.5,
            ..kfs
        };
        let m = ldcp(&kmin).unwrap().marking;
        assert_eq!(
            (m.k_min, m.k_max, m.p_max, m.k_fs, m.buf_max),
            (30_000, 120_000, 0.5, 20_000, 4_800_000)
        );
        // checked together; a derived value is named as derived
        let small = MarkingOptions {
            has_buf_max: true,
            buf_max: 100_000,
            ..Default::default()
        };
        assert_eq!(
            ldcp(&small).err().expect("refused").to_string(),
            "invalid --kfs = 150000 B (not given: derived from --rate and --delay): must be \
             <= --bufMax (100000 B); set --kfs explicitly"
        );
        let given = MarkingOptions {
            has_k_fs: true,
            k_fs: 200_000,
            ..small
        };
        assert_eq!(
            ldcp(&given).err().expect("refused").to_string(),
            "invalid --kfs = 200000 B: must be <= --bufMax (100000 B)"
        );
        // the other schemes accept Not-ECT packets
        let r = scenario_marking("dcqcn", "", 100_000_000_000, 1000, 1062, &kfs, "").unwrap();
        assert!(r.not_ect == NotEctMode::Accept);
        assert!(scenario_marking("cubic", "", 1, 1, 1, &kfs, "").is_err());
    }

    #[test]
    fn not_ect_drop_is_on_where_ldcp_runs() {
        // (the switch bridge's enum has no Debug: compared, not printed)
        for s in ["ldcp", "ldcp-rate"] {
            assert!(
                scheme_not_ect_mode(s).unwrap() == NotEctMode::ThresholdDrop,
                "{s}"
            );
        }
        for s in ["dcqcn", "timely", "dctcp", "hpcc", "none"] {
            assert!(scheme_not_ect_mode(s).unwrap() == NotEctMode::Accept, "{s}");
        }
        assert_eq!(scheme_not_ect_mode("cubic").err().unwrap().field, "scheme");
    }
}
