//! Where a recipe fails in the real Spack: load, audit and concretize
//! run in order in an overlay of their own, as the loop's stages do.

use std::path::Path;

use crate::validate::{
    prepare_attempt_in, run_stage, Sandbox, SpackSetup, Stage, StageOptions, ValidateError,
};

/// The stages a repair task checks: nothing is fetched or built.
pub const CHECKED_STAGES: [Stage; 3] = [Stage::Load, Stage::Audit, Stage::Concretize];

/// The first stage of [`CHECKED_STAGES`] that fails on `recipe`, or `None`
/// when all pass. `dir` holds the overlay and the logs.
pub fn first_failing_stage(
    setup: &SpackSetup,
    sandbox: &Sandbox,
    dir: &Path,
    namespace: &str,
    package: &str,
    recipe: &str,
) -> Result<Option<Stage>, ValidateError> {
    let attempt = prepare_attempt_in(dir, namespace, package, recipe, None)?;
    let mut options = StageOptions {
        // Concretizing reads no source: a DAG with nodes to build is fine.
        offline: false,
        ..StageOptions::default()
    };
    // A recipe whose DAG takes minutes to solve makes a slow task; it is
    // left out rather than waited for.
    options.timeouts.concretize = std::time::Duration::from_secs(120);
    for stage in CHECKED_STAGES {
        let outcome = run_stage(setup, sandbox, &attempt, stage, &options)?;
        if !outcome.passed {
            return Ok(Some(stage));
        }
    }
    Ok(None)
}
