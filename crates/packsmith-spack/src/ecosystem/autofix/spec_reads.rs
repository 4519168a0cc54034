//! A recipe that reads `self.spec["x"]` (its libraries, its prefix) of a
//! package it does not depend on fails at install with `KeyError: 'No spec
//! with name x in …'`. When `x` is a Spack package or virtual that the
//! recipe declares nowhere, the fix is certain: `depends_on("x")`, with
//! Spack's default types (a library the build reads is linked). A
//! dependency declared under a condition is left to the model: whether
//! the read or the condition is wrong, the log cannot say.

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::mapping::{Known, SpackNames};

use super::dependencies;

pub(super) fn declare_read_specs(
    text: &str,
    names: &[String],
    kb: Option<&dyn SpackNames>,
) -> Option<(String, String)> {
    let declared = dependencies(text);
    let mut fixed = text.to_string();
    let mut added = Vec::new();
    for name in names {
        let read = [format!("spec[\"{name}\"]"), format!("spec['{name}']")]
            .iter()
            .any(|r| text.contains(r.as_str()));
        let known = kb.is_none_or(|kb| kb.lookup(name) != Known::Unknown);
        if !read || !known || declared.iter().any(|d| &d.name == name) || added.contains(name) {
            continue;
        }
        let edit = EditOp::AddDependency {
            spec: name.clone(),
            when: None,
            types: Vec::new(),
        };
        if let Ok(next) = apply_edits(&fixed, &[edit]) {
            fixed = next;
            added.push(name.clone());
        }
    }
    if added.is_empty() {
        return None;
    }
    let why = format!(
        "the recipe reads spec[…] of {} without depending on it: declared {}",
        added.join(", "),
        added
            .iter()
            .map(|n| format!("depends_on(\"{n}\")"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Some((fixed, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = r#"from spack.package import *


class Superlu(CMakePackage):
    """Sparse direct solver."""

    version("7.0.1", sha256="0" * 64)

    depends_on("cmake@3.18.1:", type="build")
    depends_on("metis", when="+metis")

    def cmake_args(self):
        return [
            self.define("TPL_BLAS_LIBRARIES", self.spec["blas"].libs.joined(";")),
            self.define("TPL_METIS_LIBRARIES", self.spec["metis"].libs.joined(";")),
        ]
"#;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_read_spec_without_a_dependency_is_declared_after_the_last_one() {
        let (fixed, why) = declare_read_specs(RECIPE, &names(&["blas"]), None).unwrap();
        assert!(
            fixed.contains("    depends_on(\"metis\", when=\"+metis\")\n    depends_on(\"blas\")\n\n    def cmake_args"),
            "{fixed}"
        );
        assert!(why.contains("depends_on(\"blas\")"), "{why}");
    }

    #[test]
    fn a_conditional_dependency_a_name_not_read_or_not_known_is_left_alone() {
        // metis is declared under +metis: the condition may be what is wrong.
        assert_eq!(declare_read_specs(RECIPE, &names(&["metis"]), None), None);
        // A CMake name from `Could NOT find BLAS` is not what the recipe reads.
        assert_eq!(declare_read_specs(RECIPE, &names(&["BLAS"]), None), None);
        struct NoBlas;
        impl SpackNames for NoBlas {
            fn lookup(&self, _name: &str) -> Known {
                Known::Unknown
            }
        }
        assert_eq!(
            declare_read_specs(RECIPE, &names(&["blas"]), Some(&NoBlas)),
            None
        );
    }
}
