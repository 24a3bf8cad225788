//! Send times of recent packets, for per-ACK RTT samples without per-packet allocation, and
//! the RFC 6298 RTT estimator (smoothed RTT and variation) the sender's tick and RTO use.
//!
//! A fixed ring allocated once per flow: slot `⌊(end − 1)/mtu⌋ mod capacity` remembers the end
//! offset and send time of the last packet that ended in it. An ACK for byte `a` samples the
//! packet ending exactly at `a` (the most recently sent packet it covers, since sends are in
//! sequence order between go-backs) — provided no packet below it was sent after it, which
//! the sender checks (`a` at most the end of the previous packet sent): otherwise a duplicate
//! of that later packet may have triggered the ACK. Packets that may have an earlier copy
//! still in flight are recorded as ambiguous (Karn; the sender decides which). When more than
//! `capacity` packets are in flight their slots have been reused, the end offsets no longer
//! match, and those ACKs give no sample (the smoothed RTT then keeps its value until the
//! window is back under the capacity).

use rdma_cc_core::Time;

/// Most packets whose send times are remembered (16 bytes each; 16 KiB per flow at most).
pub(crate) const CAPACITY: u64 = 1024;

/// Bit of [`Slot::end`] that says an earlier copy of the packet may still be in flight: an
/// ACK may belong to either. Flow offsets stay below it (8 EiB), so that a slot is 16 bytes,
/// not the 24 a separate flag would make it.
const AMBIGUOUS: u64 = 1 << 63;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// End (exclusive byte offset) of the packet, with [`AMBIGUOUS`]; 0 = empty.
    end: u64,
    /// Send time of the latest copy.
    sent_at: Time,
}

/// Send time of a remembered packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// Only one live copy: `now − t` is the RTT.
    At(Time),
    /// The latest copy left at `t` but an earlier one may be what the ACK answers: `now − t` is
    /// a lower bound on the RTT of whichever copy arrived.
    AmbiguousAt(Time),
}

#[derive(Debug, Clone)]
pub(crate) struct SendLog {
    slots: Box<[Slot]>,
    mtu: u64,
}

impl SendLog {
    /// A log for a flow of `packets` packets of `mtu` bytes.
    pub(crate) fn new(packets: u64, mtu: u64) -> SendLog {
        let n = packets.clamp(1, CAPACITY) as usize;
        SendLog {
            slots: vec![Slot::default(); n].into_boxed_slice(),
            mtu: mtu.max(1),
        }
    }

    #[inline]
    fn index(&self, end: u64) -> usize {
        // end >= 1 for every recorded packet; slots.len() >= 1
        ((end.saturating_sub(1) / self.mtu) % self.slots.len() as u64) as usize
    }

    /// Records a packet ending at `end` sent at `at`.
    #[inline]
    pub(crate) fn record(&mut self, end: u64, at: Time, ambiguous: bool) {
        debug_assert!(end < AMBIGUOUS, "flow offset {end} too large");
        let i = self.index(end);
        self.slots[i] = Slot {
            end: end | if ambiguous { AMBIGUOUS } else { 0 },
            sent_at: at,
        };
    }

    /// Send time of the packet ending at `end`, if remembered.
    #[inline]
    pub(crate) fn sent_at(&self, end: u64) -> Option<Sent> {
        let s = self.slots[self.index(end)];
        (s.end & !AMBIGUOUS == end && end > 0).then_some(if s.end & AMBIGUOUS != 0 {
            Sent::AmbiguousAt(s.sent_at)
        } else {
            Sent::At(s.sent_at)
        })
    }
}

/// Gain of the RTT variation estimate (RFC 6298 §2.3, β = 1/4).
pub(crate) const RTTVAR_GAIN: f64 = 0.25;

/// Smoothed RTT and RTT variation after RFC 6298 §2.2–2.3, for the sub-packet tick, pacing,
/// the NACK hold-off and the retransmission timeout.
///
/// Until the first sample `srtt` is the configured base RTT and there is no variation (the RTO
/// is then the sender's initial RTO). The first sample `R` sets `srtt ← R`, `rttvar ← R/2`;
/// each later one sets `rttvar ← (1 − β)·rttvar + β·|srtt − R|` (β = 1/4), then
/// `srtt ← srtt + g·(R − srtt)` (g = `rtt_gain`, 1/8).
#[derive(Debug, Clone, Copy)]
pub(crate) struct RttEstimator {
    srtt: Time,
    rttvar: Time,
    gain: f64,
    measured: bool,
}

impl RttEstimator {
    pub(crate) fn new(base_rtt: Time, gain: f64) -> RttEstimator {
        RttEstimator {
            srtt: base_rtt,
            rttvar: Time::ZERO,
            gain,
            measured: false,
        }
    }

