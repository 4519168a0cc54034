//! The Spack backend of the agent loop: prompts, static check and output
//! cleaning without Spack; the whole loop with a scripted model against
//! the real Spack (skipped with a loud SKIPPED line without one; set
//! PACKSMITH_TEST_SPACK=/path/to/spack-checkout, set up by `packsmith setup spack`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use crate::real_loop::{ecosystem, facts, AfterInstall, LoopEnv};
use std::path::{Path, PathBuf};

use packsmith_agent::{
    Agent, AgentOptions, AttemptDir, AttemptHistory, Ecosystem, Failure, Recipe, RunStatus,
    StageSpec, Task,
};
use packsmith_core::chat::Role;
use packsmith_llm::ScriptedModel;
use packsmith_spack::ecosystem::{PromptSettings, SpackEcosystem, Validation};
use packsmith_spack::validate::{Sandbox, SpackSetup, StageOptions};
use packsmith_spack_draft::brief::build_brief;
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::target::TargetSpack;

fn tiny_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\nproject(tinyeco VERSION 0.3.0 LANGUAGES C)\nif(TINY_FAIL)\n  message(FATAL_ERROR \"TINY_FAIL is set: not supported\")\nendif()\nadd_library(tinyeco src/tiny.c)\ninstall(TARGETS tinyeco)\n",
    )
    .unwrap();
    std::fs::write(dir.join("src/tiny.c"), "int tiny(void) { return 3; }\n").unwrap();
}

fn fake_validation() -> Validation {
    Validation {
        setup: SpackSetup {
            spack_bin: PathBuf::from("/nonexistent/spack"),
            env: Default::default(),
            scratch: std::env::temp_dir(),
        },
        sandbox: Sandbox::None,
        mirror: None,
        options: StageOptions::default(),
        audit: true,
        install: true,
        hermeticity: false,
        smoke: false,
    }
}

fn task(name: &str, root: &Path) -> Task {
    Task {
        name: name.into(),
        repo_root: root.to_path_buf(),
        version: Some("0.3.0".into()),
        references: Default::default(),
        context: serde_json::Value::Null,
    }
}

const SHA: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn recipe(sha: &str, extra: &str) -> String {
    format!(
        "from spack.package import *\n\n\nclass Tinyeco(CMakePackage):\n    \"\"\"A tiny library.\"\"\"\n\n    homepage = \"https://example.invalid/tinyeco\"\n    url = \"file:///wrong/tinyeco-0.3.0.tar.gz\"\n\n    version(\"0.3.0\", sha256=\"{sha}\")\n{extra}"
    )
}

#[test]
fn repair_prompt_carries_excerpt_history_and_recipe_not_the_log() {
    let dir = tempfile::tempdir().unwrap();
    tiny_project(dir.path());
    let mut brief = build_brief(&facts(dir.path()), TargetSpack::V0_23, &NoKnowledge);
    brief.fetch.version = Some("0.3.0".into());
    let eco = SpackEcosystem::new(brief, PromptSettings::default(), fake_validation());
    let log = dir.path().join("install.log");
    let mut failure = Failure::new(
        "install",
        "compilation",
        "src/tiny.c:1:5: error: conflicting types for 'tiny'",
    );
    failure.log_path = Some(log);
    let history = AttemptHistory {
        current: Recipe::new("package.py", recipe(SHA, "")),
        current_attempt: 2,
        entries: vec![packsmith_agent::HistoryEntry {
            attempt: 1,
            kind: packsmith_agent::AttemptKind::Draft,
            base: None,
            change: "(first draft)".into(),
            stage: "concretize".into(),
            failure_class: Some("unknown_package".into()),
            failure_line: "Package 'libfoo' not found".into(),
            verdict: None,
            rolled_back: false,
        }],
        broken_log: false,
    };
    let req = eco.repair_request(&task("tinyeco", dir.path()), &history, &failure);
    let user = &req.messages[0];
    assert_eq!(user.role, Role::User);
    assert!(user.content.contains("conflicting types for 'tiny'"));
    assert!(user
        .content
        .contains("failed at the `install` stage: compilation"));
    assert!(
        user.content.contains("Package 'libfoo' not found"),
        "history missing"
    );
    assert!(user.content.contains("class Tinyeco(CMakePackage)"));
    let system = req.system.unwrap();
    assert!(system.contains("Spack 0.23") && system.contains("Do not depend on \"c\""));
}

