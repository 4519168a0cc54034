//! `report.json` and `report.md` of an update: the facts diff with its
//! evidence, the recipe diff, and what was validated.

use std::path::{Path, PathBuf};

use packsmith_exec::atomic_write;
use packsmith_spack_draft::update::plan::RefusedEdit;
use packsmith_spack_draft::update::{FactChange, FactsDiff, PlannedEdit};
use serde::{Deserialize, Serialize};

use super::checksum::{ChecksumSource, NewArchive};
use super::validate::{Checked, Validated};
use crate::validate::ValidateError;

/// What the update's validation came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Validation {
    /// The new version installed and the old one concretized.
    Validated,
    /// A stage failed.
    Failed,
    /// No Spack was configured: nothing was checked.
    NotValidated,
}

impl Validation {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Validated => "validated",
            Self::Failed => "FAILED",
            Self::NotValidated => "not validated",
        }
    }
}

/// Everything the update did, as `report.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UpdateReport {
    pub package: String,
    /// The recipe given.
    pub recipe: PathBuf,
    pub old_version: String,
    pub new_version: String,
    /// Where each version's source was read (a path, a URL, `tag v1.0 of …`).
    pub old_source: String,
    pub new_source: String,
    pub facts_diff: FactsDiff,
    /// The edits that landed, each with its reason.
    pub edits: Vec<PlannedEdit>,
    /// Edits that did not fit the recipe, with why.
    pub refused: Vec<RefusedEdit>,
    /// What the diff showed that no edit follows from.
    pub notes: Vec<String>,
    pub checksum: NewArchive,
    /// Unified diff of the recipe, old to new.
    pub recipe_diff: String,
    pub validation: Validation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validated: Option<Validated>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_validated_reason: Option<String>,
    /// The updated recipe written.
    pub output: PathBuf,
    /// The input recipe was overwritten too (`--in-place`).
    pub in_place: bool,
}

pub use packsmith_agent::history::unified_diff;

/// Writes `report.json` and `report.md` into `dir`.
pub fn write_report(dir: &Path, report: &UpdateReport) -> Result<(), ValidateError> {
    let json = serde_json::to_string_pretty(report).map_err(|e| ValidateError::Io {
        action: "serialize",
        path: dir.join("report.json"),
        source: std::io::Error::other(e.to_string()),
    })?;
    write(&dir.join("report.json"), &json)?;
    write(&dir.join("report.md"), &markdown(report))
}

fn write(path: &Path, text: &str) -> Result<(), ValidateError> {
    atomic_write(path, text.as_bytes()).map_err(|e| ValidateError::Io {
        action: "write",
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// `file:line value`, or `—`.
fn side(fact: Option<&packsmith_spack_draft::update::Fact>) -> String {
    let Some(f) = fact else {
        return "—".into();
    };
    match &f.evidence {
        Some(e) if e.line > 0 => format!("`{}` ({}:{})", f.value, e.file, e.line),
        Some(e) => format!("`{}` ({})", f.value, e.file),
        None => format!("`{}`", f.value),
    }
}

fn change_row(c: &FactChange) -> String {
    format!(
        "| {} | {} | {} | {} | {} |\n",
        c.topic.as_str(),
        c.name,
        c.change.as_str(),
        side(c.old.as_ref()),
        side(c.new.as_ref())
    )
}

fn checked_lines(label: &str, c: &Checked, out: &mut String) {
    out.push_str(&format!(
        "- {label} `{}`: {}\n",
        c.spec,
        if c.passed { "passed" } else { "FAILED" }
    ));
    for s in &c.stages {
        out.push_str(&format!(
            "  - {}: {} ({:.1} s, `{}`)\n",
            s.stage,
            if s.passed { "ok" } else { "FAILED" },
            s.seconds,
            s.log.display()
        ));
    }
}

/// The report for people.
pub fn markdown(r: &UpdateReport) -> String {
    let mut md = format!(
        "# {} {} → {}\n\nRecipe: `{}`; old source: {}; new source: {}.\n\n",
        r.package,
        r.old_version,
        r.new_version,
        r.recipe.display(),
        r.old_source,
        r.new_source
    );
    md.push_str(&format!("Validation: **{}**", r.validation.as_str()));
    if let Some(why) = &r.not_validated_reason {
        md.push_str(&format!(" ({why})"));
    }
    md.push_str("\n\n## What changed upstream\n\n");
    if r.facts_diff.changes.is_empty() {
        md.push_str("Nothing a recipe reads.\n");
    } else {
        md.push_str(&format!(
            "| topic | name | change | {} | {} |\n| --- | --- | --- | --- | --- |\n",
            r.old_version, r.new_version
        ));
        for c in &r.facts_diff.changes {
            md.push_str(&change_row(c));
        }
    }
    md.push_str("\n## Edits\n\n");
    for e in &r.edits {
        md.push_str(&format!("- {} (`{}`)\n", e.why, e.op.kind().as_str()));
    }
    for e in &r.refused {
        md.push_str(&format!("- not applied: {} — {}\n", e.edit.why, e.reason));
    }
    for n in &r.notes {
        md.push_str(&format!("- note: {n}\n"));
    }
    md.push_str(&format!(
        "\nChecksum of {}: {}\n",
        r.new_version,
        match (r.checksum.source, &r.checksum.sha256) {
            (ChecksumSource::GivenArchive, Some(s)) =>
                format!("`{s}`, of the release archive given as the new source"),
            (ChecksumSource::RecipeUrl, Some(s)) =>
                format!("`{s}`, of the archive the recipe's URL names"),
            (ChecksumSource::ForgeRelease, Some(s)) => {
                format!("`{s}`, of the forge's release archive reproduced from the tag")
            }
            _ => "not known: the recipe says `# FIXME: checksum` (validated with the tree packed \
                  as a stand-in, `--no-checksum`)"
                .to_string(),
        }
    ));
    md.push_str("\n## Recipe diff\n\n```diff\n");
    md.push_str(&r.recipe_diff);
    md.push_str("```\n\n## Validation\n\n");
    match &r.validated {
        Some(v) => {
            checked_lines("new version", &v.new, &mut md);
            checked_lines("old version", &v.old, &mut md);
            for c in &v.variants {
                checked_lines("new variant (reported, not required)", c, &mut md);
            }
        }
        None => md.push_str(&format!(
            "Not validated: {}.\n",
            r.not_validated_reason.as_deref().unwrap_or("no Spack")
        )),
    }
    md.push_str(&format!("\nUpdated recipe: `{}`\n", r.output.display()));
    md
}
