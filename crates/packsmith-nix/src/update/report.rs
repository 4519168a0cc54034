//! `report.json` and `report.md` of a Nix update: the input changes with
//! their build-file lines, the edits, where the hash came from, the
//! expression's diff and each validation step.

use std::path::{Path, PathBuf};

use packsmith_agent::RunError;
use packsmith_exec::atomic_write;
use serde::{Deserialize, Serialize};

use super::edits::NixEdit;
use super::inputs::{InputChange, InputChangeKind};
use super::source_hash::{HashFrom, NewHash};
use crate::runner::StepResult;

/// What the update's validation came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NixValidation {
    /// Evaluated and built against the nixpkgs given.
    Built,
    /// Parsing, evaluation or the build failed.
    Failed,
    /// Parsed only: no nixpkgs to build against.
    NotBuilt,
}

impl NixValidation {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Built => "built",
            Self::Failed => "FAILED",
            Self::NotBuilt => "parsed, not built",
        }
    }
}

/// One validation step as the report keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepSummary {
    pub step: String,
    pub passed: bool,
    /// The parser's message, or the failure's class and excerpt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The step's log, relative to the run directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

impl StepSummary {
    pub fn of(r: &StepResult, run_dir: &Path) -> Self {
        Self {
            step: step_name(r.step).to_string(),
            passed: r.success,
            detail: r
                .diagnosis
                .as_ref()
                .map(|d| format!("{:?}: {}", d.kind(), d.excerpt.lines().next().unwrap_or(""))),
            log: r
                .log_path
                .as_ref()
                .map(|p| p.strip_prefix(run_dir).unwrap_or(p).display().to_string()),
        }
    }
}

/// Everything the update did, as `report.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NixUpdateReport {
    pub package: String,
    pub recipe: PathBuf,
    pub old_version: String,
    pub new_version: String,
    pub old_source: String,
    pub new_source: String,
    pub input_changes: Vec<InputChange>,
    pub edits: Vec<NixEdit>,
    pub notes: Vec<String>,
    pub hash: NewHash,
    /// Unified diff of the expression, old to new.
    pub recipe_diff: String,
    pub validation: NixValidation,
    pub steps: Vec<StepSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_validated_reason: Option<String>,
    pub output: PathBuf,
    pub in_place: bool,
}

/// The step as the report and the progress lines name it.
pub(crate) fn step_name(step: crate::diagnose::Step) -> &'static str {
    match step {
        crate::diagnose::Step::Evaluate => "evaluate",
        crate::diagnose::Step::Build => "build",
    }
}

/// Writes `report.json` and `report.md` into `dir`.
pub fn write_report(dir: &Path, report: &NixUpdateReport) -> Result<(), RunError> {
    let json = serde_json::to_string_pretty(report)
        .map_err(|e| RunError::environment(format!("cannot serialize the report: {e}")))?;
    for (name, text) in [("report.json", json), ("report.md", markdown(report))] {
        let path = dir.join(name);
        atomic_write(&path, text.as_bytes())
            .map_err(|e| RunError::environment(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

fn markdown(r: &NixUpdateReport) -> String {
    let mut md = format!(
        "# {}: {} → {}\n\nOld source: {}\nNew source: {}\n\n## Inputs that changed\n\n",
        r.package, r.old_version, r.new_version, r.old_source, r.new_source
    );
    if r.input_changes.is_empty() {
        md.push_str("None: both versions ask for the same inputs.\n");
    } else {
        md.push_str("| input | change | role | where |\n| --- | --- | --- | --- |\n");
        for c in &r.input_changes {
            let kind = match c.change {
                InputChangeKind::Added => "added",
                InputChangeKind::Dropped => "dropped",
            };
            let at = c
                .evidence
                .as_ref()
                .map_or("—".to_string(), |e| format!("{}:{}", e.file, e.line));
            md.push_str(&format!(
                "| `{}` | {kind} | {} | {at} |\n",
                c.attr,
                c.role.lists()[0]
            ));
        }
    }
    md.push_str("\n## Edits\n\n");
    for e in &r.edits {
        md.push_str(&format!("- {}\n", e.why));
    }
    for n in &r.notes {
        md.push_str(&format!("- note: {n}\n"));
    }
    let from = match &r.hash.from {
        HashFrom::GivenArchive { path } => format!("the release archive given ({path})"),
        HashFrom::Prefetched { url } => format!("`nix-prefetch-url` of {url}"),
        HashFrom::Placeholder { why } => format!("not known ({why}): `lib.fakeHash`"),
    };
    md.push_str(&format!("\nSource hash: {from}.\n"));
    md.push_str(&format!("\n## Validation: {}\n\n", r.validation.as_str()));
    for s in &r.steps {
        md.push_str(&format!(
            "- {} {}{}\n",
            s.step,
            if s.passed { "ok" } else { "FAILED" },
            s.detail
                .as_deref()
                .map_or(String::new(), |d| format!(": {d}"))
        ));
    }
    if let Some(why) = &r.not_validated_reason {
        md.push_str(&format!("- not built: {why}\n"));
    }
    md.push_str(&format!("\n## Diff\n\n```diff\n{}```\n", r.recipe_diff));
    md
}
