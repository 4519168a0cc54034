//! A journal record for the report's unit tests.

use crate::journal::{Outcome, PairResult};
use crate::task::Ecosystem;

/// A Spack pair with stages load and install; it passed both when it
/// succeeded, only load otherwise.
pub(crate) fn pair(task: &str, outcome: Outcome, success_attempt: Option<u32>) -> PairResult {
    PairResult {
        index: 0,
        task: task.into(),
        config: "c".into(),
        ecosystem: Ecosystem::Spack,
        outcome,
        status: None,
        reason: None,
        exit_code: Some(0),
        wall_ms: 2000,
        run_dir: String::new(),
        stages: vec!["load".into(), "install".into()],
        stages_passed: if success_attempt.is_some() {
            vec!["load".into(), "install".into()]
        } else {
            vec!["load".into()]
        },
        attempts: 3,
        success_attempt,
        installed_by: None,
        model_path: None,
        failure_class: (outcome != Outcome::Succeeded).then(|| "compilation".into()),
        model_calls: 1,
        tool_calls: 0,
        prompt_tokens: 100,
        completion_tokens: 10,
        cost_usd: 0.5,
        s_d: Some(0.5),
        s_v: None,
        fidelity: None,
        nix_fidelity: None,
        scored: Some("final".into()),
        score_error: None,
        repair_class: None,
        levels: None,
        smoke_job: None,
        review_open: Vec::new(),
    }
}
