//! Benchmark runs of packsmith: task sets (JSON Lines), configurations (a
//! TOML matrix with built-in baselines), a resumable append-only journal,
//! a local worker pool and a Slurm job-array executor, and reports with
//! tables, paired comparisons and plots.
//!
//! Each (task, configuration) pair runs as a subprocess of the `packsmith`
//! binary (`packsmith spack|nix|repair … --out <pair dir>`), so a crash, a hang or
//! a leak in one pair cannot touch another or the harness.
//!
//! `bench run` checks every input before anything runs, writes `plan.json`
//! and the journal header (the configuration's fingerprint), and hands the
//! pairs the journal lacks to an executor. The harness reads each pair's
//! `report.json` (`packsmith_agent::RunReport`) into one journal record.
//! Reports are made from journals alone. Figures live in `BENCHMARKS.md`.
//!
//! Modules:
//! - `task`: task sets in JSON Lines, told apart by their keys,
//!   `deny_unknown_fields`, duplicate ids refused; `repair` the repair tasks
//!   (a broken recipe and its original, paths relative to the task file).
//! - `sources` and `fetch`: task → local checkout, from a TOML map; `fetch`
//!   clones and writes the map.
//! - `config`: the built-in baselines (`BASELINES`, `baseline()` → `Knobs`),
//!   `[[configuration]]` entries over a baseline, a `[matrix]` cross product,
//!   run-wide settings; resolved and fingerprinted.
//! - `plan`: pairs with stable indices in `plan.json`.
//! - `journal`: append-only JSON Lines; one `write` under `flock` plus
//!   `fsync` per record, after the pair finished; torn lines are skipped. A
//!   killed run loses at most the pairs in flight, which run again.
//! - `pair`: a pair's command line from its knobs (`run_pair`), in its own
//!   process group; the timeout kills the group, and what a killed runner
//!   left is killed before a pair runs again.
//! - `run`, `local` (worker threads, progress with ETA), `slurm` (`sbatch`
//!   job arrays running `bench run-one`), `status`.
//! - `score`: S_d, S_v and fidelity in process, through the knowledge
//!   crate's `ScoreRecipe::from_recipe`; Nix pairs against nixpkgs' own
//!   expression.
//! - `rescore`: every finished pair scored again from its kept run
//!   directory after a scorer change; outcomes stay.
//! - `report/`: per-configuration statistics, paired comparisons with
//!   McNemar's exact test, fidelity tables, Markdown and JSON, and plots
//!   (PNG and SVG) with a font the crate ships.

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
