//! Which CMake options build tests, and which build things a package user
//! does not install (examples, benchmarks, docs): judged word by word on the
//! option's name, whatever the project calls it, so `FOO_BUILD_UNIT_TESTS`
//! and `WITH_DOCS` are caught and `CONTEST_*` or `DOCKER_*` are not.

/// The words of an option name, upper-cased: split at `_`, `-` and
/// camel-case boundaries (`EnableTests` → `ENABLE`, `TESTS`).
pub(super) fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word).to_ascii_uppercase());
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word).to_ascii_uppercase());
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        word.push(c);
    }
    if !word.is_empty() {
        out.push(word.to_ascii_uppercase());
    }
    out
}

/// Words that mean "build the tests".
const TEST_WORDS: &[&str] = &[
    "TEST",
    "TESTS",
    "TESTING",
    "TESTSUITE",
    "UNITTEST",
    "UNITTESTS",
    "CTEST",
];

/// Words that only mean "tests" when they are all the option says beside
/// a verb (`ENABLE_CHECK`): `BOUNDS_CHECK` is a feature.
const ALONE_TEST_WORDS: &[&str] = &["CHECK", "CHECKS"];

/// Words that say nothing about what an option switches.
const FILLER_WORDS: &[&str] = &["ENABLE", "BUILD", "WITH", "USE", "INCLUDE", "DO", "MAKE"];

/// A test option: the name without the project's prefix has a test word.
pub(super) fn is_test_option(name: &str, project: Option<&str>) -> bool {
    let u = name.to_ascii_uppercase();
    // The spellings recognised before word matching, kept (`FOO_BUILD_TESTEXE`).
    if u == "BUILD_TESTING"
        || u.ends_with("_TESTS")
        || u.ends_with("_TESTING")
        || u.ends_with("_TEST")
        || u.contains("_BUILD_TEST")
        || u.contains("_ENABLE_TEST")
    {
        return true;
    }
    let mut w = words(name);
    if let Some(project) = project {
        let prefix = words(project);
        if !prefix.is_empty() && w.len() > prefix.len() && w.starts_with(&prefix) {
            w.drain(..prefix.len());
        }
    }
    if w.iter().any(|x| TEST_WORDS.contains(&x.as_str())) {
        return true;
    }
    let rest: Vec<&String> = w
        .iter()
        .filter(|x| !FILLER_WORDS.contains(&x.as_str()))
        .collect();
    matches!(rest.as_slice(), [only] if ALONE_TEST_WORDS.contains(&only.as_str()))
}

/// Options for things a package user does not install: benchmarks,
/// examples, docs, demos. Their variants default to off whatever the
/// upstream default (they often download or need heavy tools), as Spack
/// recipes usually do.
/// Judged on the variant name (project prefix already stripped), word by
/// word, so a project called `demo` does not turn every option off.
pub(super) fn is_extras_option(variant: &str) -> bool {
    const WORDS: &[&str] = &[
        "APIDOC",
        "APIDOCS",
        "BENCH",
        "BENCHMARK",
        "BENCHMARKS",
        "DEMO",
        "DEMOS",
        "DOC",
        "DOCS",
        "DOCUMENTATION",
        "DOXYGEN",
        "EXAMPLE",
        "EXAMPLES",
        "LATEX",
        "MAN",
        "MANPAGE",
        "MANPAGES",
        "SAMPLES",
        "SANDBOX",
        "SPHINX",
        "TUTORIAL",
        "TUTORIALS",
    ];
    words(variant).iter().any(|w| WORDS.contains(&w.as_str()))
}

/// A variant that builds tests, examples, benchmarks or docs, judged word
/// by word (`docs`, `build_tests`; never `docker` or `contest`): what a
/// repair may switch off when the build tried to download.
pub fn is_extras_or_test_variant(variant: &str) -> bool {
    is_extras_option(variant)
        || words(variant)
            .iter()
            .any(|w| TEST_WORDS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::{is_extras_option, is_extras_or_test_variant, is_test_option, words};

    #[test]
    fn extras_or_tests_for_repairs() {
        for v in ["tests", "build_tests", "docs", "benchmarks", "examples"] {
            assert!(is_extras_or_test_variant(v), "{v}");
        }
        for v in ["docker", "contest", "latest", "mpi"] {
            assert!(!is_extras_or_test_variant(v), "{v}");
        }
    }

    #[test]
    fn words_split_at_separators_and_case() {
        assert_eq!(
            words("FOO_BUILD_UNIT_TESTS"),
            ["FOO", "BUILD", "UNIT", "TESTS"]
        );
        assert_eq!(words("EnableTests"), ["ENABLE", "TESTS"]);
        assert_eq!(words("with-docs"), ["WITH", "DOCS"]);
    }

    #[test]
    fn test_options_whatever_their_name() {
        for name in [
            "BUILD_TESTING",
            "FOO_BUILD_UNIT_TESTS",
            "FOO_MOCK_TESTS",
            "FOO_TESTS",
            "ENABLE_TESTING",
            "BUILD_UNITTESTS",
            "FOO_ENABLE_TEST_SUITE",
            "WITH_TESTS",
            "FooBuildTests",
            "ENABLE_CHECK",
            "FOO_BUILD_CHECKS",
            "FOO_BUILD_TESTEXE",
        ] {
            assert!(is_test_option(name, Some("foo")), "{name}");
        }
        for name in [
            "CONTEST_ENABLE_MPI",
            "FOO_BOUNDS_CHECK",
            "ENABLE_RANGE_CHECKS",
            "FOO_LATEST_API",
            "FOO_ATTESTATION",
            "BUILD_SHARED_LIBS",
        ] {
            assert!(!is_test_option(name, Some("foo")), "{name}");
        }
        // A project called `test` does not make every option a test option.
        assert!(!is_test_option("TEST_ENABLE_MPI", Some("test")));
    }

    #[test]
    fn extras_are_judged_word_by_word_on_the_variant_name() {
        for v in [
            "benchmarks",
            "build_docs",
            "examples",
            "sandbox",
            "demo",
            "build_doc",
            "with_docs",
            "doxygen",
            "BuildExamples",
            "build_man",
            "latex",
        ] {
            assert!(is_extras_option(v), "{v}");
        }
        for v in [
            "openmp",
            "mpi_io",
            "shared",
            "docopt",
            "benchmarking_lib",
            "docker",
            "contest",
            "manager",
            "human",
        ] {
            assert!(!is_extras_option(v), "{v}");
        }
    }
}
