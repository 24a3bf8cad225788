//! One switch's RCM ([`RcmSwitch`]): CRD, CN, CFR, RCC and SAR wired together per port and
//! priority, driven by the simulator's switch.
//!
//! Every port has, per priority, an *input* point (a congestion point on the input queue and
//! the CN source towards the neighbour on that link) and an *output* point (a congestion
//! point on the output queue, the local and remote flags, the CFR CAM, the flows the last CN
//! named, and RCC). The host calls:
//!
//! - [`RcmSwitch::on_ingress`] for every data packet arriving on a port (the input queue's
//!   length with it): a detection makes the port send a CN upstream ([`Event::SendCn`]);
//! - [`RcmSwitch::on_enqueue`] when the packet joins its output queue: the output queue is
//!   sampled (a detection activates RCC and cuts `W_c`);
//! - [`RcmSwitch::on_sent`] for every data packet sent (CFR samples it), with the bytes the
//!   port's scheduler still holds apart for RCC;
//!
//! Decision: the output queue's congestion point measures the queue *without* the packets set
//! apart for RCC. In the paper's input-and-output-queued switch the packets RCC holds wait in
//! the input queues (§3.4, §4.1), whose congestion points see them and notify upstream; here
//! they are buffered at the output port, and counting them there would make a port that holds
//! packets look congested because it holds them (RCC would sustain itself).
//! - [`RcmSwitch::on_cn`] for a CN received on a port (the neighbour downstream on that link);
//! - [`RcmSwitch::route`] to choose among equal-cost ports (SAR);
//! - [`RcmSwitch::on_timeout`] at [`RcmSwitch::next_timeout`] (CN repeats, RCC exits).
//!
//! After each call the host drains [`RcmSwitch::pop_event`]: CNs to send and RCC budget
//! changes. Events queue in a buffer sized at construction for what one call can produce; a
//! host that does not drain them makes it grow.
//!
//! RCC is split where its information is: the switch decides each output queue's budget
//! `(W, W_c)` ([`RccBudget`], from detections and CNs) and its congestion flows, and reports
//! every change ([`Event::Rcc`]); the port's scheduler enforces it where the packets are
//! (`rdma-cc-switch`'s scheduler: it sets the congestion flows' packets apart as they reach
//! the head of its queue, as the paper's virtual output queues would, keeps each flow in order,
//! and holds them with an [`crate::rcc::RccWindow`] once `W_c` is spent).
//!
//! Which output point an input queue's CN reports (decision, see the crate documentation):
//! among the output points of the same priority on the other ports, the most congested one
//! (congested first, then the highest regional degree, then the longest queue).

use crate::cfr::{Cam, FlowId, FlowList};
use crate::cn::{regional_degree, Cn, CnSource};
use crate::config::{RcmConfig, RcmParams, MAX_SAR_CN_THRESHOLD};
use crate::crd::{CongestionPoint, Flags, Role};
use crate::rcc::{BudgetStats, RccBudget};
use crate::sar::{Route, RouteQuery, Sar, SarStats};
use crate::PRIORITIES;
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};
use std::collections::VecDeque;

/// What the switch tells RCM about one of its ports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortSetup {
    /// The port's line rate (RCC's window `W` follows from it).
    pub rate: Rate,
    /// Whether the neighbour on the link is a switch (CNs are sent only to switches).
    pub neighbour_is_switch: bool,
}

/// A change of an output point's RCC: its budget and congestion flows.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RccChange {
    /// RCC started, with this role, window, initial `W_c` (before the cut of the event that
    /// started it, reported next) and congestion flows.
    On {
        /// The point's role.
        role: Role,
        /// `W`.
        w: Bytes,
        /// `W_c` at activation.
        w_c: Bytes,
        /// The congestion flows: the CAM's at a root, the CN's at an edge or inner point.
        flows: FlowList,
    },
    /// A congestion event of degree `degree` cut `W_c` (§3.4 eq. 5); the congestion flows as
    /// they are now.
    Cut {
        /// The degree.
        degree: u8,
        /// `W`.
        w: Bytes,
        /// The new `W_c`.
        w_c: Bytes,
        /// The congestion flows.
        flows: FlowList,
    },
    /// The congestion flows of an active RCC changed (a root's CAM moved on), budget
    /// unchanged.
    Flows {
        /// `W`.
        w: Bytes,
        /// `W_c`.
        w_c: Bytes,
        /// The congestion flows.
        flows: FlowList,
    },
    /// No congestion event arrived for `rcc_recover_time`: `W_c` grew (decision).
    Recover {
        /// `W`.
        w: Bytes,
        /// The new `W_c`.
        w_c: Bytes,
        /// The congestion flows.
        flows: FlowList,
    },
    /// RCC stopped (both flags clear).
    Off,
}

impl RccChange {
    /// The budget `(W, W_c)` in effect after the change (`None`: RCC off), what the port's
    /// [`crate::rcc::RccWindow`] is set to.
    pub fn budget(&self) -> Option<(Bytes, Bytes)> {
        match *self {
            RccChange::On { w, w_c, .. }
            | RccChange::Cut { w, w_c, .. }
            | RccChange::Flows { w, w_c, .. }
            | RccChange::Recover { w, w_c, .. } => Some((w, w_c)),
            RccChange::Off => None,
        }
    }

    /// The congestion flows in effect after the change (none once RCC is off).
    pub fn flows(&self) -> FlowList {
        match *self {
            RccChange::On { flows, .. }
            | RccChange::Cut { flows, .. }
            | RccChange::Flows { flows, .. }
            | RccChange::Recover { flows, .. } => flows,
            RccChange::Off => FlowList::new(),
        }
    }
}

/// Something the host must do or may record.
// A CN is carried inline (its flow list is a fixed array): events live in a buffer allocated
// once, and boxing the large variant would allocate per CN.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Send this CN out of `port` (a link-local control frame to the neighbour).
    SendCn {
        /// The port.
        port: u32,
        /// The notification.
        cn: Cn,
    },
    /// The RCC of output point (`port`, `prio`) changed.
    Rcc {
        /// The port.
        port: u32,
        /// The priority.
        prio: u8,
        /// The change.
        change: RccChange,
    },
}

/// Counters of one switch's RCM.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RcmStats {
    /// CNs sent to neighbour switches.
    pub cn_sent: u64,
    /// CNs an input queue would have sent to a host (not sent: hosts do not run RCM).
    pub cn_not_sent_to_host: u64,
    /// CNs received.
    pub cn_received: u64,
    /// CNs received for a port or priority the switch does not have (ignored).
    pub cn_ignored: u64,
    /// Congestion detections at output queues (rising local flags).
    pub detections: u64,
}

/// The state of one output point, for outputs and tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PointState {
    /// The point's role.
    pub role: Role,
    /// Its local degree (0 when the local flag is clear).
    pub fb_local: u8,
    /// `Fb_r` of a valid CN.
    pub fb_remote: Option<u8>,
    /// Its regional degree (§3.2 eq. 2), what SAR compares.
    pub degree: u8,
    /// RCC's window `W`.
    pub w: Bytes,
    /// `W_c` while RCC is active.
    pub w_c: Option<Bytes>,
    /// The output queue's length at the last enqueue.
    pub queue: Bytes,
    /// Bytes of the queue set apart for RCC (not counted by its congestion point).
    pub held: Bytes,
}

