//! Localized edits of the expression for the model: view a numbered range,
//! replace the Nth occurrence of a string, insert after a line. Every edit
//! is parsed before it is accepted; one that does not parse is rejected with
//! the parser's message and the expression is left as it was.

use std::path::Path;
use std::time::Duration;

use packsmith_exec::{CommandSpec, ExecError};

use crate::runner::NixConfig;

/// Checks that a text is a syntactically valid Nix expression.
pub trait SyntaxCheck {
    /// Ok, or the parser's message.
    fn check(&self, text: &str) -> Result<(), String>;
}

/// `nix-instantiate --parse` on a temporary file named `package.nix`, so
/// messages point at the file the model knows.
#[derive(Debug, Clone, Default)]
pub struct NixParser {
    pub config: NixConfig,
}

impl NixParser {
    pub fn command(&self, file: &Path) -> CommandSpec {
        CommandSpec::new(self.config.program("nix-instantiate"))
            .arg("--parse")
            .arg(file)
            .timeout(Duration::from_secs(30))
    }

    /// Whether `nix-instantiate` can be run at all.
    pub fn available(&self) -> bool {
        let spec = CommandSpec::new(self.config.program("nix-instantiate"))
            .arg("--version")
            .timeout(Duration::from_secs(30));
        packsmith_exec::run(&spec).is_ok_and(|o| o.success())
    }
}

impl SyntaxCheck for NixParser {
    fn check(&self, text: &str) -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| format!("could not create a temp dir: {e}"))?;
        let file = dir.path().join("package.nix");
        packsmith_exec::atomic_write(&file, text.as_bytes()).map_err(|e| e.to_string())?;
        let out = match packsmith_exec::run(&self.command(&file)) {
            Ok(out) => out,
            // No Nix: fall back rather than accept blindly.
            Err(ExecError::NotFound { .. }) => return FallbackParser.check(text),
            Err(e) => return Err(e.to_string()),
        };
        if out.success() {
            return Ok(());
        }
        let shown = dir.path().display().to_string();
        Err(out
            .stderr
            .replace(&format!("{shown}/"), "")
            .trim_end()
            .to_string())
    }
}

/// A pure-Rust check for when Nix is absent: balanced brackets, strings
/// (`"…"` and `''…''` with their escapes and `${…}`), and comments. It
/// catches the edits that break structure, not every syntax error.
#[derive(Debug, Clone, Copy, Default)]
pub struct FallbackParser;

impl SyntaxCheck for FallbackParser {
    fn check(&self, text: &str) -> Result<(), String> {
        check_balanced(text)
    }
}

