//! A Python package's tests, as nixpkgs runs them: `pytestCheckHook` in
//! `nativeCheckInputs` when the project has tests, with the test extra's
//! pytest plugins and test libraries beside it; test tools kept out of
//! `dependencies` (a requirements file that lists pytest is for tests).

use packsmith_core::PythonFacts;

/// Tools that check code rather than run it: never a dependency, never a
/// check input (nixpkgs does not lint).
const LINTERS: &[&str] = &[
    "black",
    "coverage",
    "codecov",
    "flake8",
    "isort",
    "mypy",
    "nox",
    "pre-commit",
    "pylint",
    "pyright",
    "ruff",
    "tox",
    "twine",
    "build",
];

/// Extras that hold the test requirements.
const TEST_EXTRAS: &[&str] = &["test", "tests", "testing"];

fn normalized(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

/// Whether `name` is for tests or linting only, not for the package's use.
pub(super) fn is_test_tool(name: &str) -> bool {
    let n = normalized(name);
    n == "pytest" || n.starts_with("pytest-") || n == "nose" || LINTERS.contains(&n.as_str())
}

/// The nixpkgs attribute of a test requirement: pytest itself is the
/// hook; pytest-cov's coverage options are satisfied by its stub.
fn check_attr(name: &str) -> Option<String> {
    let n = normalized(name);
    match n.as_str() {
        "pytest" => Some("pytestCheckHook".into()),
        "pytest-cov" => Some("pytest-cov-stub".into()),
        _ if LINTERS.contains(&n.as_str()) => None,
        _ => Some(n),
    }
}

/// `nativeCheckInputs` for a project with tests (a `tests/` or `test/`
/// directory at the top of `tree`, or pytest among its requirements):
/// `pytestCheckHook`, then the test extra's requirements and any pytest
/// plugin listed elsewhere. Empty for a project without tests.
pub(super) fn check_inputs(py: &PythonFacts, tree: &str) -> Vec<String> {
    let has_test_dir = tree.lines().any(|l| {
        let entry = l.trim_start_matches(['│', '├', '└', '─', ' ']);
        entry.starts_with("tests/") || entry.starts_with("test/")
    });
    let test_extras = py
        .extras
        .iter()
        .filter(|e| TEST_EXTRAS.contains(&e.name.to_ascii_lowercase().as_str()))
        .flat_map(|e| e.requirements.iter().map(|r| r.name.as_str()));
    let plugins = py
        .dependencies
        .iter()
        .chain(py.extras.iter().flat_map(|e| e.requirements.iter()))
        .map(|r| r.name.as_str())
        .filter(|n| is_test_tool(n) && !LINTERS.contains(&normalized(n).as_str()));
    let named: Vec<&str> = test_extras.chain(plugins).collect();
    if !has_test_dir && named.is_empty() {
        return Vec::new();
    }
    let mut out = vec!["pytestCheckHook".to_string()];
    for attr in named.into_iter().filter_map(check_attr) {
        super::derived::push_once(&mut out, &attr);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::{Evidence, PythonExtra, PythonRequirement};

    fn req(name: &str) -> PythonRequirement {
        PythonRequirement {
            name: name.into(),
            extras: Vec::new(),
            specifier: String::new(),
            marker: None,
            evidence: Evidence::file("pyproject.toml"),
        }
    }

    #[test]
    fn the_test_extra_becomes_check_inputs() {
        let py = PythonFacts {
            extras: vec![
                PythonExtra {
                    name: "test".into(),
                    requirements: vec![
                        req("pyright"),
                        req("pytest"),
                        req("pytest-asyncio"),
                        req("syrupy"),
                    ],
                },
                PythonExtra {
                    name: "docs".into(),
                    requirements: vec![req("sphinx")],
                },
            ],
            ..PythonFacts::default()
        };
        assert_eq!(
            check_inputs(&py, ""),
            ["pytestCheckHook", "pytest-asyncio", "syrupy"]
        );
    }

    #[test]
    fn a_tests_directory_or_a_requirements_file_of_test_tools() {
        let tree = "├── affinegap/ (3 files)\n├── tests/ (2 files)\n└── setup.py\n";
        assert_eq!(
            check_inputs(&PythonFacts::default(), tree),
            ["pytestCheckHook"]
        );
        let py = PythonFacts {
            dependencies: vec![req("pytest"), req("pytest-cov"), req("numpy")],
            ..PythonFacts::default()
        };
        assert_eq!(
            check_inputs(&py, ""),
            ["pytestCheckHook", "pytest-cov-stub"]
        );
        assert!(check_inputs(&PythonFacts::default(), "└── src/ (1 files)\n").is_empty());
        assert!(is_test_tool("pytest_cov") && is_test_tool("ruff") && !is_test_tool("numpy"));
    }
}
