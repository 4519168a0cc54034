//! A recipe written for Spack 0.23 rewritten in Spack 1.x's idiom, as
//! spack-packages takes it: each builtin base class imported from
//! `spack_repo.builtin.build_systems`, and the compiled languages declared
//! as `depends_on("c", type="build")`. Only these two differ in the
//! recipes packsmith writes; anything else is left as it is.

use crate::edit::{apply_edits, apply_edits_to, EditOp};
use crate::imports::render_imports;
use crate::pystr::py_str;
use crate::recipe::{ParsedRecipe, RecipeTree, SpackGeneration};
use crate::target::TargetSpack;

/// The language virtuals Spack 1.x knows, in the order recipes declare them.
const LANGUAGES: &[&str] = &["c", "cxx", "fortran"];

/// The line left where the compiled languages are unknown.
pub const LANGUAGES_FIXME: &str =
    "# FIXME: declare the compiled languages, e.g. depends_on(\"c\", type=\"build\")";

/// `recipe` in Spack 1.x's idiom. `languages` are the language virtuals the
/// package compiles (`c`, `cxx`, `fortran`); `None` when unknown, which
/// leaves a FIXME line. A recipe already written for 1.x is returned as it is.
/// The languages go before the class's first `depends_on` directly in its
/// body (else its first method, else at its end); the star import becomes
/// the import block of the bases the class takes from Spack.
pub fn to_spack1(recipe: &str, languages: Option<&[String]>) -> String {
    let tree = RecipeTree::parse(recipe, "package.py");
    if tree.recipe().generation == SpackGeneration::V1 {
        return recipe.to_string();
    }
    let tree = with_unix_lines(tree);
    let parsed = tree.recipe();
    let mut edits = Vec::new();
    if let Some(lines) = language_lines(parsed, languages) {
        edits.push(EditOp::AddClassLines {
            lines,
            before: vec!["depends_on".into()],
        });
    }
    let bases: Vec<String> = parsed
        .bases
        .iter()
        .filter(|b| !parsed.local_bases.contains(b))
        .cloned()
        .collect();
    edits.push(EditOp::ReplaceStarImport {
        lines: render_imports(TargetSpack::V1, &bases),
    });
    apply_each(tree, &edits)
}

/// `maintainers("handle")` added to the package class, before its first
/// version (else where [`to_spack1`] puts the languages), unless the
/// recipe names that maintainer already. In a recipe that derives its
/// package from a base class of its own, the maintainer goes to the
/// package, not to the base other packages may import too.
pub fn add_maintainer(recipe: &str, handle: &str) -> String {
    let tree = RecipeTree::parse(recipe, "package.py");
    if tree.recipe().maintainers.iter().any(|m| m == handle) {
        return recipe.to_string();
    }
    let edit = EditOp::AddClassLines {
        lines: vec![format!("maintainers({})", py_str(handle))],
        before: vec!["version".into(), "depends_on".into()],
    };
    apply_each(derived_package(with_unix_lines(tree)), &[edit])
}

/// The recipe read with the class Spack loads as its package. Not knowing
/// the package's name, the reader takes the first class with a `*Package`
/// base; where a later class of the file derives from that one
/// (`class Fftw(FftwBase)`), the most derived is the package, and the
/// recipe is read again under a directory named after it.
fn derived_package(tree: RecipeTree) -> RecipeTree {
    let Some(chosen) = tree.recipe().class_name.clone() else {
        return tree;
    };
    let classes = &tree.layout().classes;
    let mut package = chosen.clone();
    for _ in 0..classes.len() {
        let derived = classes
            .iter()
            .find(|c| c.name != package && c.base_names().any(|b| b == package));
        match derived {
            Some(c) => package = c.name.clone(),
            None => break,
        }
    }
    if package == chosen {
        return tree;
    }
    let reread = RecipeTree::parse(tree.source(), &format!("{package}/package.py"));
    match reread.recipe().class_name.as_deref() == Some(package.as_str()) {
        true => reread,
        false => tree,
    }
}

/// The `depends_on("<lang>", type="build")` lines (unindented) the recipe
/// lacks, or the FIXME line when the languages are unknown; `None` when
/// there is nothing to add.
fn language_lines(parsed: &ParsedRecipe, languages: Option<&[String]>) -> Option<Vec<String>> {
    let declared = |lang: &str| parsed.dependencies.iter().any(|d| d.name == lang);
    if LANGUAGES.iter().any(|l| declared(l)) {
        return None;
    }
    let lines: Vec<String> = match languages {
        Some(langs) => LANGUAGES
            .iter()
            .filter(|l| langs.iter().any(|g| g == *l))
            .map(|l| format!("depends_on(\"{l}\", type=\"build\")"))
            .collect(),
        None => vec![LANGUAGES_FIXME.to_string()],
    };
    (!lines.is_empty()).then_some(lines)
}

/// The recipe with `\n` line ends and a final newline, as spack-packages
/// keeps its files (parsed again only when that changes it).
fn with_unix_lines(tree: RecipeTree) -> RecipeTree {
    let mut text = tree.source().lines().collect::<Vec<_>>().join("\n");
    text.push('\n');
    if text == tree.source() {
        tree
    } else {
        RecipeTree::parse(&text, "package.py")
    }
}

/// `edits` applied in turn; one that cannot apply (a recipe without a
/// package class gets no class lines) is left out.
fn apply_each(tree: RecipeTree, edits: &[EditOp]) -> String {
    let mut text = tree.source().to_string();
    for (i, edit) in edits.iter().enumerate() {
        let edited = match i {
            0 => apply_edits_to(&tree, std::slice::from_ref(edit)),
            _ => apply_edits(&text, std::slice::from_ref(edit)),
        };
        if let Ok(edited) = edited {
            text = edited;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recipe::parse_recipe;

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

    #[test]
    fn languages_stay_in_the_package_class() {
        // No depends_on and no method: at the class's end, not in the
        // builder class that follows it.
        let recipe = "from spack.package import *\n\n\nclass Tool(CMakePackage):\n    version(\"1.0\")\n\n\nclass CMakeBuilder(spack.build_systems.cmake.CMakeBuilder):\n    def cmake_args(self):\n        return []\n";
        let out = to_spack1(recipe, Some(&langs(&["c"])));
        assert!(
            out.contains("    version(\"1.0\")\n\n    depends_on(\"c\", type=\"build\")\n\n\nclass CMakeBuilder"),
            "{out}"
        );
    }

    #[test]
    fn a_maintainer_goes_to_the_package_not_its_shared_base() {
        let recipe = "from spack.package import *\n\n\nclass ToolBase(AutotoolsPackage):\n    depends_on(\"mpi\")\n\n\nclass Tool(ToolBase):\n    version(\"1.0\")\n";
        let out = add_maintainer(recipe, "octocat");
        assert_eq!(
            out,
            recipe.replace(
                "class Tool(ToolBase):\n",
                "class Tool(ToolBase):\n    maintainers(\"octocat\")\n\n"
            )
        );
    }

    #[test]
    fn line_ends_become_unix_ones() {
        let crlf = GENERIC_023.replace('\n', "\r\n");
        assert_eq!(
            to_spack1(&crlf, Some(&langs(&["c"]))),
            to_spack1(GENERIC_023, Some(&langs(&["c"])))
        );
        let unterminated = GENERIC_023.trim_end();
        assert_eq!(
            add_maintainer(unterminated, "octocat"),
            add_maintainer(GENERIC_023, "octocat")
        );
    }
}
