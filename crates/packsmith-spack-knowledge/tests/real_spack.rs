//! Real Spack for the tests that need it, shared by this crate's tests and
//! the drafter's (which include this file by path): the checkout named in
//! `PACKSMITH_TEST_SPACK` (else a loud SKIPPED line), and Spack's verdict on
//! loading and auditing each package of a throw-away repository.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Loads each named package of the repositories at argv[1] (comma-separated,
/// first wins) and, when that works, runs the `packages` audits on it;
/// prints one verdict a line.
const LOAD_SCRIPT: &str = r#"
import sys
import spack.audit
import spack.repo
with spack.repo.use_repositories(*sys.argv[1].split(",")) as path:
    for name in sys.argv[2:]:
        try:
            path.get_pkg_class(name)
        except Exception as e:
            print("VERDICT", name, "refused-at-load", str(e).splitlines()[0][:300])
            continue
        found = []
        for _tag, errors in spack.audit.run_group("packages", pkgs=[name]):
            found.extend(str(e.summary) for e in errors)
        if found:
            print("VERDICT", name, "refused-by-audit", found[0][:300])
        else:
            print("VERDICT", name, "accepted", "-")
"#;

/// The Spack 0.23 checkout the tests run, or a loud SKIPPED line.
#[allow(clippy::print_stderr)] // that line is the point of the helper
pub(crate) fn spack_or_skip(test: &str) -> Option<std::ffi::OsString> {
    let root = std::env::var_os("PACKSMITH_TEST_SPACK");
    if root.is_none() {
        eprintln!(
            "SKIPPED: {test}: PACKSMITH_TEST_SPACK is not set; \
             set PACKSMITH_TEST_SPACK=/path/to/spack-0.23-checkout"
        );
    }
    root
}

/// Spack's verdict per package: (kind, first line of Spack's message).
/// With `builtin`, Spack's builtin repository sits behind the test one, so
/// the audits can resolve dependencies.
pub(crate) fn spack_verdicts(
    spack_root: &Path,
    packages: &[(String, PathBuf)],
    builtin: bool,
) -> BTreeMap<String, (String, String)> {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(repo.join("packages")).unwrap();
    std::fs::write(
        repo.join("repo.yaml"),
        "repo:\n  namespace: packsmith_check_test\n",
    )
    .unwrap();
    for (name, file) in packages {
        let dir = repo.join("packages").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(file, dir.join("package.py")).unwrap();
    }
    let script = tmp.path().join("load.py");
    std::fs::write(&script, LOAD_SCRIPT).unwrap();
    let home = tmp.path().join("home");
    let output = Command::new(spack_root.join("bin/spack"))
        .arg("python")
        .arg(&script)
        .arg(if builtin {
            let builtin = spack_root.join("var/spack/repos/builtin");
            format!("{},{}", repo.display(), builtin.display())
        } else {
            repo.display().to_string()
        })
        .args(packages.iter().map(|(n, _)| n))
        .current_dir(tmp.path())
        .env("HOME", &home)
        .env("SPACK_DISABLE_LOCAL_CONFIG", "1")
        .env("SPACK_USER_CONFIG_PATH", home.join(".spack"))
        .env("SPACK_USER_CACHE_PATH", home.join("cache"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "spack python failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("VERDICT "))
        .filter_map(|l| {
            let mut parts = l.splitn(3, ' ');
            Some((
                parts.next()?.to_string(),
                (parts.next()?.to_string(), parts.next()?.to_string()),
            ))
        })
        .collect()
}
