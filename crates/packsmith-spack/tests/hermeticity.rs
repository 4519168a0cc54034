//! The hermeticity stage against the real Spack: a CMake project whose
//! optional `find_package(ZLIB)` succeeds against the host's zlib when
//! the recipe declares nothing. Installed, the build fails the check with
//! the configure line and the `DT_NEEDED` entry as evidence; the rule
//! repair switches the lookup off and the run then succeeds. A recipe that
//! declares `zlib-api` (zlib external at /usr in the set-up) passes as it
//! stands. Skipped with a loud SKIPPED line without
//! PACKSMITH_TEST_SPACK=/path/to/spack-checkout.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::Path;

use crate::real_loop::{ecosystem, AfterInstall, LoopEnv};
use packsmith_agent::{Agent, AgentEvent, AgentOptions, RunReport, RunStatus, Task};
use packsmith_llm::ScriptedModel;

/// A library that uses zlib when CMake finds it, and builds without it
/// otherwise.
fn zlib_optional_project(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\n\
         project(zopt VERSION 0.2.0 LANGUAGES C)\n\
         find_package(ZLIB)\n\
         add_library(zopt SHARED src/zopt.c)\n\
         if(ZLIB_FOUND)\n  \
           target_compile_definitions(zopt PRIVATE ZOPT_HAVE_ZLIB=1)\n  \
           target_link_libraries(zopt PRIVATE ZLIB::ZLIB)\n\
         endif()\n\
         install(TARGETS zopt)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/zopt.c"),
        "#ifdef ZOPT_HAVE_ZLIB\n#include <zlib.h>\nconst char *zopt_zlib(void) { return zlibVersion(); }\n\
         #else\nconst char *zopt_zlib(void) { return \"none\"; }\n#endif\n",
    )
    .unwrap();
}

fn recipe(extra: &str) -> String {
    format!(
        "from spack.package import *\n\n\nclass Zopt(CMakePackage):\n    \"\"\"A library with optional zlib.\"\"\"\n\n    \
         homepage = \"https://example.invalid/zopt\"\n    url = \"file:///wrong/zopt-0.2.0.tar.gz\"\n\n    \
         version(\"0.2.0\", sha256=\"{}\")\n\n    depends_on(\"cmake@3.18:\", type=\"build\")\n{extra}",
        "0".repeat(64)
    )
}

struct Run {
    report: RunReport,
    notes: Vec<String>,
    hermeticity: serde_json::Value,
    recipe: String,
}

/// The loop with the deterministic draft off: the scripted model's one
/// answer is the recipe; every repair after it is by rule.
fn run_loop(answer: &str) -> Option<Run> {
    let run = tempfile::tempdir().unwrap();
    let after = AfterInstall {
        hermeticity: true,
        smoke: false,
    };
    let LoopEnv { eco, src, .. } = ecosystem(
        run.path(),
        "hermeticity",
        ("zopt", "0.2.0"),
        zlib_optional_project,
        after,
    )?;
    let model = ScriptedModel::new("scripted:test").text(format!("```python\n{answer}```"));
    let mut options = AgentOptions::new(run.path().join("out"));
    options.tools = false;
    options.max_attempts = 2;
    let mut notes = Vec::new();
    let mut sink = |e: &AgentEvent| {
        if let AgentEvent::Note { message } = e {
            notes.push(message.clone());
        }
    };
    let task = Task {
        name: "zopt".into(),
        repo_root: src.clone(),
        version: Some("0.2.0".into()),
        references: Default::default(),
        context: serde_json::Value::Null,
    };
    let report = Agent::run(&task, &eco, &model, &options, &mut sink).unwrap();
    let recipe =
        std::fs::read_to_string(run.path().join("out/zopt/package.py")).unwrap_or_default();
    Some(Run {
        report,
        notes,
        hermeticity: eco.hermeticity_extra().unwrap_or_default(),
        recipe,
    })
}

#[test]
fn a_host_zlib_fails_the_check_and_the_rule_switches_it_off() {
    let Some(run) = run_loop(&recipe("")) else {
        return;
    };
    let h = &run.hermeticity;
    eprintln!("hermeticity: {h:#}\nnotes: {:?}", run.notes);
    assert_eq!(run.report.status, RunStatus::Succeeded, "{:#?}", run.report);
    // One attempt: the repair was by rule, within it.
    assert_eq!(run.report.attempts.len(), 1, "{:#?}", run.report);
    assert_eq!(h["checks"], 2, "{h:#}");
    assert_eq!(h["last_passed"], true, "{h:#}");
    let findings = h["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{h:#}");
    let f = &findings[0];
    assert_eq!(f["package"], "zlib-api");
    assert_eq!(f["upstream"], "ZLIB");
    let evidence = f["evidence"].as_str().unwrap();
    assert!(evidence.contains("-- Found ZLIB: /usr/"), "{evidence}");
    assert!(evidence.contains("DT_NEEDED libz.so"), "{evidence}");
    assert!(
        f["action"]
            .as_str()
            .unwrap()
            .contains("-DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON"),
        "{f:#}"
    );
    assert!(
        run.notes
            .iter()
            .any(|n| n.contains("hermeticity: switched the optional ZLIB off")),
        "{:?}",
        run.notes
    );
    assert!(
        run.recipe
            .contains("self.define(\"CMAKE_DISABLE_FIND_PACKAGE_ZLIB\", True)"),
        "{}",
        run.recipe
    );
}

#[test]
fn a_declared_zlib_external_passes_the_check() {
    let Some(run) = run_loop(&recipe("    depends_on(\"zlib-api\")\n")) else {
        return;
    };
    let h = &run.hermeticity;
    eprintln!("hermeticity: {h:#}");
    assert_eq!(run.report.status, RunStatus::Succeeded, "{:#?}", run.report);
    assert_eq!(h["checks"], 1, "{h:#}");
    assert_eq!(h["last_passed"], true, "{h:#}");
    assert_eq!(h["findings"].as_array().map(Vec::len), Some(0), "{h:#}");
    assert!(
        run.notes.iter().all(|n| !n.contains("hermeticity")),
        "{:?}",
        run.notes
    );
}
