//! A small discrete-event model for driving [`QpSender`] / [`QpReceiver`] pairs (plain Rust,
//! no ns-3): N sender hosts, each with its own link into one switch, whose egress queue towards
//! the receiver host is the bottleneck.
//!
//! - Host links serialise packets at `host_rate` (wire size: payload + RoCEv2 headers) and take
//!   `host_delay`; the NIC polls its QP whenever its link is idle, as the ns-3 NIC will.
//! - The bottleneck queue applies the LDCP switch policy at enqueue, with `q` the bytes queued
//!   before the packet: ECT packets marked with probability
//!   `(q − K_min)/(K_max − K_min)·P_max` (1 at `K_max`), Not-ECT packets dropped at `q ≥ K_fs`,
//!   every packet dropped at `q + size > buf_max`. Random loss (`data_loss`) is applied on top.
//! - ACKs, NACKs, CNPs and probe responses return after `host_delay + bottleneck_delay` and may be
//!   lost with probability `ack_loss`. Probes queue at the bottleneck like data.
//! - With `check` on, the QP invariants are asserted at every event (panics on violation, so
//!   proptest can shrink).
//! - Each flow's controller is chosen by a [`Scheme`] (LDCP, its rate-based variant, DCQCN, or
//!   the transport's `LineRate` as the baseline) through the production dispatcher
//!   (`rdma-cc-schemes`' `SchemeController`, here `Cc`).

#![allow(dead_code)]

use rdma_cc_core::{wire, Bytes, ConfigError, Rate, Time};
use rdma_cc_ldcp::LdcpConfig;
use rdma_cc_transport::{
    AckOut, Ecn, Poll, QpReceiver, QpSender, ReceiverConfig, SenderConfig, TxPacket,
};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

pub use rdma_cc_schemes::{NicConfig, Scheme, SchemeController as Cc};

/// The receiver each scheme expects: CNPs for the schemes that react to them (LDCP's
/// rate-based variant, DCQCN).
pub fn receiver_for(scheme: Scheme) -> ReceiverConfig {
    NicConfig::default().receiver_for(scheme)
}

/// A sender with a run-time chosen controller.
pub type Sender = QpSender<Cc>;

/// The sender of one flow.
pub fn sender(
    scheme: Scheme,
    sender: &SenderConfig,
    ldcp: &LdcpConfig,
    flow_size: u64,
    now: Time,
) -> Result<Sender, ConfigError> {
    let nic = NicConfig {
        ldcp: *ldcp,
        ..NicConfig::default()
    };
    nic.scheme_config(scheme).build(sender, flow_size, now)
}

/// Scenario parameters.
#[derive(Debug, Clone)]
pub struct Params {
    /// Message size of each flow (one flow per sender host).
    pub flow_sizes: Vec<u64>,
    /// Start time of each flow.
    pub starts: Vec<Time>,
    pub scheme: Scheme,
    pub sender: SenderConfig,
    pub ldcp: LdcpConfig,
    pub receiver: ReceiverConfig,
    pub host_rate: Rate,
    pub bottleneck_rate: Rate,
    pub host_delay: Time,
    pub bottleneck_delay: Time,
    pub k_min: u64,
    pub k_max: u64,
    pub p_max: f64,
    pub k_fs: u64,
    pub buf_max: u64,
    pub data_loss: f64,
    pub ack_loss: f64,
    pub seed: u64,
    pub time_limit: Time,
    pub check: bool,
    /// Sample the queue and the active flows' mean cw / srtt this often (for diagnostics).
    pub trace_every: Option<Time>,
    /// Log every event of this flow into [`Report::flow_log`] (for diagnostics).
    pub watch_flow: Option<usize>,
    /// Every flow is a READ: the senders are the responders, the receivers READ requesters
    /// (`QpReceiver::new_read_requester`), whose repeat READ requests travel back like NACKs
    /// and make the responder go back to the requested byte.
    pub read: bool,
}

