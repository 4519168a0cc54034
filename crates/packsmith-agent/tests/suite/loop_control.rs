//! Attempt counting, stopping rules, static repairs, history, fences,
//! budget, cancellation.

use packsmith_agent::*;
use packsmith_llm::{LlmError, ScriptedModel};
use tempfile::TempDir;

use super::fake::{last_user, read_trace, task, Fake, FakeStage};

pub struct Env {
    pub tmp: TempDir,
    pub opts: AgentOptions,
}

impl Env {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("repo")).unwrap();
        let opts = AgentOptions::new(tmp.path().join("out"));
        Self { tmp, opts }
    }

    pub fn run(&self, eco: &Fake, model: &ScriptedModel) -> (RunReport, Vec<AgentEvent>) {
        let mut events = Vec::new();
        let mut sink = |e: &AgentEvent| events.push(e.clone());
        let report = Agent::run(
            &task("demo", self.tmp.path().join("repo")),
            eco,
            model,
            &self.opts,
            &mut sink,
        )
        .unwrap();
        (report, events)
    }

    /// Runs with `sink` as the event sink.
    pub fn run_to(&self, eco: &Fake, model: &ScriptedModel, sink: &mut dyn EventSink) -> RunReport {
        Agent::run(
            &task("demo", self.tmp.path().join("repo")),
            eco,
            model,
            &self.opts,
            sink,
        )
        .unwrap()
    }

    pub fn run_dir(&self) -> std::path::PathBuf {
        self.tmp.path().join("out/demo")
    }
}

#[test]
fn a_passing_first_draft_spends_no_tokens() {
    let env = Env::new();
    let eco = Fake::new("WORKS draft\n");
    let model = ScriptedModel::new("scripted:none");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(report.attempts[0].kind, AttemptKind::Draft);
    assert!(model.requests().is_empty());
    assert_eq!(report.usage.total(), 0);
    assert!(!events
        .iter()
        .any(|e| matches!(e, AgentEvent::ModelCall { .. })));
    let final_recipe = std::fs::read_to_string(env.run_dir().join("package.fake")).unwrap();
    assert_eq!(final_recipe, "WORKS draft\n");
    assert_eq!(report.final_recipe.as_deref(), Some("package.fake"));
}

#[test]
fn a_recipe_a_stage_amends_is_the_one_later_stages_see_and_the_run_keeps() {
    let env = Env::new();
    let eco = Fake::new("WORKS AMEND\n");
    let (report, events) = env.run(&eco, &ScriptedModel::new("scripted:none"));
    assert_eq!(report.status, RunStatus::Succeeded);
    let runs = eco.runs();
    assert_eq!(runs[0], ("load".into(), "WORKS AMEND\n".into()));
    assert_eq!(runs[1], ("build".into(), "WORKS AMEND\n# amended\n".into()));
    let final_recipe = std::fs::read_to_string(env.run_dir().join("package.fake")).unwrap();
    assert_eq!(final_recipe, "WORKS AMEND\n# amended\n");
    let attempt = env.run_dir().join(&report.attempts[0].recipe_path);
    assert_eq!(std::fs::read_to_string(attempt).unwrap(), final_recipe);
    assert!(events
        .iter()
        .any(|e| matches!(e, AgentEvent::Note { message }
        if message == "attempt 1: the load stage amended the recipe")));
}

#[test]
fn stops_at_k_attempts_and_keeps_the_best_marked() {
    let mut env = Env::new();
    env.opts.max_attempts = 3;
    let eco = Fake::new("draft LOADFAIL");
    let model = ScriptedModel::new("s")
        .text("one")
        .text("two LOADFAIL")
        .text("never used");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::AttemptsExhausted);
    assert_eq!(report.attempts.len(), 3);
    assert_eq!(model.requests().len(), 2);
    assert_eq!(model.remaining(), 1);
    // Attempt 2 got furthest (past load).
    assert_eq!(report.best_attempt, Some(2));
    assert!(!env.run_dir().join("package.fake").exists());
    let best = std::fs::read_to_string(env.run_dir().join("best-attempt.package.fake")).unwrap();
    assert_eq!(best, "one\n");
    let md = std::fs::read_to_string(env.run_dir().join("report.md")).unwrap();
    assert!(md.contains("did NOT pass"), "{md}");
}

