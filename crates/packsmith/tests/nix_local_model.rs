//! `packsmith nix` end to end with a real model in the embedded llama.cpp
//! (feature `local`; SmolLM2-135M unless PACKSMITH_E2E_MODEL names another
//! GGUF) on real Nix against the test "nixpkgs". A small model will not
//! write a working recipe there; the test checks that the whole run holds
//! together with real model output: the project question is answered and
//! its summary kept, the builder is the model's pick or the fallback,
//! drafts and repairs are parsed or rejected, and the run ends with a
//! report, nix-result.json and a failure analysis. Without the feature or
//! the model file it prints a loud SKIPPED line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use std::path::Path;
use std::process::Command;

use crate::common;

// About three minutes with SmolLM2 on 2 quiet cores (five calls at most);
// `PACKSMITH_E2E_MODEL=<gguf>` runs it with another model.
#[test]
fn a_real_model_runs_the_whole_nix_loop() {
    let name = "a_real_model_runs_the_whole_nix_loop";
    let Some(model) = common::e2e_model(name) else {
        return;
    };
    if !Command::new("nix-instantiate")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("SKIPPED: {name}: nix-instantiate not found");
        return;
    }
    // No build file the analysis recognises: the builder is the model's pick.
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("hello");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("build.sh"),
        "#!/bin/sh\nset -e\ncc -O2 -o hello hello.c\n",
    )
    .unwrap();
    std::fs::write(
        project.join("hello.c"),
        "#include <stdio.h>\nint main(void){puts(\"hello\");return 0;}\n",
    )
    .unwrap();
    std::fs::write(
        project.join("README.md"),
        "# hello\n\nA greeting program in C. Build it with `sh build.sh`, which compiles \
         `hello.c` into the `hello` binary; install by copying `hello` into `bin/`.\n",
    )
    .unwrap();
    let out = tmp.path().join("runs");
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-nix/tests/fake-nixpkgs");
    let o = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["nix", project.to_str().unwrap(), "--model"])
        .arg(format!("local:{}", model.display()))
        .args([
            "--nixpkgs",
            fake.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        // Few calls: the project question, a model draft, the analysis.
        .args([
            "--max-iterations",
            "2",
            "--refine",
            "0",
            "--no-tools",
            "--offline",
        ])
        .env("NIX_PATH", "")
        .env_remove("PACKSMITH_MODEL")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    eprintln!(
        "--- packsmith nix with {} ---\n{stderr}\n{stdout}",
        model.display()
    );
    assert!(matches!(o.status.code(), Some(0 | 1)), "{stderr}");
    let run = out.join("hello");
    let read_json = |file: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(run.join(file)).unwrap()).unwrap()
    };
    let report = read_json("report.json");
    let result = read_json("nix-result.json");
    eprintln!("--- nix-result.json ---\n{result:#}");
    // The project question was asked and its answer kept.
    let trace = std::fs::read_to_string(run.join("trace.jsonl")).unwrap();
    assert!(trace.contains("\"purpose\":\"project\""), "{trace}");
    assert!(
        !result["project_summary"]
            .as_str()
            .unwrap_or("")
            .trim()
            .is_empty(),
        "{result}"
    );
    // The builder is the fallback or the model's pick, never anything else.
    let chosen_by = result["builder_chosen_by"].as_str().unwrap();
    assert!(matches!(chosen_by, "model" | "fallback"), "{result}");
    if chosen_by == "model" {
        assert!(
            stderr.contains(&format!(
                "the model chose the `{}` template",
                result["builder"].as_str().unwrap()
            )),
            "{stderr}"
        );
    }
    // The loop ran on real Nix with the model's output.
    assert!(report["model_calls"].as_u64().unwrap() >= 2, "{report}");
    assert!(
        report["attempts"].as_array().unwrap().len() >= 2,
        "{report}"
    );
    if report["status"] != "succeeded" {
        assert!(
            result["failure_analysis"]["category"].is_string(),
            "{result}"
        );
    }
}
