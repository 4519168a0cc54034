//! Edits of the module and the class header: the `spack.package` import
//! (added, or the star import replaced by an import block), a base class,
//! and a plain line replacement (the escape hatch for what the typed
//! operations do not cover).

use super::locate::{indent_of, Reading};
use super::splice;
use crate::recipe::RecipeTree;

/// The import every Spack 0.23 recipe starts with.
const SPACK_IMPORT: &str = "from spack.package import *";

pub(super) fn add_spack_import(source: &str) -> Result<String, String> {
    if source.lines().any(|l| l.trim() == SPACK_IMPORT) {
        return Err("the recipe already imports spack.package".into());
    }
    // The import goes before the first line of code, after the licence
    // comments and the module docstring. The class need not parse for
    // this, so the first non-comment, non-blank line is enough.
    let mut at = 0;
    let mut offset = 0;
    let mut in_doc = false;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        let doc_quote = t.starts_with("\"\"\"") || t.starts_with("'''");
        if in_doc {
            in_doc = !(t.ends_with("\"\"\"") || t.ends_with("'''"));
        } else if doc_quote {
            in_doc = !(t.len() > 3 && (t.ends_with("\"\"\"") || t.ends_with("'''")));
        } else if !(t.is_empty() || t.starts_with('#')) {
            break;
        }
        offset += line.len();
        if !t.is_empty() {
            at = offset;
        }
    }
    let text = if at == 0 {
        format!("{SPACK_IMPORT}\n\n")
    } else {
        format!("\n{SPACK_IMPORT}\n")
    };
    Ok(splice(source, at..at, &text))
}

pub(super) fn change_base(
    source: &str,
    reading: &Reading,
    from: &str,
    to: &str,
) -> Result<String, String> {
    if to.is_empty()
        || !to
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return Err(format!("{to:?} is not a class name"));
    }
    let (_, span) = reading
        .class
        .bases
        .iter()
        .find(|(name, _)| name == from)
        .ok_or_else(|| {
            let bases: Vec<&str> = reading
                .class
                .bases
                .iter()
                .map(|(n, _)| n.as_str())
                .collect();
            format!(
                "{} has no base {from:?} (its bases: {})",
                reading.class.name,
                bases.join(", ")
            )
        })?;
    Ok(splice(source, span.clone(), to))
}

/// Replaces lines `line..=end_line` (1-based) with `text`. Without
/// `end_line`, a first line that opens brackets it does not close is
/// taken with the lines that close them when `text` closes its own: a
/// model that rewrites a multi-line `variant(` by its first line means
/// the whole call.
pub(super) fn replace_lines(
    source: &str,
    line: u32,
    end_line: Option<u32>,
    text: &str,
) -> Result<String, String> {
    let first = usize::try_from(line)
        .ok()
        .and_then(|l| l.checked_sub(1))
        .ok_or("lines count from 1")?;
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    if first >= lines.len() {
        return Err(format!(
            "the recipe has no line {line} (it has {})",
            lines.len()
        ));
    }
    let last = match end_line {
        Some(end) => {
            let last = usize::try_from(end).map_or(usize::MAX, |e| e.saturating_sub(1));
            if last < first || last >= lines.len() {
                return Err(format!(
                    "end_line {end} is not between line {line} and the recipe's last line ({})",
                    lines.len()
                ));
            }
            last
        }
        None => statement_end(&lines, first, text),
    };
    let start: usize = lines[..first].iter().map(|l| l.len()).sum();
    let end = start + lines[first..=last].iter().map(|l| l.len()).sum::<usize>();
    if text.trim().is_empty() {
        return Ok(splice(source, start..end, ""));
    }
    // A replacement written without indentation keeps the line's; a
    // blank line's is that of the code after it (or before it), so a
    // directive written over a blank line of the class stays in the class.
    let indent = if text.starts_with([' ', '\t']) {
        String::new()
    } else if lines[first].trim().is_empty() {
        let code = |l: &&&str| !l.trim().is_empty();
        let near = lines[last + 1..]
            .iter()
            .find(code)
            .or_else(|| lines[..first].iter().rev().find(code));
        near.map_or_else(String::new, |l| {
            l.chars().take_while(|c| *c == ' ' || *c == '\t').collect()
        })
    } else {
        indent_of(source, start)
    };
    let newline = if lines[last].ends_with('\n') {
        "\n"
    } else {
        ""
    };
    let body = text.trim_end_matches('\n');
    Ok(splice(
        source,
        start..end,
        &format!("{indent}{body}{newline}"),
    ))
}

/// The last line of the statement that line `first` opens, when `text`
/// is balanced and the line is not; `first` otherwise.
fn statement_end(lines: &[&str], first: usize, text: &str) -> usize {
    if bracket_depth(text) != 0 {
        return first;
    }
    let mut depth = 0;
    for (i, l) in lines.iter().enumerate().skip(first) {
        depth += bracket_depth(l);
        if depth <= 0 {
            return i;
        }
    }
    first
}

/// Open minus closed brackets on a line of Python, strings and comments
/// left out.
fn bracket_depth(line: &str) -> i32 {
    let mut depth = 0;
    for (_, c) in crate::pylayout::code_chars(line) {
        match c {
            '#' => break,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// The star imports of Spack's API, by module.
const STAR_MODULES: &[&str] = &["spack.package", "spack"];

pub(super) fn replace_star_import(tree: &RecipeTree, lines: &[String]) -> Result<String, String> {
    if lines.is_empty() {
        return Err("no import lines to write".into());
    }
    if lines.iter().any(|l| l.contains(['\n', '\r'])) {
        return Err("each line must be one line".into());
    }
    if !tree.parsed() {
        return Err("the recipe could not be parsed in time".into());
    }
    let source = tree.source();
    let imports = &tree.layout().imports;
    let star = imports
        .iter()
        .find(|i| i.star && i.from.as_deref().is_some_and(|m| STAR_MODULES.contains(&m)));
    let block = lines.join("\n");
    match star {
        Some(import) => {
            let span = import.lines.clone();
            let newline = if source[span.clone()].ends_with('\n') {
                "\n"
            } else {
                ""
            };
            Ok(splice(source, span, &format!("{block}{newline}")))
        }
        None => {
            // Before the first import (a blank line between), else at the top.
            let at = imports.first().map_or(0, |i| i.lines.start);
            Ok(splice(source, at..at, &format!("{block}\n\n")))
        }
    }
}
