#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]
//! `packsmith spack` as a user runs it: clear refusals without Spack or
//! with bad input, and (where Spack is installed) the bundled example
//! installed from the deterministic draft with no model.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn packsmith(args: &[&str], cache: &Path, path_env: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_packsmith"));
    cmd.args(args)
        .env("PACKSMITH_CACHE_DIR", cache)
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache).join("packsmith.toml"),
        )
        .env_remove("PACKSMITH_MODEL");
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    cmd.output().expect("run packsmith")
}

fn example() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/heatsim")
        .display()
        .to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn without_spack_it_refuses_and_points_to_doctor_and_the_guide() {
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = packsmith(
        &[
            "spack",
            &example(),
            "--out",
            &out.path().display().to_string(),
        ],
        cache.path(),
        Some("/usr/bin:/bin"),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("no `spack` on PATH"), "{err}");
    assert!(
        err.contains("packsmith doctor") && err.contains("packsmith setup spack"),
        "{err}"
    );
    // One hint, in the user's terms (no internal type name).
    assert_eq!(err.matches("hint:").count(), 1, "{err}");
    assert!(!err.contains("SpackSetup"), "{err}");
    // Nothing was left behind for a run that could not start.
    assert!(std::fs::read_dir(out.path()).unwrap().next().is_none());
}

