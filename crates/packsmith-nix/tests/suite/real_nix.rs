//! Real Nix, in its sandbox, on nixpkgs-free expressions called through the
//! runner's normal path (generated `default.nix` → a local "nixpkgs" →
//! `callPackage ./package.nix`). With `PACKSMITH_RECORD_LOGS=1` the logs
//! are written to `tests/logs/` as fixtures for `logs_fixtures`.

use std::path::Path;
use std::time::Duration;

use packsmith_nix::prefetch::{prefetch, PrefetchPlan};
use packsmith_nix::{
    fix_hash_from_log, EvalErrorKind, Failure, FailureKind, NixConfig, NixRunner, NixpkgsPin,
    StepResult, WorkDir,
};

use super::common::{crate_dir, nix_available, sandbox_config};

const SRC_TEXT: &str = "hello\n";
const SRC_SRI: &str = "sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";

fn pin() -> NixpkgsPin {
    NixpkgsPin::Path {
        path: crate_dir().join("tests/fake-nixpkgs"),
    }
}

/// Writes `package` into a fresh work dir with a `src.txt` beside it and
/// runs evaluate + build. `@DIR@` in the package becomes the work dir.
fn run_case(
    name: &str,
    package: &str,
    config: impl Fn(&Path) -> NixConfig,
) -> (tempfile::TempDir, Vec<StepResult>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("src.txt"), SRC_TEXT).unwrap();
    let work = WorkDir::create(dir, &pin(), packsmith_nix::CallScope::TopLevel).unwrap();
    work.write_package(&package.replace("@DIR@", &dir.display().to_string()))
        .unwrap();
    let logs = dir.join("logs");
    let steps = NixRunner::new(config(dir))
        .validate(&work, None, &logs)
        .unwrap();
    if std::env::var_os("PACKSMITH_RECORD_LOGS").is_some() {
        let last = steps.last().unwrap();
        let text = std::fs::read_to_string(last.log_path.as_ref().unwrap()).unwrap();
        let text = text
            .replace(&dir.display().to_string(), "{WORK}")
            .replace(&crate_dir().display().to_string(), "{CRATE}");
        let step = match last.step {
            packsmith_nix::Step::Evaluate => "eval",
            packsmith_nix::Step::Build => "build",
        };
        std::fs::write(
            crate_dir().join(format!("tests/logs/{step}-{name}.log")),
            text,
        )
        .unwrap();
    }
    (tmp, steps)
}

fn sandboxed(dir: &Path) -> NixConfig {
    sandbox_config(&[dir])
}

fn diagnosis(steps: &[StepResult]) -> &packsmith_nix::NixDiagnosis {
    steps
        .last()
        .unwrap()
        .diagnosis
        .as_ref()
        .expect("a failed step")
}

#[test]
fn a_sandboxed_build_succeeds() {
    if !nix_available("a_sandboxed_build_succeeds") {
        return;
    }
    let (_t, steps) = run_case(
        "success",
        r#"{ shDerivation }:
shDerivation {
  name = "ok";
  script = "echo 'Running phase: buildPhase'; echo built > $out";
}
"#,
        sandboxed,
    );
    assert_eq!(steps.len(), 2);
    assert!(steps[0].success && steps[1].success, "{steps:#?}");
    assert!(steps[0].drv_path.as_deref().unwrap().ends_with("-ok.drv"));
    assert!(steps[1].out_paths[0].ends_with("-ok"));
    assert!(steps[1].command.contains("--option sandbox true"));
}

#[test]
fn builder_failure_with_a_compiler_error() {
    if !nix_available("builder_failure_with_a_compiler_error") {
        return;
    }
    let (_t, steps) = run_case(
        "builder-failure",
        r#"{ shDerivation }:
shDerivation {
  name = "hello-c";
  script = ''
    echo 'Running phase: unpackPhase'
    echo 'unpacking source archive /build/source'
    echo 'Running phase: configurePhase'
    echo 'no configure script, doing nothing'
    echo 'Running phase: buildPhase'
    echo 'gcc -O2 -c src/main.c -o main.o'
    echo 'src/main.c:3:10: fatal error: zlib.h: No such file or directory' >&2
    echo '    3 | #include <zlib.h>' >&2
    echo 'compilation terminated.' >&2
    echo 'make: *** [Makefile:7: main.o] Error 1' >&2
    exit 2
  '';
}
"#,
        sandboxed,
    );
    let d = diagnosis(&steps);
    match &d.failure {
        Failure::BuildFailure {
            phase, exit_code, ..
        } => {
            assert_eq!(phase.as_deref(), Some("buildPhase"));
            assert_eq!(*exit_code, Some(2));
        }
        other => panic!("{other:?}"),
    }
    assert!(d.excerpt.contains("zlib.h: No such file"), "{}", d.excerpt);
}

