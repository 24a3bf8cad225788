//! DCTCP for RDMA: the sender of DCTCP (Alizadeh et al., "Data Center TCP", SIGCOMM 2010;
//! RFC 8257) on a RoCE queue pair, as the HPCC simulator runs it (its `CC_MODE 8`), as a
//! controller of the `rdma-cc-transport` queue pair.
//!
//! - [`Dctcp`] — the controller: start at line rate with a window of one BDP; once per window
//!   of data, `α ← (1 − g)·α + g·F` from the fraction `F` of packets acknowledged with
//!   ECN-Echo (RFC 8257 §3.3); at the first ECN-Echo outside a reduction window, one cut
//!   `R ← R·(1 − α/2)` (§3.4) and none until the data sent by then is acknowledged; per window
//!   without a cut, `R ← R + one MTU per base RTT`. The window is `R × base RTT` (at least one
//!   packet) and the packets are paced at `R`. Its module documentation lists every point
//!   left open and the decision taken.
//! - [`DctcpConfig`] — the constants, each given or "auto": the value of the chosen
//!   [`Preset`] (the HPCC simulator's or RFC 8257's); [`DctcpConfig::resolved`] gives the
//!   values in effect on a path ([`DctcpParams`]).
//!
//! The switch side (ECN marking with `K_min = K_max = K`, `P_max = 1`) is the switch's
//! RED/ECN policy configured by `rdma-cc-schemes`; the receiver echoes CE in every ACK (the
//! transport's receiver). Choosing a scheme per flow at run time is `rdma-cc-schemes`'
//! business, so other schemes never depend on DCTCP.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing allocates.
//! After construction (which validates the configuration) no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod dctcp;

pub use config::{DctcpConfig, DctcpParams, Preset};
pub use dctcp::{Dctcp, DctcpStats};
