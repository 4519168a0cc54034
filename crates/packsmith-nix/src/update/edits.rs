//! The edits of an update, each on the bytes it concerns: the version
//! literal, the source's literal revision and hash, the hashes of vendored
//! dependencies, an input into (or out of) its list and the formals. A
//! nixpkgs expression holds one version, so the old one is replaced, and an
//! input the new version no longer asks for is removed.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::inputs::{InputChange, InputChangeKind};
use super::recipe::{formal_names, NixRecipe};
use crate::hash::FAKE_HASH_EXPR;

/// One edit that landed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NixEdit {
    pub why: String,
}

/// The text with `range` replaced by `with`.
fn splice(text: &str, range: Range<usize>, with: &str) -> String {
    format!("{}{with}{}", &text[..range.start], &text[range.end..])
}

/// `version = "OLD"` → `"NEW"`, and any literal `OLD` in the source's
/// `url`, `tag` or `rev` (a `${version}` there follows by itself).
pub fn set_version(text: &str, old: &str, new: &str, edits: &mut Vec<NixEdit>) -> String {
    let recipe = NixRecipe::read(text);
    let Some((_, span)) = recipe.version else {
        return text.to_string();
    };
    let mut out = splice(text, span, new);
    edits.push(NixEdit {
        why: format!("version {old} → {new}"),
    });
    for name in ["url", "tag", "rev"] {
        let recipe = NixRecipe::read(&out);
        let Some(attr) = recipe.src.as_ref().and_then(|s| s.attr(name)) else {
            continue;
        };
        if attr.value.contains(old) && !attr.value.contains("${") {
            let value = attr.value.replace(old, new);
            out = splice(&out, attr.span.clone(), &value);
            edits.push(NixEdit {
                why: format!("src {name}: {} → {value}", attr.value),
            });
        }
    }
    out
}

/// A 40-digit commit in `rev` becomes the new version's commit.
pub fn set_commit(text: &str, commit: &str, edits: &mut Vec<NixEdit>) -> String {
    let recipe = NixRecipe::read(text);
    let Some(rev) = recipe.src.as_ref().and_then(|s| s.attr("rev")) else {
        return text.to_string();
    };
    let is_commit = rev.value.len() == 40 && rev.value.chars().all(|c| c.is_ascii_hexdigit());
    if !is_commit || rev.value == commit {
        return text.to_string();
    }
    edits.push(NixEdit {
        why: format!("src rev: {} → {commit}", rev.value),
    });
    splice(text, rev.span.clone(), commit)
}

/// The source's `hash` (or older `sha256`, renamed to `hash` as nixpkgs
/// asks) set to `sri`, or to `lib.fakeHash` when None.
pub fn set_src_hash(text: &str, sri: Option<&str>, edits: &mut Vec<NixEdit>) -> String {
    let recipe = NixRecipe::read(text);
    let Some(attr) = recipe.src.as_ref().and_then(|s| s.hash()) else {
        return text.to_string();
    };
    let value = match sri {
        Some(h) => format!("\"{h}\""),
        None => FAKE_HASH_EXPR.to_string(),
    };
    // The whole `"…"` with its quotes, and the key before it.
    let quoted = attr.span.start - 1..attr.span.end + 1;
    let line_start = text[..quoted.start].rfind('\n').map_or(0, |i| i + 1);
    let key = &text[line_start..quoted.start];
    let new_key = key.replacen("sha256", "hash", 1);
    edits.push(NixEdit {
        why: format!(
            "src hash → {}",
            sri.unwrap_or("lib.fakeHash (the build computes it)")
        ),
    });
    let out = splice(text, line_start..quoted.end, &format!("{new_key}{value}"));
    if sri.is_some() {
        return out;
    }
    // `lib.fakeHash` needs `lib` bound, or the file does not even parse.
    add_formal(&out, "lib")
}

static VENDOR_HASH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)^[ \t]*(cargoHash|vendorHash|npmDepsHash|pnpmDepsHash|yarnHash|cargoSha256)\s*=\s*("[^"]*")\s*;"#,
    )
    .ok()
});

/// Hashes of the dependencies a language builder vendors change with the
/// version: each becomes `lib.fakeHash`, for the build to compute.
pub fn reset_vendor_hashes(text: &str, edits: &mut Vec<NixEdit>) -> String {
    let mut out = text.to_string();
    while let Some(c) = VENDOR_HASH.as_ref().and_then(|r| r.captures(&out)) {
        let (Some(name), Some(value)) = (c.get(1), c.get(2)) else {
            break;
        };
        edits.push(NixEdit {
            why: format!(
                "{} → lib.fakeHash (the vendored dependencies change with the version; \
                 the build computes it)",
                name.as_str()
            ),
        });
        out = splice(&out, value.range(), FAKE_HASH_EXPR);
    }
    if edits.iter().any(|e| e.why.contains("lib.fakeHash")) {
        out = add_formal(&out, "lib");
    }
    out
}