#[test]
fn static_check_and_output_cleaning() {
    let dir = tempfile::tempdir().unwrap();
    tiny_project(dir.path());
    let mut brief = build_brief(&facts(dir.path()), TargetSpack::V0_23, &NoKnowledge);
    brief.fetch.version = Some("0.3.0".into());
    brief.fetch.url = Some("file:///m/tinyeco/tinyeco-0.3.0.tar.gz".into());
    brief.fetch.sha256 = Some("f".repeat(64));
    let eco = SpackEcosystem::new(brief, PromptSettings::default(), fake_validation());

    // The draft itself is clean.
    let draft = eco.first_draft(&task("tinyeco", dir.path())).unwrap();
    let errors: Vec<_> = eco
        .static_check(&draft)
        .into_iter()
        .filter(|d| d.is_error())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{}", draft.text);

    // A broken recipe is caught before Spack, with a line.
    let broken = Recipe::new("package.py", recipe(SHA, "    depends_on(\"zlib@@1\")\n"));
    let found = eco.static_check(&broken);
    assert!(
        found.iter().any(|d| d.is_error() && d.line == Some(11)),
        "{found:?}"
    );

    // Prose and fences go; the invented checksum and URL are put back.
    let raw = format!(
        "Here you go:\n```python\n{}```\nThat should build.",
        recipe(SHA, "")
    );
    let cleaned = eco.clean_output(&raw);
    assert!(cleaned.starts_with("from spack.package import *"));
    assert!(!cleaned.contains("should build"));
    assert!(cleaned.contains(&"f".repeat(64)));
    assert!(cleaned.contains("url = \"file:///m/tinyeco/tinyeco-0.3.0.tar.gz\""));

    // --draft none: no deterministic draft.
    let none = SpackEcosystem::new(
        eco.brief().clone(),
        PromptSettings::default(),
        fake_validation(),
    )
    .with_draft(None);
    assert!(none.first_draft(&task("tinyeco", dir.path())).is_err());
}

/// The model answers with prose, fences, a made-up checksum, a dependency
/// Spack does not have and a CMake define that breaks configure. The rule
/// fix takes the dependency out within the attempt; configure then fails;
/// the repair request carries CMake's error; the repaired recipe installs.
#[test]
fn scripted_model_repairs_until_spack_installs() {
    let run = tempfile::tempdir().unwrap();
    let after = AfterInstall {
        hermeticity: true,
        smoke: false,
    };
    let Some(LoopEnv { eco, src, sha256 }) = ecosystem(
        run.path(),
        "scripted_model_repairs_until_spack_installs",
        ("tinyeco", "0.3.0"),
        tiny_project,
        after,
    ) else {
        return;
    };
    let bad = format!(
        "Sure! Here is the recipe:\n```python\n{}```\nIt depends on libmadeup.",
        recipe(
            SHA,
            "\n    depends_on(\"libmadeup-packsmith\")\n\n    def cmake_args(self):\n        return [self.define(\"TINY_FAIL\", True)]\n"
        )
    );
    let good = format!("```python\n{}```", recipe(SHA, ""));
    let model = ScriptedModel::new("scripted:test").text(bad).text(good);
    let mut options = AgentOptions::new(run.path().join("out"));
    options.tools = false;
    options.max_attempts = 3;
    let mut notes = Vec::new();
    let mut sink = |e: &packsmith_agent::AgentEvent| {
        if let packsmith_agent::AgentEvent::Note { message } = e {
            notes.push(message.clone());
        }
    };
    let report = Agent::run(&task("tinyeco", &src), &eco, &model, &options, &mut sink).unwrap();
    let requests = model.requests();
    assert_eq!(report.status, RunStatus::Succeeded, "{report:#?}");
    assert_eq!(report.attempts.len(), 2, "{report:#?}");
    assert!(
        notes.iter().any(|n| n.contains("libmadeup-packsmith")),
        "no rule fix: {notes:?}"
    );
    let first = &report.attempts[0];
    assert_eq!(first.stage_reached, "install");
    let class = &first.failure.as_ref().unwrap().class;
    assert_eq!(class, "cmake_configure", "{report:#?}");
    assert!(
        requests[1].messages[0].content.contains("TINY_FAIL is set"),
        "the repair prompt lacks CMake's error"
    );
    let installed = std::fs::read_to_string(run.path().join("out/tinyeco/package.py")).unwrap();
    assert!(installed.contains(&sha256), "{installed}");
    assert!(!installed.contains("Sure!"));
}

