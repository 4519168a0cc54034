//! After the loop, through its `Ecosystem::finish` hook (the report is
//! written once, after it): `nix-result.json` (parse, build and runtime
//! checks reported apart; what could not be checked and why; failure
//! analysis when nothing built), the report's status (`not_built` for a
//! recipe that was only parsed), its `checks` table and the review gate.

use std::path::Path;

use packsmith_agent::{RunReport, RunStatus};
use packsmith_core::RepoFacts;
use packsmith_llm::{ChatModel, ChatResponse};

use super::analysis::{self, FailureAnalysis};
use super::checks::{self, CheckInputs, NO_NIXPKGS};
use super::result::{self, Check, CheckState, NixResult};
use super::runtime::RuntimeStatus;
use super::{HashStatus, NixEcosystem, PreparedDraft};
use crate::NixpkgsPin;

/// What the after-run work reads.
pub(super) struct Finish<'a> {
    pub run_dir: &'a Path,
    pub eco: &'a NixEcosystem,
    pub model: &'a dyn ChatModel,
    pub facts: Option<&'a RepoFacts>,
    pub facts_text: &'a str,
    pub draft: Option<&'a PreparedDraft>,
}

fn check(state: CheckState, detail: impl Into<String>) -> Check {
    Check {
        state,
        detail: detail.into(),
    }
}

/// The failure analysis: the deterministic guess, explained by the model
/// when it answers; the answer too, so its tokens can be accounted.
fn failure_analysis(f: &Finish<'_>, report: &RunReport) -> (FailureAnalysis, Option<ChatResponse>) {
    if let Some(a) = analysis::no_valid_nix(&report.attempts) {
        return (a, None);
    }
    let diagnoses = f.eco.diagnoses();
    let base = analysis::deterministic(&diagnoses, f.facts);
    if diagnoses.is_empty() {
        return (base, None);
    }
    let request = analysis::request(&report.name, &diagnoses, f.facts_text, &base.first_guess);
    match f.model.complete(&request) {
        Ok(answer) => (analysis::read_answer(&answer.content, base), Some(answer)),
        Err(_) => (base, None),
    }
}

/// Adds the failure analysis's model call to the run's totals, and names
/// it in the report's extras, so that report.json counts every token the
/// run was served (issue 16: it once left this call out).
fn account_analysis_call(report: &mut RunReport, answer: &ChatResponse) {
    report.usage += answer.usage;
    report.cost_usd += answer.cost_usd.unwrap_or(0.0);
    report.model_calls += 1;
    report.extras.insert(
        "failure_analysis".into(),
        serde_json::json!({"usage": answer.usage, "cost_usd": answer.cost_usd}),
    );
}

/// Completes `report` and writes `nix-result.json`; its data, or why it
/// could not be written.
pub(super) fn finish(f: &Finish<'_>, report: &mut RunReport) -> Result<NixResult, String> {
    let recipe_rel = report.final_recipe.clone().or(report.best_recipe.clone());
    let recipe_text = recipe_rel
        .as_ref()
        .and_then(|r| std::fs::read_to_string(f.run_dir.join(r)).ok());
    let builds = f.eco.builds();
    let succeeded = report.status == RunStatus::Succeeded;
    let mut not_checked = Vec::new();

    let parse = match &recipe_text {
        None => check(CheckState::NotChecked, "no recipe was produced"),
        Some(t) => match f.eco.parser_check(t) {
            Ok(()) => check(CheckState::Passed, "nix-instantiate --parse accepts it"),
            Err(e) => check(CheckState::Failed, e),
        },
    };
    let environment = f.eco.environment_error();
    let build = if let Some(e) = &environment {
        not_checked.push(format!("evaluation and build: {e}"));
        check(CheckState::NotChecked, e.clone())
    } else if !builds {
        not_checked.push(format!(
            "evaluation and build: {NO_NIXPKGS}; pass --nixpkgs PATH|REV or put nixpkgs in \
             NIX_PATH"
        ));
        check(CheckState::NotChecked, NO_NIXPKGS)
    } else if succeeded {
        check(CheckState::Passed, report.reason.clone())
    } else {
        check(CheckState::Failed, report.reason.clone())
    };
    let runtime_check = recipe_text
        .as_ref()
        .filter(|_| succeeded && builds)
        .and_then(|t| f.eco.runtime_check(t));
    let runtime = match &runtime_check {
        None => {
            let why = if builds {
                "nothing built"
            } else {
                "nothing could be built here"
            };
            not_checked.push(format!("runtime: {why}"));
            check(CheckState::NotChecked, why)
        }
        Some(c) => match c.status {
            RuntimeStatus::Passed => check(CheckState::Passed, c.note.clone()),
            RuntimeStatus::Failed => check(CheckState::Failed, c.note.clone()),
            RuntimeStatus::NoProgram | RuntimeStatus::Unavailable => {
                not_checked.push(format!("runtime: {}", c.note));
                check(CheckState::NotChecked, c.note.clone())
            }
        },
    };
    let hash_fixes = f.eco.hash_fixes();
    if let (Some(HashStatus::Placeholder { reason }), Some(t)) =
        (f.draft.map(|d| &d.hash), &recipe_text)
    {
        if t.contains("lib.fakeHash") {
            not_checked.push(format!(
                "source hash: still lib.fakeHash ({reason}); a build with network access fills \
                 it in"
            ));
        }
    }
    let failure_analysis = if !succeeded && builds && environment.is_none() {
        let (analysis, answer) = failure_analysis(f, report);
        if let Some(answer) = answer {
            account_analysis_call(report, &answer);
        }
        Some(analysis)
    } else {
        None
    };
    let nixpkgs = f.eco.settings().pin.as_ref().map(|p| match p {
        NixpkgsPin::Path { path } => path.display().to_string(),
        NixpkgsPin::Rev { rev, .. } => format!("nixpkgs {rev}"),
    });
    let result = NixResult {
        schema: 1,
        nixpkgs,
        parse,
        build,
        runtime,
        runtime_check,
        builder: f.draft.map(|d| d.builder.key().to_string()),
        builder_chosen_by: f.draft.map(|d| d.chosen_by.clone()),
        project_summary: f.eco.project_summary(),
        source_hash: f.draft.map(|d| d.hash.clone()),
        hash_fixes,
        recipe: recipe_rel.clone(),
        failure_analysis,
        not_checked,
    };
    result::write(f.run_dir, &result)?;
    if succeeded && !builds {
        mark_not_built(report);
    }
    let recipe = result
        .recipe
        .as_ref()
        .and_then(|rel| std::fs::read_to_string(f.run_dir.join(rel)).ok());
    report.extras.insert(
        "checks".into(),
        checks::checks(&CheckInputs {
            report,
            result: &result,
            builds,
            environment: environment.as_deref(),
            recipe: recipe.as_deref(),
        }),
    );
    if let Some(text) = &recipe {
        let (built, smoke) = checks::built_and_smoke_tested(report, text);
        let ran = result
            .runtime_check
            .as_ref()
            .and_then(|c| c.program.clone());
        let items = super::review::review(text, &report.name, ran.as_deref());
        super::review::record(report, &items, built, smoke);
    }
    Ok(result)
}

/// A run whose every stage passed without nixpkgs only parsed its
/// recipe: it is `not_built`, never `succeeded` (issue 45).
fn mark_not_built(report: &mut RunReport) {
    report.status = RunStatus::NotBuilt;
    report.reason = format!("the recipe parses, but was not evaluated or built: {NO_NIXPKGS}");
}
