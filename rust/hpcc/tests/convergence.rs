//! HPCC against a synthetic bottleneck that writes INT records: a fluid model of one switch
//! egress (100 Gb/s, FIFO) shared by HPCC flows whose ACKs return one base RTT plus the
//! queueing delay after each send, carrying the record of the moment the data left the switch.
//! It checks HPCC's central claim (Li et al. SIGCOMM 2019, §3): the senders converge to the
//! target utilisation `η` of the bottleneck, leaving the queue empty, from 2× overload and again
//! after half the load leaves.

use rdma_cc_core::{Bytes, Ecn, HopRecord, IntRecords, Rate, Time};
use rdma_cc_hpcc::{Hpcc, HpccConfig, Preset};
use rdma_cc_transport::{AckEvent, Controller, Path, SenderConfig, TxPacket};
use std::collections::VecDeque;

/// Simulation step, ns.
const STEP: u64 = 100;
/// Bottleneck and host line rate, bit/s.
const LINE: u64 = 100_000_000_000;
/// Base RTT, ns (100 steps).
const T: u64 = 10_000;
/// Bytes the bottleneck sends per step.
const PER_STEP: f64 = LINE as f64 * STEP as f64 / 8e9;
const MTU: u64 = 1000;

struct Flow {
    cc: Hpcc,
    active: bool,
    /// Bytes sent (snd_nxt) and acknowledged.
    sent: u64,
    acked: u64,
    /// Fractional bytes of pacing credit.
    credit: f64,
    /// ACKs in flight: (arrival ns, snd_una it carries, the hop record).
    acks: VecDeque<(u64, u64, HopRecord)>,
}

struct Net {
    flows: Vec<Flow>,
    now: u64,
    queue: f64,
    tx_bytes: f64,
}

/// Per step of a window of observation: bytes the bottleneck sent and its queue.
#[derive(Default)]
struct Window {
    sent: f64,
    queue_sum: f64,
    queue_max: f64,
    steps: u64,
}

impl Window {
    fn utilisation(&self) -> f64 {
        self.sent / (PER_STEP * self.steps as f64)
    }
    fn mean_queue(&self) -> f64 {
        self.queue_sum / self.steps as f64
    }
}

fn sender() -> SenderConfig {
    SenderConfig {
        mtu: Bytes(MTU),
        path: Path {
            line_rate: Rate(LINE),
            base_rtt: Time(T),
            lossless: true,
            int_telemetry: true,
            ..Path::default()
        },
        ..SenderConfig::default()
    }
}

impl Net {
    fn new(n: usize, cfg: HpccConfig) -> Net {
        let flows = (0..n)
            .map(|_| Flow {
                cc: Hpcc::new(&sender(), &cfg).unwrap(),
                active: true,
                sent: 0,
                acked: 0,
                credit: 0.0,
                acks: VecDeque::new(),
            })
            .collect();
        Net {
            flows,
            now: 0,
            queue: 0.0,
            tx_bytes: 0.0,
        }
    }

    /// One step: every active flow sends what its rate and window allow, the bottleneck
    /// serves its FIFO, and the ACKs due arrive.
    fn step(&mut self, w: &mut Window) {
        let now = self.now;
        let mut arrivals = 0.0;
        let mut sends = Vec::new();
        for (i, f) in self.flows.iter_mut().enumerate() {
            if !f.active {
                continue;
            }
            let rate = f.cc.pacing_rate(Time(T)).unwrap().0 as f64;
            let window = f.cc.window().unwrap() * MTU as f64;
            f.credit = (f.credit + rate * STEP as f64 / 8e9).min(2.0 * PER_STEP);
            let room = (window - (f.sent - f.acked) as f64).max(0.0);
            let bytes = f.credit.min(room).floor();
            if bytes >= 1.0 {
                f.credit -= bytes;
                f.cc.on_sent(
                    Time(now),
                    &TxPacket {
                        seq: f.sent,
                        len: bytes as u32,
                        ecn: Ecn::Ect0,
                        retransmission: false,
                        last: false,
                        ack_req: false,
                    },
                );
                f.sent += bytes as u64;
                arrivals += bytes;
                sends.push(i);
            }
        }
        self.queue += arrivals;
        let out = self.queue.min(PER_STEP);
        self.queue -= out;
        self.tx_bytes += out;
        // the record of this step's departures; the ACK returns after the base RTT plus the
        // time the data waited in the queue
        let rec = HopRecord {
            qlen_bytes: self.queue as u64,
            tx_bytes: self.tx_bytes as u64,
            ts_ns: now,
            line_rate_bps: LINE,
            port_id: 1,
        };
        let back = now + T + (self.queue * 8e9 / LINE as f64) as u64;
        for i in sends {
            let f = &mut self.flows[i];
            f.acks.push_back((back, f.sent, rec));
        }
        for f in self.flows.iter_mut() {
            while f.acks.front().is_some_and(|a| a.0 <= now) {
                let Some((_, una, rec)) = f.acks.pop_front() else {
                    break;
                };
                let newly = una - f.acked;
                f.acked = una;
                f.cc.on_ack_int(
                    &AckEvent {
                        now: Time(now),
                        rtt: None,
                        newly_acked: newly.div_ceil(MTU),
                        ece: false,
                        snd_una: una,
                        acked_packets: una.div_ceil(MTU),
                    },
                    &IntRecords::from_slice(&[rec]),
                );
            }
        }
        w.sent += out;
        w.queue_sum += self.queue;
        w.queue_max = w.queue_max.max(self.queue);
        w.steps += 1;
        self.now += STEP;
    }

