//! The review gate: the items of Spack's Package Review Guide a machine can
//! check, run on the recipe that installed. Each item says what a reviewer
//! would ask for; a recipe with none open is "review-clean".

use std::path::Path;

use packsmith_agent::report::{RunReport, RunStatus};
pub use packsmith_agent::review::{is_clean, to_extra, ReviewItem};
use packsmith_agent::review::{item, levels};
use packsmith_spack_knowledge::recipe::{parse_recipe, ParsedRecipe};

use crate::style::StyleTools;

/// Spack's style (black) wraps at this many characters.
const MAX_LINE: usize = 99;

/// Packages that only run during the build: a reviewer asks for
/// `type="build"` on them (the default, build and link, puts them on every
/// dependent's link line and in its run environment).
const BUILD_ONLY: &[&str] = &[
    "autoconf",
    "automake",
    "bison",
    "cmake",
    "doxygen",
    "flex",
    "gmake",
    "libtool",
    "m4",
    "meson",
    "ninja",
    "pkgconf",
    "pkgconfig",
    "py-flit-core",
    "py-hatch-vcs",
    "py-hatchling",
    "py-pdm-backend",
    "py-pip",
    "py-poetry-core",
    "py-setuptools",
    "py-setuptools-scm",
    "py-wheel",
];

/// Reviews `text`; `audit_passed` is the `spack audit` stage's verdict on
/// it (None when that stage did not run); `style` runs Spack's style tools,
/// or says why they are missing (the style item is then approximated).
pub fn review(
    text: &str,
    audit_passed: Option<bool>,
    style: Result<&StyleTools, &str>,
) -> Vec<ReviewItem> {
    let r = parse_recipe(text, "package.py");
    vec![
        description(&r),
        homepage(&r),
        source(&r),
        checksums(&r),
        license(&r),
        maintainers(&r),
        no_fixme(text),
        dependency_types(&r),
        variants_used(&r, text),
        style_item(text, style),
        audit(audit_passed),
    ]
}

/// Whether the passing (or best) attempt's stage `name` passed; None when
/// that stage did not run.
pub fn passed_stage(report: &RunReport, name: &str) -> Option<bool> {
    report
        .best_attempt
        .and_then(|n| report.attempts.iter().find(|a| a.attempt == n))
        .and_then(|a| a.stages.iter().find(|s| s.name == name))
        .map(|s| s.passed)
}

/// Whether a recipe has stand-alone tests for `spack test run` to run:
/// a `test_*` method of its package class or `import_modules`. A smoke
/// stage that found nothing to check passes, but tested nothing.
fn has_tests(text: &str) -> bool {
    parse_recipe(text, "package.py").has_stand_alone_tests()
}

/// The review gate on the recipe that passed, and the three levels the
/// run reached (installed, smoke-tested, review-clean), into the report's
/// extras; false when the run did not succeed (nothing to review).
pub fn record(report: &mut RunReport, run_dir: &Path, style: Result<&StyleTools, &str>) -> bool {
    let (RunStatus::Succeeded, Some(rel)) = (report.status, &report.final_recipe) else {
        return false;
    };
    let Ok(recipe) = std::fs::read_to_string(run_dir.join(rel)) else {
        return false;
    };
    let items = review(&recipe, passed_stage(report, "audit"), style);
    let levels = levels(
        passed_stage(report, "install") == Some(true),
        passed_stage(report, "smoke") == Some(true) && has_tests(&recipe),
        &items,
    );
    report.extras.insert("review".into(), to_extra(&items));
    report.extras.insert("levels".into(), levels);
    true
}

fn description(r: &ParsedRecipe) -> ReviewItem {
    let problems = match r.docstring.as_deref().map(str::trim) {
        None | Some("") => vec!["no docstring: add one sentence on what the package is".into()],
        Some(d) if d.contains("FIXME") => vec!["the docstring is a FIXME".into()],
        Some(_) => Vec::new(),
    };
    item("description", problems, "docstring present")
}

fn homepage(r: &ParsedRecipe) -> ReviewItem {
    let problems = match r.homepage.as_deref() {
        None => vec!["no homepage".into()],
        Some(h) if !h.starts_with("https://") => vec![format!("homepage {h} is not https")],
        Some(_) => Vec::new(),
    };
    item("homepage", problems, r.homepage.as_deref().unwrap_or(""))
}