fn check_balanced(text: &str) -> Result<(), String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Ctx {
        Code(u8),
        Str,
        IndStr,
    }
    let b = text.as_bytes();
    let mut stack: Vec<(Ctx, usize)> = vec![(Ctx::Code(0), 0)];
    let pos = |i: usize| {
        let line = text[..i].matches('\n').count() + 1;
        let col = i - text[..i].rfind('\n').map_or(0, |p| p + 1) + 1;
        format!("package.nix:{line}:{col}")
    };
    let mut i = 0;
    while i < b.len() {
        let (ctx, _) = *stack.last().ok_or("unbalanced")?;
        let c = b[i];
        let next = b.get(i + 1).copied();
        match ctx {
            Ctx::Code(_) => match c {
                b'#' => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if next == Some(b'*') => {
                    let end = text[i + 2..]
                        .find("*/")
                        .ok_or_else(|| format!("unterminated comment at {}", pos(i)))?;
                    i += end + 3;
                }
                b'"' => stack.push((Ctx::Str, i)),
                b'\'' if next == Some(b'\'') => {
                    stack.push((Ctx::IndStr, i));
                    i += 1;
                }
                b'{' | b'[' | b'(' => stack.push((Ctx::Code(c), i)),
                b'}' | b']' | b')' => {
                    let want = match c {
                        b'}' => b'{',
                        b']' => b'[',
                        _ => b'(',
                    };
                    match stack.pop() {
                        Some((Ctx::Code(open), _)) if open == want => {}
                        Some((Ctx::Code(open), at)) if open != 0 => {
                            return Err(format!(
                            "syntax error, unexpected '{}' at {}: '{}' opened at {} is not closed",
                            c as char,
                            pos(i),
                            open as char,
                            pos(at)
                        ))
                        }
                        _ => {
                            return Err(format!(
                                "syntax error, unexpected '{}' at {}",
                                c as char,
                                pos(i)
                            ))
                        }
                    }
                }
                _ => {}
            },
            Ctx::Str => match c {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'$' if next == Some(b'{') => {
                    stack.push((Ctx::Code(b'{'), i + 1));
                    i += 1;
                }
                _ => {}
            },
            Ctx::IndStr => match c {
                // '''  ''$  ''\x are escapes inside an indented string.
                b'\'' if next == Some(b'\'') => match b.get(i + 2) {
                    Some(b'\'') | Some(b'$') => i += 2,
                    Some(b'\\') => i += 3,
                    _ => {
                        stack.pop();
                        i += 1;
                    }
                },
                b'$' if next == Some(b'{') => {
                    stack.push((Ctx::Code(b'{'), i + 1));
                    i += 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    match stack.as_slice() {
        [(Ctx::Code(0), _)] => {
            if text.trim().is_empty() {
                Err("syntax error, unexpected end of file (the expression is empty)".into())
            } else {
                Ok(())
            }
        }
        [.., (ctx, at)] => Err(format!(
            "syntax error, unexpected end of file: {} opened at {} is not closed",
            match ctx {
                Ctx::Str => "string".to_string(),
                Ctx::IndStr => "indented string ''".to_string(),
                Ctx::Code(c) => format!("'{}'", *c as char),
            },
            pos(*at)
        )),
        [] => Err("syntax error".into()),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("old_str is empty; give the exact text to replace")]
    EmptyOld,
    #[error("old_str and new_str are the same; nothing to change")]
    Identical,
    #[error("old_str was not found in package.nix; view the file and copy the text exactly")]
    NotFound,
    #[error("old_str occurs {found} time(s), so occurrence {asked} does not exist; it is on lines {lines:?}")]
    Occurrence {
        asked: usize,
        found: usize,
        lines: Vec<usize>,
    },
    #[error("line {asked} is out of range; package.nix has {lines} lines (0 inserts at the top)")]
    LineOutOfRange { asked: usize, lines: usize },
    #[error("the edit was rejected because the result does not parse; package.nix is unchanged:\n{message}")]
    Rejected { message: String },
}

/// An accepted edit: the new text and the changed lines, numbered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    pub summary: String,
}

/// Numbered lines `from..=to` (1-based; None = the whole file).
pub fn view(text: &str, range: Option<(usize, usize)>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let (from, to) = range.unwrap_or((1, lines.len()));
    let from = from.max(1);
    let to = to.min(lines.len());
    (from..=to)
        .filter_map(|n| Some(format!("{n:>4}: {}", lines.get(n - 1)?)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Edits checked by a parser.
pub struct Editor<C: SyntaxCheck> {
    pub checker: C,
}

impl<C: SyntaxCheck> Editor<C> {
    pub fn new(checker: C) -> Self {
        Self { checker }
    }

    /// Replaces the `occurrence`-th (1-based) match of `old` with `new`.
    pub fn replace_nth(
        &self,
        text: &str,
        old: &str,
        new: &str,
        occurrence: usize,
    ) -> Result<Edited, EditError> {
        if old.is_empty() {
            return Err(EditError::EmptyOld);
        }
        if old == new {
            return Err(EditError::Identical);
        }
        let starts: Vec<usize> = text.match_indices(old).map(|(i, _)| i).collect();
        if starts.is_empty() {
            return Err(EditError::NotFound);
        }
        let Some(&at) = starts.get(occurrence.max(1) - 1) else {
            return Err(EditError::Occurrence {
                asked: occurrence,
                found: starts.len(),
                lines: starts.iter().map(|&i| line_of(text, i)).collect(),
            });
        };
        let result = format!("{}{}{}", &text[..at], new, &text[at + old.len()..]);
        let first = line_of(text, at);
        let last = first + new.matches('\n').count();
        self.accept(result, first, last)
    }

    /// Inserts `content` (one or more lines) after line `line` (0 = top).
    pub fn insert_after(
        &self,
        text: &str,
        line: usize,
        content: &str,
    ) -> Result<Edited, EditError> {
        let mut lines: Vec<&str> = text.lines().collect();
        if line > lines.len() {
            return Err(EditError::LineOutOfRange {
                asked: line,
                lines: lines.len(),
            });
        }
        let inserted: Vec<&str> = content.lines().collect();
        let n = inserted.len().max(1);
        lines.splice(line..line, inserted);
        let mut result = lines.join("\n");
        if text.ends_with('\n') || text.is_empty() {
            result.push('\n');
        }
        self.accept(result, line + 1, line + n)
    }

    fn accept(&self, result: String, first: usize, last: usize) -> Result<Edited, EditError> {
        self.checker
            .check(&result)
            .map_err(|message| EditError::Rejected { message })?;
        let from = first.saturating_sub(2).max(1);
        let summary = view(&result, Some((from, last + 2)));
        Ok(Edited {
            text: result,
            summary,
        })
    }
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPR: &str = "{ lib, stdenv }:\nstdenv.mkDerivation (finalAttrs: {\n  pname = \"x\";\n  version = \"1\";\n})\n";

    #[test]
    fn view_numbers_a_range() {
        assert_eq!(
            view(EXPR, Some((2, 3))),
            "   2: stdenv.mkDerivation (finalAttrs: {\n   3:   pname = \"x\";"
        );
        assert_eq!(view(EXPR, Some((4, 99))).lines().count(), 2);
    }

    #[test]
    fn replace_the_nth_occurrence_and_report_where_others_are() {
        let ed = Editor::new(FallbackParser);
        let out = ed.replace_nth(EXPR, "\"", "'", 1);
        assert!(matches!(out, Err(EditError::Rejected { .. })), "{out:?}");
        let ok = ed.replace_nth(EXPR, "\"x\"", "\"y\"", 1).unwrap();
        assert!(ok.text.contains("pname = \"y\";"));
        assert!(ok.summary.contains("   3:   pname = \"y\";"));
        let err = ed.replace_nth(EXPR, "\"", "'", 9).unwrap_err();
        assert_eq!(
            err,
            EditError::Occurrence {
                asked: 9,
                found: 4,
                lines: vec![3, 3, 4, 4]
            }
        );
        assert_eq!(
            ed.replace_nth(EXPR, "nope", "x", 1).unwrap_err(),
            EditError::NotFound
        );
    }

    #[test]
    fn insert_after_a_line() {
        let ed = Editor::new(FallbackParser);
        let ok = ed.insert_after(EXPR, 4, "  doCheck = true;").unwrap();
        assert!(ok
            .text
            .contains("  version = \"1\";\n  doCheck = true;\n})\n"));
        let bad = ed
            .insert_after(EXPR, 4, "  postPatch = ''\n    sed -i x")
            .unwrap_err();
        assert!(bad.to_string().contains("indented string"), "{bad}");
        assert!(matches!(
            ed.insert_after(EXPR, 99, "x"),
            Err(EditError::LineOutOfRange { .. })
        ));
    }

    #[test]
    fn fallback_parser_understands_strings_and_comments() {
        let ok = "{ a = \"}\\\"${x}\"; b = ''\n  ''${y} '''\n  ${z}\n''; /* } */ # }\n}";
        assert_eq!(check_balanced(ok), Ok(()));
        assert!(check_balanced("{ a = [ 1 ); }")
            .unwrap_err()
            .contains("package.nix:1:11"));
        assert!(check_balanced("{ a = \"x; }")
            .unwrap_err()
            .contains("string"));
        assert!(check_balanced("   ").is_err());
    }
}
