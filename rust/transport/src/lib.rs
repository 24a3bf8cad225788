//! Sans-IO RoCE-like queue-pair (QP) transport for the host NIC, and its congestion controllers.
//!
//! One [`QpSender`] per flow at the source and one [`QpReceiver`] per flow at the destination.
//! The host (the ns-3 NIC, through the cxx bridge) owns packets, links and events; it passes the
//! current time into every call and acts on the plain `Copy` values that come back:
//!
//! - [`QpSender::poll`] answers what to put on the wire next ([`Poll::Send`] a [`TxPacket`],
//!   [`Poll::SendProbe`], [`Poll::WaitUntil`] a time, [`Poll::Blocked`] until feedback, or
//!   [`Poll::Done`]); ACKs, NACKs, CNPs, probe responses and timer expiries go in through
//!   `on_*` methods; [`QpSender::next_timer`] says when the QP next wants [`QpSender::on_timer`].
//! - [`QpReceiver::on_data`] answers whether the packet was delivered in order and which ACK /
//!   NACK / CNP to send back ([`RxAction`]).
//!
//! Sequence numbers are byte offsets within the message (`0..flow_size`); a packet carries at most
//! `mtu` payload bytes. Loss recovery is go-back-N (the receiver drops out-of-order data and
//! NACKs the expected byte, as RoCE does) plus a retransmission timeout for tail loss.
//!
//! Congestion control is a [`Controller`] the sender is generic over:
//! - [`Ldcp`] — LDCP's window (draft-dai-tsvwg-ldcp-01 §2): per-ACK window adjustment (PAWA),
//!   the sub-packet regime with `cw < 1`, and zero-RTT fast start (see [`ldcp`] and
//!   `spec/ldcp.md`, which fixes every point the draft leaves open);
//! - [`LdcpRate`] — LDCP's rate-based variant for NICs without per-packet ACKs (draft §3.2):
//!   the same `cw` turned into a pacing rate `cw·MTU/RTT`, `+α` per RTT probe, `−β` per CNP;
//! - [`LineRate`] — no congestion control (line rate; relies on PFC or loses).
//!
//! [`SchemeController`] picks one of them from [`SenderConfig::scheme`]; it is the default type
//! parameter of [`QpSender`], so `QpSender::new(&cfg, size, now)` is all a NIC needs.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing on the
//! per-packet path allocates. After construction (which validates the configuration) no input
//! makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod controller;
pub mod ldcp;
pub mod rate;
pub mod receiver;
mod rtt;
pub mod sender;

pub use config::{LdcpConfig, ReceiverConfig, Scheme, SenderConfig};
pub use controller::{AckEvent, Controller, LineRate, NackEvent, SchemeController};
pub use ldcp::{FastStartExit, Ldcp, Rules, Stage};
pub use rate::LdcpRate;
pub use receiver::{AckOut, QpReceiver, ReceiverStats, RxAction};
pub use sender::{Poll, QpSender, SenderStats, TxPacket};

pub use rdma_cc_core::Ecn;