impl Params {
    /// `n` flows of `size` bytes starting together; 100 Gb/s everywhere, 2 µs links (base RTT
    /// 8 µs), LDCP marking K_min = 25 KB, K_max = 100 KB, P_max = 0.2, K_fs = K_min, 1 MB buffer;
    /// the draft's own constants ([`LdcpConfig::DRAFT`]: these tests check its rules, the
    /// ns-3 tests the shipped defaults).
    pub fn incast(n: usize, size: u64, scheme: Scheme) -> Params {
        Params {
            flow_sizes: vec![size; n],
            starts: vec![Time::ZERO; n],
            scheme,
            sender: SenderConfig::default(),
            ldcp: LdcpConfig::DRAFT,
            receiver: receiver_for(scheme),
            host_rate: Rate::gbps(100),
            bottleneck_rate: Rate::gbps(100),
            host_delay: Time::us(2),
            bottleneck_delay: Time::us(2),
            k_min: 25_000,
            k_max: 100_000,
            p_max: 0.2,
            k_fs: 25_000,
            buf_max: 1_000_000,
            data_loss: 0.0,
            ack_loss: 0.0,
            seed: 1,
            time_limit: Time::ms(200),
            check: true,
            trace_every: None,
            watch_flow: None,
            read: false,
        }
    }
}

impl Params {
    /// Spreads the start times over `[0, span)` deterministically (a fixed permutation), so
    /// that identical flows do not tick in lock-step.
    pub fn spread_starts(&mut self, span: Time) {
        let n = self.starts.len() as u64;
        for (i, s) in self.starts.iter_mut().enumerate() {
            *s = Time((i as u64 * 7919 % n) * span.0 / n);
        }
    }

    /// Time to move every flow's wire bytes through the bottleneck, plus one base RTT.
    pub fn ideal_completion(&self) -> Time {
        let mtu = self.sender.mtu.0;
        let wire: u64 = self
            .flow_sizes
            .iter()
            .map(|&f| {
                let full = f / mtu;
                let rest = f % mtu;
                full * wire::data_on_wire(Bytes(mtu)).0
                    + if rest > 0 {
                        wire::data_on_wire(Bytes(rest)).0
                    } else {
                        0
                    }
            })
            .sum();
        self.bottleneck_rate.tx_time(Bytes(wire)) + self.sender.path.base_rtt
    }
}

/// What happened.
#[derive(Debug)]
pub struct Report {
    pub senders: Vec<Sender>,
    pub receivers: Vec<QpReceiver>,
    /// Largest bottleneck queue (bytes, wire size).
    pub max_queue: u64,
    /// Largest queue seen at or after `settle` (see [`run_with_settle`]).
    pub max_queue_settled: u64,
    /// Time-average queue over the run (bytes), sampled at arrivals.
    pub mean_queue: f64,
    pub marks: u64,
    pub drops_not_ect: u64,
    pub drops_full_ect: u64,
    pub drops_full_not_ect: u64,
    pub drops_random: u64,
    /// Time of the last event processed.
    pub end: Time,
    pub events: u64,
    /// `(time, queue bytes, active flows, mean cw, mean srtt ns, flows with cw < 1)`.
    pub trace: Vec<(Time, u64, usize, f64, f64, usize)>,
    /// Events of [`Params::watch_flow`].
    pub flow_log: Vec<String>,
    /// Largest smoothed RTT of each flow after any event.
    pub max_srtt: Vec<Time>,
}

impl Report {
    pub fn all_done(&self) -> bool {
        self.senders.iter().all(|s| s.is_done()) && self.receivers.iter().all(|r| r.is_complete())
    }
    /// Latest completion time (sender's view: last byte acknowledged).
    pub fn last_completion(&self) -> Time {
        self.senders
            .iter()
            .filter_map(|s| s.completion_time())
            .max()
            .unwrap_or(Time::ZERO)
    }
}

#[derive(Debug, Clone, Copy)]
struct Pkt {
    flow: usize,
    seq: u64,
    len: u32,
    ecn: Ecn,
    last: bool,
    ack_req: bool,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    Wake(usize),
    Timer(usize),
    AtSwitch(Pkt),
    ProbeAtSwitch(usize, u64),
    AtReceiver(Pkt),
    ProbeAtReceiver(usize, u64),
    Ack(usize, AckOut),
    Cnp(usize),
    ProbeResponse(usize, u64),
}

