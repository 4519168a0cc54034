//! The text a caller shows of a run: the draft's source hash before the
//! loop, and the end summary after it (status, attempts, checks, what was
//! not checked, tokens, where the recipe and the details are).

use std::fmt::Write as _;

use packsmith_agent::RunStatus;

use super::outcome::NixRun;
use crate::ecosystem::analysis::category_name;
use crate::ecosystem::checks::NO_NIXPKGS;
use crate::ecosystem::result::{self, CheckState};
use crate::ecosystem::HashStatus;

/// The source hash of the draft, as the line before the loop says it.
pub fn hash_line(h: &HashStatus) -> String {
    match h {
        HashStatus::NotNeeded => "none needed (local path)".into(),
        HashStatus::Prefetched { sri, .. } => format!("{sri} (prefetched)"),
        HashStatus::Placeholder { reason } => {
            format!("lib.fakeHash, to be filled in by the first build ({reason})")
        }
    }
}

fn state(s: CheckState) -> &'static str {
    match s {
        CheckState::Passed => "passed",
        CheckState::Failed => "FAILED",
        CheckState::NotChecked => "not checked",
    }
}

/// The end summary of a finished run: a blank line, then one line per
/// attempt and check (no trailing newline).
pub fn summary(run: &NixRun) -> String {
    let rep = &run.report;
    let r = &run.result;
    let mut out = String::new();
    if rep.status == RunStatus::NotBuilt {
        let _ = writeln!(out, "\n{}: parsed, NOT BUILT: {NO_NIXPKGS}", rep.name);
    } else {
        let _ = writeln!(
            out,
            "\n{}: {} ({})",
            rep.name,
            rep.status.as_str(),
            rep.reason
        );
    }
    for a in &rep.attempts {
        let _ = writeln!(
            out,
            "  #{:<2} {:<11} {:<12} {}{}{}",
            a.attempt,
            format!("{:?}", a.kind).to_lowercase(),
            a.stage_reached,
            if a.passed {
                "passed".to_string()
            } else {
                a.failure
                    .as_ref()
                    .map(|x| x.class.clone())
                    .unwrap_or_default()
            },
            a.verdict.map(|v| format!(" [{v:?}]")).unwrap_or_default(),
            if a.rolled_back { " (rolled back)" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "  parse: {} · build: {} · runtime: {}",
        state(r.parse.state),
        state(r.build.state),
        state(r.runtime.state)
    );
    for fix in &r.hash_fixes {
        let _ = writeln!(out, "  hash fixed without the model: {fix}");
    }
    for n in &r.not_checked {
        let _ = writeln!(out, "  not checked: {n}");
    }
    if let Some(a) = &r.failure_analysis {
        let _ = writeln!(
            out,
            "  why it does not build [{}]: {}",
            category_name(a.category),
            a.explanation.replace('\n', " ")
        );
    }
    let _ = writeln!(
        out,
        "  tokens: {} in, {} out · model calls: {} · tool calls: {} · cost: ${:.4} · time: {:.1}s",
        rep.usage.prompt_tokens,
        rep.usage.completion_tokens,
        rep.model_calls,
        rep.tool_calls,
        rep.cost_usd,
        rep.duration_ms as f64 / 1000.0
    );
    match &r.recipe {
        Some(p) => {
            let _ = writeln!(out, "  recipe: {}", run.run_dir.join(p).display());
        }
        None => {
            let _ = writeln!(out, "  no recipe was produced");
        }
    }
    let _ = writeln!(
        out,
        "  details: {} and {}",
        run.run_dir.join("report.md").display(),
        run.run_dir.join(result::RESULT_FILE).display()
    );
    out.trim_end().to_string()
}
