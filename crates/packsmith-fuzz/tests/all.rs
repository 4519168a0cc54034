//! The fuzz targets in the test suite: a short run of each (a few seconds
//! in all, so CI stays fast), and the long run, one command per target:
//!
//! ```text
//! PACKSMITH_FUZZ_TARGET=cmake PACKSMITH_FUZZ_SECS=600 \
//!   cargo test -p packsmith-fuzz --test all -- --ignored long_run --nocapture
//! ```
//!
//! `PACKSMITH_FUZZ_SEED` changes the RNG seed; failing inputs are saved
//! under `target/fuzz-crashes/`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use packsmith_fuzz::{all_targets, fuzz, Options, Stats};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn crash_dir() -> PathBuf {
    root().join("target/fuzz-crashes")
}

fn report(stats: &Stats) -> String {
    let mut s = stats.summary();
    for f in &stats.failures {
        s.push_str(&format!(
            "\n  {:?}\n  input ({} bytes, saved as {:?}): {:?}",
            f.problem,
            f.input.len(),
            f.saved,
            String::from_utf8_lossy(&f.input[..f.input.len().min(400)])
        ));
    }
    s
}

/// Every target, briefly: seeds, the hostile inputs, then mutations. Run
/// one after another in one test: the panic hook and the peak-RSS probe
/// are process-wide.
#[test]
fn every_reader_survives_hostile_and_mutated_input() {
    let per_target = Duration::from_millis(250);
    let mut failed = Vec::new();
    let targets = all_targets();
    assert!(targets.len() >= 17, "{} targets", targets.len());
    for t in &targets {
        let stats = fuzz(t, &root(), &Options::short(per_target), Some(&crash_dir()));
        println!("{}", stats.summary());
        // Seeds were found in the repository, and mutation did run.
        assert!(stats.seeds > 0, "{}: no seed files found", t.name);
        assert!(stats.execs > stats.seeds as u64, "{}", stats.summary());
        if !stats.failures.is_empty() {
            failed.push(report(&stats));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The long run: `PACKSMITH_FUZZ_TARGET` (a name, or `all`) for
/// `PACKSMITH_FUZZ_SECS` seconds each, with 10 MB hostile inputs.
#[test]
#[ignore = "long run: PACKSMITH_FUZZ_TARGET=NAME PACKSMITH_FUZZ_SECS=600"]
fn long_run() {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let which = env("PACKSMITH_FUZZ_TARGET").unwrap_or_else(|| "all".into());
    let secs: u64 = env("PACKSMITH_FUZZ_SECS").map_or(600, |s| s.parse().unwrap());
    let seed: u64 = env("PACKSMITH_FUZZ_SEED").map_or(16, |s| s.parse().unwrap());
    let targets: Vec<_> = all_targets()
        .into_iter()
        .filter(|t| which == "all" || which.split(',').any(|w| w == t.name))
        .collect();
    assert!(!targets.is_empty(), "no target named {which}");
    let mut failed = Vec::new();
    for t in &targets {
        let opts = Options {
            seed,
            max_len: 1 << 20,
            adversarial_len: 10 << 20,
            ..Options::short(Duration::from_secs(secs))
        };
        let stats = fuzz(t, &root(), &opts, Some(&crash_dir()));
        println!("{} [seed {seed}]", report(&stats));
        if !stats.failures.is_empty() {
            failed.push(t.name);
        }
    }
    assert!(failed.is_empty(), "failures in {failed:?}");
}
