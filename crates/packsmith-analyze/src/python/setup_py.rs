//! setup.py, scanned for the keyword arguments of `setup(...)`. The file is
//! never executed: only literals (and names bound to literals) are read.

use super::requirement::parse as parse_req;
use super::{fill, fill_sourced};
use crate::context::Ctx;
use crate::support::lines::LineIndex;
use packsmith_core::{Evidence, PythonEntryPoint, PythonExtra, PythonFacts};
use std::cell::RefCell;
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Punct(char),
    Other,
}

struct Token {
    tok: Tok,
    start: usize,
}

/// A Python literal, or the source text of anything else.
#[derive(Debug, Clone)]
enum Lit {
    Str(String, usize),
    List(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
    Name(String),
    Other,
}

pub fn read(ctx: &mut Ctx<'_>, file: &str, facts: &mut PythonFacts) {
    let Some(text) = ctx.read(file) else { return };
    facts.files.push(file.to_string());
    let tokens = tokenize(&text);
    let lines = LineIndex::new(&text);
    let ev = |offset: usize| Evidence::new(file, lines.line(offset));
    let Some(open) = tokens
        .windows(2)
        .position(|w| w[0].tok == Tok::Ident("setup".into()) && w[1].tok == Tok::Punct('('))
    else {
        ctx.warn(file, 0, "no setup(...) call found");
        return;
    };
    let bound = bindings(&tokens);
    for (key, at, value) in kwargs(&tokens, open + 2) {
        let value = resolve(&tokens, &bound, value);
        let line_ev = ev(tokens[at].start);
        match key.as_str() {
            "name" | "version" => {
                let Lit::Str(s, _) = &value else {
                    if key == "version" && !facts.dynamic.iter().any(|d| d == "version") {
                        facts.dynamic.push("version".into());
                    }
                    ctx.warn(
                        file,
                        line_ev.line,
                        format!("setup({key}=…) is not a literal string"),
                    );
                    continue;
                };
                let (slot, slot_ev) = if key == "name" {
                    (&mut facts.name, &mut facts.name_evidence)
                } else {
                    (&mut facts.version, &mut facts.version_evidence)
                };
                fill_sourced(slot, slot_ev, Some(s.clone()), line_ev);
            }
            "description" | "license" | "url" | "python_requires" => {
                let v = match &value {
                    Lit::Str(s, _) => Some(s.clone()),
                    _ => None,
                };
                let slot = match key.as_str() {
                    "description" => &mut facts.description,
                    "license" => &mut facts.license,
                    "url" => &mut facts.homepage,
                    _ => &mut facts.requires_python,
                };
                fill(slot, v);
            }
            "install_requires" => match &value {
                Lit::List(items) => {
                    for (s, off) in strings(items) {
                        facts.dependencies.extend(parse_req(&s, ev(off)));
                    }
                }
                _ => ctx.warn(
                    file,
                    line_ev.line,
                    "install_requires is computed, not a literal list; dependencies may be missing",
                ),
            },
            // setuptools fetches these before it runs setup() at all (pip
            // cannot, offline): they are build requirements. A conditional
            // value (`[...] if needs_pytest else []`) is for commands such
            // as `setup.py test` that an install never runs.
            "setup_requires" => match &value {
                Lit::List(items) if !conditional(&tokens, &bound, at + 2) => {
                    for (s, off) in strings(items) {
                        facts.build_requires.extend(parse_req(&s, ev(off)));
                    }
                }
                _ => {}
            },
            // The version comes from git through setuptools-scm, which
            // must be importable when setup() runs.
            "use_scm_version" if !matches!(&value, Lit::Name(n) if n == "False") => {
                facts
                    .build_requires
                    .extend(parse_req("setuptools-scm", line_ev));
            }
            "extras_require" => {
                if let Lit::Dict(pairs) = &value {
                    for (k, v) in pairs {
                        let (Lit::Str(name, _), Lit::List(items)) =
                            (k, resolve(&tokens, &bound, v.clone()))
                        else {
                            continue;
                        };
                        facts.extras.push(PythonExtra {
                            name: name.clone(),
                            requirements: strings(&items)
                                .into_iter()
                                .filter_map(|(s, off)| parse_req(&s, ev(off)))
                                .collect(),
                        });
                    }
                }
            }
            "entry_points" => {
                let Lit::Dict(pairs) = &value else { continue };
                for (k, v) in pairs {
                    let (Lit::Str(group, _), Lit::List(items)) =
                        (k, resolve(&tokens, &bound, v.clone()))
                    else {
                        continue;
                    };
                    let kind = match group.as_str() {
                        "console_scripts" => "console",
                        "gui_scripts" => "gui",
                        _ => continue,
                    };
                    for (s, off) in strings(&items) {
                        if let Some((name, target)) = s.split_once('=') {
                            facts.scripts.push(PythonEntryPoint {
                                name: name.trim().to_string(),
                                kind: kind.into(),
                                target: target.trim().to_string(),
                                evidence: ev(off),
                            });
                        }
                    }
                }
            }
            "scripts" => {
                if let Lit::List(items) = &value {
                    for (s, off) in strings(items) {
                        facts.scripts.push(PythonEntryPoint {
                            name: s.rsplit('/').next().unwrap_or(&s).to_string(),
                            kind: "script".into(),
                            target: s.clone(),
                            evidence: ev(off),
                        });
                    }
                }
            }
            _ => {}
        }
    }
}

/// The expression starting at token `at` is a conditional one (`a if cond
/// else b`), or a name bound to one.
fn conditional(tokens: &[Token], bound: &Bindings<'_>, at: usize) -> bool {
    let has_if = |from: usize| {
        tokens[from..skip_expr(tokens, from)]
            .iter()
            .any(|t| t.tok == Tok::Ident("if".into()))
    };
    match &tokens[at].tok {
        Tok::Ident(name) if skip_expr(tokens, at) == at + 1 => {
            bound.at.get(name.as_str()).is_some_and(|&b| has_if(b))
        }
        _ => has_if(at),
    }
}

fn strings(items: &[Lit]) -> Vec<(String, usize)> {
    items
        .iter()
        .filter_map(|l| match l {
            Lit::Str(s, off) => Some((s.clone(), *off)),
            _ => None,
        })
        .collect()
}

/// Distinct names resolved per file at most: each resolution may scan to
/// the end of the file (a value runs to the next `,` at depth 0).
const MAX_RESOLVED: usize = 64;

/// The first `name = …` of each name (where its value starts), and the
/// values read so far. Built once: looking each name up by a scan of every
/// token, for every `key=name` argument, was quadratic (found by
/// packsmith-fuzz: 50 000 such arguments took over a minute).
struct Bindings<'t> {
    at: HashMap<&'t str, usize>,
    resolved: RefCell<HashMap<usize, Lit>>,
}

