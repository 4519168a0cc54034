//! What a Spack run adds to its report after the loop, through the
//! loop's one `Ecosystem::finish` hook (so report.json and report.md are
//! written once): the tokens of a `--brief llm` distillation, the
//! hermeticity record, the variant check on the recipe that passed, the
//! model's smoke test where none was derived, and the review gate with
//! the three levels.

use packsmith_agent::{FinishContext, RunReport, RunStatus};
use packsmith_core::chat::Usage;

use super::{variants, SpackEcosystem};

/// The after-run settings of a `packsmith spack` run.
#[derive(Debug, Clone, Copy, Default)]
pub struct AfterRun {
    /// Flip variants of the recipe that passed and concretize each.
    pub variant_check: bool,
    /// ... and install each.
    pub variant_install: bool,
    /// A `--brief llm` distillation's tokens and dollars, made before the
    /// loop; they count toward the run.
    pub distillation: Option<(Usage, f64)>,
}

/// Everything the run adds to `report` after the loop.
pub(super) fn finish(eco: &SpackEcosystem, report: &mut RunReport, cx: &mut FinishContext<'_>) {
    if let Some((usage, cost_usd)) = eco.after_run.distillation.filter(|(u, _)| u.total() > 0) {
        report.usage += usage;
        report.cost_usd += cost_usd;
        report.model_calls += 1;
        report.extras.insert(
            "facts_distillation".into(),
            serde_json::json!({"usage": usage, "cost_usd": cost_usd}),
        );
    }
    if let Some(extra) = eco.hermeticity_extra() {
        report.extras.insert("hermeticity".into(), extra);
    }
    if eco.after_run.variant_check && !cx.cancelled {
        check_variants(eco, report, cx);
    }
    // Before the review, which reads the recipe's tests for its levels.
    super::smoke_job::after_run(eco, report, cx);
    let style = crate::style::StyleTools::find(&eco.validation.setup.env);
    crate::review::record(report, cx.run_dir, style.as_ref().map_err(String::as_str));
}

/// The variant check on the recipe that passed, into the report's extras.
fn check_variants(eco: &SpackEcosystem, report: &mut RunReport, cx: &mut FinishContext<'_>) {
    if report.status != RunStatus::Succeeded {
        return;
    }
    let Some(rel) = &report.final_recipe else {
        return;
    };
    let recipe = std::fs::read_to_string(cx.run_dir.join(rel)).unwrap_or_default();
    let attempt = report.best_attempt.unwrap_or(1);
    let passed = variants::Passed {
        package: &eco.brief.package,
        recipe_text: &recipe,
        run_dir: cx.run_dir,
        attempt,
        prepared: eco.prepared_attempt(attempt, &recipe),
    };
    let checked = variants::check(
        &eco.validation,
        passed,
        eco.after_run.variant_install,
        &mut *cx.say,
    );
    report.extras.insert("variant_check".into(), checked);
}