#[test]
fn stops_at_the_first_success() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("still broken")
        .text("WORKS now")
        .text("unused");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts.len(), 3);
    assert_eq!(report.attempts[1].kind, AttemptKind::ModelDraft);
    // Without a progress hook nothing is judged or rolled back.
    assert!(!events
        .iter()
        .any(|e| matches!(e, AgentEvent::Progress { .. })));
    assert!(report
        .attempts
        .iter()
        .all(|a| a.verdict.is_none() && !a.rolled_back));
    assert_eq!(report.attempts[2].kind, AttemptKind::Repair);
    assert_eq!(model.remaining(), 1);
    assert_eq!(report.best_attempt, Some(3));
    // The first model call is the draft request, carrying the draft's failure.
    let first = &model.requests()[0];
    assert_eq!(first.system.as_deref(), Some("draft"));
    assert!(last_user(first).contains("build build_error"));
}

#[test]
fn static_check_errors_are_repaired_without_running_stages() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("SYNTAX oops")
        .text("WORKS fixed");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts.len(), 2);
    assert_eq!(report.attempts[1].static_repairs, 1);
    assert!(eco.runs().iter().all(|(_, text)| !text.contains("SYNTAX")));
    let repair = &model.requests()[1];
    assert!(last_user(repair).contains("FAILURE static_check static_check: line 1: syntax"));
    assert!(last_user(repair).contains("SYNTAX oops"));
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ModelCall {
            purpose: CallPurpose::StaticRepair,
            ..
        }
    )));
}

#[test]
fn static_repairs_are_bounded_per_attempt() {
    let mut env = Env::new();
    env.opts.max_static_repairs = 1;
    env.opts.max_attempts = 2;
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s").text("SYNTAX a").text("SYNTAX b");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::AttemptsExhausted);
    let second = &report.attempts[1];
    assert_eq!(second.stage_reached, STATIC_CHECK);
    assert!(second.stages.is_empty());
    assert_eq!(second.static_repairs, 1);
    // Only the draft reached the stages.
    assert!(eco.runs().iter().all(|(_, t)| t == "draft"));
    // A static-check failure ranks below a stage failure.
    assert_eq!(report.best_attempt, Some(1));
}

#[test]
fn repair_requests_carry_a_compact_history() {
    let mut env = Env::new();
    env.opts.max_attempts = 4;
    let eco = Fake::new("line a\nline b\n");
    let model = ScriptedModel::new("s")
        .text("line a\nline B LOADFAIL\n")
        .text("line a\nline C\n")
        .text("line a\nline D\n");
    let (_report, _) = env.run(&eco, &model);
    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    let last = last_user(&requests[2]);
    assert!(last.contains("CURRENT #3:\nline a\nline C"), "{last}");
    assert!(
        last.contains("attempt 1 (Draft): failed at build [build_error]"),
        "{last}"
    );
    assert!(
        last.contains("attempt 2 (ModelDraft from #1): failed at load [load_error]"),
        "{last}"
    );
    assert!(
        last.contains("attempt 3 (Repair from #2): failed at build [build_error]"),
        "{last}"
    );
    assert!(
        last.contains("-line B LOADFAIL") && last.contains("+line C"),
        "{last}"
    );
}

#[test]
fn fences_are_stripped_before_checking() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s").text("Here it is:\n```python\nWORKS fenced\n```\nEnjoy!");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(
        std::fs::read_to_string(env.run_dir().join("package.fake")).unwrap(),
        "WORKS fenced\n"
    );
}

#[test]
fn an_unchanged_recipe_is_not_validated_again() {
    let mut env = Env::new();
    env.opts.max_attempts = 3;
    let eco = Fake::new("draft");
    // Echoed twice (the second time after being told it was unchanged).
    let model = ScriptedModel::new("s")
        .text("draft")
        .text("draft")
        .text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let second = &report.attempts[1];
    assert_eq!(second.failure.as_ref().unwrap().class, "unchanged");
    // The error it would hit again stays, for the next repair to read.
    let first = &report.attempts[0].failure.as_ref().unwrap().excerpt;
    assert!(
        second
            .failure
            .as_ref()
            .unwrap()
            .excerpt
            .ends_with(first.as_str()),
        "{:?}",
        second.failure
    );
    assert_eq!(second.model_calls, 2);
    assert!(second.stages.is_empty());
    assert_eq!(
        eco.runs()
            .iter()
            .filter(|(_, t)| t == "draft\n" || t == "draft")
            .count(),
        2
    );
}

