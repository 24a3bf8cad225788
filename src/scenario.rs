//! Bridge for what a scenario derives from its options and fabric: the switch settings a
//! scheme starts from, the checks of an example's marking options (errors name the options,
//! and say when a value was derived rather than given), the lower bound of a flow's completion
//! time and the payload limit of a link.

use crate::params::to_options;
use crate::switch::red_ecn_specs;
use rdma_cc_core::param::{format_rate, format_time};
use rdma_cc_core::wire::{self, Hop};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use rdma_cc_schemes::Scheme;
use rdma_cc_switch::red::{EcnThresholds, NotEct, RedEcnConfig};

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

    /// RoCEv2 framing constants (bytes), for the C++ model to check its own against.
    #[derive(Clone, Copy, Debug)]
    struct WireConstants {
        /// Ethernet header + FCS, IPv4, UDP, BTH, ICRC around a data payload.
        data_headers: u64,
        /// ACK extended transport header.
        aeth: u64,
        /// Preamble, start-of-frame delimiter and inter-frame gap.
        preamble_ifg: u64,
        /// Smallest Ethernet frame.
        min_frame: u64,
    }

    extern "Rust" {
        /// The framing constants of `rdma_cc_core::wire`.
        fn wire_constants() -> WireConstants;
        /// The marking `scheme` starts from on a link of `rate_bps` and one-way `delay_ns`
        /// carrying frames of `frame` bytes.
        fn scheme_marking(
            scheme: &str,
            rate_bps: u64,
            delay_ns: u64,
            frame: u64,
        ) -> Result<Marking>;
        /// The marking `scheme` derives from a given threshold `k_min` (bytes).
        fn scheme_marking_from(scheme: &str, k_min: u64) -> Result<Marking>;
        /// Whether `scheme` runs on a lossless (PFC) priority by default.
        fn scheme_lossless_by_default(scheme: &str) -> Result<bool>;
        /// Whether `scheme` needs INT hop records from the switches on its paths (HPCC): the
        /// default of the switches' INT when flows of `scheme` run.
        fn scheme_needs_int(scheme: &str) -> Result<bool>;
        /// Checks an example's marking options against each other and the queue limit
        /// `buf_max` (the RED/ECN policy's rules). Errors name the options (`--kmin`, `--kfs`,
        /// `--bufMax`); `derived` names what a value derived from other options came from
        /// when the user did not give it (`k_min_derived` etc.).
        fn marking_check(
            m: &Marking,
            buf_max: u64,
            k_min_derived: bool,
            k_max_derived: bool,
            k_fs_derived: bool,
            derived_from: &str,
        ) -> Result<()>;
        /// The least time a `size`-byte message can take over store-and-forward hops of
        /// `rates_bps[i]` and `delays_ns[i]` (sender's link first), ACK back included.
        fn ideal_fct_ns(rates_bps: &[u64], delays_ns: &[u64], size: u64, mtu: u64) -> u64;
        /// Payload bit/s a link of `rate_bps` carries at most with `mtu`-byte payloads.
        fn payload_limit_bps(rate_bps: u64, mtu: u64) -> f64;
        /// Checks that a run limited to `limit_ns` of simulated time can carry `senders` x
        /// `size` payload bytes (in `mtu`-byte packets, each with its RoCEv2 headers, padding,
        /// preamble and gap) through one link of `rate_bps` at all; the error names `--limit`
        /// and says how long the run needs at least.
        fn incast_limit_check(
            limit_ns: u64,
            rate_bps: u64,
            senders: u64,
            size: u64,
            mtu: u64,
        ) -> Result<()>;
        /// The longest a packet can queue along a lossless path without being lost: the sum,
        /// over its hops, of `buffers[i]` bytes (0 for a host's link) drained at `rates_bps[i]`.
        fn max_queueing_ns(rates_bps: &[u64], buffers: &[u64]) -> u64;
    }
}

pub use ffi::{Marking, WireConstants};

fn wire_constants() -> WireConstants {
    WireConstants {
        data_headers: wire::DATA_HEADERS,
        aeth: wire::AETH,
        preamble_ifg: wire::PREAMBLE_IFG,
        min_frame: wire::MIN_FRAME,
    }
}

fn scheme_marking(
    scheme: &str,
    rate_bps: u64,
    delay_ns: u64,
    frame: u64,
) -> Result<Marking, ConfigError> {
    let s: Scheme = scheme.parse()?;
    Ok(to_ffi(s.marking(Rate(rate_bps), Time(delay_ns), frame)))
}

