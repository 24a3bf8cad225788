//! Bridge for the egress scheduler of a port (`rdma_cc_switch::sched`), one per QbbNetDevice
//! (switch ports and host NICs alike), and the packet kinds shared with the switch bridge.

use rdma_cc_core::{Bytes, PacketKind as Kind, Time};
use rdma_cc_switch::sched::{Class, DataPolicy, Pick, QueuedPacket, Scheduler};

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// Kind of a frame, with the codes of the RoCE header's kind field. Control kinds (ACK,
    /// NACK, CNP, probe response, switch control) travel in the control class.
    #[derive(Debug)]
    #[repr(u8)]
    enum PacketKind {
        /// Payload of a queue pair.
        Data = 0,
        /// Cumulative acknowledgement.
        Ack = 1,
        /// Go-back-N request.
        Nack = 2,
        /// Congestion notification packet.
        Cnp = 3,
        /// RTT probe (data class: it measures the data path).
        Probe = 4,
        /// RTT probe response.
        ProbeResp = 5,
        /// A frame a switch built for its neighbour (e.g. RCM's congestion notification).
        SwitchControl = 6,
        /// An RDMA READ request (the first one, or a repeat from the first missing byte).
        ReadRequest = 7,
    }

    /// What the scheduler answers.
    #[derive(Debug)]
    #[repr(u8)]
    enum PickKind {
        /// Send the queued frame `packet` (removed from its class).
        Packet = 0,
        /// Ask flow `flow` of class `prio` for a frame, then call `flow_served`.
        Flow = 1,
        /// Nothing to send now.
        Idle = 2,
        /// Nothing to send before `wait_until_ns`: call `next` again then.
        WaitUntil = 3,
    }

    /// Metadata of a queued frame. The host fills every field but `control` at enqueue; the
    /// scheduler gives it back in `SchedPick::packet`, with `control` = served from the control
    /// class.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    struct TxPacket {
        /// The host's slot handle of the frame.
        handle: u32,
        /// Frame bytes.
        size: u64,
        kind: PacketKind,
        /// Priority (data class) of the frame.
        prio: u8,
        /// Fabric-wide flow id (source address and queue pair).
        flow: u64,
        /// When it was queued, ns.
        arrival_ns: u64,
        /// Ingress port (switches).
        in_port: u32,
        /// Set by the scheduler: the frame was in the control class.
        control: bool,
        /// RCM, set by the scheduler: the frame was served from its class's congestion-flow
        /// FIFO (rust/switch sched.rs).
        rcc: bool,
        /// RCM, set by the scheduler: bytes its class still holds apart for RCC after this
        /// frame (the switch's congestion point leaves them out of the queue).
        rcc_held: u64,
    }

    /// The scheduler's answer: `kind` says which fields matter.
    #[derive(Clone, Copy, Debug)]
    struct SchedPick {
        kind: PickKind,
        /// Flow: the class.
        prio: u8,
        /// Flow: the host's flow handle.
        flow: u32,
        /// WaitUntil: the time, ns.
        wait_until_ns: u64,
        /// Packet: the frame.
        packet: TxPacket,
    }

    extern "Rust" {
        /// The egress scheduler of one port.
        type EgressScheduler;
        /// A scheduler with data policy `policy` ("rr", "strict" or "dwrr:w0,...,w7"); the
        /// error names the attribute DataScheduler.
        fn egress_scheduler_new(policy: &str) -> Result<Box<EgressScheduler>>;
        /// The default of the DataScheduler attribute.
        fn data_scheduler_default() -> String;
        /// The help text of the DataScheduler attribute.
        fn data_scheduler_help() -> String;
        /// Queues a frame (control kinds in the control class); returns whether it went to
        /// the control class.
        fn enqueue(self: &mut EgressScheduler, p: &TxPacket) -> bool;
        /// Makes flow `flow` ready in data class `prio`.
        fn add_flow(self: &mut EgressScheduler, prio: u8, flow: u32);
        /// What to send at `now_ns` with the data classes of mask `paused` paused.
        fn next(self: &mut EgressScheduler, now_ns: u64, paused: u8) -> SchedPick;
        /// The flow picked last sent `bytes` (`sent`) or had nothing (it leaves its class).
        fn flow_served(self: &mut EgressScheduler, prio: u8, flow: u32, sent: bool, bytes: u64);
        /// Holds data class `prio` until `until_ns`.
        fn hold(self: &mut EgressScheduler, prio: u8, until_ns: u64);
        /// Input-fair service of the data classes (a switch's Voq): DRR by bytes over the
        /// frames' input ports (`on`), or arrival order (`!on`, the default).
        fn set_input_fair(self: &mut EgressScheduler, on: bool);
        /// RCM: sets the RCC of data class `prio`: window `w` bytes of which the congestion
        /// flows `flows` may send `w_c` (`on`), or no RCC (`!on`: every frame may go);
        /// `period_ns` > 0: a timed window of that period (RCM's `rcc_timed`), 0: the paper's
        /// window of `w` bytes.
        fn set_rcc(
            self: &mut EgressScheduler,
            prio: u8,
            on: bool,
            w: u64,
            w_c: u64,
            flows: &[u64],
            period_ns: u64,
        );
        /// RCM: frames of data class `prio` waiting in its congestion-flow FIFO.
        fn rcc_len(self: &EgressScheduler, prio: u8) -> u64;
        /// Whether no class holds a frame or a flow.
        fn is_empty(self: &EgressScheduler) -> bool;
        /// Bytes queued in data class `prio`.
        fn queue_bytes(self: &EgressScheduler, prio: u8) -> u64;
        /// "" when the byte accounting holds, else what is wrong.
        fn check_invariants(self: &EgressScheduler) -> String;
        /// Whether frames of `kind` travel in the control class.
        fn packet_kind_is_control(kind: PacketKind) -> bool;
    }
}

