//! Issue 20, done when: a CMake project that fetches a library at
//! configure time and has no install rules installs offline, from the
//! deterministic draft with no model, with the library declared in the
//! recipe and the executable in the prefix. The fixture fetches fmt, which
//! `packsmith setup spack` declares external from the Debian package.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fmtfetch")
}

/// The prefixes Spack reports as installed (`[+] /path`) in a stage log.
fn installed_prefixes(log: &str) -> Vec<PathBuf> {
    log.lines()
        .filter_map(|l| l.trim().strip_prefix("[+] "))
        .map(|p| PathBuf::from(p.split_whitespace().next().unwrap_or(p)))
        .collect()
}

#[test]
fn a_fetch_content_project_without_install_rules_installs_from_the_draft() {
    let Some(env) = common::test_spack_env(
        "a_fetch_content_project_without_install_rules_installs_from_the_draft",
    ) else {
        return;
    };
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["spack"])
        .arg(fixture())
        .arg("--spack")
        .arg(&env)
        .arg("--out")
        .arg(out.path())
        .args(["--model", "none"])
        .env("PACKSMITH_CACHE_DIR", cache.path())
        .env_remove("PACKSMITH_MODEL")
        .output()
        .unwrap();
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
    let prefix = installed_prefixes(&log)
        .into_iter()
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("fmtfetch-1.0.0-"))
        })
        .unwrap_or_else(|| panic!("no fmtfetch prefix in:\n{log}"));
    let exe = prefix.join("bin/fmtfetch");
    assert!(exe.is_file(), "{} is missing", exe.display());
    let ran = Command::new(&exe).output().unwrap();
    assert!(ran.status.success());
    assert_eq!(
        String::from_utf8_lossy(&ran.stdout),
        "fmtfetch says 2 + 3 = 5\n"
    );
}