/// Modification times of the overlay files besides `package.py`.
fn overlay_times(attempt: &Path) -> Vec<std::time::SystemTime> {
    [
        "repo/repo.yaml",
        "scope/repos.yaml",
        "scope/concretizer.yaml",
    ]
    .iter()
    .map(|f| {
        std::fs::metadata(attempt.join(f))
            .unwrap()
            .modified()
            .unwrap()
    })
    .collect()
}

#[test]
fn the_stages_of_an_attempt_share_one_overlay_and_know_their_stage_by_type() {
    let dir = tempfile::tempdir().unwrap();
    tiny_project(dir.path());
    let mut brief = build_brief(&facts(dir.path()), TargetSpack::V0_23, &NoKnowledge);
    brief.fetch.version = Some("0.3.0".into());
    // A stand-in `spack` that succeeds at everything and prints nothing.
    let mut validation = fake_validation();
    validation.setup.spack_bin = PathBuf::from("/bin/true");
    let eco = SpackEcosystem::new(brief, PromptSettings::default(), validation);
    let attempt = dir.path().join("run/attempts/01");
    std::fs::create_dir_all(&attempt).unwrap();
    let attempt_dir = AttemptDir::new(attempt.clone(), 1);
    let with_dep = Recipe::new(
        "package.py",
        recipe(SHA, "\n    depends_on(\"libmadeup-packsmith\")\n"),
    );
    let recipe = Recipe::new("package.py", recipe(SHA, ""));
    let stages = eco.stages();
    let names: Vec<&str> = stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["load", "audit", "concretize", "install"]);

    let first = eco.run_stage(&stages[0], &recipe, &attempt_dir).unwrap();
    assert!(first.passed, "{first:?}");
    let written = overlay_times(&attempt);
    // Files written again would get a later time, even on a coarse clock.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    for stage in &stages[1..] {
        let outcome = eco.run_stage(stage, &recipe, &attempt_dir).unwrap();
        assert!(outcome.passed, "{}: {outcome:?}", stage.name);
        assert!(outcome
            .log_path
            .unwrap()
            .starts_with(attempt.canonicalize().unwrap()));
    }
    assert_eq!(overlay_times(&attempt), written);
    let prepared = eco.prepared_attempt(1, &recipe.text).unwrap();
    assert_eq!(prepared.dir, attempt.canonicalize().unwrap());
    assert_eq!(
        std::fs::read_to_string(&prepared.recipe).unwrap(),
        recipe.text
    );
    assert!(eco.prepared_attempt(2, &recipe.text).is_none());

    // A spec the backend did not list is not matched by its name.
    let err = eco
        .run_stage(&StageSpec::new("load", 5), &recipe, &attempt_dir)
        .unwrap_err();
    assert!(err.message.contains("not listed"), "{err}");
    // A failure without the backend's diagnosis gets no rule repair.
    let unknown = Failure::new(
        "concretize",
        "unknown_package",
        "unknown package: libmadeup-packsmith",
    );
    assert!(eco.auto_fix(&with_dep, &unknown).is_none());
}
