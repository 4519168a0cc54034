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

pub mod harness;
pub mod mutate;
pub mod probe;
pub mod rng;
pub mod seeds;
pub mod targets;
pub mod watchdog;

pub use harness::{fuzz, Failure, Options, Problem, Scratch, Stats, Target};
pub use targets::all_targets;
