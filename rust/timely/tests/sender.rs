//! TIMELY driven by the transport's queue-pair sender: pacing at its rate, and RTT samples
//! from the send timestamps ACKs echo ([`QpSender::on_ack_echo`]), not from the sender's own
//! send-time log.

use rdma_cc_core::{Rate, Time};
use rdma_cc_timely::{Timely, TimelyConfig};
use rdma_cc_transport::{Path, Poll, QpSender, SenderConfig};

fn sender() -> SenderConfig {
    SenderConfig {
        path: Path {
            line_rate: Rate::gbps(100),
            lossless: true,
            ..Path::default()
        },
        ..SenderConfig::default()
    }
}

fn send_one(q: &mut QpSender<Timely>, now: Time) -> (u64, u32) {
    match q.poll(now) {
        Poll::Send(p) => (p.seq, p.len),
        other => panic!("expected a send at {now:?}, got {other:?}"),
    }
}

#[test]
fn echoed_timestamps_drive_the_rate() {
    let mut q = TimelyConfig::default()
        .build(&sender(), 1_000_000, Time::ZERO)
        .unwrap();
    assert_eq!(q.rate(), Some(Rate::gbps(100)));
    // packet 1 at 0, ACKed at 100 µs echoing 0: the first sample only starts the differences
    let (s, l) = send_one(&mut q, Time::ZERO);
    q.on_ack_echo(Time::us(100), s + u64::from(l), false, Some(Time::ZERO));
    assert_eq!(q.rate(), Some(Rate::gbps(100)));
    // the next ACK echoes a send time 120 µs before its arrival: RTT 120 µs > T_low, rising
    // by 20 µs: gradient 0.875 × 20 / 20 = 0.875, rate × (1 − 0.8 × 0.875) = 30 Gb/s (less
    // 1 bit/s: 1 − 0.7 is 0.29999… in f64, rounded down as the simulator's DataRate does)
    let (s, l) = send_one(&mut q, Time::us(100));
    q.on_ack_echo(Time::us(220), s + u64::from(l), false, Some(Time::us(100)));
    assert_eq!(q.rate(), Some(Rate(30_000_000_000 - 1)));
    assert_eq!(q.controller().stats().gradient_decreases, 1);
    // without an echo (on_ack) the controller gets no sample and the rate holds
    let (s, l) = send_one(&mut q, Time::us(220));
    q.on_ack(Time::us(300), s + u64::from(l), false);
    assert_eq!(q.rate(), Some(Rate(30_000_000_000 - 1)));
}
