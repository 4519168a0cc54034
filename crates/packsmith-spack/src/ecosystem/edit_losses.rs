//! What an answer's `replace_line` edits silently drop from the recipe: a
//! small model copies the example's line number and overwrites whatever
//! stands there (the `homepage`, a dependency it added one attempt before)
//! while meaning to add a line. A declaration is taken out only by the edit
//! that says so (`remove_dependency`, `rename_dependency`), never as a side
//! effect of rewriting a line.

use std::collections::BTreeSet;

use packsmith_spack_knowledge::edit::EditOp;
use packsmith_spack_knowledge::recipe::ParsedRecipe;

/// The declarations `before` has and `after` (the recipe with `edits`
/// applied) lacks, for an answer with a `replace_line`: the source
/// attributes, versions, variants and dependencies, less the dependencies
/// an edit removes by name.
pub fn dropped_by_replace(
    before: &ParsedRecipe,
    after: &ParsedRecipe,
    edits: &[EditOp],
) -> Vec<String> {
    if !edits
        .iter()
        .any(|e| matches!(e, EditOp::ReplaceLine { .. }))
    {
        return Vec::new();
    }
    let removed: BTreeSet<&str> = edits
        .iter()
        .filter_map(|e| match e {
            EditOp::RemoveDependency { name } => Some(name.as_str()),
            EditOp::RenameDependency { from, .. } => Some(from.as_str()),
            _ => None,
        })
        .collect();
    let mut lost = Vec::new();
    for (what, had, has) in [
        ("homepage", &before.homepage, &after.homepage),
        ("url", &before.url, &after.url),
        ("git", &before.git, &after.git),
    ] {
        if had.is_some() && has.is_none() {
            lost.push(what.to_string());
        }
    }
    let names = |r: &ParsedRecipe| -> [BTreeSet<String>; 3] {
        [
            r.versions
                .iter()
                .map(|v| format!("version(\"{}\")", v.version))
                .collect(),
            r.variants
                .iter()
                .map(|v| format!("variant(\"{}\")", v.name))
                .collect(),
            r.dependencies
                .iter()
                .filter(|d| !removed.contains(d.name.as_str()))
                .map(|d| format!("depends_on(\"{}\")", d.name))
                .collect(),
        ]
    };
    let (had, has) = (names(before), names(after));
    for (had, has) in had.iter().zip(has.iter()) {
        lost.extend(had.difference(has).cloned());
    }
    lost
}

#[cfg(test)]
mod tests {
    use packsmith_spack_knowledge::recipe::parse_recipe;

    use super::*;
    use crate::ecosystem::RECIPE_FILE;

    fn dropped(start: &str, fixed: &str, edits: &[EditOp]) -> Vec<String> {
        dropped_by_replace(
            &parse_recipe(start, RECIPE_FILE),
            &parse_recipe(fixed, RECIPE_FILE),
            edits,
        )
    }

    const START: &str = r#"from spack.package import *


class Lwgrp(AutotoolsPackage):
    """Light-weight group library."""

    homepage = "https://github.com/LLNL/lwgrp"
    url = "https://example.org/lwgrp-1.0.5.tar.gz"

    version("1.0.5", sha256="0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")

    depends_on("autoconf", type="build")
    depends_on("mpi")
"#;

    fn replace(line: u32, text: &str) -> EditOp {
        EditOp::ReplaceLine {
            line,
            end_line: None,
            text: text.into(),
        }
    }

    fn apply(line: u32, text: &str) -> String {
        let mut lines: Vec<&str> = START.lines().collect();
        lines[line as usize - 1] = text;
        lines.join("\n") + "\n"
    }

    #[test]
    fn a_replaced_homepage_or_dependency_is_named() {
        let text = "    depends_on(\"automake\", type=\"build\")";
        let edits = [replace(7, text)];
        assert_eq!(dropped(START, &apply(7, text), &edits), ["homepage"]);
        let edits = [replace(12, text)];
        assert_eq!(
            dropped(START, &apply(12, text), &edits),
            ["depends_on(\"autoconf\")"]
        );
    }

    #[test]
    fn a_line_rewritten_in_place_or_a_removal_asked_for_drops_nothing() {
        // The same dependency with a constraint.
        let text = "    depends_on(\"autoconf@2.69:\", type=\"build\")";
        assert!(dropped(START, &apply(12, text), &[replace(12, text)]).is_empty());
        // A blank line replaced.
        let text = "    depends_on(\"automake\", type=\"build\")";
        assert!(dropped(START, &apply(11, text), &[replace(11, text)]).is_empty());
        // A removal the answer asks for by name.
        let edits = [
            replace(12, ""),
            EditOp::RemoveDependency {
                name: "autoconf".into(),
            },
        ];
        assert!(dropped(START, &apply(12, ""), &edits).is_empty());
        // No replace_line at all: other edits say what they change.
        let edits = [EditOp::RemoveDependency {
            name: "autoconf".into(),
        }];
        assert!(dropped(START, &apply(12, ""), &edits).is_empty());
    }
}