#[test]
fn a_missing_spack_script_and_bad_refs_are_bad_input() {
    let cache = tempfile::tempdir().unwrap();
    let o = packsmith(
        &["spack", &example(), "--spack", "/nonexistent/env.sh"],
        cache.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("/nonexistent/env.sh"));

    let o = packsmith(
        &["spack", &example(), "--refs", "similar:x"],
        cache.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("`x` is not a number of references"));
    let o = packsmith(
        &["spack", &example(), "--refs", "nearest:2"],
        cache.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("embedding[:N]"), "{}", stderr(&o));

    let o = packsmith(&["spack", "/nonexistent/project"], cache.path(), None);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    let o = packsmith(
        &["spack", &example(), "--static-repairs", "11"],
        cache.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--static-repairs"), "{}", stderr(&o));
}

fn spack_env() -> Option<PathBuf> {
    common::test_spack_env("the_example_installs_from_the_draft_without_a_model")
}

#[test]
fn the_example_installs_from_the_draft_without_a_model() {
    let Some(env) = spack_env() else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let out_s = out.path().display().to_string();
    let env_s = env.display().to_string();
    let args = [
        "spack",
        &example(),
        "--spack",
        &env_s,
        "--out",
        &out_s,
        "--no-audit",
    ];
    let o = packsmith(&args, cache.path(), None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for line in [
        "attempt 1: deterministic draft",
        "  install        ok",
        "heatsim: succeeded",
    ] {
        assert!(err.contains(line), "missing `{line}` in:\n{err}");
    }
    let run = out.path().join("heatsim");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert_eq!(report["status"], "succeeded");
    assert_eq!(report["usage"]["prompt_tokens"], 0);
    // The variant check ran on the passing recipe and is in the report.
    let checked = &report["extras"]["variant_check"]["results"];
    assert!(
        checked.as_array().is_some_and(|r| !r.is_empty()),
        "{report:#}"
    );
    assert!(err.contains("variant check:"), "{err}");
    // The bundled example is smoke-tested: a stand-alone test that
    // `spack test run` passed; the review gate's table is in the report.
    assert_eq!(report["extras"]["levels"]["installed"], true, "{report:#}");
    assert_eq!(
        report["extras"]["levels"]["smoke_tested"], true,
        "{report:#}"
    );
    assert!(
        report["extras"]["review"]["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|i| i["check"] == "style")),
        "{report:#}"
    );
    // report.md shows it as a table, not as raw JSON.
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("## variant check"), "{md}");
    assert!(md.contains(" variant |"), "{md}");
    assert!(!md.contains("```json"), "{md}");
    let recipe = std::fs::read_to_string(run.join("package.py")).unwrap();
    assert!(recipe.contains("class Heatsim(CMakePackage, CudaPackage)"));
    let trace = std::fs::read_to_string(run.join("trace.jsonl")).unwrap();
    assert!(trace.lines().any(|l| l.contains("\"stage_finished\"")));

    // The same run again is refused unless --replace.
    let again = packsmith(&args, cache.path(), None);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("already holds a run"));
}

/// `--contribute OUT` on the example: the recipe at its spack-packages
/// path in 1.x's idiom, a patch that applies there, and PR.md with the
/// stages the run passed.
#[test]
fn the_example_run_writes_a_contribution_bundle() {
    let Some(env) = common::test_spack_env("the_example_run_writes_a_contribution_bundle") else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let bundle = tempfile::tempdir().unwrap();
    let out_s = out.path().display().to_string();
    let bundle_s = bundle.path().display().to_string();
    let env_s = env.display().to_string();
    let args = [
        "spack",
        &example(),
        "--spack",
        &env_s,
        "--out",
        &out_s,
        "--no-audit",
        "--no-variant-check",
        "--contribute",
        &bundle_s,
        "--maintainer",
        "octocat",
    ];
    let o = packsmith(&args, cache.path(), None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("contribution:"), "{err}");
    let recipe = std::fs::read_to_string(
        bundle
            .path()
            .join("repos/spack_repo/builtin/packages/heatsim/package.py"),
    )
    .unwrap();
    assert!(
        recipe.contains("from spack_repo.builtin.build_systems.cmake import CMakePackage"),
        "{recipe}"
    );
    assert!(recipe.contains("depends_on(\"c"), "{recipe}");
    assert!(recipe.contains("maintainers(\"octocat\")"), "{recipe}");
    let patch = std::fs::read_to_string(bundle.path().join("heatsim.patch")).unwrap();
    assert!(
        patch.contains("Subject: [PATCH] heatsim: new package"),
        "{patch}"
    );
    assert!(patch.contains("Assisted-by: packsmith"), "{patch}");
    let repo = tempfile::tempdir().unwrap();
    common::git(repo.path(), &["init", "-q"]);
    let patch_s = bundle.path().join("heatsim.patch").display().to_string();
    common::git(repo.path(), &["apply", "--check", &patch_s]);
    let pr = std::fs::read_to_string(bundle.path().join("PR.md")).unwrap();
    assert!(pr.contains("Stages passed: load"), "{pr}");
    assert!(pr.contains("install"), "{pr}");
}

/// The bundle's flags mean nothing without `--contribute`, and say so
/// before any Spack is looked for.
#[test]
fn the_bundle_flags_need_contribute() {
    let cache = tempfile::tempdir().unwrap();
    let o = packsmith(
        &["spack", &example(), "--no-disclosure-trailer"],
        cache.path(),
        Some("/usr/bin:/bin"),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--contribute"), "{}", stderr(&o));
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_tree(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// A clone of a GitHub project checked out at its release tag: the recipe
/// fetches the forge's archive (reproduced offline, same sha256 as `git
/// archive | gzip -n`), names the forge's git URL and lists the earlier
/// release with its checksum, and the run installs it from the mirror.
#[test]
fn a_github_clone_at_its_tag_gets_the_forge_url_and_installs_from_the_mirror() {
    let Some(env) = common::test_spack_env(
        "a_github_clone_at_its_tag_gets_the_forge_url_and_installs_from_the_mirror",
    ) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let clone = work.path().join("heatsim");
    copy_tree(Path::new(&example()), &clone);
    common::git(&clone, &["init", "-q"]);
    common::git(&clone, &["add", "."]);
    common::git(&clone, &["commit", "-qm", "2.0"]);
    common::git(&clone, &["tag", "-a", "v2.0.0", "-m", "2.0.0"]);
    std::fs::write(clone.join("NEWS"), "2.1.0: checkpoints\n").unwrap();
    common::git(&clone, &["add", "."]);
    common::git(&clone, &["commit", "-qm", "2.1"]);
    common::git(&clone, &["tag", "-a", "v2.1.0", "-m", "2.1.0"]);
    common::git(
        &clone,
        &[
            "remote",
            "add",
            "origin",
            "https://github.com/example-org/heatsim.git",
        ],
    );
    let sha = |tag: &str, prefix: &str| {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "git archive --format=tar --prefix={prefix}/ {tag} | gzip -n | sha256sum"
            ))
            .current_dir(&clone)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };

    let cache = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let args = [
        "spack",
        clone.to_str().unwrap(),
        "--spack",
        env.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--model",
        "none",
        "--no-variant-check",
        "--maintainer",
        "octocat",
    ];
    let o = packsmith(&args, cache.path(), None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("  install        ok"), "{err}");
    // A release checkout with its forge remote and a maintainer: every
    // item of the review gate passes, Spack's style tools and audit too.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("heatsim/report.json")).unwrap())
            .unwrap();
    assert_eq!(
        report["extras"]["levels"]["review_clean"], true,
        "{:#}",
        report["extras"]["review"]
    );
    let recipe = std::fs::read_to_string(out.join("heatsim/package.py")).unwrap();
    for line in [
        "url = \"https://github.com/example-org/heatsim/archive/refs/tags/v2.1.0.tar.gz\""
            .to_string(),
        "git = \"https://github.com/example-org/heatsim.git\"".to_string(),
        format!(
            "version(\"2.1.0\", sha256=\"{}\")",
            sha("v2.1.0", "heatsim-2.1.0")
        ),
        format!(
            "version(\"2.0.0\", sha256=\"{}\")",
            sha("v2.0.0", "heatsim-2.0.0")
        ),
    ] {
        assert!(recipe.contains(&line), "missing `{line}` in:\n{recipe}");
    }
    assert!(!recipe.contains("file://"), "{recipe}");

    // A commit past the tag: the tree is no release, so the recipe pins it
    // by a file:// URL and the run says how to get the forge's.
    std::fs::write(clone.join("NEWS"), "unreleased\n").unwrap();
    common::git(&clone, &["commit", "-qam", "unreleased"]);
    let mut again = args.to_vec();
    again.push("--replace");
    let o = packsmith(&again, cache.path(), None);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("is not a clean checkout at v2.1.0") && err.contains("git checkout v2.1.0"),
        "{err}"
    );
    let recipe = std::fs::read_to_string(out.join("heatsim/package.py")).unwrap();
    assert!(recipe.contains("url = \"file://"), "{recipe}");
}

/// A stand-in `spack` whose `install` runs until killed and records its pid
/// (`STANDIN` is replaced by the test's temp dir: the runner passes only
/// allowlisted variables).
const STAND_IN_SPACK: &str = r#"#!/bin/sh
case "$*" in
  *--version*) echo 1.0.0; exit 0;;
  *PACKSMITH-PATHS*) echo "PACKSMITH-PATHS {\"install_root\": \"$STANDIN/inst\", \"build_stage\": [\"$STANDIN/stage\"], \"test_stage\": null, \"source_cache\": null, \"misc_cache\": null}"; exit 0;;
  *install*) sleep 300 & echo $$ > "$STANDIN/install.tmp"; mv "$STANDIN/install.tmp" "$STANDIN/install.pid"; exec sleep 300;;
