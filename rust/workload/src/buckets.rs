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
        .map(|((&(lo, hi, label), v), unfinished)| {
            let s = Summary::of(v);
            BucketStats {
                label,
                min_bytes: lo,
                max_bytes: hi,
                flows: s.n,
                unfinished,
                avg: s.avg,
                p50: s.p50,
                p95: s.p95,
                p99: s.p99,
                max: s.max,
            }
        })
        .collect()
}

/// Mean, percentiles and largest of a sample: what the examples' summaries report for FCTs
/// and slowdowns.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Summary {
    /// Samples.
    pub n: u64,
    /// Mean (0 without samples).
    pub avg: f64,
    /// Median (nearest rank, [`nearest_rank`]; 0 without samples).
    pub p50: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// 99th percentile (nearest rank).
    pub p99: f64,
    /// Largest (0 without samples).
    pub max: f64,
}

impl Summary {
    /// The summary of `v` (any order). The mean sums the sorted samples, smallest first.
    pub fn of(mut v: Vec<f64>) -> Summary {
        if v.is_empty() {
            return Summary::default();
        }
        v.sort_by(f64::total_cmp);
        Summary {
            n: v.len() as u64,
            // summed smallest first from +0, as a plain loop does
            avg: v.iter().fold(0.0, |a, &x| a + x) / v.len() as f64,
            p50: nearest_rank(&v, 0.50),
            p95: nearest_rank(&v, 0.95),
            p99: nearest_rank(&v, 0.99),
            max: v.last().copied().unwrap_or(0.0),
        }
    }
}

/// The `q`-quantile of `sorted` (ascending) by nearest rank: the `ceil(q n)`-th smallest
/// (the smallest for `q n` ≤ 1, the largest for `q` ≥ 1); 0 for no samples.
pub fn nearest_rank(sorted: &[f64], q: f64) -> f64 {
    let k = (q * sorted.len() as f64).ceil() as usize;
    sorted
        .get(k.clamp(1, sorted.len().max(1)) - 1)
        .copied()
        .unwrap_or(0.0)
}

/// The `percent`-th percentile of a histogram by floor rank: the sample at 0-based rank
/// `min(n - 1, floor(n · percent / 100))` of the sorted samples, where `values` (ascending,
/// distinct) occurred `counts[i]` times each and `n = Σ counts` (the dumbbell's queue
/// sampler, which keeps counts rather than every sample). 0 without samples.
pub fn histogram_floor_rank(values: &[u64], counts: &[u64], percent: u64) -> u64 {
    let n: u64 = counts.iter().fold(0u64, |a, &c| a.saturating_add(c));
    if n == 0 {
        return 0;
    }
    let rank = (n - 1).min((n as u128 * percent as u128 / 100) as u64);
    let mut below = 0u64;
    for (&v, &c) in values.iter().zip(counts) {
        below = below.saturating_add(c);
        if below > rank {
            return v;
        }
    }
    values.last().copied().unwrap_or(0)
}

/// The size classes of RCM's FCT figure (NPC 2017, Fig. 9), in report order: mice below
/// 1 MB, medium 1–10 MB (both ends in), elephants above 10 MB; (name, label). MB is decimal.
pub const SIZE_CLASSES: [(&str, &str); 3] = [
    ("mice", "mice <1MB"),
    ("medium", "medium 1-10MB"),
    ("elephants", "elephants >10MB"),
];

/// The index into [`SIZE_CLASSES`] of a flow of `size` bytes.
pub const fn size_class(size: u64) -> usize {
    if size < 1_000_000 {
        0
    } else if size <= 10_000_000 {
        1
    } else {
        2
    }
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

    #[test]
    fn summary_uses_nearest_rank_and_the_sorted_sum() {
        let s = Summary::of((1..=20).rev().map(f64::from).collect());
        // ceil(0.5·20) = 10th, ceil(0.95·20) = 19th, ceil(0.99·20) = 20th
        assert_eq!(
            (s.n, s.avg, s.p50, s.p95, s.p99, s.max),
            (20, 10.5, 10.0, 19.0, 20.0, 20.0)
        );
        assert_eq!(Summary::of(Vec::new()), Summary::default());
        assert_eq!(nearest_rank(&[4.0], 0.0), 4.0);
    }

    #[test]
    fn histogram_floor_rank_counts_repeated_samples() {
        // 100 samples: 0 ×98, 7 ×1, 9 ×1: rank floor(100·99/100) = 99 (0-based) is the 9
        assert_eq!(histogram_floor_rank(&[0, 7, 9], &[98, 1, 1], 99), 9);
        // 10 samples: rank min(9, 9) = 9, the largest
        assert_eq!(histogram_floor_rank(&[1, 2], &[5, 5], 99), 2);
        // 200 samples: rank 198 falls in the first value's 199
        assert_eq!(histogram_floor_rank(&[3, 4], &[199, 1], 99), 3);
        assert_eq!(histogram_floor_rank(&[], &[], 99), 0);
    }

    #[test]
    fn size_classes_edges_are_1mb_and_10mb_inclusive() {
        let got: Vec<usize> = [0, 999_999, 1_000_000, 10_000_000, 10_000_001]
            .into_iter()
            .map(size_class)
            .collect();
        assert_eq!(got, vec![0, 0, 1, 1, 2]);
    }
}
