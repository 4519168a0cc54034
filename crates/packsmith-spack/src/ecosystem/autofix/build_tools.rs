//! A build tool the build could not run (`missing_build_tool`): Spack's own
//! list for a source without `configure`, or the package a curated table
//! gives for a program make could not run. Each one the recipe does not
//! depend on yet is declared with `type="build"`. One already declared is
//! left to the model: the build calls the program by a name the package
//! does not install (`python` where only `python3` exists).

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::mapping::{Known, SpackNames};

use super::dependencies;

/// Generated Autotools files of another libtool: regenerated
/// (`force_autoreconf = True`) with the Autotools declared as build
/// dependencies. Once set, there is nothing more for the rule to do.
pub(super) fn regenerate_autotools(
    text: &str,
    names: &[String],
    kb: Option<&dyn SpackNames>,
) -> Option<(String, String)> {
    let set = EditOp::SetAttribute {
        name: "force_autoreconf".into(),
        value: serde_json::Value::Bool(true),
    };
    let forced = apply_edits(text, &[set]).ok()?;
    let (fixed, declared) = match declare_build_tools(&forced, names, kb) {
        Some((fixed, why)) => (fixed, format!("; {why}")),
        None => (forced, String::new()),
    };
    Some((
        fixed,
        format!(
            "the source's generated Autotools files come from another libtool: \
             force_autoreconf = True{declared}"
        ),
    ))
}

pub(super) fn declare_build_tools(
    text: &str,
    names: &[String],
    kb: Option<&dyn SpackNames>,
) -> Option<(String, String)> {
    let declared = dependencies(text);
    let edits: Vec<EditOp> = names
        .iter()
        .filter(|n| !declared.iter().any(|d| &d.name == *n))
        .filter(|n| kb.is_none_or(|kb| kb.lookup(n) != Known::Unknown))
        .map(|n| EditOp::AddDependency {
            spec: n.clone(),
            when: None,
            types: vec!["build".into()],
        })
        .collect();
    if edits.is_empty() {
        return None;
    }
    let fixed = apply_edits(text, &edits).ok()?;
    let added: Vec<String> = edits
        .iter()
        .filter_map(|e| match e {
            EditOp::AddDependency { spec, .. } => {
                Some(format!("depends_on(\"{spec}\", type=\"build\")"))
            }
            _ => None,
        })
        .collect();
    Some((
        fixed,
        format!(
            "the build could not run a build tool: declared {}",
            added.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = r#"from spack.package import *


class Lwgrp(AutotoolsPackage):
    """Light-weight group library."""

    homepage = "https://github.com/LLNL/lwgrp"
    url = "https://github.com/LLNL/lwgrp/releases/download/v1.0.5/lwgrp-1.0.5.tar.gz"

    version("1.0.5", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    depends_on("mpi")
    depends_on("libtool", type="build", when="@main")
"#;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn stale_autotools_are_regenerated_once() {
        let tools = names(&["autoconf", "automake", "libtool", "m4"]);
        let plain = RECIPE.replace(
            "    depends_on(\"libtool\", type=\"build\", when=\"@main\")\n",
            "",
        );
        let (fixed, why) = regenerate_autotools(&plain, &tools, None).unwrap();
        assert!(fixed.contains("force_autoreconf = True"), "{fixed}");
        for tool in ["autoconf", "automake", "libtool", "m4"] {
            assert!(
                fixed.contains(&format!("depends_on(\"{tool}\", type=\"build\")")),
                "{tool}: {fixed}"
            );
        }
        assert!(why.contains("force_autoreconf"), "{why}");
        assert!(regenerate_autotools(&fixed, &tools, None).is_none());
    }

    #[test]
    fn each_tool_not_yet_declared_becomes_a_build_dependency() {
        let (fixed, why) =
            declare_build_tools(RECIPE, &names(&["autoconf", "automake", "m4"]), None).unwrap();
        for tool in ["autoconf", "automake", "m4"] {
            assert!(
                fixed.contains(&format!("depends_on(\"{tool}\", type=\"build\")")),
                "{tool}: {fixed}"
            );
        }
        assert!(why.contains("autoconf"), "{why}");
        assert!(fixed.contains("depends_on(\"mpi\")"));
    }

    #[test]
    fn a_declared_tool_is_left_to_the_model() {
        // libtool is declared (under a condition): declaring it again
        // would not make the build find another program name.
        assert!(declare_build_tools(RECIPE, &names(&["libtool"]), None).is_none());
        let (fixed, _) =
            declare_build_tools(RECIPE, &names(&["libtool", "autoconf"]), None).unwrap();
        assert_eq!(
            fixed.matches("depends_on(\"libtool\"").count(),
            1,
            "{fixed}"
        );
    }
}
