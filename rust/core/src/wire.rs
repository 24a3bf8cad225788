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
/// RDMA extended transport header of a READ request (virtual address, rkey, length): 16 bytes.
pub const RETH: u64 = 16;
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

/// Payload rate a link of `rate` carries at most when every packet carries `mtu_payload`
/// bytes and each data frame is `extra` bytes longer on the wire (INT's hop records,
/// [`INT_ON_WIRE`] for an HPCC flow; 0 without INT, which is [`payload_limit`]):
/// [`payload_limit`] scaled by `frame / (frame + extra)`, bit/s.
pub fn payload_limit_with_extra(rate: Rate, mtu_payload: Bytes, extra: Bytes) -> f64 {
    let limit = payload_limit(rate, mtu_payload);
    if extra.0 == 0 {
        return limit;
    }
    let frame = data_on_wire(mtu_payload).0 as f64;
    let longer = data_on_wire(Bytes(mtu_payload.0 + extra.0)).0 as f64;
    limit * frame / longer
}

/// Link occupancy of an ACK or NACK (data headers plus the AETH): 86 bytes.
pub const ACK_ON_WIRE: Bytes = on_wire(Bytes(DATA_HEADERS + AETH));

/// Link occupancy of an RDMA READ request (data headers plus the RETH): 98 bytes.
pub const READ_REQUEST_ON_WIRE: Bytes = on_wire(Bytes(DATA_HEADERS + RETH));

/// Bytes of a RoCEv2 data frame (Ethernet header to FCS) carrying `payload` bytes and
/// `int_bytes` of INT ([`INT_ON_WIRE`] for an HPCC flow, else 0): the frame a base RTT and a
/// switch's buffer count.
pub const fn data_frame(payload: Bytes, int_bytes: u64) -> Bytes {
    Bytes(payload.0 + DATA_HEADERS + int_bytes)
}

/// Bytes of an ACK or NACK frame (data headers and the AETH) carrying `int_bytes` of INT.
pub const fn ack_frame(int_bytes: u64) -> Bytes {
    Bytes(DATA_HEADERS + AETH + int_bytes)
}

/// The largest frame a switch receives when data packets carry `payload` bytes and
/// `int_bytes` of INT records: the headers added, padded to the smallest Ethernet frame (a
/// 1-byte payload makes a 64-byte frame).
pub const fn largest_frame(payload: Bytes, int_bytes: u64) -> Bytes {
    let f = payload
        .0
        .saturating_add(DATA_HEADERS)
        .saturating_add(int_bytes);
    Bytes(if f < MIN_FRAME { MIN_FRAME } else { f })
}

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

/// Serialisation of `bytes` at `rate` rounded to the nearest nanosecond (halves up), as ns-3's
/// `DataRate::CalculateBytesTxTime` computes it: seconds with 64 fractional bits (the
/// quotient truncated), times 10^9, rounded. A base RTT counts each link's frame and ACK times
/// this way, so it equals the sum of the devices' `WireTime`s. A rate of 0 takes forever.
pub fn tx_time_rounded(rate: Rate, bytes: Bytes) -> Time {
    if rate.0 == 0 {
        return Time(u64::MAX);
    }
    // bits < 2^67, so bits·2^64 < 2^131 would overflow: split the quotient into its integer
    // and fractional parts (both exact, as ns-3's 128-bit long division is)
    let bits = bytes.0 as u128 * 8;
    let r = rate.0 as u128;
    let (int, rem) = (bits / r, bits % r);
    let frac = (rem << 64) / r; // rem < r < 2^64: no overflow
                                // (int·2^64 + frac)·10^9, rounded at 2^63, then the integer part
    let ns = int * 1_000_000_000 + ((frac * 1_000_000_000 + (1u128 << 63)) >> 64);
    Time(ns.min(u64::MAX as u128) as u64)
}

