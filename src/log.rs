//! Bridge for logging: the rdma-cc crates' [`log`] records go to ns-3's `NS_LOG`.
//!
//! Each crate of the workspace is one ns-3 `LogComponent` ([`COMPONENTS`]), enabled like any
//! other: `NS_LOG="RdmaCcTransport=level_debug|prefix_time"` or
//! `LogComponentEnable("RdmaCcSwitch", LOG_LEVEL_DEBUG)`. A record belongs to the crate its
//! target starts with (`rdma_cc_transport::sender` → `RdmaCcTransport`; the `log` macros'
//! default target is the module path). Levels map to ns-3's: error → `LOG_ERROR`, warn →
//! `LOG_WARN`, info → `LOG_INFO`, debug → `LOG_DEBUG`, trace → `LOG_LOGIC`. The ns-3 module
//! writes each record like `NS_LOG` does, with the component's prefixes (time, node, level, and
//! the module path within the crate as the "function").
//!
//! Cost: until some rdma-cc component enables a level, [`log::max_level`] stays `Off` and every
//! `log` macro is one relaxed atomic load and a compare. Otherwise `max_level` is the most
//! verbose level any of the components enables, and a record that passes it is checked
//! against its own component's levels, kept here in atomics: only records that will be
//! printed are formatted and cross the bridge.
//!
//! The levels are copied from the ns-3 components by [`log_set_levels`], which the module
//! calls (`rdmacc::SyncLog`) wherever it builds Rust objects; see `rdma-cc-log.h`.
//!
//! Context: a record says which node and flow it belongs to. The algorithm crates know neither
//! (they are sans-IO and keep no global state), so the bridge knows them: each opaque object
//! (a flow's sender, a receiver, a switch) is built with its [`LogContext`], given by C++ as
//! plain values, and every bridge method runs the crate code [`in_context`]. The module prints
//! the context as ns-3 models print `NS_LOG_APPEND_CONTEXT`: `[node 3 flow 7] ` after the time
//! and node prefixes. While no level is enabled, `in_context` is the same relaxed load and
//! compare as a `log` macro, and stores nothing.
//!
//! cxx cannot pass a C++ function pointer to Rust, so the sink stays on the C++ side, in this
//! crate's header-only `src/log.h`: the module sets it, Rust calls `log_write`. Without the
//! module (`cargo test`) nothing sets it and records are dropped.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use log::{Level, LevelFilter, Log, Metadata, Record};

/// The log components: (crate name as it starts a `log` target, ns-3 `LogComponent` name).
/// Adding a crate to the workspace means adding its line here (a test checks that every
/// workspace crate has one).
pub const COMPONENTS: &[(&str, &str)] = &[
    ("rdma_cc", "RdmaCcBridge"),
    ("rdma_cc_core", "RdmaCcCore"),
    ("rdma_cc_switch", "RdmaCcSwitch"),
    ("rdma_cc_transport", "RdmaCcTransport"),
    ("rdma_cc_ldcp", "RdmaCcLdcp"),
    ("rdma_cc_dcqcn", "RdmaCcDcqcn"),
    ("rdma_cc_timely", "RdmaCcTimely"),
    ("rdma_cc_dctcp", "RdmaCcDctcp"),
    ("rdma_cc_hpcc", "RdmaCcHpcc"),
    ("rdma_cc_schemes", "RdmaCcSchemes"),
    ("rdma_cc_workload", "RdmaCcWorkload"),
    ("rdma_cc_rcm", "RdmaCcRcm"),
];

#[cxx::bridge(namespace = "rdmacc_ffi")]
mod ffi {
    /// Severity of a record (the `log` crate's levels).
    #[repr(u8)]
    enum LogSeverity {
        /// `log::Level::Error` (ns-3 `LOG_ERROR`).
        Error = 1,
        /// `log::Level::Warn` (ns-3 `LOG_WARN`).
        Warn = 2,
        /// `log::Level::Info` (ns-3 `LOG_INFO`).
        Info = 3,
        /// `log::Level::Debug` (ns-3 `LOG_DEBUG`).
        Debug = 4,
        /// `log::Level::Trace` (ns-3 `LOG_LOGIC`).
        Trace = 5,
    }

