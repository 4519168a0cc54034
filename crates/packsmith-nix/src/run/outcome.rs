//! A finished Nix run as the caller gets it: the report as written, the
//! run directory, `nix-result.json`'s data, and how the run ended.

use std::path::PathBuf;

use packsmith_agent::{RunError, RunReport};

use crate::ecosystem::result::NixResult;

/// How a run ended, for the caller's exit code.
#[derive(Debug)]
pub enum Outcome {
    /// The recipe built and passed its checks, or it was only parsed and
    /// the request allowed that (`allow_unbuilt`).
    Succeeded,
    /// The recipe ran and failed.
    Failed,
    /// The recipe was only parsed (no nixpkgs), and the request did not
    /// allow that: the error says so and what to do (an environment error:
    /// nothing says the recipe is wrong).
    NotBuilt(RunError),
    /// Nix or nixpkgs could not be used: not the recipe's fault.
    Unusable,
    /// Ctrl-C stopped the loop.
    Interrupted,
}

/// A finished run: see the module docs.
#[derive(Debug)]
pub struct NixRun {
    /// The report as written to `report.json` the last time.
    pub report: RunReport,
    /// `<out>/<name>/`.
    pub run_dir: PathBuf,
    /// What `nix-result.json` holds.
    pub result: NixResult,
    pub outcome: Outcome,
}
