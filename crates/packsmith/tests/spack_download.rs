//! Issue 20, done when: a CMake project that fetches a library at
//! configure time and has no install rules installs offline, from the
//! deterministic draft with no model, with the library declared in the
//! recipe and the executable in the prefix. The fixture fetches fmt, which
//! `packsmith setup spack` declares external from the Debian package. A
//! Makefile without an `install:` target gets the generic `install()`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fmtfetch")
}

/// `packsmith spack SOURCE --model none EXTRA…` into `out`.
fn packsmith_spack(env: &Path, source: &Path, out: &Path, extra: &[&str]) -> Output {
    let cache = tempfile::tempdir().unwrap();
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["spack"])
        .arg(source)
        .arg("--spack")
        .arg(env)
        .arg("--out")
        .arg(out)
        .args(["--model", "none"])
        .args(extra)
        .env("PACKSMITH_CACHE_DIR", cache.path())
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache.path()).join("packsmith.toml"),
        )
        .env_remove("PACKSMITH_MODEL")
        .output()
        .unwrap()
}

/// The prefixes Spack reports as installed (`[+] /path`) in a stage log.
fn installed_prefixes(log: &str) -> Vec<PathBuf> {
    log.lines()
        .filter_map(|l| l.trim().strip_prefix("[+] "))
        .map(|p| PathBuf::from(p.split_whitespace().next().unwrap_or(p)))
        .collect()
}

/// The prefix of `name` that the first attempt's install reported.
fn prefix_of(run: &Path, name: &str) -> PathBuf {
    let log = std::fs::read_to_string(run.join("attempts/01/logs/install.log")).unwrap();
    installed_prefixes(&log)
        .into_iter()
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{name}-")))
        })
        .unwrap_or_else(|| panic!("no {name} prefix in:\n{log}"))
}

#[test]
fn a_fetch_content_project_without_install_rules_installs_from_the_draft() {
    let Some(env) = common::test_spack_env(
        "a_fetch_content_project_without_install_rules_installs_from_the_draft",
    ) else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = packsmith_spack(&env, &fixture(), out.path(), &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for line in [
        "attempt 1: deterministic draft",
        "  install        ok",
        "fmtfetch: succeeded",
    ] {
        assert!(err.contains(line), "missing `{line}` in:\n{err}");
    }
    let run = out.path().join("fmtfetch");
    let recipe = std::fs::read_to_string(run.join("package.py")).unwrap();
    // The library is declared, FetchContent finds it and may not download.
    for line in [
        "    depends_on(\"fmt\")",
        "            self.define(\"FETCHCONTENT_FULLY_DISCONNECTED\", True),",
        "            self.define(\"FETCHCONTENT_TRY_FIND_PACKAGE_MODE\", \"ALWAYS\"),",
        "    def install(self, spec, prefix):",
    ] {
        assert!(recipe.contains(line), "missing `{line}` in:\n{recipe}");
    }
    let log = std::fs::read_to_string(run.join("attempts/01/logs/install.log")).unwrap();
    // fmt came from the Debian external, not from a download.
    assert!(
        log.lines().any(|l| l.contains("[+] /usr (external fmt-")),
        "{log}"
    );
    let exe = prefix_of(&run, "fmtfetch-1.0.0").join("bin/fmtfetch");
    assert!(exe.is_file(), "{} is missing", exe.display());
    let ran = Command::new(&exe).output().unwrap();
    assert!(ran.status.success());
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout),
        "fmtfetch says 2 + 3 = 5\n"
    );
}

#[test]
fn a_makefile_without_install_target_installs_from_the_draft() {
    let Some(env) =
        common::test_spack_env("a_makefile_without_install_target_installs_from_the_draft")
    else {
        return;
    };
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packsmith-analyze/tests/fixtures/makefile-no-install");
    let out = tempfile::tempdir().unwrap();
    let o = packsmith_spack(&env, &source, out.path(), &["--version", "1.0"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let run = out.path().join("makefile-no-install");
    let recipe = std::fs::read_to_string(run.join("package.py")).unwrap();
    assert!(
        recipe.contains("    def install(self, spec, prefix):"),
        "{recipe}"
    );
    assert!(!recipe.contains("install_targets"), "{recipe}");
    let exe = prefix_of(&run, "makefile-no-install").join("bin/tool");
    assert!(exe.is_file(), "{} is missing", exe.display());
}
