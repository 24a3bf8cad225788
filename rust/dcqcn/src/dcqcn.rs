//! DCQCN's reaction point (DCQCN §3.1, "RP Algorithm", and Figure 7), as a rate controller.
//!
//! State per flow: the current rate `Rc`, the target rate `Rt`, `α`, the rate-increase timer,
//! the byte counter and their counts `T_cnt` and `BC_cnt`. A flow starts at line rate
//! (`Rc = Rt =` line rate: "there is no slow start phase") and sends every packet ECT(0), paced
//! at `Rc` (the transport sends the next packet no sooner than the previous one's size / `Rc`
//! after it); there is no window.
//!
//! - **Cut** on a CNP (eq. 1): `Rt ← Rc`, `Rc ← max(min_rate, Rc·(1 − α/2))`,
//!   `α ← (1−g)·α + g` ([`AlphaMode::OnCnp`]); the rate-increase timer, the byte counter,
//!   `T_cnt` and `BC_cnt` are reset, and so is the α timer in the paper's mode.
//! - **α timer** (eq. 2): each period `K` without a cut, `α ← (1−g)·α`. In
//!   [`AlphaMode::Periodic`] (the deployed NICs) every period `K` from the first CNP on gives
//!   `α ← (1−g)·α + g` if a CNP arrived during it, else `α ← (1−g)·α`.
//! - **Rate increase** (Figure 7): the timer expires every `T` (`T_cnt += 1`) and the byte
//!   counter every `B` bytes sent (`BC_cnt += 1`); at each such event, with the count already
//!   incremented: if `max(T_cnt, BC_cnt) < F`, fast recovery `Rc ← (Rt + Rc)/2` (eq. 3); else
//!   if `min(T_cnt, BC_cnt) > F`, hyper increase `Rt ← Rt + i·R_HAI` with
//!   `i = min(T_cnt, BC_cnt) − F`, then `Rc ← (Rt + Rc)/2`; else additive increase
//!   `Rt ← Rt + R_AI`, `Rc ← (Rt + Rc)/2` (eq. 4). `Rt` and `Rc` never exceed the line rate.
//!
//! Invariant: `min_rate ≤ Rc ≤ Rt ≤ line rate` and `0 ≤ α ≤ 1` after every event (α reaches 0
//! only by decaying through very many periods without a CNP).
//!
//! # Decisions (points the paper leaves open)
//! - **Counting to F.** Figure 7 increments the count ("Reset(Timer); T++") before it compares
//!   (`Max(T, BC) < F`, `Min(T, BC) > F`), and so does this controller, with the comparisons
//!   exactly as written. The events after a cut are therefore `F − 1` fast-recovery steps, then
//!   additive increase from the `F`-th event on, and hyper increase once both counts exceed
//!   `F`. (§3.1's prose, "rapidly increased towards fixed target rate for F = 5 successive
//!   iterations", counts one more: the `F`-th event, additive, halves the gap to a target that
//!   only moved by `R_AI`.) Under the mellanox preset (`F = 1`, `rpg_threshold`) there is no
//!   fast-recovery step.
//! - **When the timers run.** The rate-increase timer and the byte counter start at the first
//!   cut (§3.1, "Hardware implementation": the state is kept "for each flow that is being
//!   rate limited"; a flow that never got a CNP is at line rate and has nothing to increase),
//!   and stop once `Rc = Rt =` line rate: further events could only move the counts, which the
//!   next cut resets. A flow at line rate with no cut pending asks for no timer
//!   ([`Controller::next_timeout`] is `None`: no simulator events).
//! - **α is updated lazily.** α is read only at a cut, so the α timer is not a simulator event:
//!   at each cut (and, in periodic mode, at each CNP) the updates of every period `K` that
//!   ended since the last one are applied in order — the same values an eagerly armed timer
//!   gives (for more than 1024 owed periods the decay `(1−g)^n` is applied in one step, equal
//!   to float rounding). [`Dcqcn::alpha`] is α as of the last event; [`Dcqcn::alpha_at`]
//!   includes the updates owed by a given time. Before the first CNP α stays at `alpha_init`
//!   (the periods start with the first CNP: NVIDIA's `initial_alpha_value` is "used when
//!   receiving the first CNP for a flow"); in periodic mode the first CNP counts for the
//!   period it opens.
//! - **Least time between cuts** (`min_cut_interval`, the deployed NICs'
//!   `rate_reduce_monitor_period`): a CNP less than the interval after the last cut leaves one
//!   cut pending, made when the interval ends (a timer), whatever the number of such CNPs. The
//!   whole of eq. 1 happens at that cut (in the paper's α mode, the α increase and the α
//!   timer's restart too); in periodic mode the CNP also marks its α period at once.
//! - **Keeping the target rate** (`keep_target_after_cut`, the deployed NICs'
//!   `clamp_tgt_rate = 0`): at a cut, `Rt ← Rc` only if an increase event raised `Rc` since
//!   the last cut (always at the first cut, where `Rt = Rc` anyway).
//! - **First-CNP rate** (`first_cnp_rate`, `rate_to_set_on_first_cnp`): the flow's first cut
//!   sets `Rc = Rt = r` in place of eq. 1's rates; everything else about the cut is unchanged.
//! - **Rounding.** Rates are whole bit/s: `Rc·(1 − α/2)` is rounded to the nearest bit/s (and
//!   never above `Rc`); `(Rt + Rc)/2` is rounded up, so `Rc` reaches `Rt` exactly. Under
//!   [`RpModel::HpccSim`] both truncate as the simulator's `DataRate` arithmetic does
//!   (`data-rate.cc:289-297`): the cut rounds down and the increase is `⌊Rc/2⌋ + ⌊Rt/2⌋`, so
//!   after a cut `Rc` stays at least a bit/s below an even line rate and the increase timer
//!   keeps running, as the simulator's does.
//! - **Same instant.** Expired timers are handled before a CNP or a packet reported at the
//!   same time, the rate-increase timer before a pending cut due at the same time.
//! - **Bytes.** The byte counter counts the payload bytes of every data packet the transport
//!   reports sent ([`Controller::on_sent`]), retransmissions included.
//! - **Losses.** NACKs and retransmission timeouts do not change the rate: DCQCN runs on a
//!   lossless (PFC) priority and defines no reaction to them.
//!
//! # The HPCC simulator's model ([`RpModel::HpccSim`], the `hpcc-sim` preset)
//! The same state, run by the rules of the peer's `rdma-hw.cc` (`CC_MODE 1`) instead of
//! Figure 7's where they differ (each rule is cited beside its code):
//! - the CNP is the ECN-Echo of an ACK or NACK (the peer's receiver sets the CNP flag on the
//!   ACK of every marked packet and ACKs every packet, `L2_ACK_INTERVAL 1`); a CNP packet,
//!   where a receiver still sends one, is handled the same way;
//! - cuts happen on a grid: a check `min_cut_interval` + 1 ns after the first CNP, then every
//!   `min_cut_interval`; a check cuts if a CNP arrived since the previous check. Checks with
//!   nothing to do are not simulator events (the grid is kept, the timer is armed only while a
//!   CNP waits);
//! - α: set to `alpha_init` by the first CNP, which does not count for the first period;
//! - increase: the timer only (the byte counter is not used), stage = timer events since the
//!   last cut, compared before it is incremented (`< F` fast recovery, `= F` additive, `> F`
//!   hyper by a fixed `R_HAI`); at a cut `Rt ← Rc` only if some increase event happened since
//!   the last cut (`keep_target_after_cut`).

