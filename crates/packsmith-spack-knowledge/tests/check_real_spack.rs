//! The load-time rules of the static check against real Spack: every
//! fixture of `fixtures/check/load/` is refused by Spack 0.23 (when it
//! loads the package class, or by `spack audit packages`), and the control
//! recipe `fixtures/check/clean-load.py` is accepted by both Spack and the
//! check. Skipped (with a loud SKIPPED line) unless `PACKSMITH_TEST_SPACK`
//! names a Spack 0.23 checkout; Spack's user config and caches go to a
//! temporary directory under `$TMPDIR`. Takes about a second.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use packsmith_spack_knowledge::check::{check_source, CheckOptions, Severity};
use packsmith_spack_knowledge::target::TargetSpack;

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

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check")
}

/// `(package name, fixture file)` of every fixture in `fixtures/check/<dir>/`.
fn fixtures_in(dir: &str) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(fixtures().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    out.sort();
    out
}

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

fn check_errors(name: &str, file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let opts = CheckOptions {
        spack: TargetSpack::V0_23,
        names: None,
        package: Some(name),
    };
    check_source(&text, "package.py", &opts)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.render(name))
        .collect()
}

/// Spack's verdict on one fixture and the check's errors on it, both
/// printed so a failing run shows the pair.
#[allow(clippy::print_stderr)] // the line is the test's record
fn verdict_and_check<'v>(
    verdicts: &'v BTreeMap<String, (String, String)>,
    name: &str,
    file: &Path,
) -> (&'v str, &'v str, Vec<String>) {
    let (kind, message) = verdicts
        .get(name)
        .unwrap_or_else(|| panic!("{name}: no verdict from Spack: {verdicts:?}"));
    let flagged = check_errors(name, file);
    eprintln!("{name}: Spack {kind} ({message}); check: {flagged:?}");
    (kind, message, flagged)
}

#[test]
fn what_spack_refuses_at_load_the_check_flags() {
    let Some(root) = spack_or_skip("what_spack_refuses_at_load_the_check_flags") else {
        return;
    };
    let mut packages = fixtures_in("load");
    assert!(packages.len() >= 20, "{packages:?}");
    packages.push(("clean-load".into(), fixtures().join("clean-load.py")));
    let verdicts = spack_verdicts(Path::new(&root), &packages, false);
    for (name, file) in &packages {
        let (kind, message, flagged) = verdict_and_check(&verdicts, name, file);
        if name == "clean-load" {
            assert_eq!(kind, "accepted", "control: {message}");
            assert!(flagged.is_empty(), "control flagged: {flagged:?}");
        } else {
            assert_ne!(kind, "accepted", "{name}: Spack accepts this fixture");
            assert!(
                !flagged.is_empty(),
                "{name}: Spack refuses it ({message}), the check does not"
            );
        }
    }
}

/// What Spack's audit refuses beyond load: each fixture of
/// `fixtures/check/audit/`, with Spack's builtin repository behind it so
/// its dependencies resolve, is refused by the audit, and the check flags it.
#[test]
fn what_spack_refuses_at_audit_the_check_flags() {
    let Some(root) = spack_or_skip("what_spack_refuses_at_audit_the_check_flags") else {
        return;
    };
    let packages = fixtures_in("audit");
    assert!(!packages.is_empty());
    let verdicts = spack_verdicts(Path::new(&root), &packages, true);
    for (name, file) in &packages {
        let (kind, message, flagged) = verdict_and_check(&verdicts, name, file);
        assert_eq!(kind, "refused-by-audit", "{name}: {message}");
        assert!(
            !flagged.is_empty(),
            "{name}: Spack refuses it ({message}), the check does not"
        );
    }
}
