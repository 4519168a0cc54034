//! Classification of logs captured from real Nix 2.8 runs (see `real_nix`;
//! re-record with `PACKSMITH_RECORD_LOGS=1`). Pure: needs no Nix.

use packsmith_nix::{classify, compare_logs, prejudge, LogView, Step, Verdict};

use super::common::crate_dir;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(crate_dir().join("tests/logs").join(name)).unwrap()
}

/// The step from the file name, the top derivation from the logged
/// `$ nix-build /nix/store/….drv` command line.
fn classify_fixture(name: &str) -> packsmith_nix::NixDiagnosis {
    let log = fixture(name);
    let step = if name.starts_with("eval-") {
        Step::Evaluate
    } else {
        Step::Build
    };
    let top = log
        .lines()
        .next()
        .and_then(|l| l.split_whitespace().find(|w| w.ends_with(".drv")))
        .map(str::to_string);
    classify(step, &log, top.as_deref())
}

macro_rules! fixtures {
    ($($test:ident => $file:literal,)*) => {$(
        #[test]
        fn $test() {
            insta::assert_json_snapshot!(stringify!($test), classify_fixture($file));
        }
    )*};
}

fixtures!(
    builder_failure => "build-builder-failure.log",
    dependency_failure => "build-dependency-failure.log",
    hash_mismatch => "build-hash-mismatch.log",
    timeout => "build-timeout.log",
    syntax_error => "eval-syntax-error.log",
    undefined_variable => "eval-undefined-variable.log",
    malformed_hash => "eval-malformed-hash.log",
);

#[test]
fn every_fixture_is_classified() {
    let dir = crate_dir().join("tests/logs");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".log") && !name.contains("success") {
            let d = classify_fixture(&name);
            assert_ne!(d.kind(), packsmith_nix::FailureKind::Unknown, "{name}");
            n += 1;
        }
    }
    assert!(n >= 7);
}

#[test]
fn paging_and_comparison_on_a_real_log() {
    let log = fixture("build-builder-failure.log");
    let view = LogView::new(&log);
    let tail = view.tail(3);
    assert!(
        tail.text.contains("failed with exit code 2"),
        "{}",
        tail.text
    );
    assert!(tail.more_before);
    // The same failure from another build (different store hash) stagnates.
    let other = reshash(&log);
    assert_ne!(other, log);
    assert_eq!(prejudge(&log, &other).unwrap().verdict, Verdict::Stagnation);
    // Reaching a later phase is progress without a model.
    let dep = fixture("build-dependency-failure.log");
    assert_eq!(prejudge(&dep, &log).unwrap().verdict, Verdict::Progress);
    let cmp = compare_logs(&dep, &log, 240);
    assert!(cmp.new.contains("buildPhase"));
}

/// The same log with every store hash changed, as another build prints it.
fn reshash(log: &str) -> String {
    let mut out = String::new();
    let mut rest = log;
    while let Some(i) = rest.find("/nix/store/") {
        let start = i + "/nix/store/".len();
        out.push_str(&rest[..start]);
        let hash: String = rest[start..].chars().take(32).collect();
        out.push_str(&hash.chars().rev().collect::<String>());
        rest = &rest[start + hash.len()..];
    }
    out.push_str(rest);
    out
}
