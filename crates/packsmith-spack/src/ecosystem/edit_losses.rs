//! What an answer's `replace_line` edits silently drop from the recipe: a
//! small model copies the example's line number and overwrites whatever
//! stands there (the `homepage`, a dependency it added one attempt before)
//! while meaning to add a line. A declaration is taken out only by the edit
//! that says so (`remove_dependency`, `rename_dependency`), never as a side
//! effect of rewriting a line. And what a literal `filter_file` breaks in
//! the build file: a bracket its replacement adds or drops.

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

/// A literal `filter_file` whose replacement leaves another number of
/// brackets open than the text it replaces: the rest of the file is
/// unchanged, so a statement that goes on past the line (`install(
/// DIRECTORY "a"` … `)`) no longer parses. The reason, for the model.
pub fn unbalanced_filter(edits: &[EditOp]) -> Option<String> {
    edits.iter().enumerate().find_map(|(i, edit)| {
        let EditOp::FilterFile {
            regex,
            repl,
            literal: true,
            ..
        } = edit
        else {
            return None;
        };
        ["()", "[]", "{}"].iter().find_map(|pair| {
            let mut chars = pair.chars();
            let (open, close) = (chars.next()?, chars.next()?);
            let balance =
                |t: &str| t.matches(open).count() as i64 - t.matches(close).count() as i64;
            let (was, now) = (balance(regex), balance(repl));
            (was != now).then(|| {
                format!(
                    "edit {} (filter_file): the text replaced leaves {was} `{open}` open and the \
                     replacement {now}: the rest of the file is unchanged, so keep the brackets \
                     as the text has them",
                    i + 1
                )
            })
        })
    })
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

    #[test]
    fn a_literal_filter_that_adds_or_drops_a_bracket_is_found() {
        let filter = |regex: &str, repl: &str, literal: bool| EditOp::FilterFile {
            file: "cmake/pack.cmake".into(),
            regex: regex.into(),
            repl: repl.into(),
            literal,
        };
        let line = r#"install( DIRECTORY "${SRC}/cmake/hip""#;
        // The statement goes on past the line: a `)` added closes it early.
        let why = unbalanced_filter(&[filter(line, r#"install( DIRECTORY "${SRC}/cmake")"#, true)])
            .expect("refused");
        assert!(
            why.contains("edit 1") && why.contains("1 `(` open"),
            "{why}"
        );
        assert!(unbalanced_filter(&[filter(line, "install( DIRECTORY", true)]).is_none());
        assert!(unbalanced_filter(&[filter("python $<", "python3 $<", true)]).is_none());
        // In a regular expression, brackets are its own syntax.
        assert!(unbalanced_filter(&[filter(r"f\((.*)\)", "g(\\1", false)]).is_none());
    }
}