esac
exit 0
"#;

#[test]
fn ctrl_c_during_install_kills_the_build_and_exits_130() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let spack = bin.join("spack");
    std::fs::write(
        &spack,
        STAND_IN_SPACK.replace("$STANDIN", &tmp.path().display().to_string()),
    )
    .unwrap();
    std::fs::set_permissions(&spack, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tmp.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["spack", &example(), "--no-sandbox", "--no-audit", "--out"])
        .arg(&out)
        .env("PACKSMITH_CACHE_DIR", tmp.path().join("cache"))
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&tmp.path().join("cache")).join("packsmith.toml"),
        )
        .env_remove("PACKSMITH_MODEL")
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid_file = tmp.path().join("install.pid");
    let run = common::interrupt_once_started(&mut child, &pid_file);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("heatsim/report.json")).unwrap())
            .unwrap();
    common::assert_interrupted_cleanly(&run, &report, "install");
}

/// Ctrl-C while Spack answers a set-up query (its version, then its paths,
/// before any attempt): exit 130 with the interrupted message, not the
/// environment error of a failed query, and the query's group is killed.
#[test]
fn ctrl_c_during_the_set_up_query_exits_130() {
    use std::os::unix::fs::PermissionsExt;
    let hang = r#"sleep 300 & echo $$ > "$STANDIN/query.tmp"; mv "$STANDIN/query.tmp" "$STANDIN/query.pid"; exec sleep 300;;"#;
    for query in ["*--version*)", "*PACKSMITH-PATHS*)"] {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let spack = bin.join("spack");
        let script = STAND_IN_SPACK
            .replace(
                "case \"$*\" in\n",
                &format!("case \"$*\" in\n  {query} {hang}\n"),
            )
            .replace("$STANDIN", &tmp.path().display().to_string());
        assert!(script.contains(query), "{script}");
        std::fs::write(&spack, script).unwrap();
        std::fs::set_permissions(&spack, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
            .args(["spack", &example(), "--no-sandbox", "--out"])
            .arg(tmp.path().join("out"))
            .env("PACKSMITH_CACHE_DIR", tmp.path().join("cache"))
            .env(
                "PACKSMITH_CONFIG",
                std::path::Path::new(&tmp.path().join("cache")).join("packsmith.toml"),
            )
            .env_remove("PACKSMITH_MODEL")
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let run = common::interrupt_once_started(&mut child, &tmp.path().join("query.pid"));
        let err = stderr(&child.wait_with_output().unwrap());
        assert_eq!(run.status.code(), Some(130), "{query}: {err}");
        assert!(err.contains("interrupted (Ctrl-C)"), "{query}: {err}");
        assert_eq!(
            common::live_members_of_group(&run.build_group),
            Vec::<String>::new(),
            "{query}: the query's group outlived packsmith"
        );
    }
}

/// A project whose optional `find_package(ZLIB)` would find the host's
/// zlib: the draft switches the lookup off, the install passes the
/// hermeticity check as it stands, and the report says what the draft
/// switched off; `--no-hermeticity-check` leaves the stage out.
/// `packsmith spack` on a source tree with the draft alone (no model, no
/// audit, no variant check), in a cache and an output folder of its own.
struct DraftRun {
    args: Vec<String>,
    cache: tempfile::TempDir,
    out: tempfile::TempDir,
}

impl DraftRun {
    fn new(src: &Path, env: &Path) -> Self {
        let (cache, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let args = [
            "spack",
            &src.display().to_string(),
            "--spack",
            &env.display().to_string(),
            "--out",
            &out.path().display().to_string(),
            "--no-audit",
            "--no-variant-check",
            "--model",
            "none",
        ]
        .map(String::from)
        .to_vec();
        Self { args, cache, out }
    }

    /// The arguments, with `extra` after them.
    fn args<'a>(&'a self, extra: &[&'a str]) -> Vec<&'a str> {
        let mut all: Vec<&str> = self.args.iter().map(String::as_str).collect();
        all.extend_from_slice(extra);
        all
    }

    fn run(&self, args: &[&str]) -> Output {
        packsmith(args, self.cache.path(), None)
    }
}

#[test]
fn an_optional_host_library_is_switched_off_and_the_report_says_so() {
    let Some(env) =
        common::test_spack_env("an_optional_host_library_is_switched_off_and_the_report_says_so")
    else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(src.path().join("src")).unwrap();
    std::fs::write(
        src.path().join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.18)\nproject(zoptcli VERSION 0.1.0 LANGUAGES C)\n\
         find_package(ZLIB)\nadd_library(zoptcli SHARED src/z.c)\nif(ZLIB_FOUND)\n  \
         target_link_libraries(zoptcli PRIVATE ZLIB::ZLIB)\n  \
         target_compile_definitions(zoptcli PRIVATE HAVE_Z=1)\nendif()\ninstall(TARGETS zoptcli)\n",
    )
    .unwrap();
    std::fs::write(
        src.path().join("src/z.c"),
        "#ifdef HAVE_Z\n#include <zlib.h>\nconst char *z(void) { return zlibVersion(); }\n#else\nconst char *z(void) { return \"none\"; }\n#endif\n",
    )
    .unwrap();
    let draft = DraftRun::new(src.path(), &env);
    let base = draft.args(&[]);
    let o = draft.run(&base);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("  hermeticity    ok"), "{err}");
    let run = draft.out.path().join("zoptcli");
    let recipe = std::fs::read_to_string(run.join("package.py")).unwrap();
    assert!(
        recipe.contains("self.define(\"CMAKE_DISABLE_FIND_PACKAGE_ZLIB\", True)"),
        "{recipe}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    let h = &report["extras"]["hermeticity"];
    assert_eq!(h["last_passed"], true, "{report:#}");
    assert_eq!(h["draft_switched_off"], "ZLIB", "{report:#}");
    assert_eq!(
        h["findings"].as_array().map(Vec::len),
        Some(0),
        "{report:#}"
    );
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("## hermeticity"), "{md}");

    let o = draft.run(&draft.args(&["--replace", "--no-hermeticity-check"]));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(!err.contains("hermeticity"), "{err}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap();
    assert!(report["extras"].get("hermeticity").is_none(), "{report:#}");
}

/// A Makefile that installs under its own variable (`INSTDIR`, an
/// absolute default) with a plain `mkdir`, as RepeatAfterMe's does: the
/// draft passes the prefix through that variable, and the rule makes the
/// `mkdir` one that tolerates the prefix Spack has already made.
#[test]
fn a_makefile_with_its_own_install_directory_installs_from_the_draft() {
    let Some(env) =
        common::test_spack_env("a_makefile_with_its_own_install_directory_installs_from_the_draft")
    else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("Makefile"),
        "VERSION = 0.3\nINSTDIR = /usr/local/instdir-demo-$(VERSION)\n\n\
         all: instdir-demo\n\ninstdir-demo: main.c\n\t$(CC) -o $@ main.c\n\n\
         install: all\n\t@mkdir $(INSTDIR)\n\t@mkdir $(INSTDIR)/bin\n\t\
         cp instdir-demo $(INSTDIR)/bin\n",
    )
    .unwrap();
    std::fs::write(
        src.path().join("main.c"),
        "#include <stdio.h>\nint main(void) { puts(\"demo\"); return 0; }\n",
    )
    .unwrap();
    let draft = DraftRun::new(src.path(), &env);
    let o = draft.run(&draft.args(&["--name", "instdir-demo", "--version", "0.3"]));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("mkdir -p"), "{err}");
    let recipe =
        std::fs::read_to_string(draft.out.path().join("instdir-demo").join("package.py")).unwrap();
    assert!(
        recipe.contains("return [f\"INSTDIR={self.prefix}\", \"install\"]"),
        "{recipe}"
    );
    assert!(
        recipe.contains("    def edit(self, spec, prefix):\n        filter_file(r\"\\bmkdir\\s+\\$\", \"mkdir -p $\", \"Makefile\")"),
        "{recipe}"
    );
}