use crate::config::{AlphaMode, DcqcnConfig, DcqcnParams, RpModel};
use rdma_cc_core::{ConfigError, Rate, Time};
use rdma_cc_transport::{AckEvent, Controller, NackEvent, SenderConfig, TxPacket};

/// Counters of a [`Dcqcn`] flow (for traces and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DcqcnStats {
    /// CNPs received.
    pub cnps: u64,
    /// Rate cuts made (eq. 1); fewer than `cnps` with a least time between cuts.
    pub cuts: u64,
    /// Fast-recovery steps (eq. 3).
    pub fast_recoveries: u64,
    /// Additive-increase steps (eq. 4).
    pub additive_increases: u64,
    /// Hyper-increase steps.
    pub hyper_increases: u64,
}

/// What started a rate-increase event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trigger {
    Timer,
    Bytes,
}

/// One rate-increase step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    FastRecovery,
    Additive,
    /// Hyper increase of the target rate by this many bit/s.
    Hyper(u64),
}

/// Owed α updates beyond which the decay is applied in one step (see the module
/// documentation).
const EXACT_DECAY_PERIODS: u64 = 1024;

/// `α·keep^n`, step by step for up to [`EXACT_DECAY_PERIODS`] periods.
fn decay(alpha: f64, keep: f64, n: u64) -> f64 {
    if n <= EXACT_DECAY_PERIODS {
        let mut a = alpha;
        for _ in 0..n {
            a *= keep;
        }
        a
    } else {
        alpha * keep.powf(n as f64)
    }
}

/// `(rt + rc)/2` rounded up (towards `rt` when `rc ≤ rt`), without overflow.
fn halfway_up(rt: u64, rc: u64) -> u64 {
    let (lo, hi) = (rt.min(rc), rt.max(rc));
    lo + (hi - lo).div_ceil(2)
}

/// The α state after applying the updates owed by `now` (see [`Dcqcn::alpha_at`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct AlphaState {
    alpha: f64,
    /// End of the α period not applied yet; `None` before the first CNP.
    next: Option<Time>,
    /// Periodic mode: a CNP arrived in the period ending at `next`.
    cnp_in_period: bool,
}

impl AlphaState {
    /// This state with every period that ended by `now` applied (eq. 2; periodic mode's
    /// increase for a period that saw a CNP).
    fn at(self, now: Time, p: &DcqcnParams) -> AlphaState {
        let Some(next) = self.next else {
            return self;
        };
        if next > now {
            return self;
        }
        let k = p.alpha_period.0.max(1);
        let n = (now.0 - next.0) / k + 1;
        let keep = 1.0 - p.g;
        let mut alpha = self.alpha;
        let mut rest = n;
        if self.cnp_in_period {
            // periodic mode (NVIDIA, DCQCN CC Parameters): a period with a CNP raises α
            alpha = keep * alpha + p.g;
            rest -= 1;
        }
        // DCQCN §3.1 eq. (2): α ← (1−g)·α per period without a CNP
        alpha = decay(alpha, keep, rest);
        AlphaState {
            alpha,
            next: Some(Time(next.0.saturating_add(n.saturating_mul(k)))),
            cnp_in_period: false,
        }
    }
}

/// DCQCN's reaction point (see the module documentation).
#[derive(Debug, Clone)]
pub struct Dcqcn {
    p: DcqcnParams,
    line_rate: Rate,
    /// Current rate `Rc`.
    rc: Rate,
    /// Target rate `Rt`.
    rt: Rate,
    a: AlphaState,
    /// The rate-increase timer and byte counter run (from the first cut until line rate).
    increasing: bool,
    /// Deadline of the rate-increase timer.
    increase_at: Option<Time>,
    /// Bytes sent since the byte counter last expired.
    bytes: u64,
    t_cnt: u64,
    bc_cnt: u64,
    last_cut: Option<Time>,
    cut_pending: bool,
    /// An increase event raised `Rc` since the last cut.
    rose_since_cut: bool,
    /// [`RpModel::HpccSim`]: the first decrease check (the grid's origin); `None` before the
    /// first CNP.
    first_check: Option<Time>,
    /// [`RpModel::HpccSim`]: the decrease check a waiting CNP is due at.
    check_at: Option<Time>,
    stats: DcqcnStats,
}

impl Dcqcn {
    /// The controller with constants `cfg` on the path `sender` describes (both validated
    /// here): line rate, `α = alpha_init`, no timer.
    pub fn new(sender: &SenderConfig, cfg: &DcqcnConfig) -> Result<Dcqcn, ConfigError> {
        sender.validate()?;
        cfg.validate_for(sender)?;
        let p = cfg.resolved();
        let line_rate = sender.path.line_rate;
        Ok(Dcqcn {
            p,
            line_rate,
            rc: line_rate,
            rt: line_rate,
            a: AlphaState {
                alpha: p.alpha_init,
                next: None,
                cnp_in_period: false,
            },
            increasing: false,
            increase_at: None,
            bytes: 0,
            t_cnt: 0,
            bc_cnt: 0,
            last_cut: None,
            cut_pending: false,
            rose_since_cut: true,
            first_check: None,
            check_at: None,
            stats: DcqcnStats::default(),
        })
    }

    /// The constants in effect.
    pub fn params(&self) -> &DcqcnParams {
        &self.p
    }

    /// Current rate `Rc` (the pacing rate).
    pub fn rate(&self) -> Rate {
        self.rc
    }

    /// Target rate `Rt`.
    pub fn target_rate(&self) -> Rate {
        self.rt
    }

    /// `α` as of the last event handled (updates owed since are applied at the next cut; see
    /// [`Self::alpha_at`]).
    pub fn alpha(&self) -> f64 {
        self.a.alpha
    }

    /// `α` with every α-timer update owed by `now` applied: the value an eagerly run α timer
    /// would show at `now`.
    pub fn alpha_at(&self, now: Time) -> f64 {
        self.a.at(now, &self.p).alpha
    }

    /// The rate-increase counts `(T_cnt, BC_cnt)` since the last cut.
    pub fn increase_counts(&self) -> (u64, u64) {
        (self.t_cnt, self.bc_cnt)
    }

    /// Whether a cut is pending (a CNP came less than `min_cut_interval` after the last cut).
    pub fn cut_pending(&self) -> bool {
        self.cut_pending
    }