pub use ffi::{PacketKind, PickKind, SchedPick, TxPacket};

impl From<PacketKind> for Kind {
    /// The Rust kind; an unknown code (a host bug) counts as data.
    fn from(k: PacketKind) -> Kind {
        let kind = Kind::from_code(k.repr);
        debug_assert!(kind.is_some(), "unknown packet kind {}", k.repr);
        kind.unwrap_or(Kind::Data)
    }
}

impl From<Kind> for PacketKind {
    fn from(k: Kind) -> PacketKind {
        PacketKind { repr: k.code() }
    }
}

fn packet_kind_is_control(kind: PacketKind) -> bool {
    Kind::from(kind).is_control()
}

/// Opaque handle owning one port's [`Scheduler`].
pub struct EgressScheduler(Scheduler);

fn data_scheduler_default() -> String {
    DataPolicy::DEFAULT_FORM.to_owned()
}

fn data_scheduler_help() -> String {
    DataPolicy::help()
}

fn egress_scheduler_new(policy: &str) -> Result<Box<EgressScheduler>, rdma_cc_core::ConfigError> {
    Ok(Box::new(EgressScheduler(Scheduler::new(
        DataPolicy::parse(policy)?,
    )?)))
}

const NO_PACKET: TxPacket = TxPacket {
    handle: 0,
    size: 0,
    kind: PacketKind::Data,
    prio: 0,
    flow: 0,
    arrival_ns: 0,
    in_port: 0,
    control: false,
    rcc: false,
    rcc_held: 0,
};

const IDLE: SchedPick = SchedPick {
    kind: PickKind::Idle,
    prio: 0,
    flow: 0,
    wait_until_ns: 0,
    packet: NO_PACKET,
};

impl EgressScheduler {
    #[inline]
    fn enqueue(&mut self, p: &TxPacket) -> bool {
        let class = self.0.enqueue(QueuedPacket {
            handle: p.handle,
            size: Bytes(p.size),
            kind: p.kind.into(),
            prio: p.prio,
            flow: p.flow,
            arrival: Time(p.arrival_ns),
            in_port: p.in_port,
            rcc: false,
        });
        class == Class::Control
    }

    #[inline]
    fn add_flow(&mut self, prio: u8, flow: u32) {
        self.0.add_flow(prio, flow);
    }

    #[inline]
    fn next(&mut self, now_ns: u64, paused: u8) -> SchedPick {
        // the common answer without the full pick's frame (a port with nothing to send)
        if self.0.is_idle(paused) {
            return IDLE;
        }
        self.pick(now_ns, paused)
    }

