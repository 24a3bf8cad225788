//! CFR, congestion flow recognition (NPC 2017 §3.3, Fig. 5): a cyclic CAM of flow IDs per
//! output queue ([`Cam`]), whose congestion flows it writes into a [`FlowList`] (the switch
//! crate's fixed-capacity list, which CNs carry too).
//!
//! Every `cfr_sample` packets leaving the queue, the packet's flow ID is written at the CAM's
//! cursor, which then advances (wrapping at `cam_depth`). Heavier flows are sampled more
//! often, so they fill more entries and stay in the CAM: "we can treat the flows whose IDs
//! are being stored in the CAM as the harmful congestion flows" (§3.3). A flow is a
//! congestion flow of the queue when it fills at least `cfr_min_hits` entries (default 1,
//! the paper's membership; a larger value keeps only the heaviest flows — decision, see the
//! crate documentation), or, with `cfr_min_hits` 0, when it fills more entries than the mean
//! of the flows in the CAM: the paper's "flows with relatively high injection rate" (§3.3;
//! when every flow in the CAM fills as many entries, none is relatively heavier and all are).
//!
//! The sampling is periodic (one in `cfr_sample` departures, counted per queue), as the
//! paper's "periodic sampling". Nothing allocates: the CAM is an inline array of
//! [`MAX_CAM_DEPTH`] entries of which `cam_depth` are used.

use crate::config::{RcmParams, MAX_CAM_DEPTH};

pub use rdma_cc_switch::flows::{FlowId, FlowList};

/// The cyclic CAM of one output queue (NPC 2017 §3.3, Fig. 5).
#[derive(Debug, Clone)]
pub struct Cam {
    ids: [FlowId; MAX_CAM_DEPTH],
    depth: usize,
    /// Entries written so far, up to `depth`.
    len: usize,
    /// Where the next sample is written.
    cursor: usize,
    sample_every: u32,
    /// Departures until the next sample.
    countdown: u32,
    min_hits: u32,
    samples: u64,
    /// Decision (`cfr_jitter`): the gap to the next sample is drawn from this deterministic
    /// xorshift state, uniform in `[1, 2·cfr_sample − 1]` (mean `cfr_sample`), so that the
    /// samples do not alias with a regular interleaving of flows (two input ports at the same
    /// rate alternate their packets, and every 8th departure would always be one port's).
    jitter: Option<u64>,
}

impl Cam {
    /// An empty CAM of `cam_depth` entries sampling one in `cfr_sample` departures.
    pub fn new(p: &RcmParams) -> Cam {
        let every = p.cfr_sample.max(1);
        Cam {
            ids: [0; MAX_CAM_DEPTH],
            depth: p.cam_depth.clamp(1, MAX_CAM_DEPTH),
            len: 0,
            cursor: 0,
            sample_every: every,
            countdown: every,
            min_hits: p.cfr_min_hits,
            samples: 0,
            jitter: p.cfr_jitter.then_some(0x9E37_79B9_7F4A_7C15),
        }
    }

    /// The departures until the next sample.
    fn next_gap(&mut self) -> u32 {
        let Some(x) = self.jitter.as_mut() else {
            return self.sample_every;
        };
        // xorshift64 (Marsaglia 2003)
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        let span = 2 * u64::from(self.sample_every) - 1;
        1 + (*x % span) as u32
    }

    /// A packet of flow `flow` left the queue. Every `cfr_sample`-th departure writes its
    /// flow ID at the cursor, which advances cyclically (§3.3). Returns whether it was
    /// sampled.
    pub fn on_departure(&mut self, flow: FlowId) -> bool {
        self.countdown = self.countdown.saturating_sub(1);
        if self.countdown > 0 {
            return false;
        }
        self.countdown = self.next_gap();
        self.ids[self.cursor] = flow;
        self.cursor = (self.cursor + 1) % self.depth;
        self.len = (self.len + 1).min(self.depth);
        self.samples += 1;
        true
    }

    /// Entries holding `flow`.
    pub fn hits(&self, flow: FlowId) -> u32 {
        self.entries().iter().filter(|&&f| f == flow).count() as u32
    }

    /// Whether `flow` is a congestion flow of this queue: it fills at least `cfr_min_hits`
    /// entries (1: it is in the CAM; 0: relatively heavy, [`Self::is_relatively_heavy`]).
    pub fn contains(&self, flow: FlowId) -> bool {
        match self.min_hits {
            0 => self.is_relatively_heavy(flow),
            1 => self.entries().contains(&flow),
            m => self.hits(flow) >= m,
        }
    }