/// xorshift64*: test-only randomness, seeded per case.
struct Rng(u64);
impl Rng {
    fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Per-flow invariant bookkeeping.
#[derive(Debug, Clone, Copy, Default)]
struct Watch {
    last_send: Option<Time>,
    snd_una: u64,
    delivered: u64,
}

struct Sim {
    p: Params,
    now: Time,
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    slab: Vec<Option<Ev>>,
    free: Vec<usize>,
    counter: u64,
    senders: Vec<Sender>,
    receivers: Vec<QpReceiver>,
    host_free: Vec<Time>,
    wake_at: Vec<Option<Time>>,
    timer_at: Vec<Option<Time>>,
    watch: Vec<Watch>,
    queue: VecDeque<(Time, u64)>,
    q_bytes: u64,
    busy_until: Time,
    rng: Rng,
    settle: Time,
    r: Report,
    q_area: f64,
    q_last_t: Time,
    next_trace: Time,
}

/// Runs the scenario; `max_queue_settled` counts from 10 base RTTs on.
pub fn run(p: Params) -> Report {
    let settle = Time(p.sender.path.base_rtt.0 * 10);
    run_with_settle(p, settle)
}

/// Runs the scenario; `max_queue_settled` counts from `settle` on.
pub fn run_with_settle(p: Params, settle: Time) -> Report {
    let n = p.flow_sizes.len();
    let senders: Vec<Sender> = (0..n)
        .map(|i| {
            sender(p.scheme, &p.sender, &p.ldcp, p.flow_sizes[i], p.starts[i])
                .expect("sender config")
        })
        .collect();
    let receivers: Vec<QpReceiver> = (0..n)
        .map(|i| {
            if p.read {
                QpReceiver::new_read_requester(&p.receiver, p.flow_sizes[i])
            } else {
                QpReceiver::new(&p.receiver, p.flow_sizes[i])
            }
            .expect("receiver config")
        })
        .collect();
    let mut sim = Sim {
        now: Time::ZERO,
        heap: BinaryHeap::new(),
        slab: Vec::new(),
        free: Vec::new(),
        counter: 0,
        host_free: vec![Time::ZERO; n],
        wake_at: vec![None; n],
        timer_at: vec![None; n],
        watch: vec![Watch::default(); n],
        queue: VecDeque::new(),
        q_bytes: 0,
        busy_until: Time::ZERO,
        rng: Rng(p.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
        settle,
        r: Report {
            senders: Vec::new(),
            receivers: Vec::new(),
            max_queue: 0,
            max_queue_settled: 0,
            mean_queue: 0.0,
            marks: 0,
            drops_not_ect: 0,
            drops_full_ect: 0,
            drops_full_not_ect: 0,
            drops_random: 0,
            end: Time::ZERO,
            events: 0,
            trace: Vec::new(),
            flow_log: Vec::new(),
            max_srtt: vec![Time::ZERO; n],
        },
        q_area: 0.0,
        q_last_t: Time::ZERO,
        next_trace: Time::ZERO,
        senders,
        receivers,
        p,
    };
    for i in 0..n {
        let t = sim.p.starts[i];
        sim.wake(i, t);
    }
    while let Some(Reverse((t, _, id))) = sim.heap.pop() {
        if t > sim.p.time_limit {
            break;
        }
        let ev = sim.slab[id].take().expect("event");
        sim.free.push(id);
        if let Some(every) = sim.p.trace_every {
            while sim.next_trace <= t {
                let at = sim.next_trace;
                sim.sample(at);
                sim.next_trace = at + every;
            }
        }
        sim.now = t;
        sim.r.events += 1;
        sim.handle(ev);
    }
    sim.r.end = sim.now;
    sim.r.mean_queue = if sim.q_last_t.0 > 0 {
        sim.q_area / sim.q_last_t.0 as f64
    } else {
        0.0
    };
    let mut r = sim.r;
    r.senders = sim.senders;
    r.receivers = sim.receivers;
    r
}

impl Sim {
    fn push(&mut self, t: Time, ev: Ev) {
        let id = match self.free.pop() {
            Some(i) => {
                self.slab[i] = Some(ev);
                i
            }
            None => {
                self.slab.push(Some(ev));
                self.slab.len() - 1
            }
        };
        // simultaneous events run in insertion order (a flush ACK before its NACK)
        self.counter += 1;
        self.heap.push(Reverse((t, self.counter, id)));
    }

    fn sample(&mut self, at: Time) {
        self.drain(at);
        let active: Vec<&Sender> = self
            .senders
            .iter()
            .filter(|s| !s.is_done() && s.start_time() <= at)
            .collect();
        let n = active.len().max(1) as f64;
        let cw = active.iter().map(|s| s.cw()).sum::<f64>() / n;
        let srtt = active.iter().map(|s| s.srtt().0 as f64).sum::<f64>() / n;
        let sub = active.iter().filter(|s| s.cw() < 1.0).count();
        self.r
            .trace
            .push((at, self.q_bytes, active.len(), cw, srtt, sub));
    }

    fn wake(&mut self, i: usize, t: Time) {
        if self.wake_at[i].is_none_or_gt(t) {
            self.wake_at[i] = Some(t);
            self.push(t, Ev::Wake(i));
        }
    }

    fn control_lost(&mut self) -> bool {
        self.p.ack_loss > 0.0 && self.rng.next_f64() < self.p.ack_loss
    }

    fn reverse_delay(&self) -> Time {
        self.p.host_delay + self.p.bottleneck_delay
    }

    fn log(&mut self, i: usize, what: std::fmt::Arguments) {
        if self.p.watch_flow == Some(i) {
            let s = &self.senders[i];
            let line = format!(
                "{:>9} {what} | una={} nxt={} cw={:.3} srtt={} q={}",
                self.now.0,
                s.snd_una(),
                s.snd_nxt(),
                s.cw(),
                s.srtt().0,
                self.q_bytes
            );
            self.r.flow_log.push(line);
        }
    }

    fn handle(&mut self, ev: Ev) {
        let now = self.now;
        if let Some(w) = self.p.watch_flow {
            match ev {
                Ev::Timer(i) if i == w => self.log(i, format_args!("timer")),
                Ev::Ack(i, a) if i == w => self.log(i, format_args!("before {a:?}")),
                Ev::Cnp(i) if i == w => self.log(i, format_args!("cnp")),
                Ev::AtReceiver(p) if p.flow == w => {
                    self.log(w, format_args!("rx seq={} ecn={:?}", p.seq, p.ecn))
                }
                _ => {}
            }
        }
        match ev {
            Ev::Wake(i) => {
                if self.wake_at[i] == Some(now) {
                    self.wake_at[i] = None;
                }
                self.drive(i);
            }
            Ev::Timer(i) => {
                if self.timer_at[i] == Some(now) {
                    self.timer_at[i] = None;
                }
                self.senders[i].on_timer(now);
                if self.p.check {
                    if let Some(t) = self.senders[i].next_timer() {
                        assert!(t > now, "next_timer {t:?} not after on_timer({now:?})");
                    }
                }
                self.after_sender_event(i);
                self.drive(i);
            }
            Ev::AtSwitch(pkt) => self.enqueue(pkt),
            Ev::ProbeAtSwitch(i, id) => {
                self.drain(now);
                let start = self.busy_until.max(now);
                let fin = start + self.p.bottleneck_rate.tx_time(wire::on_wire(Bytes(64)));
                self.busy_until = fin;
                if !self.control_lost() {
                    self.push(fin + self.p.bottleneck_delay, Ev::ProbeAtReceiver(i, id));
                }
            }
            Ev::ProbeAtReceiver(i, id) => {
                if !self.control_lost() {
                    let d = self.reverse_delay();
                    self.push(now + d, Ev::ProbeResponse(i, id));
                }
            }
            Ev::AtReceiver(pkt) => self.receive(pkt),
            Ev::Ack(i, a) => {
                if a.nack || a.reread {
                    // a repeat READ request: the responder goes back to its first byte
                    self.senders[i].on_nack(now, a.seq, a.ece);
                } else {
                    self.senders[i].on_ack(now, a.seq, a.ece);
                }
                self.after_sender_event(i);
                self.drive(i);
            }
            Ev::Cnp(i) => {
                self.senders[i].on_cnp(now);
                self.after_sender_event(i);
                self.drive(i);
            }
            Ev::ProbeResponse(i, id) => {
                self.senders[i].on_probe_response(now, id);
                self.after_sender_event(i);
                self.drive(i);
            }
        }
    }

    /// The NIC of host `i`: poll while the link is idle.
    fn drive(&mut self, i: usize) {
        let now = self.now;
        if now < self.p.starts[i] {
            return;
        }
        if now < self.host_free[i] {
            let t = self.host_free[i];
            self.wake(i, t);
        } else {
            loop {
                match self.senders[i].poll(now) {
                    Poll::Send(p) => {
                        self.on_sent(i, &p);
                        if self.p.watch_flow == Some(i) {
                            self.log(i, format_args!("send {p:?}"));
                        }
                        let tx = self
                            .p
                            .host_rate
                            .tx_time(wire::data_on_wire(Bytes(p.len.into())));
                        self.host_free[i] = now + tx;
                        let pkt = Pkt {
                            flow: i,
                            seq: p.seq,
                            len: p.len,
                            ecn: p.ecn,
                            last: p.last,
                            ack_req: p.ack_req,
                        };
                        self.push(now + tx + self.p.host_delay, Ev::AtSwitch(pkt));
                        self.wake(i, now + tx);
                        break;
                    }
                    Poll::SendProbe { probe_id } => {
                        if !self.control_lost() {
                            self.push(now + self.p.host_delay, Ev::ProbeAtSwitch(i, probe_id));
                        }
                    }
                    Poll::WaitUntil(t) => {
                        assert!(t > now, "WaitUntil({t:?}) at {now:?}");
                        self.wake(i, t);
                        break;
                    }
                    Poll::Blocked | Poll::Done => break,
                }
            }
        }
        if let Some(t) = self.senders[i].next_timer() {
            if self.timer_at[i] != Some(t) {
                self.timer_at[i] = Some(t);
                self.push(t.max(now), Ev::Timer(i));
            }
        }
    }

    /// Invariants at a send (the packet is already counted in flight).
    fn on_sent(&mut self, i: usize, p: &TxPacket) {
        let now = self.now;
        let s = &self.senders[i];
        if self.p.check && self.p.scheme == Scheme::Ldcp {
            let st = s.controller().stage().expect("ldcp stage");
            let cw = s.cw();
            let mtu = self.p.sender.mtu.0 as f64;
            let in_flight = s.in_flight().0;
            if st.is_stable() {
                if cw >= 1.0 {
                    assert!(
                        in_flight as f64 <= cw * mtu + 1e-6,
                        "flow {i}: in flight {in_flight} > cw {cw} × MTU"
                    );
                } else {
                    assert_eq!(
                        in_flight,
                        u64::from(p.len),
                        "flow {i}: cw {cw} < 1 but more than one packet in flight"
                    );
                    if let Some(prev) = self.watch[i].last_send {
                        let gap = (now - prev).0 as f64;
                        let need = s.srtt().0 as f64 / cw;
                        assert!(
                            gap + 1e-6 >= need,
                            "flow {i}: sub-packet sends {gap} ns apart < srtt/cw = {need}"
                        );
                    }
                }
            } else {
                // fast start: within the burst window
                assert!(in_flight as f64 <= cw.floor().max(1.0) * mtu + 1e-6);
            }
        }
        self.watch[i].last_send = Some(now);
    }

    fn after_sender_event(&mut self, i: usize) {
        let srtt = self.senders[i].srtt();
        if srtt > self.r.max_srtt[i] {
            self.r.max_srtt[i] = srtt;
        }
        if !self.p.check {
            return;
        }
        let s = &self.senders[i];
        let una = s.snd_una();
        assert!(una >= self.watch[i].snd_una, "flow {i}: snd_una went back");
        self.watch[i].snd_una = una;
        assert!(s.snd_nxt() >= una && s.snd_nxt() <= s.flow_size());
        let cw = s.cw();
        match self.p.scheme {
            // rate schemes without a window
            Scheme::None | Scheme::Dcqcn => assert!(cw.is_infinite()),
            _ => {
                assert!(cw.is_finite() && cw > 0.0, "flow {i}: cw {cw}");
                if s.controller().stage().is_some_and(|st| st.is_stable()) {
                    let floor = if self.p.ldcp.sub_packet {
                        self.p.ldcp.gamma
                    } else {
                        1.0
                    };
                    assert!(cw >= floor - 1e-12, "flow {i}: cw {cw} below floor {floor}");
                }
            }
        }
    }

    fn drain(&mut self, now: Time) {
        // time-average of the queue
        self.q_area += self.q_bytes as f64 * (now - self.q_last_t).0 as f64;
        self.q_last_t = now;
        while let Some(&(fin, size)) = self.queue.front() {
            if fin > now {
                break;
            }
            self.queue.pop_front();
            self.q_bytes -= size;
        }
    }

    fn enqueue(&mut self, mut pkt: Pkt) {
        let now = self.now;
        self.drain(now);
        if self.p.data_loss > 0.0 && self.rng.next_f64() < self.p.data_loss {
            self.r.drops_random += 1;
            return;
        }
        let size = wire::data_on_wire(Bytes(pkt.len.into())).0;
        let q = self.q_bytes;
        if q + size > self.p.buf_max {
            if pkt.ecn.is_capable() {
                self.r.drops_full_ect += 1;
            } else {
                self.r.drops_full_not_ect += 1;
            }
            return;
        }
        if pkt.ecn.is_capable() {
            let prob = if q < self.p.k_min {
                0.0
            } else if q >= self.p.k_max {
                1.0
            } else {
                (q - self.p.k_min) as f64 / (self.p.k_max - self.p.k_min) as f64 * self.p.p_max
            };
            if prob > 0.0 && self.rng.next_f64() < prob {
                pkt.ecn = Ecn::Ce;
                self.r.marks += 1;
            }
        } else if q >= self.p.k_fs {
            self.r.drops_not_ect += 1;
            return;
        }
        let start = self.busy_until.max(now);
        let fin = start + self.p.bottleneck_rate.tx_time(Bytes(size));
        self.busy_until = fin;
        self.queue.push_back((fin, size));
        self.q_bytes += size;
        self.r.max_queue = self.r.max_queue.max(self.q_bytes);
        if now >= self.settle {
            self.r.max_queue_settled = self.r.max_queue_settled.max(self.q_bytes);
        }
        self.push(fin + self.p.bottleneck_delay, Ev::AtReceiver(pkt));
    }

    fn receive(&mut self, pkt: Pkt) {
        let now = self.now;
        let i = pkt.flow;
        let before = self.receivers[i].received();
        let a = self.receivers[i].on_data_req(
            now,
            pkt.seq,
            pkt.len,
            pkt.ecn.is_ce(),
            pkt.last,
            pkt.ack_req,
        );
        let after = self.receivers[i].received();
        if self.p.check {
            if a.accepted {
                // exactly once, in order: the packet covers the next undelivered byte
                assert!(pkt.seq <= before && pkt.seq + u64::from(pkt.len) > before);
                assert_eq!(after, before + u64::from(a.delivered));
            } else {
                assert_eq!(after, before);
            }
            self.watch[i].delivered = after;
        }
        let d = self.reverse_delay();
        for ack in a.acks() {
            if !self.control_lost() {
                self.push(now + d, Ev::Ack(i, ack));
            }
        }
        if a.cnp && !self.control_lost() {
            self.push(now + d, Ev::Cnp(i));
        }
    }
}

trait NoneOrGt {
    fn is_none_or_gt(&self, t: Time) -> bool;
}
impl NoneOrGt for Option<Time> {
    fn is_none_or_gt(&self, t: Time) -> bool {
        match *self {
            None => true,
            Some(w) => t < w,
        }
    }
}
