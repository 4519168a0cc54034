//! Facts read from Cargo, Go module and npm manifests.

use super::Evidence;
use serde::{Deserialize, Serialize};

/// A dependency of a language package manager.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestDependency {
    pub name: String,
    /// Version requirement as written.
    pub requirement: String,
    /// `normal`, `dev`, `build`, `optional`, `peer`, `indirect`, `workspace`.
    pub kind: String,
    /// Platform condition (`cfg(unix)` for Cargo target tables), if any.
    pub condition: Option<String>,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CargoFacts {
    pub files: Vec<String>,
    pub name: Option<String>,
    pub name_evidence: Option<Evidence>,
    pub version: Option<String>,
    pub is_workspace: bool,
    pub workspace_members: Vec<String>,
    pub dependencies: Vec<ManifestDependency>,
    pub features: Vec<String>,
    pub default_features: Vec<String>,
    pub binaries: Vec<String>,
    pub has_library: bool,
    pub has_lockfile: bool,
    /// Names of every package Cargo.lock pins (sorted, each once): the
    /// `-sys` crates that link system libraries are usually transitive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locked_packages: Vec<String>,
    /// The directory holding the Cargo.toml read, when it is not the top
    /// level (`src-tauri` of a Tauri app): nixpkgs' `cargoRoot`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<String>,
    pub license: Option<String>,
    pub homepage: Option<String>,
    pub description: Option<String>,
    pub rust_version: Option<String>,
    pub edition: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoFacts {
    pub file: String,
    pub module: Option<String>,
    pub module_evidence: Option<Evidence>,
    pub go_version: Option<String>,
    /// `toolchain go1.22.1` line, if any.
    pub toolchain: Option<String>,
    /// `replace` directives as written (`old => new v1`).
    pub replaces: Vec<String>,
    pub dependencies: Vec<ManifestDependency>,
    /// `package main` directories (relative), i.e. binaries.
    pub binaries: Vec<String>,
    pub has_vendor_dir: bool,
    pub has_sum: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NpmFacts {
    pub file: String,
    pub name: Option<String>,
    pub name_evidence: Option<Evidence>,
    pub version: Option<String>,
    pub dependencies: Vec<ManifestDependency>,
    pub binaries: Vec<String>,
    pub scripts: Vec<String>,
    /// package-lock.json, yarn.lock, pnpm-lock.yaml present.
    pub lockfile: Option<String>,
    pub license: Option<String>,
    pub homepage: Option<String>,
    pub description: Option<String>,
    /// `engines.node` requirement, if any.
    pub node_engine: Option<String>,
    /// `workspaces` globs, if a monorepo.
    pub workspaces: Vec<String>,
}