    /// [`Self::next`] when it may not be idle.
    #[inline(never)]
    fn pick(&mut self, now_ns: u64, paused: u8) -> SchedPick {
        match self.0.next(Time(now_ns), paused) {
            Pick::Packet { class, packet: p } => SchedPick {
                kind: PickKind::Packet,
                prio: p.prio,
                packet: TxPacket {
                    handle: p.handle,
                    size: p.size.0,
                    kind: p.kind.into(),
                    prio: p.prio,
                    flow: p.flow,
                    arrival_ns: p.arrival.0,
                    in_port: p.in_port,
                    control: class == Class::Control,
                    rcc: p.rcc,
                    rcc_held: self.0.queue(class).map_or(0, |q| q.rcc_bytes().0),
                },
                ..IDLE
            },
            Pick::Flow { prio, flow } => SchedPick {
                kind: PickKind::Flow,
                prio,
                flow,
                ..IDLE
            },
            Pick::Idle => IDLE,
            Pick::WaitUntil(t) => SchedPick {
                kind: PickKind::WaitUntil,
                wait_until_ns: t.0,
                ..IDLE
            },
        }
    }

    #[inline]
    fn flow_served(&mut self, prio: u8, flow: u32, sent: bool, bytes: u64) {
        self.0.flow_served(prio, flow, sent.then_some(Bytes(bytes)));
    }

    fn hold(&mut self, prio: u8, until_ns: u64) {
        self.0.hold(prio, Time(until_ns));
    }

    fn set_input_fair(&mut self, on: bool) {
        self.0.set_input_fair(on);
    }

    fn set_rcc(&mut self, prio: u8, on: bool, w: u64, w_c: u64, flows: &[u64], period_ns: u64) {
        self.0.set_rcc_timed(
            prio,
            on.then_some((Bytes(w), Bytes(w_c))),
            flows,
            (period_ns > 0).then_some(Time(period_ns)),
        );
    }

    fn rcc_len(&self, prio: u8) -> u64 {
        self.0
            .queue(Class::Data(prio))
            .map_or(0, |q| q.rcc_len() as u64)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn queue_bytes(&self, prio: u8) -> u64 {
        self.0.queue_bytes(Class::Data(prio)).0
    }

    fn check_invariants(&self) -> String {
        self.0.check_invariants().err().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx(handle: u32, kind: PacketKind, prio: u8) -> TxPacket {
        TxPacket {
            handle,
            size: 1000,
            kind,
            prio,
            ..NO_PACKET
        }
    }

    #[test]
    fn kinds_keep_their_codes_across_the_bridge() {
        for k in Kind::ALL {
            assert_eq!(Kind::from(PacketKind::from(k)), k);
            assert_eq!(packet_kind_is_control(k.into()), k.is_control());
        }
        assert_eq!(PacketKind::Ack.repr, 1);
        assert_eq!(PacketKind::SwitchControl.repr, 6);
    }

    #[test]
    fn bridge_scheduler_serves_control_first_and_names_bad_policies() {
        let mut s = egress_scheduler_new("rr").unwrap();
        assert!(!s.enqueue(&tx(1, PacketKind::Data, 3)));
        assert!(s.enqueue(&tx(2, PacketKind::Ack, 3)));
        let p = s.next(0, 0xFF);
        assert_eq!(p.kind, PickKind::Packet);
        assert!(p.packet.control && p.packet.handle == 2);
        assert_eq!(s.next(0, 1 << 3).kind, PickKind::Idle);
        let p = s.next(0, 0);
        assert_eq!(
            (p.kind, p.packet.handle, p.packet.control),
            (PickKind::Packet, 1, false)
        );
        s.add_flow(2, 7);
        let p = s.next(0, 0);
        assert_eq!((p.kind, p.prio, p.flow), (PickKind::Flow, 2, 7));
        s.flow_served(2, 7, false, 0);
        assert_eq!(s.next(0, 0).kind, PickKind::Idle);
        assert!(s.is_empty());
        assert_eq!(s.check_invariants(), "");
        let e = egress_scheduler_new("dwrr:1,2").err().expect("must fail");
        assert!(
            e.to_string()
                .starts_with("invalid DataScheduler = dwrr:1,2"),
            "{e}"
        );
    }
}
