//! The RDMA operation a flow (one message) performs ([`Operation`]).

/// The verb of a message. Every flow's bytes travel from its data source to its data sink;
/// the operation says who posts the message and how the data starts moving:
///
/// - [`Operation::Write`] and [`Operation::Send`]: the data source posts it and sends the data
///   at once. The model makes them identical on the wire and in every controller: a WRITE
///   names a remote address and a SEND consumes a posted receive buffer, and neither changes
///   a header size, an ACK or a congestion signal here (receive buffers are always posted).
/// - [`Operation::Read`]: the data sink (the requester) posts it at the flow's start and sends
///   a READ request ([`crate::wire::READ_REQUEST_ON_WIRE`]) to the data source (the
///   responder), which answers with READ responses paced by its own congestion controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum Operation {
    /// RDMA WRITE (every flow before operations existed).
    #[default]
    Write = 0,
    /// RDMA SEND: the same as a WRITE in this model.
    Send = 1,
    /// RDMA READ: request from the data sink, responses from the data source.
    Read = 2,
}

impl Operation {
    /// Every operation, in code order.
    pub const ALL: [Operation; 3] = [Operation::Write, Operation::Send, Operation::Read];

    /// The name in options, flow files and outputs: `write`, `send`, `read`.
    pub const fn name(self) -> &'static str {
        match self {
            Operation::Write => "write",
            Operation::Send => "send",
            Operation::Read => "read",
        }
    }

    /// The operation named `s` (case-insensitive: `READ` as well as `read`); `None` otherwise.
    pub fn from_name(s: &str) -> Option<Operation> {
        Operation::ALL
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(s))
    }

    /// The numeric code (as the bridge carries it).
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The operation with code `code`; `None` for an unknown code.
    pub const fn from_code(code: u8) -> Option<Operation> {
        match code {
            0 => Some(Operation::Write),
            1 => Some(Operation::Send),
            2 => Some(Operation::Read),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_round_trip() {
        for o in Operation::ALL {
            assert_eq!(Operation::from_name(o.name()), Some(o));
            assert_eq!(Operation::from_code(o.code()), Some(o));
        }
        assert_eq!(Operation::from_name("READ"), Some(Operation::Read));
        assert_eq!(Operation::from_name("atomic"), None);
        assert_eq!(Operation::from_code(3), None);
        assert_eq!(Operation::default(), Operation::Write);
    }
}
