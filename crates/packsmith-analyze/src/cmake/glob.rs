//! `file(GLOB|GLOB_RECURSE …)` evaluated against the walked tree, so a
//! loop over its result (`foreach(d ${dirs}) add_subdirectory(${d})`)
//! can be followed. Only the index of the walk is consulted: no `stat`,
//! no directory read.

use super::vars::{resolve_path, ROOT_VAR};
use crate::view::RepoView;

/// Most paths one `file(GLOB)` may give; a larger result (a list of
/// sources, not of directories) is left unknown.
pub const MAX_MATCHES: usize = 256;

/// What a `file(GLOB …)` call asks for, its arguments already expanded.
#[derive(Debug, PartialEq, Eq)]
pub struct GlobCall<'a> {
    pub out: &'a str,
    pub recurse: bool,
    pub list_dirs: bool,
    pub relative: Option<&'a str>,
    pub patterns: Vec<&'a str>,
}

/// Reads `file(GLOB|GLOB_RECURSE <out> [LIST_DIRECTORIES b] [RELATIVE p]
/// [CONFIGURE_DEPENDS] [FOLLOW_SYMLINKS] <globs>…)`; None for any other
/// `file()` form.
pub fn parse(args: &[String]) -> Option<GlobCall<'_>> {
    let recurse = match args.first()?.as_str() {
        "GLOB" => false,
        "GLOB_RECURSE" => true,
        _ => return None,
    };
    let out = args.get(1)?;
    let mut call = GlobCall {
        out,
        recurse,
        // CMake lists directories for GLOB, not for GLOB_RECURSE.
        list_dirs: !recurse,
        relative: None,
        patterns: Vec::new(),
    };
    let mut rest = args[2..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "LIST_DIRECTORIES" => {
                call.list_dirs = rest.next().is_some_and(|v| is_true(v));
            }
            "RELATIVE" => call.relative = rest.next().map(String::as_str),
            "CONFIGURE_DEPENDS" | "FOLLOW_SYMLINKS" => {}
            p => call.patterns.push(p),
        }
    }
    Some(call)
}

fn is_true(v: &str) -> bool {
    matches!(
        v.to_ascii_uppercase().as_str(),
        "1" | "ON" | "YES" | "TRUE" | "Y"
    )
}

/// The value CMake would give `call.out`, evaluated on the tree from the
/// directory `base`; None when a pattern or the RELATIVE path is not known
/// statically, leaves the repository, or matches more than
/// [`MAX_MATCHES`] paths. `budget` counts the indexed paths looked at over
/// the whole walk; an exhausted budget gives None.
pub fn evaluate(
    view: &RepoView,
    base: &str,
    call: &GlobCall<'_>,
    budget: &mut usize,
) -> Option<Vec<String>> {
    let relative = match call.relative {
        Some(r) => Some(resolve_path(base, r).ok()?),
        None => None,
    };
    let mut out = Vec::new();
    for pattern in &call.patterns {
        let mut matches = Vec::new();
        match split_pattern(base, pattern)? {
            Pattern::Literal(path) => {
                if view.exists(&path) || (call.list_dirs && view.is_dir(&path)) {
                    matches.push(path);
                }
            }
            Pattern::Wild(dir, parts) => {
                let files = under(view.files(), &dir);
                collect(files, &dir, &parts, call.recurse, budget, &mut matches)?;
                if call.list_dirs {
                    let dirs = under(view.dirs(), &dir);
                    collect(dirs, &dir, &parts, call.recurse, budget, &mut matches)?;
                }
            }
        }
        matches.sort_unstable();
        out.extend(matches.iter().map(|m| written(m, relative.as_deref())));
        if out.len() > MAX_MATCHES {
            return None;
        }
    }
    Some(out)
}

/// A glob pattern resolved against the tree.
enum Pattern<'p> {
    /// No wildcard: the path itself, repository-relative.
    Literal(String),
    /// The literal directory (repository-relative) and the components
    /// from the first one with a wildcard on.
    Wild(String, Vec<&'p str>),
}

/// Splits a pattern at its first wildcard component; None when it is not
/// known statically or leaves the repository.
fn split_pattern<'p>(base: &str, pattern: &'p str) -> Option<Pattern<'p>> {
    let comps: Vec<&str> = pattern.split('/').collect();
    let Some(first_wild) = comps.iter().position(|c| has_wildcard(c)) else {
        return Some(Pattern::Literal(resolve_path(base, pattern).ok()?));
    };
    let literal = comps[..first_wild].join("/");
    let dir = if literal.is_empty() && pattern.starts_with('/') {
        return None; // an absolute path outside the tree
    } else if literal.is_empty() {
        base.to_string()
    } else {
        resolve_path(base, &literal).ok()?
    };
    let parts = comps[first_wild..].to_vec();
    if parts.iter().any(|p| p.contains("${") || p.is_empty()) {
        return None;
    }
    Some(Pattern::Wild(dir, parts))
}

fn has_wildcard(component: &str) -> bool {
    component.contains(['*', '?', '['])
}

/// Indexed paths below `dir`, from the sorted index.
fn under<'a, S: AsRef<str>>(sorted: &'a [S], dir: &str) -> impl Iterator<Item = &'a str> + 'a {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let start = sorted.partition_point(|p| p.as_ref() < prefix.as_str());
    sorted[start..]
        .iter()
        .map(AsRef::as_ref)
        .take_while(move |p| p.starts_with(&prefix))
}

