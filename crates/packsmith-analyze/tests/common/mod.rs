//! Shared by the fixture snapshot tests: analyse `tests/fixtures/<name>` and
//! snapshot the full `RepoFacts` JSON.

use packsmith_core::{RepoFacts, SourceInfo};
use std::path::PathBuf;

pub fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Analyses one fixture repository. The source is recorded by fixture name
/// so snapshots do not depend on where the checkout lives.
pub fn analyze_fixture(name: &str) -> RepoFacts {
    let dir = fixture_dir(name);
    packsmith_analyze::analyze_dir(
        &dir,
        SourceInfo {
            kind: "path".into(),
            given: format!("fixtures/{name}"),
            release_tag: None,
        },
    )
    .unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

/// The facts of a temporary project made of these files.
pub fn facts_of(files: &[(&str, &str)]) -> packsmith_core::RepoFacts {
    facts_for(files, None)
}

/// [`facts_of`] for the package `wanted` (`py-stringzilla`).
pub fn facts_for(files: &[(&str, &str)], wanted: Option<&str>) -> packsmith_core::RepoFacts {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    packsmith_analyze::analyze_dir_for(
        dir.path(),
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: "fixture".into(),
            release_tag: None,
        },
        wanted,
    )
    .unwrap()
}

/// One snapshot test per fixture: `fixture_snapshots!(cmake_nested, …)`
/// analyses `tests/fixtures/<name with - for _>` and compares the JSON with
/// `tests/snapshots/all__<module>__<name>.snap`.
#[macro_export]
macro_rules! fixture_snapshots {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let fixture = stringify!($name).replace('_', "-");
                let facts = $crate::common::analyze_fixture(&fixture);
                insta::assert_json_snapshot!(stringify!($name), facts);
            }
        )*
    };
}