#[derive(Debug, Clone)]
struct Input {
    cp: CongestionPoint,
    cn: CnSource,
}

#[derive(Debug, Clone)]
struct Output {
    cp: CongestionPoint,
    flags: Flags,
    cam: Cam,
    /// The flows the last CN named.
    remote: FlowList,
    rcc: RccBudget,
    q_len: Bytes,
    /// Bytes the port's scheduler holds apart for RCC (as its last departure reported).
    held: Bytes,
    /// The congestion flows last reported to the scheduler.
    reported: FlowList,
    /// The measurement of `W_c` in progress (decision `rcc_measure`).
    measure: Option<Measure>,
    /// The last congestion event or recovery while active (decision `rcc_recover_time`).
    last_event: Time,
    /// `W_c` added by one recovery.
    recover_step: Bytes,
    /// The point's role at its last RCC event (what [`RcmSwitch::rcc_period`] answers).
    role: Role,
}

/// The measurement that starts an episode of RCC (decision `rcc_measure`): what the port
/// sent, and how much of it the congestion flows, until `until`.
#[derive(Debug, Clone, Copy)]
struct Measure {
    until: Time,
    sent: u64,
    sent_c: u64,
    /// The largest degree of the congestion events meanwhile (the cut that follows).
    degree: u8,
    role: Role,
}

impl Output {
    /// §3.2 eq. 2 at this point.
    fn degree(&self, now: Time, p: &RcmParams) -> u8 {
        regional_degree(
            self.flags.fb_local(now),
            self.flags.fb_remote(now),
            p.w,
            p.fb_max,
        )
    }

    /// The flows this point's RCC controls: the CN's flows at an edge or inner point, the
    /// CAM's at a root (§3.2: the root's IDs replace their own).
    fn harmful(&self, now: Time) -> FlowList {
        match self.flags.role(now) {
            Role::Clear => FlowList::new(),
            Role::Root => {
                let mut l = FlowList::new();
                self.cam.congestion_flows(&mut l);
                l
            }
            Role::Edge | Role::Inner => self.remote,
        }
    }
}

/// RCM of one switch (see the module documentation).
#[derive(Debug, Clone)]
pub struct RcmSwitch {
    p: RcmParams,
    ports: usize,
    to_switch: Box<[bool]>,
    inputs: Box<[Input]>,
    outputs: Box<[Output]>,
    sar: Sar,
    /// Arrival times of the last `sar_cn_threshold` CNs (a ring).
    cn_times: [Time; MAX_SAR_CN_THRESHOLD],
    cn_next: usize,
    /// CNs received for a port and priority the switch has.
    cn_valid: u64,
    /// The latest expiry of any local flag (input or output): the switch is congested itself
    /// before it.
    local_until: Time,
    /// The earliest pending timeout (possibly early: [`Self::on_timeout`] recomputes it).
    deadline: Option<Time>,
    events: VecDeque<Event>,
    stats: RcmStats,
}

impl RcmSwitch {
    /// RCM for a switch with `ports` (port `i` is `ports[i]`). Validates `cfg` (the error
    /// names the field) and allocates everything the switch will use.
    pub fn new(cfg: &RcmConfig, ports: &[PortSetup]) -> Result<RcmSwitch, ConfigError> {
        let p = cfg.resolved()?;
        ConfigError::check(
            u32::try_from(ports.len()).is_ok(),
            "ports",
            ports.len(),
            "too many ports",
        )?;
        let n = ports.len() * PRIORITIES;
        let inputs = (0..n)
            .map(|_| Input {
                cp: CongestionPoint::new(&p),
                cn: CnSource::new(),
            })
            .collect();
        let outputs = ports
            .iter()
            .flat_map(|s| std::iter::repeat_n(s.rate, PRIORITIES))
            .map(|rate| Output {
                cp: CongestionPoint::new(&p),
                flags: Flags::default(),
                cam: Cam::new(&p),
                remote: FlowList::new(),
                rcc: RccBudget::new(p.window_bytes(rate), p.g_d),
                q_len: Bytes::ZERO,
                held: Bytes::ZERO,
                reported: FlowList::new(),
                measure: None,
                last_event: Time::ZERO,
                role: Role::Clear,
                recover_step: Bytes(
                    (p.window_bytes(rate).0 as f64 * p.rcc_recover_step).round() as u64
                ),
            })
            .collect();
        Ok(RcmSwitch {
            p,
            ports: ports.len(),
            to_switch: ports.iter().map(|s| s.neighbour_is_switch).collect(),
            inputs,
            outputs,
            sar: Sar::new(&p),
            cn_times: [Time::ZERO; MAX_SAR_CN_THRESHOLD],
            cn_next: 0,
            cn_valid: 0,
            local_until: Time::ZERO,
            deadline: None,
            events: VecDeque::with_capacity(2 * n + 16),
            stats: RcmStats::default(),
        })
    }

    /// The parameters in effect.
    pub fn params(&self) -> &RcmParams {
        &self.p
    }

    /// Index of point (`port`, `prio`), `None` out of range.
    #[inline]
    fn idx(&self, port: u32, prio: u8) -> Option<usize> {
        let (port, prio) = (port as usize, prio as usize);
        (port < self.ports && prio < PRIORITIES).then_some(port * PRIORITIES + prio)
    }

    #[inline]
    fn note_deadline(&mut self, t: Option<Time>) {
        if let Some(t) = t {
            self.deadline = Some(self.deadline.map_or(t, |d| d.min(t)));
        }
    }

    /// A data packet of `size` bytes arrived on `port` in priority `prio`; the port's input
    /// queue of that priority now holds `q_len` bytes. A congested sample may send a CN
    /// upstream ([`Event::SendCn`]).
    pub fn on_ingress(&mut self, now: Time, port: u32, prio: u8, size: Bytes, q_len: Bytes) {
        let Some(i) = self.idx(port, prio) else {
            return;
        };
        let Some(f) = self.inputs[i].cp.on_arrival(size, q_len) else {
            return;
        };
        if f.congested() {
            self.local_until = self.local_until.max(now.saturating_add(self.p.hold));
        }
        if self.inputs[i].cn.on_sample(now, f.degree, &self.p) {
            self.send_cn(now, port, prio);
        }
        let t = self.inputs[i].cn.next_timeout(now, &self.p);
        self.note_deadline(t);
    }

    /// Whether `port`'s neighbour is a switch (CNs go only there; false for an unknown port).
    pub fn neighbour_is_switch(&self, port: u32) -> bool {
        self.to_switch.get(port as usize).copied().unwrap_or(false)
    }

    /// Queues a CN for the neighbour on `port`, about priority `prio`.
    fn send_cn(&mut self, now: Time, port: u32, prio: u8) {
        if !self.neighbour_is_switch(port) {
            self.stats.cn_not_sent_to_host += 1;
            return;
        }
        let cn = self.build_cn(now, port, prio);
        log::debug!(
            "CN out of port {port} prio {prio}: degree {}, {} flows",
            cn.degree,
            cn.flows.len()
        );
        self.stats.cn_sent += 1;
        self.events.push_back(Event::SendCn { port, cn });
    }