/// Adds the paths below `dir` that match `parts` to `matches`; None when
/// the budget runs out or there are too many matches.
fn collect<'a>(
    paths: impl Iterator<Item = &'a str>,
    dir: &str,
    parts: &[&str],
    recurse: bool,
    budget: &mut usize,
    matches: &mut Vec<String>,
) -> Option<()> {
    let skip = if dir.is_empty() { 0 } else { dir.len() + 1 };
    for path in paths {
        *budget = budget.checked_sub(1)?;
        if matches_parts(&path[skip..], parts, recurse) {
            matches.push(path.to_string());
            if matches.len() > MAX_MATCHES {
                return None;
            }
        }
    }
    Some(())
}

/// Whether a path below the pattern's directory matches its components:
/// one component each, or for GLOB_RECURSE any directories between the
/// leading components and the last one.
fn matches_parts(rest: &str, parts: &[&str], recurse: bool) -> bool {
    let Some((last_pat, lead_pats)) = parts.split_last() else {
        return false;
    };
    let (lead, last) = match rest.rsplit_once('/') {
        Some((lead, last)) => (Some(lead), last),
        None => (None, rest),
    };
    // The name first: most paths fail there, before any split.
    if !wildcard_match(last_pat.as_bytes(), last.as_bytes()) {
        return false;
    }
    let lead: Vec<&str> = lead.map(|l| l.split('/').collect()).unwrap_or_default();
    let depth_ok = if recurse {
        lead.len() >= lead_pats.len()
    } else {
        lead.len() == lead_pats.len()
    };
    depth_ok
        && lead_pats
            .iter()
            .zip(&lead)
            .all(|(p, c)| wildcard_match(p.as_bytes(), c.as_bytes()))
}

/// Matches one path component against a glob: `*`, `?` and `[…]`
/// (`[!…]` or `[^…]` negated, `a-z` ranges).
fn wildcard_match(pat: &[u8], s: &[u8]) -> bool {
    match pat.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| wildcard_match(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && wildcard_match(rest, &s[1..]),
        Some((b'[', rest)) => match (class_end(rest), s.split_first()) {
            (Some(end), Some((c, s_rest))) => {
                in_class(&rest[..end], *c) && wildcard_match(&rest[end + 1..], s_rest)
            }
            (Some(_), None) => false,
            // An unclosed `[` is a literal.
            (None, _) => s.first() == Some(&b'[') && wildcard_match(rest, &s[1..]),
        },
        Some((p, rest)) => s.first() == Some(p) && wildcard_match(rest, &s[1..]),
    }
}

/// Index of the `]` closing a class whose body starts `rest`.
fn class_end(rest: &[u8]) -> Option<usize> {
    let from = usize::from(matches!(rest.first(), Some(b'!' | b'^')));
    // A `]` right after the opening (or its negation) is a member.
    let from = from + usize::from(rest.get(from) == Some(&b']'));
    rest[from..]
        .iter()
        .position(|&b| b == b']')
        .map(|i| i + from)
}

fn in_class(class: &[u8], c: u8) -> bool {
    let (negated, body) = match class.split_first() {
        Some((b'!' | b'^', body)) => (true, body),
        _ => (false, class),
    };
    let mut found = false;
    let mut i = 0;
    while i < body.len() {
        if body.get(i + 1) == Some(&b'-') && i + 2 < body.len() {
            found |= (body[i]..=body[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= body[i] == c;
            i += 1;
        }
    }
    found != negated
}

/// A match as CMake writes it: relative to the RELATIVE directory when it
/// lies below it, else an absolute (symbolic) path.
fn written(path: &str, relative: Option<&str>) -> String {
    match relative {
        Some("") => path.to_string(),
        Some(r) => match path.strip_prefix(r).and_then(|p| p.strip_prefix('/')) {
            Some(p) => p.to_string(),
            None => format!("{ROOT_VAR}/{path}"),
        },
        None => format!("{ROOT_VAR}/{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_one_component() {
        assert!(wildcard_match(b"*.cmake", b"Foo.cmake"));
        assert!(!wildcard_match(b"*.cmake", b"Foo.txt"));
        assert!(wildcard_match(b"mod?", b"mod1"));
        assert!(wildcard_match(b"[a-c]x", b"bx"));
        assert!(!wildcard_match(b"[!a-c]x", b"bx"));
        assert!(wildcard_match(b"*", b""));
    }

    #[test]
    fn recursion_allows_directories_between() {
        assert!(matches_parts("a/b/vtk.module", &["vtk.module"], true));
        assert!(!matches_parts("a/b/vtk.module", &["vtk.module"], false));
        assert!(matches_parts("lib/x.c", &["*", "*.c"], false));
        assert!(!matches_parts("x.c", &["*", "*.c"], false));
    }

    #[test]
    fn the_form_is_read() {
        let args: Vec<String> = [
            "GLOB",
            "d",
            "LIST_DIRECTORIES",
            "true",
            "RELATIVE",
            "r",
            "p/*",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let call = parse(&args).unwrap();
        assert_eq!(call.relative, Some("r"));
        assert!(call.list_dirs && !call.recurse);
        assert_eq!(call.patterns, ["p/*"]);
        assert!(parse(&["READ".to_string(), "f".to_string()]).is_none());
    }

    #[test]
    fn relative_results_drop_the_directory() {
        assert_eq!(written("src/a", Some("src")), "a");
        assert_eq!(
            written("other/a", Some("src")),
            "${CMAKE_SOURCE_DIR}/other/a"
        );
        assert_eq!(written("a", None), "${CMAKE_SOURCE_DIR}/a");
    }
}
