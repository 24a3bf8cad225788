//! Flow-size distributions.

use crate::error::ParseError;
use crate::rng::Rng;
use crate::text::records;
use rdma_cc_core::param::{parse_real, parse_whole};
use rdma_cc_core::{Bytes, ConfigError};

/// Largest flow, bytes: 2^40 (1 TiB, 88 s at 100 Gb/s). A run sums its flows' bytes in 64-bit
/// counters: [`MAX_EXPECTED_FLOWS`](crate::MAX_EXPECTED_FLOWS) flows of this size still fit.
pub const MAX_FLOW_BYTES: u64 = 1 << 40;

/// A flow-size distribution: points `(size_bytes, cdf_percent)`, the percentage of flows of at
/// most that size, as the HPCC simulator's traffic generator reads them (one point a line,
/// `30000 30`), with the inverse-transform sampler that generator uses.
///
/// Sizes and percents never decrease; percents are in [0, 100] and the last is 100. The first
/// percent may be above 0: that share of flows has exactly the first size. (The HPCC
/// generator requires a first percent of 0 and strictly increasing points; equal neighbours
/// are accepted here, as a step or a flat part of the curve.) A size is at most
/// [`MAX_FLOW_BYTES`], and no share of the flows may have 0 bytes (a point `0 P` has `P` 0):
/// a distribution whose flows are all empty would make arrivals without end.
#[derive(Debug, Clone, PartialEq)]
pub struct Cdf {
    sizes: Vec<u64>,
    percents: Vec<f64>,
}

impl Cdf {
    /// The distribution of `points` (`(size_bytes, cdf_percent)`, in order), checked; the
    /// error names the point's index (`point 3`).
    pub fn new(points: &[(u64, f64)]) -> Result<Cdf, ConfigError> {
        let mut c = Cdf {
            sizes: Vec::with_capacity(points.len()),
            percents: Vec::with_capacity(points.len()),
        };
        for (i, &(s, p)) in points.iter().enumerate() {
            c.push(s, p).map_err(|(field, value, rule)| {
                ConfigError::new(format!("point {i} {field}"), value, rule)
            })?;
        }
        c.finish()
            .map_err(|(field, value, rule)| ConfigError::new(field, value, rule))?;
        Ok(c)
    }

    /// Parses and checks CDF file `file` (text `text`; the name is used in messages only): one
    /// point a line, `size_bytes cdf_percent` (whitespace-separated, blank lines skipped).
    pub fn parse(file: &str, text: &str) -> Result<Cdf, ParseError> {
        let mut c = Cdf {
            sizes: Vec::new(),
            percents: Vec::new(),
        };
        let mut last_line = 0;
        for (l, f) in records(text) {
            last_line = l;
            if f.len() != 2 {
                return Err(ParseError::at(
                    file,
                    l,
                    "point",
                    f.join(" "),
                    "must be 2 fields: size_bytes cdf_percent",
                ));
            }
            let size = parse_whole(f[0]).ok_or_else(|| {
                ParseError::at(
                    file,
                    l,
                    "size_bytes",
                    f[0],
                    "must be a whole number of bytes",
                )
            })?;
            let percent = parse_real(f[1]).ok_or_else(|| {
                ParseError::at(file, l, "cdf_percent", f[1], "must be a number in [0, 100]")
            })?;
            c.push(size, percent)
                .map_err(|(field, value, rule)| ParseError::at(file, l, field, value, rule))?;
        }
        c.finish().map_err(|(field, value, rule)| match last_line {
            0 => ParseError::whole(file, field, value, rule),
            l => ParseError::at(file, l, field, value, rule),
        })?;
        Ok(c)
    }