    /// Takes one RTT sample.
    #[inline]
    pub(crate) fn sample(&mut self, r: Time) {
        let r = Time(r.0.max(1));
        if self.measured {
            let dev = Time(self.srtt.0.abs_diff(r.0));
            // RFC 6298 §2.3: RTTVAR first (with the old SRTT), then SRTT
            self.rttvar = ewma0(self.rttvar, dev, RTTVAR_GAIN);
            self.srtt = ewma(self.srtt, r, self.gain);
        } else {
            // RFC 6298 §2.2: the first measurement sets SRTT directly
            self.srtt = r;
            self.rttvar = Time(r.0 / 2);
            self.measured = true;
        }
    }

    #[inline]
    pub(crate) fn srtt(&self) -> Time {
        self.srtt
    }

    #[cfg(test)]
    pub(crate) fn rttvar(&self) -> Time {
        self.rttvar
    }

    /// Whether a sample has been taken.
    #[cfg(test)]
    pub(crate) fn measured(&self) -> bool {
        self.measured
    }

    /// RFC 6298 §2.3 `srtt + 4·rttvar` (no clock granularity term: time is in ns), or `None`
    /// before the first sample.
    #[inline]
    pub(crate) fn rto_estimate(&self) -> Option<Time> {
        self.measured.then(|| {
            self.srtt
                .saturating_add(Time(self.rttvar.0.saturating_mul(4)))
        })
    }
}

/// EWMA like [`ewma`] but allowed to reach 0 (for the variation).
#[inline]
fn ewma0(v: Time, sample: Time, gain: f64) -> Time {
    let s = v.0 as f64 + gain * (sample.0 as f64 - v.0 as f64);
    Time(s.round().max(0.0) as u64)
}

/// EWMA `srtt ← srtt + g·(sample − srtt)`, rounded to the nanosecond.
#[inline]
pub(crate) fn ewma(srtt: Time, sample: Time, gain: f64) -> Time {
    let s = srtt.0 as f64 + gain * (sample.0 as f64 - srtt.0 as f64);
    // the result lies between srtt and sample, so it fits in u64; `as` saturates anyway
    Time(s.round().max(1.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_packet_takes_16_bytes() {
        // the ring is 1024 slots per flow in progress: 16 KiB, not 24 (peak RSS of many flows)
        assert_eq!(std::mem::size_of::<Slot>(), 16);
        let mut l = SendLog::new(4, 1000);
        l.record(4000, Time(7), true);
        l.record(3000, Time(6), false);
        assert_eq!(l.sent_at(4000), Some(Sent::AmbiguousAt(Time(7))));
        assert_eq!(l.sent_at(3000), Some(Sent::At(Time(6))));
        assert_eq!(l.sent_at(2000), None);
    }

    #[test]
    fn remembers_the_latest_copy_and_its_ambiguity() {
        let mut l = SendLog::new(10, 1000);
        l.record(1000, Time(5), false);
        l.record(2000, Time(7), false);
        assert_eq!(l.sent_at(1000), Some(Sent::At(Time(5))));
        assert_eq!(l.sent_at(2000), Some(Sent::At(Time(7))));
        assert_eq!(l.sent_at(1500), None);
        l.record(1000, Time(9), true);
        assert_eq!(l.sent_at(1000), Some(Sent::AmbiguousAt(Time(9))));
    }

    #[test]
    fn reused_slots_give_no_sample() {
        let mut l = SendLog::new(1 << 20, 1000);
        l.record(1000, Time(1), false);
        l.record(1000 + CAPACITY * 1000, Time(2), false);
        assert_eq!(l.sent_at(1000), None);
        assert_eq!(l.sent_at(1000 + CAPACITY * 1000), Some(Sent::At(Time(2))));
    }

    #[test]
    fn first_sample_sets_srtt_then_rfc6298_smoothing() {
        let mut e = RttEstimator::new(Time(8000), 0.125);
        assert_eq!(
            (e.srtt(), e.rto_estimate(), e.measured()),
            (Time(8000), None, false)
        );
        // RFC 6298 §2.2: SRTT = R, RTTVAR = R/2
        e.sample(Time(40_000));
        assert_eq!((e.srtt(), e.rttvar()), (Time(40_000), Time(20_000)));
        assert_eq!(e.rto_estimate(), Some(Time(120_000)));
        // §2.3: RTTVAR = 3/4·20000 + 1/4·|40000 − 8000| = 23000; SRTT = 40000 − 32000/8
        e.sample(Time(8000));
        assert_eq!((e.srtt(), e.rttvar()), (Time(36_000), Time(23_000)));
        assert_eq!(e.rto_estimate(), Some(Time(36_000 + 92_000)));
    }

    #[test]
    fn ewma_moves_an_eighth_of_the_way() {
        assert_eq!(ewma(Time(8000), Time(16000), 0.125), Time(9000));
        assert_eq!(ewma(Time(8000), Time(0), 0.125), Time(7000));
    }
}