/// A recipe Spack refuses at load: `typ=` is no keyword of `depends_on`.
const BROKEN_GREETER: &str = r#"from spack.package import *


class Greeter(CMakePackage):
    """Prints a greeting chosen at build time."""

    homepage = "https://example.org/greeter"
    url = "https://example.org/greeter-1.0.tar.gz"

    version("1.0", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    depends_on("cmake@3.10:", typ="build")
"#;

#[test]
fn repair_refuses_a_recipe_it_cannot_read() {
    let cache = tempfile::tempdir().unwrap();
    let o = packsmith(
        &[
            "repair",
            "/nonexistent/greeter/package.py",
            "--model",
            "none",
        ],
        cache.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("cannot read /nonexistent/greeter/package.py"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn repair_fixes_a_recipe_spack_refuses_by_rule_without_a_model() {
    let Some(env) =
        common::test_spack_env("repair_fixes_a_recipe_spack_refuses_by_rule_without_a_model")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("greeter");
    std::fs::create_dir_all(&dir).unwrap();
    let recipe = dir.join("package.py");
    std::fs::write(&recipe, BROKEN_GREETER).unwrap();
    let out = tmp.path().join("runs");
    let o = packsmith(
        &[
            "repair",
            recipe.to_str().unwrap(),
            "--until",
            "audit",
            "--model",
            "none",
            "--spack",
            env.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        tmp.path(),
        None,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("rule: `depends_on` takes no `typ=`; `type=` is meant"),
        "{err}"
    );
    assert!(err.contains("  audit          ok"), "{err}");
    assert!(!err.contains("concretize"), "{err}");
    let fixed = std::fs::read_to_string(out.join("greeter/package.py")).unwrap();
    assert_eq!(fixed, BROKEN_GREETER.replace("typ=", "type="));
    // The recipe given was read, never written.
    assert_eq!(std::fs::read_to_string(&recipe).unwrap(), BROKEN_GREETER);

    // Without the rules and without a model nothing repairs it.
    let o = packsmith(
        &[
            "repair",
            recipe.to_str().unwrap(),
            "--until",
            "load",
            "--model",
            "none",
            "--no-rules",
            "--max-attempts",
            "1",
            "--spack",
            env.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--replace",
        ],
        tmp.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// A human recipe of the usual shape: its archive is a `.tar.bz2` release
/// whose checksum is not the local tree's, and a patch beside it fixes
/// the source.
const PATCHED_GREETER: &str = r#"from spack.package import *


class Greeter(CMakePackage):
    """Greets."""

    homepage = "https://example.org/greeter"
    url = "https://example.org/releases/greeter-1.0.tar.bz2"

    version("1.0", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    patch("fix.patch")

    depends_on("cmake@3.10:", type="build")
"#;

const FIX_PATCH: &str = "--- a/main.c\n+++ b/main.c\n@@ -1,2 +1,2 @@\n-#error unpatched\n+/* patched */\n int main(void) { return 0; }\n";

/// `repair --version V --source DIR`: a local tree stands in for the
/// recipe's archive (packed as the `.tar.bz2` its URL names, installed
/// without the upstream checksum) and the patch beside the recipe travels
/// with it, so a human recipe installs offline.
#[test]
fn repair_installs_a_recipe_from_a_local_tree_with_its_patches() {
    let Some(env) =
        common::test_spack_env("repair_installs_a_recipe_from_a_local_tree_with_its_patches")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let pkg = tmp.path().join("packages/greeter");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("package.py"), PATCHED_GREETER).unwrap();
    std::fs::write(pkg.join("fix.patch"), FIX_PATCH).unwrap();
    let src = tmp.path().join("greeter-src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.10)\nproject(greeter C)\nadd_executable(greeter main.c)\ninstall(TARGETS greeter)\n",
    )
    .unwrap();
    std::fs::write(
        src.join("main.c"),
        "#error unpatched\nint main(void) { return 0; }\n",
    )
    .unwrap();
    let out = tmp.path().join("runs");
    let recipe = pkg.join("package.py");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "repair",
            recipe.to_str().unwrap(),
            "--model",
            "none",
            "--no-rules",
            "--max-attempts",
            "1",
            "--spack",
            env.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--replace",
        ];
        args.extend_from_slice(extra);
        packsmith(&args, tmp.path(), None)
    };
    let o = run(&["--version", "1.0", "--source", src.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("stands in for the recipe's archive"), "{err}");
    assert!(err.contains("  install        ok"), "{err}");
    assert!(err.contains("  hermeticity    ok"), "{err}");
    let archive = out.join("greeter/mirror/greeter/greeter-1.0.tar.bz2");
    assert!(archive.is_file(), "{}", archive.display());
    let install_log =
        std::fs::read_to_string(out.join("greeter/attempts/01/logs/install.log")).unwrap();
    assert!(install_log.contains("--no-checksum"), "{install_log}");
    assert!(install_log.contains("greeter@=1.0"), "{install_log}");
    // The recipe given and its directory are untouched.
    assert_eq!(std::fs::read_to_string(&recipe).unwrap(), PATCHED_GREETER);

    // `--source` without `--version` is refused before anything runs.
    let o = run(&["--source", src.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--version"), "{}", stderr(&o));
}

/// A project whose licence is a PEP 639 expression (`license = "MIT"`)
/// needs setuptools 77; the set-up's pinned setuptools builds it, where
/// Debian's 66 refuses the table whoever wrote the recipe.
#[test]
fn a_pep_639_licence_expression_installs_from_the_draft() {
    let Some(env) = common::test_spack_env("a_pep_639_licence_expression_installs_from_the_draft")
    else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("pyproject.toml"),
        "[build-system]\nrequires = [\"setuptools>=77\"]\nbuild-backend = \"setuptools.build_meta\"\n\n\
         [project]\nname = \"pep639demo\"\nversion = \"1.0\"\n\
         description = \"Says hello, licensed by an SPDX expression.\"\n\
         license = \"MIT\"\nlicense-files = [\"LICENSE\"]\n",
    )
    .unwrap();
    std::fs::write(
        src.path().join("LICENSE"),
        "MIT License\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\n",
    )
    .unwrap();
    std::fs::create_dir(src.path().join("pep639demo")).unwrap();
    std::fs::write(
        src.path().join("pep639demo").join("__init__.py"),
        "def hello():\n    return \"hello\"\n",
    )
    .unwrap();
    let draft = DraftRun::new(src.path(), &env);
    let o = draft.run(&draft.args(&["--name", "py-pep639demo", "--version", "1.0"]));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("  install        ok"), "{err}");
    let recipe =
        std::fs::read_to_string(draft.out.path().join("py-pep639demo").join("package.py")).unwrap();
    assert!(
        recipe.contains("class PyPep639demo(PythonPackage)"),
        "{recipe}"
    );
    assert!(recipe.contains("license(\"MIT\")"), "{recipe}");
}