/// The base RTT of a path of `hops` (the sender's link first, the ACK coming back over the
/// same links): `Σ_i 2·d_i + t_i(frame) + t_i(ack)`, with `t_i(x)` the serialisation of a
/// frame of `x` bytes on the wire (padding, preamble and gap included, [`on_wire`]) at hop
/// `i`'s rate, rounded as [`tx_time_rounded`]. `frame` and `ack` are frame sizes (Ethernet
/// header to FCS): [`data_frame`] and [`ack_frame`]. It sets LDCP's initial window and the
/// retransmission timeout. An empty path has none: `None`.
pub fn base_rtt(hops: &[Hop], frame: Bytes, ack: Bytes) -> Option<Time> {
    if hops.is_empty() {
        return None;
    }
    let (f, a) = (on_wire(frame), on_wire(ack));
    let ns = hops.iter().fold(0u64, |t, h| {
        t.saturating_add(h.delay.0.saturating_mul(2))
            .saturating_add(tx_time_rounded(h.rate, f).0)
            .saturating_add(tx_time_rounded(h.rate, a).0)
    });
    Some(Time(ns))
}

/// The longest a packet can queue along a lossless path without being lost: the sum, over the
/// path's hops, of each hop's `buffer` bytes drained at its `rate` (a host's link holds no
/// switch buffer: 0 bytes), rounded up to the nanosecond and saturating. The default floor of
/// a lossless flow's retransmission timeout.
pub fn max_queueing(hops: impl IntoIterator<Item = (Rate, Bytes)>) -> Time {
    Time(
        hops.into_iter()
            .map(|(rate, buffer)| rate.tx_time(buffer).0)
            .fold(0u64, u64::saturating_add),
    )
}

/// The most payload bit/s a measurement over `span_s` seconds can show on a link whose wire
/// limit is `wire_limit_bps` with `mtu`-byte payloads: a packet counts when its last bit
/// arrives, so an interval of T holds at most T / frame time + 1 packets: the wire limit
/// (with a 10^-9 relative tolerance for the floating point) plus one payload per span.
pub fn goodput_ceiling(wire_limit_bps: f64, mtu: Bytes, span_s: f64) -> f64 {
    wire_limit_bps * (1.0 + 1e-9) + mtu.0 as f64 * 8.0 / span_s
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
    let ack: u128 = hops
        .iter()
        .map(|h| h.delay.0 as u128 + tx_floor(h.rate, ACK_ON_WIRE.0) as u128)
        .sum();
    Time((last_byte_arrival(hops, size, mtu) + ack).min(u64::MAX as u128) as u64)
}

/// The least time from a READ's post to its last response byte reaching the requester: the
/// READ request's trip over `request_hops` (requester's link first; each hop's propagation plus
/// the [`READ_REQUEST_ON_WIRE`] frame store-and-forward), then the responses' data over
/// `response_hops` (responder's link first) as in [`ideal_fct`], without the ACK: a READ
/// completes when the requester has the last byte, not when the responder hears of it.
pub fn ideal_read_fct(request_hops: &[Hop], response_hops: &[Hop], size: u64, mtu: u64) -> Time {
    if request_hops.is_empty() || response_hops.is_empty() || size == 0 || mtu == 0 {
        return Time::ZERO;
    }
    let request: u128 = request_hops
        .iter()
        .map(|h| h.delay.0 as u128 + tx_floor(h.rate, READ_REQUEST_ON_WIRE.0) as u128)
        .sum();
    let data = last_byte_arrival(response_hops, size, mtu);
    Time((request + data).min(u64::MAX as u128) as u64)
}