    /// Which severities one component has enabled in ns-3.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    struct LogComponentLevels {
        error: bool,
        warn: bool,
        info: bool,
        debug: bool,
        trace: bool,
    }

    unsafe extern "C++" {
        include!("rdma-cc/src/log.h");

        /// Writes one record through the sink the ns-3 module installed (none: dropped).
        /// `node` and `flow` are the record's context ([`LogContext`]; `u32::MAX`: none).
        fn log_write(
            component: usize,
            severity: LogSeverity,
            node: u32,
            flow: u32,
            module: &str,
            message: &str,
        );
    }

    extern "Rust" {
        /// The ns-3 names of the log components, in table order (component indices).
        fn log_component_names() -> Vec<String>;
        /// Makes this bridge the `log` crate's logger (once per process; later calls do
        /// nothing). Nothing is printed until `log_set_levels` enables a level.
        fn log_install();
        /// Copies the components' enabled levels (`levels[i]` for component `i`) and sets
        /// `log::max_level` to the most verbose of them (`Off` if none).
        fn log_set_levels(levels: &[LogComponentLevels]);
    }
}

pub use ffi::{LogComponentLevels, LogSeverity};

/// Which node and flow the records of a bridge object belong to (`NONE` for an unknown one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogContext {
    /// ns-3 node id
    pub node: u32,
    /// global flow id (as given to `RdmaNic::AddFlow`)
    pub flow: u32,
}

impl LogContext {
    /// No node or flow.
    pub const NONE: u32 = u32::MAX;
    /// Records with no context (the host's own, before any bridge object).
    pub const UNKNOWN: LogContext = LogContext {
        node: Self::NONE,
        flow: Self::NONE,
    };

    /// The context of a node's own records (a switch).
    pub const fn node(node: u32) -> Self {
        LogContext {
            node,
            flow: Self::NONE,
        }
    }

    /// The context of one flow's records at `node`.
    pub const fn flow(node: u32, flow: u32) -> Self {
        LogContext { node, flow }
    }
}

thread_local! {
    /// The context of the bridge call now running (simulations run on one thread; an MPI rank
    /// is a process).
    static CONTEXT: Cell<LogContext> = const { Cell::new(LogContext::UNKNOWN) };
}

/// Runs `f` with `ctx` as the context of the records it writes. While every level is off this
/// costs one relaxed load and a branch (as a `log` macro does) and stores nothing; `f` is
/// inlined once, on both paths.
#[inline]
pub fn in_context<R>(ctx: LogContext, f: impl FnOnce() -> R) -> R {
    let _scope = ContextScope::enter(ctx);
    f()
}

/// The outer context while a bridge call runs in its own (`None`: nothing was stored).
struct ContextScope(Option<LogContext>);

impl ContextScope {
    #[inline]
    fn enter(ctx: LogContext) -> Self {
        if log::max_level() == LevelFilter::Off {
            return ContextScope(None);
        }
        ContextScope(Some(swap_context(ctx)))
    }
}

impl Drop for ContextScope {
    #[inline]
    fn drop(&mut self) {
        if let Some(outer) = self.0 {
            swap_context(outer);
        }
    }
}

/// Makes `ctx` the current context; returns the one it replaces.
#[cold]
fn swap_context(ctx: LogContext) -> LogContext {
    CONTEXT.with(|c| c.replace(ctx))
}

/// The context of the record being written.
fn current_context() -> LogContext {
    CONTEXT.with(Cell::get)
}

/// Levels in order of verbosity; bit `level as usize` of a component's mask enables `level`.
const LEVELS: [Level; 5] = [
    Level::Error,
    Level::Warn,
    Level::Info,
    Level::Debug,
    Level::Trace,
];

#[allow(clippy::declare_interior_mutable_const)] // only used to initialise `ENABLED`
const NONE_ENABLED: AtomicU8 = AtomicU8::new(0);
/// Enabled levels (masks) per component.
static ENABLED: [AtomicU8; COMPONENTS.len()] = [NONE_ENABLED; COMPONENTS.len()];
/// This bridge is the `log` logger (`log::set_logger` succeeded).
static INSTALLED: AtomicBool = AtomicBool::new(false);
static LOGGER: Ns3Log = Ns3Log;

/// Index into [`COMPONENTS`] of the crate that `target` names (its first path segment).
pub fn component_index(target: &str) -> Option<usize> {
    let krate = target.split_once("::").map_or(target, |(k, _)| k);
    COMPONENTS.iter().position(|&(c, _)| c == krate)
}

/// The ns-3 log component of records with this target, if it names an rdma-cc crate.
pub fn component_for_target(target: &str) -> Option<&'static str> {
    component_index(target).map(|i| COMPONENTS[i].1)
}

