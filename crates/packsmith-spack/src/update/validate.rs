//! The updated recipe in the real Spack, through the same overlay repos,
//! stages and sandbox as `packsmith spack`: the new version loaded,
//! audited, concretized and installed (offline, from the run's mirror),
//! and the old version still concretizing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::checksum::NewArchive;
use crate::validate::{
    attempt_namespace, prepare_attempt_in, run_stage_spec, run_stages, Sandbox, SpackSetup, Stage,
    StageOptions, ValidateError,
};

/// One stage as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageResult {
    pub stage: Stage,
    pub passed: bool,
    pub seconds: f64,
    /// The stage's log, under the run directory.
    pub log: PathBuf,
}

/// The stages run for one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checked {
    /// `name@=version`.
    pub spec: String,
    pub stages: Vec<StageResult>,
    /// Every stage asked for ran and passed.
    pub passed: bool,
}

/// The new version installed, the old one concretized, and the new
/// version concretized with each new boolean variant flipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validated {
    pub new: Checked,
    pub old: Checked,
    /// Reported, not required: a flipped variant may need a dependency
    /// this Spack would have to build (a download, offline).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Checked>,
}

impl Validated {
    pub fn passed(&self) -> bool {
        self.new.passed && self.old.passed
    }
}

/// Spack and the sandbox the stages run in.
pub struct Validator<'a> {
    pub setup: &'a SpackSetup,
    pub sandbox: &'a Sandbox,
    pub run_dir: &'a Path,
    pub package: &'a str,
    /// The directory of the recipe given: its patches load with it.
    pub package_files: Option<&'a Path>,
}

/// Installs `new_version` of `recipe`, concretizes `old_version`, and
/// concretizes the new version with each of `flips` (`+zlib`).
pub fn validate(
    v: &Validator<'_>,
    recipe: &str,
    (old_version, new_version): (&str, &str),
    archive: &NewArchive,
    flips: &[String],
) -> Result<Validated, ValidateError> {
    let new = check(
        v,
        recipe,
        ("new", 1),
        &[Stage::Load, Stage::Audit, Stage::Concretize, Stage::Install],
        StageOptions {
            version: Some(new_version.to_string()),
            no_checksum: archive.no_checksum,
            ..StageOptions::default()
        },
        Some(&archive.mirror),
    )?;
    let old = check(
        v,
        recipe,
        ("old", 2),
        &[Stage::Concretize],
        StageOptions {
            version: Some(old_version.to_string()),
            ..StageOptions::default()
        },
        None,
    )?;
    let mut variants = Vec::new();
    for (i, flip) in flips.iter().enumerate() {
        let options = StageOptions {
            version: Some(new_version.to_string()),
            ..StageOptions::default()
        };
        let label = format!("variant-{}", flip.trim_start_matches(['+', '~']));
        let number = 3 + u32::try_from(i).unwrap_or(u32::MAX - 3);
        variants.push(check_spec(v, recipe, (&label, number), flip, options)?);
    }
    Ok(Validated { new, old, variants })
}

/// The files beside the recipe (`patch("fix.patch")`) go beside it in the
/// attempt's repository, or Spack refuses to load it.
fn with_package_files(
    v: &Validator<'_>,
    attempt: &crate::validate::Attempt,
) -> Result<(), ValidateError> {
    match v.package_files {
        Some(dir) => attempt.add_package_files(dir),
        None => Ok(()),
    }
}

/// Concretizes `<package><flip>@=<version>`.
fn check_spec(
    v: &Validator<'_>,
    recipe: &str,
    (label, number): (&str, u32),
    flip: &str,
    options: StageOptions,
) -> Result<Checked, ValidateError> {
    let dir = v.run_dir.join("validate").join(label);
    let namespace = attempt_namespace(&format!("update_{}", v.package), number);
    let attempt = prepare_attempt_in(&dir, &namespace, v.package, recipe, None)?;
    with_package_files(v, &attempt)?;
    let spec = format!("{}{flip}", v.package);
    let outcome = run_stage_spec(
        v.setup,
        v.sandbox,
        &attempt,
        Stage::Concretize,
        &spec,
        &options,
    )?;
    Ok(Checked {
        spec: format!("{spec}@={}", options.version.as_deref().unwrap_or_default()),
        passed: outcome.passed,
        stages: vec![result(v, &outcome)],
    })
}

fn result(v: &Validator<'_>, o: &crate::validate::SpackStageOutcome) -> StageResult {
    StageResult {
        stage: o.stage,
        passed: o.passed,
        seconds: o.duration.as_secs_f64(),
        log: o
            .log_path
            .strip_prefix(v.run_dir)
            .unwrap_or(&o.log_path)
            .to_path_buf(),
    }
}

fn check(
    v: &Validator<'_>,
    recipe: &str,
    (label, number): (&str, u32),
    stages: &[Stage],
    options: StageOptions,
    mirror: Option<&Path>,
) -> Result<Checked, ValidateError> {
    let dir = v.run_dir.join("validate").join(label);
    let namespace = attempt_namespace(&format!("update_{}", v.package), number);
    let attempt = prepare_attempt_in(&dir, &namespace, v.package, recipe, mirror)?;
    with_package_files(v, &attempt)?;
    let outcomes = run_stages(v.setup, v.sandbox, &attempt, stages, &options)?;
    let passed = outcomes.len() == stages.len() && outcomes.iter().all(|o| o.passed);
    Ok(Checked {
        spec: format!(
            "{}@={}",
            v.package,
            options.version.as_deref().unwrap_or_default()
        ),
        stages: outcomes.iter().map(|o| result(v, o)).collect(),
        passed,
    })
}
