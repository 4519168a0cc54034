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
