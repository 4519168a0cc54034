//! `packsmith spack` end to end with a real model in the embedded llama.cpp
//! (feature `local`; SmolLM2-135M unless PACKSMITH_E2E_MODEL names another
//! GGUF) and real Spack (PACKSMITH_TEST_SPACK=<checkout>, set up by `packsmith setup spack`),
//! on a fixture CMake project whose deterministic draft cannot install: its
//! configure step stops unless `-DGREETING=` is given. The model is called
//! with the CMake error; a small model may not fix it, so the test checks
//! that the run holds together with real model output (cleaned, checked,
//! validated by Spack, reported), and that a passing recipe really sets
//! the define. Without the feature, the model or Spack: a SKIPPED line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn greeter(dir: &Path) -> PathBuf {
    let p = dir.join("greeter");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(
        p.join("CMakeLists.txt"),
        r#"cmake_minimum_required(VERSION 3.10)
project(greeter VERSION 1.0 LANGUAGES C)
set(GREETING "" CACHE STRING "The text greeter prints")
if(GREETING STREQUAL "")
  message(FATAL_ERROR "greeter needs a greeting: configure with -DGREETING=<text>")
endif()
add_executable(greeter greeter.c)
target_compile_definitions(greeter PRIVATE "GREETING=\"${GREETING}\"")
install(TARGETS greeter DESTINATION bin)
"#,
    )
    .unwrap();
    std::fs::write(
        p.join("greeter.c"),
        "#include <stdio.h>\nint main(void){puts(GREETING);return 0;}\n",
    )
    .unwrap();
    std::fs::write(
        p.join("README.md"),
        "# greeter\nPrints a greeting chosen at build time (`-DGREETING=...`).\n",
    )
    .unwrap();
    p
}

#[test]
fn a_real_model_repairs_with_real_spack() {
    let name = "a_real_model_repairs_with_real_spack";
    let Some(model) = common::e2e_model(name) else {
        return;
    };
    let Some(env) = common::test_spack_env(name) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let project = greeter(tmp.path());
    let out = tmp.path().join("runs");
    let o = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["spack", project.to_str().unwrap(), "--version", "1.0"])
        .arg("--model")
        .arg(format!("local:{}", model.display()))
        .arg("--spack")
        .arg(&env)
        .args(["--out", out.to_str().unwrap()])
        .args(["--max-attempts", "2", "--no-audit", "--no-variant-check"])
        .env_remove("PACKSMITH_MODEL")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    eprintln!("--- packsmith spack with {} ---\n{stderr}", model.display());
    assert!(matches!(o.status.code(), Some(0 | 1)), "{stderr}");
    let run = out.join("greeter");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    let attempts = report["attempts"].as_array().unwrap();
    // The draft reached Spack and failed where the fixture makes it fail.
    assert_eq!(
        attempts[0]["failure"]["class"], "cmake_configure",
        "{report:#}"
    );
    assert!(
        attempts[0]["failure"]["excerpt"]
            .as_str()
            .unwrap()
            .contains("greeter needs a greeting"),
        "{report:#}"
    );
    // The model was called with it, and its answer was turned into an
    // attempt (static check and Spack, or rejected with a reason).
    assert!(report["model_calls"].as_u64().unwrap() >= 1, "{report:#}");
    assert_eq!(attempts.len(), 2, "{report:#}");
    let trace = std::fs::read_to_string(run.join("trace.jsonl")).unwrap();
    assert!(trace.contains("\"purpose\":\"draft\""), "{trace}");
    if report["status"] == "succeeded" {
        let recipe = std::fs::read_to_string(run.join("package.py")).unwrap();
        assert!(recipe.contains("GREETING"), "{recipe}");
    } else {
        assert!(run.join("best-attempt.package.py").exists());
    }
}

#[test]
fn a_real_model_repairs_by_structured_edits_with_real_spack() {
    let name = "a_real_model_repairs_by_structured_edits_with_real_spack";
    let Some(model) = common::e2e_model(name) else {
        return;
    };
    let Some(env) = common::test_spack_env(name) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("greeter");
    std::fs::create_dir_all(&dir).unwrap();
    // Spack refuses it at load: `typ=` is no keyword of depends_on.
    let broken = "from spack.package import *\n\n\nclass Greeter(CMakePackage):\n    \"\"\"Prints a greeting.\"\"\"\n\n    homepage = \"https://example.org/greeter\"\n    url = \"https://example.org/greeter-1.0.tar.gz\"\n\n    version(\"1.0\", sha256=\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\")\n\n    depends_on(\"cmake@3.10:\", typ=\"build\")\n";
    std::fs::write(dir.join("package.py"), broken).unwrap();
    let out = tmp.path().join("runs");
    // No rules: every repair is the model's, as edits under a grammar.
    let o = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .arg("repair")
        .arg(dir.join("package.py"))
        .arg("--model")
        .arg(format!("local:{}", model.display()))
        .arg("--spack")
        .arg(&env)
        .args(["--out", out.to_str().unwrap()])
        .args([
            "--until",
            "load",
            "--no-rules",
            "--max-attempts",
            "2",
            "--log-prompts",
        ])
        .env_remove("PACKSMITH_MODEL")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    eprintln!(
        "--- packsmith repair with {} ---\n{stderr}",
        model.display()
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{stderr}");
    assert!(stderr.contains("by the model's edits"), "{stderr}");
    let run = out.join("greeter");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert!(report["model_calls"].as_u64().unwrap() >= 1, "{report:#}");
    // Every model request carried the edit list's schema.
    let calls: Vec<_> = walk_files(&run.join("attempts"))
        .into_iter()
        .filter(|p| p.parent().is_some_and(|d| d.ends_with("calls")))
        .collect();
    assert!(!calls.is_empty());
    for call in calls {
        let text = std::fs::read_to_string(&call).unwrap();
        assert!(text.contains("\"recipe_edits\""), "{}", call.display());
    }
    if report["status"] == "succeeded" {
        let recipe = std::fs::read_to_string(run.join("package.py")).unwrap();
        assert!(!recipe.contains("typ="), "{recipe}");
    }
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk_files(&p));
        } else {
            out.push(p);
        }
    }
    out
}
