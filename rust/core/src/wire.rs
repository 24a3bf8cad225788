//! On-the-wire overhead of a RoCEv2 packet (fabric.md, "Wire overhead counts").
//!
//! A data packet carrying `payload` bytes occupies
//! `payload + DATA_HEADERS + PREAMBLE_IFG` byte times on the link, where the headers are
//! Ethernet header + FCS, IPv4, UDP, the InfiniBand base transport header (BTH) and the ICRC.

use crate::Bytes;

/// Preamble, start-of-frame delimiter and minimum inter-frame gap: 20 byte times per frame.
pub const PREAMBLE_IFG: u64 = 20;
/// Ethernet header (14) and frame check sequence (4).
pub const ETHERNET: u64 = 18;
/// IPv4 header without options.
pub const IPV4: u64 = 20;
/// UDP header.
pub const UDP: u64 = 8;
/// RoCEv2 base transport header.
pub const BTH: u64 = 12;
/// Invariant CRC.
pub const ICRC: u64 = 4;
/// ACK extended transport header, carried by ACK and NACK packets.
pub const AETH: u64 = 4;
/// Smallest Ethernet frame (header + payload + FCS), padding included.
pub const MIN_FRAME: u64 = 64;

/// Bytes of headers in front of and behind a RoCEv2 data payload (Ethernet through ICRC).
pub const DATA_HEADERS: u64 = ETHERNET + IPV4 + UDP + BTH + ICRC;

/// Link occupancy of a frame of `frame` bytes (Ethernet header to FCS), padding short
/// frames to the 64-byte minimum and adding preamble and inter-frame gap.
pub const fn on_wire(frame: Bytes) -> Bytes {
    let f = if frame.0 < MIN_FRAME {
        MIN_FRAME
    } else {
        frame.0
    };
    Bytes(f + PREAMBLE_IFG)
}

/// Link occupancy of a RoCEv2 data packet carrying `payload` bytes.
pub const fn data_on_wire(payload: Bytes) -> Bytes {
    on_wire(Bytes(payload.0 + DATA_HEADERS))
}

/// Fraction of link capacity left for payload when every packet carries `mtu_payload` bytes.
pub fn efficiency(mtu_payload: Bytes) -> f64 {
    mtu_payload.0 as f64 / data_on_wire(mtu_payload).0 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_packet_overhead_is_82_bytes() {
        // 18 + 20 + 8 + 12 + 4 headers, + 20 preamble/IFG
        assert_eq!(data_on_wire(Bytes(1000)), Bytes(1082));
    }

    #[test]
    fn short_frames_are_padded_to_64_bytes() {
        // an ACK: Ethernet..ICRC + AETH = 66 B, not padded; a 40 B frame is.
        assert_eq!(on_wire(Bytes(40)), Bytes(84));
        assert_eq!(on_wire(Bytes(DATA_HEADERS + AETH)), Bytes(86));
    }

    #[test]
    fn efficiency_of_1000_byte_mtu() {
        assert!((efficiency(Bytes(1000)) - 1000.0 / 1082.0).abs() < 1e-12);
    }
}