    /// Counters.
    pub fn stats(&self) -> DcqcnStats {
        self.stats
    }

    /// When the pending cut is due.
    fn pending_cut_at(&self) -> Option<Time> {
        if !self.cut_pending {
            return None;
        }
        match self.p.model {
            RpModel::Figure7 => self
                .last_cut
                .map(|t| t.saturating_add(self.p.min_cut_interval)),
            RpModel::HpccSim => self.check_at,
        }
    }

    /// Handles every timer due by `now`, in time order (the rate-increase timer first at the
    /// same instant).
    fn advance(&mut self, now: Time) {
        loop {
            let inc = self.increase_at.filter(|&t| t <= now);
            let cut = self.pending_cut_at().filter(|&t| t <= now);
            match (inc, cut) {
                (Some(i), Some(c)) if i <= c => self.on_increase_timer(i),
                (_, Some(c)) => self.cut(c),
                (Some(i), None) => self.on_increase_timer(i),
                (None, None) => break,
            }
        }
    }

    /// The rate-increase timer expired at `at`.
    fn on_increase_timer(&mut self, at: Time) {
        let next = at.saturating_add(self.p.increase_timer);
        // a deadline that cannot move (time saturated) is dropped rather than looped on
        self.increase_at = (next > at).then_some(next);
        match self.p.model {
            RpModel::Figure7 => {
                // DCQCN Figure 7: "Timer expires: Reset(Timer); T++"
                self.t_cnt = self.t_cnt.saturating_add(1);
                self.increase(Trigger::Timer);
            }
            RpModel::HpccSim => {
                // rdma-hw.cc RateIncEventTimerMlx: RateIncEventMlx(q) with the stage as it
                // is, then m_rpTimeStage++
                self.increase(Trigger::Timer);
                self.t_cnt = self.t_cnt.saturating_add(1);
            }
        }
    }

    /// The step of one rate-increase event.
    fn step(&self) -> Step {
        let f = u64::from(self.p.fast_recovery_steps);
        match self.p.model {
            RpModel::Figure7 => {
                // DCQCN Figure 7, the count already incremented
                let hi = self.t_cnt.max(self.bc_cnt);
                let lo = self.t_cnt.min(self.bc_cnt);
                if hi < f {
                    Step::FastRecovery
                } else if lo > f {
                    // Figure 7 hyper increase: Rt ← Rt + i·R_HAI, i = min(T, BC) − F
                    Step::Hyper((lo - f).saturating_mul(self.p.rate_hai.0))
                } else {
                    Step::Additive
                }
            }
            // rdma-hw.cc RateIncEventMlx: m_rpTimeStage < m_rpgThreshold fast recovery, == it
            // active increase, else hyper increase (Rt += m_rhai, a fixed step)
            RpModel::HpccSim => match self.t_cnt.cmp(&f) {
                std::cmp::Ordering::Less => Step::FastRecovery,
                std::cmp::Ordering::Equal => Step::Additive,
                std::cmp::Ordering::Greater => Step::Hyper(self.p.rate_hai.0),
            },
        }
    }

    /// One rate-increase event (DCQCN Figure 7, or the HPCC simulator's stages).
    fn increase(&mut self, trigger: Trigger) {
        let line = self.line_rate.0;
        let before = self.rc;
        let kind = match self.step() {
            Step::FastRecovery => {
                // DCQCN §3.1 eq. (3): fast recovery, Rc ← (Rt + Rc)/2
                self.stats.fast_recoveries += 1;
                "fast recovery"
            }
            Step::Hyper(step) => {
                self.rt = Rate(self.rt.0.saturating_add(step).min(line));
                self.stats.hyper_increases += 1;
                "hyper increase"
            }
            Step::Additive => {
                // DCQCN §3.1 eq. (4): additive increase, Rt ← Rt + R_AI
                self.rt = Rate(self.rt.0.saturating_add(self.p.rate_ai.0).min(line));
                self.stats.additive_increases += 1;
                "additive increase"
            }
        };
        // eq. (3)–(4): Rc ← (Rt + Rc)/2
        self.rc = Rate(match self.p.model {
            RpModel::Figure7 => halfway_up(self.rt.0, self.rc.0),
            // rdma-hw.cc:703,719,735 `m_rate / 2 + m_targetRate / 2`: each half truncated
            // (DataRate / double, data-rate.cc:294-297), at least min_rate (the peer's
            // MIN_RATE is even, so this never binds there)
            RpModel::HpccSim => (self.rc.0 / 2 + self.rt.0 / 2).max(self.p.min_rate.0),
        });
        if self.rc > before {
            self.rose_since_cut = true;
        }
        log::trace!(
            "{kind} ({trigger:?}, T {} BC {}): rc {} -> {} bit/s, rt {} bit/s",
            self.t_cnt,
            self.bc_cnt,
            before.0,
            self.rc.0,
            self.rt.0
        );
        if self.rc == self.line_rate && self.rt == self.line_rate {
            // back at line rate: further events change nothing until the next cut
            self.stop_increase();
        }
        self.debug_check();
    }

    fn stop_increase(&mut self) {
        self.increasing = false;
        self.increase_at = None;
        self.bytes = 0;
    }

    /// The rate cut of a CNP (DCQCN §3.1 eq. 1), at `now`.
    fn cut(&mut self, now: Time) {
        self.a = self.a.at(now, &self.p);
        let (rc0, rt0) = (self.rc, self.rt);
        let alpha = self.a.alpha;
        match (self.stats.cuts, self.p.first_cnp_rate) {
            (0, Some(r)) => {
                // rate_to_set_on_first_cnp: Rc = Rt = r (validated within [min_rate, line])
                let r = r.max(self.p.min_rate).min(self.line_rate);
                self.rc = r;
                self.rt = r;
            }
            _ => {
                // eq. (1): Rt ← Rc (with keep_target_after_cut: only if the rate rose;
                // rdma-hw.cc CheckRateDecreaseMlx: only if m_rpTimeStage != 0, an increase
                // event happened since the last cut)
                let increased = match self.p.model {
                    RpModel::Figure7 => self.rose_since_cut,
                    RpModel::HpccSim => self.t_cnt > 0,
                };
                if !self.p.keep_target_after_cut || increased {
                    self.rt = self.rc;
                }
                // eq. (1): Rc ← Rc·(1 − α/2), at least min_rate
                let cut = self.rc.0 as f64 * (1.0 - alpha / 2.0);
                // hpcc-sim: DataRate × double truncates (rdma-hw.cc:668, data-rate.cc:289-292);
                // Figure 7 (paper, mellanox): to the nearest bit/s
                let cut = match self.p.model {
                    RpModel::HpccSim => cut.floor(),
                    RpModel::Figure7 => cut.round(),
                };
                let cut = if cut.is_finite() && cut >= 0.0 {
                    (cut as u64).min(self.rc.0)
                } else {
                    self.rc.0
                };
                self.rc = Rate(cut.max(self.p.min_rate.0));
            }
        }
        if self.p.alpha_mode == AlphaMode::OnCnp {
            // eq. (1): α ← (1−g)·α + g, and the α timer restarts
            self.a.alpha = (1.0 - self.p.g) * self.a.alpha + self.p.g;
            self.a.next = Some(now.saturating_add(self.p.alpha_period));
        }
        // Figure 7: Reset(Timer, ByteCounter, T, BC, AlphaTimer)
        self.t_cnt = 0;
        self.bc_cnt = 0;
        self.bytes = 0;
        self.last_cut = Some(now);
        self.cut_pending = false;
        self.check_at = None;
        self.rose_since_cut = false;
        self.stats.cuts += 1;
        if self.rc == self.line_rate && self.rt == self.line_rate {
            self.stop_increase();
        } else {
            self.increasing = true;
            let next = now.saturating_add(self.p.increase_timer);
            self.increase_at = (next > now).then_some(next);
        }
        log::debug!(
            "cut: rc {} -> {} bit/s, rt {} -> {} bit/s, alpha {alpha} -> {}",
            rc0.0,
            self.rc.0,
            rt0.0,
            self.rt.0,
            self.a.alpha
        );
        self.debug_check();
    }