fn bindings(tokens: &[Token]) -> Bindings<'_> {
    let mut at = HashMap::new();
    for (i, w) in tokens.windows(3).enumerate() {
        if let Tok::Ident(name) = &w[0].tok {
            if w[1].tok == Tok::Punct('=') && w[2].tok != Tok::Punct('=') {
                at.entry(name.as_str()).or_insert(i + 2);
            }
        }
    }
    Bindings {
        at,
        resolved: RefCell::new(HashMap::new()),
    }
}

/// A name bound at the top level to a literal (`REQUIRES = [...]`) → that literal.
fn resolve(tokens: &[Token], bound: &Bindings<'_>, lit: Lit) -> Lit {
    let Lit::Name(name) = &lit else { return lit };
    let Some(&at) = bound.at.get(name.as_str()) else {
        return lit;
    };
    if let Some(v) = bound.resolved.borrow().get(&at) {
        return v.clone();
    }
    if bound.resolved.borrow().len() >= MAX_RESOLVED {
        return Lit::Other;
    }
    let (v, _) = literal(tokens, at, 0);
    // No chains: bounded work.
    let v = if matches!(v, Lit::Name(_)) {
        Lit::Other
    } else {
        v
    };
    bound.resolved.borrow_mut().insert(at, v.clone());
    v
}

/// `key=value` arguments of the call whose first argument token is `from`:
/// (key, key token index, value).
fn kwargs(tokens: &[Token], from: usize) -> Vec<(String, usize, Lit)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < tokens.len() {
        match &tokens[i].tok {
            Tok::Punct(')') => break,
            Tok::Ident(k)
                if tokens.get(i + 1).map(|t| &t.tok) == Some(&Tok::Punct('='))
                    && tokens.get(i + 2).map(|t| &t.tok) != Some(&Tok::Punct('=')) =>
            {
                let (v, next) = literal(tokens, i + 2, 0);
                out.push((k.clone(), i, v));
                i = next;
            }
            _ => {
                // A positional argument or `**kwargs`: skip it.
                i = skip_expr(tokens, i);
            }
        }
        if tokens.get(i).map(|t| &t.tok) == Some(&Tok::Punct(',')) {
            i += 1;
        }
    }
    out
}

