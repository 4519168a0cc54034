//! One integration-test binary for packsmith-spack-knowledge: each module below was its own
//! test binary, each linking tree-sitter and SQLite again (slow on 2 cores).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod check_fixtures;
mod check_real_spack;
mod embed_kb;
mod kb_index;
mod real_spack;
mod recipe_api;
mod recipe_snapshots;
mod score_fidelity;
mod score_spackit;
mod spec_real_repos;
mod spec_roundtrip;