    /// What the input queue (`port`, `prio`) reports upstream (§3.2): `Fb'` (eq. 2) from its
    /// own degree and the most congested output point's `Fb_r`, and that point's harmful
    /// flows (a CN's at an edge or inner point, its CAM's otherwise).
    fn build_cn(&self, now: Time, port: u32, prio: u8) -> Cn {
        let fb = self
            .idx(port, prio)
            .map_or(1, |i| self.inputs[i].cn.degree(now))
            .max(1);
        let focus = (0..self.ports)
            .filter(|&q| q != port as usize)
            .map(|q| q * PRIORITIES + prio as usize)
            .max_by_key(|&j| {
                let o = &self.outputs[j];
                (
                    o.flags.role(now).congested(),
                    o.degree(now, &self.p),
                    o.q_len,
                )
            });
        let mut cn = Cn {
            prio,
            degree: fb,
            flows: FlowList::new(),
        };
        if let Some(j) = focus {
            let o = &self.outputs[j];
            cn.degree = regional_degree(fb, o.flags.fb_remote(now), self.p.w, self.p.fb_max).max(1);
            if o.flags.role(now).uses_remote_flows() {
                cn.flows = o.remote;
            } else {
                o.cam.congestion_flows(&mut cn.flows);
            }
        }
        cn
    }

    /// A data packet of `size` bytes joins output queue (`port`, `prio`), which now holds
    /// `q_len` bytes. Samples the queue without the bytes held apart for RCC (a detection
    /// activates RCC and cuts `W_c`; at an active root a sample may update its congestion
    /// flows).
    pub fn on_enqueue(&mut self, now: Time, port: u32, prio: u8, size: Bytes, q_len: Bytes) {
        let Some(j) = self.idx(port, prio) else {
            return;
        };
        self.expire(now, j);
        self.outputs[j].q_len = q_len;
        let q = q_len.saturating_sub(self.outputs[j].held);
        if let Some(f) = self.outputs[j].cp.on_arrival(size, q) {
            if f.congested() {
                self.local_until = self.local_until.max(now.saturating_add(self.p.hold));
            }
            // a detection (the local flag rises) is a congestion event (§3.4)
            if self.outputs[j].flags.on_local(now, f.degree, self.p.hold) {
                self.stats.detections += 1;
                self.congestion_event(now, j, f.degree);
            } else if f.congested() {
                self.refresh_flows(now, j);
            }
        }
    }

    /// Reports a change of the congestion flows of active output point `j` (a root's CAM
    /// moves on), if any.
    fn refresh_flows(&mut self, now: Time, j: usize) {
        let o = &mut self.outputs[j];
        let (Some(w_c), flows) = (o.rcc.w_c(), o.harmful(now)) else {
            return;
        };
        if flows == o.reported {
            return;
        }
        o.reported = flows;
        let change = RccChange::Flows {
            w: o.rcc.w(),
            w_c,
            flows,
        };
        let (port, prio) = ((j / PRIORITIES) as u32, (j % PRIORITIES) as u8);
        self.events.push_back(Event::Rcc { port, prio, change });
    }

    /// A congestion event of degree `degree` at output point `j` (a detection or a CN):
    /// RCC starts if it was off, then `W_c` is cut (§3.4 eq. 5–6).
    fn congestion_event(&mut self, now: Time, j: usize, degree: u8) {
        let (port, prio) = ((j / PRIORITIES) as u32, (j % PRIORITIES) as u8);
        let measure_time = self.p.rcc_measure;
        let o = &mut self.outputs[j];
        let role = o.flags.role(now);
        let flows = o.harmful(now);
        o.reported = flows;
        o.role = role;
        if !o.rcc.is_active() && measure_time.0 > 0 {
            // decision `rcc_measure`: W_c is measured first (nothing held meanwhile), then cut
            // by the largest degree seen meanwhile
            match o.measure.as_mut() {
                Some(m) => m.degree = m.degree.max(degree),
                None => {
                    let until = now.saturating_add(measure_time);
                    o.measure = Some(Measure {
                        until,
                        sent: 0,
                        sent_c: 0,
                        degree,
                        role,
                    });
                    self.note_deadline(Some(until));
                }
            }
            let t = self.outputs[j].flags.next_expiry(now);
            self.note_deadline(t);
            return;
        }
        o.last_event = now;
        if !o.rcc.is_active() {
            let share = o.cam.share(|f| flows.contains(f));
            let w_c = o.rcc.activate(share).unwrap_or(Bytes::ZERO);
            let change = RccChange::On {
                role,
                w: o.rcc.w(),
                w_c,
                flows,
            };
            self.events.push_back(Event::Rcc { port, prio, change });
        }
        self.cut_and_rearm(now, j, degree, flows);
    }

    /// Cuts output point `j`'s active `W_c` by `degree` (§3.4 eq. 6), reporting the cut with
    /// the congestion `flows`, then notes the point's next flag expiry and recovery.
    fn cut_and_rearm(&mut self, now: Time, j: usize, degree: u8, flows: FlowList) {
        let (port, prio) = ((j / PRIORITIES) as u32, (j % PRIORITIES) as u8);
        let o = &mut self.outputs[j];
        if let Some(w_c) = o.rcc.cut(degree) {
            let change = RccChange::Cut {
                degree,
                w: o.rcc.w(),
                w_c,
                flows,
            };
            self.events.push_back(Event::Rcc { port, prio, change });
        }
        let t = self.outputs[j].flags.next_expiry(now);
        self.note_deadline(t);
        let t = self.recovery_due(j);
        self.note_deadline(t);
    }

    /// When output point `j`'s `W_c` recovers next, if it can (decision `rcc_recover_time`).
    fn recovery_due(&self, j: usize) -> Option<Time> {
        let o = &self.outputs[j];
        let r = self.p.rcc_recover_time;
        (r.0 > 0 && o.role.uses_remote_flows() && o.rcc.w_c().is_some_and(|c| c < o.rcc.w()))
            .then(|| o.last_event.saturating_add(r))
    }

    /// Ends the measurement of output point `j` if it is due at `now`: RCC starts with `W_c`
    /// = the measured share of `W` (the CAM's share when nothing was sent), then cut.
    fn finish_measure(&mut self, now: Time, j: usize) {
        let o = &mut self.outputs[j];
        let Some(m) = o.measure.filter(|m| now >= m.until) else {
            return;
        };
        o.measure = None;
        let flows = o.harmful(now);
        o.reported = flows;
        let share = if m.sent > 0 {
            Some(m.sent_c as f64 / m.sent as f64)
        } else {
            o.cam.share(|f| flows.contains(f))
        };
        let (port, prio) = ((j / PRIORITIES) as u32, (j % PRIORITIES) as u8);
        let w_c = o.rcc.activate(share).unwrap_or(Bytes::ZERO);
        o.last_event = now;
        let role = if o.flags.role(now).congested() {
            o.flags.role(now)
        } else {
            m.role
        };
        o.role = role;
        self.events.push_back(Event::Rcc {
            port,
            prio,
            change: RccChange::On {
                role,
                w: o.rcc.w(),
                w_c,
                flows,
            },
        });
        self.cut_and_rearm(now, j, m.degree, flows);
    }

