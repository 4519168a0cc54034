//! The trace and the run directory's files.

use packsmith_agent::rundir::AttemptDiagnosis;
use packsmith_agent::*;
use packsmith_llm::ScriptedModel;

use super::fake::{read_trace, Fake};
use super::loop_control::Env;

#[test]
fn the_trace_is_jsonl_with_every_model_calls_tokens() {
    let env = Env::new();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .tool_call("list_dir", "{}")
        .text("SYNTAX")
        .text("broken")
        .text("WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let trace = read_trace(&env.run_dir().join("trace.jsonl"));
    // The sink saw exactly what the trace holds, in order.
    assert_eq!(trace.len(), events.len());
    for (i, line) in trace.iter().enumerate() {
        assert_eq!(line.seq, i as u64 + 1);
        assert_eq!(line.event, events[i]);
    }
    let calls: Vec<_> = trace
        .iter()
        .filter_map(|l| match &l.event {
            AgentEvent::ModelCall { usage, request, .. } => Some((*usage, request.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), model.requests().len());
    assert!(calls
        .iter()
        .all(|(u, r)| u.prompt_tokens > 0 && r.sha256.len() == 16));
    let prompt: u64 = calls.iter().map(|(u, _)| u.prompt_tokens).sum();
    assert_eq!(report.usage.prompt_tokens, prompt);
    let per_attempt: u64 = report.attempts.iter().map(|a| a.usage.prompt_tokens).sum();
    assert_eq!(per_attempt, prompt);
    // Prompt text is not in the trace by default.
    let raw = std::fs::read_to_string(env.run_dir().join("trace.jsonl")).unwrap();
    assert!(!raw.contains("DRAFT demo"));
    assert!(matches!(trace[0].event, AgentEvent::RunStarted { .. }));
    assert!(matches!(
        trace.last().unwrap().event,
        AgentEvent::RunFinished { .. }
    ));
}

#[test]
fn every_attempt_has_its_recipe_logs_and_diagnosis() {
    let mut env = Env::new();
    env.opts.request_log = RequestLog::Full;
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s").text("WORKS");
    let (report, _) = env.run(&eco, &model);
    let dir = env.run_dir();
    for a in &report.attempts {
        let nn = format!("attempts/{:02}", a.attempt);
        assert_eq!(a.recipe_path, format!("{nn}/package.fake"));
        assert!(dir.join(&a.recipe_path).is_file());
        let diag: AttemptDiagnosis = serde_json::from_str(
            &std::fs::read_to_string(dir.join(&nn).join("diagnosis.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(&diag.record, a);
        for s in &a.stages {
            assert!(dir.join(s.log_path.as_ref().unwrap()).is_file(), "{s:?}");
        }
    }
    assert_eq!(
        report.attempts[0].stages[1].log_path.as_deref(),
        Some("attempts/01/build.log")
    );
    let call: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("attempts/02/calls/01.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(call["purpose"], "draft");
    assert!(call["request"]["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("DRAFT demo"));
    assert_eq!(call["response"]["content"], "WORKS");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("**succeeded**") && md.contains("Recipe: `package.fake`"),
        "{md}"
    );
}

#[test]
fn a_bad_run_name_is_refused() {
    let env = Env::new();
    let eco = Fake::new("WORKS");
    let model = ScriptedModel::new("s");
    let err = Agent::run(
        &super::fake::task("../escape", env.tmp.path().join("repo")),
        &eco,
        &model,
        &env.opts,
        &mut NoEvents,
    )
    .unwrap_err();
    assert!(matches!(err, AgentError::BadName { .. }));
}
