//! SIGKILL mid-run: the run directory must stay readable. The parent test
//! re-runs this test binary with one test selected and an environment
//! variable that turns the child entry point on.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use packsmith_agent::rundir::AttemptDiagnosis;
use packsmith_agent::*;
use packsmith_llm::ScriptedModel;

use super::fake::{read_trace, task, Fake};

const CHILD_ENV: &str = "PACKSMITH_AGENT_TEST_CHILD_OUT";

/// Runs only in the child: a long loop that never succeeds.
#[test]
fn child_process_entry() {
    let Ok(out) = std::env::var(CHILD_ENV) else {
        return;
    };
    let out = Path::new(&out);
    std::fs::create_dir_all(out.join("repo")).unwrap();
    let mut eco = Fake::new("draft");
    eco.stage_delay = Duration::from_millis(20);
    let mut model = ScriptedModel::new("s");
    for i in 0..500 {
        model = if i % 3 == 0 {
            model.tool_call("list_dir", "{}")
        } else {
            model.text(format!("try {i}\n"))
        };
    }
    let mut opts = AgentOptions::new(out.join("out"));
    opts.max_attempts = 400;
    opts.request_log = RequestLog::Full;
    Agent::run(
        &task("demo", out.join("repo")),
        &eco,
        &model,
        &opts,
        &mut NoEvents,
    )
    .unwrap();
}

#[test]
fn a_killed_run_leaves_a_readable_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "suite::kill::child_process_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, tmp.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let run = tmp.path().join("out/demo");
    let trace = run.join("trace.jsonl");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let finished = std::fs::read_to_string(&trace)
            .map(|t| t.matches("\"type\":\"attempt_finished\"").count())
            .unwrap_or(0);
        if finished >= 6 {
            break;
        }
        assert!(Instant::now() < deadline, "the child made no progress");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child exited early"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    // Every trace line is whole JSON.
    let lines = read_trace(&trace);
    assert!(lines.len() > 6);
    assert!(!lines
        .iter()
        .any(|l| matches!(l.event, AgentEvent::RunFinished { .. })));
    // The report is whole, says interrupted, and lists only finished work.
    let report: RunReport =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert_eq!(report.status, RunStatus::Interrupted);
    assert!(report.attempts.len() >= 5);
    for a in &report.attempts {
        assert!(run.join(&a.recipe_path).is_file());
    }
    // Every file that is not a temporary of atomic_write parses.
    check_tree(&run);
}

fn check_tree(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".tmp") {
            continue;
        }
        if path.is_dir() {
            check_tree(&path);
        } else if name == "diagnosis.json" {
            let d: AttemptDiagnosis =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(d.record.attempt > 0);
        } else if name.ends_with(".json") {
            serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
    }
}