    /// Recovers output point `j`'s `W_c` if no congestion event arrived for
    /// `rcc_recover_time` (decision).
    fn recover(&mut self, now: Time, j: usize) {
        if self.recovery_due(j).is_none_or(|t| now < t) {
            return;
        }
        let o = &mut self.outputs[j];
        o.last_event = now;
        let step = o.recover_step;
        if let Some(w_c) = o.rcc.recover(step) {
            let change = RccChange::Recover {
                w: o.rcc.w(),
                w_c,
                flows: o.reported,
            };
            let (port, prio) = ((j / PRIORITIES) as u32, (j % PRIORITIES) as u8);
            self.events.push_back(Event::Rcc { port, prio, change });
        }
    }

    /// Stops the RCC of output point `j` if both its flags are clear at `now`.
    fn expire(&mut self, now: Time, j: usize) {
        let o = &mut self.outputs[j];
        if o.flags.role(now) == Role::Clear {
            o.measure = None;
        }
        // decision: RCC does not quit while the port's scheduler holds packets apart (in the
        // paper's switch they would wait in the input queues, whose congestion points would
        // still report them)
        if o.rcc.is_active() && o.flags.role(now) == Role::Clear && o.held.0 == 0 && o.rcc.exit() {
            o.reported = FlowList::new();
            let (port, prio) = ((j / PRIORITIES) as u32, (j % PRIORITIES) as u8);
            self.events.push_back(Event::Rcc {
                port,
                prio,
                change: RccChange::Off,
            });
        }
    }

    /// A CN arrived on `port` from the neighbour on that link (downstream for the traffic
    /// this port sends): the output point of its priority sets its remote flag, takes the
    /// CN's flows as its harmful flows, and treats the CN as a congestion event of its degree
    /// (§3.2, §3.4).
    pub fn on_cn(&mut self, now: Time, port: u32, cn: &Cn) {
        self.stats.cn_received += 1;
        let Some(j) = self.idx(port, cn.prio) else {
            self.stats.cn_ignored += 1;
            return;
        };
        let threshold = self.p.sar_cn_threshold as usize;
        self.cn_times[self.cn_next % threshold] = now;
        self.cn_next = (self.cn_next + 1) % threshold;
        self.cn_valid += 1;
        let o = &mut self.outputs[j];
        o.flags.on_remote(now, cn.degree, self.p.hold);
        o.remote = cn.flows;
        self.congestion_event(now, j, cn.degree);
    }

    /// A data packet of flow `flow` left output queue (`port`, `prio`), whose scheduler now
    /// holds `held` bytes apart for RCC. CFR samples it.
    pub fn on_sent(&mut self, port: u32, prio: u8, flow: FlowId, held: Bytes) {
        self.on_sent_bytes(port, prio, flow, Bytes::ZERO, held);
    }

    /// [`Self::on_sent`] with the packet's `size` (what the measurement of `W_c` counts,
    /// decision `rcc_measure`).
    pub fn on_sent_bytes(&mut self, port: u32, prio: u8, flow: FlowId, size: Bytes, held: Bytes) {
        if let Some(j) = self.idx(port, prio) {
            let o = &mut self.outputs[j];
            o.cam.on_departure(flow);
            o.held = held;
            if let Some(m) = o.measure.as_mut() {
                m.sent += size.0;
                if o.reported.contains(flow) {
                    m.sent_c += size.0;
                }
            }
        }
    }

    /// The period of the timed RCC window of output point (`port`, `prio`) as of its last RCC
    /// event (decision `rcc_timed`): `Some(window_time)` at an edge or inner point (the flows
    /// it holds congest a neighbour downstream: it paces them), `None` at a root (its own port
    /// is the bottleneck: the paper's work-conserving window of `W` bytes) or without
    /// `rcc_timed`.
    pub fn rcc_period(&self, port: u32, prio: u8) -> Option<Time> {
        let o = &self.outputs[self.idx(port, prio)?];
        (self.p.rcc_timed && o.role.uses_remote_flows()).then_some(self.p.window_time)
    }

    /// Whether the switch is in a congestion region at `now` (§3.4 "SAR"): one of its queue
    /// points has its local flag set, or it received `sar_cn_threshold` CNs within `hold`.
    pub fn in_region(&self, now: Time) -> bool {
        if now < self.local_until {
            return true;
        }
        let threshold = self.p.sar_cn_threshold as usize;
        if self.cn_valid < threshold as u64 {
            return false;
        }
        // the oldest of the last `threshold` CNs is the next to be overwritten
        let oldest = self.cn_times[self.cn_next % threshold];
        now < oldest.saturating_add(self.p.hold)
    }

    /// Whether `flow` (priority `prio`) is a congestion flow at this switch: in the CAM of an
    /// output queue of its priority, or named by a valid CN.
    pub fn is_congestion_flow(&self, now: Time, prio: u8, flow: FlowId) -> bool {
        Self::congestion_flow(&self.outputs, self.ports, now, prio, flow)
    }

    fn congestion_flow(
        outputs: &[Output],
        ports: usize,
        now: Time,
        prio: u8,
        flow: FlowId,
    ) -> bool {
        let prio = (prio as usize).min(PRIORITIES - 1);
        (0..ports).any(|q| {
            let o = &outputs[q * PRIORITIES + prio];
            o.cam.contains(flow) || (o.flags.remote(now) && o.remote.contains(flow))
        })
    }

    /// Chooses the output port of a packet of flow `flow` (priority `prio`) among the
    /// equal-cost `candidates`, ECMP having chosen `ecmp` (§3.4 "SAR").
    pub fn route(
        &mut self,
        now: Time,
        prio: u8,
        flow: FlowId,
        candidates: &[u32],
        ecmp: u32,
    ) -> Route {
        let q = RouteQuery {
            flow,
            candidates,
            ecmp,
            in_region: self.in_region(now),
        };
        let (outputs, ports, p) = (&self.outputs, self.ports, &self.p);
        let prio_i = (prio as usize).min(PRIORITIES - 1);
        self.sar.route(
            now,
            &q,
            || Self::congestion_flow(outputs, ports, now, prio, flow),
            |port| {
                outputs
                    .get(port as usize * PRIORITIES + prio_i)
                    .filter(|_| (port as usize) < ports)
                    .map_or(u8::MAX, |o| o.degree(now, p))
            },
        )
    }

    /// When [`Self::on_timeout`] should next be called (`None`: nothing pending).
    pub fn next_timeout(&self) -> Option<Time> {
        self.deadline
    }

