//! The smoke stage as the loop sees it: derive the test from the
//! install, write it into the recipe (the amended recipe goes back to the
//! loop, so the recipe that passes is the one with its test), put that
//! recipe into the attempt's overlay and run it with `spack test run`.

use std::time::Instant;

use packsmith_agent::{AttemptDir, EcosystemError, Recipe, StageOutcome};
use packsmith_spack_knowledge::edit::smoke::{add_smoke_test, NotWritten, SmokeTest};

use super::{smoke_job, stages, SpackEcosystem, RECIPE_FILE};
use crate::validate::smoke::{
    derive_smoke_test, installed_anything, run_smoke_test, smoke_without_spack, INSTALLED_NOTHING,
};
use crate::validate::Attempt;

/// What the stage says about the recipe, for the log.
fn written_line(test: &SmokeTest) -> String {
    let mut parts: Vec<String> = test
        .executables
        .iter()
        .map(|e| format!("run bin/{} {}", e.name, e.arg))
        .collect();
    parts.extend(
        test.links
            .iter()
            .map(|l| format!("link a program against lib{}", l.library)),
    );
    parts.extend(
        test.headers
            .iter()
            .map(|h| format!("compile a program that includes <{}>", h.header)),
    );
    if !test.import_modules.is_empty() {
        parts.push(format!("import {}", test.import_modules.join(", ")));
    }
    format!("recipe: smoke test written: {}", parts.join("; "))
}

impl SpackEcosystem {
    /// The smoke stage on the install `attempt` holds. A prefix that
    /// cannot be found, or holds no file, fails the stage with the reason;
    /// nothing to test passes it without a Spack command (the log says so).
    pub(super) fn run_smoke_stage(
        &self,
        attempt: &Attempt,
        recipe: &Recipe,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError> {
        let started = Instant::now();
        let v = &self.validation;
        let derivation = match derive_smoke_test(attempt, &v.sandbox) {
            Ok(d) => d,
            Err(why) => {
                let lines = [format!("could not derive a smoke test: {why}")];
                let outcome = smoke_without_spack(attempt, &lines, false, started)
                    .map_err(EcosystemError::from)?;
                return stages::to_loop_outcome(&outcome);
            }
        };
        let mut lines = vec![format!(
            "prefix: {} (version {}, hash {})",
            derivation.prefix.display(),
            derivation.spec.version,
            derivation.spec.hash
        )];
        lines.extend(derivation.notes.iter().cloned());
        // Empty directories are no install: nothing to test is a failure here.
        if !installed_anything(&derivation.prefix) {
            lines.push(format!(
                "{INSTALLED_NOTHING} (only empty directories): the build made nothing the \
                 recipe's install copied"
            ));
            let outcome = smoke_without_spack(attempt, &lines, false, started)
                .map_err(EcosystemError::from)?;
            return stages::to_loop_outcome(&outcome);
        }
        let written = add_smoke_test(&recipe.text, &derivation.test).map_err(|e| {
            EcosystemError::new(format!(
                "the smoke test could not be written into the recipe: {e}"
            ))
        })?;
        let amended = match written {
            Ok(text) => {
                lines.push(written_line(&derivation.test));
                Some(Recipe::new(RECIPE_FILE, text))
            }
            Err(NotWritten::OwnTests) => {
                lines.push("recipe: has tests of its own; running them".into());
                None
            }
            Err(NotWritten::Empty) => {
                // After the loop, a model may write one check (smoke_job).
                self.untested.record(smoke_job::Untested {
                    attempt: dir.number(),
                    recipe: recipe.text.clone(),
                    derivation: derivation.clone(),
                });
                lines.push(
                    "recipe: nothing to test (no program answered --version or --help, no \
                     module of a Python package); the stage passes with nothing checked"
                        .into(),
                );
                let outcome = smoke_without_spack(attempt, &lines, true, started)
                    .map_err(EcosystemError::from)?;
                return stages::to_loop_outcome(&outcome);
            }
        };
        // The overlay must hold the recipe that is tested.
        let attempt = match &amended {
            Some(r) => self.attempt(r, dir)?,
            None => attempt.clone(),
        };
        let outcome = run_smoke_test(
            &v.setup,
            &v.sandbox,
            &attempt,
            &derivation,
            &lines,
            &v.options,
        )
        .map_err(EcosystemError::from)?;
        let mut loop_outcome = stages::to_loop_outcome(&outcome)?;
        loop_outcome.duration_ms = started.elapsed().as_millis() as u64;
        loop_outcome.amended = amended;
        Ok(loop_outcome)
    }
}

#[cfg(test)]
mod tests {
    use packsmith_spack_knowledge::edit::smoke::HeaderCheck;

    use super::*;

    #[test]
    fn the_log_line_names_every_check_written() {
        let test = SmokeTest {
            headers: vec![HeaderCheck {
                header: "algebra/array.hpp".into(),
                cxx: true,
                std: Some("c++20".into()),
            }],
            import_modules: vec!["demo".into()],
            ..SmokeTest::default()
        };
        assert_eq!(
            written_line(&test),
            "recipe: smoke test written: compile a program that includes <algebra/array.hpp>; \
             import demo"
        );
    }
}
