//! One integration-test binary for packsmith-spack-knowledge: each module below was its own
//! test binary, each linking tree-sitter and SQLite again (slow on 2 cores).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod brief_example;
mod check_fixtures;
mod check_real_spack;
mod draft;
mod draft_autotools;
mod draft_conventions;
mod draft_downloads;
mod draft_license;
mod embed_kb;
mod kb_index;
mod recipe_api;
mod recipe_snapshots;
mod score_fidelity;
mod score_spackit;
mod spec_real_repos;
mod spec_roundtrip;
mod update;