    fn run(&mut self, ns: u64) -> Window {
        let mut w = Window::default();
        for _ in 0..ns / STEP {
            self.step(&mut w);
        }
        w
    }
}

impl Net {
    /// `rtts` base RTTs observed: the bottleneck's window, and each active flow's `U`
    /// averaged over the RTTs (sampled at the end of each).
    fn observe(&mut self, rtts: u64) -> (Window, Vec<f64>) {
        let mut all = Window::default();
        let mut u = vec![0.0; self.flows.len()];
        for _ in 0..rtts {
            let w = self.run(T);
            all.sent += w.sent;
            all.queue_sum += w.queue_sum;
            all.queue_max = all.queue_max.max(w.queue_max);
            all.steps += w.steps;
            for (i, f) in self.flows.iter().enumerate() {
                u[i] += f.cc.utilisation() / rtts as f64;
            }
        }
        (all, u)
    }
}

/// What HPCC's equilibrium implies at the bottleneck once converged (20 RTTs observed): each
/// active flow's `U` within 0.03 of `η`; the link busy at least `η − 5 %` of the time; and,
/// since `U = txRate/B + qlen_bytes/(B·T)`, a queue of at most `U − txRate/B ≤ (η + 0.03) − (η −
/// 0.05)` = 8 % of the BDP (5 % on average).
fn at_equilibrium(net: &mut Net, eta: f64, what: &str) {
    let bdp = LINE as f64 * T as f64 / 8e9;
    let (w, u) = net.observe(20);
    for (i, f) in net.flows.iter().enumerate() {
        if f.active {
            assert!(
                (u[i] - eta).abs() < 0.03,
                "{what}: flow {i}: mean U {}",
                u[i]
            );
        }
    }
    let util = w.utilisation();
    eprintln!(
        "{what}: U {u:.3?}, utilisation {util:.3}, queue mean {:.0} B max {:.0} B",
        w.mean_queue(),
        w.queue_max
    );
    assert!(
        util >= eta - 0.05 && util < 1.0,
        "{what}: utilisation {util}"
    );
    assert!(
        w.mean_queue() <= 0.05 * bdp,
        "{what}: mean queue {}",
        w.mean_queue()
    );
    assert!(
        w.queue_max <= 0.08 * bdp,
        "{what}: max queue {}",
        w.queue_max
    );
}

/// The convergence of a configuration from 2× overload (two flows start at line rate) and
/// after one flow stops.
fn converges(cfg: HpccConfig) {
    let eta = cfg.resolved(Rate(LINE)).eta;
    let bdp = LINE as f64 * T as f64 / 8e9;
    let mut net = Net::new(2, cfg);
    let start = net.run(10 * T);
    assert!(
        start.queue_max > 0.5 * bdp,
        "no overload: {}",
        start.queue_max
    );
    net.run(20 * T);
    at_equilibrium(&mut net, eta, "two flows");
    // underload: one flow leaves, the link drops to half; the other takes it back to η
    net.flows[1].active = false;
    let (w, _) = net.observe(1);
    assert!(w.utilisation() < 0.75, "{}", w.utilisation());
    net.run(30 * T);
    at_equilibrium(&mut net, eta, "one flow");
    assert!(net.flows[0].cc.rate() > Rate(LINE * 9 / 10));
}

#[test]
fn hpcc_sim_preset_converges_to_eta_from_overload_and_underload() {
    converges(HpccConfig::default());
}

#[test]
fn paper_preset_converges_to_eta_from_overload_and_underload() {
    converges(HpccConfig {
        preset: Preset::Paper,
        ..HpccConfig::default()
    });
}

#[test]
fn without_fast_react_it_converges_too() {
    converges(HpccConfig {
        fast_react: Some(false),
        ..HpccConfig::default()
    });
}
