//! The Free Pascal units a Lazarus program's sources `uses` that load a
//! shared library at run time (`GL`, `GLU` open `libGL.so.1` and
//! `libGLU.so.1` with dlopen): nothing links them, so a package must put
//! them where the program finds them.

use crate::view::RepoView;
use packsmith_core::{Evidence, Sourced};

/// Units of Free Pascal's packages that dlopen their library.
const DYNAMIC_UNITS: &[&str] = &["gl", "glu", "glut", "glext"];

/// Pascal sources read at most; a program's units sit near the top.
const MAX_SOURCES: usize = 200;

/// The dynamically loading units the sources use, each with the first
/// `uses` clause that names it, in first-seen order.
pub fn dynamic_units(view: &RepoView) -> Vec<Sourced<String>> {
    let mut out: Vec<Sourced<String>> = Vec::new();
    let sources = view
        .files()
        .iter()
        .filter(|f| {
            let name = f.name().to_ascii_lowercase();
            [".pas", ".pp", ".lpr", ".dpr"]
                .iter()
                .any(|e| name.ends_with(e))
        })
        .take(MAX_SOURCES);
    for file in sources {
        let Some(text) = view.read_text(&file.rel, &mut Vec::new()) else {
            continue;
        };
        for (unit, line) in used_units(&text.text) {
            let unit_lower = unit.to_ascii_lowercase();
            let known = DYNAMIC_UNITS.contains(&unit_lower.as_str());
            if known && !out.iter().any(|u| u.value.eq_ignore_ascii_case(&unit)) {
                out.push(Sourced::new(unit, Evidence::new(&file.rel, line)));
            }
        }
    }
    out
}

/// Every unit named in the `uses` clauses of a Pascal source, with the
/// clause's line: `uses A, B in 'b.pas', {comment} C;`.
fn used_units(text: &str) -> Vec<(String, u32)> {
    let clean = without_comments(text);
    let lower = clean.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find("uses").map(|i| i + from) {
        from = at + 4;
        let before = lower[..at].chars().next_back();
        let after = lower[at + 4..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if word(before) || word(after) {
            continue;
        }
        let Some(end) = clean[from..].find(';').map(|i| i + from) else {
            break;
        };
        let line = clean[..at].matches('\n').count() as u32 + 1;
        for item in clean[from..end].split(',') {
            let name = item.split_whitespace().next().unwrap_or_default();
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                out.push((name.to_string(), line));
            }
        }
        from = end;
    }
    out
}

/// The text with `{ … }`, `(* … *)` and `// …` comments blanked (newlines
/// kept, so lines still count) and string literals left alone.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let closing: Option<&str> = match c {
            '{' => Some("}"),
            '(' if chars.peek() == Some(&'*') => {
                chars.next();
                Some("*)")
            }
            '/' if chars.peek() == Some(&'/') => Some("\n"),
            _ => None,
        };
        let Some(close) = closing else {
            out.push(c);
            continue;
        };
        let mut seen = String::new();
        for d in chars.by_ref() {
            if d == '\n' {
                out.push('\n');
            }
            seen.push(d);
            if seen.ends_with(close) {
                break;
            }
        }
        out.push(' ');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_of_uses_clauses() {
        let src = "unit cube;\n{$mode objfpc}\ninterface\nuses\n  Classes, SysUtils, {GLUT,} OpenGLContext, GL, GLU, GLExt, Math;\n// uses Fake;\nimplementation\nuses (* X, *) Helpers in 'helpers.pas';\nend.\n";
        let units: Vec<String> = used_units(src).into_iter().map(|(u, _)| u).collect();
        assert_eq!(
            units,
            [
                "Classes",
                "SysUtils",
                "OpenGLContext",
                "GL",
                "GLU",
                "GLExt",
                "Math",
                "Helpers"
            ]
        );
        assert_eq!(used_units(src)[0].1, 4);
        // A word that contains "uses" is no clause.
        assert!(used_units("var causes: Integer;\n").is_empty());
    }

    #[test]
    fn only_units_that_load_a_library_are_kept() {
        let (_dir, view) = crate::view::test_view_of(&[
            (
                "cube.lpr",
                "program cube;\nuses Forms, cubeunit;\nbegin end.\n",
            ),
            (
                "cubeunit.pas",
                "unit cubeunit;\ninterface\nuses\n  Forms, GL, GLU;\nend.\n",
            ),
            ("other.pas", "unit other;\ninterface\nuses gl;\nend.\n"),
        ]);
        let units = dynamic_units(&view);
        let names: Vec<&str> = units.iter().map(|u| u.value.as_str()).collect();
        assert_eq!(names, ["GL", "GLU"]);
        assert_eq!(units[0].evidence, Evidence::new("cubeunit.pas", 3));
    }
}