#[test]
fn a_failing_dependency() {
    if !nix_available("a_failing_dependency") {
        return;
    }
    let (_t, steps) = run_case(
        "dependency-failure",
        r#"{ shDerivation }:
let
  libfoo = shDerivation {
    name = "libfoo";
    script = "echo 'Running phase: configurePhase'; echo 'configure: error: C compiler cannot create executables' >&2; exit 77";
  };
in
shDerivation {
  name = "app";
  script = "echo ${libfoo} > $out";
}
"#,
        sandboxed,
    );
    let d = diagnosis(&steps);
    match &d.failure {
        Failure::DependencyFailure { failed } => {
            assert!(failed[0].ends_with("-libfoo.drv"), "{failed:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn syntax_error_and_undefined_variable() {
    if !nix_available("syntax_error_and_undefined_variable") {
        return;
    }
    let (_t, steps) = run_case(
        "syntax-error",
        "{ shDerivation }:\nshDerivation {\n  name = \"x\"\n  script = \"true\";\n}\n",
        sandboxed,
    );
    assert_eq!(steps.len(), 1, "no build after a failed evaluation");
    match &diagnosis(&steps).failure {
        Failure::EvalError {
            error, location, ..
        } => {
            assert_eq!(*error, EvalErrorKind::Syntax);
            let loc = location.as_ref().unwrap();
            assert!(loc.file.ends_with("package.nix"));
            assert_eq!(loc.line, 4);
        }
        other => panic!("{other:?}"),
    }
    let (_t, steps) = run_case(
        "undefined-variable",
        "{ shDerivation }:\nshDerivation {\n  name = \"x\";\n  script = buildScript;\n}\n",
        sandboxed,
    );
    match &diagnosis(&steps).failure {
        Failure::EvalError { error, name, .. } => {
            assert_eq!(*error, EvalErrorKind::UndefinedVariable);
            assert_eq!(name.as_deref(), Some("buildScript"));
        }
        other => panic!("{other:?}"),
    }
}

const FETCHING: &str = r#"{ lib, fetchurl, shDerivation }:
shDerivation {
  name = "uses-src";
  src = fetchurl {
    url = "file://@DIR@/src.txt";
    hash = HASH;
  };
  script = "read line < $src; echo $line > $out";
}
"#;

#[test]
fn malformed_hash_is_an_invalid_hash() {
    if !nix_available("malformed_hash_is_an_invalid_hash") {
        return;
    }
    let (_t, steps) = run_case(
        "malformed-hash",
        &FETCHING.replace("HASH", "\"sha256-abc\""),
        sandboxed,
    );
    let d = diagnosis(&steps);
    assert_eq!(d.kind(), FailureKind::InvalidHash, "{d:#?}");
}

#[test]
fn timeout_is_reported_as_timeout() {
    if !nix_available("timeout_is_reported_as_timeout") {
        return;
    }
    let (_t, steps) = run_case(
        "timeout",
        r#"{ shDerivation }:
shDerivation {
  name = "spins";
  script = "echo 'Running phase: checkPhase'; while :; do :; done";
}
"#,
        |dir| NixConfig {
            build_timeout: Duration::from_secs(2),
            ..sandboxed(dir)
        },
    );
    let d = diagnosis(&steps);
    assert!(
        matches!(
            d.failure,
            Failure::Timeout {
                after_secs: Some(2),
                ..
            }
        ),
        "{d:#?}"
    );
}

/// Trust on first use, for real: fakeHash → mismatch → `got:` → substituted
/// → the rebuild succeeds; and the prefetch gives the same hash up front.
#[test]
fn tofu_fixes_a_wrong_hash_and_the_rebuild_succeeds() {
    if !nix_available("tofu_fixes_a_wrong_hash_and_the_rebuild_succeeds") {
        return;
    }
    let (tmp, steps) = run_case(
        "hash-mismatch",
        &FETCHING.replace("HASH", "lib.fakeHash"),
        sandboxed,
    );
    let d = diagnosis(&steps);
    match &d.failure {
        Failure::HashMismatch { got, specified, .. } => {
            assert_eq!(got, SRC_SRI);
            assert_eq!(specified.as_deref(), Some(packsmith_nix::FAKE_HASH_SRI));
        }
        other => panic!("{other:?}"),
    }
    let work = WorkDir::existing(tmp.path());
    let expr = std::fs::read_to_string(work.package_path()).unwrap();
    let log = std::fs::read_to_string(steps[1].log_path.as_ref().unwrap()).unwrap();
    let fix = fix_hash_from_log(&expr, &log).expect("a fix");
    assert_eq!(fix.old, "lib.fakeHash");
    assert_eq!(fix.new, format!("\"{SRC_SRI}\""));
    work.write_package(&fix.fixed).unwrap();
    let again = NixRunner::new(sandboxed(tmp.path()))
        .validate(&work, None, &tmp.path().join("logs2"))
        .unwrap();
    assert!(again.iter().all(|s| s.success), "{again:#?}");

    let plan = PrefetchPlan {
        url: format!("file://{}/src.txt", tmp.path().display()),
        unpack: false,
    };
    assert_eq!(prefetch(&plan, &NixConfig::default()).unwrap(), SRC_SRI);
}
