//! Lines, fields and the unit-carrying values of the files.

use rdma_cc_core::param::{parse_real, parse_time_ns};
use rdma_cc_core::{Rate, Time};

/// The non-blank lines of `text` (numbered from 1, blank lines counted), each split into its
/// whitespace-separated fields: the HPCC simulator reads these files as whitespace-separated
/// streams, so spaces, tabs and `\r\n` line ends are all accepted.
pub(crate) fn records(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty())
}

/// A whole number written with digits only (`17`; not `+17`, `1e3` or `17.0`): node ids,
/// counts, priorities and ports.
pub(crate) fn parse_digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The units of an ns-3 `DataRate` string (ns-3's `DataRate::DoParse`), in bit/s per unit.
const RATE_UNITS: [(&str, f64); 26] = [
    ("bps", 1.0),
    ("b/s", 1.0),
    ("Bps", 8.0),
    ("B/s", 8.0),
    ("kbps", 1e3),
    ("kb/s", 1e3),
    ("Kbps", 1e3),
    ("Kb/s", 1e3),
    ("kBps", 8e3),
    ("kB/s", 8e3),
    ("KBps", 8e3),
    ("KB/s", 8e3),
    ("Kib/s", 1024.0),
    ("KiB/s", 8192.0),
    ("Mbps", 1e6),
    ("Mb/s", 1e6),
    ("MBps", 8e6),
    ("MB/s", 8e6),
    ("Mib/s", 1_048_576.0),
    ("MiB/s", 8_388_608.0),
    ("Gbps", 1e9),
    ("Gb/s", 1e9),
    ("GBps", 8e9),
    ("GB/s", 8e9),
    ("Gib/s", 1_073_741_824.0),
    ("GiB/s", 8_589_934_592.0),
];

/// What [`parse_data_rate`] accepts, for error messages.
pub(crate) const RATE_RULE: &str = "must be a rate above 0 in whole bit/s, a number with an ns-3 \
     DataRate unit: bps, b/s, Bps, B/s with k, K, M, G (e.g. 100Gbps, 400Gb/s, 25Mbps, 12.5GBps) \
     or Ki, Mi, Gi before b/s or B/s";

/// A link rate as an ns-3 `DataRate` string writes it (`100Gbps`, `400Gb/s`, `10Mbps`,
/// `1KiB/s`: a decimal number followed by one of ns-3's units, bits or bytes per second with
/// the prefixes k/K, M, G and Ki, Mi, Gi). Unlike ns-3, the rate must come to a whole number of
/// bit/s above 0 and a unit is required (ns-3 reads a bare number as bit/s; the HPCC files
/// always write the unit). `None` when the text is not such a rate.
pub fn parse_data_rate(text: &str) -> Option<Rate> {
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '.')?;
    let (number, unit) = text.split_at(split);
    let scale = RATE_UNITS.iter().find(|(u, _)| *u == unit)?.1;
    // digits with at most one decimal point (ns-3 takes the longest such prefix; the whole
    // number must be one here)
    if number.bytes().filter(|&c| c == b'.').count() > 1 || !number.bytes().any(|c| c != b'.') {
        return None;
    }
    let bits = parse_real(number)? * scale;
    let whole = bits.round();
    // tolerate the rounding of a decimal fraction (`2.5Gbps`), as the option parser does
    let exact = (bits - whole).abs() <= 1e-6 * whole.max(1.0);
    (exact && whole >= 1.0 && whole < u64::MAX as f64).then_some(Rate(whole as u64))
}

/// What [`parse_delay`] accepts, for error messages.
pub(crate) const DELAY_RULE: &str = "must be a duration in whole nanoseconds with its unit ns, \
     us, ms or s (e.g. 1000ns, 1us, 0.001ms), or 0";

/// A link delay: a number with `ns`, `us`, `ms` or `s` (`1000ns`, `1us`, `0.001ms`), whole
/// nanoseconds (ns-3's default time resolution), or a bare `0`. `None` otherwise.
pub fn parse_delay(text: &str) -> Option<Time> {
    parse_time_ns(text).map(Time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_skip_blank_lines_and_keep_their_numbers() {
        let r: Vec<_> = records("a b\n\n  \r\nc\td\r\n").collect();
        assert_eq!(r, vec![(1, vec!["a", "b"]), (4, vec!["c", "d"])]);
    }

    #[test]
    fn digits_only() {
        assert_eq!(parse_digits("0"), Some(0));
        assert_eq!(parse_digits("375"), Some(375));
        for bad in [
            "",
            "+1",
            "-1",
            "1e3",
            "1.0",
            " 1",
            "x",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_digits(bad), None, "{bad}");
        }
    }

    #[test]
    fn rates_of_every_ns3_unit() {
        for (text, bps) in [
            ("100Gbps", 100_000_000_000),
            ("400Gbps", 400_000_000_000),
            ("400Gb/s", 400_000_000_000),
            ("2.5Gbps", 2_500_000_000),
            ("25Mbps", 25_000_000),
            ("10kbps", 10_000),
            ("10Kbps", 10_000),
            ("1000bps", 1000),
            ("1Bps", 8),
            ("12.5GBps", 100_000_000_000),
            ("1KiB/s", 8192),
            ("1Kib/s", 1024),
            ("1Mib/s", 1_048_576),
            ("1Gib/s", 1_073_741_824),
            ("1GiB/s", 8_589_934_592),
            ("1kB/s", 8000),
        ] {
            assert_eq!(parse_data_rate(text), Some(Rate(bps)), "{text}");
        }
    }

    #[test]
    fn rates_without_a_known_unit_or_not_whole_are_refused() {
        for bad in [
            "100",
            "100Gbs",
            "100gbps",
            "100Tbps",
            "100 Gbps",
            "Gbps",
            ".Gbps",
            "1.2.3Gbps",
            "-1Gbps",
            "0Gbps",
            "0.5bps",
            "1e9bps",
            "100Kibps",
            "",
            "1e30GBps",
        ] {
            assert_eq!(parse_data_rate(bad), None, "{bad}");
        }
    }

    #[test]
    fn delays_in_whole_nanoseconds() {
        for (text, ns) in [("1000ns", 1000), ("1us", 1000), ("0.001ms", 1000), ("0", 0)] {
            assert_eq!(parse_delay(text), Some(Time(ns)), "{text}");
        }
        for bad in ["1000", "1ps", "0.5ns", "-1us", "1 us", "1min"] {
            assert_eq!(parse_delay(bad), None, "{bad}");
        }
    }
}
