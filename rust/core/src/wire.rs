//! On-the-wire overhead of a RoCEv2 packet, and what it implies: the payload a link can carry
//! and the least time a message can take across a path.
//!
//! A data packet carrying `payload` bytes occupies
//! `payload + DATA_HEADERS + PREAMBLE_IFG` byte times on the link, where the headers are
//! Ethernet header + FCS, IPv4, UDP, the InfiniBand base transport header (BTH) and the ICRC.

use crate::{Bytes, Rate, Time};

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

/// Payload rate a link of `rate` carries at most when every packet carries `mtu_payload`
/// bytes: `rate × payload / (payload + 82)`, bit/s (the wire limit of goodput).
pub fn payload_limit(rate: Rate, mtu_payload: Bytes) -> f64 {
    rate.0 as f64 * efficiency(mtu_payload)
}

/// Link occupancy of an ACK or NACK (data headers plus the AETH): 86 bytes.
pub const ACK_ON_WIRE: Bytes = on_wire(Bytes(DATA_HEADERS + AETH));

/// INT (HPCC's in-band telemetry, [`crate::int`]): the header in front of the hop records,
/// holding their count (the HPCC simulator's `IntHeader::nhop`, 2 bytes).
pub const INT_HEADER: u64 = 2;
/// INT: one hop record on the wire, 8 bytes (the HPCC simulator's `IntHop` packs line rate,
/// timestamp, transmitted bytes and queue length into 64 bits).
pub const INT_HOP: u64 = 8;
/// INT: what a packet of an HPCC flow carries on the wire in addition to its headers, 42 bytes:
/// the header and room for [`crate::int::MAX_HOPS`] records, whatever the path's length (the
/// HPCC simulator's fixed-size `IntHeader`, ~4 % of a 1000-byte payload's frame). Its ACKs
/// carry the same 42 bytes back.
pub const INT_ON_WIRE: u64 = INT_HEADER + INT_HOP * crate::int::MAX_HOPS as u64;

/// One hop of a path: the rate of the link a frame leaves on and its one-way delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// Link rate, bit/s.
    pub rate: Rate,
    /// One-way propagation delay.
    pub delay: Time,
}

/// Serialisation of `bytes` at `rate`, in whole nanoseconds rounded down (a device that keeps
/// sub-nanosecond remainders never takes less than this).
fn tx_floor(rate: Rate, bytes: u64) -> u64 {
    if rate.0 == 0 {
        return u64::MAX;
    }
    let ns = bytes as u128 * 8 * 1_000_000_000 / rate.0 as u128;
    ns.min(u64::MAX as u128) as u64
}