fn source(r: &ParsedRecipe) -> ReviewItem {
    let urls: Vec<&str> = [r.url.as_deref(), r.git.as_deref()]
        .into_iter()
        .flatten()
        .chain(r.versions.iter().filter_map(|v| v.url.as_deref()))
        .collect();
    let mut problems: Vec<String> = urls
        .iter()
        .filter(|u| u.starts_with("file://") || u.starts_with('/'))
        .map(|u| format!("{u} is a local path: point it at the release archive upstream"))
        .collect();
    if urls.is_empty() {
        problems.push("no url or git".into());
    }
    item("source URL", problems, urls.first().copied().unwrap_or(""))
}

fn checksums(r: &ParsedRecipe) -> ReviewItem {
    let mut problems = Vec::new();
    if r.versions.is_empty() {
        problems.push("no version()".to_string());
    }
    for v in &r.versions {
        let pinned =
            v.sha256.is_some() || v.checksum.is_some() || v.commit.is_some() || v.tag.is_some();
        if !pinned && v.branch.is_none() {
            problems.push(format!("version {} has no sha256", v.version));
        }
    }
    item(
        "versions and checksums",
        problems,
        &format!("{} version(s) pinned", r.versions.len()),
    )
}

fn license(r: &ParsedRecipe) -> ReviewItem {
    let problems = if r.licenses.is_empty() {
        vec!["no license(): add the SPDX identifier".into()]
    } else {
        Vec::new()
    };
    item("license", problems, "license() present")
}

fn maintainers(r: &ParsedRecipe) -> ReviewItem {
    let problems = if r.maintainers.is_empty() {
        vec!["no maintainers(): pass --maintainer <github handle>".into()]
    } else {
        Vec::new()
    };
    item("maintainers", problems, &r.maintainers.join(", "))
}

fn no_fixme(text: &str) -> ReviewItem {
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains("FIXME:"))
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    let problems = if lines.is_empty() {
        Vec::new()
    } else {
        vec![format!("FIXME on line(s) {}", lines.join(", "))]
    };
    item("no FIXME", problems, "none")
}

fn dependency_types(r: &ParsedRecipe) -> ReviewItem {
    let problems = r
        .dependencies
        .iter()
        .filter(|d| BUILD_ONLY.contains(&d.name.as_str()))
        .filter(|d| d.types != ["build"])
        .map(|d| format!("{} should be type=\"build\" (line {})", d.name, d.line))
        .collect();
    item("dependency types", problems, "build tools are build-only")
}

/// A variant nothing refers to (no `+name`/`~name` in a `when=`, no
/// `define_from_variant`, no `self.spec` test) changes nothing. A quoted
/// name counts outside directives only (`depends_on("mpi")` names a
/// package, not the variant).
fn variants_used(r: &ParsedRecipe, text: &str) -> ReviewItem {
    const DIRECTIVES: &[&str] = &[
        "variant(",
        "depends_on(",
        "conflicts(",
        "provides(",
        "extends(",
    ];
    let code: Vec<&str> = text
        .lines()
        .filter(|l| !DIRECTIVES.iter().any(|d| l.trim_start().starts_with(d)))
        .collect();
    let used = |name: &str| {
        let marked = [format!("+{name}"), format!("~{name}")]
            .iter()
            .any(|m| text.contains(m.as_str()));
        let quoted = [format!("\"{name}\""), format!("'{name}'")]
            .iter()
            .any(|q| code.iter().any(|l| l.contains(q.as_str())));
        marked || quoted
    };
    let problems = r
        .variants
        .iter()
        .filter(|v| !used(&v.name))
        .map(|v| format!("variant {} is never used", v.name))
        .collect();
    item(
        "no unused variants",
        problems,
        &format!("{} variant(s)", r.variants.len()),
    )
}

/// Spack's own style tools when they run; else the part of their verdict
/// that needs no tool (line length, stray whitespace), saying so.
fn style_item(text: &str, tools: Result<&StyleTools, &str>) -> ReviewItem {
    let why_not = match tools.map(|t| t.check(text)) {
        Ok(Ok(found)) => {
            return item(
                "style",
                found.problems,
                "isort, black and flake8 with Spack's configuration: clean",
            )
        }
        Ok(Err(why)) => why,
        Err(why) => why.to_string(),
    };
    let mut approx = approximate_style(text);
    let note = format!(" (approximated: {why_not})");
    approx.detail.push_str(&note);
    approx
}

