//! What a Nix run checked and what it did not, one row per
//! check, as the report's `checks` extra (a table in report.md, the same
//! rows in report.json), so that a recipe that was only parsed is never
//! read as one that built (issue 45).

use crate::ecosystem::result::{CheckState, NixResult};
use crate::ecosystem::stages::{BUILD, EVALUATE};
use crate::ecosystem::HashStatus;
use packsmith_agent::{AttemptRecord, RunReport};
use serde_json::{json, Value};

/// The rows of the checks table other parts read back (the contribution's
/// PR description).
pub const BUILT_ROW: &str = "built with nix-build";
pub const SMOKE_ROW: &str = "smoke test in the build (versionCheckHook, pythonImportsCheck)";

/// Why nothing was evaluated or built, when no nixpkgs was pinned.
pub const NO_NIXPKGS: &str = "no nixpkgs found (NIX_PATH / --nixpkgs)";

/// What the rows are made from.
pub struct CheckInputs<'a> {
    pub report: &'a RunReport,
    pub result: &'a NixResult,
    /// Whether a nixpkgs was pinned, so that evaluate and build were stages.
    pub builds: bool,
    /// Why a stage could not run at all, when that ended the run.
    pub environment: Option<&'a str>,
    /// The text of the recipe the report names (final or best).
    pub recipe: Option<&'a str>,
}

/// The `checks` extra: `[{check, result}]`, in the order the run checks.
pub fn checks(c: &CheckInputs<'_>) -> Value {
    let not_run = why_not_run(c);
    let rows = [
        (
            "parsed with nix-instantiate --parse",
            parse_result(c.result),
        ),
        (
            "evaluated with nix-instantiate",
            stage_result(best_attempt(c.report), EVALUATE, &not_run),
        ),
        (
            "fixed-output source hash checked",
            source_hash_result(c.result),
        ),
        (
            BUILT_ROW,
            stage_result(best_attempt(c.report), BUILD, &not_run),
        ),
        (SMOKE_ROW, smoke_result(c, &not_run)),
    ];
    Value::Array(
        rows.into_iter()
            .map(|(check, result)| json!({ "check": check, "result": result }))
            .collect(),
    )
}

/// Why a stage that has no record did not run.
fn why_not_run(c: &CheckInputs<'_>) -> String {
    if !c.builds {
        NO_NIXPKGS.to_string()
    } else if let Some(e) = c.environment {
        e.to_string()
    } else {
        "no attempt got that far".to_string()
    }
}

/// The attempt the report names as the one that got furthest.
fn best_attempt(report: &RunReport) -> Option<&AttemptRecord> {
    let best = report.best_attempt?;
    report.attempts.iter().find(|a| a.attempt == best)
}

fn parse_result(result: &NixResult) -> String {
    match result.parse.state {
        CheckState::Passed => "yes".into(),
        CheckState::Failed => "failed".into(),
        CheckState::NotChecked => format!("no — {}", result.parse.detail),
    }
}

/// `yes` when the stage passed, `failed` when it ran and failed, else
/// `no — why`.
fn stage_result(attempt: Option<&AttemptRecord>, stage: &str, not_run: &str) -> String {
    let record = attempt.and_then(|a| a.stages.iter().find(|s| s.name == stage));
    match record {
        Some(s) if s.passed => "yes".into(),
        Some(s) if s.cancelled => "no — cancelled (Ctrl-C)".into(),
        Some(_) => "failed".into(),
        None => format!("no — {not_run}"),
    }
}

/// Whether the report's recipe built, and whether it carries a smoke test
/// that ran in that build.
pub fn built_and_smoke_tested(report: &RunReport, recipe: &str) -> (bool, bool) {
    let built = best_attempt(report)
        .and_then(|a| a.stages.iter().find(|s| s.name == BUILD))
        .is_some_and(|s| s.passed);
    let has_test =
        recipe.contains(crate::install_check::HOOK) || recipe.contains("pythonImportsCheck");
    (built, built && has_test)
}

/// The recipe's own smoke test runs inside the build: it passed when the
/// build did.
fn smoke_result(c: &CheckInputs<'_>, not_run: &str) -> String {
    let recipe = c.recipe.unwrap_or("");
    let test = if recipe.contains(crate::install_check::HOOK) {
        "versionCheckHook ran `meta.mainProgram --version` and found the version"
    } else if recipe.contains("pythonImportsCheck") {
        "pythonImportsCheck imported the package's modules"
    } else {
        return "no — the recipe has none (no evidence the program answers --version, or a \
                library)"
            .into();
    };
    match stage_result(best_attempt(c.report), BUILD, not_run).as_str() {
        "yes" => format!("yes — {test}"),
        other => other.to_string(),
    }
}

