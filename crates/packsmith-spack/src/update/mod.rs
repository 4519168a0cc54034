//! `packsmith update`: a new upstream version into the recipe a maintainer
//! already has. The drafter's `update/` diffs the two versions'
//! facts and plans the edits; here the new version's checksum is worked
//! out (`checksum`), the edited recipe is validated in the real Spack with
//! the same overlay repos, stages and sandbox as `packsmith spack`
//! (`validate`: the new version installed, the old one concretized), and
//! the run directory gets the updated `package.py`, `report.json` and
//! `report.md` (`report`). Without a Spack the update is written and
//! reported as not validated.

pub mod checksum;
pub mod patches;
pub mod report;
pub mod validate;

use std::path::{Path, PathBuf};

use packsmith_agent::rundir::RunDir;
use packsmith_agent::AgentError;
use packsmith_core::RepoFacts;
use packsmith_exec::atomic_write;
use packsmith_spack_draft::brief::{build_brief_with, BriefOverrides, SpackBrief};
use packsmith_spack_draft::update::{apply_plan, diff_facts, plan_update, PlanInputs, Side};
use packsmith_spack_knowledge::mapping::SpackNames;
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::target::TargetSpack;

pub use checksum::{ChecksumSource, NewArchive};
pub use report::{UpdateReport, Validation};
pub use validate::{Checked, Validated};

use crate::prepare::{spack_sandbox, PrepareError};
use crate::validate::{SpackSetup, ValidateError};

/// One version's source.
pub struct VersionSource<'a> {
    pub version: &'a str,
    pub root: &'a Path,
    pub facts: &'a RepoFacts,
    /// Where it was read, for the report (`tag v1.0.0 of ~/src/tally`).
    pub described: String,
    /// The release archive `root` was unpacked from, when one was given.
    pub archive: Option<&'a Path>,
}

/// What the caller decided.
pub struct UpdateInputs<'a> {
    pub recipe_path: &'a Path,
    pub recipe: &'a str,
    pub package: &'a str,
    pub old: VersionSource<'a>,
    pub new: VersionSource<'a>,
    pub target: TargetSpack,
    pub names: &'a dyn SpackNames,
    /// The Spack to validate with; None: not validated, for this reason.
    pub spack: Result<SpackSetup, String>,
    /// `--out`: the run goes in `<out>/<package>/`.
    pub out: &'a Path,
    pub replace: bool,
    pub no_sandbox: bool,
    /// Also write the updated recipe over `recipe_path`.
    pub in_place: bool,
}

/// The finished update.
pub struct UpdateOutcome {
    pub report: UpdateReport,
    pub run_dir: PathBuf,
}

/// Why an update could not be made (a failed validation is no error: it
/// is in the report).
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    #[error("{0}")]
    Validate(#[from] ValidateError),
}

impl packsmith_core::Hint for UpdateError {
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            Self::Prepare(e) => e.hint(),
            Self::Validate(e) => e.hint().map(std::borrow::Cow::Owned),
        }
    }

    fn message(&self) -> String {
        match self {
            Self::Prepare(e) => e.message(),
            Self::Validate(e) => e.to_string(),
        }
    }

    fn is_bad_input(&self) -> bool {
        match self {
            Self::Prepare(e) => e.is_bad_input(),
            Self::Validate(e) => packsmith_core::Hint::is_bad_input(e),
        }
    }
}

/// The brief of one version, under the recipe's package name.
fn brief_of(inputs: &UpdateInputs<'_>, side: &VersionSource<'_>) -> SpackBrief {
    build_brief_with(
        side.facts,
        inputs.target,
        inputs.names,
        &BriefOverrides {
            name: Some(inputs.package.to_string()),
            version: Some(side.version.to_string()),
        },
    )
}

