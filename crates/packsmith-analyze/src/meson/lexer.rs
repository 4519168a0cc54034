//! Tokens of the Meson language, and the function calls among them.

/// One token with its byte offset.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Ident(String),
    Str(String),
    Other(String),
    Punct(char),
    /// End of a statement (a newline outside brackets).
    Newline,
}

#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

pub fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        match b {
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'\n' => {
                i += 1;
                if depth == 0 {
                    out.push(Token {
                        tok: Tok::Newline,
                        start,
                        end: i,
                    });
                }
            }
            b' ' | b'\t' | b'\r' | b'\\' => i += 1,
            b'\'' => {
                let (s, end) = read_string(text, i);
                i = end;
                out.push(Token {
                    tok: Tok::Str(s),
                    start,
                    end,
                });
            }
            b'f' if bytes.get(i + 1) == Some(&b'\'') => {
                let (s, end) = read_string(text, i + 1);
                i = end;
                out.push(Token {
                    tok: Tok::Str(s),
                    start,
                    end,
                });
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
                out.push(Token {
                    tok: Tok::Punct(b as char),
                    start,
                    end: i,
                });
            }
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
                out.push(Token {
                    tok: Tok::Punct(b as char),
                    start,
                    end: i,
                });
            }
            _ if b.is_ascii_alphabetic() || b == b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Ident(text[start..i].to_string()),
                    start,
                    end: i,
                });
            }
            _ if b.is_ascii_digit() => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                    i += 1;
                }
                out.push(Token {
                    tok: Tok::Other(text[start..i].to_string()),
                    start,
                    end: i,
                });
            }
            _ => {
                // Multi-byte UTF-8 outside strings: step over the whole char.
                let len = text[i..].chars().next().map_or(1, char::len_utf8);
                i += len;
                out.push(Token {
                    tok: Tok::Punct(b as char),
                    start,
                    end: i,
                });
            }
        }
    }
    out
}

/// Reads a '…' or '''…''' string starting at `i`; returns value and end.
fn read_string(text: &str, i: usize) -> (String, usize) {
    let rest = &text[i..];
    if let Some(body) = rest.strip_prefix("'''") {
        return match body.find("'''") {
            Some(e) => (body[..e].to_string(), i + 3 + e + 3),
            None => (body.to_string(), text.len()),
        };
    }
    let mut s = String::new();
    let mut chars = rest.char_indices().skip(1);
    while let Some((j, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => s.push('\n'),
                Some((_, 't')) => s.push('\t'),
                Some((_, e)) => s.push(e),
                None => {}
            },
            '\'' => return (s, i + j + 1),
            '\n' => return (s, i + j),
            _ => s.push(c),
        }
    }
    (s, text.len())
}

/// An argument of a call: positional or `key: value`.
#[derive(Debug, Clone)]
pub struct CallArg {
    pub key: Option<String>,
    /// Token range of the value.
    pub value: std::ops::Range<usize>,
}

/// A free function call (`name(...)`, not `obj.method(...)`).
#[derive(Debug, Clone)]
pub struct FnCall {
    pub name: String,
    /// Index of the name token.
    pub at: usize,
    pub args: Vec<CallArg>,
}

/// Every free function call, nested ones included, in source order.
pub fn calls(tokens: &[Token]) -> Vec<FnCall> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let Tok::Ident(name) = &t.tok else { continue };
        if tokens.get(i + 1).map(|t| &t.tok) != Some(&Tok::Punct('(')) {
            continue;
        }
        if i > 0 && tokens[i - 1].tok == Tok::Punct('.') {
            continue;
        }
        out.push(FnCall {
            name: name.clone(),
            at: i,
            args: split_args(tokens, i + 2),
        });
    }
    out
}

/// Every call of the method `name` on some object (`gnome.post_install(…)`).
pub fn method_calls(tokens: &[Token], name: &str) -> Vec<FnCall> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let is_name = matches!(&t.tok, Tok::Ident(n) if n == name);
        let after_dot = i > 0 && tokens[i - 1].tok == Tok::Punct('.');
        let opens = tokens.get(i + 1).map(|t| &t.tok) == Some(&Tok::Punct('('));
        if is_name && after_dot && opens {
            out.push(FnCall {
                name: name.to_string(),
                at: i,
                args: split_args(tokens, i + 2),
            });
        }
    }
    out
}

/// Splits the arguments of a call whose first argument token is at `from`.
fn split_args(tokens: &[Token], from: usize) -> Vec<CallArg> {
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = from;
    let mut i = from;
    let finish = |start: usize, end: usize, args: &mut Vec<CallArg>| {
        if start >= end {
            return;
        }
        let key = match (&tokens[start].tok, tokens.get(start + 1).map(|t| &t.tok)) {
            (Tok::Ident(k), Some(Tok::Punct(':'))) => Some(k.clone()),
            _ => None,
        };
        let value = if key.is_some() {
            start + 2..end
        } else {
            start..end
        };
        args.push(CallArg { key, value });
    };
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') if depth > 0 => depth -= 1,
            Tok::Punct(')') => {
                finish(start, i, &mut args);
                return args;
            }
            Tok::Punct(',') if depth == 0 => {
                finish(start, i, &mut args);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    finish(start, i, &mut args);
    args
}

/// A value read from tokens: one string, a list of strings, or source text.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Str(String),
    List(Vec<String>),
    Expr(String),
}

impl Val {
    /// The value as written for humans: strings unquoted, lists joined.
    pub fn text(&self) -> String {
        match self {
            Val::Str(s) | Val::Expr(s) => s.clone(),
            Val::List(l) => l.join(", "),
        }
    }

    pub fn strings(&self) -> Vec<String> {
        match self {
            Val::Str(s) => vec![s.clone()],
            Val::List(l) => l.clone(),
            Val::Expr(_) => Vec::new(),
        }
    }
}

/// Reads the tokens `range` of `text` as a [`Val`].
pub fn value(text: &str, tokens: &[Token], range: std::ops::Range<usize>) -> Val {
    let toks = &tokens[range.clone()];
    match toks {
        [Token {
            tok: Tok::Str(s), ..
        }] => return Val::Str(s.clone()),
        [first, inner @ .., last]
            if first.tok == Tok::Punct('[') && last.tok == Tok::Punct(']') =>
        {
            let strings: Vec<String> = inner
                .iter()
                .filter_map(|t| match &t.tok {
                    Tok::Str(s) => Some(s.clone()),
                    _ => None,
                })
                .collect();
            let only_strings = inner
                .iter()
                .all(|t| matches!(t.tok, Tok::Str(_) | Tok::Punct(',')));
            if only_strings {
                return Val::List(strings);
            }
        }
        _ => {}
    }
    match (toks.first(), toks.last()) {
        (Some(a), Some(b)) => Val::Expr(
            text[a.start..b.end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        ),
        _ => Val::Expr(String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_and_values() {
        let text = "project('x', ['c', 'cpp'], version: '1.0')\n# dependency('no')\nd = dependency('mpi', required: get_option('mpi'))\nfoo.dependency('not')\n";
        let toks = tokenize(text);
        let cs = calls(&toks);
        let names: Vec<_> = cs.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["project", "dependency", "get_option"]);
        let v = value(text, &toks, cs[0].args[1].value.clone());
        assert_eq!(v, Val::List(vec!["c".into(), "cpp".into()]));
        let req = &cs[1].args[1];
        assert_eq!(req.key.as_deref(), Some("required"));
        assert_eq!(
            value(text, &toks, req.value.clone()).text(),
            "get_option('mpi')"
        );
    }
}
