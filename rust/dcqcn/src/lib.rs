//! DCQCN's reaction point (RP): the sender's per-flow rate control of Zhu et al., "Congestion
//! Control for Large-Scale RDMA Deployments" (SIGCOMM 2015), §3.1 and its Figure 7, as a
//! controller of the `rdma-cc-transport` queue pair.
//!
//! - [`Dcqcn`] — the RP state machine: start at line rate, cut the rate on each CNP (eq. 1),
//!   keep `α` like DCTCP (eq. 1–2), recover by timer and byte counter through fast recovery
//!   (eq. 3), additive increase (eq. 4) and hyper increase. Its module documentation lists
//!   every point the paper leaves open and the decision taken.
//! - [`DcqcnConfig`] — the constants, each either given or "auto": the value of the chosen
//!   [`Preset`] (the paper's 40 Gb/s values, or the defaults of the deployed NVIDIA/Mellanox
//!   NICs); [`DcqcnConfig::resolved`] gives the values in effect ([`DcqcnParams`]). Its
//!   parameter table is the one definition of each constant's name, bounds and help.
//!
//! The congestion point (RED/ECN marking at the switch) lives in `rdma-cc-switch`, the
//! notification point (CNP generation at the receiver) in the transport's receiver; choosing a
//! scheme per flow at run time is `rdma-cc-schemes`' business, so other schemes never depend
//! on DCQCN.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing allocates.
//! After construction (which validates the configuration) no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod dcqcn;

pub use config::{AlphaMode, DcqcnConfig, DcqcnParams, Preset, RpModel};
pub use dcqcn::{Dcqcn, DcqcnStats};