/// Diffs, edits, validates and reports.
pub fn run_update(inputs: UpdateInputs<'_>) -> Result<UpdateOutcome, UpdateError> {
    let (old_brief, new_brief) = (
        brief_of(&inputs, &inputs.old),
        brief_of(&inputs, &inputs.new),
    );
    let diff = diff_facts(
        Side {
            facts: inputs.old.facts,
            brief: &old_brief,
        },
        Side {
            facts: inputs.new.facts,
            brief: &new_brief,
        },
    );
    let run_dir = claim_run_dir(inputs.out, inputs.package, inputs.replace)?;
    let parsed = parse_recipe(inputs.recipe, &inputs.recipe_path.display().to_string());
    let archive = checksum::new_archive(&checksum::ArchiveInputs {
        recipe: &parsed,
        package: inputs.package,
        old_version: inputs.old.version,
        new_version: inputs.new.version,
        new_root: inputs.new.root,
        new_facts: inputs.new.facts,
        new_archive: inputs.new.archive,
        mirror: &run_dir.join("mirror"),
    })?;
    let recipe_dir = inputs.recipe_path.parent().unwrap_or(Path::new("."));
    let stale = patches::stale_patches(&parsed, recipe_dir, inputs.new.root, inputs.new.version);
    let plan = plan_update(&PlanInputs {
        recipe: inputs.recipe,
        old_version: inputs.old.version,
        new_version: inputs.new.version,
        sha256: archive.sha256.as_deref(),
        diff: &diff,
        new: &new_brief,
        stale_patches: &stale,
    });
    let updated = apply_plan(inputs.recipe, &plan);
    let output = run_dir.join("package.py");
    write(&output, &updated.recipe)?;
    if inputs.in_place {
        write(inputs.recipe_path, &updated.recipe)?;
    }

    let package_files = crate::validate::package_dir_of(inputs.recipe_path);
    let (validation, validated, not_validated_reason) = match inputs.spack {
        Ok(mut setup) => {
            setup.scratch = run_dir.clone();
            let sandbox = spack_sandbox(&setup, &run_dir, inputs.no_sandbox)?;
            let v = validate::validate(
                &validate::Validator {
                    setup: &setup,
                    sandbox: &sandbox,
                    run_dir: &run_dir,
                    package: inputs.package,
                    package_files: package_files.as_deref(),
                },
                &updated.recipe,
                (inputs.old.version, inputs.new.version),
                &archive,
                &flips(&updated.applied),
            )?;
            let status = if v.passed() {
                Validation::Validated
            } else {
                Validation::Failed
            };
            (status, Some(v), None)
        }
        Err(why) => (Validation::NotValidated, None, Some(why)),
    };
    let report = UpdateReport {
        package: inputs.package.to_string(),
        recipe: inputs.recipe_path.to_path_buf(),
        old_version: inputs.old.version.to_string(),
        new_version: inputs.new.version.to_string(),
        old_source: inputs.old.described.clone(),
        new_source: inputs.new.described.clone(),
        facts_diff: diff,
        edits: updated.applied,
        refused: updated.refused,
        notes: plan.notes,
        checksum: archive,
        recipe_diff: report::unified_diff(inputs.recipe, &updated.recipe, "package.py"),
        validation,
        validated,
        not_validated_reason,
        output,
        in_place: inputs.in_place,
    };
    report::write_report(&run_dir, &report)?;
    Ok(UpdateOutcome { report, run_dir })
}

/// Each new boolean variant the edits declared, flipped from its default
/// (`+zlib` for one off by default).
fn flips(applied: &[packsmith_spack_draft::update::PlannedEdit]) -> Vec<String> {
    applied
        .iter()
        .filter_map(|e| match &e.op {
            packsmith_spack_knowledge::edit::EditOp::AddVariant {
                name,
                default: serde_json::Value::Bool(on),
                ..
            } => Some(format!("{}{name}", if *on { "~" } else { "+" })),
            _ => None,
        })
        .collect()
}

fn write(path: &Path, text: &str) -> Result<(), ValidateError> {
    atomic_write(path, text.as_bytes()).map_err(|e| ValidateError::Io {
        action: "write",
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// `<out>/<package>/`, claimed and absolute (Spack's scope files name it).
fn claim_run_dir(out: &Path, package: &str, replace: bool) -> Result<PathBuf, PrepareError> {
    let claimed = RunDir::claim(out, package, replace)?;
    std::fs::canonicalize(&claimed).map_err(|e| {
        PrepareError::RunDir(AgentError::Io {
            path: claimed.clone(),
            source: e,
        })
    })
}