/// Adds or drops `change`'s input; None when it does not apply (already
/// there, or not there to drop).
pub fn apply_input(text: &str, change: &InputChange) -> Option<(String, NixEdit)> {
    let recipe = NixRecipe::read(text);
    match change.change {
        InputChangeKind::Added => {
            if recipe.lists_item(&change.attr) {
                return None;
            }
            let lists = change.role.lists();
            let (out, into) = match lists.iter().find_map(|l| recipe.list(l)) {
                Some(list) => (
                    insert_item(text, list.body.clone(), &change.attr),
                    list.attr.as_str(),
                ),
                None => (new_list(text, &recipe, lists[0], &change.attr)?, lists[0]),
            };
            let out = add_formal(&out, formal_of(&change.attr));
            let why = format!("{} added to {into}{}", change.attr, cited(change));
            Some((out, NixEdit { why }))
        }
        InputChangeKind::Dropped => {
            let list = change
                .role
                .lists()
                .iter()
                .find_map(|l| recipe.list(l).filter(|l| l.items.contains(&change.attr)))?;
            let attr_list = list.attr.clone();
            let out = remove_item(text, list.body.clone(), &change.attr);
            let out = drop_unused_formal(&out, formal_of(&change.attr));
            let why = format!(
                "{} dropped from {attr_list} (the new version no longer asks for it{})",
                change.attr,
                change
                    .evidence
                    .as_ref()
                    .map_or(String::new(), |e| format!("; it was {}:{}", e.file, e.line))
            );
            Some((out, NixEdit { why }))
        }
    }
}

fn cited(change: &InputChange) -> String {
    change
        .evidence
        .as_ref()
        .map_or(String::new(), |e| format!(" ({}:{})", e.file, e.line))
}

/// The formal an attribute needs: its first segment (`qt6.qtbase` → `qt6`).
fn formal_of(attr: &str) -> &str {
    attr.split('.').next().unwrap_or(attr)
}

/// `attr` appended to a list body: on its own line, indented as the
/// others, in a multi-line list; after the last item in a one-line list.
fn insert_item(text: &str, body: Range<usize>, attr: &str) -> String {
    let inner = &text[body.clone()];
    if let Some(last_nl) = inner.rfind('\n') {
        let closing_indent = &inner[last_nl + 1..];
        let item_indent = inner
            .lines()
            .skip(1)
            .find(|l| !l.trim().is_empty())
            .map(|l| &l[..l.len() - l.trim_start().len()])
            .map_or(format!("{closing_indent}  "), str::to_string);
        let at = body.start + last_nl + 1;
        return splice(text, at..at, &format!("{item_indent}{attr}\n"));
    }
    let trimmed = inner.trim();
    let with = if trimmed.is_empty() {
        format!(" {attr} ")
    } else {
        format!(" {trimmed} {attr} ")
    };
    splice(text, body, &with)
}

/// A new `list = [ attr ];` after the `src` statement (or the last input
/// list), indented as that statement.
fn new_list(text: &str, recipe: &NixRecipe, list: &str, attr: &str) -> Option<String> {
    let (start, end) = match recipe.lists.last() {
        Some(l) => (l.line_start, l.body.end),
        None => {
            let src = recipe.src.as_ref()?;
            (src.line_start, src.close)
        }
    };
    let indent: String = text[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let line_end = end + text[end..].find('\n')? + 1;
    Some(splice(
        text,
        line_end..line_end,
        &format!("\n{indent}{list} = [ {attr} ];\n"),
    ))
}

/// `attr` out of a list body: its whole line when it stands alone there
/// (a trailing comment goes with it), else the word.
fn remove_item(text: &str, body: Range<usize>, attr: &str) -> String {
    let inner = &text[body.clone()];
    let mut offset = body.start;
    for line in inner.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("").trim();
        if code == attr && line.ends_with('\n') {
            return splice(text, offset..offset + line.len(), "");
        }
        offset += line.len();
    }
    let word = Regex::new(&format!(r"(^|\s){}(\s|$)", regex::escape(attr))).ok();
    match word.and_then(|w| w.find(inner)) {
        Some(m) => {
            let s = &inner[m.range()];
            let keep = if s.starts_with(char::is_whitespace) && s.ends_with(char::is_whitespace) {
                " "
            } else {
                ""
            };
            splice(text, body.start + m.start()..body.start + m.end(), keep)
        }
        None => text.to_string(),
    }
}