/// Index after the expression starting at `i` (stops at `,` or a closer at depth 0).
fn skip_expr(tokens: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    let start = i;
    while i < tokens.len() {
        match tokens[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') if depth == 0 => break,
            Tok::Punct(')' | ']' | '}') => depth -= 1,
            Tok::Punct(',' | ':') if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    i.max(start + 1).min(tokens.len())
}

/// Lists nested deeper than this are not read (each level recursed, so
/// 100 000 `[` overflowed the stack, found by packsmith-fuzz).
const MAX_LITERAL_DEPTH: usize = 32;

/// Reads the literal starting at token `i`, `depth` lists deep; returns it
/// and the index after it.
fn literal(tokens: &[Token], i: usize, depth: usize) -> (Lit, usize) {
    let end = skip_expr(tokens, i);
    if depth > MAX_LITERAL_DEPTH {
        return (Lit::Other, end);
    }
    let Some(first) = tokens.get(i) else {
        return (Lit::Other, end);
    };
    match &first.tok {
        Tok::Str(_) => {
            // Adjacent literals concatenate: 'a' 'b'.
            let mut s = String::new();
            let mut j = i;
            while let Some(Token {
                tok: Tok::Str(part),
                ..
            }) = tokens.get(j)
            {
                s.push_str(part);
                j += 1;
            }
            let lit = if j == end {
                Lit::Str(s, first.start)
            } else {
                Lit::Other
            };
            (lit, end)
        }
        Tok::Ident(name) if end == i + 1 => (Lit::Name(name.clone()), end),
        Tok::Punct(open @ ('[' | '(' | '{')) => {
            let close = match open {
                '[' => ']',
                '(' => ')',
                _ => '}',
            };
            let mut items = Vec::new();
            let mut pairs = Vec::new();
            let mut j = i + 1;
            while j < tokens.len() && tokens[j].tok != Tok::Punct(close) {
                let (item, next) = literal(tokens, j, depth + 1);
                j = next;
                if tokens.get(j).map(|t| &t.tok) == Some(&Tok::Punct(':')) {
                    let (v, next) = literal(tokens, j + 1, depth + 1);
                    pairs.push((item, v));
                    j = next;
                } else {
                    items.push(item);
                }
                if tokens.get(j).map(|t| &t.tok) == Some(&Tok::Punct(',')) {
                    j += 1;
                } else if tokens.get(j).map(|t| &t.tok) != Some(&Tok::Punct(close)) {
                    return (Lit::Other, skip_expr(tokens, i)); // a comprehension or call
                }
            }
            let lit = if *open == '{' && !pairs.is_empty() {
                Lit::Dict(pairs)
            } else {
                Lit::List(items)
            };
            (lit, j + 1)
        }
        _ => (Lit::Other, end),
    }
}

fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        if b == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if b.is_ascii_whitespace() || b == b'\\' {
            i += 1;
        } else if b == b'\'' || b == b'"' {
            let (s, end) = read_string(text, i);
            out.push(Token {
                tok: Tok::Str(s),
                start,
            });
            i = end;
        } else if b.is_ascii_alphabetic() || b == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            // String prefixes: r'', b"", f'', rb'' …
            if word.len() <= 2
                && word.chars().all(|c| "rRbBuUfF".contains(c))
                && matches!(bytes.get(i), Some(b'\'' | b'"'))
            {
                let (s, end) = read_string(text, i);
                out.push(Token {
                    tok: Tok::Str(s),
                    start,
                });
                i = end;
            } else {
                out.push(Token {
                    tok: Tok::Ident(word.to_string()),
                    start,
                });
            }
        } else if b.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Other,
                start,
            });
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            let tok = if len == 1 {
                Tok::Punct(b as char)
            } else {
                Tok::Other
            };
            out.push(Token { tok, start });
            i += len;
        }
    }
    out
}

/// Reads a quoted string (single or triple quotes) at `i`; value and end.
fn read_string(text: &str, i: usize) -> (String, usize) {
    let rest = &text[i..];
    let q = &rest[..1];
    let triple = q.repeat(3);
    if rest.starts_with(&triple) {
        let body = &rest[3..];
        return match body.find(&triple) {
            Some(e) => (body[..e].to_string(), i + 3 + e + 3),
            None => (body.to_string(), text.len()),
        };
    }
    let mut s = String::new();
    let mut chars = rest.char_indices().skip(1);
    while let Some((j, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, e)) = chars.next() {
                    s.push(e);
                }
            }
            '\n' => return (s, i + j),
            _ if rest[j..].starts_with(q) => return (s, i + j + 1),
            _ => s.push(c),
        }
    }
    (s, text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deeply_nested_lists_do_not_overflow_the_stack() {
        // Found by packsmith-fuzz (target setup-py): `x = [[[[…` recursed
        // once per bracket until the stack overflowed.
        let tokens = tokenize(&format!("x = {}", "[".repeat(100_000)));
        let (lit, end) = literal(&tokens, 2, 0);
        assert!(matches!(lit, Lit::Other));
        assert_eq!(end, tokens.len());
        // Shallow lists are still read.
        let tokens = tokenize("x = [['a'], ['b', 'c']]");
        let (lit, _) = literal(&tokens, 2, 0);
        assert!(
            matches!(lit, Lit::List(ref items) if items.len() == 2),
            "{lit:?}"
        );
    }

    #[test]
    fn many_named_arguments_resolve_in_linear_time() {
        // Found by packsmith-fuzz: each `key=name` argument scanned every
        // token for the name's binding.
        let text = format!(
            "REQ = ['numpy']\nsetup({})",
            "install_requires=REQ,".repeat(50_000)
        );
        let t = std::time::Instant::now();
        let tokens = tokenize(&text);
        let bound = bindings(&tokens);
        let open = 7;
        assert_eq!(tokens[open - 1].tok, Tok::Punct('('));
        let resolved = kwargs(&tokens, open)
            .into_iter()
            .filter(|(_, _, v)| {
                matches!(resolve(&tokens, &bound, v.clone()), Lit::List(ref l) if l.len() == 1)
            })
            .count();
        assert_eq!(resolved, 50_000);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }
}