/// What the ns-3 line shows as the function: the module path within the crate, or the crate
/// name for its root module.
fn function_name(module_path: &str) -> &str {
    module_path
        .split_once("::")
        .map_or(module_path, |(_, rest)| rest)
}

fn level_bit(level: Level) -> u8 {
    1 << (level as usize)
}

/// The mask of the levels `l` enables.
fn mask_of(l: &LogComponentLevels) -> u8 {
    let on = [l.error, l.warn, l.info, l.debug, l.trace];
    LEVELS
        .iter()
        .zip(on)
        .filter(|&(_, on)| on)
        .fold(0, |m, (&level, _)| m | level_bit(level))
}

/// The most verbose level in `mask` (`Off` for none).
fn max_filter(mask: u8) -> LevelFilter {
    LEVELS
        .iter()
        .rev()
        .find(|&&level| mask & level_bit(level) != 0)
        .map_or(LevelFilter::Off, |level| level.to_level_filter())
}

fn severity(level: Level) -> LogSeverity {
    match level {
        Level::Error => LogSeverity::Error,
        Level::Warn => LogSeverity::Warn,
        Level::Info => LogSeverity::Info,
        Level::Debug => LogSeverity::Debug,
        Level::Trace => LogSeverity::Trace,
    }
}

fn is_enabled(component: usize, level: Level) -> bool {
    ENABLED
        .get(component)
        .is_some_and(|m| m.load(Ordering::Relaxed) & level_bit(level) != 0)
}

/// The `log` logger that forwards to ns-3.
struct Ns3Log;

impl Log for Ns3Log {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        component_index(metadata.target()).is_some_and(|i| is_enabled(i, metadata.level()))
    }

    fn log(&self, record: &Record<'_>) {
        let Some(i) = component_index(record.target()) else {
            return;
        };
        if !is_enabled(i, record.level()) {
            return;
        }
        let module = function_name(record.module_path().unwrap_or(record.target()));
        let sev = severity(record.level());
        let ctx = current_context();
        match record.args().as_str() {
            Some(text) => ffi::log_write(i, sev, ctx.node, ctx.flow, module, text),
            None => ffi::log_write(
                i,
                sev,
                ctx.node,
                ctx.flow,
                module,
                &record.args().to_string(),
            ),
        }
    }

    fn flush(&self) {}
}

fn log_component_names() -> Vec<String> {
    COMPONENTS
        .iter()
        .map(|&(_, name)| name.to_string())
        .collect()
}

