//! Flow ids and small sets of them: the congestion flows a mechanism (RCM) asks a port's
//! scheduler to hold apart ([`crate::sched::Scheduler::set_rcc`]), or that it carries in its
//! own messages. Inline, fixed capacity: nothing allocates.

/// Most flow ids a [`FlowList`] holds (RCM's largest CAM, `rdma_cc_rcm::MAX_CAM_DEPTH`).
pub const MAX_FLOWS: usize = 64;

/// A flow's fabric-wide ID (the paper's 5-tuple; in the simulator the flow id the packets
/// carry).
pub type FlowId = u64;

/// At most [`MAX_FLOWS`] distinct flow IDs, in insertion order, inline (no allocation):
/// the harmful flows a CN carries, or the ones a port received.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FlowList {
    len: u8,
    ids: [FlowId; MAX_FLOWS],
}

impl Default for FlowList {
    fn default() -> Self {
        FlowList {
            len: 0,
            ids: [0; MAX_FLOWS],
        }
    }
}

impl std::fmt::Debug for FlowList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl FlowList {
    /// The empty list.
    pub fn new() -> FlowList {
        FlowList::default()
    }

    /// The IDs of `ids`, duplicates dropped, at most [`MAX_FLOWS`] of them.
    pub fn from_ids(ids: &[FlowId]) -> FlowList {
        let mut l = FlowList::new();
        for &id in ids {
            l.push(id);
        }
        l
    }

    /// Adds `id` unless it is present or the list is full; returns whether it is in the list
    /// afterwards.
    pub fn push(&mut self, id: FlowId) -> bool {
        if self.contains(id) {
            return true;
        }
        let n = self.len as usize;
        if n >= MAX_FLOWS {
            return false;
        }
        self.ids[n] = id;
        self.len += 1;
        true
    }

    /// Whether `id` is in the list.
    pub fn contains(&self, id: FlowId) -> bool {
        self.as_slice().contains(&id)
    }

    /// The IDs, in insertion order.
    pub fn as_slice(&self) -> &[FlowId] {
        &self.ids[..self.len as usize]
    }

    /// Number of IDs.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_lists_are_sets_of_bounded_size() {
        let mut l = FlowList::from_ids(&[3, 3, 4]);
        assert_eq!(l.as_slice(), [3, 4]);
        for id in 0..100 {
            l.push(id);
        }
        assert_eq!(l.len(), MAX_FLOWS);
        assert!(!l.push(1000));
        assert!(l.push(3));
        assert_eq!(format!("{:?}", FlowList::from_ids(&[1, 2])), "[1, 2]");
    }
}
