//! The project question before the first draft: asked once, answered with
//! the read-only tools only, handed to the backend before it drafts, and
//! skipped with a note when the model fails.

use packsmith_agent::*;
use packsmith_llm::{LlmError, ScriptedModel};

use super::fake::Fake;
use super::loop_control::Env;

#[test]
fn the_answer_reaches_the_backend_before_the_draft() {
    let env = Env::new();
    std::fs::write(env.tmp.path().join("repo/README"), "demo: a widget\n").unwrap();
    let mut eco = Fake::new("draft that fails");
    eco.project = true;
    eco.edit_tool = true;
    let model = ScriptedModel::new("s")
        .tool_call("read_file", r#"{"path": "README"}"#)
        .text("A widget library.\nUSE WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded, "{report:?}");
    // The draft the answer chose passed at attempt 1: two calls in all.
    assert_eq!(report.model_calls, 2);
    assert_eq!(report.tool_calls, 1);
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(super::fake::last_user(&requests[0]), "PROJECT demo");
    // Read-only tools only: the recipe editor is not offered.
    let names: Vec<_> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["read_file", "list_dir", "grep"]);
    assert!(requests[1]
        .messages
        .last()
        .unwrap()
        .content
        .contains("demo: a widget"));
    let project_calls = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                AgentEvent::ModelCall {
                    attempt: 0,
                    purpose: CallPurpose::Project,
                    ..
                }
            )
        })
        .count();
    assert_eq!(project_calls, 1);
    assert!(events.iter().any(
        |e| matches!(e, AgentEvent::Note { message } if message.starts_with("project answer"))
    ));
    assert_eq!(
        std::fs::read_to_string(env.run_dir().join("package.fake")).unwrap(),
        "WORKS"
    );
}

#[test]
fn a_mutating_tool_called_anyway_is_refused() {
    let env = Env::new();
    let mut eco = Fake::new("WORKS");
    eco.project = true;
    eco.edit_tool = true;
    let model = ScriptedModel::new("s")
        .tool_call("set_recipe", r#"{"text": "SYNTAX"}"#)
        .text("A widget.");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let requests = model.requests();
    assert!(requests[1]
        .messages
        .last()
        .unwrap()
        .content
        .contains("`set_recipe` is not available"));
    assert_eq!(
        eco.project_answer.lock().unwrap().as_deref(),
        Some("A widget.")
    );
}

#[test]
fn a_failed_model_is_a_note_and_the_draft_still_runs() {
    let env = Env::new();
    let mut eco = Fake::new("WORKS");
    eco.project = true;
    let model = ScriptedModel::new("s").error(LlmError::Config("no model is configured".into()));
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert!(eco.project_answer.lock().unwrap().is_none());
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::Note { message } if message.contains("no project summary")
    )));
}

#[test]
fn without_a_question_no_call_is_made() {
    let env = Env::new();
    let eco = Fake::new("WORKS");
    let model = ScriptedModel::new("s");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(report.model_calls, 0);
}
