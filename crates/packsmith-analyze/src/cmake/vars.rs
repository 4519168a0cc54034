//! A small, bounded model of CMake variables: scopes of plain `set()`
//! values, `${VAR}` expansion, list splitting, and turning a path written in
//! a CMake file into a repository-relative path.
//!
//! Directory variables are kept symbolic: `${CMAKE_CURRENT_SOURCE_DIR}` in
//! `sub/` expands to `${CMAKE_SOURCE_DIR}/sub`, so values stay readable in
//! facts and only path resolution maps `${CMAKE_SOURCE_DIR}` to the root.

use super::lexer::{Arg, ArgKind};
use std::collections::HashMap;

/// Longest value an expansion may produce (guards against list blow-up).
const MAX_VALUE_CHARS: usize = 64 * 1024;
/// Deepest `${${…}}` nesting followed.
const MAX_NESTING: usize = 8;

/// A variable written inside one if-branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchWrite {
    pub name: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

pub const ROOT_VAR: &str = "${CMAKE_SOURCE_DIR}";

#[derive(Debug, Default)]
pub struct Vars {
    scopes: Vec<HashMap<String, String>>,
    /// Names set while walking each open if-branch (innermost last), with
    /// the value each had before.
    logs: Vec<Vec<(String, Option<String>)>>,
}

impl Vars {
    pub fn new() -> Self {
        Self {
            scopes: vec![HashMap::new()],
            logs: Vec::new(),
        }
    }

    pub fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .map(String::as_str)
    }

    pub fn set(&mut self, name: &str, value: String) {
        if !self.logs.is_empty() {
            let old = self.get(name).map(str::to_string);
            if let Some(log) = self.logs.last_mut() {
                log.push((name.to_string(), old));
            }
        }
        if let Some(top) = self.scopes.last_mut() {
            top.insert(name.to_string(), value);
        }
    }

    /// `set(… CACHE …)`: a normal variable of the same name wins.
    pub fn set_cache(&mut self, name: &str, value: String) {
        if self.get(name).is_none() {
            if let Some(bottom) = self.scopes.first_mut() {
                bottom.insert(name.to_string(), value);
            }
        }
    }

    pub fn unset(&mut self, name: &str) {
        if let Some(top) = self.scopes.last_mut() {
            top.remove(name);
        }
    }

    /// Starts recording the names set in one if-branch.
    pub fn begin_branch(&mut self) {
        self.logs.push(Vec::new());
    }

    /// Ends a branch: each name it set, with the value before the branch
    /// and the value now. The names also count as set in the enclosing branch.
    pub fn end_branch(&mut self) -> Vec<BranchWrite> {
        let names = self.logs.pop().unwrap_or_default();
        if let Some(parent) = self.logs.last_mut() {
            parent.extend(names.iter().cloned());
        }
        let mut out: Vec<BranchWrite> = Vec::with_capacity(names.len());
        for (name, before) in names {
            if !out.iter().any(|w| w.name == name) {
                let after = self.get(&name).map(str::to_string);
                out.push(BranchWrite {
                    name,
                    before,
                    after,
                });
            }
        }
        out
    }

    /// Expands `${NAME}` references; unknown ones are left as written.
    pub fn expand(&self, s: &str) -> String {
        if !s.contains("${") {
            return s.to_string();
        }
        let mut out = String::with_capacity(s.len());
        self.expand_into(s, &mut out, 0);
        out
    }

    fn expand_into(&self, s: &str, out: &mut String, depth: usize) {
        let mut rest = s;
        while let Some(at) = rest.find("${") {
            out.push_str(&rest[..at]);
            let after = &rest[at + 2..];
            let Some(close) = matching_brace(after) else {
                out.push_str(&rest[at..]);
                return;
            };
            let inner = &after[..close];
            let name = if inner.contains("${") && depth < MAX_NESTING {
                let mut n = String::new();
                self.expand_into(inner, &mut n, depth + 1);
                n
            } else {
                inner.to_string()
            };
            match self.get(&name) {
                Some(v) if out.len() + v.len() <= MAX_VALUE_CHARS => out.push_str(v),
                _ => {
                    out.push_str("${");
                    out.push_str(&name);
                    out.push('}');
                }
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
    }

    /// Expands arguments the way CMake does: unquoted ones are split on `;`
    /// (empty items dropped), quoted and bracket ones stay single, and
    /// nested parentheses are dropped.
    pub fn expand_args(&self, args: &[Arg]) -> Vec<String> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            match a.kind {
                ArgKind::Unquoted => {
                    let v = self.expand(&a.text);
                    split_list_into(&v, &mut out);
                }
                ArgKind::Quoted => out.push(unescape_semicolons(&self.expand(&a.text))),
                ArgKind::Bracket => out.push(a.text.clone()),
                ArgKind::Open | ArgKind::Close => {}
            }
        }
        out
    }
}

