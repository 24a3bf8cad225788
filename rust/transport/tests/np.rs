//! Property tests of the notification point (DCQCN §3.1, Figure 6): whatever the arrivals, a
//! flow gets at most one CNP per interval N, only after a marked packet, and every marked
//! packet is answered by a CNP no later than the end of the window it arrived in.

use proptest::prelude::*;
use rdma_cc_core::{Bytes, Time};
use rdma_cc_transport::{QpReceiver, ReceiverConfig};

proptest! {
    #[test]
    fn at_most_one_cnp_per_interval_and_every_mark_answered(
        n_us in 1u64..100,
        arrivals in prop::collection::vec((0u64..30_000, any::<bool>()), 1..300),
    ) {
        let n = Time::us(n_us);
        let cfg = ReceiverConfig {
            send_cnp: true,
            cnp_interval: Some(n),
            ack_interval: Some(Bytes(65536)),
            ..ReceiverConfig::default()
        };
        let mut r = QpReceiver::new(&cfg, u64::MAX / 2).unwrap();
        let mut now = Time::ZERO;
        let mut seq = 0u64;
        let mut cnps: Vec<Time> = Vec::new();
        let mut unanswered: Option<Time> = None; // earliest mark not yet followed by a CNP
        for (gap_ns, ce) in arrivals {
            let t = now.saturating_add(Time(gap_ns));
            // the timer fires first when it is due before the arrival (as the NIC's event)
            while let Some(due) = r.next_timeout() {
                if due > t {
                    break;
                }
                prop_assert!(due >= now, "timer in the past");
                if r.on_timeout(due) {
                    cnps.push(due);
                    unanswered = None;
                }
            }
            now = t;
            let a = r.on_data(now, seq, 1000, ce, false);
            seq += 1000;
            if a.cnp {
                prop_assert!(ce, "a CNP only for a marked packet");
                cnps.push(now);
                unanswered = None;
            } else if ce && unanswered.is_none() {
                unanswered = Some(now);
            }
            // an unanswered mark is pending: its CNP is due by the end of the window
            if let Some(m) = unanswered {
                let due = r.next_timeout();
                prop_assert!(due.is_some(), "mark at {:?} left no CNP pending", m);
                let last = *cnps.last().unwrap();
                prop_assert_eq!(due.unwrap(), last.saturating_add(n));
            }
        }
        for w in cnps.windows(2) {
            prop_assert!(w[1] >= w[0].saturating_add(n), "CNPs at {:?} and {:?} closer than {:?}", w[0], w[1], n);
        }
        prop_assert_eq!(r.stats().cnps, cnps.len() as u64);
    }
}
