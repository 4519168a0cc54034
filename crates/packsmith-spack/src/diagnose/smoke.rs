//! A failed smoke test (`spack test run` of the test derived from the
//! install) as a `test` diagnosis: the failing parts and the output just
//! before each, read from Spack's test log, with a hint for the two
//! usual causes (a Python module and a shared library missing at run
//! time: a dependency not declared for the run).

use std::sync::LazyLock;

use regex::Regex;

use super::excerpt::strip_ansi;
use super::matching::{diagnosis, re};
use super::{Diagnosis, FailureClass};
use crate::validate::smoke::INSTALLED_NOTHING;
use crate::validate::Stage;

static MODULE: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"ModuleNotFoundError: No module named '([\w.]+)'"));
static LIBRARY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"error while loading shared libraries: ([^:\s]+): cannot open shared object file")
});

/// Lines of output shown before each failing part.
const CONTEXT: usize = 6;

/// Whether a line is Spack's own traceback or timestamped chatter.
fn noise(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("File \"") && t.contains("/lib/spack/")
        || t.starts_with("==> [")
        || t.starts_with("==> Testing package")
        || t.starts_with("sys.exit(")
        || t.starts_with("return ")
        || t.starts_with("self.")
        || t.starts_with("code = ")
        || t.starts_with("with test_part(")
}

fn captures(re: &LazyLock<Option<Regex>>, text: &str) -> Vec<String> {
    let Some(re) = re.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<String> = re.captures_iter(text).map(|c| c[1].to_string()).collect();
    out.dedup();
    out
}

