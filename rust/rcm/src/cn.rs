//! CN, congestion notification between neighbour switches (NPC 2017 §3.2): what a CN
//! carries ([`Cn`]), the regional degree it reports ([`regional_degree`], eq. 2) and when an
//! input queue sends one ([`CnSource`]).
//!
//! - **When**: an input queue that detects congestion (`Fb > 0`) sends a CN at once to the
//!   neighbour on its link (upstream). While it stays congested (its local flag, which holds
//!   for `hold` after the last positive `Fb`), CNs repeat, at most one per `cn_interval`
//!   (decision: 10 µs), driven by the next positive sample or by a timer
//!   ([`CnSource::next_timeout`]), so the neighbour's remote flag stays fresh while the
//!   congestion lasts even if no packet arrives.
//! - **What**: the priority, the quantised regional degree `Fb'` and the IDs of the harmful
//!   flows: the root's from its CFR, forwarded by edge and inner points in place of their own
//!   (§3.2). Which output queue's view a CN of an input queue reports is the switch's
//!   business ([`crate::switch`]).
//! - CNs are link-local control frames: high priority, never paused, never forwarded.

use crate::cfr::{FlowId, FlowList};
use crate::config::{RcmParams, MAX_CAM_DEPTH};
use crate::crd::Flags;
use rdma_cc_core::Time;

/// A congestion notification, as it travels between two neighbour switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cn {
    /// The priority (lossless class) the congestion is in.
    pub prio: u8,
    /// The quantised regional degree `Fb'` (§3.2 eq. 2), in `[1, Fb_max]`.
    pub degree: u8,
    /// The harmful flows' IDs (§3.2, §3.3).
    pub flows: FlowList,
}

/// First byte of an encoded CN ([`Cn::encode`]).
pub const CN_MARKER: u8 = b'R';

/// Bytes of an encoded CN before its flow IDs: marker, priority, degree, number of IDs.
pub const CN_HEADER_BYTES: usize = 4;

/// Most bytes an encoded CN takes (with [`MAX_CAM_DEPTH`] flow IDs).
pub const CN_MAX_BYTES: usize = CN_HEADER_BYTES + 8 * MAX_CAM_DEPTH;

/// An encoded CN ([`Cn::to_bytes`]), inline: the payload of a switch-control frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CnBytes {
    buf: [u8; CN_MAX_BYTES],
    len: usize,
}

impl Default for CnBytes {
    fn default() -> Self {
        CnBytes {
            buf: [0; CN_MAX_BYTES],
            len: 0,
        }
    }
}

impl CnBytes {
    /// The encoded bytes (empty for the default, no CN).
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl Cn {
    /// Bytes of the encoded CN: the header and 8 per flow ID.
    pub fn wire_len(&self) -> usize {
        CN_HEADER_BYTES + 8 * self.flows.len()
    }

    /// Writes the CN as the payload of a switch-control frame: [`CN_MARKER`], priority,
    /// degree, the number of flow IDs, then each ID (8 bytes, big-endian). Returns the bytes
    /// written, `None` (nothing written) when `out` is shorter than [`Self::wire_len`].
    pub fn encode(&self, out: &mut [u8]) -> Option<usize> {
        let b = self.to_bytes();
        let n = b.len;
        out.get_mut(..n)?.copy_from_slice(b.as_slice());
        Some(n)
    }

    /// The CN encoded as [`Self::encode`] writes it, in a buffer every CN fits (a CN carries
    /// at most [`MAX_CAM_DEPTH`] flow IDs, so it cannot fail).
    pub fn to_bytes(&self) -> CnBytes {
        let mut buf = [0u8; CN_MAX_BYTES];
        let (head, ids) = buf.split_at_mut(CN_HEADER_BYTES);
        head.copy_from_slice(&[CN_MARKER, self.prio, self.degree, self.flows.len() as u8]);
        let mut written = 0;
        for (chunk, id) in ids.chunks_exact_mut(8).zip(self.flows.as_slice()) {
            chunk.copy_from_slice(&id.to_be_bytes());
            written += 1;
        }
        CnBytes {
            buf,
            len: CN_HEADER_BYTES + 8 * written,
        }
    }

    /// Reads a CN [`Self::encode`] wrote (trailing bytes are ignored); `None` when `bytes` is
    /// not one (wrong marker, too short, more than [`MAX_CAM_DEPTH`] IDs).
    pub fn decode(bytes: &[u8]) -> Option<Cn> {
        let (&[marker, prio, degree, n], rest) = bytes.split_first_chunk::<CN_HEADER_BYTES>()?;
        let n = n as usize;
        if marker != CN_MARKER || n > MAX_CAM_DEPTH {
            return None;
        }
        let ids = rest.get(..8 * n)?;
        let mut flows = FlowList::new();
        for chunk in ids.chunks_exact(8) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            flows.push(FlowId::from_be_bytes(b));
        }
        Some(Cn {
            prio,
            degree,
            flows,
        })
    }
}

