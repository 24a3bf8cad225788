//! What a packet is, as far as queues and schedulers care ([`PacketKind`]).

/// The kind of a RoCEv2 frame, numbered as the simulator's RoCE header carries it.
///
/// Shared by the transport (which builds and parses the frames) and the switch (which queues
/// and schedules them): control frames (acknowledgements, congestion notifications, probe
/// responses, frames a switch originates) travel in a dedicated control class at every port,
/// with strict priority over data, never paused, never ECN-marked and never dropped by early
/// drop (IEEE 802.1Q strict-priority selection for the highest class; RoCEv2 deployments put
/// CNPs and ACKs in a high-priority class for the same reason). Data frames and RTT probes
/// (which measure the data path) travel in their flow's priority class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum PacketKind {
    /// Payload of a queue pair.
    #[default]
    Data = 0,
    /// Cumulative acknowledgement (BTH + AETH).
    Ack = 1,
    /// Go-back-N request (BTH + AETH with a NAK code).
    Nack = 2,
    /// Congestion notification packet (RoCEv2 CNP, DCQCN's NP → RP).
    Cnp = 3,
    /// RTT probe of a rate-based sender: data class, it measures the data path.
    Probe = 4,
    /// The receiver's answer to a [`PacketKind::Probe`].
    ProbeResp = 5,
    /// A frame a switch built and sent to its neighbour (e.g. RCM's congestion notification).
    SwitchControl = 6,
    /// An RDMA READ request (BTH + RETH), from the requester to the responder: the first one
    /// when the READ is posted, and a repeat from the first missing byte when READ responses
    /// arrive out of order (LDCP draft §3.1: READ responses need no NAK). Control class
    /// (decision: a one-frame request does not queue behind data; see docs/operations.md).
    ReadRequest = 7,
}

impl PacketKind {
    /// Every kind, in numeric order.
    pub const ALL: [PacketKind; 8] = [
        PacketKind::Data,
        PacketKind::Ack,
        PacketKind::Nack,
        PacketKind::Cnp,
        PacketKind::Probe,
        PacketKind::ProbeResp,
        PacketKind::SwitchControl,
        PacketKind::ReadRequest,
    ];

    /// The kind with code `code`, `None` for an unknown code.
    pub const fn from_code(code: u8) -> Option<PacketKind> {
        match code {
            0 => Some(PacketKind::Data),
            1 => Some(PacketKind::Ack),
            2 => Some(PacketKind::Nack),
            3 => Some(PacketKind::Cnp),
            4 => Some(PacketKind::Probe),
            5 => Some(PacketKind::ProbeResp),
            6 => Some(PacketKind::SwitchControl),
            7 => Some(PacketKind::ReadRequest),
            _ => None,
        }
    }

    /// The numeric code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// Whether frames of this kind travel in the control class (strict priority, never
    /// paused, marked or early-dropped): everything but data and RTT probes.
    pub const fn is_control(self) -> bool {
        !matches!(self, PacketKind::Data | PacketKind::Probe)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_and_probes_are_data_class_everything_else_is_control() {
        let control: Vec<_> = PacketKind::ALL
            .iter()
            .filter(|k| k.is_control())
            .copied()
            .collect();
        assert_eq!(
            control,
            [
                PacketKind::Ack,
                PacketKind::Nack,
                PacketKind::Cnp,
                PacketKind::ProbeResp,
                PacketKind::SwitchControl,
                PacketKind::ReadRequest
            ]
        );
    }

    #[test]
    fn codes_round_trip() {
        for k in PacketKind::ALL {
            assert_eq!(PacketKind::from_code(k.code()), Some(k));
        }
        assert_eq!(PacketKind::from_code(8), None);
    }
}
