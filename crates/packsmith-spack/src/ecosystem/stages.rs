//! The validation stages as the loop sees them, and how one Spack stage's
//! outcome becomes a model-ready failure. The typed [`Stage`] and
//! [`Diagnosis`] ride along in the loop's `StageSpec`/`Failure` details,
//! so nothing is parsed back from a stage name or from prose.

use std::path::Path;

use packsmith_agent::{EcosystemError, Failure, StageOutcome, StageSpec};

use crate::diagnose::{diagnose_outcome, Diagnosis};
use crate::validate::{SpackStageOutcome, Stage, StageOptions};

/// The stages to run, cheapest first. `audit` is optional (`--no-audit`);
/// `install` is left out for a concretize-only run; `hermeticity` follows
/// an install (`--no-hermeticity-check` leaves it out), and `smoke` comes
/// last (`--no-smoke-test` leaves it out): it is the one stage that
/// amends the recipe, and the hermeticity check is cheaper (no Spack
/// command) and sends a recipe back to be rebuilt, which would make a
/// smoke test run before it wasted.
pub fn stage_list(audit: bool, install: bool, hermeticity: bool, smoke: bool) -> Vec<Stage> {
    let mut stages: Vec<Stage> = Stage::ALL
        .into_iter()
        .filter(|s| audit || *s != Stage::Audit)
        .filter(|s| install || *s != Stage::Install)
        .collect();
    if install && hermeticity {
        stages.push(Stage::Hermeticity);
    }
    if install && smoke {
        stages.push(Stage::Smoke);
    }
    stages
}

/// The loop's stage specs, each carrying its typed [`Stage`].
pub fn stage_specs(stages: &[Stage], options: &StageOptions) -> Vec<StageSpec> {
    stages
        .iter()
        .map(|&s| StageSpec::new(s.as_str(), options.timeouts.get(s).as_secs()).with_detail(s))
        .collect()
}

/// The typed stage a spec from [`stage_specs`] carries.
pub fn stage_of(spec: &StageSpec) -> Result<Stage, EcosystemError> {
    spec.detail.get::<Stage>().copied().ok_or_else(|| {
        EcosystemError::new(format!(
            "internal: the stage `{}` was not listed by the Spack backend",
            spec.name
        ))
    })
}

/// The typed diagnosis a failure from [`to_loop_outcome`] carries.
pub fn diagnosis_of(failure: &Failure) -> Option<&Diagnosis> {
    failure.detail.get::<Diagnosis>()
}

/// A failed install of `class` with `excerpt` and `names`, as a stage
/// reports it: for the repair tests.
#[cfg(test)]
pub(crate) fn install_failure(
    class: crate::diagnose::FailureClass,
    excerpt: &str,
    names: &[&str],
) -> Failure {
    let d = Diagnosis {
        stage: Stage::Install,
        class,
        summary: excerpt.lines().next().unwrap_or_default().into(),
        excerpt: excerpt.into(),
        recipe_line: None,
        names: names.iter().map(|n| n.to_string()).collect(),
        hint: None,
        signature: String::new(),
        findings: Vec::new(),
        undefined: crate::diagnose::undefined_names(excerpt),
    };
    Failure::new("install", class_name(&d), excerpt).with_detail(d)
}

/// The failure class as a stable snake-case string.
pub fn class_name(d: &Diagnosis) -> String {
    serde_json::to_value(d.class)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| "unknown".into())
}

/// What the repair prompt shows of a diagnosis: its summary, the excerpt,
/// the recipe line at fault and a hint when one is certain.
pub fn excerpt_for_model(d: &Diagnosis) -> String {
    let mut out = d.summary.trim().to_string();
    if let Some(line) = d.recipe_line {
        out.push_str(&format!("\n(package.py line {line})"));
    }
    let excerpt = d.excerpt.trim();
    if !excerpt.is_empty() && excerpt != d.summary.trim() {
        out.push('\n');
        out.push_str(excerpt);
    }
    if let Some(hint) = &d.hint {
        out.push_str(&format!("\nhint: {hint}"));
    }
    out
}

/// Converts a Spack stage outcome, diagnosing it when it failed.
pub fn to_loop_outcome(outcome: &SpackStageOutcome) -> Result<StageOutcome, EcosystemError> {
    let failure = if outcome.passed {
        None
    } else {
        let d = diagnose_outcome(outcome).map_err(|e| {
            EcosystemError::new(format!(
                "could not read the log {}: {e}",
                outcome.log_path.display()
            ))
        })?;
        d.map(|d| failure_from(d, &outcome.log_path))
    };
    Ok(StageOutcome {
        passed: outcome.passed,
        duration_ms: outcome.duration.as_millis() as u64,
        log_path: Some(outcome.log_path.clone()),
        failure,
        amended: None,
    })
}

/// The loop's failure: the class and prose for the model and the report,
/// and the diagnosis itself as the typed detail that [`diagnosis_of`]
/// hands back to the rule repairs.
pub fn failure_from(d: Diagnosis, log: &Path) -> Failure {
    let mut f = Failure::new(d.stage.as_str(), class_name(&d), excerpt_for_model(&d));
    f.log_path = Some(log.to_path_buf());
    f.with_detail(d)
}