    /// Appends a point after checking it against the previous one.
    fn push(&mut self, size: u64, percent: f64) -> Result<(), (&'static str, String, String)> {
        if !(0.0..=100.0).contains(&percent) {
            return Err((
                "cdf_percent",
                percent.to_string(),
                "must be a number in [0, 100]".into(),
            ));
        }
        if size > MAX_FLOW_BYTES {
            return Err((
                "size_bytes",
                size.to_string(),
                format!(
                    "must be at most {MAX_FLOW_BYTES} (2^40 bytes, 1 TiB): a run counts its \
                     flows' bytes in 64 bits"
                ),
            ));
        }
        if size == 0 && percent > 0.0 {
            return Err((
                "cdf_percent",
                percent.to_string(),
                "gives flows of size_bytes 0: a flow has at least 1 byte (only 0 % of the \
                 flows may be at size 0)"
                    .into(),
            ));
        }
        if let (Some(&s), Some(&p)) = (self.sizes.last(), self.percents.last()) {
            if size < s {
                return Err((
                    "size_bytes",
                    size.to_string(),
                    format!("must not be below the previous point's size ({s})"),
                ));
            }
            if percent < p {
                return Err((
                    "cdf_percent",
                    percent.to_string(),
                    format!("must not be below the previous point's percent ({p})"),
                ));
            }
            if p == 100.0 {
                return Err((
                    "cdf_percent",
                    percent.to_string(),
                    "follows a point at 100: the distribution ends at the first 100".into(),
                ));
            }
        }
        self.sizes.push(size);
        self.percents.push(percent);
        Ok(())
    }

    /// Checks the last point.
    fn finish(&self) -> Result<(), (&'static str, String, String)> {
        match self.percents.last() {
            None => Err((
                "cdf",
                "\"\"".into(),
                "has no point: one `size_bytes cdf_percent` a line".into(),
            )),
            Some(&p) if p != 100.0 => Err((
                "cdf_percent",
                p.to_string(),
                "the last point must be at 100".into(),
            )),
            Some(_) => Ok(()),
        }
    }

