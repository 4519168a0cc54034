//! The `packsmith` binary as a user runs it, in one test binary: each
//! module below was its own test executable, each linked again (slow on 2
//! cores). The embedded-model tests are the other binary, `local_model`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod bench_cli;
mod bench_kill_soak;
mod bench_repair;
mod bench_slurm;
mod cli;
mod kb_embed_cli;
mod model_cli;
mod model_faults;
mod nix_cli;
mod spack_cli;
mod spack_cmd;
mod spack_download;
mod update_cli;
