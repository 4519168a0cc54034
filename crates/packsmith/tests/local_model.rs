//! End-to-end runs with the embedded model (Qwen2.5-Coder or SmolLM2 from
//! the cache). Their own binary: each holds both cores for minutes, and the
//! timing-sensitive CLI tests (Ctrl-C, timeouts) must not run beside them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod jobs_local_model;
mod nix_local_model;
mod spack_local_model;