    /// The timer fired at `now`: CN repeats of congested input queues, RCC exits of output
    /// points whose flags cleared. Recomputes [`Self::next_timeout`].
    pub fn on_timeout(&mut self, now: Time) {
        self.deadline = None;
        for i in 0..self.inputs.len() {
            if self.inputs[i].cn.on_timeout(now, &self.p) {
                let (port, prio) = ((i / PRIORITIES) as u32, (i % PRIORITIES) as u8);
                self.send_cn(now, port, prio);
            }
            let t = self.inputs[i].cn.next_timeout(now, &self.p);
            self.note_deadline(t);
        }
        for j in 0..self.outputs.len() {
            self.expire(now, j);
            self.finish_measure(now, j);
            self.recover(now, j);
            let o = &self.outputs[j];
            if o.rcc.is_active() || o.measure.is_some() {
                let (t1, t2) = (o.flags.next_expiry(now), o.measure.map(|m| m.until));
                self.note_deadline(t1);
                self.note_deadline(t2);
                let t = self.recovery_due(j);
                self.note_deadline(t);
            }
        }
    }

    /// The next event for the host, oldest first.
    pub fn pop_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Counters.
    pub fn stats(&self) -> RcmStats {
        self.stats
    }

    /// RCC budget counters summed over every output point.
    pub fn rcc_stats(&self) -> BudgetStats {
        self.outputs
            .iter()
            .fold(BudgetStats::default(), |mut a, o| {
                let s = o.rcc.stats();
                a.activations += s.activations;
                a.exits += s.exits;
                a.cuts += s.cuts;
                a.recoveries += s.recoveries;
                a
            })
    }

    /// SAR counters.
    pub fn sar_stats(&self) -> SarStats {
        self.sar.stats()
    }

    /// The state of output point (`port`, `prio`) at `now` (`None` out of range).
    pub fn point(&self, now: Time, port: u32, prio: u8) -> Option<PointState> {
        let o = &self.outputs[self.idx(port, prio)?];
        Some(PointState {
            role: o.flags.role(now),
            fb_local: o.flags.fb_local(now),
            fb_remote: o.flags.fb_remote(now),
            degree: o.degree(now, &self.p),
            w: o.rcc.w(),
            w_c: o.rcc.w_c(),
            queue: o.q_len,
            held: o.held,
        })
    }

    /// Bytes the scheduler of output queue (`port`, `prio`) holds apart for RCC (as its last
    /// departure reported; 0 out of range).
    pub fn held(&self, port: u32, prio: u8) -> Bytes {
        self.idx(port, prio)
            .map_or(Bytes::ZERO, |j| self.outputs[j].held)
    }

    /// The CAM entries of output queue (`port`, `prio`), in slot order (empty out of range).
    pub fn cam(&self, port: u32, prio: u8) -> &[FlowId] {
        self.idx(port, prio)
            .map_or(&[], |j| self.outputs[j].cam.entries())
    }

