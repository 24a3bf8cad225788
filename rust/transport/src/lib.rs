//! Sans-IO RoCE-like queue-pair (QP) transport for the host NIC.
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
//! NACKs the expected byte, as RoCE does) plus a retransmission timeout for tail loss; the
//! smoothed RTT follows RFC 6298.
//!
//! Congestion control is a [`Controller`] the sender is generic over (`QpSender<C>`): this
//! crate defines the role and its events ([`AckEvent`], [`NackEvent`]) and only the controller
//! without congestion control, [`LineRate`]. The algorithms live in their own crates and depend
//! on this one, never the other way round: LDCP (window and rate-based) in `rdma-cc-ldcp`; the
//! runtime choice of a controller per flow in `rdma-cc-schemes`.
//!
//! Nothing here reads a clock, spawns a thread or draws random numbers, and nothing on the
//! per-packet path allocates. After construction (which validates the configuration) no input
//! makes these types panic.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod config;
pub mod controller;
pub mod receiver;
mod rtt;
pub mod sender;

pub use config::{Path, ReceiverConfig, SenderConfig, LOSSLESS_RTO_FLOOR};
pub use controller::{AckEvent, Controller, LineRate, NackEvent, RttSource, SeqTrack};
pub use receiver::{AckOut, QpReceiver, ReceiverStats, RxAction};
pub use sender::{source_port, Poll, QpSender, SenderStats, TxPacket, PROBE_ECN};

pub use rdma_cc_core::{Ecn, HopRecord, IntRecords};
