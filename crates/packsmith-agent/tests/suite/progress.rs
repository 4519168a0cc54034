//! The progress hook: verdicts, rollback to the last accepted recipe, the
//! no-progress stop, model-judged progress, broken logs, refinement.

use packsmith_agent::*;
use packsmith_llm::ScriptedModel;

use super::fake::{last_user, Fake};
use super::loop_control::Env;

/// REGRESS when the candidate says so, PROGRESS otherwise.
fn by_text() -> Box<dyn Fn(&ProgressInput) -> ProgressCheck + Send + Sync> {
    Box::new(|input| {
        let text = &input.candidate.recipe.text;
        let verdict = if text.contains("REGRESS") {
            ProgressVerdict::Regress
        } else if text.contains("STAGNANT") {
            ProgressVerdict::Stagnation
        } else if text.contains("GARBLED") {
            ProgressVerdict::BrokenLog
        } else {
            ProgressVerdict::Progress
        };
        ProgressCheck::Decided {
            verdict,
            reason: "by text".into(),
        }
    })
}

#[test]
fn regress_rolls_back_to_the_last_accepted_recipe() {
    let mut env = Env::new();
    env.opts.max_attempts = 5;
    let mut eco = Fake::new("draft");
    eco.progress = Some(by_text());
    let model = ScriptedModel::new("s")
        .text("good one")
        .text("worse REGRESS")
        .text("WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let third = &report.attempts[2];
    assert_eq!(third.verdict, Some(ProgressVerdict::Regress));
    assert!(third.rolled_back);
    // The repair after the regression starts from attempt 2, not 3.
    let req = last_user(&model.requests()[2]);
    assert!(req.contains("CURRENT #2:\ngood one"), "{req}");
    assert!(req.contains("Regress, rolled back"), "{req}");
    assert_eq!(report.attempts[3].base, Some(2));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Progress {
            attempt: 3,
            verdict: ProgressVerdict::Regress,
            against: Some(2),
            rolled_back: true,
            ..
        }
    )));
}

#[test]
fn consecutive_non_progress_stops_the_run() {
    let mut env = Env::new();
    env.opts.max_attempts = 20;
    env.opts.max_no_progress = Some(2);
    let mut eco = Fake::new("draft");
    eco.progress = Some(by_text());
    let model = ScriptedModel::new("s")
        .text("a REGRESS")
        .text("b STAGNANT")
        .text("unused");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::NoProgress);
    assert_eq!(report.attempts.len(), 3);
    // All failed at build; the accepted draft ranks above the rolled-back ones.
    assert_eq!(report.best_attempt, Some(1));
}

#[test]
fn the_model_can_judge_progress() {
    let mut env = Env::new();
    env.opts.max_attempts = 4;
    let mut eco = Fake::new("draft");
    eco.progress = Some(Box::new(|input: &ProgressInput| match &input.accepted {
        None => ProgressCheck::Decided {
            verdict: ProgressVerdict::Progress,
            reason: "first".into(),
        },
        Some(_) => ProgressCheck::AskModel(packsmith_core::chat::ChatRequest::new(
            None,
            vec![packsmith_core::chat::ChatMessage::user("JUDGE")],
        )),
    }));
    let model = ScriptedModel::new("s")
        .text("second")
        .text("The verdict is STAGNATION.")
        .text("WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(
        report.attempts[1].verdict,
        Some(ProgressVerdict::Stagnation)
    );
    assert!(report.attempts[1].rolled_back);
    assert_eq!(report.attempts[1].model_calls, 2);
    assert!(last_user(&model.requests()[2]).contains("CURRENT #1:\ndraft"));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ModelCall {
            purpose: CallPurpose::Progress,
            ..
        }
    )));
}

#[test]
fn a_broken_log_keeps_the_attempt_and_tells_the_next_prompt() {
    let env = Env::new();
    let mut eco = Fake::new("draft");
    eco.progress = Some(by_text());
    let model = ScriptedModel::new("s").text("noisy GARBLED").text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert!(!report.attempts[1].rolled_back);
    let req = last_user(&model.requests()[1]);
    assert!(req.contains("BROKEN LOG"), "{req}");
    assert!(req.contains("CURRENT #2:\nnoisy GARBLED"), "{req}");
}

#[test]
fn skip_repairs_the_candidate_without_accepting_it() {
    let mut env = Env::new();
    env.opts.max_attempts = 3;
    let mut eco = Fake::new("draft");
    eco.progress = Some(Box::new(|_: &ProgressInput| ProgressCheck::Skip));
    let model = ScriptedModel::new("s").text("eval error").text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts[1].verdict, None);
    assert!(last_user(&model.requests()[1]).contains("CURRENT #2:\neval error"));
}

#[test]
fn refinement_replaces_the_recipe_only_when_it_passes() {
    let mut env = Env::new();
    env.opts.refine_rounds = 2;
    let mut eco = Fake::new("WORKS v1");
    eco.refine = true;
    let model = ScriptedModel::new("s")
        .text("add meta")
        .text("WORKS v2 with meta")
        .text("add a check")
        .text("v3 broken");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts.len(), 3);
    assert_eq!(report.attempts[1].kind, AttemptKind::Refine);
    assert!(report.attempts[1].passed);
    assert!(report.attempts[2].rolled_back);
    assert_eq!(report.best_attempt, Some(2));
    assert_eq!(
        std::fs::read_to_string(env.run_dir().join("package.fake")).unwrap(),
        "WORKS v2 with meta\n"
    );
    // The evaluator's call is accounted to the refinement attempt.
    assert_eq!(report.attempts[1].model_calls, 2);
}
