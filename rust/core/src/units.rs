use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// A byte count (packet sizes, queue lengths, buffer sizes, thresholds).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Bytes(pub u64);

/// A bit rate in bits per second.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Rate(pub u64);

/// A point in simulated time, or a duration, in nanoseconds.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Time(pub u64);

macro_rules! integer_unit {
    ($t:ident) => {
        impl Add for $t {
            type Output = $t;
            #[inline]
            fn add(self, o: $t) -> $t {
                $t(self.0 + o.0)
            }
        }
        impl AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, o: $t) {
                self.0 += o.0;
            }
        }
        impl Sub for $t {
            type Output = $t;
            /// Subtraction; panics in debug builds on underflow like integer subtraction.
            #[inline]
            fn sub(self, o: $t) -> $t {
                $t(self.0 - o.0)
            }
        }
        impl SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, o: $t) {
                self.0 -= o.0;
            }
        }
        impl $t {
            /// Zero of this unit.
            pub const ZERO: $t = $t(0);
            /// Largest representable value.
            pub const MAX: $t = $t(u64::MAX);
            /// `self - o`, or zero if `o` is larger.
            #[inline]
            pub const fn saturating_sub(self, o: $t) -> $t {
                $t(self.0.saturating_sub(o.0))
            }
            /// `self + o`, or [`Self::MAX`] on overflow.
            #[inline]
            pub const fn saturating_add(self, o: $t) -> $t {
                $t(self.0.saturating_add(o.0))
            }
        }
    };
}
integer_unit!(Bytes);
integer_unit!(Rate);
integer_unit!(Time);

impl Bytes {
    /// `n` kilobytes of 1000 bytes.
    pub const fn kb(n: u64) -> Bytes {
        Bytes(n * 1000)
    }
    /// `n` kibibytes of 1024 bytes.
    pub const fn kib(n: u64) -> Bytes {
        Bytes(n * 1024)
    }
    /// `n` megabytes of 10^6 bytes.
    pub const fn mb(n: u64) -> Bytes {
        Bytes(n * 1_000_000)
    }
    /// Number of bits.
    pub const fn bits(self) -> u64 {
        self.0 * 8
    }
}

impl Rate {
    /// `n` Gb/s.
    pub const fn gbps(n: u64) -> Rate {
        Rate(n * 1_000_000_000)
    }
    /// `n` Mb/s.
    pub const fn mbps(n: u64) -> Rate {
        Rate(n * 1_000_000)
    }
    /// Time to serialise `b` bytes at this rate, rounded up to whole nanoseconds.
    /// A zero rate never finishes: returns [`Time::MAX`].
    #[inline]
    pub fn tx_time(self, b: Bytes) -> Time {
        if self.0 == 0 {
            return Time::MAX;
        }
        let bits = b.0 as u128 * 8 * 1_000_000_000;
        Time(bits.div_ceil(self.0 as u128).min(u64::MAX as u128) as u64)
    }
    /// Time to serialise `b` bytes at this rate, rounded down to whole nanoseconds: a rate
    /// limiter that spaces packets by this never holds one longer than its rate requires (so
    /// pacing at the link's own rate keeps the link busy). A zero rate: [`Time::MAX`].
    #[inline]
    pub fn tx_time_floor(self, b: Bytes) -> Time {
        if self.0 == 0 {
            return Time::MAX;
        }
        let bits = b.0 as u128 * 8 * 1_000_000_000;
        Time((bits / self.0 as u128).min(u64::MAX as u128) as u64)
    }
    /// Whole bytes this rate carries in `t` (rounded down): the bandwidth-delay product.
    #[inline]
    pub fn bytes_in(self, t: Time) -> Bytes {
        let bits = self.0 as u128 * t.0 as u128 / 1_000_000_000;
        Bytes((bits / 8).min(u64::MAX as u128) as u64)
    }
    /// Bytes this rate carries in `t`, rounded up to a whole byte (saturating at `u64::MAX`):
    /// what a buffer must hold to absorb `t` of traffic at this rate (e.g. a PFC headroom's
    /// `rate × delay`). [`Self::bytes_in`] rounded the other way.
    #[inline]
    pub fn bytes_in_ceil(self, t: Time) -> Bytes {
        // rate (bit/s) × t (ns) is bits × 10^9; whole bytes are 8 × 10^9 of it
        let bits_e9 = self.0 as u128 * t.0 as u128;
        Bytes(bits_e9.div_ceil(8_000_000_000).min(u64::MAX as u128) as u64)
    }
}