/// Index of the `}` closing a `${` whose content starts `s`.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'$' if b.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Splits a CMake list on unescaped `;`, dropping empty items.
pub fn split_list_into(v: &str, out: &mut Vec<String>) {
    if !v.contains(';') {
        if !v.is_empty() {
            out.push(v.to_string());
        }
        return;
    }
    let mut cur = String::new();
    let mut chars = v.chars().peekable();
    let mut brackets = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&';') => {
                cur.push(';');
                chars.next();
            }
            // `;` inside `[...]` does not split (CMake's rule for lists).
            '[' => {
                brackets += 1;
                cur.push(c);
            }
            ']' => {
                brackets = brackets.saturating_sub(1);
                cur.push(c);
            }
            ';' if brackets == 0 => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
}

pub fn split_list(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    split_list_into(v, &mut out);
    out
}

fn unescape_semicolons(s: &str) -> String {
    if s.contains("\\;") {
        s.replace("\\;", ";")
    } else {
        s.to_string()
    }
}

/// The symbolic value of a directory variable for `dir` (repo-relative).
pub fn dir_value(dir: &str) -> String {
    if dir.is_empty() {
        ROOT_VAR.to_string()
    } else {
        format!("{ROOT_VAR}/{dir}")
    }
}

/// Why a path written in a CMake file could not be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathError {
    /// It still uses variables we do not know statically.
    Unresolved,
    /// It points outside the repository.
    Outside,
}

/// Resolves an expanded path against `base` (a repo-relative directory).
pub fn resolve_path(base: &str, path: &str) -> Result<String, PathError> {
    let (base, rest) = match path.strip_prefix(ROOT_VAR) {
        Some(rest) => ("", rest),
        None => (base, path),
    };
    if rest.contains("${") || rest.contains("$<") || rest.contains("$ENV{") {
        return Err(PathError::Unresolved);
    }
    let bytes = rest.as_bytes();
    let absolute = rest.starts_with('/')
        || rest.starts_with('\\')
        || (bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic());
    if absolute && base.is_empty() && path.starts_with(ROOT_VAR) {
        // `${CMAKE_SOURCE_DIR}/x`: the slash joins, it is not absolute.
    } else if absolute {
        return Err(PathError::Outside);
    }
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for comp in rest.split(['/', '\\']) {
        match comp {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(PathError::Outside);
                }
            }
            c => parts.push(c),
        }
    }
    Ok(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_nested_and_unknown() {
        let mut v = Vars::new();
        v.set("A", "x".into());
        v.set("B_x", "deep".into());
        assert_eq!(v.expand("${A}-${B_${A}}-${C}"), "x-deep-${C}");
        assert_eq!(v.expand("${unclosed"), "${unclosed");
    }

    #[test]
    fn scopes_and_cache() {
        let mut v = Vars::new();
        v.set("A", "1".into());
        v.push_scope();
        v.set("A", "2".into());
        v.set_cache("A", "3".into());
        assert_eq!(v.get("A"), Some("2"));
        v.pop_scope();
        assert_eq!(v.get("A"), Some("1"));
    }

    #[test]
    fn list_split() {
        assert_eq!(split_list("a;b;;c\\;d"), ["a", "b", "c;d"]);
    }

    #[test]
    fn paths() {
        assert_eq!(resolve_path("sub", "../cmake"), Ok("cmake".into()));
        assert_eq!(
            resolve_path("sub", "${CMAKE_SOURCE_DIR}/cmake"),
            Ok("cmake".into())
        );
        assert_eq!(resolve_path("", "${CMAKE_SOURCE_DIR}"), Ok("".into()));
        assert_eq!(resolve_path("", "../x"), Err(PathError::Outside));
        assert_eq!(resolve_path("", "/usr/share"), Err(PathError::Outside));
        assert_eq!(resolve_path("", "${X}/a"), Err(PathError::Unresolved));
    }
}