fn approximate_style(text: &str) -> ReviewItem {
    let long: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.chars().count() > MAX_LINE)
        .map(|(i, _)| (i + 1).to_string())
        .collect();
    let mut problems = Vec::new();
    if !long.is_empty() {
        problems.push(format!(
            "line(s) over {MAX_LINE} characters: {}",
            long.join(", ")
        ));
    }
    if text.lines().any(|l| l.ends_with(' ') || l.contains('\t')) {
        problems.push("trailing spaces or tabs".into());
    }
    item(
        "style",
        problems,
        "black's line length, no stray whitespace",
    )
}

fn audit(passed: Option<bool>) -> ReviewItem {
    let problems = match passed {
        Some(true) => Vec::new(),
        Some(false) => vec!["`spack audit packages` failed".into()],
        None => vec!["`spack audit packages` did not run (--no-audit)".into()],
    };
    item("spack audit", problems, "passed")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLEAN: &str = r#"from spack.package import *


class Demo(CMakePackage):
    """A demo library."""

    homepage = "https://example.org/demo"
    url = "https://github.com/o/demo/archive/refs/tags/v1.0.tar.gz"

    maintainers("someone")

    license("MIT")

    version("1.0", sha256="0000000000000000000000000000000000000000000000000000000000000000")

    variant("mpi", default=False, description="Use MPI")

    depends_on("cmake@3.16:", type="build")
    depends_on("mpi", when="+mpi")
"#;

    #[test]
    fn a_recipe_a_reviewer_would_merge_is_clean() {
        let items = review(CLEAN, Some(true), Err("no tools in unit tests"));
        assert!(is_clean(&items), "{items:#?}");
        assert_eq!(items.len(), 11);
    }

    #[test]
    fn each_open_item_is_named() {
        let drafted = CLEAN
            .replace(
                "https://github.com/o/demo/archive/refs/tags/v1.0.tar.gz",
                "file:///run/mirror/demo-1.0.tar.gz",
            )
            .replace("    maintainers(\"someone\")\n", "")
            .replace(
                "    license(\"MIT\")\n",
                "    # FIXME: license not recognised\n",
            )
            .replace("type=\"build\"", "type=(\"build\", \"link\")")
            .replace("when=\"+mpi\"", "when=\"@1.0:\"");
        let items = review(&drafted, None, Err("no tools in unit tests"));
        let failed: Vec<&str> = items
            .iter()
            .filter(|i| !i.passed)
            .map(|i| i.check)
            .collect();
        assert_eq!(
            failed,
            [
                "source URL",
                "license",
                "maintainers",
                "no FIXME",
                "dependency types",
                "no unused variants",
                "spack audit"
            ]
        );
        let detail = |check| &items.iter().find(|i| i.check == check).unwrap().detail;
        assert!(detail("source URL").contains("file:///run/mirror"));
        assert_eq!(detail("no unused variants"), "variant mpi is never used");
        assert!(detail("maintainers").contains("--maintainer"));
        let extra = to_extra(&items);
        assert_eq!(extra["clean"], false);
        assert_eq!(extra["items"].as_array().unwrap().len(), 11);
    }

    #[test]
    fn long_lines_fail_the_style_item() {
        let long = format!("{CLEAN}    # {}\n", "x".repeat(120));
        let items = review(&long, Some(true), Err("no tools in unit tests"));
        let style = items.iter().find(|i| i.check == "style").unwrap();
        assert!(!style.passed);
        assert!(style.detail.contains("over 99"), "{}", style.detail);
    }

    #[test]
    fn only_a_recipe_with_stand_alone_tests_is_smoke_tested() {
        assert!(!has_tests(CLEAN));
        let with_method = format!(
            "{CLEAN}\n    def test_link_demo(self):\n        \"\"\"link\"\"\"\n        pass\n"
        );
        assert!(has_tests(&with_method));
        let python = CLEAN.replace(
            "    maintainers(\"someone\")\n",
            "    import_modules = [\"demo\"]\n\n    maintainers(\"someone\")\n",
        );
        assert!(has_tests(&python));
    }
}
