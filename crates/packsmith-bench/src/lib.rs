//! Benchmark runs of packsmith: task sets (JSON Lines), configurations (a
//! TOML matrix with built-in baselines), a resumable append-only journal,
//! a local worker pool and a Slurm job-array executor, and reports with
//! tables, paired comparisons and plots.
//!
//! Each (task, configuration) pair runs as a subprocess of the `packsmith`
//! binary (`packsmith spack|nix|repair … --out <pair dir>`), so a crash, a hang or
//! a leak in one pair cannot touch another or the harness.

pub mod config;
pub mod error;
pub mod fetch;
pub mod journal;
pub mod local;
pub mod pair;
pub mod plan;
pub mod repair;
pub mod report;
pub mod rescore;
pub mod run;
pub mod score;
pub mod slurm;
pub mod sources;
pub mod status;
pub mod task;

pub use error::{BenchError, ErrorKind, Result};