/// `name` into the formals set when it is not there: a line of its own,
/// indented as the others, in a multi-line set; before `}` otherwise.
fn add_formal(text: &str, name: &str) -> String {
    let recipe = NixRecipe::read(text);
    let Some(formals) = recipe.formals else {
        return text.to_string();
    };
    if formal_names(text, &formals).iter().any(|f| f == name) {
        return text.to_string();
    }
    let inner = &text[formals.start + 1..formals.end - 1];
    if let Some(last_nl) = inner.rfind('\n') {
        let last = inner
            .lines()
            .rfind(|l| !l.trim().is_empty())
            .unwrap_or("  ");
        let indent = &last[..last.len() - last.trim_start().len()];
        // The older layout puts the comma first: `{ lib\n, stdenv\n}:`.
        let entry = if last.trim_start().starts_with(',') {
            format!("{indent}, {name}\n")
        } else {
            format!("{indent}{name},\n")
        };
        let at = formals.start + 1 + last_nl + 1;
        // `...` stays last.
        let at = match inner.find("...") {
            Some(dots) if dots > inner[..last_nl].rfind('\n').unwrap_or(0) => {
                formals.start + 1 + inner[..dots].rfind('\n').map_or(0, |i| i + 1)
            }
            _ => at,
        };
        return splice(text, at..at, &entry);
    }
    let trimmed = inner.trim().trim_end_matches(',');
    let with = if trimmed.is_empty() {
        format!(" {name} ")
    } else {
        format!(" {trimmed}, {name} ")
    };
    splice(text, formals.start + 1..formals.end - 1, &with)
}