/// A hash Nix computed from the source (prefetched, or taken from a
/// build's mismatch) is checked; `lib.fakeHash` is not.
fn source_hash_result(result: &NixResult) -> String {
    if !result.hash_fixes.is_empty() {
        return "yes — taken from Nix's hash mismatch".into();
    }
    match &result.source_hash {
        Some(HashStatus::Prefetched { .. }) => "yes — computed by nix-prefetch-url".into(),
        Some(HashStatus::NotNeeded) => "not needed — a local path has no source hash".into(),
        Some(HashStatus::Placeholder { reason }) => format!("no — lib.fakeHash ({reason})"),
        None => "no — no draft was made".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ecosystem::result::Check;
    use packsmith_agent::StageRecord;

    fn stage(name: &str, passed: bool) -> StageRecord {
        StageRecord {
            name: name.into(),
            passed,
            cancelled: false,
            duration_ms: 0,
            log_path: None,
        }
    }

    fn report(stages: Vec<StageRecord>) -> RunReport {
        let attempt: AttemptRecord = serde_json::from_value(json!({
            "attempt": 1, "kind": "draft", "recipe_path": "attempts/01/package.nix",
            "static_repairs": 0, "stages": stages, "passed": true, "stage_reached": "parse",
            "model_calls": 0, "tool_calls": 0,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},
            "cost_usd": 0.0, "duration_ms": 0
        }))
        .unwrap();
        serde_json::from_value(json!({
            "schema": 1, "name": "hello", "ecosystem": "nix", "model": "none",
            "status": "succeeded", "reason": "", "stages": ["parse"],
            "attempts": [attempt], "best_attempt": 1, "model_calls": 0, "tool_calls": 0,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},
            "cost_usd": 0.0, "duration_ms": 0
        }))
        .unwrap()
    }

    fn result(hash: HashStatus) -> NixResult {
        let check = |state| Check {
            state,
            detail: String::new(),
        };
        NixResult {
            schema: 1,
            nixpkgs: None,
            parse: check(CheckState::Passed),
            build: check(CheckState::NotChecked),
            runtime: check(CheckState::NotChecked),
            runtime_check: None,
            builder: None,
            builder_chosen_by: None,
            project_summary: None,
            source_hash: Some(hash),
            hash_fixes: Vec::new(),
            recipe: None,
            failure_analysis: None,
            not_checked: Vec::new(),
        }
    }

    fn rows(value: &Value) -> Vec<(String, String)> {
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["check"].as_str().unwrap().to_string(),
                    r["result"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn without_nixpkgs_evaluation_and_build_say_no_and_why() {
        let report = report(vec![stage("parse", true)]);
        let result = result(HashStatus::Prefetched {
            sri: "sha256-x".into(),
            url: "https://example.org/x.tar.gz".into(),
        });
        let got = rows(&checks(&CheckInputs {
            report: &report,
            result: &result,
            builds: false,
            environment: None,
            recipe: Some(
                "{ versionCheckHook }: { nativeInstallCheckInputs = [ versionCheckHook ]; }",
            ),
        }));
        let want = [
            ("parsed with nix-instantiate --parse", "yes"),
            (
                "evaluated with nix-instantiate",
                "no — no nixpkgs found (NIX_PATH / --nixpkgs)",
            ),
            (
                "fixed-output source hash checked",
                "yes — computed by nix-prefetch-url",
            ),
            (
                "built with nix-build",
                "no — no nixpkgs found (NIX_PATH / --nixpkgs)",
            ),
            (
                "smoke test in the build (versionCheckHook, pythonImportsCheck)",
                "no — no nixpkgs found (NIX_PATH / --nixpkgs)",
            ),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_build_that_failed_after_evaluating_says_so() {
        let report = report(vec![stage(EVALUATE, true), stage(BUILD, false)]);
        let result = result(HashStatus::Placeholder {
            reason: "offline".into(),
        });
        let got = rows(&checks(&CheckInputs {
            report: &report,
            result: &result,
            builds: true,
            environment: None,
            recipe: Some("{ }: { }"),
        }));
        assert_eq!(got[1].1, "yes");
        assert_eq!(got[2].1, "no — lib.fakeHash (offline)");
        assert_eq!(got[3].1, "failed");
        assert!(
            got[4].1.starts_with("no — the recipe has none"),
            "{}",
            got[4].1
        );
    }

    #[test]
    fn the_smoke_test_passed_with_the_build() {
        let report = report(vec![stage(EVALUATE, true), stage(BUILD, true)]);
        let result = result(HashStatus::NotNeeded);
        let got = rows(&checks(&CheckInputs {
            report: &report,
            result: &result,
            builds: true,
            environment: None,
            recipe: Some("{ buildPythonPackage }: { pythonImportsCheck = [ \"demo\" ]; }"),
        }));
        assert_eq!(
            got[4].1,
            "yes — pythonImportsCheck imported the package's modules"
        );
    }
}
