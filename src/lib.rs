//! The cxx bridge between the ns-3 module (C++) and the rdma-cc algorithm crates.
//!
//! This crate holds no algorithm: it converts plain-data structs filled from ns-3 attributes
//! into validated Rust configurations, owns one opaque Rust object per switch queue or flow,
//! and forwards per-packet calls with `Copy` values (no strings, no heap allocation per packet).
//!
//! Construction returns `Result`; on the C++ side an error arrives as a `rust::Error` whose
//! message names the offending attribute, and the module stops the program with it.
//!
//! Bridges, one per area:
//! - [`params`]: parameter values and descriptions shared by every area, and the strict
//!   option parser.
//! - [`scenario`]: what an example derives from its options (a scheme's switch settings, the
//!   FCT lower bound, a link's payload limit) and the checks of its marking options.
//! - [`sched`]: the egress scheduler of a port (control class first; round robin, DWRR or
//!   strict priority among data classes; host NIC flows as lazy items), and the packet kinds.
//! - [`switch`]: RED/ECN + WRED egress queue policy, switch core (routing, MMU, PFC, control
//!   pool).
//! - [`transport`]: queue-pair sender/receiver and congestion controllers (LDCP, chosen per
//!   flow through `rdma-cc-schemes`).
//! - [`workload`]: the HPCC simulator's topology and flow files, parsed and checked
//!   (`rdma-cc-workload`) from the text the module read; the k-ary fat tree as such a
//!   topology; the Poisson flow generator; the slowdown table per flow-size bucket.
//! - [`wire`]: the RoCEv2 framing for the device code (frame and wire sizes, the base RTT,
//!   the goodput ceiling); the device includes this bridge, never the scenario's.
//! - [`log`]: the crates' `log` records into ns-3's `NS_LOG`, one log component per crate.

pub mod log;
pub mod params;
pub mod scenario;
pub mod sched;
pub mod switch;
pub mod transport;
pub mod wire;
pub mod workload;