    /// `cfr_min_hits` 0 (§3.3, "relatively high injection rate"): `flow` fills more entries
    /// than the mean of the distinct flows in the CAM (`hits·distinct > entries`), or every
    /// flow in the CAM fills as many entries as it does (none is relatively heavier: all are
    /// congestion flows, as with membership).
    pub fn is_relatively_heavy(&self, flow: FlowId) -> bool {
        let h = self.hits(flow);
        if h == 0 {
            return false;
        }
        let e = self.entries();
        let mut distinct = 0usize;
        let mut all_equal = true;
        for (i, &f) in e.iter().enumerate() {
            if e[..i].contains(&f) {
                continue;
            }
            distinct += 1;
            all_equal &= self.hits(f) == h;
        }
        all_equal || (h as usize) * distinct > e.len()
    }

    /// The written entries, in slot order.
    pub fn entries(&self) -> &[FlowId] {
        &self.ids[..self.len]
    }

    /// Writes the distinct congestion flows ([`Self::contains`]) into `out` (cleared first),
    /// most recently sampled first.
    pub fn congestion_flows(&self, out: &mut FlowList) {
        out.clear();
        for k in 1..=self.len {
            // walk back from the last written entry
            let i = (self.cursor + self.depth - k) % self.depth;
            let f = self.ids[i];
            if !out.contains(f) && self.contains(f) {
                out.push(f);
            }
        }
    }

    /// The fraction of the written entries whose flow satisfies `is_congestion` (`None`
    /// while the CAM is empty). The CAM is a sample of the last `cam_depth·cfr_sample`
    /// departures, so this estimates those flows' share of the traffic the queue sent lately.
    pub fn share(&self, is_congestion: impl Fn(FlowId) -> bool) -> Option<f64> {
        if self.len == 0 {
            return None;
        }
        let n = self.entries().iter().filter(|&&f| is_congestion(f)).count();
        Some(n as f64 / self.len as f64)
    }

    /// The entries in use (`cam_depth`).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Samples written since construction.
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::RcmConfig;
    use proptest::prelude::*;

    /// A CAM with periodic sampling (no jitter).
    fn cam(depth: u32, every: u32, min_hits: u32) -> Cam {
        cam_with(depth, every, min_hits, false)
    }

    fn cam_with(depth: u32, every: u32, min_hits: u32, jitter: bool) -> Cam {
        let p = RcmConfig {
            cam_depth: depth,
            cfr_sample: every,
            cfr_min_hits: min_hits,
            cfr_jitter: jitter,
            ..RcmConfig::default()
        }
        .resolved()
        .unwrap();
        Cam::new(&p)
    }

    #[test]
    fn one_in_cfr_sample_departures_is_written_cyclically_section_3_3() {
        let mut c = cam(4, 8, 1);
        // departures 1..7 are not sampled, the 8th is
        for _ in 0..7 {
            assert!(!c.on_departure(1));
        }
        assert!(c.on_departure(2));
        assert_eq!(c.entries(), [2]);
        // fill the CAM, then wrap: the oldest entry is overwritten
        for f in [3, 4, 5, 6] {
            for _ in 0..7 {
                c.on_departure(99);
            }
            assert!(c.on_departure(f));
        }
        assert_eq!(c.entries(), [6, 3, 4, 5]);
        assert!(c.contains(6) && !c.contains(2) && !c.contains(99));
        assert_eq!(c.samples(), 5);
    }

