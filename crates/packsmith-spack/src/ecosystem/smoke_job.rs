//! After the loop: the model's smoke test where the deterministic one had
//! nothing to run. The smoke stage records such an install
//! ([`Untested`]); when the run passed with it and a model is configured,
//! the model is asked for one check ([`crate::jobs::smoke_test`]), the
//! check is proved on the prefix, written into the recipe and run with
//! `spack test run` against the same install. Only a test that passes
//! there changes the recipe the run hands over; its tokens count toward
//! the run, and `report.extras.smoke_job` says what happened.

use std::path::Path;
use std::sync::Mutex;

use packsmith_agent::{AttemptDir, FinishContext, Recipe, RunReport, RunStatus};
use packsmith_core::chat::Usage;
use packsmith_exec::atomic_write;
use packsmith_spack_knowledge::edit::smoke::add_smoke_test;

use super::{SpackEcosystem, RECIPE_FILE};
use crate::jobs::smoke_test::{self, CheckSite, SmokeQuestion};
use crate::validate::smoke::{probe_sandbox, run_smoke_test, SmokeDerivation};

/// An install whose smoke stage found nothing to test.
#[derive(Debug, Clone)]
pub struct Untested {
    pub attempt: u32,
    pub recipe: String,
    pub derivation: SmokeDerivation,
}

/// The installs of this run that nothing tested, by recipe.
#[derive(Debug, Default)]
pub struct UntestedLog(Mutex<Vec<Untested>>);

impl UntestedLog {
    pub fn record(&self, untested: Untested) {
        if let Ok(mut list) = self.0.lock() {
            list.push(untested);
        }
    }

    fn find(&self, attempt: u32, recipe: &str) -> Option<Untested> {
        self.0
            .lock()
            .ok()?
            .iter()
            .rev()
            .find(|u| u.attempt == attempt && u.recipe == recipe)
            .cloned()
    }
}

/// The job on the run's passing recipe, when its install went untested.
pub(super) fn after_run(eco: &SpackEcosystem, report: &mut RunReport, cx: &mut FinishContext<'_>) {
    if report.status != RunStatus::Succeeded || cx.cancelled || cx.model.id() == "none" {
        return;
    }
    let (Some(rel), Some(attempt)) = (report.final_recipe.clone(), report.best_attempt) else {
        return;
    };
    let final_path = cx.run_dir.join(&rel);
    let Ok(recipe) = std::fs::read_to_string(&final_path) else {
        return;
    };
    let Some(untested) = eco.untested.find(attempt, &recipe) else {
        return;
    };
    (cx.say)("smoke test: nothing derivable ran; asking the model for one check");
    match ask_and_run(eco, cx, &untested, &final_path, attempt) {
        Ok((extra, usage)) => {
            if let Some(usage) = usage {
                report.usage += usage;
                report.model_calls += 1;
            }
            report.extras.insert("smoke_job".into(), extra);
        }
        Err(why) => {
            (cx.say)(&format!("smoke test: {why}"));
            report
                .extras
                .insert("smoke_job".into(), serde_json::json!({"error": why}));
        }
    }
}

/// Asks, checks, writes and runs; the extra for the report and the
/// call's tokens, or why the job could not run at all.
fn ask_and_run(
    eco: &SpackEcosystem,
    cx: &mut FinishContext<'_>,
    untested: &Untested,
    final_path: &Path,
    attempt: u32,
) -> Result<(serde_json::Value, Option<Usage>), String> {
    let d = &untested.derivation;
    let python = smoke_test::python_for(&d.prefix);
    let attempt_dir = cx.run_dir.join("attempts").join(format!("{attempt:02}"));
    let scratch = attempt_dir.join("smoke-job");
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let sandbox = probe_sandbox(&eco.validation.sandbox, &scratch);
    let readme = eco.source_root.as_deref().and_then(smoke_test::readme);
    let question = SmokeQuestion {
        package: &eco.brief.package,
        version: &d.spec.version,
        prefix: &d.prefix,
        tried: &d.notes,
        readme: readme.as_deref(),
    };
    let site = CheckSite {
        python: &python,
        sandbox: &sandbox,
        scratch: &scratch,
    };
    let answer = smoke_test::write_smoke_test(cx.model, &question, &site)
        .map_err(|e| format!("the model could not be asked: {e}"))?;
    let mut extra = serde_json::json!({
        "answer": answer.answer,
        "choice": answer.choice,
        "checked": answer.checked,
        "refused": answer.refused,
        "usage": answer.usage,
        "seconds": answer.seconds,
        "written": false,
    });
    let Some(test) = &answer.test else {
        let why = answer
            .refused
            .as_deref()
            .unwrap_or("the model answered none");
        (cx.say)(&format!("smoke test: none written ({why})"));
        return Ok((extra, Some(answer.usage)));
    };
    let amended = match add_smoke_test(&untested.recipe, test) {
        Ok(Ok(text)) => text,
        Ok(Err(why)) => return Err(format!("the test could not be written: {why:?}")),
        Err(e) => return Err(format!("the recipe could not be read: {e}")),
    };
    // The overlay holds the recipe that is tested; the install stands.
    let dir = AttemptDir::new(attempt_dir, attempt);
    let mut overlay = eco
        .attempt(&Recipe::new(RECIPE_FILE, amended.clone()), &dir)
        .map_err(|e| format!("the attempt could not be prepared: {e}"))?;
    // Its logs beside the stage's, which say what the stage found.
    overlay.logs = scratch.join("logs");
    std::fs::create_dir_all(&overlay.logs)
        .map_err(|e| format!("cannot create {}: {e}", overlay.logs.display()))?;
    let mut derivation = d.clone();
    derivation.test = test.clone();
    let lines = vec![format!("the model's smoke test: {}", answer.answer)];
    let v = &eco.validation;
    let ran = run_smoke_test(
        &v.setup,
        &v.sandbox,
        &overlay,
        &derivation,
        &lines,
        &v.options,
    )
    .map_err(|e| format!("spack test run could not run: {e}"))?;
    extra["spack_test_run"] = serde_json::json!({
        "passed": ran.passed,
        "log": ran.log_path,
    });
    if !ran.passed {
        // The attempt's overlay goes back to the recipe that passed.
        eco.attempt(&Recipe::new(RECIPE_FILE, untested.recipe.clone()), &dir)
            .map_err(|e| format!("the attempt could not be restored: {e}"))?;
        (cx.say)("smoke test: the model's check failed under spack test run; not written");
        return Ok((extra, Some(answer.usage)));
    }
    atomic_write(final_path, amended.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", final_path.display()))?;
    extra["written"] = serde_json::json!(true);
    (cx.say)(&format!(
        "smoke test: the model's check passed under spack test run; written into {}",
        final_path.display()
    ));
    Ok((extra, Some(answer.usage)))
}
