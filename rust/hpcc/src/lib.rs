//! HPCC's congestion control: the INT-based window and rate controller of Li et al., "HPCC:
//! High Precision Congestion Control" (SIGCOMM 2019), §3 and its Algorithm 1, as a controller
//! of the `rdma-cc-transport` queue pair.
//!
//! - [`Hpcc`] — the controller: start at line rate with a window of one BDP; on each ACK,
//!   compare the INT hop records it echoes with the previous ACK's records of the same hops to
//!   estimate each link's normalised inflight bytes `u_j = txRate_j/B_j + qlen_j/(B_j·T)`, take
//!   the most utilised link, smooth it over the base RTT, and scale the reference rate by
//!   `η/U` (multiplicative) or add `R_AI` (additive, up to `max_stage` times in a row); the
//!   reference is committed once per RTT, the ACKs between react on their own (fast react).
//!   Window `W = R·T` (plus one packet), and the queue pair is paced at `R`. Its module documentation lists
//!   every point the paper leaves open and the decision taken.
//! - [`HpccConfig`] — the constants, each given or "auto": the value of the chosen [`Preset`]
//!   (the HPCC simulator's, which users compare against, or the paper's);
//!   [`HpccConfig::resolved`] gives the values in effect on a path ([`HpccParams`]). Its
//!   parameter table is the one definition of each constant's name, bounds and help.
//!
//! The hop records ([`rdma_cc_core::HopRecord`], up to [`rdma_cc_core::int::MAX_HOPS`] per
//! ACK in an [`rdma_cc_core::IntRecords`]) reach the controller with the ACK through
//! [`rdma_cc_transport::Controller::on_ack_int`]; a path whose switches write none
//! ([`rdma_cc_transport::Path::int_telemetry`] false) is refused at construction, so HPCC never
//! silently runs as a line-rate sender.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing allocates.
//! After construction (which validates the configuration) no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod hpcc;

pub use config::{HpccConfig, HpccParams, Preset};
pub use hpcc::{sim_int_units, Hpcc, HpccStats};