#[test]
fn a_recipe_echoed_again_points_at_the_attempt_that_ran() {
    let mut env = Env::new();
    env.opts.max_attempts = 4;
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("draft")
        .text("draft")
        .text("draft")
        .text("draft")
        .text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let third = report.attempts[2].failure.as_ref().unwrap();
    assert_eq!(third.class, "unchanged");
    // Not "identical to attempt 2, which failed … identical to attempt 1":
    // the attempt whose stages ran is named once, with its own failure.
    assert!(
        third
            .excerpt
            .starts_with("the recipe is identical to attempt 1,"),
        "{}",
        third.excerpt
    );
    assert_eq!(third.excerpt.matches("identical to attempt").count(), 1);
}

#[test]
fn without_a_first_draft_the_model_drafts_first() {
    let env = Env::new();
    let mut eco = Fake::new("");
    eco.draft = Err("no build system found".into());
    let model = ScriptedModel::new("s").text("WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts[0].kind, AttemptKind::ModelDraft);
    assert!(last_user(&model.requests()[0]).contains("no build system found"));
    assert!(events.iter().any(|e| matches!(e, AgentEvent::Note { .. })));
}

#[test]
fn budget_exhaustion_stops_cleanly_with_the_report_written() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("first try")
        .error(LlmError::BudgetExhausted("1000 of 1000 tokens used".into()));
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::BudgetExhausted);
    assert!(report.reason.contains("1000 of 1000"));
    assert_eq!(report.attempts.len(), 2);
    assert_ended_with_everything_kept(&env, &events, RunStatus::BudgetExhausted);
}

/// A run a model error stopped: the report on disk says `status`, the best
/// recipe so far is kept, and the last event is the run's end.
fn assert_ended_with_everything_kept(env: &Env, events: &[AgentEvent], status: RunStatus) {
    let on_disk: RunReport =
        serde_json::from_str(&std::fs::read_to_string(env.run_dir().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk.status, status);
    assert!(env.run_dir().join("best-attempt.package.fake").exists());
    assert!(
        matches!(events.last(), Some(AgentEvent::RunFinished { status: s, .. }) if *s == status),
        "{:?}",
        events.last()
    );
}

#[test]
fn a_failing_model_ends_the_run_with_a_report() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s"); // empty script: every call errs
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Failed);
    assert!(report.reason.contains("the model failed"));
    assert!(env.run_dir().join("report.json").exists());
}

#[test]
fn a_model_call_stopped_by_ctrl_c_ends_the_run_as_interrupted() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("first try")
        .error(LlmError::Cancelled);
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Interrupted, "{report:#?}");
    assert!(report.reason.contains("cancelled"), "{}", report.reason);
    assert_ended_with_everything_kept(&env, &events, RunStatus::Interrupted);
}

#[test]
fn a_stage_that_cannot_run_stops_the_run() {
    let env = Env::new();
    let eco = Fake::new("FATAL draft");
    let model = ScriptedModel::new("s");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Failed);
    assert!(report.reason.contains("sandbox"), "{}", report.reason);
    assert!(report.attempts[0].interrupted);
}

#[test]
fn cancellation_between_attempts_leaves_a_consistent_directory() {
    let mut env = Env::new();
    env.opts.max_attempts = 10;
    let cancel = env.opts.cancel.clone();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("a")
        .text("b")
        .text("c")
        .text("d");
    let mut sink = |e: &AgentEvent| {
        if let AgentEvent::AttemptFinished { attempt: 2, .. } = e {
            cancel.cancel();
        }
    };
    let report = Agent::run(
        &task("demo", env.tmp.path().join("repo")),
        &eco,
        &model,
        &env.opts,
        &mut sink,
    )
    .unwrap();
    assert_eq!(report.status, RunStatus::Interrupted);
    assert_eq!(report.attempts.len(), 2);
    assert_eq!(model.requests().len(), 1);
    let dir = env.run_dir();
    let on_disk: RunReport =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_eq!(on_disk.status, RunStatus::Interrupted);
    for a in &on_disk.attempts {
        assert!(dir.join(&a.recipe_path).is_file());
    }
    let trace = read_trace(&dir.join("trace.jsonl"));
    assert!(matches!(
        trace.last().unwrap().event,
        AgentEvent::RunFinished {
            status: RunStatus::Interrupted,
            ..
        }
    ));
}

