#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use packsmith_agent::history::AttemptKind;
use packsmith_agent::report::{AttemptRecord, StageRecord, REPORT_SCHEMA};
use packsmith_core::chat::Usage;

use super::*;
use packsmith_agent::RunStatus;

#[test]
fn directory_names_follow_spack_packages() {
    assert_eq!(package_dir_name("fast-float"), "fast_float");
    assert_eq!(package_dir_name("3proxy"), "_3proxy");
    assert_eq!(package_dir_name("py-foo-bar"), "py_foo_bar");
    assert_eq!(package_dir_name("zlib"), "zlib");
    assert_eq!(
        recipe_repo_path("fast-float"),
        "repos/spack_repo/builtin/packages/fast_float/package.py"
    );
}

#[test]
fn commit_message_with_and_without_the_trailer() {
    let line = disclosure("0.1.0", "none");
    assert_eq!(line, "Assisted-by: packsmith 0.1.0 (model: none)");
    assert_eq!(
        commit_message("heatsim", Some("  A heat simulation.\n"), Some(&line)),
        "heatsim: new package\n\nA heat simulation.\n\nAssisted-by: packsmith 0.1.0 (model: none)\n"
    );
    assert_eq!(
        commit_message("heatsim", Some("A heat simulation."), None),
        "heatsim: new package\n\nA heat simulation.\n"
    );
    assert_eq!(
        commit_message("heatsim", None, None),
        "heatsim: new package\n"
    );
}

const RECIPE_023: &str = r#"# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)

from spack.package import *


class FastFloat(CMakePackage):
    """Fast and exact implementation of the C++ from_chars functions."""

    homepage = "https://github.com/fastfloat/fast_float"
    url = "https://github.com/fastfloat/fast_float/archive/v8.0.0.tar.gz"

    version("8.0.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    def cmake_args(self):
        return [self.define("FASTFLOAT_TEST", False)]
"#;

fn stage(name: &str) -> StageRecord {
    StageRecord {
        name: name.into(),
        passed: true,
        cancelled: false,
        duration_ms: 10,
        log_path: None,
    }
}

fn report(status: RunStatus) -> RunReport {
    let succeeded = status == RunStatus::Succeeded;
    let stages = ["load", "audit", "concretize", "install", "hermeticity"];
    let mut extras = BTreeMap::new();
    extras.insert(
        "hermeticity".to_string(),
        serde_json::json!({"checks": 1, "last_passed": true, "last_prefix": "/p", "findings": []}),
    );
    RunReport {
        schema: REPORT_SCHEMA,
        name: "fast-float".into(),
        ecosystem: "spack".into(),
        model: "none".into(),
        status,
        reason: if succeeded {
            "attempt 1 passed every stage".into()
        } else {
            "the attempt limit was reached".into()
        },
        stages: stages.iter().map(|s| s.to_string()).collect(),
        attempts: vec![AttemptRecord {
            attempt: 1,
            kind: AttemptKind::Draft,
            base: None,
            recipe_path: "attempts/01/package.py".into(),
            static_repairs: 0,
            stages: stages.iter().map(|s| stage(s)).collect(),
            passed: succeeded,
            stage_reached: "hermeticity".into(),
            failure: None,
            verdict: None,
            rolled_back: false,
            job: None,
            interrupted: false,
            model_calls: 0,
            tool_calls: 0,
            usage: Usage::default(),
            cost_usd: 0.0,
            duration_ms: 50,
        }],
        final_recipe: succeeded.then(|| "package.py".to_string()),
        best_attempt: Some(1),
        best_recipe: None,
        model_calls: 0,
        tool_calls: 0,
        usage: Usage::default(),
        cost_usd: 0.0,
        duration_ms: 50,
        extras,
    }
}

/// A finished run directory as `packsmith spack` leaves it.
fn run_dir(status: RunStatus) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("report.json"),
        serde_json::to_string_pretty(&report(status)).unwrap(),
    )
    .unwrap();
    if status == RunStatus::Succeeded {
        std::fs::write(dir.path().join("package.py"), RECIPE_023).unwrap();
    }
    dir
}

fn inputs<'a>(
    run: &'a Path,
    out: &'a Path,
    langs: &'a [String],
    trailer: bool,
) -> BundleInputs<'a> {
    BundleInputs {
        run_dir: run,
        out,
        languages: Some(langs),
        maintainer: Some("octocat"),
        author: Author {
            name: "Test Author".into(),
            email: "test@example.org".into(),
        },
        tool_version: "0.1.0",
        trailer,
        spack_version: Some("0.23.1"),
        spec: Some("fast-float@8.0.0"),
        style: Err("no style tools in this test"),
    }
}

fn git_in(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run git")
}

