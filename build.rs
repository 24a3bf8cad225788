//! Generates the C++ side of the cxx bridge and compiles it into the static library.
//!
//! The generated headers (and cxx's `rust/cxx.h`) are also copied to
//! `<target>/<profile>/cxxbridge/include/`, a path that does not depend on cargo's build hash,
//! so the ns-3 module's build (wscript) can find them.

use std::fs;
use std::path::{Path, PathBuf};

const BRIDGES: &[&str] = &[
    "src/log.rs",
    "src/params.rs",
    "src/scenario.rs",
    "src/sched.rs",
    "src/switch.rs",
    "src/transport.rs",
    "src/wire.rs",
    "src/workload.rs",
];
/// Hand-written headers the bridges include (`include!("rdma-cc/src/...")`); copied next to
/// the generated ones so the ns-3 module compiles against the same files.
const HEADERS: &[&str] = &["src/log.h"];

fn main() {
    let std = std::env::var("RDMACC_CXX_STD").unwrap_or_else(|_| "c++17".to_string());
    cxx_build::bridges(BRIDGES)
        .std(&std)
        .flag_if_supported("-fPIC")
        .compile("rdma-cc-bridge");
    for b in BRIDGES.iter().chain(HEADERS) {
        println!("cargo:rerun-if-changed={b}");
    }
    println!("cargo:rerun-if-env-changed=RDMACC_CXX_STD");

    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let include = out.join("cxxbridge").join("include");
    // OUT_DIR = <target>/<profile>/build/<pkg>-<hash>/out
    if let Some(profile_dir) = out.ancestors().nth(3) {
        let dest = profile_dir.join("cxxbridge").join("include");
        copy_headers(&include, &dest);
        for h in HEADERS {
            copy_if_changed(Path::new(h), &dest.join("rdma-cc").join(h));
        }
    }
}

/// Copies every header below `from` to the same relative path below `to`, rewriting a file
/// only when its content changed (so C++ dependants are not rebuilt needlessly).
fn copy_headers(from: &Path, to: &Path) {
    let Ok(entries) = fs::read_dir(from) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let target = to.join(e.file_name());
        if p.is_dir() {
            copy_headers(&p, &target);
        } else if p.extension().is_some_and(|x| x == "h") {
            copy_if_changed(&p, &target);
        }
    }
}

/// Copies `from` to `to` unless `to` already has the same content.
fn copy_if_changed(from: &Path, to: &Path) {
    let content = fs::read(from).expect("read header");
    if fs::read(to).ok().as_deref() != Some(&content[..]) {
        if let Some(dir) = to.parent() {
            fs::create_dir_all(dir).expect("create cxxbridge include dir");
        }
        fs::write(to, content).expect("write cxxbridge header");
    }
}
