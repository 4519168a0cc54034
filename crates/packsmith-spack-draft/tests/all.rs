//! One integration-test binary for packsmith-spack-draft (each module
//! below links tree-sitter and SQLite through the knowledge crate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod brief_example;
mod draft;
mod draft_autotools;
mod draft_conventions;
mod draft_downloads;
mod draft_license;
mod query;
// Real Spack, as the knowledge crate's tests run it.
#[path = "../../packsmith-spack-knowledge/tests/real_spack.rs"]
mod real_spack;
mod update;
