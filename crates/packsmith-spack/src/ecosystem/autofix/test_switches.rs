//! A configure that downloads (a test framework, most often) while the
//! recipe leaves the project's test switch at upstream's default ON: the
//! brief, read from the source tree, knows that switch (`option_roles`)
//! and ties it to `self.run_tests`; the rule adds those defines the
//! recipe's `cmake_args` lacks. Without a source tree the brief has none
//! and the rule does nothing.

use packsmith_spack_draft::brief::SpackBrief;
use packsmith_spack_knowledge::edit::{apply_edits, EditOp};

const RUN_TESTS: &str = "self.run_tests";

pub fn follow_run_tests(text: &str, brief: &SpackBrief) -> Option<(String, String)> {
    let missing: Vec<&str> = brief
        .defines
        .iter()
        .filter(|d| d.value.as_deref() == Some(RUN_TESTS))
        .map(|d| d.key.as_str())
        .filter(|key| {
            // Set already, in any spelling the recipe uses: not this rule's.
            ![format!("\"{key}\""), format!("'{key}'"), format!("-D{key}")]
                .iter()
                .any(|k| text.contains(k.as_str()))
        })
        .collect();
    if missing.is_empty() {
        return None;
    }
    let edits: Vec<EditOp> = missing
        .iter()
        .map(|key| EditOp::AddCmakeDefine {
            name: key.to_string(),
            value: serde_json::Value::String(RUN_TESTS.into()),
        })
        .collect();
    let fixed = apply_edits(text, &edits).ok()?;
    Some((
        fixed,
        format!(
            "the configure downloaded while the project's tests were on: {} now follow{} self.run_tests",
            missing.join(", "),
            if missing.len() == 1 { "s" } else { "" }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_draft::brief::BriefDefine;

    const RECIPE: &str = r#"from spack.package import *


class Fxdiv(CMakePackage):
    """Division via fixed-point multiplication by inverse."""

    version("1.0", sha256="0" * 64)

    depends_on("cmake@3.5:", type="build")

    def cmake_args(self):
        return [
            self.define("FXDIV_BUILD_BENCHMARKS", False),
        ]
"#;

    fn brief(defines: &[(&str, &str)]) -> SpackBrief {
        let mut b = crate::ecosystem::test_brief::bare_brief("fxdiv", "Fxdiv");
        b.defines = defines
            .iter()
            .map(|(k, v)| BriefDefine {
                key: k.to_string(),
                variant: None,
                value: Some(v.to_string()),
            })
            .collect();
        b
    }

    #[test]
    fn the_briefs_test_switch_follows_run_tests() {
        let b = brief(&[
            ("FXDIV_BUILD_TESTS", RUN_TESTS),
            ("FXDIV_BUILD_BENCHMARKS", "False"),
        ]);
        let (fixed, why) = follow_run_tests(RECIPE, &b).unwrap();
        assert!(
            fixed.contains("self.define(\"FXDIV_BUILD_TESTS\", self.run_tests)"),
            "{fixed}"
        );
        assert!(why.contains("FXDIV_BUILD_TESTS now follows"), "{why}");
    }

    #[test]
    fn a_switch_the_recipe_sets_or_a_brief_without_one_changes_nothing() {
        let b = brief(&[("FXDIV_BUILD_BENCHMARKS", RUN_TESTS)]);
        assert_eq!(follow_run_tests(RECIPE, &b), None);
        assert_eq!(follow_run_tests(RECIPE, &brief(&[])), None);
    }
}
