//! Shared vocabulary of the rdma-cc algorithm crates.
//!
//! Everything here is plain data: integer newtypes that carry their unit in the type
//! ([`Bytes`], [`Rate`] in bit/s, [`Time`] in nanoseconds), the IP ECN codepoint ([`Ecn`]), the
//! wire-overhead constants of a RoCEv2 packet ([`wire`]), the kind of a frame and whether it
//! travels in the control class ([`PacketKind`]), the RDMA operation of a message
//! ([`Operation`]), the INT hop records HPCC's
//! switches write ([`int`]), and [`ConfigError`], the error every configuration's
//! `validate()` returns, naming the field and the offending value; a run's recorded
//! configuration read back for a replay ([`runconfig`]); the key mixer every hash table and
//! ECMP choice uses ([`hash::mix64`]).
//!
//! No clocks, no randomness, no I/O: callers pass time, random draws and file bytes in.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod classes;
mod ecn;
mod error;
pub mod hash;
pub mod int;
mod kind;
mod op;
pub mod param;
pub mod runconfig;
mod units;
pub mod wire;

pub use ecn::Ecn;
pub use error::ConfigError;
pub use int::{HopRecord, IntRecords};
pub use kind::PacketKind;
pub use op::Operation;
pub use param::{Param, ParamKind, ParamSpec, ParamValue, Params};
pub use units::{Bytes, Rate, Time};