/// The least time a `size`-byte message (`mtu` payload bytes per packet) can take from its
/// first bit leaving the sender to the ACK of its last byte returning, over store-and-forward
/// hops `hops` (sender's link first) with the ACK coming back over the same links: the lower
/// bound every flow completion time must respect.
///
/// Data: with `W` the message's bytes on the wire (each frame padded to 64 B plus preamble and
/// gap), `F1` and `Fn` its first and last frames, the last byte reaches the receiver no sooner
/// than `max_b [ Σ_{i<b} (d_i + F1/r_i) + W/r_b + d_b + Σ_{i>b} (d_i + Fn/r_i) ]`: hop `b`
/// cannot start before the first frame has been received store-and-forward by every hop
/// before it, it then needs `W/r_b` for every byte, and the last frame is forwarded
/// store-and-forward by every hop after it. With equal rates this is "each hop's propagation,
/// plus store-and-forward of the first frame at its real size per hop, plus the rest of the
/// message at line rate". ACK: `Σ_i (d_i + 86 B/r_i)`. Serialisation times are rounded down
/// to the nanosecond; the arithmetic is 128-bit, so any `size` below 2^64 is exact.
pub fn ideal_fct(hops: &[Hop], size: u64, mtu: u64) -> Time {
    if hops.is_empty() || size == 0 || mtu == 0 {
        return Time::ZERO;
    }
    let frames = size.div_ceil(mtu);
    let full = size / mtu;
    let last_payload = size - (frames - 1) * mtu;
    let f_full = data_on_wire(Bytes(mtu)).0;
    let f_last = data_on_wire(Bytes(last_payload)).0;
    let f_first = if frames == 1 { f_last } else { f_full };
    // full frames, plus the shorter last one if there is one
    let wire = (full as u128) * f_full as u128
        + if last_payload < mtu {
            f_last as u128
        } else {
            0
        };
    let wire = wire.min(u64::MAX as u128) as u64;
    let mut best: u128 = 0;
    for b in 0..hops.len() {
        let mut t: u128 = 0;
        for h in &hops[..b] {
            t += h.delay.0 as u128 + tx_floor(h.rate, f_first) as u128;
        }
        t += tx_floor(hops[b].rate, wire) as u128 + hops[b].delay.0 as u128;
        for h in &hops[b + 1..] {
            t += h.delay.0 as u128 + tx_floor(h.rate, f_last) as u128;
        }
        best = best.max(t);
    }
    let ack: u128 = hops
        .iter()
        .map(|h| h.delay.0 as u128 + tx_floor(h.rate, ACK_ON_WIRE.0) as u128)
        .sum();
    Time((best + ack).min(u64::MAX as u128) as u64)
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
    fn int_costs_42_bytes_for_five_hops() {
        // the HPCC simulator's IntHeader: 5 × 8 B records + 2 B hop count
        assert_eq!(INT_ON_WIRE, 42);
    }

    #[test]
    fn efficiency_of_1000_byte_mtu() {
        assert!((efficiency(Bytes(1000)) - 1000.0 / 1082.0).abs() < 1e-12);
    }

    fn hops(n: usize, gbps: u64, delay_ns: u64) -> Vec<Hop> {
        vec![
            Hop {
                rate: Rate::gbps(gbps),
                delay: Time(delay_ns),
            };
            n
        ]
    }

    #[test]
    fn one_byte_message_pays_the_64_byte_minimum_frame() {
        // two hops of 100 Gb/s, 1 µs: data 2 × (1000 + 84 B = 6.72 ns → 6), ACK 2 × (1000 +
        // 86 B = 6.88 → 6)
        assert_eq!(ideal_fct(&hops(2, 100, 1000), 1, 1000), Time(4024));
    }

    #[test]
    fn equal_rates_pipeline_the_first_frame_then_the_rest_at_line_rate() {
        // 3000 B = 3 frames of 1082 B = 3246 B: 2 µs + 1082 B (86.56 → 86 ns) + 3246 B (259.68
        // → 259 ns) + ACK 2 µs + 2 × 6 ns
        assert_eq!(
            ideal_fct(&hops(2, 100, 1000), 3000, 1000),
            Time(2000 + 86 + 259 + 2012)
        );
    }

    #[test]
    fn a_slow_hop_bounds_the_message() {
        let h = [
            Hop {
                rate: Rate::gbps(100),
                delay: Time(1000),
            },
            Hop {
                rate: Rate::gbps(10),
                delay: Time(1000),
            },
        ];
        // b = 1: 1 µs + 1082 B at 100G (86) + 1 µs + 3246 B at 10G (2596) ; ACK 1000 + 6 + 1000 + 68
        assert_eq!(ideal_fct(&h, 3000, 1000), Time(2000 + 86 + 2596 + 2074));
    }

    #[test]
    fn huge_messages_do_not_overflow() {
        // 5e9 B at 400 Gb/s is ~108 ms on the wire
        let t = ideal_fct(&hops(2, 400, 1000), 5_000_000_000, 1000);
        assert!(t > Time::ms(108) && t < Time::ms(109), "{t}");
    }

    #[test]
    fn payload_limit_of_1000_byte_packets() {
        assert!((payload_limit(Rate::gbps(100), Bytes(1000)) - 92.421_441_774e9).abs() < 1.0);
    }
}