/// The regional degree sent upstream (NPC 2017 §3.2 eq. 2): `Fb' = (1 − w)·Fb + w·Fb_r` when
/// a valid CN from downstream (degree `Fb_r`) exists, else `Fb`; rounded to the nearest
/// quantum and clamped to `fb_max`.
pub fn regional_degree(fb: u8, fb_r: Option<u8>, w: f64, fb_max: u8) -> u8 {
    let Some(r) = fb_r else {
        return fb.min(fb_max);
    };
    let x = (1.0 - w) * f64::from(fb) + w * f64::from(r);
    let x = x.round();
    if x.is_nan() || x <= 0.0 {
        0
    } else if x >= f64::from(fb_max) {
        fb_max
    } else {
        x as u8
    }
}

/// The CN side of one input queue: its congestion flag (local only) and the CN timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct CnSource {
    flags: Flags,
    /// When the last CN was sent.
    last_sent: Option<Time>,
    sent: u64,
}

impl CnSource {
    /// A queue that has not been congested.
    pub fn new() -> CnSource {
        CnSource::default()
    }

    fn due(&self, now: Time, p: &RcmParams) -> bool {
        self.last_sent
            .is_none_or(|t| now >= t.saturating_add(p.cn_interval))
    }

    fn send(&mut self, now: Time) -> bool {
        self.last_sent = Some(now);
        self.sent += 1;
        true
    }

    /// A sample of degree `degree` at `now`. Returns whether a CN must be sent now: the
    /// sample is positive and no CN went out within `cn_interval` (the first detection sends
    /// at once unless a CN of an earlier episode is that recent). The CN counts as sent.
    pub fn on_sample(&mut self, now: Time, degree: u8, p: &RcmParams) -> bool {
        self.flags.on_local(now, degree, p.hold);
        degree > 0 && self.due(now, p) && self.send(now)
    }

    /// The timer fired at `now`: returns whether a CN must be sent now (still congested and
    /// `cn_interval` since the last one). The CN counts as sent.
    pub fn on_timeout(&mut self, now: Time, p: &RcmParams) -> bool {
        self.flags.local(now) && self.due(now, p) && self.send(now)
    }

    /// When [`Self::on_timeout`] would next send a repeat: `cn_interval` after the last CN,
    /// if the queue is still congested then (`None` otherwise).
    pub fn next_timeout(&self, now: Time, p: &RcmParams) -> Option<Time> {
        if !self.flags.local(now) {
            return None;
        }
        let t = self
            .last_sent
            .map_or(now, |t| t.saturating_add(p.cn_interval))
            .max(now);
        (t < self.flags.local_until()).then_some(t)
    }

    /// Whether the queue is congested at `now` (its local flag).
    pub fn congested(&self, now: Time) -> bool {
        self.flags.local(now)
    }

    /// The queue's degree at `now` (the last positive sample's while congested, else 0).
    pub fn degree(&self, now: Time) -> u8 {
        self.flags.fb_local(now)
    }

