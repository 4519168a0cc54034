//! nixpkgs' formatting: nixfmt's RFC 166 style, through `nixfmt_rs` (a
//! Rust port verified byte-for-byte against nixfmt across nixpkgs). Drafts
//! and the model's recipes are written in it, as a reviewer's
//! `nixfmt --check` expects.
//!
//! The formatter recurses and some of its layouts are quadratic: nesting
//! a few hundred deep overflows a 2 MiB stack, and a chain of a thousand
//! selections (`a.b.b…`, the kind of repetition a small model falls
//! into) takes seconds. So a text is formatted only when it has the shape
//! of a package expression (`ordinary`), and on a thread with a stack of
//! its own.

/// Larger texts are left as they are: no recipe is this long.
const MAX_FORMATTED: usize = 64 * 1024;
/// Brackets, parentheses, braces and interpolations open at once.
const MAX_DEPTH: usize = 32;
/// Words in a row outside a list: a function applied to this many
/// arguments (a list's elements are not counted).
const MAX_RUN: usize = 48;
/// Lambdas, binary operators and `with`/`let`/`if`/`assert`, each of
/// which the formatter nests.
const MAX_CHAINED: usize = 256;
/// Components of one dotted name (`lib.maintainers.x`).
const MAX_SELECT: usize = 12;
/// The formatter's own stack; a bounded text needs far less.
const STACK: usize = 32 << 20;

/// `text` as nixfmt writes it; None when it does not parse as Nix (the
/// parse check then says why) or is no ordinary package expression.
pub fn nixfmt(text: &str) -> Option<String> {
    if !ordinary(text) {
        return None;
    }
    let owned = text.to_string();
    std::thread::Builder::new()
        .name("nixfmt".into())
        .stack_size(STACK)
        .spawn(move || nixfmt_rs::format(&owned).ok())
        .ok()?
        .join()
        .ok()
        .flatten()
}

/// `text` formatted when it parses, else unchanged.
pub fn formatted_or_same(text: &str) -> String {
    nixfmt(text).unwrap_or_else(|| text.to_string())
}

/// What the scanner is inside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Code opened by `(`, `[`, `{` or `${`.
    Code(u8),
    /// A `"…"` string.
    Quoted,
    /// A `''…''` string.
    Indented,
}

