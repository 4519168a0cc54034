//! The install-stage tasks of the repair set: recipes whose sources the
//! user has, installed offline from those sources, and mutants that load,
//! pass the audit and concretize but fail at install or at the
//! hermeticity check of the installed prefix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::kb::layout::package_name_from_dir;
use packsmith_spack_knowledge::mapping::SpackNames;

use super::pick::Candidate;
use crate::validate::hermetic::run_hermeticity;
use crate::validate::{
    pack_as_archive, pack_local_source, prepare_attempt_in, recipe_archive_extension, run_stage,
    Sandbox, SpackSetup, Stage, StageOptions, ValidateError,
};

/// A package's source the set may install: a tree (or `.tar.gz`) of
/// `version`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallSource {
    pub tree: PathBuf,
    pub version: String,
}

/// A recipe that can become an install-stage task: any package of the
/// repository with a source, its patches and other files kept beside it.
#[derive(Debug, Clone)]
pub struct InstallCandidate {
    pub recipe: Candidate,
    /// The package directory (patches travel with the recipe).
    pub dir: PathBuf,
    pub source: InstallSource,
}

/// The packages of `packages/` that `sources` has a source for, by name.
pub fn install_candidates(
    packages: &Path,
    sources: &BTreeMap<String, InstallSource>,
) -> Vec<InstallCandidate> {
    let Ok(entries) = std::fs::read_dir(packages) else {
        return Vec::new();
    };
    let mut out: Vec<InstallCandidate> = entries
        .flatten()
        .filter_map(|e| {
            let dir = e.path();
            let name = package_name_from_dir(dir.file_name()?.to_str()?);
            let source = sources.get(&name)?.clone();
            let text = std::fs::read_to_string(dir.join("package.py")).ok()?;
            Some(InstallCandidate {
                recipe: Candidate { name, text },
                dir,
                source,
            })
        })
        .collect();
    out.sort_by(|a, b| a.recipe.name.cmp(&b.recipe.name));
    out
}

/// The source packed once per package into `<out>/sources/`, as a
/// `.tar.gz` the tasks name (relative to the task file) and every install
/// reads.
pub fn packed_source(out: &Path, c: &InstallCandidate) -> Result<PathBuf, ValidateError> {
    let packed = pack_local_source(
        &c.source.tree,
        &c.recipe.name,
        &c.source.version,
        &out.join("sources"),
    )?;
    Ok(packed.path)
}

/// What an install verdict needs beside the recipe.
pub struct InstallCheck<'a> {
    pub candidate: &'a InstallCandidate,
    /// The packed source ([`packed_source`]).
    pub archive: &'a Path,
    pub names: &'a dyn SpackNames,
}

/// An install a verdict waits for: a build that runs longer (a test suite
/// of hundreds of files switched on) says nothing a repair could show in
/// a benchmark's time.
const INSTALL_LIMIT: std::time::Duration = std::time::Duration::from_secs(900);

/// What real Spack made of a recipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passes,
    FailsAt(Stage),
    /// The stage ran past its limit: neither a pass nor a failure.
    TimedOut(Stage),
}

/// The first stage that fails on `recipe` — load, audit, concretize,
/// install or the hermeticity check — with the candidate's source in the
/// attempt's mirror.
pub fn first_failing_stage_installed(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    dir: &Path,
    namespace: &str,
    recipe: &str,
    check: &InstallCheck<'_>,
) -> Result<Verdict, ValidateError> {
    let c = check.candidate;
    let mirror = dir.join("mirror");
    let ext = recipe_archive_extension(recipe, &c.source.version)?;
    pack_as_archive(
        check.archive,
        &c.recipe.name,
        &c.source.version,
        &mirror,
        ext,
    )?;
    let attempt = prepare_attempt_in(dir, namespace, &c.recipe.name, recipe, Some(&mirror))?;
    attempt.add_package_files(&c.dir)?;
    let mut options = StageOptions {
        version: Some(c.source.version.clone()),
        no_checksum: true,
        ..StageOptions::default()
    };
    options.timeouts.concretize = std::time::Duration::from_secs(120);
    options.timeouts.install = INSTALL_LIMIT;
    for stage in [Stage::Load, Stage::Audit, Stage::Concretize, Stage::Install] {
        let outcome = run_stage(setup, sandbox, &attempt, stage, &options)?;
        if outcome.timed_out {
            return Ok(Verdict::TimedOut(stage));
        }
        if !outcome.passed {
            return Ok(Verdict::FailsAt(stage));
        }
    }
    let (outcome, _) = run_hermeticity(&attempt, check.names)?;
    Ok(if outcome.passed {
        Verdict::Passes
    } else {
        Verdict::FailsAt(Stage::Hermeticity)
    })
}
