//! The workload generator's own pseudo-random numbers: xoshiro256** seeded by SplitMix64.

/// A small, fast pseudo-random generator with a documented algorithm, so that a workload is
/// the same for the same seed on every machine and every version of this crate's
/// dependencies: xoshiro256** (D. Blackman and S. Vigna, "Scrambled Linear Pseudorandom Number
/// Generators", ACM TOMS 47(4), 2021; 256 bits of state, period 2^256 − 1), its state filled
/// from the seed by SplitMix64 (G. Steele, D. Lea and C. Flood, "Fast Splittable
/// Pseudorandom Number Generators", OOPSLA 2014), as the xoshiro authors recommend.
///
/// Not for cryptography. Every seed, 0 included, gives a valid (non-zero) state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

/// One step of SplitMix64: advances `state` and returns the next output.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    /// The generator for `seed`: its four state words are the first four outputs of
    /// SplitMix64 started at `seed`.
    pub fn new(seed: u64) -> Rng {
        let mut sm = seed;
        let s = [
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
            splitmix64(&mut sm),
        ];
        // SplitMix64 is a bijection of its counter: four zero outputs in a row cannot happen
        debug_assert!(s.iter().any(|&w| w != 0));
        Rng { s }
    }

    /// The next 64 random bits (xoshiro256**).
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform draw in [0, 1): the top 53 bits as a multiple of 2^-53.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform whole number in [0, n) (0 when `n` is 0), without bias: Lemire's
    /// multiply-and-reject method ("Fast Random Integer Generation in an Interval", ACM TOMACS
    /// 29(1), 2019).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let threshold = n.wrapping_neg() % n; // 2^64 mod n
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// An exponential draw of mean `mean` (inverse transform of a uniform draw): the gap
    /// between two arrivals of a Poisson process of rate 1 / `mean`.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - u is in (0, 1]: the logarithm is finite
        -(1.0 - self.next_f64()).ln() * mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_generators_match_their_published_outputs() {
        // SplitMix64 from 0 (Vigna's splitmix64.c)
        let mut s = 0u64;
        let expect = [
            0xe220_a839_7b1d_cdaf_u64,
            0x6e78_9e6a_a1b9_65f4,
            0x06c4_5d18_8009_454f,
            0xf88b_b8a8_724c_81ec,
        ];
        for e in expect {
            assert_eq!(splitmix64(&mut s), e);
        }
        // xoshiro256** from the state {1, 2, 3, 4} (Vigna's xoshiro256starstar.c)
        let mut r = Rng { s: [1, 2, 3, 4] };
        let expect = [
            11_520u64,
            0,
            1_509_978_240,
            1_215_971_899_390_074_240,
            1_216_172_134_540_287_360,
        ];
        for e in expect {
            assert_eq!(r.next_u64(), e);
        }
        // a seed's state is SplitMix64's first four outputs
        assert_eq!(
            Rng::new(0).s,
            [expect_sm(0), expect_sm(1), expect_sm(2), expect_sm(3)]
        );
    }

    fn expect_sm(i: usize) -> u64 {
        [
            0xe220_a839_7b1d_cdaf_u64,
            0x6e78_9e6a_a1b9_65f4,
            0x06c4_5d18_8009_454f,
            0xf88b_b8a8_724c_81ec,
        ][i]
    }

    #[test]
    fn same_seed_same_stream_and_draws_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let mut c = Rng::new(8);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..100).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        let mut r = Rng::new(0);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            let u = r.next_f64();
            assert!((0.0..1.0).contains(&u));
            counts[r.below(6) as usize] += 1;
        }
        // each face within 5 % of 10 000 (a standard deviation is 91)
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
        let mean = (0..100_000).map(|_| r.exponential(3.0)).sum::<f64>() / 100_000.0;
        assert!((mean - 3.0).abs() < 0.05, "{mean}");
    }
}
