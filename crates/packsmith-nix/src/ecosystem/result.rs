//! `nix-result.json`: what was checked and how it came out, with build
//! success and runtime-checked success reported separately, and what could
//! not be checked here and why.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::analysis::FailureAnalysis;
use super::draft::HashStatus;
use super::runtime::RuntimeCheck;

pub const RESULT_FILE: &str = "nix-result.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckState {
    Passed,
    Failed,
    NotChecked,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub state: CheckState,
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NixResult {
    pub schema: u32,
    /// The nixpkgs built against, or None.
    pub nixpkgs: Option<String>,
    /// `nix-instantiate --parse` of the final (or best) recipe.
    pub parse: Check,
    /// evaluate + build in Nix's sandbox.
    pub build: Check,
    /// The main program run under bubblewrap over its closure.
    pub runtime: Check,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_check: Option<RuntimeCheck>,
    /// The template the draft started from (`cmake`, `python-package`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builder: Option<String>,
    /// `facts`, `model` or `fallback`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builder_chosen_by: Option<String>,
    /// The model's summary of the project, carried in every prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_summary: Option<String>,
    /// How the draft's source hash was found.
    pub source_hash: Option<HashStatus>,
    /// Hashes filled in from Nix's mismatch messages.
    pub hash_fixes: Vec<String>,
    /// The recipe, relative to the run directory.
    pub recipe: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_analysis: Option<FailureAnalysis>,
    /// What could not be checked here, and why.
    pub not_checked: Vec<String>,
}

/// Writes `nix-result.json` into the run directory (atomically).
pub fn write(run_dir: &Path, result: &NixResult) -> Result<(), String> {
    let json = serde_json::to_string_pretty(result).map_err(|e| e.to_string())?;
    let path = run_dir.join(RESULT_FILE);
    packsmith_exec::atomic_write(&path, json.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
