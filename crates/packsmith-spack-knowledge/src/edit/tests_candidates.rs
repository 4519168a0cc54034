//! The rules find the fix of each kind of breakage the static check sees,
//! and the fix clears the check.

use std::collections::{HashMap, HashSet};

use super::candidates::{check_errors, menu_ops, rule_candidates, RuleInput};
use super::{apply_edits, EditOp, OpKind};
use crate::kb::NameIndex;
use crate::recipe::RecipeTree;
use crate::target::TargetSpack;

const GOOD: &str = r#"from spack.package import *


class Heatsim(CMakePackage):
    """A heat equation solver."""

    homepage = "https://example.org/heatsim"
    url = "https://example.org/heatsim-1.0.tar.gz"

    version("1.0", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    variant("mpi", default=True, description="Use MPI")
    variant(
        "precision",
        default="double",
        values=("single", "double"),
        description="Floating point precision",
    )

    depends_on("cmake@3.16:", type="build")
    depends_on("mpi", when="+mpi")
    depends_on("zlib-api")

    def cmake_args(self):
        return [self.define_from_variant("HEATSIM_MPI", "mpi")]
"#;

fn names() -> NameIndex {
    NameIndex {
        packages: ["cmake", "zlib", "zlib-ng", "openmpi", "heatsim"]
            .into_iter()
            .map(String::from)
            .collect::<HashSet<_>>(),
        virtuals: HashMap::from([
            ("mpi".to_string(), vec!["openmpi".to_string()]),
            (
                "zlib-api".to_string(),
                vec!["zlib".to_string(), "zlib-ng".to_string()],
            ),
        ]),
        ..Default::default()
    }
}

/// The first candidate of `broken` that applies; asserts it clears every
/// error the check found.
fn first_fix(broken: &str, failure_names: &[String]) -> (Vec<EditOp>, String) {
    let idx = names();
    let tree = RecipeTree::parse(broken, "package.py");
    let input = RuleInput {
        tree: &tree,
        package: "heatsim",
        spack: TargetSpack::V0_23,
        names: Some(&idx),
        failure_names,
    };
    assert!(
        !check_errors(&input).is_empty() || !failure_names.is_empty(),
        "the check sees the breakage"
    );
    let candidates = rule_candidates(&input);
    let first = candidates.first().expect("a candidate");
    let fixed = apply_edits(broken, &first.edits).expect("it applies");
    let fixed_tree = RecipeTree::parse(&fixed, "package.py");
    let after = RuleInput {
        tree: &fixed_tree,
        ..input
    };
    assert!(
        check_errors(&after).is_empty(),
        "{:?} leaves {:?}",
        first.edits,
        check_errors(&after)
    );
    (first.edits.clone(), fixed)
}

#[test]
fn a_misspelt_dependency_is_renamed_to_a_known_name() {
    let (edits, fixed) = first_fix(&GOOD.replace("\"zlib-api\"", "\"zlib_api\""), &[]);
    assert!(matches!(&edits[0], EditOp::RenameDependency { from, .. } if from == "zlib_api"));
    assert_eq!(fixed, GOOD);
}

#[test]
fn a_self_dependency_is_removed() {
    let broken = GOOD.replace(
        "    depends_on(\"zlib-api\")\n",
        "    depends_on(\"zlib-api\")\n    depends_on(\"heatsim\")\n",
    );
    let (_, fixed) = first_fix(&broken, &[]);
    assert_eq!(fixed, GOOD);
}

#[test]
fn a_condition_that_can_never_hold_loses_one_setting() {
    let broken = GOOD.replace("when=\"+mpi\"", "when=\"+mpi ~mpi\"");
    let (edits, fixed) = first_fix(&broken, &[]);
    assert!(matches!(&edits[0], EditOp::SetWhen { .. }));
    assert!(
        fixed.contains("depends_on(\"mpi\", when=\"+mpi\")") || fixed.contains("when=\"~mpi\"")
    );
}

#[test]
fn an_undeclared_variant_is_declared_off() {
    let broken = GOOD.replace(
        "    variant(\"mpi\", default=True, description=\"Use MPI\")\n",
        "",
    );
    let (edits, _) = first_fix(&broken, &[]);
    assert!(
        matches!(&edits[0], EditOp::AddVariant { name, default, .. } if name == "mpi" && default == &serde_json::json!(false)),
        "{edits:?}"
    );
}

#[test]
fn a_default_outside_the_values_takes_the_closest_value() {
    let broken = GOOD.replace("default=\"double\"", "default=\"Double\"");
    let (_, fixed) = first_fix(&broken, &[]);
    assert_eq!(fixed, GOOD);
    let empty = GOOD.replace("default=\"double\"", "default=\"\"");
    let (edits, _) = first_fix(&empty, &[]);
    assert!(matches!(&edits[0], EditOp::SetVariantDefault { .. }));
}

#[test]
fn a_misspelt_keyword_is_renamed() {
    let broken = GOOD.replace("type=\"build\"", "types=\"build\"");
    let (_, fixed) = first_fix(&broken, &[]);
    assert_eq!(fixed, GOOD);
}

#[test]
fn a_missing_import_and_a_misspelt_base_class() {
    let (edits, fixed) = first_fix(&GOOD.replace("from spack.package import *\n", ""), &[]);
    assert_eq!(edits, vec![EditOp::AddSpackImport {}]);
    assert!(fixed.starts_with("from spack.package import *\n"));
    // The check cannot tell a misspelt class from one the star import
    // brings; Spack's load error names it.
    let broken = GOOD.replace("(CMakePackage)", "(CmakePackage)");
    let (edits, fixed) = first_fix(&broken, &["CmakePackage".to_string()]);
    assert!(matches!(&edits[0], EditOp::ChangeBaseClass { to, .. } if to == "CMakePackage"));
    assert_eq!(fixed, GOOD);
}

#[test]
fn the_menu_holds_the_candidates_kinds_and_the_escape_hatch() {
    let idx = names();
    let broken = GOOD.replace("\"zlib-api\"", "\"zlib_api\"");
    let tree = RecipeTree::parse(&broken, "package.py");
    let input = RuleInput {
        tree: &tree,
        package: "heatsim",
        spack: TargetSpack::V0_23,
        names: Some(&idx),
        failure_names: &[],
    };
    let ops = menu_ops(&rule_candidates(&input), "unknown_package");
    assert!(ops.contains(&OpKind::RenameDependency));
    assert!(ops.contains(&OpKind::ReplaceLine));
    assert!(!ops.contains(&OpKind::AddCompilerFlag));
}

#[test]
fn a_misspelt_dependency_type_is_corrected() {
    let broken = GOOD.replace("type=\"build\"", "type=\"buid\"");
    let (edits, fixed) = first_fix(&broken, &[]);
    assert!(
        matches!(&edits[0], EditOp::ReplaceLine { line: 20, .. }),
        "{edits:?}"
    );
    assert_eq!(fixed, GOOD);
}

#[test]
fn a_repeated_setting_glued_to_a_version_is_found() {
    let broken = GOOD.replace("when=\"+mpi\"", "when=\"@1.0+mpi ~mpi\"");
    let (edits, fixed) = first_fix(&broken, &[]);
    assert_eq!(
        edits,
        vec![EditOp::SetWhen {
            line: 21,
            when: Some("@1.0+mpi".into())
        }]
    );
    assert!(fixed.contains("depends_on(\"mpi\", when=\"@1.0+mpi\")"));
}
