//! Renders `if()` conditions as short readable strings, and their negations
//! for `else()` / `elseif()` branches.

use super::lexer::{Arg, ArgKind};

/// Longest condition kept verbatim; longer ones are cut with `…`.
const MAX_COND_CHARS: usize = 240;

/// `if(NOT (A  AND "x y"))` → `NOT (A AND "x y")`, single-spaced.
pub fn render(args: &[Arg]) -> String {
    let mut out = String::new();
    let mut prev_open = true;
    for a in args {
        let glue = !prev_open && a.kind != ArgKind::Close;
        if glue {
            out.push(' ');
        }
        match a.kind {
            ArgKind::Quoted => {
                out.push('"');
                out.push_str(&a.text);
                out.push('"');
            }
            ArgKind::Bracket => {
                out.push_str("[[");
                out.push_str(&a.text);
                out.push_str("]]");
            }
            _ => out.push_str(&a.text),
        }
        prev_open = a.kind == ArgKind::Open;
    }
    let mut norm = collapse_spaces(&out);
    if norm.len() > MAX_COND_CHARS {
        let mut cut = MAX_COND_CHARS;
        while !norm.is_char_boundary(cut) {
            cut -= 1;
        }
        norm.truncate(cut);
        norm.push('…');
    }
    norm
}

/// The negation of a rendered condition: `NOT (A)`, and `NOT X` → `X`.
pub fn negate(cond: &str) -> String {
    if let Some(rest) = cond.strip_prefix("NOT ") {
        if !rest.contains(' ') {
            return rest.to_string();
        }
    }
    format!("NOT ({cond})")
}

fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;

    fn cond(src: &str) -> String {
        render(&lex(src).commands[0].args)
    }

    #[test]
    fn renders_single_spaced() {
        assert_eq!(cond("if(FOO_ENABLE_MPI)"), "FOO_ENABLE_MPI");
        assert_eq!(
            cond("if(  NOT ( A\n   AND B ) OR X STREQUAL \"a  b\")"),
            "NOT (A AND B) OR X STREQUAL \"a b\""
        );
    }

    #[test]
    fn negation() {
        assert_eq!(negate("A"), "NOT (A)");
        assert_eq!(negate("NOT WIN32"), "WIN32");
        assert_eq!(negate("NOT A AND B"), "NOT (NOT A AND B)");
    }
}
