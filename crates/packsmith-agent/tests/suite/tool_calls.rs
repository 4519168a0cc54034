//! Tool calls inside a model turn: malformed calls answered, rounds capped,
//! mutating tools editing the recipe, tools switched off.

use packsmith_agent::*;
use packsmith_core::chat::Role;
use packsmith_llm::ScriptedModel;

use super::fake::Fake;
use super::loop_control::Env;

#[test]
fn malformed_tool_calls_are_answered_not_crashed() {
    let env = Env::new();
    std::fs::write(
        env.tmp.path().join("repo/CMakeLists.txt"),
        "project(demo)\n",
    )
    .unwrap();
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .tool_call("read_file", "{not json")
        .tool_call("no_such_tool", "{}")
        .tool_call("read_file", r#"{"path": 5}"#)
        .tool_call("read_file", r#"{"path": "../../etc/passwd"}"#)
        .tool_call("read_file", r#"{"path": "CMakeLists.txt"}"#)
        .text("WORKS");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let oks: Vec<bool> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::ToolCall { ok, .. } => Some(*ok),
            _ => None,
        })
        .collect();
    assert_eq!(oks, vec![false, false, false, false, true]);
    assert_eq!(report.tool_calls, 5);
    let requests = model.requests();
    let tool_reply = |i: usize| {
        let m = requests[i].messages.last().unwrap();
        assert_eq!(m.role, Role::Tool);
        m.content.clone()
    };
    assert!(tool_reply(1).contains("not valid JSON"));
    assert!(tool_reply(2).contains("no tool named `no_such_tool`"));
    assert!(tool_reply(3).contains("should be string"));
    assert!(tool_reply(4).contains(".."));
    assert!(tool_reply(5).contains("project(demo)"));
    // The repository tools were offered.
    let names: Vec<_> = requests[0].tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, vec!["read_file", "list_dir", "grep"]);
}

#[test]
fn tool_rounds_are_capped_per_turn() {
    let mut env = Env::new();
    env.opts.max_tool_rounds = 2;
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s")
        .tool_call("list_dir", "{}")
        .tool_call("list_dir", "{}")
        .tool_call("list_dir", "{}")
        .text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    let last = &requests[3];
    assert!(last.tools.is_empty());
    assert_eq!(last.messages.last().unwrap().content, TOOLS_SPENT);
    assert_eq!(report.tool_calls, 2);
}

#[test]
fn a_mutating_tool_edits_the_recipe() {
    let env = Env::new();
    let mut eco = Fake::new("draft");
    eco.edit_tool = true;
    let model = ScriptedModel::new("s")
        .tool_call("set_recipe", r#"{"text": "WORKS edited\n"}"#)
        .text("Done: I fixed the recipe.");
    let (report, events) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert_eq!(
        std::fs::read_to_string(env.run_dir().join("package.fake")).unwrap(),
        "WORKS edited\n"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        AgentEvent::ToolCall {
            mutating: true,
            ok: true,
            ..
        }
    )));
}

#[test]
fn mutating_tools_can_be_switched_off() {
    let mut env = Env::new();
    env.opts.allow_mutating_tools = false;
    let mut eco = Fake::new("draft");
    eco.edit_tool = true;
    let model = ScriptedModel::new("s")
        .tool_call("set_recipe", r#"{"text": "WORKS edited"}"#)
        .text("WORKS by text");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    let requests = model.requests();
    assert!(!requests[0].tools.iter().any(|t| t.name == "set_recipe"));
    assert!(requests[1]
        .messages
        .last()
        .unwrap()
        .content
        .contains("no tool named"));
}

#[test]
fn with_tools_off_no_tools_are_offered() {
    let mut env = Env::new();
    env.opts.tools = false;
    let eco = Fake::new("draft");
    let model = ScriptedModel::new("s").text("WORKS");
    let (report, _) = env.run(&eco, &model);
    assert_eq!(report.status, RunStatus::Succeeded);
    assert!(model.requests()[0].tools.is_empty());
}