fn log_install() {
    if log::set_logger(&LOGGER).is_ok() {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

fn log_set_levels(levels: &[LogComponentLevels]) {
    let mut most = LevelFilter::Off;
    for (i, slot) in ENABLED.iter().enumerate() {
        let mask = levels.get(i).map_or(0, mask_of);
        slot.store(mask, Ordering::Relaxed);
        most = most.max(max_filter(mask));
    }
    if INSTALLED.load(Ordering::Relaxed) {
        log::set_max_level(most);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::path::Path;

    #[test]
    fn target_maps_to_the_component_of_its_crate() {
        for (target, component) in [
            ("rdma_cc_transport::sender", Some("RdmaCcTransport")),
            ("rdma_cc_switch::mmu", Some("RdmaCcSwitch")),
            ("rdma_cc_ldcp::ldcp", Some("RdmaCcLdcp")),
            ("rdma_cc_ldcp", Some("RdmaCcLdcp")),
            ("rdma_cc_dcqcn::dcqcn", Some("RdmaCcDcqcn")),
            ("rdma_cc_core::units", Some("RdmaCcCore")),
            ("rdma_cc_schemes", Some("RdmaCcSchemes")),
            ("rdma_cc_workload::topology", Some("RdmaCcWorkload")),
            ("rdma_cc_rcm::rcc", Some("RdmaCcRcm")),
            ("rdma_cc::transport", Some("RdmaCcBridge")),
            ("rdma_cc", Some("RdmaCcBridge")),
            // a crate name is matched whole, never as a prefix
            ("rdma_cc_switchx::mmu", None),
            ("rdma", None),
            ("serde::de", None),
            ("", None),
        ] {
            assert_eq!(component_for_target(target), component, "{target}");
        }
    }

    #[test]
    fn every_workspace_crate_has_a_uniquely_named_component() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let members = manifest
            .lines()
            .find_map(|l| l.trim().strip_prefix("members = ["))
            .expect("workspace members");
        let mut crates = Vec::new();
        for member in members.split('"').skip(1).step_by(2) {
            let toml = std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap();
            let name = toml
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|n| n.strip_suffix('"'))
                .expect("package name");
            crates.push(name.replace('-', "_"));
        }
        assert_eq!(crates.len(), COMPONENTS.len(), "{crates:?}");
        for c in &crates {
            assert!(
                component_index(c).is_some(),
                "crate {c} has no log component"
            );
        }
        let names: HashSet<_> = COMPONENTS.iter().map(|&(_, n)| n).collect();
        assert_eq!(names.len(), COMPONENTS.len());
        assert!(names.iter().all(|n| n.starts_with("RdmaCc")));
        assert_eq!(log_component_names()[3], "RdmaCcTransport");
    }

    #[test]
    fn ns3_level_sets_map_to_masks_and_the_max_level() {
        let none = LogComponentLevels::default();
        assert_eq!(mask_of(&none), 0);
        assert_eq!(max_filter(0), LevelFilter::Off);
        // ns-3 level_debug = error | warn | debug (LOG_INFO is above LOG_DEBUG in ns-3)
        let level_debug = LogComponentLevels {
            error: true,
            warn: true,
            debug: true,
            ..none
        };
        let m = mask_of(&level_debug);
        assert_eq!(max_filter(m), LevelFilter::Debug);
        assert_ne!(m & level_bit(Level::Debug), 0);
        assert_eq!(m & level_bit(Level::Info), 0);
        assert_eq!(m & level_bit(Level::Trace), 0);
        // LOG_LOGIC alone (ns-3 "logic") = trace
        let logic = LogComponentLevels {
            trace: true,
            ..none
        };
        assert_eq!(max_filter(mask_of(&logic)), LevelFilter::Trace);
        let error = LogComponentLevels {
            error: true,
            ..none
        };
        assert_eq!(max_filter(mask_of(&error)), LevelFilter::Error);
    }

    /// The only test that installs the logger or sets levels (they are process-wide).
    #[test]
    fn max_level_is_off_unless_a_component_enables_a_level() {
        log_install();
        let none = LogComponentLevels::default();
        log_set_levels(&[none; COMPONENTS.len()]);
        assert_eq!(log::max_level(), LevelFilter::Off);
        let mut levels = [none; COMPONENTS.len()];
        levels[component_index("rdma_cc_transport").unwrap()] = LogComponentLevels {
            error: true,
            warn: true,
            debug: true,
            ..none
        };
        log_set_levels(&levels);
        assert_eq!(log::max_level(), LevelFilter::Debug);
        let enabled = |target: &str, level| {
            log::logger().enabled(&Metadata::builder().target(target).level(level).build())
        };
        assert!(enabled("rdma_cc_transport::sender", Level::Debug));
        assert!(!enabled("rdma_cc_transport::sender", Level::Info));
        assert!(!enabled("rdma_cc_transport::sender", Level::Trace));
        assert!(!enabled("rdma_cc_switch::mmu", Level::Debug));
        assert!(!enabled("other_crate", Level::Error));
        // with a level on, in_context sets the context and restores the outer one
        let (outer, inner) = (LogContext::node(4), LogContext::flow(2, 9));
        in_context(outer, || {
            assert_eq!(current_context(), outer);
            in_context(inner, || assert_eq!(current_context(), inner));
            assert_eq!(current_context(), outer);
        });
        assert_eq!(current_context(), LogContext::UNKNOWN);
        log_set_levels(&[]);
        assert_eq!(log::max_level(), LevelFilter::Off);
        assert!(!enabled("rdma_cc_transport::sender", Level::Debug));
        // with every level off it stores nothing
        in_context(inner, || assert_eq!(current_context(), LogContext::UNKNOWN));
    }

    #[test]
    fn function_is_the_module_path_within_the_crate() {
        assert_eq!(function_name("rdma_cc_transport::sender"), "sender");
        assert_eq!(function_name("rdma_cc_switch::mmu::tests"), "mmu::tests");
        assert_eq!(function_name("rdma_cc_ldcp"), "rdma_cc_ldcp");
    }

    #[test]
    fn severities_cross_in_log_level_order() {
        for level in LEVELS {
            assert_eq!(severity(level).repr as usize, level as usize);
        }
    }
}