#[test]
fn a_bundle_from_a_succeeded_run_applies_to_spack_packages() {
    let run = run_dir(RunStatus::Succeeded);
    let out = tempfile::tempdir().unwrap();
    let langs = vec!["cxx".to_string()];
    let bundle = write_bundle(&inputs(run.path(), out.path(), &langs, true)).unwrap();

    // The recipe at its spack-packages path, in 1.x's idiom.
    assert_eq!(
        bundle.recipe,
        out.path()
            .join("repos/spack_repo/builtin/packages/fast_float/package.py")
    );
    let recipe = std::fs::read_to_string(&bundle.recipe).unwrap();
    assert!(recipe.contains("from spack_repo.builtin.build_systems.cmake import CMakePackage"));
    assert!(recipe.contains("    depends_on(\"cxx\", type=\"build\")"));
    assert!(recipe.contains("    maintainers(\"octocat\")"));

    // The patch: spack-packages' subject, the description, the trailer.
    assert_eq!(bundle.patch, out.path().join("fast-float.patch"));
    let patch = std::fs::read_to_string(&bundle.patch).unwrap();
    assert!(
        patch.contains("Subject: [PATCH] fast-float: new package"),
        "{patch}"
    );
    assert!(
        patch.contains("From: Test Author <test@example.org>"),
        "{patch}"
    );
    assert!(patch.contains("Fast and exact implementation"), "{patch}");
    assert!(
        patch.contains("Assisted-by: packsmith 0.1.0 (model: none)"),
        "{patch}"
    );
    assert!(patch.contains("+++ b/repos/spack_repo/builtin/packages/fast_float/package.py"));

    // It applies to an empty repository, and creates exactly the recipe.
    let target = tempfile::tempdir().unwrap();
    assert!(git_in(target.path(), &["init", "-q"]).status.success());
    let check = git_in(
        target.path(),
        &["apply", "--check", &bundle.patch.display().to_string()],
    );
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let apply = git_in(
        target.path(),
        &["apply", &bundle.patch.display().to_string()],
    );
    assert!(apply.status.success());
    let applied = std::fs::read_to_string(
        target
            .path()
            .join("repos/spack_repo/builtin/packages/fast_float/package.py"),
    )
    .unwrap();
    assert_eq!(applied, recipe);

    // The PR description: the evidence and the disclosure.
    let pr = std::fs::read_to_string(&bundle.pr).unwrap();
    assert!(pr.contains("# fast-float: new package"), "{pr}");
    assert!(
        pr.contains("Stages passed: load, audit, concretize, install, hermeticity."),
        "{pr}"
    );
    assert!(pr.contains("Spack 0.23.1 as `fast-float@8.0.0`"), "{pr}");
    assert!(pr.contains("Hermeticity check passed"), "{pr}");
    assert!(
        pr.contains("Assisted-by: packsmith 0.1.0 (model: none)"),
        "{pr}"
    );
    assert!(pr.contains("not validated with Spack 1.x"), "{pr}");
    assert!(!pr.contains("FIXME line(s)"), "{pr}");
    // The run recorded no smoke stage; the review is of the recipe as sent.
    assert!(pr.contains("No smoke test ran"), "{pr}");
    assert!(
        pr.contains("## Review (the checks a machine can make)"),
        "{pr}"
    );
    assert!(pr.contains("| no FIXME | yes |"), "{pr}");
    assert!(pr.contains("| source URL | yes |"), "{pr}");
}

#[test]
fn the_bundled_recipe_opens_with_spack_header() {
    let drafted = "# Drafted by packsmith from the project's build files.\n\
                   # Review every FIXME before publishing this recipe.\n\n\
                   from spack.package import *\n";
    let out = with_spack_header(drafted);
    assert!(out.starts_with(SPACK_HEADER), "{out}");
    assert!(out.ends_with("\n\nfrom spack.package import *\n"), "{out}");
    assert!(!out.contains("Drafted by"), "{out}");
    assert_eq!(with_spack_header(RECIPE_023), RECIPE_023);
    assert_eq!(fixme_count("x = 1\n    # FIXME: declare it\n"), 1);
}

#[test]
fn without_the_trailer_the_disclosure_is_only_in_the_pr() {
    let run = run_dir(RunStatus::Succeeded);
    let out = tempfile::tempdir().unwrap();
    let bundle = write_bundle(&inputs(run.path(), out.path(), &[], false)).unwrap();
    let patch = std::fs::read_to_string(&bundle.patch).unwrap();
    assert!(patch.contains("Subject: [PATCH] fast-float: new package"));
    assert!(!patch.contains("Assisted-by"), "{patch}");
    let pr = std::fs::read_to_string(&bundle.pr).unwrap();
    assert!(
        pr.contains("Assisted-by: packsmith 0.1.0 (model: none)"),
        "{pr}"
    );
    assert!(pr.contains("not stated in the commit"), "{pr}");
}

#[test]
fn a_run_that_failed_makes_no_bundle() {
    let run = run_dir(RunStatus::AttemptsExhausted);
    let out = tempfile::tempdir().unwrap();
    let err = write_bundle(&inputs(run.path(), out.path(), &[], true)).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("did not succeed"), "{text}");
    assert!(text.contains("attempts_exhausted"), "{text}");
    assert!(text.contains(&run.path().display().to_string()), "{text}");
    assert!(text.contains("hint:"), "{text}");
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn a_directory_without_a_report_is_named() {
    let run = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let err = write_bundle(&inputs(run.path(), out.path(), &[], true)).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("report.json"), "{text}");
    assert!(text.contains("hint:"), "{text}");
}
