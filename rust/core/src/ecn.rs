/// IP ECN codepoint of a packet (RFC 3168), numbered as the two bits in the IP header.
///
/// LDCP sends first-RTT (fast-start) packets [`Ecn::NotEct`], so switches apply WRED threshold
/// drop to them, and every other packet [`Ecn::Ect0`], so switches mark them instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Ecn {
    /// Not ECN-capable transport (0b00).
    NotEct = 0,
    /// ECN-capable transport, ECT(1) (0b01).
    Ect1 = 1,
    /// ECN-capable transport, ECT(0) (0b10); what the transport uses for ECN-capable packets.
    #[default]
    Ect0 = 2,
    /// Congestion experienced (0b11).
    Ce = 3,
}

impl Ecn {
    /// Decodes the two ECN bits of the IP TOS / traffic-class byte (higher bits are ignored).
    pub const fn from_bits(bits: u8) -> Ecn {
        match bits & 3 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// The two ECN bits.
    pub const fn bits(self) -> u8 {
        self as u8
    }

    /// Whether routers may mark this packet instead of dropping it.
    pub const fn is_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }

    /// Whether the packet carries a congestion mark.
    pub const fn is_ce(self) -> bool {
        matches!(self, Ecn::Ce)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecn_bits_match_the_ip_header() {
        for b in 0..4u8 {
            assert_eq!(Ecn::from_bits(b).bits(), b);
        }
        assert_eq!(Ecn::from_bits(0b110), Ecn::Ect0);
        assert!(!Ecn::NotEct.is_capable());
        assert!(Ecn::Ect0.is_capable() && Ecn::Ect1.is_capable() && Ecn::Ce.is_capable());
        assert!(Ecn::Ce.is_ce() && !Ecn::Ect0.is_ce());
    }
}
