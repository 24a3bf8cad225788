//! Flow-completion slowdown per flow-size bucket.

/// The size buckets of the literature's FCT-slowdown tables (pFabric, HPCC, ...): `[lo, hi)`
/// bytes and a label; KB and MB are decimal (10 KB = 10 000 B). The last is open-ended
/// (`hi` = `u64::MAX`).
pub const SIZE_BUCKETS: [(u64, u64, &str); 5] = [
    (0, 10_000, "<10KB"),
    (10_000, 100_000, "10KB-100KB"),
    (100_000, 1_000_000, "100KB-1MB"),
    (1_000_000, 10_000_000, "1MB-10MB"),
    (10_000_000, u64::MAX, ">=10MB"),
];

/// The slowdowns (FCT / ideal FCT) of the finished flows of one size bucket.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketStats {
    /// The bucket's label ([`SIZE_BUCKETS`]).
    pub label: &'static str,
    /// Smallest size in the bucket, bytes.
    pub min_bytes: u64,
    /// First size above the bucket, bytes (`u64::MAX`: no upper bound).
    pub max_bytes: u64,
    /// Finished flows of the bucket (the statistics' sample).
    pub flows: u64,
    /// Flows of the bucket that did not finish (not in the statistics).
    pub unfinished: u64,
    /// Mean slowdown (0 for an empty bucket).
    pub avg: f64,
    /// Median (nearest rank; 0 for an empty bucket).
    pub p50: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// The slowdown statistics of flows of sizes `sizes` (bytes) and slowdowns `slowdowns` (the
/// same order; a NaN or a missing slowdown is a flow that did not finish), per
/// [`SIZE_BUCKETS`] bucket, in bucket order (every bucket, empty ones too). Percentiles are by
/// nearest rank (the `ceil(q n)`-th smallest), as the examples' summary reports them.
pub fn slowdown_buckets(sizes: &[u64], slowdowns: &[f64]) -> Vec<BucketStats> {
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); SIZE_BUCKETS.len()];
    let mut unfinished = [0u64; SIZE_BUCKETS.len()];
    for (i, &size) in sizes.iter().enumerate() {
        let b = SIZE_BUCKETS
            .iter()
            .position(|&(lo, hi, _)| size >= lo && size < hi)
            .unwrap_or(SIZE_BUCKETS.len() - 1); // u64::MAX itself: the open bucket
        match slowdowns.get(i) {
            Some(&s) if s.is_finite() => samples[b].push(s),
            _ => unfinished[b] += 1,
        }
    }
    SIZE_BUCKETS
        .iter()
        .zip(samples)
        .zip(unfinished)
        .map(|((&(lo, hi, label), mut v), unfinished)| {
            v.sort_by(f64::total_cmp);
            let rank = |q: f64| -> f64 {
                let k = (q * v.len() as f64).ceil() as usize;
                v.get(k.clamp(1, v.len().max(1)) - 1)
                    .copied()
                    .unwrap_or(0.0)
            };
            BucketStats {
                label,
                min_bytes: lo,
                max_bytes: hi,
                flows: v.len() as u64,
                unfinished,
                avg: if v.is_empty() {
                    0.0
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                },
                p50: rank(0.50),
                p95: rank(0.95),
                p99: rank(0.99),
                max: v.last().copied().unwrap_or(0.0),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flows_fall_in_their_bucket_with_nearest_rank_percentiles() {
        // bucket edges: 9999 and 10 000, 99 999 and 100 000, 10 MB
        let sizes = [
            1,
            9_999,
            10_000,
            99_999,
            100_000,
            999_999,
            1_000_000,
            9_999_999,
            10_000_000,
            u64::MAX,
        ];
        let slow = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, f64::NAN];
        let b = slowdown_buckets(&sizes, &slow);
        assert_eq!(b.len(), 5);
        let got: Vec<(&str, u64, u64, f64, f64)> = b
            .iter()
            .map(|x| (x.label, x.flows, x.unfinished, x.p50, x.max))
            .collect();
        assert_eq!(
            got,
            vec![
                ("<10KB", 2, 0, 1.0, 2.0),
                ("10KB-100KB", 2, 0, 3.0, 4.0),
                ("100KB-1MB", 2, 0, 5.0, 6.0),
                ("1MB-10MB", 2, 0, 7.0, 8.0),
                (">=10MB", 1, 1, 9.0, 9.0),
            ]
        );
        // 1..=100: p50 the 50th, p95 the 95th, p99 the 99th, avg 50.5
        let sizes = vec![5000u64; 100];
        let slow: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let b = &slowdown_buckets(&sizes, &slow)[0];
        assert_eq!(
            (b.p50, b.p95, b.p99, b.max, b.avg),
            (50.0, 95.0, 99.0, 100.0, 50.5)
        );
        // one flow: every percentile is it; empty buckets are zeros
        let b = slowdown_buckets(&[20_000], &[3.5]);
        assert_eq!((b[1].p50, b[1].p99, b[1].flows), (3.5, 3.5, 1));
        assert_eq!(
            (b[0].flows, b[0].p50, b[0].avg, b[0].max),
            (0, 0.0, 0.0, 0.0)
        );
        // missing slowdowns are unfinished flows
        let b = slowdown_buckets(&[1, 2, 3], &[1.5]);
        assert_eq!((b[0].flows, b[0].unfinished), (1, 2));
    }
}