    /// The points, `(size_bytes, cdf_percent)`, in order.
    pub fn points(&self) -> impl Iterator<Item = (u64, f64)> + '_ {
        self.sizes
            .iter()
            .copied()
            .zip(self.percents.iter().copied())
    }

    /// The largest size.
    pub fn max_size(&self) -> Bytes {
        Bytes(self.sizes.last().copied().unwrap_or(0))
    }

    /// `n` flow sizes, each [`Self::sample`] of a draw of the generator of seed `seed` in
    /// turn (each at least 1 byte).
    pub fn sample_sizes(&self, n: u64, seed: u64) -> Vec<u64> {
        let mut rng = Rng::new(seed);
        (0..n).map(|_| self.sample(rng.next_f64()).0).collect()
    }

    /// A flow size for the uniform random draw `u` in [0, 1): inverse-transform sampling with
    /// linear interpolation between the points, as the HPCC simulator's traffic generator does
    /// (`y = 100 u`; on the segment from `(s0, p0)` to `(s1, p1)` that holds `y`,
    /// `s0 + (s1 - s0) (y - p0) / (p1 - p0)`), truncated to whole bytes and at least 1 byte (as
    /// that generator's `int()` and its floor of 1). A draw below the first percent gives the
    /// first size. `u` outside [0, 1) (or NaN) is clamped into it; the result is nondecreasing
    /// in `u` and within [max(1, first size), last size].
    pub fn sample(&self, u: f64) -> Bytes {
        let n = self.sizes.len();
        let (Some(&first), Some(&last)) = (self.sizes.first(), self.sizes.last()) else {
            return Bytes(1);
        };
        let u = if u.is_nan() { 0.0 } else { u };
        if u >= 1.0 {
            return Bytes(last.max(1));
        }
        let y = u.max(0.0) * 100.0;
        // the first point whose percent is above y (exists: the last percent is 100 > y);
        // its segment starts below it, so p1 > p0 and the division is defined
        let i = self.percents.partition_point(|&p| p <= y);
        if i == 0 {
            return Bytes(first.max(1));
        }
        let i = i.min(n - 1);
        let (s0, p0) = (self.sizes[i - 1] as f64, self.percents[i - 1]);
        let (s1, p1) = (self.sizes[i] as f64, self.percents[i]);
        let x = s0 + (s1 - s0) * (y - p0) / (p1 - p0);
        // interpolation stays within [s0, s1]; guard the float edges all the same
        let x = x.clamp(s0, s1) as u64;
        Bytes(x.max(1))
    }

    /// The mean size of the interpolated distribution (before truncation to whole bytes), as
    /// the HPCC traffic generator computes it to set the arrival rate for a load: the first
    /// size times the first percent, plus every segment's midpoint times its percent.
    pub fn mean_bytes(&self) -> f64 {
        let (Some(&s0), Some(&p0)) = (self.sizes.first(), self.percents.first()) else {
            return 0.0;
        };
        let mut sum = s0 as f64 * p0;
        for i in 1..self.sizes.len() {
            let mid = (self.sizes[i] as f64 + self.sizes[i - 1] as f64) / 2.0;
            sum += mid * (self.percents[i] - self.percents[i - 1]);
        }
        sum / 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WEB: &str = "0 0\n10000 15\n20000 20\n30000 30\n50000 40\n80000 53\n200000 60\n\
                       1000000 70\n2000000 80\n5000000 90\n10000000 97\n30000000 100\n";

    fn parse(text: &str) -> Result<Cdf, String> {
        Cdf::parse("c.txt", text).map_err(|e| e.to_string())
    }

    #[test]
    fn interpolates_linearly_between_points() {
        let c = parse(WEB).unwrap();
        assert_eq!(c.points().count(), 12);
        assert_eq!(c.sample(0.0), Bytes(1)); // size 0 is floored at 1 byte
        assert_eq!(c.sample(0.125), Bytes(8333)); // 10000 x 12.5 / 15, truncated
        assert_eq!(c.sample(0.1875), Bytes(17500)); // 10000 + 10000 x 3.75 / 5
        assert_eq!(c.sample(0.25), Bytes(25000));
        assert_eq!(c.sample(0.95), Bytes(8_571_428)); // 5e6 + 5e6 x 5 / 7, truncated
        assert_eq!(c.sample(0.999_999), Bytes(29_999_333));
        assert_eq!(c.sample(1.0), Bytes(30_000_000));
        assert_eq!(c.sample(7.0), Bytes(30_000_000));
        assert_eq!(c.sample(-1.0), Bytes(1));
        assert_eq!(c.sample(f64::NAN), Bytes(1));
        assert_eq!(c.max_size(), Bytes(30_000_000));
    }

    #[test]
    fn a_first_percent_above_zero_is_a_point_mass_and_steps_are_allowed() {
        // 10 % of flows are 100 B; a step from 1000 to 5000 B at 50 %
        let c = Cdf::new(&[(100, 10.0), (1000, 50.0), (5000, 50.0), (9000, 100.0)]).unwrap();
        assert_eq!(c.sample(0.05), Bytes(100));
        assert_eq!(c.sample(0.3), Bytes(550));
        assert_eq!(c.sample(0.5), Bytes(5000));
        assert_eq!(c.sample(0.75), Bytes(7000));
        // a flat part: sizes 1000..5000 never drawn
        let c = Cdf::new(&[(0, 0.0), (1000, 50.0), (1000, 60.0), (2000, 100.0)]).unwrap();
        assert_eq!(c.sample(0.55), Bytes(1000));
        // one point: every flow has that size
        let c = Cdf::new(&[(4096, 100.0)]).unwrap();
        assert_eq!(c.sample(0.3), Bytes(4096));
    }

    #[test]
    fn sample_sizes_are_the_seeds_draws_in_turn_each_at_least_one_byte() {
        // a CDF whose first point is size 0: 10 % of the draws fall below 1 byte before the floor
        let c = Cdf::new(&[(0, 0.0), (10, 10.0), (1000, 100.0)]).unwrap();
        let sizes = c.sample_sizes(2000, 7);
        assert_eq!(sizes.len(), 2000);
        let mut rng = Rng::new(7);
        let expect: Vec<u64> = (0..2000).map(|_| c.sample(rng.next_f64()).0).collect();
        assert_eq!(sizes, expect);
        assert_eq!(sizes.iter().min(), Some(&1));
        assert!(
            sizes.iter().filter(|&&s| s < 10).count() > 100,
            "the low decile is drawn"
        );
        assert_eq!(c.sample_sizes(2000, 7), sizes);
        assert_ne!(c.sample_sizes(2000, 8), sizes);
        assert!(c.sample_sizes(0, 7).is_empty());
    }

    #[test]
    fn mean_is_the_hpcc_generators() {
        // DCTCP web search, from the trapezoids of its segments
        let c = parse(WEB).unwrap();
        let expect = [
            (0.0, 10000.0, 15.0),
            (10000.0, 20000.0, 5.0),
            (20000.0, 30000.0, 10.0),
            (30000.0, 50000.0, 10.0),
            (50000.0, 80000.0, 13.0),
            (80000.0, 200000.0, 7.0),
            (200000.0, 1e6, 10.0),
            (1e6, 2e6, 10.0),
            (2e6, 5e6, 10.0),
            (5e6, 1e7, 7.0),
            (1e7, 3e7, 3.0),
        ]
        .iter()
        .map(|(a, b, w)| (a + b) / 2.0 * w)
        .sum::<f64>()
            / 100.0;
        assert!((c.mean_bytes() - expect).abs() < 1e-6, "{}", c.mean_bytes());
        let c = Cdf::new(&[(100, 10.0), (100, 100.0)]).unwrap();
        assert_eq!(c.mean_bytes(), 100.0);
    }

    #[test]
    fn errors_name_the_line_field_and_value() {
        assert_eq!(
            parse("0 0\n100 50\n90 60\n1000 100\n").unwrap_err(),
            "c.txt:3: invalid size_bytes = 90: must not be below the previous point's size (100)"
        );
        assert_eq!(
            parse("0 0\n100 50\n200 40\n1000 100\n").unwrap_err(),
            "c.txt:3: invalid cdf_percent = 40: must not be below the previous point's percent \
             (50)"
        );
        assert_eq!(
            parse("0 0\n100 50\n").unwrap_err(),
            "c.txt:2: invalid cdf_percent = 50: the last point must be at 100"
        );
        assert_eq!(
            parse("0 0\n100 100\n200 100\n").unwrap_err(),
            "c.txt:3: invalid cdf_percent = 100: follows a point at 100: the distribution ends \
             at the first 100"
        );
        assert_eq!(
            parse("0 -1\n100 100\n").unwrap_err(),
            "c.txt:1: invalid cdf_percent = -1: must be a number in [0, 100]"
        );
        assert_eq!(
            parse("0 0\n100 101\n").unwrap_err(),
            "c.txt:2: invalid cdf_percent = 101: must be a number in [0, 100]"
        );
        assert!(parse("0 0\n1e3x 100\n")
            .unwrap_err()
            .starts_with("c.txt:2: invalid size_bytes = 1e3x"));
        assert!(parse("0 0 0\n")
            .unwrap_err()
            .starts_with("c.txt:1: invalid point = 0 0 0: must be 2 fields"));
        assert!(parse("\n\n")
            .unwrap_err()
            .starts_with("c.txt: invalid cdf = \"\": has no point"));
        assert_eq!(
            Cdf::new(&[(5, 10.0), (4, 100.0)]).unwrap_err().to_string(),
            "invalid point 1 size_bytes = 4: must not be below the previous point's size (5)"
        );
        assert!(Cdf::new(&[]).is_err());
    }

    #[test]
    fn degenerate_distributions_are_refused() {
        // every flow of 0 bytes: arrivals without end
        assert_eq!(
            parse("0 100\n").unwrap_err(),
            "c.txt:1: invalid cdf_percent = 100: gives flows of size_bytes 0: a flow has at \
             least 1 byte (only 0 % of the flows may be at size 0)"
        );
        assert!(parse("0 0\n0 100\n")
            .unwrap_err()
            .starts_with("c.txt:2: invalid cdf_percent = 100: gives flows of size_bytes 0"));
        assert!(parse("0 0\n0 30\n100 100\n")
            .unwrap_err()
            .starts_with("c.txt:2: invalid cdf_percent = 30"));
        // beyond the byte counters
        assert_eq!(
            parse("18446744073709551615 100\n").unwrap_err(),
            "c.txt:1: invalid size_bytes = 18446744073709551615: must be at most 1099511627776 \
             (2^40 bytes, 1 TiB): a run counts its flows' bytes in 64 bits"
        );
        assert!(parse("0 0\n1099511627777 100\n").is_err());
        // the limits themselves are fine
        let c = parse("0 0\n1099511627776 100\n").unwrap();
        assert_eq!(c.max_size(), Bytes(MAX_FLOW_BYTES));
        assert!(parse("0 0\n1 100\n").unwrap().mean_bytes() > 0.0);
    }
}