/// Letters and digits only, lower case: `FusionIo` and `libfusionio_trace.so`
/// compare as `fusionio` and `libfusioniotraceso`.
fn squashed(text: &str) -> String {
    text.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether `library` carries the name of the package whose test failed
/// (`FAILED: FusionIo::test_trace_loads`): the package's own library.
fn own_library(library: &str, failed: &[String]) -> bool {
    let lib = squashed(library);
    failed.iter().any(|f| {
        let class = f
            .trim_start_matches("FAILED: ")
            .split("::")
            .next()
            .map(squashed)
            .unwrap_or_default();
        class.len() >= 3 && lib.contains(&class)
    })
}

/// The diagnosis of a failed smoke stage from its stage log and Spack's
/// test log (when the run left one).
pub fn diagnose_smoke(stage_log: &str, test_log: Option<&str>) -> Diagnosis {
    let text = strip_ansi(test_log.unwrap_or(stage_log));
    let lines: Vec<&str> = text.lines().collect();
    let mut excerpt = Vec::new();
    let mut failed = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !line.starts_with("FAILED: ") {
            continue;
        }
        failed.push(line.to_string());
        let before: Vec<&str> = lines[..i]
            .iter()
            .rev()
            .take_while(|l| !l.starts_with("PASSED: ") && !l.starts_with("FAILED: "))
            .filter(|l| !noise(l))
            .take(CONTEXT)
            .copied()
            .collect();
        excerpt.extend(before.into_iter().rev().map(str::to_string));
        excerpt.push(line.to_string());
    }
    let summary = match failed.first() {
        Some(first) => format!(
            "the smoke test failed: {}",
            first.trim_start_matches("FAILED: ")
        ),
        None => {
            // No part failed: the test run itself did not get that far.
            let last_error = strip_ansi(stage_log)
                .lines()
                .rev()
                .filter(|l| !l.starts_with("packsmith: exit "))
                .find(|l| l.contains("Error") || l.starts_with("packsmith: "))
                .unwrap_or("spack test run failed")
                .to_string();
            excerpt.push(last_error.clone());
            format!("the smoke test did not run: {last_error}")
        }
    };
    let mut d = diagnosis(Stage::Smoke, FailureClass::Test, summary, excerpt);
    let modules = captures(&MODULE, &text);
    let libraries = captures(&LIBRARY, &text);
    d.hint = Some(if stage_log.contains(INSTALLED_NOTHING) {
        "the install copied nothing into the prefix: the build made none of the programs or \
         libraries install() looks for, or made them elsewhere. Build them (name the build's \
         targets that make them in `build_targets`) and copy them from where the build writes \
         them"
            .to_string()
    } else if !modules.is_empty() {
        format!(
            "the installed package imports {} at run time: declare the package that provides it \
             with `depends_on(..., type=(\"build\", \"run\"))`",
            modules.join(", ")
        )
    } else if let Some(own) = libraries.iter().find(|l| own_library(l, &failed)) {
        format!(
            "an installed program cannot find {own}, the package's own library: the install \
             leaves it out (install it with the program: the build's install targets or \
             rules), or the program's RPATH misses where it is installed"
        )
    } else if !libraries.is_empty() {
        format!(
            "an installed program cannot find {} at run time: declare the package that provides \
             it as a link dependency (`depends_on(...)`), so Spack puts it in the RPATH",
            libraries.join(", ")
        )
    } else {
        "the installed program or module fails when run: fix the build (or the test, when it \
         asks for something the package does not do)"
            .to_string()
    });
    d.names = modules.into_iter().chain(libraries).collect();
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test log of a failing import, as Spack 0.23 writes it (the
    /// traceback shortened).
    const IMPORT: &str = "==> Testing package py-demo-1.0-abcdefg\n\
==> [2026-11-28-23:07:06.406967] test: test_imports: Attempts to import modules of the installed package.\n\
==> [2026-11-28-23:07:06.430669] '/usr/bin/python3' '-c' 'import demo'\n\
Traceback (most recent call last):\n\
  File \"<string>\", line 1, in <module>\n\
  File \"/opt/py-demo/lib/python3.11/site-packages/demo/__init__.py\", line 1, in <module>\n\
ModuleNotFoundError: No module named 'numpy'\n\
FAILED: PyDemo::test_imports_demo: Command exited with status 1:\n\
    '/usr/bin/python3' '-c' 'import demo'\n\
  File \"/work/src/spack-023/bin/spack\", line 52, in <module>\n\
    sys.exit(main())\n\
======================== 1 failed, 0 passed of 1 parts =========================\n";

    #[test]
    fn an_install_of_empty_directories_is_said_to_have_copied_nothing() {
        let log = format!(
            "packsmith smoke test\nbin/: no executable\n{INSTALLED_NOTHING} (only empty \
             directories): the build made nothing the recipe's install copied\n"
        );
        let d = diagnose_smoke(&log, None);
        assert_eq!(d.class, FailureClass::Test);
        assert!(
            d.summary.contains("put no file into its prefix"),
            "{}",
            d.summary
        );
        assert!(d.hint.unwrap().contains("build_targets"));
    }

    #[test]
    fn the_packages_own_library_missing_is_said_to_be_left_out_of_the_install() {
        let log = "==> Testing package fusion-io-2026-03-06-pwv5p5y\n\
/opt/fusion-io/bin/trace: error while loading shared libraries: libfusionio_trace.so: cannot open shared object file: No such file or directory\n\
FAILED: FusionIo::test_trace_loads: /opt/fusion-io/bin/trace: error while loading shared libraries: libfusionio_trace.so: cannot open shared object file\n";
        let d = diagnose_smoke("", Some(log));
        assert_eq!(d.names, ["libfusionio_trace.so"]);
        let hint = d.hint.unwrap();
        assert!(hint.contains("the package's own library"), "{hint}");
        // Another package's library is a dependency to declare.
        let other = log.replace("libfusionio_trace.so", "libnetcdf.so.19");
        let hint = diagnose_smoke("", Some(&other)).hint.unwrap();
        assert!(hint.contains("as a link dependency"), "{hint}");
    }

    #[test]
    fn a_missing_module_names_it_and_hints_at_a_run_dependency() {
        let d = diagnose_smoke("==> Error: 1 test(s) in the suite failed.\n", Some(IMPORT));
        assert_eq!(d.stage, Stage::Smoke);
        assert_eq!(d.class, FailureClass::Test);
        assert_eq!(
            d.summary,
            "the smoke test failed: PyDemo::test_imports_demo: Command exited with status 1:"
        );
        assert_eq!(d.names, ["numpy"]);
        assert!(d
            .hint
            .as_deref()
            .unwrap()
            .contains("type=(\"build\", \"run\")"));
        assert!(
            d.excerpt
                .contains("ModuleNotFoundError: No module named 'numpy'"),
            "{}",
            d.excerpt
        );
        assert!(!d.excerpt.contains("==> "), "{}", d.excerpt);
    }

    #[test]
    fn a_missing_library_hints_at_a_link_dependency() {
        let log = "==> [2026] '/opt/demo/bin/demo' '--version'\n\
/opt/demo/bin/demo: error while loading shared libraries: libfoo.so.1: cannot open shared object file: No such file or directory\n\
FAILED: Demo::test_demo_version: Command exited with status 127:\n";
        let d = diagnose_smoke("", Some(log));
        assert_eq!(d.names, ["libfoo.so.1"]);
        assert!(
            d.hint.as_deref().unwrap().contains("link dependency"),
            "{:?}",
            d.hint
        );
    }

    #[test]
    fn a_run_that_tested_nothing_says_why() {
        let stage =
            "==> stdout\n\n==> stderr\n==> Warning: No installed packages match spec /abc\n\
packsmith: spack test run left no test log under /a/smoke-test: nothing was tested\n\
packsmith: exit Some(0) after 1.0 s\n";
        let d = diagnose_smoke(stage, None);
        assert_eq!(
            d.summary,
            "the smoke test did not run: packsmith: spack test run left no test log under /a/smoke-test: nothing was tested"
        );
    }
}
