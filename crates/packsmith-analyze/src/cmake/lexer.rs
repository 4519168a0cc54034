//! Byte-level lexer for cmake-language(7): turns a file into a flat list of
//! command invocations with their arguments and line numbers.
//!
//! It never fails: malformed input (an unclosed command, an unterminated
//! string, junk between commands) becomes a [`Problem`] and lexing resumes
//! on the next line, so one bad line does not swallow the rest of the file.

/// How an argument was written; quoting decides list splitting and
/// variable expansion later on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    Unquoted,
    Quoted,
    Bracket,
    /// A nested `(` inside the argument list (conditions use them).
    Open,
    /// A nested `)`.
    Close,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    pub text: String,
    pub kind: ArgKind,
}

impl Arg {
    /// True for an unquoted argument spelled exactly `word` (a keyword).
    pub fn is_word(&self, word: &str) -> bool {
        self.kind == ArgKind::Unquoted && self.text == word
    }
}

/// One `name(args)` invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Lower-cased: CMake command names are case-insensitive.
    pub name: String,
    pub args: Vec<Arg>,
    /// 1-based line of the command name.
    pub line: u32,
}

/// Something malformed, with the line where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: u32,
    pub message: String,
}

#[derive(Debug, Default)]
pub struct Lexed {
    pub commands: Vec<Command>,
    pub problems: Vec<Problem>,
}

/// After this many recoveries in one file the rest of it is skipped; each
/// recovery may rescan to the end, so this bounds the work.
const MAX_RECOVERIES: usize = 16;
/// Junk lines reported per file (the rest are skipped silently).
const MAX_JUNK_REPORTS: usize = 3;

pub fn lex(text: &str) -> Lexed {
    let mut lx = Lexer {
        b: text.as_bytes(),
        pos: 0,
        line: 1,
    };
    let mut out = Lexed::default();
    let mut recoveries = 0;
    let mut junk = 0;
    loop {
        lx.skip_space(true);
        let Some(c) = lx.peek() else { break };
        if c == b'#' {
            if let Err(e) = lx.comment() {
                out.problems.push(e);
                break;
            }
            continue;
        }
        if !is_ident_start(c) {
            if junk < MAX_JUNK_REPORTS {
                out.problems.push(Problem {
                    line: lx.line,
                    message: "unexpected text outside a command; line skipped".into(),
                });
            }
            junk += 1;
            lx.skip_line();
            continue;
        }
        let line = lx.line;
        let start = lx.pos;
        while lx.peek().is_some_and(is_ident_char) {
            lx.pos += 1;
        }
        let name = text[start..lx.pos].to_ascii_lowercase();
        lx.skip_space(false);
        if lx.peek() != Some(b'(') {
            if junk < MAX_JUNK_REPORTS {
                out.problems.push(Problem {
                    line,
                    message: format!("`{name}` is not followed by `(`; line skipped"),
                });
            }
            junk += 1;
            lx.skip_line();
            continue;
        }
        lx.pos += 1;
        match lx.arguments() {
            Ok(args) => out.commands.push(Command { name, args, line }),
            Err(e) => {
                out.problems.push(Problem {
                    line,
                    message: format!("`{name}(`: {}; resuming on the next line", e.message),
                });
                recoveries += 1;
                if recoveries >= MAX_RECOVERIES {
                    out.problems.push(Problem {
                        line,
                        message: "too many syntax errors; rest of file skipped".into(),
                    });
                    break;
                }
                // Found only now: scanning for it before every command
                // made a one-line file of 50 000 commands quadratic.
                lx.pos = lx.next_line_start(start);
                lx.line = line + 1;
            }
        }
    }
    out
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

struct Lexer<'a> {
    b: &'a [u8],
    pos: usize,
    line: u32,
}