    /// CNs sent.
    pub fn sent(&self) -> u64 {
        self.sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RcmConfig;

    #[test]
    fn regional_degree_weighs_the_downstream_degree_eq2() {
        // §3.2 eq. 2: Fb' = (1 − w)·Fb + w·Fb_r
        assert_eq!(regional_degree(10, Some(30), 0.5, 63), 20);
        assert_eq!(regional_degree(10, Some(30), 0.25, 63), 15);
        assert_eq!(regional_degree(10, Some(31), 0.5, 63), 21); // 20.5 rounds up
                                                                // without a valid CN from downstream: Fb
        assert_eq!(regional_degree(10, None, 0.5, 63), 10);
        // w = 0: own degree only; w = 1: the neighbour's
        assert_eq!(regional_degree(10, Some(30), 0.0, 63), 10);
        assert_eq!(regional_degree(10, Some(30), 1.0, 63), 30);
        // clamped to Fb_max (a neighbour with a larger scale)
        assert_eq!(regional_degree(63, Some(255), 0.5, 63), 63);
        assert_eq!(regional_degree(0, Some(0), 0.5, 63), 0);
    }

    #[test]
    fn a_cn_encodes_and_decodes() {
        let cn = Cn {
            prio: 3,
            degree: 42,
            flows: FlowList::from_ids(&[1, u64::MAX, 0x0B00_0001_0000_0007]),
        };
        let mut buf = [0u8; CN_MAX_BYTES];
        assert_eq!(cn.encode(&mut buf), Some(4 + 24));
        assert_eq!(&buf[..4], &[b'R', 3, 42, 3]);
        assert_eq!(&buf[4..12], &1u64.to_be_bytes());
        assert_eq!(Cn::decode(&buf[..28]), Some(cn));
        // trailing bytes are ignored
        assert_eq!(Cn::decode(&buf), Some(cn));
        // too short, wrong marker, too many IDs: not a CN
        assert_eq!(Cn::decode(&buf[..27]), None);
        assert_eq!(Cn::decode(&[]), None);
        assert_eq!(Cn::decode(&[b'X', 3, 42, 0]), None);
        assert_eq!(Cn::decode(&[b'R', 3, 42, 65]), None);
        assert_eq!(cn.encode(&mut [0u8; 27]), None);
        // the largest CN fits CN_MAX_BYTES
        let ids: Vec<u64> = (0..64).collect();
        let big = Cn {
            prio: 0,
            degree: 1,
            flows: FlowList::from_ids(&ids),
        };
        assert_eq!(big.encode(&mut buf), Some(CN_MAX_BYTES));
        assert_eq!(Cn::decode(&buf), Some(big));
        // to_bytes cannot fail: the largest CN's bytes are the ones encode wrote
        assert_eq!(big.to_bytes().as_slice(), &buf[..]);
        assert_eq!(cn.to_bytes().as_slice().len(), 28);
        assert_eq!(Cn::decode(cn.to_bytes().as_slice()), Some(cn));
        assert!(CnBytes::default().as_slice().is_empty());
    }

    #[test]
    fn first_detection_sends_then_at_most_one_per_interval() {
        let p = RcmConfig::default().resolved().unwrap();
        let mut s = CnSource::new();
        // not congested: nothing
        assert!(!s.on_sample(Time::us(1), 0, &p));
        assert_eq!(s.next_timeout(Time::us(1), &p), None);
        // first detection: a CN at once
        assert!(s.on_sample(Time::us(2), 5, &p));
        assert_eq!(s.degree(Time::us(2)), 5);
        // more positive samples within cn_interval: no CN
        assert!(!s.on_sample(Time::us(5), 9, &p));
        assert!(!s.on_sample(Time::us(11), 9, &p));
        // the repeat is due 10 µs after the first
        assert_eq!(s.next_timeout(Time::us(11), &p), Some(Time::us(12)));
        assert!(!s.on_timeout(Time::us(11), &p));
        assert!(s.on_timeout(Time::us(12), &p));
        // a positive sample when due sends too
        assert!(s.on_sample(Time::us(22), 3, &p));
        assert_eq!(s.sent(), 3);
        // flag until 42 µs: a repeat at 32, none at 42 (clear by then)
        assert_eq!(s.next_timeout(Time::us(23), &p), Some(Time::us(32)));
        assert!(s.on_timeout(Time::us(32), &p));
        assert_eq!(s.next_timeout(Time::us(33), &p), None);
        assert!(!s.on_timeout(Time::us(42), &p));
        assert!(!s.congested(Time::us(42)));
        assert_eq!(s.degree(Time::us(42)), 0);
        // a new episode sends at once
        assert!(s.on_sample(Time::us(100), 1, &p));
        assert_eq!(s.sent(), 5);
    }

    #[test]
    fn a_new_episode_right_after_a_cn_waits_for_the_interval() {
        let p = RcmConfig {
            hold: Time::us(2),
            ..RcmConfig::default()
        }
        .resolved()
        .unwrap();
        let mut s = CnSource::new();
        assert!(s.on_sample(Time::us(0), 4, &p));
        // cleared at 2 µs, congested again at 5 µs: the CN waits until 10 µs, but the flag
        // (until 7 µs) clears first, so no repeat is scheduled
        assert!(!s.on_sample(Time::us(5), 4, &p));
        assert!(s.congested(Time::us(5)));
        assert_eq!(s.next_timeout(Time::us(5), &p), None);
    }
}
