//! The hermeticity check, a validation stage after a successful install:
//! what did the build take from the host instead of the concretized DAG?
//!
//! Spack's build environment does not hide `/usr`, so an optional
//! `find_package(ZLIB)` succeeds against the host's copy when the recipe
//! declares no dependency: the install passes and the recipe is wrong.
//! The evidence is read from the install itself: the configure output
//! and `CMakeCache.txt` Spack keeps under `<prefix>/.spack/`
//! (`logs.rs`), Autotools' probes (`probes.rs`) and the compiler commands
//! the build printed (`commands.rs`) in the same log, and the `DT_NEEDED` entries of the installed ELF files
//! resolved through their RPATH/RUNPATH and the system's default
//! directories (`elf.rs`, `resolve.rs`). A host path is fine when it
//! belongs to the compiler or the C library, or to a package of the DAG
//! (a declared external at `/usr`, `dag.rs`); anything else is a finding,
//! mapped to the Spack package that would provide it (`judge.rs`). A
//! library an accepted external needs itself (`libevent` of Open MPI) is
//! the external's, not a finding (`transitive.rs`). What only unshipped
//! parts used (a tool never run, examples built against the host's
//! Eigen) is no finding either (`shipped.rs`).
//! `stage.rs` runs it all on the prefix the install stage reported.

mod commands;
mod dag;
mod elf;
mod judge;
mod logs;
mod probes;
mod resolve;
mod shipped;
mod stage;
mod transitive;

use std::path::PathBuf;

use packsmith_spack_knowledge::mapping::NameSource;
use serde::{Deserialize, Serialize};

pub use commands::compiler_commands;
pub use dag::Dag;
pub use elf::{parse_dynamic, read_dynamic, DynamicInfo};
pub use judge::judge;
pub use logs::{cmake_cache, configure_output, meson_output};
pub use probes::autotools_probes;
pub use resolve::{elf_observations, resolve_needed, DEFAULT_LIBRARY_DIRS};
pub use stage::{check_prefix, installed_prefix, render_log, run_hermeticity};
pub use transitive::{judge_with_closure, HostLibraries, LibraryGraph};

/// Where a piece of evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceSource {
    /// A `-- Found X: /path` line of the configure output.
    ConfigureOutput,
    /// A path-valued `CMakeCache.txt` entry.
    CmakeCache,
    /// A `DT_NEEDED` entry of an installed file, resolved.
    Elf,
    /// An Autotools `checking …` line that found a library or header.
    ConfigureProbe,
    /// A compiler command the build printed (`-I/usr/include/eigen3`).
    BuildCommand,
}

/// One line of evidence: the file it is in (relative to the prefix) and
/// the entry as written there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Evidence {
    pub source: EvidenceSource,
    pub file: String,
    pub entry: String,
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.entry)
    }
}

/// A path the build used, before it is judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The name the build looked it up by, when a log says (`ZLIB`).
    pub upstream: Option<String>,
    /// How `upstream` was looked up.
    pub lookup: NameSource,
    /// The host path; empty when the log names only what was found
    /// (Meson's `Run-time dependency zlib found: YES`): pkg-config looks
    /// in the DAG's prefixes and then the host's, so what the DAG does
    /// not hold came from the host.
    pub path: String,
    pub evidence: Evidence,
}

/// Something the build took from outside the DAG: one per Spack package
/// (or per path, when no package is known), with all its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndeclaredDependency {
    /// The Spack package or virtual that provides it (`zlib-api`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The names the build files use for it (`ZLIB`), as the logs spell
    /// them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub upstream: Vec<String>,
    /// The host paths taken.
    pub paths: Vec<String>,
    pub evidence: Vec<Evidence>,
}

impl UndeclaredDependency {
    /// `zlib-api (ZLIB): /usr/lib/x86_64-linux-gnu/libz.so`.
    pub fn headline(&self) -> String {
        let name = self.package.as_deref().unwrap_or("an unknown package");
        let paths = if self.paths.is_empty() {
            "found by name".to_string()
        } else {
            self.paths.join(", ")
        };
        let upstream = if self.upstream.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.upstream.join(", "))
        };
        format!("{name}{upstream}: {paths}")
    }
}

/// What the check read and found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HermeticityReport {
    /// The installed prefix that was checked.
    pub prefix: PathBuf,
    /// The DAG's package names.
    pub dag: Vec<String>,
    /// The records read, relative to the prefix.
    pub read: Vec<String>,
    /// How many installed ELF files were read.
    pub elf_files: usize,
    pub findings: Vec<UndeclaredDependency>,
    /// What could not be read, and why (the check still ran); and each
    /// host library left out as an external's own (`transitive.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Why the check could not run at all (no prefix, no `spec.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl HermeticityReport {
    pub fn passed(&self) -> bool {
        self.findings.is_empty() && self.error.is_none()
    }
}
