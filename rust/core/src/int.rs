//! In-band network telemetry (INT) as HPCC uses it (Li et al., "HPCC: High Precision Congestion
//! Control", SIGCOMM 2019, §3): every switch egress a data packet leaves through
//! appends one [`HopRecord`] describing that port at that moment; the receiver copies the
//! records of the packet into the ACK it triggers; the sender's controller compares them with
//! the previous ACK's records of the same hops.
//!
//! [`IntRecords`] is the list a packet carries: at most [`MAX_HOPS`] records in a fixed-size
//! array (a `Copy` value, nothing allocated per packet), in path order (the sender's first-hop
//! switch first). What the records cost on the wire is in [`crate::wire`]
//! ([`crate::wire::INT_ON_WIRE`]).

/// The most hop records a packet carries (the HPCC simulator's `IntHeader::maxHop`, enough for
/// the five switch hops of a three-tier fat tree). A switch finding the list full appends
/// nothing.
pub const MAX_HOPS: usize = 5;

/// One switch egress port as a data packet saw it when it left (HPCC §3 and Algorithm 1: the
/// queue length, transmitted bytes, timestamp and bandwidth of link `i`). Every value is exact: the records travel as simulator metadata, so the wire
/// encoding's quantisation (the HPCC simulator packs a record into 8 bytes: 24-bit
/// timestamps, bytes in 128 B units, queue in 80 B units) is not modelled, only its size.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct HopRecord {
    /// Bytes queued at the egress port, every class of it, once the packet was dequeued (the
    /// HPCC simulator's `GetNBytesTotal()` at `SwitchNotifyDequeue`: the port's capacity is
    /// what the queue term measures against).
    pub qlen_bytes: u64,
    /// Frame bytes the port had transmitted before this packet since it started (cumulative,
    /// so never decreasing along one port's records; the simulator's `m_txBytes`).
    pub tx_bytes: u64,
    /// When the packet was dequeued to leave the port, ns (never decreasing along one port's
    /// records).
    pub ts_ns: u64,
    /// The port's line rate, bit/s.
    pub line_rate_bps: u64,
    /// Which egress port wrote the record: a fabric-wide identity (the simulator uses the
    /// switch's node id in the high 32 bits and the port's index in the low 32). It lets a
    /// sender compare a record only with an earlier record of the same port when the path
    /// changes under it (adaptive routing such as RCM's SAR). Simulator metadata: the wire
    /// size ([`crate::wire::INT_ON_WIRE`]) counts the HPCC simulator's 8-byte record, which has
    /// no port identity (a real INT deployment would add its switch-id field).
    pub port_id: u64,
}

/// The hop records a packet carries: up to [`MAX_HOPS`], in path order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct IntRecords {
    len: u8,
    hops: [HopRecord; MAX_HOPS],
}

impl IntRecords {
    /// No records (a packet leaving the sender).
    pub const EMPTY: IntRecords = IntRecords {
        len: 0,
        hops: [HopRecord {
            qlen_bytes: 0,
            tx_bytes: 0,
            ts_ns: 0,
            line_rate_bps: 0,
            port_id: 0,
        }; MAX_HOPS],
    };

    /// The first [`MAX_HOPS`] records of `hops` (the rest are dropped, as a switch finding the
    /// list full drops its own).
    pub fn from_slice(hops: &[HopRecord]) -> IntRecords {
        let mut r = IntRecords::EMPTY;
        for h in hops.iter().take(MAX_HOPS) {
            r.push(*h);
        }
        r
    }

    /// Appends `hop` (a switch egress); false, and nothing appended, when the list is full.
    pub fn push(&mut self, hop: HopRecord) -> bool {
        match self.hops.get_mut(usize::from(self.len)) {
            Some(slot) => {
                *slot = hop;
                self.len += 1;
                true
            }
            None => false,
        }
    }

    /// The records, in path order.
    pub fn as_slice(&self) -> &[HopRecord] {
        self.hops.get(..usize::from(self.len)).unwrap_or(&[])
    }

    /// How many records there are (the switch hops the packet crossed, up to [`MAX_HOPS`]).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(i: u64) -> HopRecord {
        HopRecord {
            qlen_bytes: i,
            tx_bytes: 10 * i,
            ts_ns: 100 * i,
            line_rate_bps: 100_000_000_000,
            port_id: i,
        }
    }

    #[test]
    fn push_stops_at_max_hops_in_path_order() {
        let mut r = IntRecords::EMPTY;
        assert!(r.is_empty());
        for i in 0..MAX_HOPS as u64 {
            assert!(r.push(hop(i)));
        }
        assert!(!r.push(hop(99)));
        assert_eq!(r.len(), MAX_HOPS);
        assert_eq!(r.as_slice()[0], hop(0));
        assert_eq!(r.as_slice()[MAX_HOPS - 1], hop(MAX_HOPS as u64 - 1));
        let all: Vec<HopRecord> = (0..8).map(hop).collect();
        assert_eq!(IntRecords::from_slice(&all), r);
        assert_eq!(IntRecords::from_slice(&all[..2]).as_slice(), &all[..2]);
        assert_eq!(IntRecords::default(), IntRecords::EMPTY);
    }
}
