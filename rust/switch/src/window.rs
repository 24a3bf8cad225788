//! The window that enforces a held-apart budget at one output queue (RCM's RCC window, NPC
//! 2017 §3.4): the mechanism decides the budget `(W, W_c)` and which flows it applies to; the
//! port's scheduler ([`crate::sched`]) consults this window before it sends a packet of one of
//! those flows. See `rdma_cc_rcm::rcc` for the rules and the decisions behind them.

use rdma_cc_core::{Bytes, Time};

/// Counters of an [`RccWindow`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WindowStats {
    /// Windows completed by sending `W` bytes.
    pub windows: u64,
    /// Windows ended early because no non-congestion packet was waiting.
    pub early_ends: u64,
    /// Times a congestion-flow packet was refused (held) by
    /// [`RccWindow::admits_congestion`].
    pub holds: u64,
    /// Bytes of congestion flows sent while active.
    pub congestion_bytes: u64,
    /// Bytes of other flows sent while active.
    pub other_bytes: u64,
}

/// The window that enforces `W_c` at one output queue (NPC 2017 §3.4): what the port's
/// scheduler consults before sending a congestion-flow packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RccWindow {
    /// `W` (0 while inactive).
    w: Bytes,
    /// `W_c` while active.
    w_c: Option<Bytes>,
    /// Bytes sent in this window, all flows.
    sent: Bytes,
    /// Bytes the congestion flows sent in this window.
    sent_c: Bytes,
    /// Timed mode: the window's period (`None`: the paper's window of `W` bytes).
    period: Option<Time>,
    /// Timed mode: when the current window started (`None`: at the next packet).
    start: Option<Time>,
    stats: WindowStats,
}

impl Default for RccWindow {
    fn default() -> Self {
        RccWindow::INACTIVE
    }
}

impl RccWindow {
    /// The inactive window ([`Self::new`], the default), as a constant.
    pub const INACTIVE: RccWindow = RccWindow {
        w: Bytes::ZERO,
        w_c: None,
        sent: Bytes::ZERO,
        sent_c: Bytes::ZERO,
        period: None,
        start: None,
        stats: WindowStats {
            windows: 0,
            early_ends: 0,
            holds: 0,
            congestion_bytes: 0,
            other_bytes: 0,
        },
    };

    /// An inactive window: every packet may go.
    pub fn new() -> RccWindow {
        RccWindow::INACTIVE
    }

    /// Sets the budget: `Some((W, W_c))` while RCC is active (a fresh window when it was
    /// inactive; the current window goes on after a cut), `None` to stop (every packet may go
    /// again).
    pub fn set(&mut self, budget: Option<(Bytes, Bytes)>) {
        match budget {
            Some((w, w_c)) => {
                if self.w_c.is_none() {
                    self.sent = Bytes::ZERO;
                    self.sent_c = Bytes::ZERO;
                }
                self.w = Bytes(w.0.max(1));
                self.w_c = Some(w_c.min(self.w));
            }
            None => {
                self.w_c = None;
                self.w = Bytes::ZERO;
                self.start = None;
            }
        }
    }

    /// Sets the mode (decision, `rcc_timed`): `Some(period)`, a window is `period` long and
    /// the congestion flows may send `W_c` bytes in it, held packets waiting for the next one
    /// even when nothing else waits; `None`, the paper's window of `W` bytes with its
    /// work-conserving early end.
    pub fn set_period(&mut self, period: Option<Time>) {
        self.period = period.filter(|p| p.0 > 0);
    }

    /// Timed mode: starts a new window when the current one is over at `now`.
    fn roll(&mut self, now: Time) {
        let Some(p) = self.period else {
            return;
        };
        if self.w_c.is_none() {
            return;
        }
        match self.start {
            None => self.start = Some(now),
            Some(s) if now >= s.saturating_add(p) => {
                self.start = Some(now);
                self.sent = Bytes::ZERO;
                self.sent_c = Bytes::ZERO;
                self.stats.windows += 1;
            }
            Some(_) => {}
        }
    }

    /// Timed mode: when the congestion flows may send again, if their budget of the current
    /// window is spent at `now` (`None`: they may send, or the mode is not timed).
    pub fn blocked_until(&self, now: Time) -> Option<Time> {
        let (p, w_c, s) = (self.period?, self.w_c?, self.start?);
        let end = s.saturating_add(p);
        (now < end && self.sent_c >= w_c).then_some(end)
    }

    /// [`Self::admits_congestion`] at `now`: in timed mode, while the congestion flows have
    /// sent less than `W_c` in the current period, whatever else waits.
    pub fn admits_congestion_at(&mut self, now: Time, others_waiting: bool) -> bool {
        if self.period.is_none() {
            return self.admits_congestion(others_waiting);
        }
        let Some(w_c) = self.w_c else {
            return true;
        };
        self.roll(now);
        let ok = self.sent_c < w_c;
        if !ok {
            self.stats.holds += 1;
        }
        ok
    }

    /// Whether RCC is active.
    pub fn is_active(&self) -> bool {
        self.w_c.is_some()
    }

    /// `(W, W_c)` while active.
    pub fn budget(&self) -> Option<(Bytes, Bytes)> {
        self.w_c.map(|c| (self.w, c))
    }

    /// `(sent, sent_c)`: the bytes of the current window, all flows and congestion flows.
    pub fn sent(&self) -> (Bytes, Bytes) {
        (self.sent, self.sent_c)
    }

    /// Counters.
    pub fn stats(&self) -> WindowStats {
        self.stats
    }

    /// Whether a packet of a congestion flow may be sent now: always while inactive; while
    /// active, while the congestion flows have sent less than `W_c` in this window, or when
    /// `others_waiting` is false (no non-congestion packet waits: the window ends early so
    /// the port never idles). A refusal is counted as a hold.
    pub fn admits_congestion(&mut self, others_waiting: bool) -> bool {
        let Some(w_c) = self.w_c else {
            return true;
        };
        let ok = self.sent_c < w_c || !others_waiting;
        if !ok {
            self.stats.holds += 1;
        }
        ok
    }

    /// A packet of `size` bytes was sent; `congestion`: it belongs to a congestion flow.
    /// A congestion packet sent past the budget (admitted because nothing else waited) starts
    /// a new window, and the window restarts once `W` bytes are sent.
    pub fn on_sent(&mut self, size: Bytes, congestion: bool) {
        let Some(w_c) = self.w_c else {
            return;
        };
        if self.period.is_some() {
            // timed mode: the period ends the window, not the bytes
            if congestion {
                self.stats.congestion_bytes += size.0;
                self.sent_c = self.sent_c.saturating_add(size);
            } else {
                self.stats.other_bytes += size.0;
            }
            self.sent = self.sent.saturating_add(size);
            return;
        }
        if congestion {
            self.stats.congestion_bytes += size.0;
            if self.sent_c >= w_c {
                // the work-conserving end of the window: this packet opens the next one
                self.sent = Bytes::ZERO;
                self.sent_c = Bytes::ZERO;
                self.stats.early_ends += 1;
            }
            self.sent_c = self.sent_c.saturating_add(size);
        } else {
            self.stats.other_bytes += size.0;
        }
        self.sent = self.sent.saturating_add(size);
        if self.sent >= self.w {
            self.sent = Bytes::ZERO;
            self.sent_c = Bytes::ZERO;
            self.stats.windows += 1;
        }
    }
}
