//! Hashing of integer keys: one mixing function for every table and choice that spreads flows
//! (the switch's ECMP and its route and flow tables, RCM's SAR flow table).

/// MurmurHash3's 64-bit finaliser (`fmix64`): every input bit affects every output bit, so
/// the low bits of the result index a power-of-two table well even for sequential keys.
#[inline]
pub fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix64_is_murmur3_fmix64() {
        // fmix64 fixes 0 and maps 1 to MurmurHash3's published value
        assert_eq!(mix64(0), 0);
        assert_eq!(mix64(1), 0xb456_bcfc_34c2_cb2c);
        assert_ne!(mix64(2) & 0xff, mix64(3) & 0xff);
    }
}
