//! Fuzzing on stable Rust of every reader of untrusted input (issue 16).
//!
//! libFuzzer and cargo-fuzz need a nightly toolchain; this project builds
//! on stable only. So the engine is our own and structure-aware: each
//! [`Target`] starts from the repository's real test files ([`seeds`]),
//! runs a fixed set of hostile inputs (deep nesting, 10 MB lines, NUL
//! bytes, invalid UTF-8, include cycles), then mutates seeds with a seeded
//! RNG ([`mutate`]) until its time is up. Every input is checked for a
//! panic, for time bounded by its size and for memory bounded by its size
//! ([`harness`]); a [`watchdog`] aborts on a hang, saving the input. An input that changes what the reader reports joins the
//! corpus: output-guided, the cheap stand-in for coverage on stable.
//!
//! Dev-only (`publish = false`): nothing in the product depends on it.
//!
//! Modules:
//! - `rng`: seeded SplitMix64, so a run is reproducible.
//! - `mutate`: byte flips, splices between seeds, the target's keywords,
//!   duplicated tokens, deep nesting, long lines, NUL bytes, invalid UTF-8.
//! - `seeds`: the repository's own test files, read at run time.
//! - `probe`: peak RSS per input (VmHWM, reset through
//!   `/proc/self/clear_refs`).
//! - `harness`: hostile inputs first, then mutations; each input under
//!   `catch_unwind`; panicking inputs are shrunk and failing ones saved.
//! - `watchdog`: a thread that saves an input running far over its limit
//!   and aborts, so a hang cannot stall the suite.
//! - `targets/`: one target per reader (`all_targets`): the analysis
//!   readers through `analyze_dir` on a scratch tree, `package.py` and the
//!   static check, specs, model-output cleaners, Nix edits, logs and the
//!   fidelity reader, bench tasks and configurations, `packsmith.toml`.
//!
//! A crash found becomes a unit test beside the reader.

pub mod harness;
pub mod mutate;
pub mod probe;
pub mod rng;
pub mod seeds;
pub mod targets;
pub mod watchdog;

pub use harness::{fuzz, Failure, Options, Problem, Scratch, Stats, Target};
pub use targets::all_targets;