impl Lexer<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn skip_space(&mut self, newlines: bool) {
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' if newlines => {
                    self.pos += 1;
                    self.line += 1;
                }
                _ => break,
            }
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            if c == b'\n' {
                self.line += 1;
                break;
            }
        }
    }

    /// Byte offset just after the newline ending the line that holds `at`.
    fn next_line_start(&self, at: usize) -> usize {
        self.b[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(self.b.len(), |i| at + i + 1)
    }

    fn err(&self, message: &str) -> Problem {
        Problem {
            line: self.line,
            message: message.into(),
        }
    }

    /// At `#`: a bracket comment `#[=[ … ]=]` or a line comment.
    fn comment(&mut self) -> Result<(), Problem> {
        self.pos += 1;
        if let Some(eqs) = self.bracket_open() {
            self.bracket_body(eqs)
                .map(|_| ())
                .map_err(|_| self.err("unterminated bracket comment"))
        } else {
            while let Some(c) = self.peek() {
                if c == b'\n' {
                    break;
                }
                self.pos += 1;
            }
            Ok(())
        }
    }

    /// At `[`: when a bracket opening `[==[` follows, consume it and return
    /// the number of `=`.
    fn bracket_open(&mut self) -> Option<usize> {
        if self.peek() != Some(b'[') {
            return None;
        }
        let mut i = self.pos + 1;
        while self.b.get(i) == Some(&b'=') {
            i += 1;
        }
        if self.b.get(i) == Some(&b'[') {
            let eqs = i - self.pos - 1;
            self.pos = i + 1;
            Some(eqs)
        } else {
            None
        }
    }

    /// The content up to the matching `]==]`, which is consumed.
    fn bracket_body(&mut self, eqs: usize) -> Result<String, ()> {
        // A newline right after the opening bracket is not content.
        if self.b[self.pos..].starts_with(b"\r\n") {
            self.pos += 2;
            self.line += 1;
        } else if self.peek() == Some(b'\n') {
            self.pos += 1;
            self.line += 1;
        }
        let start = self.pos;
        let mut i = start;
        while i < self.b.len() {
            match self.b[i] {
                b'\n' => self.line += 1,
                b']' => {
                    let mut j = i + 1;
                    while j < self.b.len() && self.b[j] == b'=' && j - i - 1 < eqs {
                        j += 1;
                    }
                    if j - i - 1 == eqs && self.b.get(j) == Some(&b']') {
                        let text = lossy(&self.b[start..i]);
                        self.pos = j + 1;
                        return Ok(text);
                    }
                }
                _ => {}
            }
            i += 1;
        }
        self.pos = self.b.len();
        Err(())
    }

    /// After the opening `(`: arguments up to the matching `)`.
    fn arguments(&mut self) -> Result<Vec<Arg>, Problem> {
        let mut args = Vec::new();
        let mut depth = 1usize;
        loop {
            self.skip_space(true);
            let Some(c) = self.peek() else {
                return Err(self.err("unbalanced parentheses: `)` missing"));
            };
            match c {
                b'(' => {
                    self.pos += 1;
                    depth += 1;
                    args.push(Arg {
                        text: "(".into(),
                        kind: ArgKind::Open,
                    });
                }
                b')' => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(args);
                    }
                    args.push(Arg {
                        text: ")".into(),
                        kind: ArgKind::Close,
                    });
                }
                b'#' => self.comment()?,
                b'"' => {
                    self.pos += 1;
                    let text = self.quoted()?;
                    args.push(Arg {
                        text,
                        kind: ArgKind::Quoted,
                    });
                }
                b'[' => {
                    if let Some(eqs) = self.bracket_open() {
                        let text = self
                            .bracket_body(eqs)
                            .map_err(|_| self.err("unterminated bracket argument"))?;
                        args.push(Arg {
                            text,
                            kind: ArgKind::Bracket,
                        });
                    } else {
                        args.push(self.unquoted()?);
                    }
                }
                _ => args.push(self.unquoted()?),
            }
        }
    }

    /// After the opening `"`: the decoded content; the closing quote is consumed.
    fn quoted(&mut self) -> Result<String, Problem> {
        let start_line = self.line;
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                b'"' => return Ok(bytes_to_string(out)),
                b'\\' => self.escape(&mut out, true),
                b'\n' => {
                    self.line += 1;
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
        Err(Problem {
            line: start_line,
            message: "unterminated quoted argument".into(),
        })
    }

    /// After a `\`: decodes one escape sequence into `out`.
    fn escape(&mut self, out: &mut Vec<u8>, in_quotes: bool) {
        let Some(c) = self.peek() else {
            out.push(b'\\');
            return;
        };
        self.pos += 1;
        match c {
            b'\n' if in_quotes => self.line += 1, // line continuation
            b'\r' if in_quotes && self.peek() == Some(b'\n') => {
                self.pos += 1;
                self.line += 1;
            }
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            // Kept escaped so that list splitting still sees it as literal.
            b';' => out.extend_from_slice(b"\\;"),
            b'\n' => {
                self.line += 1;
                out.push(b'\\');
                out.push(b'\n');
            }
            _ => out.push(c),
        }
    }

    /// An unquoted argument, including the legacy forms `-DFOO="a b"` and
    /// `$(VAR)`; stops at whitespace, a parenthesis or `#`.
    fn unquoted(&mut self) -> Result<Arg, Problem> {
        let start = self.pos;
        // Fast path: a plain word without escapes or quotes.
        while let Some(c) = self.peek() {
            if matches!(
                c,
                b' ' | b'\t' | b'\r' | b'\n' | b'(' | b')' | b'#' | b'"' | b'\\'
            ) {
                break;
            }
            self.pos += 1;
        }
        if !matches!(self.peek(), Some(b'"') | Some(b'\\')) {
            return Ok(Arg {
                text: lossy(&self.b[start..self.pos]),
                kind: ArgKind::Unquoted,
            });
        }
        let mut out = self.b[start..self.pos].to_vec();
        while let Some(c) = self.peek() {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | b'(' | b')' | b'#' => break,
                b'"' => {
                    // Legacy: a quoted section inside an unquoted argument
                    // keeps its quotes and may contain spaces.
                    self.pos += 1;
                    out.push(b'"');
                    let inner = self.quoted()?;
                    out.extend_from_slice(inner.as_bytes());
                    out.push(b'"');
                }
                b'\\' => {
                    self.pos += 1;
                    self.escape(&mut out, false);
                }
                _ => {
                    self.pos += 1;
                    out.push(c);
                }
            }
        }
        Ok(Arg {
            text: bytes_to_string(out),
            kind: ArgKind::Unquoted,
        })
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn bytes_to_string(b: Vec<u8>) -> String {
    String::from_utf8(b).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(c: &Command) -> Vec<&str> {
        c.args.iter().map(|a| a.text.as_str()).collect()
    }

    #[test]
    fn commands_and_lines() {
        let l = lex("project(foo C CXX)\n\n  Option(A \"help me\" ON) # note\n");
        assert!(l.problems.is_empty());
        assert_eq!(l.commands.len(), 2);
        assert_eq!(l.commands[1].name, "option");
        assert_eq!(l.commands[1].line, 3);
        assert_eq!(texts(&l.commands[1]), ["A", "help me", "ON"]);
        assert_eq!(l.commands[1].args[1].kind, ArgKind::Quoted);
    }

    #[test]
    fn brackets_and_comments() {
        let src = "#[[ a\n comment ) ( ]]\nset(X [==[\nraw ]] \"x\" ]==] y)\n#[=[\n]=] message(hi)";
        let l = lex(src);
        assert!(l.problems.is_empty(), "{:?}", l.problems);
        assert_eq!(l.commands[0].line, 3);
        assert_eq!(texts(&l.commands[0]), ["X", "raw ]] \"x\" ", "y"]);
        assert_eq!(l.commands[0].args[1].kind, ArgKind::Bracket);
        assert_eq!(l.commands[1].name, "message");
        assert_eq!(l.commands[1].line, 6);
    }

    #[test]
    fn quoted_escapes_and_continuation() {
        let l = lex("set(X \"a\\\"b\\\nc\\n\" d)\nfoo()");
        assert_eq!(texts(&l.commands[0]), ["X", "a\"bc\n", "d"]);
        assert_eq!(l.commands[1].line, 3);
    }

    #[test]
    fn unquoted_legacy_and_genex_and_parens() {
        let l = lex("add_definitions(-DFOO=\"bar baz\" $<$<CONFIG:Debug>:-g>)\nif(NOT (A AND B))");
        assert_eq!(
            texts(&l.commands[0]),
            ["-DFOO=\"bar baz\"", "$<$<CONFIG:Debug>:-g>"]
        );
        assert_eq!(texts(&l.commands[1]), ["NOT", "(", "A", "AND", "B", ")"]);
        assert_eq!(l.commands[1].args[1].kind, ArgKind::Open);
    }

    #[test]
    fn unclosed_command_recovers_on_next_line() {
        let l = lex("set(A b\noption(B \"x\" ON)\n");
        assert_eq!(l.problems.len(), 1);
        assert_eq!(l.problems[0].line, 1);
        assert_eq!(l.commands.len(), 1);
        assert_eq!(l.commands[0].name, "option");
        assert_eq!(l.commands[0].line, 2);
    }

    #[test]
    fn unterminated_string_and_junk() {
        let l = lex("}}} junk\nset(A \"open\nfoo(x)\n");
        assert!(l.problems.len() >= 2);
        assert_eq!(l.commands.last().map(|c| c.name.as_str()), Some("foo"));
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        for src in [
            "(",
            ")",
            "a(",
            "a(\"",
            "a([[",
            "#[[",
            "a(\\",
            "[=",
            "a(b\\",
            "\u{fffd}(x)",
        ] {
            let _ = lex(src);
        }
    }

    #[test]
    fn many_commands_on_one_line_lex_in_linear_time() {
        // Found by the fuzzer (packsmith-fuzz, target cmake-lexer): 1 MB of
        // `add_subdirectory(sub)` without a newline took minutes, each
        // command scanning to the end of the line.
        let src = "add_subdirectory(sub)".repeat(50_000);
        let t = std::time::Instant::now();
        let l = lex(&src);
        assert_eq!(l.commands.len(), 50_000);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }
}