impl Time {
    /// `n` nanoseconds.
    pub const fn ns(n: u64) -> Time {
        Time(n)
    }
    /// `n` microseconds.
    pub const fn us(n: u64) -> Time {
        Time(n * 1_000)
    }
    /// `n` milliseconds.
    pub const fn ms(n: u64) -> Time {
        Time(n * 1_000_000)
    }
    /// Value in seconds, for reporting.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} B", self.0)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bit/s", self.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ns", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn serialising_1000_bytes_at_100g_takes_80ns() {
        assert_eq!(Rate::gbps(100).tx_time(Bytes(1000)), Time(80));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s
        assert_eq!(Rate(3).tx_time(Bytes(1)), Time(2_666_666_667));
    }

    #[test]
    fn bdp_of_100g_and_8us_is_100kb() {
        assert_eq!(Rate::gbps(100).bytes_in(Time::us(8)), Bytes(100_000));
    }

    #[test]
    fn bytes_in_ceil_rounds_up_to_a_whole_byte() {
        // 100 Gb/s for 1 ns is 100 bits = 12.5 B
        assert_eq!(Rate::gbps(100).bytes_in_ceil(Time(1)), Bytes(13));
        assert_eq!(Rate::gbps(100).bytes_in(Time(1)), Bytes(12));
        // whole products are not rounded: 100 Gb/s × 8 µs = 100 000 B
        assert_eq!(Rate::gbps(100).bytes_in_ceil(Time::us(8)), Bytes(100_000));
        // 1 bit is a whole byte to hold
        assert_eq!(Rate(1).bytes_in_ceil(Time(1_000_000_000)), Bytes(1));
        assert_eq!(Rate(0).bytes_in_ceil(Time::MAX), Bytes(0));
        assert_eq!(Rate(u64::MAX).bytes_in_ceil(Time::MAX), Bytes(u64::MAX));
    }

    #[test]
    fn zero_rate_never_finishes() {
        assert_eq!(Rate(0).tx_time(Bytes(1)), Time::MAX);
    }

    #[test]
    fn saturating_sub_stops_at_zero() {
        assert_eq!(Bytes(3).saturating_sub(Bytes(5)), Bytes::ZERO);
    }

    proptest! {
        #[test]
        fn bytes_in_ceil_is_bytes_in_or_one_more(bps in 0u64..1_000_000_000_000, ns in 0u64..10_000_000_000) {
            let (r, t) = (Rate(bps), Time(ns));
            let (lo, hi) = (r.bytes_in(t).0, r.bytes_in_ceil(t).0);
            let exact = (bps as u128 * ns as u128).is_multiple_of(8_000_000_000);
            prop_assert_eq!(hi, if exact { lo } else { lo + 1 });
        }

        #[test]
        fn tx_time_and_bytes_in_are_inverse(bytes in 0u64..10_000_000, gbps in 1u64..800) {
            let r = Rate::gbps(gbps);
            let t = r.tx_time(Bytes(bytes));
            // rounding up the time never loses a byte
            prop_assert!(r.bytes_in(t) >= Bytes(bytes));
            // and one nanosecond less is not enough for the whole packet (unless it was empty)
            if bytes > 0 {
                prop_assert!(r.bytes_in(Time(t.0 - 1)).0 < bytes || r.tx_time(Bytes(bytes)).0 == 0);
            }
        }
    }
}
