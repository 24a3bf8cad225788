//! DCQCN driven by the transport's queue-pair sender: pacing at `Rc`, the byte counter fed by
//! the packets the sender reports, and the controller's timers inside the sender's.

use rdma_cc_core::{Bytes, Ecn, Rate, Time};
use rdma_cc_dcqcn::{Dcqcn, DcqcnConfig};
use rdma_cc_transport::{Controller, Path, Poll, QpSender, SenderConfig};

fn sender_40g() -> SenderConfig {
    SenderConfig {
        path: Path {
            line_rate: Rate::gbps(40),
            lossless: true,
            ..Path::default()
        },
        ..SenderConfig::default()
    }
}

/// Polls at `now` until the sender waits; returns the packets sent and the wait's end.
fn send_all(q: &mut QpSender<Dcqcn>, now: Time) -> (usize, Option<Time>) {
    let mut n = 0;
    loop {
        match q.poll(now) {
            Poll::Send(p) => {
                assert_eq!(p.ecn, Ecn::Ect0);
                n += 1;
            }
            Poll::WaitUntil(t) => return (n, Some(t)),
            _ => return (n, None),
        }
    }
}

#[test]
fn the_sender_paces_at_the_current_rate_and_runs_the_rate_increase_timer() {
    let cfg = DcqcnConfig {
        byte_counter: Some(Bytes(2000)),
        ..DcqcnConfig::default()
    };
    let mut q = cfg.build(&sender_40g(), 1_000_000, Time::ZERO).unwrap();
    assert_eq!(q.rate(), Some(Rate::gbps(40)));
    // no window: one packet, then a pacing wait of at least 1000 B at 40 Gb/s
    let (n, wait) = send_all(&mut q, Time::ZERO);
    assert_eq!(n, 1);
    let gap_line = wait.unwrap();
    assert!(gap_line >= Rate::gbps(40).tx_time(Bytes(1000)));
    // a CNP halves the rate (α = 1): the gap since the last packet doubles (to the ns)
    let cnp_at = Time(1);
    q.on_cnp(cnp_at);
    assert_eq!(q.rate(), Some(Rate::gbps(20)));
    assert_eq!(q.controller().rate(), Rate::gbps(20));
    let (n, wait) = send_all(&mut q, gap_line);
    assert_eq!(n, 0);
    let gap_cut = wait.unwrap();
    assert!(
        gap_cut.0 + 1 >= 2 * gap_line.0,
        "{gap_cut:?} vs {gap_line:?}"
    );
    // the packets sent since the cut feed the byte counter: 4 × 1000 B = 2 events of 2000 B
    let mut now = wait.unwrap();
    for _ in 0..4 {
        let (n, wait) = send_all(&mut q, now);
        assert_eq!(n, 1);
        now = wait.unwrap();
    }
    assert_eq!(q.controller().increase_counts(), (0, 2));
    assert_eq!(q.controller().stats().fast_recoveries, 2);
    // the sender's timer covers the controller's rate-increase timer, 55 µs after the cut
    let deadline = q.controller().next_timeout().unwrap();
    assert_eq!(deadline, cnp_at + Time::us(55));
    assert!(q.next_timer().is_some_and(|t| t <= deadline));
    q.on_timer(deadline);
    assert_eq!(q.controller().increase_counts(), (1, 2));
    assert!(q.next_timer().is_some_and(|t| t > deadline));
    assert_eq!(q.rate(), Some(q.controller().rate()));
}
