//! Workload and topology files of datacenter congestion-control studies, parsed and checked.
//!
//! - [`Topology`]: the HPCC simulator's topology file (Li et al., "HPCC: High Precision
//!   Congestion Control", SIGCOMM 2019; its public simulator reads the same format): node,
//!   switch and link counts, the switch ids, then one link a line with its rate, delay and
//!   error rate. Checked whole: counts, ids, one link per host, no duplicate or self links, a
//!   connected graph.
//! - [`parse_flows`] ([`Topology::parse_flows`]): the HPCC flow file — a count, then one flow a
//!   line (`src dst priority dport bytes start_seconds`) between hosts of a topology.
//! - [`Cdf`]: a flow-size distribution (`size_bytes cdf_percent` a line, as the HPCC
//!   simulator's traffic generator reads them) and its inverse-transform sampler.
//! - [`GeneratorConfig`]: Poisson flow arrivals per host whose payload is a fraction of the
//!   host's link rate, sizes from a [`Cdf`], destinations by [`Pattern`] (uniform, group,
//!   hotspot, incast), from its own seeded [`Rng`] (xoshiro256**).
//! - [`FatTreeSpec`]: the k-ary fat tree as a [`Topology`], with a rate and delay per tier.
//! - [`slowdown_buckets`]: FCT slowdown percentiles per flow-size bucket ([`SIZE_BUCKETS`]).
//! - [`RunLoad`]: whether a run limited in simulated time can carry its flows.
//!
//! Sans-IO: every parser takes the file's name (for messages only) and its text; nothing here
//! opens a file. Every error is a [`ParseError`] naming the file, the line, the field, the
//! value and the rule (`fat-tree.txt:17: invalid rate = 100Gbs: must be ...`). Parsing never
//! panics, whatever the text.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod buckets;
mod cdf;
mod error;
mod fat_tree;
mod flows;
mod generator;
mod limit;
mod rng;
mod text;
mod topology;

pub use buckets::{
    histogram_floor_rank, nearest_rank, size_class, slowdown_buckets, BucketStats, Summary,
    SIZE_BUCKETS, SIZE_CLASSES,
};
pub use cdf::{Cdf, MAX_FLOW_BYTES};
pub use error::{ParseError, WorkloadError};
pub use fat_tree::FatTreeSpec;
pub use flows::{parse_flows, parse_flows_on, Flow};
pub use generator::{
    churn_arrivals_check, churn_flows_check, flow_budget, GeneratedFlow, GeneratorConfig, Pattern,
    PatternSettings, Workload, FLOW_MEMORY_BYTES, MAX_EXPECTED_FLOWS,
};
pub use limit::RunLoad;
pub use rng::Rng;
pub use text::{decode_text, parse_data_rate, parse_delay, shown_path, TextInput, MAX_TEXT_BYTES};
pub use topology::{Link, Topology, MAX_NODES};
