//! A recipe written for Spack 0.23 rewritten in Spack 1.x's idiom, as
//! spack-packages takes it: each builtin base class imported from
//! `spack_repo.builtin.build_systems`, and the compiled languages declared
//! as `depends_on("c", type="build")`. Only these two differ in the
//! recipes packsmith writes; anything else is left as it is.

use crate::imports::render_imports;
use crate::recipe::{parse_recipe, ParsedRecipe, SpackGeneration};
use crate::target::TargetSpack;

/// The language virtuals Spack 1.x knows, in the order recipes declare them.
const LANGUAGES: &[&str] = &["c", "cxx", "fortran"];

/// The line left where the compiled languages are unknown.
pub const LANGUAGES_FIXME: &str =
    "# FIXME: declare the compiled languages, e.g. depends_on(\"c\", type=\"build\")";

/// `recipe` in Spack 1.x's idiom. `languages` are the language virtuals the
/// package compiles (`c`, `cxx`, `fortran`); `None` when unknown, which
/// leaves a FIXME line. A recipe already written for 1.x is returned as it is.
pub fn to_spack1(recipe: &str, languages: Option<&[String]>) -> String {
    let parsed = parse_recipe(recipe, "package.py");
    if parsed.generation == SpackGeneration::V1 {
        return recipe.to_string();
    }
    // Languages first: their insertion point is a line number of `parsed`.
    let with_languages = add_language_virtuals(recipe, &parsed, languages);
    let bases: Vec<String> = parsed
        .bases
        .iter()
        .filter(|b| !parsed.local_bases.contains(b))
        .cloned()
        .collect();
    replace_star_import(&with_languages, &bases)
}

/// `maintainers("handle")` added to the package class, before its first
/// version, unless the recipe names that maintainer already.
pub fn add_maintainer(recipe: &str, handle: &str) -> String {
    let parsed = parse_recipe(recipe, "package.py");
    if parsed.maintainers.iter().any(|m| m == handle) {
        return recipe.to_string();
    }
    let indent = class_indent(recipe, &parsed);
    let at = first_line_at(recipe, &indent, &["version("], &parsed)
        .or_else(|| body_insertion_line(recipe, &indent, &parsed));
    insert_lines(recipe, at, &[format!("{indent}maintainers(\"{handle}\")")])
}

/// The `depends_on("<lang>", type="build")` lines the recipe lacks, before
/// its first class-level dependency (else its first method, else at its end).
fn add_language_virtuals(
    recipe: &str,
    parsed: &ParsedRecipe,
    languages: Option<&[String]>,
) -> String {
    let declared = |lang: &str| parsed.dependencies.iter().any(|d| d.name == lang);
    if LANGUAGES.iter().any(|l| declared(l)) {
        return recipe.to_string();
    }
    let indent = class_indent(recipe, parsed);
    let lines: Vec<String> = match languages {
        Some(langs) => LANGUAGES
            .iter()
            .filter(|l| langs.iter().any(|g| g == *l))
            .map(|l| format!("{indent}depends_on(\"{l}\", type=\"build\")"))
            .collect(),
        None => vec![format!("{indent}{LANGUAGES_FIXME}")],
    };
    if lines.is_empty() {
        return recipe.to_string();
    }
    let at = body_insertion_line(recipe, &indent, parsed);
    insert_lines(recipe, at, &lines)
}

/// Where a new directive goes: before the first class-level `depends_on`,
/// else before the first method, else at the end of the file (`None`).
fn body_insertion_line(recipe: &str, indent: &str, parsed: &ParsedRecipe) -> Option<usize> {
    first_line_at(recipe, indent, &["depends_on("], parsed)
        .or_else(|| first_line_at(recipe, indent, &["def ", "@"], parsed))
}

/// The 0-based index of the first line after the class line that starts,
/// at exactly the class body's indentation, with one of `starts`. A line
/// inside a `with when(...)` block is deeper, so never matches.
fn first_line_at(
    recipe: &str,
    indent: &str,
    starts: &[&str],
    parsed: &ParsedRecipe,
) -> Option<usize> {
    let after = parsed.class_line.unwrap_or(0) as usize;
    recipe
        .lines()
        .enumerate()
        .skip(after)
        .find_map(|(i, line)| {
            let rest = line.strip_prefix(indent)?;
            let at_indent = !rest.starts_with(char::is_whitespace);
            (at_indent && starts.iter().any(|s| rest.starts_with(s))).then_some(i)
        })
}

/// The class body's indentation: that of the first indented line after
/// the class line, else four spaces.
fn class_indent(recipe: &str, parsed: &ParsedRecipe) -> String {
    let after = parsed.class_line.unwrap_or(0) as usize;
    recipe
        .lines()
        .skip(after)
        .find(|l| !l.trim().is_empty())
        .map(|l| l[..l.len() - l.trim_start().len()].to_string())
        .filter(|i| !i.is_empty())
        .unwrap_or_else(|| "    ".to_string())
}

/// `lines` inserted before line `at` (0-based), or appended when `None`.
fn insert_lines(recipe: &str, at: Option<usize>, lines: &[String]) -> String {
    let mut all: Vec<String> = recipe.lines().map(str::to_string).collect();
    match at {
        Some(i) => {
            // A blank line keeps the new group apart from the directives after it.
            let mut block = lines.to_vec();
            block.push(String::new());
            all.splice(i..i, block);
        }
        None => {
            all.push(String::new());
            all.extend(lines.iter().cloned());
        }
    }
    let mut out = all.join("\n");
    out.push('\n');
    out
}

