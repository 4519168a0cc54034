//! The model's small jobs end to end with a real model in the embedded
//! llama.cpp (SmolLM2-135M unless PACKSMITH_E2E_MODEL names another GGUF):
//! `packsmith kb pick` on a project whose CMake looks for a name no rule
//! maps, against the knowledge crate's fixture repository, and `packsmith
//! diagnose` on a captured Spack log. A small model may answer badly; the
//! tests check that its answer went through the grammar and the check (a
//! listed candidate or `none`, a label of the set), with tokens counted.
//! Without the feature or the model: a SKIPPED line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

use crate::common;

use std::path::Path;
use std::process::Command;

fn packsmith(cache: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_packsmith"));
    c.env("PACKSMITH_CACHE_DIR", cache)
        .env_remove("PACKSMITH_MODEL");
    c
}

#[test]
fn a_real_model_picks_a_package_for_a_name_no_rule_maps() {
    let name = "a_real_model_picks_a_package_for_a_name_no_rule_maps";
    let Some(model) = common::e2e_model(name) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packsmith-spack-knowledge/tests/fixtures/kb-repo");
    let o = packsmith(&cache)
        .args(["kb", "index"])
        .arg(&repo)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let project = tmp.path().join("viewer");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.10)\nproject(viewer VERSION 1.0 LANGUAGES C)\n\
         find_package(MPICHLite REQUIRED)\nadd_executable(viewer main.c)\n",
    )
    .unwrap();
    std::fs::write(project.join("main.c"), "int main(void){return 0;}\n").unwrap();
    let o = packsmith(&cache)
        .args(["kb", "pick"])
        .arg(&project)
        .arg("--model")
        .arg(format!("local:{}", model.display()))
        .arg("--json")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let picks: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    eprintln!("--- kb pick with {} ---\n{picks:#}", model.display());
    let lookup = picks
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["upstream"] == "MPICHLite")
        .expect("the lookup no rule maps is listed");
    let candidates: Vec<&str> = lookup["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(candidates.contains(&"mpich-lite"), "{lookup:#}");
    let pick = &lookup["pick"];
    assert!(
        pick["usage"]["prompt_tokens"].as_u64().unwrap() > 0,
        "{pick:#}"
    );
    // Through the grammar and the check: a candidate, `none`, or refused with a reason.
    match pick["package"].as_str() {
        Some(p) => assert!(candidates.contains(&p), "{pick:#}"),
        None => assert!(
            pick["answer"].as_str().unwrap().contains("none") || pick["refused"].is_string(),
            "{pick:#}"
        ),
    }
}

#[test]
fn a_real_model_explains_a_captured_failure_from_the_reduced_log() {
    let name = "a_real_model_explains_a_captured_failure_from_the_reduced_log";
    let Some(model) = common::e2e_model(name) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let logs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-spack/tests/spack-logs");
    let o = packsmith(tmp.path())
        .arg("diagnose")
        .arg(logs.join("compile-error.install.log"))
        .arg(logs.join("compile-error.build.log"))
        .arg("--model")
        .arg(format!("local:{}", model.display()))
        .arg("--json")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    eprintln!("--- diagnose with {} ---\n{d:#}", model.display());
    assert_eq!(d["rules"]["class"], "compilation", "{d:#}");
    assert_eq!(d["model_read"], "reduced", "{d:#}");
    assert!(d["reduced_bytes"].as_u64().unwrap() <= d["bytes_in"].as_u64().unwrap());
    let m = &d["model"];
    assert!(m["usage"]["prompt_tokens"].as_u64().unwrap() > 0, "{m:#}");
    assert!(m["class"].is_string() || m["refused"].is_string(), "{m:#}");
}

/// A prefix laid out as Spack installs one: `bin/waiter` answers `-V` and
/// nothing else (the README says so), a share file, `.spack/spec.json`.
fn waiter_prefix(root: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let prefix = root.join(format!(
        "opt/linux-x86_64/gcc-12.2.0/waiter-0.5.0-{}",
        "a".repeat(32)
    ));
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::fs::create_dir_all(prefix.join("share/waiter")).unwrap();
    std::fs::create_dir_all(prefix.join(".spack")).unwrap();
    std::fs::write(
        prefix.join(".spack/spec.json"),
        r#"{"spec": {"nodes": []}}"#,
    )
    .unwrap();
    std::fs::write(prefix.join("share/waiter/jobs.txt"), "x\n").unwrap();
    let exe = prefix.join("bin/waiter");
    std::fs::write(
        &exe,
        "#!/bin/sh\ncase \"$1\" in -V) echo 'waiter 0.5.0'; exit 0;; *) sleep 30;; esac\n",
    )
    .unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    prefix
}

#[test]
fn a_real_model_writes_a_smoke_test_that_is_proved_on_the_prefix() {
    let name = "a_real_model_writes_a_smoke_test_that_is_proved_on_the_prefix";
    let Some(model) = common::e2e_model(name) else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let prefix = waiter_prefix(tmp.path());
    let source = tmp.path().join("src");
    std::fs::create_dir_all(&source).unwrap();
    std::fs::write(
        source.join("README.md"),
        "# waiter\n\nWaits for jobs. `waiter -V` prints the version.\n",
    )
    .unwrap();
    let o = packsmith(&tmp.path().join("cache"))
        .arg("smoke-test")
        .arg(&prefix)
        .arg("--source")
        .arg(&source)
        .arg("--model")
        .arg(format!("local:{}", model.display()))
        .arg("--json")
        .output()
        .unwrap();
    let a: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    eprintln!("--- smoke-test with {} ---\n{a:#}", model.display());
    assert!(a["usage"]["prompt_tokens"].as_u64().unwrap() > 0, "{a:#}");
    // Through the grammar and the check: a proved test (exit 0), or none,
    // or refused with the reason (exit 1).
    match a["choice"]["op"].as_str() {
        Some("run") if a["refused"].is_null() => {
            assert_eq!(a["choice"]["program"], "waiter", "{a:#}");
            assert_eq!(a["choice"]["arg"], "-V", "{a:#}");
            assert!(o.status.success(), "{a:#}");
        }
        _ => {
            assert_eq!(o.status.code(), Some(1), "{a:#}");
            assert!(
                a["refused"].is_string() || a["choice"]["op"] == "none",
                "{a:#}"
            );
        }
    }
}