/// Whether `text` is within the bounds above. Strings and comments are
/// skipped, interpolations are code. Conservative: a text it refuses is
/// only left unformatted.
fn ordinary(text: &str) -> bool {
    if text.len() > MAX_FORMATTED {
        return false;
    }
    let b = text.as_bytes();
    let mut frames: Vec<Frame> = vec![Frame::Code(b'^')];
    let (mut run, mut chained, mut i) = (0usize, 0usize, 0usize);
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        match frames.last().copied().unwrap_or(Frame::Code(b'^')) {
            Frame::Quoted => match (c, next) {
                (b'\\', _) => i += 1,
                (b'"', _) => {
                    frames.pop();
                }
                (b'$', Some(b'{')) => {
                    frames.push(Frame::Code(b'$'));
                    i += 1;
                }
                _ => {}
            },
            Frame::Indented => match (c, next) {
                (b'\'', Some(b'\'')) => {
                    // `'''`, `''$` and `''\` are escapes; a lone `''` ends.
                    if matches!(b.get(i + 2), Some(b'\'' | b'$' | b'\\')) {
                        i += 2;
                    } else {
                        frames.pop();
                        i += 1;
                    }
                }
                (b'$', Some(b'{')) => {
                    frames.push(Frame::Code(b'$'));
                    i += 1;
                }
                _ => {}
            },
            Frame::Code(open) => match c {
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if next == Some(b'*') => {
                    i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 1);
                }
                b'"' => frames.push(Frame::Quoted),
                b'\'' if next == Some(b'\'') => {
                    frames.push(Frame::Indented);
                    i += 1;
                }
                b'(' | b'[' | b'{' => {
                    frames.push(Frame::Code(c));
                    run = 0;
                }
                b')' | b']' | b'}' => {
                    if frames.len() > 1 {
                        frames.pop();
                    }
                    run = 0;
                }
                b';' | b'=' | b',' => run = 0,
                b':' => {
                    run = 0;
                    chained += 1;
                }
                b'+' | b'/' | b'&' | b'|' | b'-' | b'*' | b'<' | b'>' | b'!' => chained += 1,
                _ if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = i;
                    while i + 1 < b.len()
                        && (b[i + 1].is_ascii_alphanumeric() || b"_-'.".contains(&b[i + 1]))
                    {
                        i += 1;
                    }
                    let word = &text[start..=i];
                    if word.split('.').count() > MAX_SELECT {
                        return false;
                    }
                    match word {
                        "with" | "let" | "if" | "assert" => {
                            chained += 1;
                            run = 0;
                        }
                        "then" | "else" | "in" | "inherit" | "rec" => run = 0,
                        _ if open != b'[' => run += 1,
                        _ => {}
                    }
                }
                _ => {}
            },
        }
        if frames.len() > MAX_DEPTH || run > MAX_RUN || chained > MAX_CHAINED {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_two_or_more_go_one_element_a_line() {
        let text = "{ buildGoModule }:\nbuildGoModule {\n  ldflags = [ \"-s\" \"-w\" ];\n}\n";
        assert_eq!(
            nixfmt(text).as_deref(),
            Some("{ buildGoModule }:\nbuildGoModule {\n  ldflags = [\n    \"-s\"\n    \"-w\"\n  ];\n}\n")
        );
    }

    #[test]
    fn what_does_not_parse_is_left_alone() {
        assert_eq!(nixfmt("{ a = ; }"), None);
        assert_eq!(formatted_or_same("{ a = ; }"), "{ a = ; }");
        assert_eq!(nixfmt(&"x".repeat(MAX_FORMATTED + 1)), None);
    }

    /// A model's answer is untrusted: what would overflow the formatter's
    /// stack or take it seconds is left as it is, at once.
    #[test]
    fn hostile_shapes_are_left_unformatted() {
        let hostile = [
            format!("{}{}", "[".repeat(400), "]".repeat(400)),
            format!("{}1{}", "(".repeat(200), ")".repeat(200)),
            format!("{}1", "x: ".repeat(300)),
            format!("{}x{}", "\"${".repeat(100), "}\"".repeat(100)),
            format!("[ ]{}", " ++ [ ]".repeat(5000)),
            format!("a{}", ".b".repeat(1000)),
            format!("f{}", " a".repeat(5000)),
            format!("{}1", "with a; ".repeat(1000)),
        ];
        for text in &hostile {
            let started = std::time::Instant::now();
            assert!(!ordinary(text), "{}", &text[..40]);
            assert_eq!(formatted_or_same(text), *text);
            assert!(started.elapsed() < std::time::Duration::from_secs(1));
        }
    }

    /// Real recipes pass the bounds: long lists, strings with brackets
    /// and colons, comments, interpolations, `''` strings.
    #[test]
    fn package_expressions_are_ordinary() {
        let elements: String = (0..300).map(|n| format!(" pkg{n}")).collect();
        let recipe = format!(
            "{{ lib, stdenv, fetchurl }}:\n# a comment with ( [ {{\nstdenv.mkDerivation (finalAttrs: {{\n  \
             pname = \"x\";\n  src = fetchurl {{ url = \"https://e.org/x-${{finalAttrs.version}}.tar.gz\"; }};\n  \
             buildInputs = [{elements} ];\n  postInstall = ''\n    echo '''(''${{x}}\n    cp ${{lib.getExe x}} $out\n  '';\n  \
             meta.maintainers = with lib.maintainers; [ ];\n}})\n"
        );
        assert!(ordinary(&recipe));
        assert!(nixfmt(&recipe).is_some(), "{recipe}");
    }
}