/// `name` out of the formals when nothing else in the file names it.
pub(crate) fn drop_unused_formal(text: &str, name: &str) -> String {
    let recipe = NixRecipe::read(text);
    let Some(formals) = recipe.formals else {
        return text.to_string();
    };
    let Ok(word) = Regex::new(&format!(r"(^|[^\w.'-]){}([^\w'-]|$)", regex::escape(name))) else {
        return text.to_string();
    };
    if word.is_match(&text[formals.end..]) {
        return text.to_string();
    }
    let inner = &text[formals.start + 1..formals.end - 1];
    let mut offset = formals.start + 1;
    for line in inner.split_inclusive('\n') {
        let code = line
            .split('#')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(',');
        if code.trim() == name && line.ends_with('\n') {
            return splice(text, offset..offset + line.len(), "");
        }
        offset += line.len();
    }
    if inner.contains('\n') {
        // A formal sharing its line with others: left for the maintainer.
        return text.to_string();
    }
    // One line: written again without it, `...` kept last.
    let mut kept: Vec<String> = inner
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty() && f.split('?').next().map(str::trim) != Some(name))
        .map(str::to_string)
        .collect();
    if let Some(dots) = kept.iter().position(|f| f == "...") {
        let d = kept.remove(dots);
        kept.push(d);
    }
    splice(
        text,
        formals.start + 1..formals.end - 1,
        &format!(" {} ", kept.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::super::inputs::Role;
    use super::*;
    use packsmith_core::Evidence;

    /// The shared fixture with `bzip2` listed and the older `sha256` key.
    fn cmake() -> String {
        super::super::recipe::tests::CMAKE
            .replace("zlib", "bzip2")
            .replace(
                "hash = \"sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"",
                "sha256 = \"0000000000000000000000000000000000000000000000000000\"",
            )
    }

    fn change(attr: &str, role: Role, kind: InputChangeKind) -> InputChange {
        InputChange {
            role,
            change: kind,
            attr: attr.into(),
            evidence: Some(Evidence::new("CMakeLists.txt", 7)),
        }
    }

    #[test]
    fn version_and_hash_change_only_their_bytes() {
        let mut edits = Vec::new();
        let out = set_version(&cmake(), "1.2.0", "1.3.0", &mut edits);
        let out = set_src_hash(&out, Some("sha256-BBBB="), &mut edits);
        assert!(out.contains("version = \"1.3.0\";"));
        assert!(out.contains("    hash = \"sha256-BBBB=\";\n"), "{out}");
        assert!(!out.contains("sha256 ="));
        // The interpolated tag follows by itself.
        assert!(out.contains("tag = \"v${finalAttrs.version}\";"));
        assert_eq!(cmake().lines().count(), out.lines().count());
        assert_eq!(edits.len(), 2);
        let fake = set_src_hash(&out, None, &mut edits);
        assert!(fake.contains("hash = lib.fakeHash;"), "{fake}");
    }

    #[test]
    fn a_literal_version_in_the_url_follows() {
        let text = "{ fetchurl }:\n{\n  version = \"2.1\";\n  src = fetchurl {\n    url = \"https://x.org/demo-2.1.tar.gz\";\n    hash = \"sha256-A=\";\n  };\n}\n";
        let mut edits = Vec::new();
        let out = set_version(text, "2.1", "2.2", &mut edits);
        assert!(
            out.contains("url = \"https://x.org/demo-2.2.tar.gz\";"),
            "{out}"
        );
        assert_eq!(edits.len(), 2);
    }

    #[test]
    fn an_input_is_added_to_its_list_and_the_formals() {
        let (out, edit) = apply_input(
            &cmake(),
            &change("zlib", Role::Build, InputChangeKind::Added),
        )
        .unwrap();
        assert!(
            out.contains("  buildInputs = [\n    bzip2 # compression\n    zlib\n  ];"),
            "{out}"
        );
        assert!(out.contains("  bzip2,\n  zlib,\n}:"), "{out}");
        assert!(edit.why.contains("buildInputs"), "{}", edit.why);
        assert!(edit.why.contains("CMakeLists.txt:7"), "{}", edit.why);
        // A one-line list grows in place.
        let (out, _) = apply_input(
            &out,
            &change("pkg-config", Role::Native, InputChangeKind::Added),
        )
        .unwrap();
        assert!(
            out.contains("nativeBuildInputs = [ cmake pkg-config ];"),
            "{out}"
        );
        // Already listed: nothing to do.
        assert!(apply_input(&out, &change("zlib", Role::Build, InputChangeKind::Added)).is_none());
    }

    #[test]
    fn a_missing_list_is_written_after_the_last_one() {
        let text = cmake().replace("  buildInputs = [\n    bzip2 # compression\n  ];\n", "");
        let (out, _) =
            apply_input(&text, &change("zlib", Role::Build, InputChangeKind::Added)).unwrap();
        assert!(
            out.contains("nativeBuildInputs = [ cmake ];\n\n  buildInputs = [ zlib ];\n"),
            "{out}"
        );
    }

    #[test]
    fn a_dropped_input_leaves_its_list_and_the_formals() {
        let (out, edit) = apply_input(
            &cmake(),
            &change("bzip2", Role::Build, InputChangeKind::Dropped),
        )
        .unwrap();
        assert!(out.contains("  buildInputs = [\n  ];"), "{out}");
        assert!(!out.contains("bzip2"), "{out}");
        assert!(edit.why.contains("dropped from buildInputs"));
        // Not listed: nothing to drop.
        assert!(apply_input(
            &cmake(),
            &change("gmp", Role::Build, InputChangeKind::Dropped)
        )
        .is_none());
    }

    #[test]
    fn one_line_formals_and_a_formal_still_used_elsewhere() {
        let text = "{ lib, stdenv, zlib }:\nstdenv.mkDerivation {\n  buildInputs = [ zlib ];\n  passthru.z = zlib;\n}\n";
        let (out, _) =
            apply_input(text, &change("zlib", Role::Build, InputChangeKind::Dropped)).unwrap();
        // Still named by passthru: the formal stays.
        assert!(out.starts_with("{ lib, stdenv, zlib }:"), "{out}");
        assert!(out.contains("buildInputs = [ ];"), "{out}");
        let (out, _) = apply_input(
            "{ lib, stdenv }:\nstdenv.mkDerivation {\n  buildInputs = [ ];\n}\n",
            &change("gmp", Role::Build, InputChangeKind::Added),
        )
        .unwrap();
        assert!(out.starts_with("{ lib, stdenv, gmp }:"), "{out}");
        let unused = drop_unused_formal(&out.replace("[ gmp ]", "[ ]"), "gmp");
        assert!(unused.starts_with("{ lib, stdenv }:"), "{unused}");
    }

    #[test]
    fn comma_first_formals_keep_their_layout() {
        let text = "{ lib\n, buildPythonPackage\n, six\n}:\nbuildPythonPackage {\n  dependencies = [\n    six\n  ];\n}\n";
        let (out, _) = apply_input(
            text,
            &change("astroid", Role::PythonRuntime, InputChangeKind::Added),
        )
        .unwrap();
        assert!(
            out.starts_with("{ lib\n, buildPythonPackage\n, six\n, astroid\n}:"),
            "{out}"
        );
        let (out, _) = apply_input(
            &out,
            &change("six", Role::PythonRuntime, InputChangeKind::Dropped),
        )
        .unwrap();
        assert!(
            out.starts_with("{ lib\n, buildPythonPackage\n, astroid\n}:"),
            "{out}"
        );
        assert!(
            out.contains("  dependencies = [\n    astroid\n  ];"),
            "{out}"
        );
    }

    #[test]
    fn vendored_dependency_hashes_are_reset() {
        let text = "{\n  cargoHash = \"sha256-C=\";\n  vendorHash = null;\n}\n";
        let mut edits = Vec::new();
        let out = reset_vendor_hashes(text, &mut edits);
        assert!(out.contains("cargoHash = lib.fakeHash;"), "{out}");
        assert!(out.contains("vendorHash = null;"));
        assert_eq!(edits.len(), 1);
    }
}
