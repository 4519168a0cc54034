//! The failure taxonomy on real Spack 0.23 logs captured by
//! `tests/spack_real.rs` (`PACKSMITH_CAPTURE_LOGS=1`), machine paths
//! replaced by placeholders. One snapshot per log: class and excerpt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use packsmith_spack::diagnose::{classify, FailureClass, MAX_BYTES, MAX_LINES};
use packsmith_spack::validate::Stage;

fn check(case: &str, stage: Stage, expect: FailureClass) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spack-logs");
    let log = std::fs::read_to_string(dir.join(format!("{case}.{stage}.log"))).unwrap();
    let build = std::fs::read_to_string(dir.join(format!("{case}.build.log"))).ok();
    let d = classify(stage, &log, build.as_deref());
    assert_eq!(d.class, expect, "{case}: {d:#?}");
    assert!(d.excerpt.lines().count() <= MAX_LINES + 1, "{case}");
    assert!(d.excerpt.len() <= MAX_BYTES + 32, "{case}");
    assert!(d.excerpt.len() < log.len() + build.as_ref().map_or(0, String::len));
    insta::assert_json_snapshot!(case, d);
}

macro_rules! logs {
    ($($test:ident => ($case:literal, $stage:expr, $class:expr),)*) => {
        $(#[test] fn $test() { check($case, $stage, $class); })*
    };
}

logs! {
    syntax_error_at_load => ("syntax", Stage::Load, FailureClass::Syntax),
    unknown_dependency_at_audit => ("unknown-dependency", Stage::Audit, FailureClass::UnknownPackage),
    unknown_dependency_at_concretize => ("unknown-dependency-spec", Stage::Concretize, FailureClass::UnknownPackage),
    depends_on_c_on_0_23 => ("depends-on-c", Stage::Audit, FailureClass::UnknownPackage),
    unsatisfiable_version => ("unsatisfiable", Stage::Concretize, FailureClass::Constraint),
    // From the fix-commit set (py-xgboost): a dependency's version this Spack's package lacks.
    unknown_dependency_version_at_audit => ("unknown-version", Stage::Audit, FailureClass::Constraint),
    cmake_configure_error => ("cmake-define-fails", Stage::Install, FailureClass::CmakeConfigure),
    missing_find_package => ("missing-find-package", Stage::Install, FailureClass::MissingDependency),
    cxx_compile_error => ("compile-error", Stage::Install, FailureClass::Compilation),
    recipe_exception_at_install => ("recipe-exception", Stage::Install, FailureClass::Syntax),
    spec_read_without_its_dependency => ("spec-without-dependency", Stage::Install, FailureClass::MissingDependency),
    wrong_sha256 => ("wrong-sha256", Stage::Install, FailureClass::Fetch),
    missing_tarball => ("missing-tarball", Stage::Install, FailureClass::Fetch),
    sandbox_escape_attempts => ("sandbox-escape", Stage::Install, FailureClass::Sandbox),
    fetch_content_offline => ("configure-download", Stage::Install, FailureClass::ConfigureDownload),
    git_clone_in_configure => ("configure-git-clone", Stage::Install, FailureClass::ConfigureDownload),
    make_without_install_target => ("no-install-target", Stage::Install, FailureClass::NoInstallTarget),
    ninja_without_install_target => ("no-install-target-ninja", Stage::Install, FailureClass::NoInstallTarget),
    // From a bench run (a hatchling project on the corpus' dev split), paths replaced alike.
    python_backend_refusal => ("python-backend", Stage::Install, FailureClass::Compilation),
    // From the fix-commit set's verification (spack-packages' own recipes, bench/fix-commits.py):
    // an Autotools source without `configure`, and a make step whose interpreter is missing.
    configure_cannot_be_generated => ("generate-configure", Stage::Install, FailureClass::MissingBuildTool),
    build_tool_not_found => ("build-tool-not-found", Stage::Install, FailureClass::MissingBuildTool),
    // From the real-failure set's dev split (dineof): a makefile includes a file the user makes
    // from a template the project ships.
    build_config_missing => ("build-config-missing", Stage::Install, FailureClass::MissingBuildConfig),
    // From the fix-commit set (blitz, its python call mended by the model): a release archive's
    // Autotools files made with an older libtool than this one.
    stale_autotools => ("stale-autotools", Stage::Install, FailureClass::StaleAutotools),
}

/// The names a repair needs: what the configure tried to download.
#[test]
fn a_configure_download_names_what_it_fetched() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spack-logs");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let d = classify(
        Stage::Install,
        &read("configure-download.install.log"),
        Some(&read("configure-download.build.log")),
    );
    assert_eq!(d.names, vec!["fmt"], "{d:#?}");
    assert!(d
        .hint
        .as_deref()
        .unwrap()
        .contains("FETCHCONTENT_FULLY_DISCONNECTED"));
    let d = classify(
        Stage::Install,
        &read("configure-git-clone.install.log"),
        Some(&read("configure-git-clone.build.log")),
    );
    assert_eq!(d.names, vec!["mesh-data"], "{d:#?}");
    // Without the build log, Spack's summary alone still tells.
    let d = classify(
        Stage::Install,
        &read("configure-download.install.log"),
        None,
    );
    assert_eq!(d.class, FailureClass::ConfigureDownload, "{d:#?}");
    assert_eq!(d.names, vec!["fmt"], "{d:#?}");
}