    /// Whether input queue (`port`, `prio`) is congested at `now`.
    pub fn input_congested(&self, now: Time, port: u32, prio: u8) -> bool {
        self.idx(port, prio)
            .is_some_and(|i| self.inputs[i].cn.congested(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SarMode;
    use proptest::prelude::*;

    const G100: Rate = Rate::gbps(100);

    /// A 4-port switch: ports 0 and 1 face switches, 2 and 3 hosts.
    fn switch(cfg: RcmConfig) -> RcmSwitch {
        let ports = [true, true, false, false].map(|s| PortSetup {
            rate: G100,
            neighbour_is_switch: s,
        });
        RcmSwitch::new(&cfg, &ports).unwrap()
    }

    /// RCM with periodic CFR sampling (the tests fill CAMs sample by sample).
    fn cfg() -> RcmConfig {
        RcmConfig {
            enabled: true,
            cfr_jitter: false,
            ..RcmConfig::default()
        }
    }

    fn events(s: &mut RcmSwitch) -> Vec<Event> {
        std::iter::from_fn(|| s.pop_event()).collect()
    }

    /// Fills the CAM of output (port, 0) with `flows` (one sample each).
    fn fill_cam(s: &mut RcmSwitch, port: u32, flows: &[FlowId]) {
        for &f in flows {
            for _ in 0..s.params().cfr_sample {
                s.on_sent(port, 0, f, Bytes::ZERO);
            }
        }
    }

    /// One sampled arrival at output (port, 0) with the queue at `q` (after a first sample
    /// of an empty queue).
    fn congest_output(s: &mut RcmSwitch, now: Time, port: u32, q: u64) {
        s.on_enqueue(now, port, 0, Bytes(150_000), Bytes(q));
    }

    fn ids(l: &[FlowId]) -> FlowList {
        FlowList::from_ids(l)
    }

    #[test]
    fn a_congested_output_queue_is_a_root_and_starts_rcc_on_its_cam_flows() {
        let mut s = switch(cfg());
        // flows 1 (three quarters of the CAM) and 2
        fill_cam(&mut s, 2, &[1, 1, 2, 1]);
        // the first sample finds a queue of 100 KB that grew from 0: Fb = 80 000 + 200 000
        let t = Time::us(5);
        congest_output(&mut s, t, 2, 100_000);
        let ev = events(&mut s);
        assert_eq!(
            ev,
            [
                Event::Rcc {
                    port: 2,
                    prio: 0,
                    change: RccChange::On {
                        role: Role::Root,
                        w: Bytes(125_000),
                        // the CAM flows' share: all of the CAM
                        w_c: Bytes(125_000),
                        // the root controls its CAM's flows, most recently sampled first
                        flows: ids(&[1, 2]),
                    }
                },
                Event::Rcc {
                    port: 2,
                    prio: 0,
                    change: RccChange::Cut {
                        degree: 63,
                        w: Bytes(125_000),
                        w_c: Bytes(62_500),
                        flows: ids(&[1, 2]),
                    }
                },
            ]
        );
        assert_eq!(s.stats().detections, 1);
        let st = s.point(t, 2, 0).unwrap();
        assert_eq!((st.role, st.fb_local, st.degree), (Role::Root, 63, 63));
        // no CN: the output queue is not an input queue
        assert_eq!(s.stats().cn_sent, 0);
        // the switch is in a congestion region (it is congested itself)
        assert!(s.in_region(t));
        // a later positive sample with a CAM that moved on reports the new flows
        fill_cam(&mut s, 2, &[3; 16]);
        s.on_enqueue(Time::us(6), 2, 0, Bytes(15_000), Bytes(200_000));
        let ev = events(&mut s);
        assert_eq!(
            ev,
            [Event::Rcc {
                port: 2,
                prio: 0,
                change: RccChange::Flows {
                    w: Bytes(125_000),
                    w_c: Bytes(62_500),
                    flows: ids(&[3]),
                }
            }]
        );
        // RCC quits hold after the last positive Fb
        let end = Time::us(6) + Time::us(20);
        assert_eq!(s.next_timeout(), Some(t + Time::us(20)));
        s.on_timeout(t + Time::us(20));
        assert!(events(&mut s).is_empty());
        s.on_timeout(end);
        let ev = events(&mut s);
        assert_eq!(
            ev,
            [Event::Rcc {
                port: 2,
                prio: 0,
                change: RccChange::Off
            }]
        );
        assert_eq!(ev[0].clone_change().flows(), FlowList::new());
        assert_eq!(s.point(end, 2, 0).unwrap().w_c, None);
        assert!(!s.in_region(end));
        assert_eq!(s.next_timeout(), None);
    }

    impl Event {
        fn clone_change(&self) -> RccChange {
            match self {
                Event::Rcc { change, .. } => *change,
                Event::SendCn { .. } => RccChange::Off,
            }
        }
    }

    #[test]
    fn the_output_point_does_not_count_the_packets_rcc_holds() {
        let mut s = switch(cfg());
        fill_cam(&mut s, 2, &[1]);
        congest_output(&mut s, Time::us(1), 2, 100_000);
        // the scheduler reports 250 KB held apart: the queue is 300 KB, the point sees 50 KB
        s.on_sent(2, 0, 1, Bytes(250_000));
        let t = Time::us(2);
        assert_eq!(s.point(t, 2, 0).unwrap().held, Bytes(250_000));
        // at the next sample (15 KB later) Fb = (50 000 − 20 000) + 2·(50 000 − 100 000) < 0
        // while the whole queue would give Fb = 280 000 + 2·200 000 > 0
        s.on_enqueue(t, 2, 0, Bytes(15_000), Bytes(300_000));
        assert_eq!(s.stats().detections, 1);
        assert!(events(&mut s).iter().all(|e| !matches!(
            e,
            Event::Rcc {
                change: RccChange::Flows { .. },
                ..
            }
        )));
        // the root's flag clears hold after its last positive Fb (1 µs), but the scheduler
        // still holds packets apart: RCC stays on (decision: in the paper's switch they wait in
        // the input queues, whose congestion points still see them)
        s.on_timeout(Time::us(21));
        assert!(s.point(Time::us(21), 2, 0).unwrap().w_c.is_some());
        // the last held packet leaves: RCC quits at the next look
        s.on_sent(2, 0, 1, Bytes::ZERO);
        s.on_timeout(Time::us(22));
        assert_eq!(s.point(Time::us(22), 2, 0).unwrap().w_c, None);
    }

    #[test]
    fn w_c_can_be_measured_after_detection_then_cut_and_recover() {
        // decisions rcc_measure and rcc_recover_time (NPC 2017 §3.4: W_c "estimated by the
        // data amount sent ... from a given start when a congestion is detected")
        let mut s = switch(RcmConfig {
            rcc_measure: Time::us(2),
            rcc_recover_time: Time::us(10),
            rcc_recover_step: 0.125,
            ..cfg()
        });
        fill_cam(&mut s, 2, &[9; 16]);
        congest_output(&mut s, Time::us(5), 2, 100_000);
        // measuring: nothing held yet
        assert!(events(&mut s).is_empty());
        assert_eq!(s.point(Time::us(5), 2, 0).unwrap().w_c, None);
        // the burst (flow 9) sends half of the bytes meanwhile
        for k in 0..20u64 {
            s.on_sent_bytes(
                2,
                0,
                if k % 2 == 0 { 9 } else { 1 },
                Bytes(1000),
                Bytes::ZERO,
            );
        }
        assert_eq!(s.next_timeout(), Some(Time::us(7)));
        s.on_timeout(Time::us(7));
        let ev = events(&mut s);
        // W_c = half of W, cut by half (the detection's degree 63): a quarter of the port
        assert!(
            matches!(
                ev[..],
                [
                    Event::Rcc {
                        change: RccChange::On {
                            role: Role::Root,
                            w_c: Bytes(62_500),
                            ..
                        },
                        ..
                    },
                    Event::Rcc {
                        change: RccChange::Cut {
                            degree: 63,
                            w_c: Bytes(31_250),
                            ..
                        },
                        ..
                    }
                ]
            ),
            "{ev:?}"
        );
        // a root does not recover: its W_c comes from its own detection (decision)
        s.on_timeout(Time::us(17));
        assert!(events(&mut s).is_empty());
        assert_eq!(s.rcc_stats().recoveries, 0);
        // a root's window is the paper's (work conserving) even with rcc_timed
        assert_eq!(s.rcc_period(2, 0), None);
    }

    #[test]
    fn an_edge_recovers_w_c_when_no_cn_came_for_the_recover_time() {
        // decision rcc_recover_time: every CN cuts an edge's W_c, so without an increase it
        // only falls (to ~0 in a long incast); it grows by a step of W per quiet period
        let mut s = switch(RcmConfig {
            rcc_recover_time: Time::us(10),
            rcc_recover_step: 0.125,
            ..cfg()
        });
        let cn = Cn {
            prio: 0,
            degree: 63,
            flows: FlowList::from_ids(&[5]),
        };
        s.on_cn(Time::us(1), 1, &cn);
        let w_c = |s: &RcmSwitch, t| s.point(t, 1, 0).unwrap().w_c.unwrap();
        let cut = w_c(&s, Time::us(1));
        events(&mut s);
        // a CN within the recover time resets the quiet period
        s.on_cn(Time::us(8), 1, &cn);
        events(&mut s);
        let cut2 = w_c(&s, Time::us(8));
        assert!(cut2 < cut, "{cut2:?} {cut:?}");
        s.on_timeout(Time::us(17));
        assert!(events(&mut s).is_empty());
        s.on_timeout(Time::us(18));
        let ev = events(&mut s);
        assert!(
            matches!(
                ev[..],
                [Event::Rcc {
                    port: 1,
                    change: RccChange::Recover { .. },
                    ..
                }]
            ),
            "{ev:?}"
        );
        let w = s.point(Time::us(18), 1, 0).unwrap().w;
        assert_eq!(w_c(&s, Time::us(18)).0, cut2.0 + w.0 / 8);
        assert_eq!(s.rcc_stats().recoveries, 1);
    }

    #[test]
    fn an_edge_paces_with_a_timed_window() {
        let mut s = switch(RcmConfig {
            rcc_timed: true,
            ..cfg()
        });
        let cn = Cn {
            prio: 0,
            degree: 21,
            flows: FlowList::from_ids(&[5]),
        };
        s.on_cn(Time::us(1), 1, &cn);
        events(&mut s);
        assert_eq!(s.rcc_period(1, 0), Some(Time::us(10)));
        assert_eq!(s.rcc_period(9, 0), None);
    }

    #[test]
    fn min_hits_makes_only_the_heavy_flow_harmful() {
        // NPC 2017 Fig. 6: a burst at half the port's bytes, four incast flows at 1/8 each
        let mut s = switch(RcmConfig {
            cfr_min_hits: 4,
            ..cfg()
        });
        let mut cam = Vec::new();
        for k in 0..16 {
            cam.push(if k % 2 == 0 { 9 } else { 1 + (k / 2) % 4 });
        }
        fill_cam(&mut s, 2, &cam);
        congest_output(&mut s, Time::us(5), 2, 100_000);
        let ev = events(&mut s);
        // W_c = the burst's share (half) of W, cut by half: a quarter of the port; the burst
        // is the only congestion flow
        assert!(matches!(
            ev[0],
            Event::Rcc {
                change: RccChange::On {
                    w_c: Bytes(62_500),
                    flows,
                    ..
                },
                ..
            } if flows == ids(&[9])
        ));
        assert!(matches!(
            ev[1],
            Event::Rcc {
                change: RccChange::Cut {
                    w_c: Bytes(31_250),
                    ..
                },
                ..
            }
        ));
    }

    #[test]
    fn a_congested_input_queue_notifies_its_upstream_switch_with_the_roots_flows() {
        let mut s = switch(cfg());
        fill_cam(&mut s, 2, &[1, 2]);
        congest_output(&mut s, Time::us(1), 2, 100_000);
        events(&mut s);
        // input queue of port 0 (a switch upstream) congests: Fb = 60 000 + 2·80 000
        s.on_ingress(Time::us(2), 0, 0, Bytes(150_000), Bytes(80_000));
        let ev = events(&mut s);
        assert_eq!(
            ev,
            [Event::SendCn {
                port: 0,
                cn: Cn {
                    prio: 0,
                    degree: 63,
                    flows: FlowList::from_ids(&[2, 1])
                }
            }]
        );
        assert!(s.input_congested(Time::us(2), 0, 0));
        // an input queue facing a host sends nothing
        s.on_ingress(Time::us(2), 3, 0, Bytes(150_000), Bytes(80_000));
        assert!(events(&mut s).is_empty());
        assert_eq!(s.stats().cn_not_sent_to_host, 1);
        // while congested, the CN repeats every cn_interval
        assert_eq!(s.next_timeout(), Some(Time::us(12)));
        s.on_timeout(Time::us(12));
        let ev = events(&mut s);
        assert!(matches!(ev[..], [Event::SendCn { port: 0, .. }]), "{ev:?}");
        assert_eq!(s.stats().cn_sent, 2);
    }

    #[test]
    fn a_cn_makes_an_edge_that_holds_the_named_flows_only() {
        let mut s = switch(cfg());
        // output port 1 carries flows 5 (harmful, half the CAM) and 6 (a victim)
        fill_cam(&mut s, 1, &[5, 6, 5, 6]);
        let cn = Cn {
            prio: 0,
            degree: 21,
            flows: FlowList::from_ids(&[5, 7]),
        };
        s.on_cn(Time::us(10), 1, &cn);
        let ev = events(&mut s);
        // W_c = the named flows' half of the CAM, then cut by 21·G_d = 1/6
        assert_eq!(
            ev,
            [
                Event::Rcc {
                    port: 1,
                    prio: 0,
                    change: RccChange::On {
                        role: Role::Edge,
                        w: Bytes(125_000),
                        w_c: Bytes(62_500),
                        flows: ids(&[5, 7]),
                    }
                },
                Event::Rcc {
                    port: 1,
                    prio: 0,
                    change: RccChange::Cut {
                        degree: 21,
                        w: Bytes(125_000),
                        w_c: Bytes(52_084),
                        flows: ids(&[5, 7]),
                    }
                },
            ]
        );
        let t = Time::us(11);
        let st = s.point(t, 1, 0).unwrap();
        assert_eq!(
            (st.role, st.fb_remote, st.degree),
            (Role::Edge, Some(21), 11)
        );
        // a second CN cuts again (a congestion event per CN)
        s.on_cn(Time::us(15), 1, &cn);
        assert_eq!(s.point(t, 1, 0).unwrap().w_c, Some(Bytes(43_404)));
        // the flows named are congestion flows at this switch, the victim is not
        assert!(s.is_congestion_flow(t, 0, 7));
        // (6 is in a CAM, so SAR would not move it either)
        assert!(s.is_congestion_flow(t, 0, 6));
        assert!(!s.is_congestion_flow(t, 0, 8));
        // hold after the last CN, RCC quits
        s.on_timeout(Time::us(35));
        assert_eq!(
            events(&mut s).last(),
            Some(&Event::Rcc {
                port: 1,
                prio: 0,
                change: RccChange::Off
            })
        );
        assert!(!s.is_congestion_flow(Time::us(35), 0, 7));
    }

    #[test]
    fn an_inner_point_forwards_the_roots_flows_with_the_regional_degree() {
        let mut s = switch(cfg());
        fill_cam(&mut s, 1, &[5, 6]);
        // downstream CN on port 1 naming flow 5 with degree 40
        let cn = Cn {
            prio: 0,
            degree: 40,
            flows: FlowList::from_ids(&[5]),
        };
        s.on_cn(Time::us(1), 1, &cn);
        events(&mut s);
        // our input queue on port 0: first sample Fb = −15 000 + 2·5 000 < 0
        s.on_ingress(Time::us(2), 0, 0, Bytes(150_000), Bytes(5_000));
        assert!(events(&mut s).is_empty(), "not congested yet");
        // then Fb = 10 000 + 2·25 000 = 60 000 B = 24 quanta
        s.on_ingress(Time::us(3), 0, 0, Bytes(150_000), Bytes(30_000));
        let ev = events(&mut s);
        let [Event::SendCn { port: 0, cn: sent }] = ev[..] else {
            panic!("{ev:?}")
        };
        // §3.2 eq. 2: Fb' = (24 + 40) / 2 with the downstream CN's degree
        assert_eq!(sent.degree, 32);
        // the root's IDs replace our own CAM's
        assert_eq!(sent.flows.as_slice(), [5]);
    }

    #[test]
    fn the_budget_events_set_the_ports_window() {
        let mut s = switch(RcmConfig {
            window_time: Time::ns(800), // W = 10 000 B
            ..cfg()
        });
        fill_cam(&mut s, 2, &[1, 2]);
        congest_output(&mut s, Time::us(1), 2, 100_000);
        // W_c = 10 000 (the CAM is all congestion flows), cut to 5 000
        assert_eq!(s.point(Time::us(1), 2, 0).unwrap().w_c, Some(Bytes(5_000)));
        // the scheduler's window follows the events
        let mut win = crate::rcc::RccWindow::new();
        for e in events(&mut s) {
            if let Event::Rcc { change, .. } = e {
                win.set(change.budget());
            }
        }
        assert_eq!(win.budget(), Some((Bytes(10_000), Bytes(5_000))));
        for _ in 0..5 {
            assert!(win.admits_congestion(true));
            win.on_sent(Bytes(1000), true);
        }
        assert!(!win.admits_congestion(true));
        assert_eq!(s.rcc_stats().activations, 1);
        assert_eq!(s.rcc_stats().cuts, 1);
    }

    #[test]
    fn out_of_range_points_are_ignored() {
        let mut s = switch(cfg());
        let t = Time::us(2);
        s.on_enqueue(t, 2, 8, Bytes(1), Bytes(1));
        s.on_enqueue(t, 4, 0, Bytes(1), Bytes(1));
        s.on_sent(9, 0, 1, Bytes(1));
        s.on_ingress(t, 4, 0, Bytes(1), Bytes(1));
        assert_eq!(s.point(t, 4, 0), None);
        assert!(s.cam(4, 0).is_empty());
        assert!(!s.input_congested(t, 4, 0));
        s.on_cn(t, 7, &Cn::default());
        s.on_cn(
            t,
            0,
            &Cn {
                prio: 8,
                ..Cn::default()
            },
        );
        assert_eq!(s.stats().cn_ignored, 2);
        assert_eq!(s.stats().cn_received, 2);
        assert!(!s.in_region(t));
        assert!(s.pop_event().is_none());
        // a route with no candidate answers the ECMP port
        assert_eq!(s.route(t, 9, 1, &[], 3).port, 3);
    }

    #[test]
    fn sar_detours_new_flows_around_a_congested_port_once_in_a_region() {
        let mut s = switch(RcmConfig {
            sar_mode: SarMode::New,
            ..cfg()
        });
        let cn = Cn {
            prio: 0,
            degree: 30,
            flows: FlowList::from_ids(&[5]),
        };
        // one CN: not yet a region (threshold 2)
        s.on_cn(Time::us(1), 0, &cn);
        assert!(!s.in_region(Time::us(2)));
        let r = s.route(Time::us(2), 0, 100, &[0, 1], 0);
        assert_eq!(r.port, 0);
        // a second CN within hold: a region; a new flow goes to port 1 (degree 0)
        s.on_cn(Time::us(5), 0, &cn);
        assert!(s.in_region(Time::us(6)));
        let r = s.route(Time::us(6), 0, 101, &[0, 1], 0);
        assert_eq!((r.port, r.detoured), (1, true));
        // flow 100 is not new: it stays; flow 5 is a congestion flow: never detoured
        assert_eq!(s.route(Time::us(6), 0, 100, &[0, 1], 0).port, 0);
        assert_eq!(s.route(Time::us(6), 0, 5, &[0, 1], 0).port, 0);
        assert_eq!(s.sar_stats().detours, 1);
        // hold after the older of the two CNs the region is over
        assert!(!s.in_region(Time::us(21)));
    }

    #[derive(Debug, Clone)]
    enum Op {
        Ingress {
            port: u32,
            prio: u8,
            size: u64,
            q: u64,
        },
        Enqueue {
            port: u32,
            prio: u8,
            size: u64,
            q: u64,
        },
        Send {
            port: u32,
            prio: u8,
            flow: u64,
            size: u64,
        },
        Cn {
            port: u32,
            prio: u8,
            degree: u8,
            flows: Vec<u64>,
        },
        Route {
            prio: u8,
            flow: u64,
        },
        Timeout,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u32..5, 0u8..9, 64u64..60_000, 0u64..200_000)
                .prop_map(|(port, prio, size, q)| Op::Ingress { port, prio, size, q }),
            4 => (0u32..5, 0u8..2, 64u64..60_000, 0u64..200_000)
                .prop_map(|(port, prio, size, q)| Op::Enqueue { port, prio, size, q }),
            4 => (0u32..5, 0u8..2, 0u64..12, 64u64..9000)
                .prop_map(|(port, prio, flow, size)| Op::Send { port, prio, flow, size }),
            1 => (0u32..5, 0u8..9, any::<u8>(), prop::collection::vec(0u64..12, 0..5))
                .prop_map(|(port, prio, degree, flows)| Op::Cn { port, prio, degree, flows }),
            3 => (0u8..2, 0u64..12).prop_map(|(prio, flow)| Op::Route { prio, flow }),
            1 => Just(Op::Timeout),
        ]
    }

    proptest! {
        /// Random traffic, CNs and timeouts on a 4-port switch (out-of-range ports and
        /// priorities included): W_c stays in [0, W], no cut exceeds half, every CAM holds at
        /// most cam_depth IDs, SAR never moves a congestion flow, CNs go only to switches and
        /// carry a degree in [1, Fb_max], and RCC is active while a flag is set and off when no
        /// flag is set and nothing is held apart (after
        /// a timeout at the deadline).
        #[test]
        fn switch_invariants_hold_under_random_events(
            mode in prop_oneof![Just(SarMode::New), Just(SarMode::Flowlet), Just(SarMode::Packet)],
            ops in prop::collection::vec((op(), 0u64..3_000), 1..400),
        ) {
            let mut s = switch(RcmConfig { sar_mode: mode, ..cfg() });
            let mut now = Time::ZERO;
            let mut last_port: std::collections::HashMap<u64, u32> = Default::default();
            let depth = s.params().cam_depth;
            for (op, dt) in ops {
                now += Time(dt);
                let before: Vec<Option<Bytes>> = (0..4)
                    .flat_map(|p| (0..2).map(move |c| (p, c)))
                    .map(|(p, c)| s.point(now, p, c).and_then(|st| st.w_c))
                    .collect();
                match op {
                    Op::Ingress { port, prio, size, q } => s.on_ingress(now, port, prio, Bytes(size), Bytes(q)),
                    Op::Enqueue { port, prio, size, q } => {
                        s.on_enqueue(now, port, prio, Bytes(size), Bytes(q));
                    }
                    Op::Send { port, prio, flow, size } => {
                        s.on_enqueue(now, port, prio, Bytes(size), Bytes(size));
                        s.on_sent(port, prio, flow, Bytes(size / 2));
                    }
                    Op::Cn { port, prio, degree, flows } => {
                        let cn = Cn { prio, degree, flows: FlowList::from_ids(&flows) };
                        s.on_cn(now, port, &cn);
                    }
                    Op::Route { prio, flow } => {
                        let cam = s.is_congestion_flow(now, prio, flow);
                        let ecmp = (flow % 2) as u32;
                        let r = s.route(now, prio, flow, &[0, 1], ecmp);
                        prop_assert!(r.port < 2);
                        if cam {
                            let want = last_port.get(&flow).copied().unwrap_or(ecmp);
                            prop_assert_eq!(r.port, want, "congestion flow {} moved", flow);
                        }
                        last_port.insert(flow, r.port);
                    }
                    Op::Timeout => {
                        if let Some(t) = s.next_timeout() {
                            now = now.max(t);
                        }
                        s.on_timeout(now);
                    }
                }
                while let Some(e) = s.pop_event() {
                    if let Event::SendCn { port, cn } = e {
                        prop_assert!(port < 2, "CN to a host port {}", port);
                        prop_assert!(cn.degree >= 1 && cn.degree <= 63);
                        prop_assert!(cn.flows.len() <= depth);
                    }
                }
                for (k, (p, c)) in (0..4u32).flat_map(|p| (0..2u8).map(move |c| (p, c))).enumerate() {
                    let st = s.point(now, p, c).unwrap();
                    prop_assert!(s.cam(p, c).len() <= depth);
                    if let Some(w_c) = st.w_c {
                        prop_assert!(w_c <= st.w);
                        if let Some(old) = before[k] {
                            prop_assert!(2 * w_c.0 >= old.0, "cut {} -> {}", old.0, w_c.0);
                        }
                    }
                }
            }
            // after the last deadline every RCC whose flags cleared has quit
            while let Some(t) = s.next_timeout() {
                now = now.max(t);
                s.on_timeout(now);
                while s.pop_event().is_some() {}
            }
            for p in 0..4 {
                for c in 0..2 {
                    let st = s.point(now, p, c).unwrap();
                    // RCC is on while a flag is set, and off once no flag is set and the
                    // scheduler holds nothing apart
                    if st.role.congested() {
                        prop_assert!(st.w_c.is_some() || s.params().rcc_measure.0 > 0);
                    } else if st.held == Bytes::ZERO {
                        prop_assert!(st.w_c.is_none());
                    }
                }
            }
        }
    }
}
