//! LDCP congestion control (draft-dai-tsvwg-ldcp-01, "PFC-Free Low Delay Control Protocol"),
//! as controllers of the `rdma-cc-transport` queue pair.
//!
//! - [`Ldcp`] — LDCP's window (draft §2): per-ACK window adjustment (PAWA), the sub-packet
//!   regime with `cw < 1`, and zero-RTT fast start (see [`ldcp`], whose documentation lists every point the draft leaves open and the decision taken, which
//!   fixes every point the draft leaves open);
//! - [`LdcpRate`] — LDCP's rate-based variant for NICs without per-packet ACKs (draft §3.2):
//!   the same `cw` turned into a pacing rate `cw·MTU/RTT`, `+α` per RTT probe, `−β` per CNP.
//!
//! Both implement the transport's [`Controller`](rdma_cc_transport::Controller); a NIC drives
//! them through a [`QpSender`](rdma_cc_transport::QpSender), built by [`LdcpConfig::build`] /
//! [`LdcpConfig::build_rate`]. The constants are an [`LdcpConfig`]; the path and the
//! transport's timers stay in the transport's `SenderConfig`. Choosing a scheme per flow at run
//! time is not this crate's business (see `rdma-cc-schemes`), so other schemes never depend on
//! LDCP.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing allocates.
//! After construction (which validates the configuration) no input makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod ldcp;
pub mod rate;

pub use config::{LdcpConfig, LossFloor, RateRtt};
pub use ldcp::{FastStartExit, Ldcp, Rules, Stage};
pub use rate::LdcpRate;