fn scheme_marking_from(scheme: &str, k_min: u64) -> Result<Marking, ConfigError> {
    let s: Scheme = scheme.parse()?;
    Ok(to_ffi(s.marking_from(k_min)))
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

fn scheme_needs_int(scheme: &str) -> Result<bool, ConfigError> {
    let s: Scheme = scheme.parse()?;
    Ok(s.needs_int())
}

fn marking_check(
    m: &Marking,
    buf_max: u64,
    k_min_derived: bool,
    k_max_derived: bool,
    k_fs_derived: bool,
    derived_from: &str,
) -> Result<(), ConfigError> {
    let cfg = RedEcnConfig {
        ecn: EcnThresholds {
            k_min: Bytes(m.k_min),
            k_max: Bytes(m.k_max),
            p_max: m.p_max,
        },
        not_ect: NotEct::ThresholdDrop,
        k_fs: Bytes(m.k_fs),
        buf_max: Bytes(buf_max),
    };
    // an example's marking options (named in the policy's table): the error and the rules it
    // quotes are in their words
    const OPTIONS: [&str; 5] = ["kmin", "kmax", "pmax", "kfs", "bufMax"];
    cfg.validate().map_err(|e| {
        let specs = red_ecn_specs();
        let attr = specs
            .iter()
            .find(|s| s.name == e.field || s.attr == e.field)
            .map(|s| s.attr);
        let derived = match attr {
            Some("KMin") => k_min_derived,
            Some("KMax") => k_max_derived,
            Some("KFs") => k_fs_derived,
            _ => false,
        };
        let mut e = to_options(e, &specs, &OPTIONS.map(String::from));
        if derived {
            e.value = format!("{} (not given: derived from {derived_from})", e.value);
            e.requirement = format!("{}; set {} explicitly", e.requirement, e.field);
        }
        e
    })
}

fn ideal_fct_ns(rates_bps: &[u64], delays_ns: &[u64], size: u64, mtu: u64) -> u64 {
    let hops: Vec<Hop> = rates_bps
        .iter()
        .zip(delays_ns)
        .map(|(&r, &d)| Hop {
            rate: Rate(r),
            delay: Time(d),
        })
        .collect();
    wire::ideal_fct(&hops, size, mtu).0
}

fn payload_limit_bps(rate_bps: u64, mtu: u64) -> f64 {
    wire::payload_limit(Rate(rate_bps), Bytes(mtu))
}

fn incast_limit_check(
    limit_ns: u64,
    rate_bps: u64,
    senders: u64,
    size: u64,
    mtu: u64,
) -> Result<(), ConfigError> {
    if mtu == 0 || rate_bps == 0 {
        return Err(ConfigError::new(
            "--rate",
            format_rate(Rate(rate_bps)),
            "the rate and the payload per frame must be > 0",
        ));
    }
    // one sender's message on the wire: full frames, and the shorter last one if any
    let full = size / mtu;
    let last = size % mtu;
    let wire = (full as u128).saturating_mul(wire::data_on_wire(Bytes(mtu)).0 as u128)
        + if last > 0 {
            wire::data_on_wire(Bytes(last)).0 as u128
        } else {
            0
        };
    let bits = wire.saturating_mul(senders as u128).saturating_mul(8);
    let need_ns = bits
        .saturating_mul(1_000_000_000)
        .div_ceil(rate_bps as u128);
    if need_ns > limit_ns as u128 {
        return Err(ConfigError::new(
            "--limit",
            format_time(Time(limit_ns)),
            format!(
                "the run needs at least {:.6} s of simulated time: {senders} x {size} B of \
                 payload through the receiver's {} link; raise --limit",
                need_ns as f64 * 1e-9,
                format_rate(Rate(rate_bps))
            ),
        ));
    }
    Ok(())
}

fn max_queueing_ns(rates_bps: &[u64], buffers: &[u64]) -> u64 {
    rates_bps
        .iter()
        .zip(buffers)
        .map(|(&r, &b)| Rate(r).tx_time(Bytes(b)).0)
        .fold(0u64, u64::saturating_add)
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
        incast_limit_check(1_000_000_000, 100_000_000_000, 8, 4_000_000, 1000).unwrap();
        let e = incast_limit_check(2_000_000, 100_000_000_000, 8, 4_000_000, 1000)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "invalid --limit = 2ms: the run needs at least 0.002770 s of simulated time: 8 x \
             4000000 B of payload through the receiver's 100Gbps link; raise --limit"
        );
        // 1 bit/s: hundreds of millions of seconds, no overflow
        let e = incast_limit_check(1_000_000_000, 1, 8, 4_000_000, 1000).unwrap_err();
        assert_eq!(e.field, "--limit");
        assert!(incast_limit_check(u64::MAX, 1, u64::MAX, 1 << 53, 1000).is_err());
    }

    #[test]
    fn ldcp_marking_starts_at_half_a_hop_bdp_and_k_fs_at_six() {
        // 100 Gb/s, 1 µs: one hop's BDP is 25 KB
        let m = scheme_marking("ldcp", 100_000_000_000, 1000, 1062).unwrap();
        assert_eq!(
            (m.k_min, m.k_max, m.k_fs, m.buf_max),
            (12_500, 50_000, 150_000, 2_000_000)
        );
        assert!(scheme_marking("cubic", 1, 1, 1).is_err());
        // a given K_min: K_max and K_fs follow it
        let m = scheme_marking_from("ldcp", 30_000).unwrap();
        assert_eq!(
            (m.k_min, m.k_max, m.p_max, m.k_fs, m.buf_max),
            (30_000, 120_000, 0.2, 360_000, 4_800_000)
        );
        assert_eq!(scheme_marking_from("none", 0).unwrap().k_max, 0);
        assert!(scheme_marking_from("cubic", 1).is_err());
    }
}
