//! The load-time rules of the static check against real Spack: every
//! fixture of `fixtures/check/load/` is refused by Spack 0.23 (when it
//! loads the package class, or by `spack audit packages`), and the control
//! recipe `fixtures/check/clean-load.py` is accepted by both Spack and the
//! check. Skipped (with a loud SKIPPED line) unless `PACKSMITH_TEST_SPACK`
//! names a Spack 0.23 checkout; Spack's user config and caches go to a
//! temporary directory under `$TMPDIR`. Takes about a second.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::check::{check_source, CheckOptions, Severity};
use packsmith_spack_knowledge::target::TargetSpack;

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
    let Some(root) = crate::real_spack::spack_or_skip("what_spack_refuses_at_load_the_check_flags")
    else {
        return;
    };
    let mut packages = fixtures_in("load");
    assert!(packages.len() >= 20, "{packages:?}");
    packages.push(("clean-load".into(), fixtures().join("clean-load.py")));
    let verdicts = crate::real_spack::spack_verdicts(Path::new(&root), &packages, false);
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
    let Some(root) =
        crate::real_spack::spack_or_skip("what_spack_refuses_at_audit_the_check_flags")
    else {
        return;
    };
    let packages = fixtures_in("audit");
    assert!(!packages.is_empty());
    let verdicts = crate::real_spack::spack_verdicts(Path::new(&root), &packages, true);
    for (name, file) in &packages {
        let (kind, message, flagged) = verdict_and_check(&verdicts, name, file);
        assert_eq!(kind, "refused-by-audit", "{name}: {message}");
        assert!(
            !flagged.is_empty(),
            "{name}: Spack refuses it ({message}), the check does not"
        );
    }
}
