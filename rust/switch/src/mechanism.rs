//! A mechanism inside the switch: something that sees the data packets a switch admits and
//! sends, may hold packets apart at an output queue, and may detour a packet to another of its
//! equal-cost ports (RCM, `rdma_cc_rcm`, is one; the switch core knows none by name).
//!
//! The switch core ([`crate::core::SwitchCore`]) calls a [`Mechanism`] at fixed points of a
//! packet's way and acts on the values it answers ([`Detour`], held bytes); it never calls
//! back into the host on the mechanism's behalf. Sans-IO like the rest of the crate: every
//! event that needs the time is given `now`; the mechanism says when it wants to be woken
//! ([`Mechanism::next_timeout`]) and the host calls [`Mechanism::on_timeout`]. Every method
//! has a no-op default, so a mechanism implements only what it uses; [`NoMechanism`] is the
//! switch without one, and `Option<M>` is a mechanism that may be off.

use rdma_cc_core::{Bytes, Time};

/// Where a data packet goes among its equal-cost ports: the mechanism's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detour {
    /// Keep the ECMP choice.
    Keep,
    /// Send it on this port (one of the candidates).
    To(u32),
}

/// A data packet the switch admitted (after the egress policy and the MMU), with the queue
/// lengths the MMU accounts once it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admitted {
    /// When it arrived.
    pub now: Time,
    /// Port it arrived on.
    pub in_port: u32,
    /// Port it leaves by.
    pub out_port: u32,
    /// Priority class.
    pub prio: u8,
    /// Its bytes in the buffer.
    pub size: Bytes,
    /// Bytes buffered from (`in_port`, `prio`), this packet included (the input queue).
    pub ingress: Bytes,
    /// Bytes queued at (`out_port`, `prio`), this packet included (the output queue).
    pub egress: Bytes,
}

/// A data packet that left its output queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Departed {
    /// Port it left by.
    pub out_port: u32,
    /// Priority class.
    pub prio: u8,
    /// Its fabric-wide flow id.
    pub flow: u64,
    /// Its bytes.
    pub size: Bytes,
    /// Bytes the port's scheduler holds apart at (`out_port`, `prio`) now.
    pub held: Bytes,
}

/// A mechanism that sees a switch's arrivals and departures and may hold or detour (RCM's
/// role). Control frames never reach it, except the ones addressed to the switch itself
/// ([`Mechanism::on_control`]).
pub trait Mechanism {
    /// Chooses among the equal-cost `candidates` (more than one) of a data packet of flow
    /// `flow` and priority `prio`, ECMP having chosen `ecmp`.
    fn route(&mut self, now: Time, prio: u8, flow: u64, candidates: &[u32], ecmp: u32) -> Detour {
        let _ = (now, prio, flow, candidates, ecmp);
        Detour::Keep
    }

    /// Bytes held apart at output queue (`port`, `prio`) (they wait there but are not part of
    /// the queue the egress policy sees).
    fn held(&self, port: u32, prio: u8) -> Bytes {
        let _ = (port, prio);
        Bytes::ZERO
    }

    /// A data packet was admitted.
    fn on_admitted(&mut self, a: &Admitted) {
        let _ = a;
    }

    /// A data packet left its output queue.
    fn on_departed(&mut self, d: &Departed) {
        let _ = d;
    }

    /// A neighbour's frame for this switch arrived on `port` with `payload` (after its
    /// header). Returns whether the mechanism took it.
    fn on_control(&mut self, now: Time, port: u32, payload: &[u8]) -> bool {
        let _ = (now, port, payload);
        false
    }

    /// When [`Self::on_timeout`] should next be called (`None`: nothing pending).
    fn next_timeout(&self) -> Option<Time> {
        None
    }

    /// The timer fired at `now`.
    fn on_timeout(&mut self, now: Time) {
        let _ = now;
    }
}

/// The switch without a mechanism: every method is the no-op default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoMechanism;

impl Mechanism for NoMechanism {}

/// A mechanism that may be off (`None`: the no-op defaults).
impl<M: Mechanism> Mechanism for Option<M> {
    #[inline]
    fn route(&mut self, now: Time, prio: u8, flow: u64, candidates: &[u32], ecmp: u32) -> Detour {
        self.as_mut()
            .map_or(Detour::Keep, |m| m.route(now, prio, flow, candidates, ecmp))
    }

    #[inline]
    fn held(&self, port: u32, prio: u8) -> Bytes {
        self.as_ref().map_or(Bytes::ZERO, |m| m.held(port, prio))
    }

    #[inline]
    fn on_admitted(&mut self, a: &Admitted) {
        if let Some(m) = self.as_mut() {
            m.on_admitted(a);
        }
    }

    #[inline]
    fn on_departed(&mut self, d: &Departed) {
        if let Some(m) = self.as_mut() {
            m.on_departed(d);
        }
    }

    fn on_control(&mut self, now: Time, port: u32, payload: &[u8]) -> bool {
        self.as_mut()
            .is_some_and(|m| m.on_control(now, port, payload))
    }

    fn next_timeout(&self) -> Option<Time> {
        self.as_ref().and_then(Mechanism::next_timeout)
    }

    fn on_timeout(&mut self, now: Time) {
        if let Some(m) = self.as_mut() {
            m.on_timeout(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_mechanism_and_an_absent_one_keep_ecmp_hold_nothing_and_take_no_frame() {
        let mut none: Option<NoMechanism> = None;
        for m in [&mut NoMechanism as &mut dyn Mechanism, &mut none] {
            assert_eq!(m.route(Time::ZERO, 3, 1, &[1, 2], 2), Detour::Keep);
            assert_eq!(m.held(1, 3), Bytes::ZERO);
            assert!(!m.on_control(Time::ZERO, 0, &[1, 2, 3]));
            assert_eq!(m.next_timeout(), None);
        }
    }
}
