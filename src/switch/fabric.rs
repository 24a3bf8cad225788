//! The fabric graph and its routes across the bridge ([`Topology`], a [`Fabric`]).

use rdma_cc_core::ConfigError;
use rdma_cc_switch::routing::Fabric;

/// Opaque handle: the fabric graph and, once computed, the route table of every node.
pub struct Topology(pub(super) Fabric);

pub(super) fn topology_new(n: u32) -> Box<Topology> {
    Box::new(Topology(Fabric::new(n as usize)))
}

impl Topology {
    pub(super) fn set_host(&mut self, node: u32) -> Result<(), ConfigError> {
        self.0.set_host(node)
    }
    pub(super) fn add_link(&mut self, a: u32, pa: u32, b: u32, pb: u32) -> Result<(), ConfigError> {
        self.0.add_link(a, pa, b, pb)
    }
    pub(super) fn compute_routes(&mut self) -> Result<(), ConfigError> {
        self.0.compute_routes()
    }
    pub(super) fn next_hops(&self, node: u32, dst: u32) -> Vec<u32> {
        self.0.next_hops(node, dst).to_vec()
    }
}