    /// A CNP under [`RpModel::HpccSim`] (rdma-hw.cc `cnp_received_mlx`).
    fn cnp_hpcc_sim(&mut self, now: Time) {
        let period = self.p.min_cut_interval;
        let is_first = self.first_check.is_none();
        let first = match self.first_check {
            Some(first) => first,
            None => {
                // first CNP: α = 1 (alpha_init), m_alpha_cnp_arrived = false (this CNP does
                // not count for the first α period), ScheduleUpdateAlphaMlx, and
                // ScheduleDecreaseRateMlx(q, 1): the first check interval + 1 ns later
                self.a = AlphaState {
                    alpha: self.p.alpha_init,
                    next: Some(now.saturating_add(self.p.alpha_period)),
                    cnp_in_period: false,
                };
                let first = now.saturating_add(period).saturating_add(Time(1));
                self.first_check = Some(first);
                first
            }
        };
        if !is_first {
            // m_alpha_cnp_arrived = true for the α period under way
            self.a = self.a.at(now, &self.p);
            self.a.cnp_in_period = true;
        }
        // m_decrease_cnp_arrived = true: the next check on the grid cuts
        let due = if now < first || period == Time::ZERO {
            first.max(now)
        } else {
            let k = (now.0 - first.0) / period.0 + 1;
            Time(first.0.saturating_add(k.saturating_mul(period.0)))
        };
        self.cut_pending = true;
        self.check_at = Some(self.check_at.map_or(due, |t| t.min(due)));
        if due <= now {
            self.advance(now);
        }
    }

    #[inline]
    fn debug_check(&self) {
        debug_assert!(self.p.min_rate <= self.rc, "rc {:?} < min", self.rc);
        debug_assert!(self.rc <= self.rt, "rc {:?} > rt {:?}", self.rc, self.rt);
        debug_assert!(self.rt <= self.line_rate, "rt {:?} > line", self.rt);
        debug_assert!(self.a.alpha >= 0.0 && self.a.alpha <= 1.0);
    }
}

impl Controller for Dcqcn {
    fn pacing_rate(&self, _srtt: Time) -> Option<Rate> {
        Some(self.rc)
    }

    fn on_sent(&mut self, now: Time, pkt: &TxPacket) {
        self.advance(now);
        // rdma-hw.cc has no byte counter: increases come from RateIncEventTimerMlx only
        if !self.increasing || self.p.model == RpModel::HpccSim {
            return;
        }
        self.bytes = self.bytes.saturating_add(u64::from(pkt.len));
        let b = self.p.byte_counter.0.max(1);
        while self.increasing && self.bytes >= b {
            // DCQCN Figure 7: "ByteCounter expires: Reset(ByteCounter); BC++"
            self.bytes -= b;
            self.bc_cnt = self.bc_cnt.saturating_add(1);
            self.increase(Trigger::Bytes);
        }
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        // rdma-hw.cc ReceiveAck: an ACK with the CNP flag (the receiver's echo of a marked
        // packet, ReceiveUdp) → cnp_received_mlx
        if self.p.model == RpModel::HpccSim && ack.ece {
            self.on_cnp(ack.now);
        }
    }

    fn on_nack(&mut self, nack: &NackEvent) {
        // rdma-hw.cc ReceiveAck handles NACKs (0xFD) the same way, CNP flag included
        if self.p.model == RpModel::HpccSim && nack.ece {
            self.on_cnp(nack.now);
        }
    }

    fn on_cnp(&mut self, now: Time) {
        self.advance(now);
        self.stats.cnps += 1;
        if self.p.model == RpModel::HpccSim {
            self.cnp_hpcc_sim(now);
            return;
        }
        if self.p.alpha_mode == AlphaMode::Periodic {
            // the α periods start with the first CNP, which counts for the one it opens
            self.a = match self.a.next {
                None => AlphaState {
                    next: Some(now.saturating_add(self.p.alpha_period)),
                    ..self.a
                },
                Some(_) => self.a.at(now, &self.p),
            };
            self.a.cnp_in_period = true;
        }
        if let Some(last) = self.last_cut {
            if now < last.saturating_add(self.p.min_cut_interval) {
                // rate_reduce_monitor_period: at most one cut per interval, made when it ends
                self.cut_pending = true;
                return;
            }
        }
        self.cut(now);
    }