#[test]
fn cancellation_mid_attempt_records_the_attempt_as_interrupted() {
    let env = Env::new();
    let cancel = env.opts.cancel.clone();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s").text("a").text("b");
    let mut sink = |e: &AgentEvent| {
        if let AgentEvent::StageFinished {
            attempt: 2, stage, ..
        } = e
        {
            if stage == "load" {
                cancel.cancel();
            }
        }
    };
    let report = Agent::run(
        &task("demo", env.tmp.path().join("repo")),
        &eco,
        &model,
        &env.opts,
        &mut sink,
    )
    .unwrap();
    assert_eq!(report.status, RunStatus::Interrupted);
    let second = &report.attempts[1];
    assert!(second.interrupted);
    assert!(!second.passed);
    assert_eq!(second.stages.len(), 1);
    let diag: packsmith_agent::rundir::AttemptDiagnosis = serde_json::from_str(
        &std::fs::read_to_string(env.run_dir().join("attempts/02/diagnosis.json")).unwrap(),
    )
    .unwrap();
    assert!(diag.record.interrupted);
}

/// Runs `draft` and sets the cancel flag when `stage` of attempt 1 starts,
/// as Ctrl-C during that stage's command would.
fn cancel_when_started(draft: &str, stage: &str) -> (Env, RunReport, Vec<AgentEvent>) {
    let env = Env::new();
    let cancel = env.opts.cancel.clone();
    let eco = Fake::new(draft);
    let model = ScriptedModel::new("s");
    let mut events = Vec::new();
    let mut sink = |e: &AgentEvent| {
        if let AgentEvent::StageStarted {
            attempt: 1,
            stage: s,
        } = e
        {
            if s == stage {
                cancel.cancel();
            }
        }
        events.push(e.clone());
    };
    let report = env.run_to(&eco, &model, &mut sink);
    (env, report, events)
}

#[test]
fn a_stage_cut_off_by_cancellation_is_recorded_as_cancelled_not_failed() {
    let (env, report, events) = cancel_when_started("draft", "build");
    assert_eq!(report.status, RunStatus::Interrupted, "{report:#?}");
    let first = &report.attempts[0];
    assert!(first.interrupted && !first.passed);
    assert_eq!(first.failure, None, "a cancelled stage is no failure");
    assert_eq!(first.stage_reached, "build");
    let stages: Vec<(&str, bool, bool)> = first
        .stages
        .iter()
        .map(|s| (s.name.as_str(), s.passed, s.cancelled))
        .collect();
    assert_eq!(stages, [("load", true, false), ("build", false, true)]);
    assert!(!events.iter().any(|e| matches!(
        e,
        AgentEvent::StageFinished { stage, .. } if stage == "build"
    )));
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(env.run_dir().join("report.json")).unwrap())
            .unwrap();
    assert_eq!(on_disk["status"], "interrupted");
    assert_eq!(on_disk["attempts"][0]["stages"][1]["cancelled"], true);
    assert!(on_disk["attempts"][0]["stages"][0]
        .get("cancelled")
        .is_none());
    assert!(on_disk["attempts"][0].get("failure").is_none());
}

#[test]
fn a_stage_that_errors_after_cancellation_ends_the_run_as_interrupted() {
    let (_env, report, _) = cancel_when_started("FATAL", "load");
    assert_eq!(report.status, RunStatus::Interrupted, "{report:#?}");
    assert!(report.attempts[0].stages[0].cancelled);
}

#[test]
fn an_existing_run_is_not_overwritten_unless_asked() {
    let mut env = Env::new();
    let eco = Fake::new("WORKS");
    let model = ScriptedModel::new("s");
    env.run(&eco, &model);
    let err = Agent::run(
        &task("demo", env.tmp.path().join("repo")),
        &eco,
        &model,
        &env.opts,
        &mut NoEvents,
    )
    .unwrap_err();
    assert!(matches!(err, AgentError::RunExists { .. }));
    env.opts.replace_existing = true;
    env.run(&eco, &model);
}

