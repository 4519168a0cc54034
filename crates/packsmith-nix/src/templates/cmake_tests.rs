//! Whether a CMake project's tests run in the package build. nixpkgs runs
//! them (`doCheck = true`) when they need neither the network nor a
//! display. Its CMake hook already passes `-DBUILD_TESTING=OFF` unless
//! `doCheck` is set, so only a project's own test option needs a flag,
//! and that flag follows `finalAttrs.doCheck` so that a user who turns the
//! checks off also skips building them.

use packsmith_core::facts::{CmakeFacts, DownloadFact, DownloadKind};

/// Which way a test option points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TestSwitch {
    /// ON builds the tests (`FOO_BUILD_TESTS`, `ENABLE_TESTING`).
    Enables,
    /// ON leaves them out (`CMAKE_DISABLE_TESTING`, `FOO_SKIP_TESTS`).
    Disables,
}

/// How an option switches the tests, if it does.
pub(super) fn test_switch(option: &str) -> Option<TestSwitch> {
    let up = option.to_ascii_uppercase();
    // A word of the name is about tests (`TESTS`, `TESTING`, `UNITTESTS`),
    // not one that only contains the letters (`LATEST`, `ATTESTATION`).
    let about_tests = up.split(['_', '.', '-']).any(|w| {
        w.starts_with("TEST") || w.ends_with("TESTS") || w.ends_with("TESTING") || w == "UNITTEST"
    });
    if !about_tests {
        return None;
    }
    let negative = ["DISABLE", "SKIP", "NO_", "WITHOUT"]
        .iter()
        .any(|w| up.contains(w));
    Some(if negative {
        TestSwitch::Disables
    } else {
        TestSwitch::Enables
    })
}

/// `BUILD_TESTING` is set by nixpkgs' CMake hook from `doCheck`.
pub(super) fn set_by_hook(option: &str) -> bool {
    option == "BUILD_TESTING"
}

/// Whether the project has tests for ctest to run: a test it registers
/// (`add_test`, `gtest_discover_tests`, …) or an option that builds them
/// (the registration may sit in a directory that option adds).
pub(super) fn has_tests(cmake: &CmakeFacts) -> bool {
    cmake.tests.is_some() || cmake.options.iter().any(|o| test_switch(&o.name).is_some())
}

/// Whether building the tests downloads something: a fetch declared in a
/// test file or behind a test option, or of a test framework.
pub(super) fn tests_download(downloads: &[DownloadFact]) -> bool {
    downloads.iter().any(|d| {
        let fetched = !matches!(
            d.kind,
            DownloadKind::GitSubmodule | DownloadKind::MesonSubproject
        );
        let in_tests = d.evidence.file.to_ascii_lowercase().contains("test")
            || d.conditions.iter().any(|c| test_switch(c).is_some());
        let framework = [&d.name, d.upstream.as_deref().unwrap_or_default()]
            .iter()
            .any(|n| is_test_framework(n));
        fetched && (in_tests || framework)
    })
}

fn is_test_framework(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["googletest", "gtest", "catch2", "doctest", "gmock"]
        .iter()
        .any(|f| n == *f || n.starts_with(&format!("{f}-")))
}

/// Whether a library is only there for the tests (it goes to
/// `checkInputs`): a test framework.
pub(super) fn test_only(attr: &str) -> bool {
    matches!(attr, "gtest" | "catch2" | "catch2_3" | "doctest")
}

/// Whether the program links a toolkit whose tests want a display,
/// which the build sandbox does not have.
pub(super) fn needs_display(build_inputs: &[String]) -> bool {
    build_inputs.iter().any(|i| {
        let i = i.to_ascii_lowercase();
        [
            "gtk",
            "qt",
            "sdl",
            "libx11",
            "libgl",
            "wayland",
            "glfw",
            "freeglut",
            "webkitgtk",
        ]
        .iter()
        .any(|t| i.starts_with(t) || i.contains(&format!(".{t}")))
    })
}

/// The `cmakeFlags` element for a test option, given whether the
/// package runs the tests and the option's upstream default.
pub(super) fn flag(
    option: &str,
    switch: TestSwitch,
    run: bool,
    default_on: bool,
) -> Option<String> {
    let value = match (switch, run) {
        (TestSwitch::Enables, true) => "finalAttrs.doCheck",
        (TestSwitch::Disables, true) => "(!finalAttrs.doCheck)",
        // Not run: say so only where upstream's default would build them.
        (TestSwitch::Enables, false) if default_on => "false",
        (TestSwitch::Disables, false) if !default_on => "true",
        _ => return None,
    };
    Some(format!("(lib.cmakeBool \"{option}\" {value})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::Evidence;

    #[test]
    fn switches_and_their_direction() {
        assert_eq!(test_switch("BUILD_TESTS"), Some(TestSwitch::Enables));
        assert_eq!(test_switch("ZIP_ENABLE_TESTING"), Some(TestSwitch::Enables));
        assert_eq!(
            test_switch("CMAKE_DISABLE_TESTING"),
            Some(TestSwitch::Disables)
        );
        assert_eq!(test_switch("FOO_SKIP_TESTS"), Some(TestSwitch::Disables));
        assert_eq!(test_switch("BUILD_EXAMPLES"), None);
        assert_eq!(test_switch("mio.tests"), Some(TestSwitch::Enables));
        assert_eq!(
            test_switch("FOO_BUILD_UNIT_TESTS"),
            Some(TestSwitch::Enables)
        );
        assert_eq!(test_switch("USE_LATEST_API"), None);
        assert_eq!(test_switch("ENABLE_ATTESTATION"), None);
    }

    #[test]
    fn flags_follow_do_check_when_the_tests_run() {
        assert_eq!(
            flag("BUILD_TESTS", TestSwitch::Enables, true, true).as_deref(),
            Some("(lib.cmakeBool \"BUILD_TESTS\" finalAttrs.doCheck)")
        );
        assert_eq!(
            flag("CMAKE_DISABLE_TESTING", TestSwitch::Disables, true, false).as_deref(),
            Some("(lib.cmakeBool \"CMAKE_DISABLE_TESTING\" (!finalAttrs.doCheck))")
        );
        // Not run: off where upstream builds them, nothing where it does not.
        assert_eq!(
            flag("BUILD_TESTS", TestSwitch::Enables, false, true).as_deref(),
            Some("(lib.cmakeBool \"BUILD_TESTS\" false)")
        );
        assert_eq!(flag("BUILD_TESTS", TestSwitch::Enables, false, false), None);
        assert_eq!(
            flag("CMAKE_DISABLE_TESTING", TestSwitch::Disables, false, false).as_deref(),
            Some("(lib.cmakeBool \"CMAKE_DISABLE_TESTING\" true)")
        );
    }

    fn download(name: &str, file: &str) -> DownloadFact {
        DownloadFact::new(DownloadKind::FetchContent, name, Evidence::new(file, 1))
    }

    #[test]
    fn a_fetch_for_the_tests_keeps_them_from_running() {
        assert!(tests_download(&[download("Catch2", "CMakeLists.txt")]));
        assert!(tests_download(&[download(
            "pluginval",
            "cmake/Tests.cmake"
        )]));
        assert!(!tests_download(&[download("fmt", "CMakeLists.txt")]));
        assert!(!tests_download(&[]));
    }

    #[test]
    fn toolkits_want_a_display() {
        assert!(needs_display(&["gtk3".into()]));
        assert!(needs_display(&["qt6.qtbase".into()]));
        assert!(needs_display(&["SDL2".into()]));
        assert!(!needs_display(&["zlib".into(), "gmp".into()]));
    }
}