    fn next_timeout(&self) -> Option<Time> {
        match (self.increase_at, self.pending_cut_at()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_timeout(&mut self, now: Time) {
        self.advance(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Preset, RpModel};
    use rdma_cc_core::{Bytes, Ecn};
    use rdma_cc_transport::Path;

    const G: f64 = 1.0 / 256.0;

    fn sender(line: Rate) -> SenderConfig {
        SenderConfig {
            path: Path {
                line_rate: line,
                lossless: true,
                ..Path::default()
            },
            ..SenderConfig::default()
        }
    }

    fn ctl_with(line: Rate, cfg: DcqcnConfig) -> Dcqcn {
        Dcqcn::new(&sender(line), &cfg).unwrap()
    }

    /// The paper's constants at 40 Gb/s.
    fn paper40() -> Dcqcn {
        ctl_with(Rate::gbps(40), DcqcnConfig::default())
    }

    fn pkt(len: u32) -> TxPacket {
        TxPacket {
            seq: 0,
            len,
            ecn: Ecn::Ect0,
            retransmission: false,
            last: false,
            ack_req: false,
        }
    }

    /// Fires the rate-increase timer once, at its deadline; returns the deadline.
    fn fire(c: &mut Dcqcn) -> Time {
        let t = c.next_timeout().unwrap();
        c.on_timeout(t);
        t
    }

    #[test]
    fn starts_at_line_rate_unpaced_by_window_with_ect_packets_and_no_timer() {
        let c = paper40();
        assert_eq!(c.rate(), Rate::gbps(40));
        assert_eq!(c.target_rate(), Rate::gbps(40));
        assert_eq!(c.alpha(), 1.0);
        assert_eq!(c.pacing_rate(Time::us(8)), Some(Rate::gbps(40)));
        assert_eq!(c.window(), None);
        assert_eq!(c.cw(), None);
        assert_eq!(c.ecn(0, 1000), Ecn::Ect0);
        assert_eq!(c.next_timeout(), None);
        // sending at line rate without a CNP arms nothing
        let mut c = c;
        for i in 0..100 {
            c.on_sent(Time::us(i), &pkt(1000));
        }
        assert_eq!(c.next_timeout(), None);
        assert_eq!(c.increase_counts(), (0, 0));
    }

    #[test]
    fn eq1_cut_halves_the_rate_at_alpha_one_and_keeps_alpha_at_one() {
        let mut c = paper40();
        c.on_cnp(Time::us(10));
        // eq. (1): Rt ← Rc = 40 G; Rc ← 40 G·(1 − 1/2) = 20 G; α ← (1−g)·1 + g = 1
        assert_eq!(c.rate(), Rate::gbps(20));
        assert_eq!(c.target_rate(), Rate::gbps(40));
        assert_eq!(c.alpha(), 1.0);
        assert_eq!(c.stats().cuts, 1);
        // the rate-increase timer runs from the cut
        assert_eq!(c.next_timeout(), Some(Time::us(65)));
        // a second CNP at once: Rt ← 20 G, Rc ← 10 G
        c.on_cnp(Time::us(11));
        assert_eq!(
            (c.rate(), c.target_rate()),
            (Rate::gbps(10), Rate::gbps(20))
        );
        assert_eq!(c.next_timeout(), Some(Time::us(66)));
    }

    #[test]
    fn eq3_fast_recovery_then_eq4_additive_numbers_at_40g() {
        let mut c = paper40();
        c.on_cnp(Time::ZERO);
        let want = [30.0, 35.0, 37.5, 38.75, 39.375];
        for (k, w) in want.iter().enumerate() {
            let t = fire(&mut c);
            assert_eq!(t, Time::us(55 * (k as u64 + 1)));
            assert_eq!(c.rate().0 as f64, w * 1e9, "event {}", k + 1);
            // Rt stays at line rate: R_AI's step is capped there
            assert_eq!(c.target_rate(), Rate::gbps(40));
        }
        // Figure 7 counts before comparing: T = 1..4 fast recovery (eq. 3), T = 5 additive
        // (eq. 4), which at Rt = line rate halves the gap just the same: 40 − 20/32 Gb/s
        let s = c.stats();
        assert_eq!((s.fast_recoveries, s.additive_increases), (4, 1));
        assert_eq!(c.rate(), Rate(40_000_000_000 - 20_000_000_000 / 32));
        assert_eq!(c.increase_counts(), (5, 0));
    }

    #[test]
    fn eq4_additive_increase_raises_the_target_by_r_ai() {
        let mut c = paper40();
        c.on_cnp(Time::ZERO);
        c.on_cnp(Time::ZERO);
        // Rc = 10 G, Rt = 20 G; four fast-recovery steps: 15, 17.5, 18.75, 19.375 G
        for _ in 0..4 {
            fire(&mut c);
        }
        assert_eq!(c.rate(), Rate(19_375_000_000));
        assert_eq!(c.target_rate(), Rate::gbps(20));
        // T = 5 = F: additive, Rt = 20.04 G, Rc = (20.04 + 19.375)/2 G
        fire(&mut c);
        assert_eq!(c.target_rate(), Rate(20_040_000_000));
        assert_eq!(c.rate(), Rate(19_707_500_000));
        // T = 6: max > F, min (BC = 0) ≤ F: additive again
        fire(&mut c);
        assert_eq!(c.target_rate(), Rate(20_080_000_000));
        assert_eq!(c.stats().additive_increases, 2);
        assert_eq!(c.stats().hyper_increases, 0);
    }

    #[test]
    fn hyper_increase_needs_both_counts_above_f() {
        // B = 1000 B so that each 1000 B packet expires the byte counter once
        let cfg = DcqcnConfig {
            byte_counter: Some(Bytes(1000)),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::ZERO);
        c.on_cnp(Time::ZERO);
        c.on_cnp(Time::ZERO); // Rc = 5 G, Rt = 10 G
        for i in 0..6 {
            c.on_sent(Time(i), &pkt(1000));
        }
        // BC = 1..4 fast recovery, 5..6 additive (T = 0 keeps min ≤ F)
        let s = c.stats();
        assert_eq!((s.fast_recoveries, s.additive_increases), (4, 2));
        assert_eq!(s.hyper_increases, 0);
        for _ in 0..6 {
            fire(&mut c);
        }
        // timer events T = 1..6 with BC = 6: max > F so never fast recovery; at T = 6 both
        // counts exceed F = 5: hyper increase with i = 1
        let s = c.stats();
        assert_eq!((s.additive_increases, s.hyper_increases), (7, 1));
        let rt = c.target_rate();
        c.on_sent(Time::us(331), &pkt(1000)); // BC = 7, T = 6: i = min − F = 1
        assert_eq!(c.target_rate(), Rate(rt.0 + 400_000_000));
        fire(&mut c); // T = 7, BC = 7: i = 2 → Rt += 2·R_HAI (R_HAI = 10 × 40 Mb/s)
        assert_eq!(c.target_rate(), Rate(rt.0 + 1_200_000_000));
        assert_eq!(c.stats().hyper_increases, 3);
    }

    #[test]
    fn clamps_keep_rates_within_min_rate_and_line_rate() {
        let cfg = DcqcnConfig {
            min_rate: Some(Rate::gbps(15)),
            rate_hai: Some(Rate::gbps(100)),
            byte_counter: Some(Bytes(1)),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::ZERO);
        assert_eq!(c.rate(), Rate::gbps(20));
        // 10 G would be below the floor
        c.on_cnp(Time::ZERO);
        assert_eq!(c.rate(), Rate::gbps(15));
        c.on_cnp(Time::ZERO);
        assert_eq!(
            (c.rate(), c.target_rate()),
            (Rate::gbps(15), Rate::gbps(15))
        );
        // T = 1..4: fast recovery at Rc = Rt changes nothing; T = 5, 6: additive
        for _ in 0..6 {
            fire(&mut c);
        }
        assert_eq!(c.target_rate(), Rate(15_080_000_000));
        // BC = 1..5 additive (min = BC ≤ F), BC = 6 with T = 6: hyper, Rt + 100 G → line rate
        for i in 0..6 {
            c.on_sent(Time::us(331) + Time(i), &pkt(1));
        }
        assert_eq!(c.stats().hyper_increases, 1);
        assert_eq!(c.target_rate(), Rate::gbps(40));
        assert!(c.rate() < Rate::gbps(40));
        let mut n = 0;
        while c.next_timeout().is_some() {
            fire(&mut c);
            assert!(c.target_rate() <= Rate::gbps(40));
            n += 1;
            assert!(n < 100, "never back at line rate");
        }
        assert_eq!(c.rate(), Rate::gbps(40));
    }

    #[test]
    fn eq2_alpha_decays_per_period_without_cnp_and_is_applied_at_the_next_cut() {
        let mut c = paper40();
        c.on_cnp(Time::ZERO);
        assert_eq!(c.alpha(), 1.0);
        // three periods of K = 55 µs end before 170 µs: α = (1−g)^3
        let want = (1.0 - G) * (1.0 - G) * (1.0 - G);
        assert_eq!(c.alpha_at(Time::us(170)), want);
        assert_eq!(c.alpha_at(Time::us(165)), want);
        assert_eq!(c.alpha_at(Time::us(164)), (1.0 - G) * (1.0 - G));
        assert_eq!(c.alpha_at(Time::us(54)), 1.0);
        let rc = c.rate();
        // let the rate-increase timer run to 170 µs (three events)
        c.on_timeout(Time::us(170));
        let rc_before_cut = c.rate();
        assert!(rc_before_cut > rc);
        c.on_cnp(Time::us(170));
        // the cut uses the decayed α, then adds g (eq. 1)
        let want_rc = (rc_before_cut.0 as f64 * (1.0 - want / 2.0)).round() as u64;
        assert_eq!(c.rate(), Rate(want_rc));
        assert_eq!(c.alpha(), (1.0 - G) * want + G);
        // the α timer restarted at the cut: nothing owed until 225 µs
        assert_eq!(c.alpha_at(Time::us(224)), c.alpha());
        assert!(c.alpha_at(Time::us(225)) < c.alpha());
    }

    #[test]
    fn alpha_decay_is_exact_for_many_periods_and_close_beyond() {
        let mut c = paper40();
        c.on_cnp(Time::ZERO);
        let mut eager = 1.0f64;
        for n in 1..=EXACT_DECAY_PERIODS {
            eager *= 1.0 - G;
            assert_eq!(c.alpha_at(Time::us(55 * n)), eager, "{n}");
        }
        for _ in 0..1000 {
            eager *= 1.0 - G;
        }
        let lazy = c.alpha_at(Time::us(55 * (EXACT_DECAY_PERIODS + 1000)));
        assert!((lazy - eager).abs() <= 1e-12 * eager, "{lazy} vs {eager}");
        // a very long gap drives α to 0 without looping over every period
        assert!(c.alpha_at(Time(u64::MAX)) < 1e-300);
    }

    #[test]
    fn periodic_alpha_rises_in_periods_with_a_cnp_and_decays_otherwise() {
        let cfg = DcqcnConfig {
            alpha_mode: Some(AlphaMode::Periodic),
            alpha_init: Some(0.5),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::ZERO);
        // a CNP does not change α in this mode; the cut used α = 0.5
        assert_eq!(c.alpha(), 0.5);
        assert_eq!(c.rate(), Rate::gbps(30));
        // period [0, 55) had the first CNP: +g at 55 µs; [55, 110) none: decay
        let a1 = (1.0 - G) * 0.5 + G;
        assert_eq!(c.alpha_at(Time::us(55)), a1);
        assert_eq!(c.alpha_at(Time::us(110)), (1.0 - G) * a1);
        // a CNP in [110, 165): applied at 165 µs, not before; the timer was not reset
        c.on_cnp(Time::us(120));
        assert_eq!(c.alpha(), (1.0 - G) * a1);
        assert_eq!(c.alpha_at(Time::us(164)), (1.0 - G) * a1);
        assert_eq!(c.alpha_at(Time::us(165)), (1.0 - G) * ((1.0 - G) * a1) + G);
        assert_eq!(c.stats().cuts, 2);
    }

    #[test]
    fn min_cut_interval_leaves_one_cut_pending_until_the_interval_ends() {
        let cfg = DcqcnConfig {
            min_cut_interval: Some(Time::us(4)),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::us(10));
        assert_eq!(c.rate(), Rate::gbps(20));
        c.on_cnp(Time::us(11));
        c.on_cnp(Time::us(12));
        // no cut yet: one pending, due 4 µs after the first
        assert_eq!(c.rate(), Rate::gbps(20));
        assert!(c.cut_pending());
        assert_eq!(c.next_timeout(), Some(Time::us(14)));
        c.on_timeout(Time::us(13)); // early: harmless
        assert_eq!(c.rate(), Rate::gbps(20));
        c.on_timeout(Time::us(14));
        assert_eq!(
            (c.rate(), c.target_rate()),
            (Rate::gbps(10), Rate::gbps(20))
        );
        assert!(!c.cut_pending());
        let s = c.stats();
        assert_eq!((s.cnps, s.cuts), (3, 2));
        // the cut restarted the rate-increase timer
        assert_eq!(c.next_timeout(), Some(Time::us(69)));
        // a CNP the interval after the last cut cuts at once
        c.on_cnp(Time::us(18));
        assert_eq!(c.rate(), Rate::gbps(5));
    }

    #[test]
    fn keep_target_after_cut_moves_the_target_only_when_the_rate_rose() {
        let cfg = DcqcnConfig {
            keep_target_after_cut: Some(true),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::ZERO);
        c.on_cnp(Time::ZERO);
        // no increase between the cuts: Rt stays at 40 G, Rc = 10 G
        assert_eq!(
            (c.rate(), c.target_rate()),
            (Rate::gbps(10), Rate::gbps(40))
        );
        fire(&mut c); // fast recovery: Rc = 25 G
        assert_eq!(c.rate(), Rate::gbps(25));
        c.on_cnp(Time::us(60));
        // the rate rose since the last cut: Rt ← Rc; Rc·(1 − α/2) with α = 1 − g (one α
        // period of 55 µs without a cut)
        assert_eq!(c.target_rate(), Rate::gbps(25));
        assert_eq!(c.rate(), Rate(12_548_828_125));
        // paper: Rt ← Rc at every cut
        let mut p = paper40();
        p.on_cnp(Time::ZERO);
        p.on_cnp(Time::ZERO);
        assert_eq!(p.target_rate(), Rate::gbps(20));
    }

    #[test]
    fn first_cnp_rate_sets_both_rates_then_cuts_normally() {
        let cfg = DcqcnConfig {
            first_cnp_rate: Some(Rate::gbps(8)),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::ZERO);
        assert_eq!((c.rate(), c.target_rate()), (Rate::gbps(8), Rate::gbps(8)));
        // α is updated as at any cut (on-cnp: (1−g)·1 + g)
        assert_eq!(c.alpha(), 1.0);
        // at Rc = Rt fast recovery changes nothing, additive moves the target
        for _ in 0..4 {
            fire(&mut c);
        }
        assert_eq!(c.rate(), Rate::gbps(8));
        c.on_cnp(Time::us(230));
        // the second cut is eq. 1's, with α decayed over four periods of 55 µs
        let a = (1.0 - G) * (1.0 - G) * (1.0 - G) * (1.0 - G);
        assert_eq!(c.target_rate(), Rate::gbps(8));
        assert_eq!(c.rate(), Rate((8e9 * (1.0 - a / 2.0)).round() as u64));
    }

    #[test]
    fn timers_stop_back_at_line_rate_and_restart_at_the_next_cnp() {
        let mut c = paper40();
        c.on_cnp(Time::ZERO);
        let mut n = 0;
        while c.next_timeout().is_some() {
            fire(&mut c);
            n += 1;
            assert!(n < 100, "never back at line rate");
        }
        assert_eq!(
            (c.rate(), c.target_rate()),
            (Rate::gbps(40), Rate::gbps(40))
        );
        // bytes do not count while stopped
        c.on_sent(Time::ms(10), &pkt(1000));
        assert_eq!(c.increase_counts().1, 0);
        c.on_cnp(Time::ms(20));
        assert_eq!(c.next_timeout(), Some(Time::ms(20) + Time::us(55)));
        assert_eq!(c.increase_counts(), (0, 0));
    }

    #[test]
    fn a_late_timeout_handles_every_period_missed_in_order() {
        let mut eager = paper40();
        let mut late = paper40();
        eager.on_cnp(Time::ZERO);
        late.on_cnp(Time::ZERO);
        for _ in 0..7 {
            fire(&mut eager);
        }
        late.on_timeout(Time::us(55 * 7 + 54));
        assert_eq!(late.rate(), eager.rate());
        assert_eq!(late.target_rate(), eager.target_rate());
        assert_eq!(late.stats(), eager.stats());
        assert_eq!(late.next_timeout(), Some(Time::us(55 * 8)));
        // a packet reported late is counted after the timers due before it
        let cfg = DcqcnConfig {
            byte_counter: Some(Bytes(1000)),
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(40), cfg);
        c.on_cnp(Time::ZERO);
        c.on_sent(Time::us(56), &pkt(1000));
        assert_eq!(c.increase_counts(), (1, 1));
    }

    #[test]
    fn mellanox_preset_runs_without_fast_recovery_and_with_a_cut_interval() {
        let cfg = DcqcnConfig {
            preset: Preset::Mellanox,
            ..DcqcnConfig::default()
        };
        let mut c = ctl_with(Rate::gbps(100), cfg);
        c.on_cnp(Time::ZERO);
        // α = 1023/1024 at the first CNP, not changed by it (periodic mode)
        let a = 1023.0 / 1024.0;
        assert_eq!(c.alpha(), a);
        assert_eq!(c.rate(), Rate((100e9 * (1.0 - a / 2.0)).round() as u64));
        // 4 µs between cuts
        c.on_cnp(Time::us(1));
        assert_eq!(c.next_timeout(), Some(Time::us(4)));
        // F = 1: the first byte-counter event (32767 B) is already additive
        for i in 0..33 {
            c.on_sent(Time(1000 + i), &pkt(1000));
        }
        assert_eq!(c.stats().fast_recoveries, 0);
        assert_eq!(c.stats().additive_increases, 1);
    }

    // ---- the HPCC simulator's model (hpcc-sim preset, rdma-hw.cc CC_MODE 1) ----

    fn hpcc_sim() -> Dcqcn {
        ctl_with(
            Rate::gbps(100),
            DcqcnConfig {
                preset: Preset::HpccSim,
                ..DcqcnConfig::default()
            },
        )
    }

    fn ack(now: Time, ece: bool) -> AckEvent {
        AckEvent {
            now,
            rtt: None,
            newly_acked: 1,
            ece,
            snd_una: 0,
            acked_packets: 0,
        }
    }

    #[test]
    fn hpcc_sim_preset_is_the_peers_model_with_its_run_py_constants() {
        let p = DcqcnConfig {
            preset: Preset::HpccSim,
            ..DcqcnConfig::default()
        }
        .resolved();
        assert_eq!(p.model, RpModel::HpccSim);
        assert_eq!(p.g, 1.0 / 256.0); // EWMA_GAIN 0.00390625
        assert_eq!(p.alpha_init, 1.0); // cnp_received_mlx: m_alpha = 1
        assert_eq!(p.alpha_period, Time::us(1)); // ALPHA_RESUME_INTERVAL 1
        assert_eq!(p.increase_timer, Time::us(300)); // RP_TIMER 300
        assert_eq!(p.min_cut_interval, Time::us(4)); // RATE_DECREASE_INTERVAL 4
        assert_eq!(p.fast_recovery_steps, 1); // FAST_RECOVERY_TIMES 1
        assert_eq!(p.rate_ai, Rate::mbps(20)); // RATE_AI 5 × 100/25 Mb/s
        assert_eq!(p.rate_hai, Rate::mbps(200)); // RATE_HAI 50 × 100/25 Mb/s
        assert_eq!(p.min_rate, Rate::gbps(1)); // MIN_RATE 1000Mb/s
        assert!(p.keep_target_after_cut); // CLAMP_TARGET_RATE 0
        assert_eq!(p.first_cnp_rate, None); // RateOnFirstCnp 1.0: the rate is kept
        assert_eq!(p.alpha_mode, AlphaMode::Periodic);
        for other in [Preset::Paper, Preset::Mellanox] {
            assert_eq!(other.params().model, RpModel::Figure7);
        }
    }

    #[test]
    fn hpcc_sim_an_ack_with_ece_is_a_cnp_and_the_cut_waits_for_the_check_4us_1ns_later() {
        let mut c = hpcc_sim();
        let t0 = Time::us(10);
        c.on_ack(&ack(t0, true));
        assert_eq!(c.stats().cnps, 1);
        // the first CNP keeps the rate (RateOnFirstCnp 1.0) and schedules the check
        assert_eq!(c.rate(), Rate::gbps(100));
        let check = Time(t0.0 + 4_000 + 1);
        assert_eq!(c.next_timeout(), Some(check));
        c.on_timeout(Time(check.0 - 1));
        assert_eq!(c.stats().cuts, 0);
        c.on_timeout(check);
        assert_eq!(c.stats().cuts, 1);
        // α = 1 at the first CNP, which does not count: 4 periods of 1 µs without a CNP
        let alpha = (1.0 - G).powi(4);
        assert!((c.alpha() - alpha).abs() < 1e-12, "{}", c.alpha());
        let want = (100e9 * (1.0 - alpha / 2.0)).floor() as u64;
        assert_eq!(c.rate(), Rate(want));
    }

    #[test]
    fn hpcc_sim_an_ack_without_ece_changes_nothing_and_the_paper_preset_ignores_ece() {
        let mut c = hpcc_sim();
        c.on_ack(&ack(Time::us(1), false));
        assert_eq!((c.stats().cnps, c.next_timeout()), (0, None));
        let mut p = paper40();
        p.on_ack(&ack(Time::us(1), true));
        assert_eq!((p.stats().cnps, p.next_timeout()), (0, None));
        assert_eq!(p.rate(), Rate::gbps(40));
    }

    #[test]
    fn hpcc_sim_a_nack_with_ece_is_a_cnp() {
        let mut c = hpcc_sim();
        c.on_nack(&NackEvent {
            now: Time::us(2),
            expected_seq: 0,
            ece: true,
            acked_packets: 0,
        });
        assert_eq!(c.stats().cnps, 1);
        assert_eq!(c.next_timeout(), Some(Time(6_001)));
    }

    #[test]
    fn hpcc_sim_cuts_at_most_once_per_4us_on_the_grid_of_the_first_cnp() {
        let mut c = hpcc_sim();
        // a marked ACK every 100 ns from 10 µs to 30 µs (every packet ACKed, every one marked)
        let mut cut_times = Vec::new();
        let mut t = Time::us(10);
        while t <= Time::us(30) {
            while let Some(d) = c.next_timeout().filter(|&d| d <= t) {
                let before = c.stats().cuts;
                c.on_timeout(d);
                if c.stats().cuts > before {
                    cut_times.push(d);
                }
            }
            c.on_ack(&ack(t, true));
            t = Time(t.0 + 100);
        }
        assert_eq!(c.stats().cnps, 201);
        assert_eq!(
            cut_times,
            vec![Time(14_001), Time(18_001), Time(22_001), Time(26_001)]
        );
    }

    #[test]
    fn hpcc_sim_a_cnp_after_a_quiet_spell_cuts_at_the_next_grid_point() {
        let mut c = hpcc_sim();
        c.on_ack(&ack(Time::us(10), true));
        c.on_timeout(Time(14_001));
        assert_eq!(c.stats().cuts, 1);
        // no CNP for a while: checks at 18 µs + 1 ns ... do nothing (no event asked for)
        let inc = c.next_timeout().unwrap();
        assert_eq!(inc, Time(14_001 + 300_000));
        c.on_ack(&ack(Time(50_000), true));
        assert_eq!(c.next_timeout(), Some(Time(50_001)));
        // a CNP at a grid point: the check due then runs first, the CNP waits for the next
        c.on_ack(&ack(Time(50_001), true));
        assert_eq!(c.stats().cuts, 2);
        assert_eq!(c.next_timeout(), Some(Time(54_001)));
    }

    #[test]
    fn hpcc_sim_first_increase_is_fast_recovery_and_a_cut_after_it_sets_the_target() {
        let mut c = hpcc_sim();
        c.on_ack(&ack(Time::us(10), true));
        c.on_timeout(Time(14_001));
        let (rc, rt) = (c.rate(), c.target_rate());
        assert_eq!(rt, Rate::gbps(100));
        // stage 0 < F = 1: fast recovery
        let t1 = fire(&mut c);
        assert_eq!(t1, Time(314_001));
        assert_eq!(c.target_rate(), rt);
        assert_eq!(c.rate(), Rate(rc.0 / 2 + rt.0 / 2));
        assert_eq!(c.stats().fast_recoveries, 1);
        // a cut now keeps nothing of the old target: an increase event happened, Rt ← Rc
        let mut d = c.clone();
        d.on_ack(&ack(Time(400_000), true));
        d.on_timeout(d.next_timeout().unwrap());
        assert_eq!(d.stats().cuts, 2);
        assert!(d.target_rate() < Rate::gbps(100));
    }

    #[test]
    fn hpcc_sim_hyper_increase_adds_r_hai_once_per_event_not_i_times() {
        // a target below line rate: cut twice with an increase between
        let mut c = hpcc_sim();
        c.on_ack(&ack(Time::us(10), true));
        c.on_timeout(Time(14_001));
        fire(&mut c); // fast recovery (stage 0)
        c.on_ack(&ack(Time(320_000), true));
        let d = c.next_timeout().unwrap();
        c.on_timeout(d);
        assert_eq!(c.stats().cuts, 2);
        let rt0 = c.target_rate();
        assert!(rt0 < Rate(99_000_000_000), "{rt0:?}");
        fire(&mut c); // stage 0: fast recovery
        assert_eq!(c.target_rate(), rt0);
        fire(&mut c); // stage 1: additive
        assert_eq!(c.target_rate(), Rate(rt0.0 + 20_000_000));
        fire(&mut c); // stage 2: hyper
        assert_eq!(c.target_rate(), Rate(rt0.0 + 220_000_000));
        fire(&mut c); // stage 3: hyper, the same step
        assert_eq!(c.target_rate(), Rate(rt0.0 + 420_000_000));
        assert_eq!(c.stats().hyper_increases, 2);
    }

    #[test]
    fn hpcc_sim_truncates_the_cut_and_each_half_of_an_increase() {
        // rdma-hw.cc:668 `m_rate * (1 - m_alpha / 2)` and :703 `m_rate / 2 + m_targetRate / 2`
        // are DataRate × / double, which truncate to whole bit/s (data-rate.cc:289-297)
        let mut c = hpcc_sim();
        c.on_ack(&ack(Time::us(10), true));
        c.rc = Rate(3_000_000_001);
        // the first cut, 4 µs + 1 ns later: α = (1 − g)^4, 1 523 300 528.68 bit/s
        c.on_timeout(Time(14_001));
        assert_eq!(
            c.rate(),
            Rate(1_523_300_528),
            "not rounded to 1 523 300 529"
        );
        c.rc = Rate(50_000_000_001);
        fire(&mut c); // fast recovery: 25 000 000 000 + 50 000 000 000
        assert_eq!(c.rate(), Rate(75_000_000_000), "not (Rt + Rc)/2 rounded up");
        // from one bit/s below an even line rate the increase stays there
        c.rc = Rate(99_999_999_999);
        fire(&mut c);
        assert_eq!(c.rate(), Rate(99_999_999_999));
        assert!(
            c.next_timeout().is_some(),
            "the increase timer keeps running"
        );
    }

    #[test]
    fn hpcc_sim_has_no_byte_counter() {
        let mut c = hpcc_sim();
        c.on_ack(&ack(Time::us(10), true));
        c.on_timeout(Time(14_001));
        let rc = c.rate();
        for i in 0..100_000u64 {
            c.on_sent(Time(14_001 + i), &pkt(1000));
        }
        assert_eq!(c.increase_counts(), (0, 0));
        assert_eq!(c.rate(), rc);
    }

    #[test]
    fn hpcc_sim_min_rate_is_1gbps() {
        let mut c = hpcc_sim();
        let mut t = Time::us(10);
        for _ in 0..2000 {
            c.on_ack(&ack(t, true));
            c.on_timeout(c.next_timeout().unwrap());
            t = Time(t.0 + 4_000);
        }
        assert_eq!(c.rate(), Rate::gbps(1));
    }
}