#[test]
fn a_backend_fix_reruns_the_stages_within_the_attempt_without_the_model() {
    let env = Env::new();
    let eco = Fake::new("FIXABLE");
    let model = ScriptedModel::new("scripted");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts.len(), 1);
    assert_eq!(report.model_calls, 0);
    let stages: Vec<String> = eco.runs().into_iter().map(|(s, _)| s).collect();
    assert_eq!(stages, ["load", "build", "load", "build"]);
    assert!(std::fs::read_to_string(env.run_dir().join("package.fake"))
        .unwrap()
        .contains("WORKS"));
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::Note { message } if message.contains("FIXABLE became WORKS"))
    ));
}

#[test]
fn backend_fixes_are_bounded_per_attempt() {
    let mut env = Env::new();
    env.opts.max_attempts = 1;
    let eco = Fake::new("UNFIXABLE");
    let (report, _) = env.run(&eco, &ScriptedModel::new("scripted"));
    assert_eq!(report.status, RunStatus::AttemptsExhausted);
    let builds = eco.runs().iter().filter(|(s, _)| s == "build").count();
    assert_eq!(builds as u32, MAX_AUTO_FIXES + 1);
}

#[test]
fn an_echoed_recipe_is_sent_back_once_before_it_costs_an_attempt() {
    let env = Env::new();
    let eco = Fake::new("broken draft\n");
    // The first answer repeats the draft; the second changes it.
    let model = ScriptedModel::new("scripted:echo")
        .text("broken draft\n")
        .text("WORKS now\n");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    assert_eq!(report.attempts.len(), 2);
    assert_eq!(report.attempts[1].model_calls, 2);
    let requests = model.requests();
    let nudge = &requests[1];
    assert!(nudge.messages.len() >= 3);
    assert!(last_user(nudge).contains("same recipe, unchanged"));
    assert!(nudge.temperature.unwrap_or(0.0) >= 0.7);
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::Note { message } if message.contains("unchanged; asking again"))
    ));
}

#[test]
fn a_stage_failure_carries_the_backend_detail_and_an_unchanged_one_keeps_it() {
    use std::sync::{Arc, Mutex};
    let mut env = Env::new();
    env.opts.max_attempts = 3;
    let mut eco = Fake::new("draft");
    /// What the progress hook saw: (class, the fake's typed stage).
    type Seen = Vec<(String, Option<FakeStage>)>;
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let log = seen.clone();
    eco.progress = Some(Box::new(move |input: &ProgressInput| {
        let f = input.candidate.failure.as_ref().unwrap();
        let stage = f.detail.get::<FakeStage>().copied();
        log.lock().unwrap().push((f.class.clone(), stage));
        ProgressCheck::Skip
    }));
    let model = ScriptedModel::new("s")
        .text("draft")
        .text("draft")
        .text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            ("build_error".to_string(), Some(FakeStage::Build)),
            // The same recipe would fail the same way: the next repair
            // reads the backend's account of that failure.
            ("unchanged".to_string(), Some(FakeStage::Build)),
        ]
    );
    // The detail stays in memory: the report has the class, not the detail.
    let text = std::fs::read_to_string(env.run_dir().join("report.json")).unwrap();
    assert!(!text.contains("detail"), "{text}");
}

#[test]
fn an_answer_the_backend_refuses_is_asked_again_with_the_reason() {
    let mut env = Env::new();
    env.opts.max_attempts = 2;
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .text("EDIT: nope->x")
        .text("EDIT: draft->WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.attempts[1].model_calls, 2);
    // A refused answer is not called an unchanged one.
    let notes: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Note { message } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        notes
            .iter()
            .any(|m| m.contains("asking again with the reason")),
        "{notes:?}"
    );
    assert!(!notes.iter().any(|m| m.contains("unchanged")), "{notes:?}");
    let again = &model.requests()[1];
    // The answer as the model gave it, then why it could not be used.
    let n = again.messages.len();
    assert_eq!(again.messages[n - 2].content, "EDIT: nope->x");
    assert!(
        last_user(again).contains("could not be used: no `nope` in the recipe"),
        "{}",
        last_user(again)
    );
    assert_eq!(eco.runs().last().unwrap().1, "WORKS");
}

#[test]
fn a_static_failure_is_fixed_by_rule_before_any_model_call() {
    let env = Env::new();
    let eco = Fake::new("RULESYNTAX");
    let model = ScriptedModel::new("s");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.model_calls, 0);
    assert_eq!(report.attempts.len(), 1);
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::Note { message } if message.contains("RULESYNTAX became WORKS"))
    ));
}