    #[test]
    fn heavy_flows_dominate_the_cam() {
        // flow 1 sends 3 packets for each of flow 2's, interleaved irregularly (a periodic
        // pattern would alias with the periodic sampling)
        let mut c = cam(16, 8, 1);
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..4000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            c.on_departure(if x.is_multiple_of(4) { 2 } else { 1 });
        }
        assert!(c.hits(1) > c.hits(2));
        assert_eq!(c.hits(1) + c.hits(2), 16);
        let share = c.share(|f| f == 1).unwrap();
        assert!((share - 0.75).abs() <= 0.25, "{share}");
    }

    #[test]
    fn jittered_sampling_does_not_alias_with_alternating_flows() {
        // two input ports at the same rate alternate their packets at the output (NPC 2017
        // Fig. 6: the incast from A and the burst from Hb): periodic sampling of one in 8
        // sees only one of them, jittered sampling both, about equally
        let mut periodic = cam(16, 8, 1);
        let mut jittered = cam_with(16, 8, 1, true);
        for i in 0..16_000u64 {
            periodic.on_departure(i % 2);
            jittered.on_departure(i % 2);
        }
        assert_eq!(periodic.hits(0) * periodic.hits(1), 0);
        let (a, b) = (jittered.hits(0), jittered.hits(1));
        assert_eq!(a + b, 16);
        assert!(a >= 4 && b >= 4, "{a} {b}");
        // the mean gap stays cfr_sample: about 16 000 / 8 samples
        let n = jittered.samples();
        assert!((1900..=2100).contains(&n), "{n}");
        // deterministic: the same departures give the same CAM
        let mut again = cam_with(16, 8, 1, true);
        for i in 0..16_000u64 {
            again.on_departure(i % 2);
        }
        assert_eq!(again.entries(), jittered.entries());
    }

    #[test]
    fn min_hits_keeps_only_the_heaviest_flows() {
        let mut c = cam(8, 1, 3);
        for f in [1, 1, 1, 2, 1, 3, 2, 1] {
            c.on_departure(f);
        }
        assert_eq!(c.hits(1), 5);
        assert!(c.contains(1) && !c.contains(2) && !c.contains(3));
        let mut l = FlowList::new();
        c.congestion_flows(&mut l);
        assert_eq!(l.as_slice(), [1]);
        // membership (min hits 1): every distinct flow, most recent first
        let mut c = cam(8, 1, 1);
        for f in [1, 1, 1, 2, 1, 3, 2, 1] {
            c.on_departure(f);
        }
        c.congestion_flows(&mut l);
        assert_eq!(l.as_slice(), [1, 2, 3]);
    }

    #[test]
    fn min_hits_0_keeps_the_relatively_heavy_flows_section_3_3() {
        // the burst fills 8 of 16 entries, four incast flows 2 each: mean 16/5 = 3.2
        let mut c = cam(16, 1, 0);
        for f in [9, 1, 9, 2, 9, 3, 9, 4, 9, 1, 9, 2, 9, 3, 9, 4] {
            c.on_departure(f);
        }
        let mut l = FlowList::new();
        c.congestion_flows(&mut l);
        assert_eq!(l.as_slice(), [9]);
        assert_eq!(c.share(|f| l.contains(f)), Some(0.5));
        // equal flows: none is heavier, all are congestion flows (as membership)
        let mut c = cam(8, 1, 0);
        for f in [1, 2, 3, 4, 1, 2, 3, 4] {
            c.on_departure(f);
        }
        c.congestion_flows(&mut l);
        assert_eq!(l.len(), 4);
        // a flow not in the CAM never is one
        assert!(!c.contains(5));
    }

    #[test]
    fn an_empty_cam_has_no_share_and_no_flows() {
        let c = cam(16, 8, 1);
        assert_eq!(c.share(|_| true), None);
        let mut l = FlowList::from_ids(&[7]);
        c.congestion_flows(&mut l);
        assert!(l.is_empty());
    }

    proptest! {
        /// The CAM never holds more than cam_depth IDs, and a flow is in it only if one of its
        /// packets was sampled among the last cam_depth samples.
        #[test]
        fn cam_holds_at_most_cam_depth_ids(
            depth in 1u32..=64,
            every in 1u32..20,
            flows in prop::collection::vec(0u64..50, 0..2000),
        ) {
            let mut c = cam(depth, every, 1);
            let mut sampled = Vec::new();
            for &f in &flows {
                if c.on_departure(f) {
                    sampled.push(f);
                }
                prop_assert!(c.entries().len() <= depth as usize);
                prop_assert_eq!(c.entries().len(), sampled.len().min(depth as usize));
            }
            let recent = &sampled[sampled.len().saturating_sub(depth as usize)..];
            for f in 0..50u64 {
                prop_assert_eq!(c.contains(f), recent.contains(&f));
            }
            prop_assert_eq!(sampled.len(), flows.len() / every as usize);
        }

        /// With jittered sampling too, the CAM holds at most cam_depth IDs, the most recent
        /// samples, and gaps stay within [1, 2·cfr_sample − 1].
        #[test]
        fn jittered_cam_holds_at_most_cam_depth_ids(
            depth in 1u32..=64,
            every in 1u32..20,
            flows in prop::collection::vec(0u64..50, 0..2000),
        ) {
            let mut c = cam_with(depth, every, 1, true);
            let mut sampled = Vec::new();
            let mut gap = 0u32;
            for &f in &flows {
                gap += 1;
                if c.on_departure(f) {
                    prop_assert!(gap >= 1 && gap < 2 * every, "gap {}", gap);
                    gap = 0;
                    sampled.push(f);
                }
                prop_assert!(c.entries().len() <= depth as usize);
            }
            prop_assert!(gap < 2 * every);
            let recent = &sampled[sampled.len().saturating_sub(depth as usize)..];
            for f in 0..50u64 {
                prop_assert_eq!(c.contains(f), recent.contains(&f));
            }
        }
    }
}
