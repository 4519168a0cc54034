//! A finished Nix run as the caller gets it: the report as written, the
//! run directory, `nix-result.json`'s data, and how the run ended.

use std::path::{Path, PathBuf};

use packsmith_agent::{RunError, RunReport, RunStatus};

use crate::ecosystem::checks::NO_NIXPKGS;
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

/// How a finished run ended; a recipe that was only parsed is an error
/// (as for a Nix or nixpkgs that cannot be used: nothing says the recipe
/// is wrong) unless `--allow-unbuilt` accepts it.
pub(super) fn outcome(
    report: &RunReport,
    run_dir: &Path,
    allow_unbuilt: bool,
    environment: bool,
) -> Outcome {
    match report.status {
        RunStatus::Succeeded => Outcome::Succeeded,
        RunStatus::NotBuilt if allow_unbuilt => Outcome::Succeeded,
        RunStatus::NotBuilt => Outcome::NotBuilt(not_built_error(run_dir)),
        RunStatus::Interrupted => Outcome::Interrupted,
        _ if environment => Outcome::Unusable,
        _ => Outcome::Failed,
    }
}

fn not_built_error(run_dir: &Path) -> RunError {
    RunError::environment(format!(
        "{} was parsed but not built: {NO_NIXPKGS}",
        run_dir.join("package.nix").display()
    ))
    .hint(
        "pass --nixpkgs with a nixpkgs checkout or commit (or put nixpkgs in NIX_PATH) to \
         build it, or --allow-unbuilt to accept a recipe that was only parsed",
    )
}