/// The data part of [`ideal_fct`]: from the first bit leaving the sender to the last byte
/// received (hops non-empty, size and mtu > 0).
fn last_byte_arrival(hops: &[Hop], size: u64, mtu: u64) -> u128 {
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
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_is_its_request_trip_plus_the_data_without_the_ack() {
        let h = hops(2, 100, 1000);
        // request: 2 × (1000 ns + 98 B at 100 Gb/s = 7 ns); the ACK of a WRITE: 2 × (1000 + 6)
        let req = 2 * (1000 + 7);
        let ack = 2 * (1000 + 6);
        for size in [1, 3000, 1_000_000] {
            assert_eq!(
                ideal_read_fct(&h, &h, size, 1000).0,
                ideal_fct(&h, size, 1000).0 - ack + req
            );
        }
        assert_eq!(READ_REQUEST_ON_WIRE, Bytes(98));
        assert_eq!(ideal_read_fct(&[], &h, 1, 1000), Time::ZERO);
    }

    #[test]
    fn max_queueing_sums_each_buffer_drained_at_its_rate() {
        // host link (no buffer), then two switches: 1 MB at 100 Gb/s is 80 us, 500 KB at
        // 10 Gb/s is 400 us
        let hops = [
            (Rate(100_000_000_000), Bytes(0)),
            (Rate(100_000_000_000), Bytes(1_000_000)),
            (Rate(10_000_000_000), Bytes(500_000)),
        ];
        assert_eq!(max_queueing(hops), Time(480_000));
        // rounded up: 1 B at 3 bit/ns is 8/3 ns, 3 ns
        assert_eq!(max_queueing([(Rate(3_000_000_000), Bytes(1))]), Time(3));
        assert_eq!(max_queueing([]), Time::ZERO);
        // a 0 bit/s link never drains: saturates, no overflow
        assert_eq!(
            max_queueing([(Rate(0), Bytes(1)), (Rate(1), Bytes(1))]),
            Time::MAX
        );
    }

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

    #[test]
    fn int_scales_the_payload_limit_by_frame_over_longer_frame() {
        let r = Rate::gbps(100);
        // no INT: the plain limit, to the bit
        assert_eq!(
            payload_limit_with_extra(r, Bytes(1000), Bytes(0)),
            payload_limit(r, Bytes(1000))
        );
        // 42 B of INT: 1000 B of payload per 1124 B on the wire, 88.967 972 Gb/s
        let int = payload_limit_with_extra(r, Bytes(1000), Bytes(INT_ON_WIRE));
        assert!((int - 1e11 * 1000.0 / 1124.0).abs() < 1e-3, "{int}");
        assert!((int - 88.967_971_530e9).abs() < 1.0, "{int}");
    }

    #[test]
    fn frame_sizes_add_the_headers_and_int() {
        assert_eq!(data_frame(Bytes(1000), 0), Bytes(1062));
        assert_eq!(data_frame(Bytes(1000), INT_ON_WIRE), Bytes(1104));
        assert_eq!(ack_frame(0), Bytes(66));
        assert_eq!(ack_frame(INT_ON_WIRE), Bytes(108));
    }

    #[test]
    fn largest_frame_is_padded_to_64_bytes() {
        assert_eq!(largest_frame(Bytes(1), 0), Bytes(64));
        assert_eq!(largest_frame(Bytes(1000), 42), Bytes(1104));
        assert_eq!(largest_frame(Bytes(u64::MAX), 0), Bytes(u64::MAX));
    }

    #[test]
    fn tx_time_rounds_to_the_nearest_nanosecond_as_ns3_does() {
        // 1082 B at 100 Gb/s: 86.56 ns -> 87; 86 B: 6.88 -> 7; 84 B at 25 Gb/s: 26.88 -> 27
        assert_eq!(tx_time_rounded(Rate::gbps(100), Bytes(1082)), Time(87));
        assert_eq!(tx_time_rounded(Rate::gbps(100), Bytes(86)), Time(7));
        assert_eq!(tx_time_rounded(Rate::gbps(25), Bytes(84)), Time(27));
        // 1 B at 8 Gb/s = 1 ns exactly; 3 B at 16 Gb/s = 1.5 ns, which 64 fractional bits
        // hold exactly: rounds up
        assert_eq!(tx_time_rounded(Rate::gbps(8), Bytes(1)), Time(1));
        assert_eq!(tx_time_rounded(Rate(16), Bytes(3)), Time(1_500_000_000));
        // a third: 1 B at 24 Gb/s = 0.333 ns -> 0
        assert_eq!(tx_time_rounded(Rate::gbps(24), Bytes(1)), Time(0));
        assert_eq!(tx_time_rounded(Rate(0), Bytes(1)), Time(u64::MAX));
    }

    #[test]
    fn base_rtt_is_twice_the_delays_plus_frame_and_ack_times_per_hop() {
        // per hop: 2 µs + 1082 B (87 ns) + 86 B (7 ns) at 100 Gb/s
        assert_eq!(
            base_rtt(
                &hops(3, 100, 1000),
                data_frame(Bytes(1000), 0),
                ack_frame(0)
            ),
            Some(Time(3 * (2000 + 87 + 7)))
        );
        assert_eq!(base_rtt(&[], Bytes(1062), Bytes(66)), None);
    }

    #[test]
    fn goodput_ceiling_is_the_wire_limit_plus_one_payload_per_span() {
        let c = goodput_ceiling(92.4e9, Bytes(1000), 1e-3);
        assert!((c - (92.4e9 * (1.0 + 1e-9) + 8e6)).abs() < 1e-3);
    }
}
