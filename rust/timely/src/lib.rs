//! TIMELY's rate control: the RTT-gradient controller of Mittal et al., "TIMELY: RTT-based
//! Congestion Control for the Datacenter" (SIGCOMM 2015), §4 and its Algorithm 1, as a
//! controller of the `rdma-cc-transport` queue pair.
//!
//! - [`Timely`] — the controller: start at line rate; per update (once per RTT by default, or
//!   per completed segment), the RTT difference is smoothed (`α`), normalised by `min_rtt`
//!   into a gradient; below `T_low` the rate rises by `δ`, above `T_high` it falls in
//!   proportion to how far the RTT is above it, in between it rises when the gradient is not
//!   positive (by `N·δ` after a run of increases: hyper-active increase) and falls by
//!   `β·gradient` otherwise. Its module documentation lists every point the paper leaves open
//!   and the decision taken.
//! - [`TimelyConfig`] — the constants, each given or "auto": the value of the chosen
//!   [`Preset`] (the HPCC simulator's, which users compare against, or the paper's);
//!   [`TimelyConfig::resolved`] gives the values in effect on a path ([`TimelyParams`]). Its
//!   parameter table is the one definition of each constant's name, bounds and help.
//!
//! The RTT samples come from the send timestamp the receiver echoes in each ACK (the
//! transport's [`AckEvent::rtt`](rdma_cc_transport::AckEvent::rtt)); choosing a scheme per flow
//! at run time is `rdma-cc-schemes`' business, so other schemes never depend on TIMELY.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing allocates.
//! After construction (which validates the configuration) no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod timely;

pub use config::{Granularity, Preset, TimelyConfig, TimelyParams};
pub use timely::{Timely, TimelyStats};
