//! Bridge for the device code (`QbbNetDevice`, `RoceHeader`, the fabric's base RTT): the
//! RoCEv2 framing of `rdma_cc_core::wire` as values and functions, so the device model asks
//! Rust for every size and time that follows from the framing and holds no formula of its own.

use rdma_cc_core::wire::{self, Hop};
use rdma_cc_core::{Bytes, Rate, Time};

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// RoCEv2 framing constants (bytes), for the C++ model to check its own against.
    #[derive(Clone, Copy, Debug)]
    struct WireConstants {
        /// Ethernet header + FCS, IPv4, UDP, BTH, ICRC around a data payload.
        data_headers: u64,
        /// ACK extended transport header.
        aeth: u64,
        /// RDMA extended transport header of a READ request.
        reth: u64,
        /// Smallest Ethernet frame (a PFC frame's size: the switch's headroom counts it).
        min_frame: u64,
    }

    extern "Rust" {
        /// The framing constants of `rdma_cc_core::wire`.
        fn wire_constants() -> WireConstants;
        /// Bytes a frame of `frame` bytes takes on the wire: padded to the smallest frame,
        /// plus preamble, start-of-frame delimiter and inter-frame gap (the NIC's per-frame
        /// serialisation time).
        fn frame_on_wire(frame: u64) -> u64;
        /// The largest frame a switch receives (its `MmuMtu`) when data packets carry
        /// `payload` bytes and `int_bytes` of INT records: the headers added, padded to the
        /// smallest Ethernet frame (a 1-byte payload makes a 64-byte frame on the wire).
        fn largest_frame(payload: u64, int_bytes: u64) -> u64;
        /// Bytes of a data frame (Ethernet header to FCS) carrying `payload` bytes and
        /// `int_bytes` of INT (0 without INT).
        fn data_frame_bytes(payload: u64, int_bytes: u64) -> u64;
        /// Bytes of an ACK or NACK frame carrying `int_bytes` of INT (0 without INT).
        fn ack_frame_bytes(int_bytes: u64) -> u64;
        /// The base RTT of a path of links of `rates_bps[i]` and one-way `delays_ns[i]` (the
        /// sender's first; the ACK returns over the same links), ns: per link twice the delay
        /// plus the wire times of a `frame`-byte data frame and an `ack`-byte ACK (frame
        /// sizes, Ethernet header to FCS), each rounded to the nearest ns as ns-3's `DataRate`
        /// rounds. 0 for an empty path.
        fn base_rtt_ns(rates_bps: &[u64], delays_ns: &[u64], frame: u64, ack: u64) -> u64;
        /// The most payload bit/s a goodput measured over `span_s` seconds can show on a link
        /// whose wire limit is `wire_limit_bps` with `mtu`-byte payloads (the wire limit plus
        /// one payload per span: a packet counts when its last bit arrives).
        fn goodput_ceiling_bps(wire_limit_bps: f64, mtu: u64, span_s: f64) -> f64;
    }
}

pub use ffi::WireConstants;

fn wire_constants() -> WireConstants {
    WireConstants {
        data_headers: wire::DATA_HEADERS,
        aeth: wire::AETH,
        reth: wire::RETH,
        min_frame: wire::MIN_FRAME,
    }
}

#[inline]
fn frame_on_wire(frame: u64) -> u64 {
    wire::on_wire(Bytes(frame)).0
}

fn largest_frame(payload: u64, int_bytes: u64) -> u64 {
    wire::largest_frame(Bytes(payload), int_bytes).0
}

fn data_frame_bytes(payload: u64, int_bytes: u64) -> u64 {
    wire::data_frame(Bytes(payload), int_bytes).0
}

fn ack_frame_bytes(int_bytes: u64) -> u64 {
    wire::ack_frame(int_bytes).0
}

fn base_rtt_ns(rates_bps: &[u64], delays_ns: &[u64], frame: u64, ack: u64) -> u64 {
    wire::base_rtt(&hops(rates_bps, delays_ns), Bytes(frame), Bytes(ack)).map_or(0, |t| t.0)
}

/// A path's links as the bridge receives them (parallel rate and delay lists) as `Hop`s.
pub(crate) fn hops(rates_bps: &[u64], delays_ns: &[u64]) -> Vec<Hop> {
    rates_bps
        .iter()
        .zip(delays_ns)
        .map(|(&r, &d)| Hop {
            rate: Rate(r),
            delay: Time(d),
        })
        .collect()
}

fn goodput_ceiling_bps(wire_limit_bps: f64, mtu: u64, span_s: f64) -> f64 {
    wire::goodput_ceiling(wire_limit_bps, Bytes(mtu), span_s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cross_as_byte_counts() {
        assert_eq!(data_frame_bytes(1000, 0), 1062);
        assert_eq!(ack_frame_bytes(42), 108);
        assert_eq!(largest_frame(1, 0), 64);
        assert_eq!(frame_on_wire(1062), 1082);
        assert_eq!(wire_constants().data_headers, 62);
    }

    #[test]
    fn base_rtt_of_two_100g_links() {
        // per link 2 µs + 87 ns (1082 B) + 7 ns (86 B)
        assert_eq!(
            base_rtt_ns(&[100_000_000_000; 2], &[1000; 2], 1062, 66),
            2 * 2094
        );
        assert_eq!(base_rtt_ns(&[], &[], 1062, 66), 0);
    }
}