/// The star import (`from spack.package import *`, or the old
/// `from spack import *`) replaced by 1.x's import block for `bases`; the
/// block goes before the first import, or at the top, when there is none.
fn replace_star_import(recipe: &str, bases: &[String]) -> String {
    let block = render_imports(TargetSpack::V1, bases);
    let lines: Vec<&str> = recipe.lines().collect();
    let is_star = |l: &&str| {
        let t = l.trim();
        t == "from spack.package import *" || t == "from spack import *"
    };
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + block.len());
    match lines.iter().position(is_star) {
        Some(i) => {
            out.extend(lines[..i].iter().map(|l| l.to_string()));
            out.extend(block);
            out.extend(lines[i + 1..].iter().map(|l| l.to_string()));
        }
        None => {
            let first_import = lines
                .iter()
                .position(|l| l.starts_with("import ") || l.starts_with("from "))
                .unwrap_or(0);
            out.extend(lines[..first_import].iter().map(|l| l.to_string()));
            out.extend(block);
            out.push(String::new());
            out.extend(lines[first_import..].iter().map(|l| l.to_string()));
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMAKE_023: &str = r#"# Copyright Spack Project Developers. See COPYRIGHT file for details.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)

from spack.package import *


class Heatsim(CMakePackage):
    """A heat simulation."""

    homepage = "https://example.org/heatsim"
    url = "https://example.org/heatsim-1.0.tar.gz"

    version("1.0", sha256="0" * 64)

    variant("mpi", default=False, description="MPI")

    with when("+mpi"):
        depends_on("mpi")
    depends_on("zlib-api")

    def cmake_args(self):
        return []
"#;

    const GENERIC_023: &str = r#"from spack.package import *


class Tool(Package):
    """A tool."""

    homepage = "https://example.org/tool"

    version("2.0", sha256="1" * 64)

    def install(self, spec, prefix):
        make("install", f"PREFIX={prefix}")
"#;

    fn langs(l: &[&str]) -> Vec<String> {
        l.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cmake_recipe_gets_its_build_system_import_and_languages() {
        let out = to_spack1(CMAKE_023, Some(&langs(&["cxx", "c"])));
        assert!(out.contains(
            "from spack_repo.builtin.build_systems.cmake import CMakePackage\n\n\
             from spack.package import *\n"
        ));
        assert_eq!(out.matches("from spack.package import *").count(), 1);
        // c before cxx, before the first class-level depends_on, not in the with block.
        assert!(out.contains(
            "    depends_on(\"c\", type=\"build\")\n    depends_on(\"cxx\", type=\"build\")\n\n    \
             depends_on(\"zlib-api\")"
        ));
        assert!(!out.contains("        depends_on(\"c\""));
        // The result reads as a 1.x recipe with the languages declared.
        let parsed = parse_recipe(&out, "package.py");
        assert_eq!(parsed.generation, SpackGeneration::V1);
        assert!(
            parsed.syntax_errors.is_empty(),
            "{:?}",
            parsed.syntax_errors
        );
        let names: Vec<&str> = parsed
            .dependencies
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert!(names.contains(&"c") && names.contains(&"cxx"));
        assert!(!names.contains(&"fortran"));
    }

    #[test]
    fn package_recipe_imports_the_generic_package() {
        let out = to_spack1(GENERIC_023, Some(&langs(&["c"])));
        assert!(out.starts_with(
            "from spack_repo.builtin.build_systems.generic import Package\n\n\
             from spack.package import *\n"
        ));
        // No depends_on at all: the languages go before the first method.
        assert!(out.contains("    depends_on(\"c\", type=\"build\")\n\n    def install"));
        assert!(parse_recipe(&out, "package.py").syntax_errors.is_empty());
    }

    #[test]
    fn unknown_languages_leave_a_fixme() {
        let out = to_spack1(GENERIC_023, None);
        assert!(out.contains(&format!("    {LANGUAGES_FIXME}\n")));
    }

    #[test]
    fn no_languages_add_nothing() {
        let out = to_spack1(GENERIC_023, Some(&[]));
        assert!(!out.contains("depends_on"));
        assert!(!out.contains("FIXME"));
    }

    #[test]
    fn declared_languages_are_not_declared_twice() {
        let recipe = GENERIC_023.replace(
            "    def install",
            "    depends_on(\"c\", type=\"build\")\n\n    def install",
        );
        let out = to_spack1(&recipe, Some(&langs(&["c", "cxx"])));
        assert_eq!(out.matches("depends_on(").count(), 1);
    }

    #[test]
    fn a_spack1_recipe_is_left_alone() {
        let v1 = to_spack1(CMAKE_023, Some(&langs(&["c"])));
        assert_eq!(to_spack1(&v1, Some(&langs(&["c", "cxx"]))), v1);
    }

    #[test]
    fn maintainer_goes_before_the_first_version_once() {
        let out = add_maintainer(GENERIC_023, "octocat");
        assert!(out.contains("    maintainers(\"octocat\")\n\n    version(\"2.0\""));
        assert_eq!(add_maintainer(&out, "octocat"), out);
        let parsed = parse_recipe(&out, "package.py");
        assert_eq!(parsed.maintainers, vec!["octocat".to_string()]);
    }
}
