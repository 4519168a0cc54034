//! Where an existing `package.nix` says what an update changes: the
//! version literal, the `src` fetcher call and its attributes, the input
//! lists and the function's formals, each with its byte span so edits touch
//! only those bytes (the maintainer's layout and comments stay).

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// A `name = "literal";` inside the `src` call (or `inherit pname version;`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrcAttr {
    pub name: String,
    /// The string's text, `${…}` kept as written.
    pub value: String,
    /// The bytes between the quotes.
    pub span: Range<usize>,
}

/// The `src = fetchX { … };` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrcCall {
    /// `fetchFromGitHub`, `fetchPypi`, `fetchurl`, … (last path segment).
    pub fetcher: String,
    pub attrs: Vec<SrcAttr>,
    /// `inherit pname version;` inside the call.
    pub inherits: Vec<String>,
    /// The start of the `src = …` line, and the call's closing brace.
    pub line_start: usize,
    pub close: usize,
}

impl SrcCall {
    pub fn attr(&self, name: &str) -> Option<&SrcAttr> {
        self.attrs.iter().find(|a| a.name == name)
    }

    /// `hash`, else the older `sha256`.
    pub fn hash(&self) -> Option<&SrcAttr> {
        self.attr("hash").or_else(|| self.attr("sha256"))
    }
}

/// One input list: `buildInputs = [ zlib ];`, `dependencies = with
/// python3Packages; [ … ];`. Only the first bracket after `=` is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputList {
    pub attr: String,
    /// The identifiers listed (dotted paths whole).
    pub items: Vec<String>,
    /// The bytes between `[` and `]`.
    pub body: Range<usize>,
    /// The whole `attr = … ;` statement's first byte (its line start).
    pub line_start: usize,
}

/// What the update reads of a `package.nix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NixRecipe {
    /// The first `version = "…";` literal and its span (between the quotes).
    pub version: Option<(String, Range<usize>)>,
    pub pname: Option<String>,
    pub src: Option<SrcCall>,
    pub lists: Vec<InputList>,
    /// The function's `{ … }:` header, braces included; None when the file
    /// does not start with a formals set.
    pub formals: Option<Range<usize>>,
    /// `buildPythonPackage`/`buildPythonApplication`: called from the
    /// python3Packages scope.
    pub python: bool,
}

/// The input lists an update may add to or drop from.
pub const INPUT_LISTS: &[&str] = &[
    "nativeBuildInputs",
    "buildInputs",
    "propagatedBuildInputs",
    "build-system",
    "dependencies",
    "nativeCheckInputs",
    "checkInputs",
];

static VERSION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?m)^[ \t]*version\s*=\s*"([^"$\\]*)"\s*;"#).ok());
static PNAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?m)^[ \t]*pname\s*=\s*"([^"$\\]*)"\s*;"#).ok());
static SRC: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*src\s*=\s*(?:[A-Za-z_][\w.]*\.)?(fetch\w+)\s*\{").ok()
});
static STRING_ATTR: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"(?m)^[ \t]*([A-Za-z_][\w-]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*;"#).ok()
});
static INHERIT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*inherit\s+([\w\s]+);").ok());
static LIST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*([A-Za-z][\w-]*)\s*=\s*(?:with\s+[\w.]+\s*;\s*)?\[").ok()
});
static IDENT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][\w'-]*(\.[A-Za-z_][\w'-]*)*$").ok());

impl NixRecipe {
    pub fn read(text: &str) -> Self {
        let version = VERSION
            .as_ref()
            .and_then(|r| r.captures(text))
            .and_then(|c| {
                let m = c.get(1)?;
                Some((m.as_str().to_string(), m.range()))
            });
        let pname = PNAME
            .as_ref()
            .and_then(|r| r.captures(text))
            .map(|c| c[1].to_string());
        let lists = LIST
            .iter()
            .flat_map(|r| r.captures_iter(text))
            .filter(|c| INPUT_LISTS.contains(&&c[1]))
            .filter_map(|c| {
                let whole = c.get(0)?;
                let open = whole.end() - 1;
                let close = matching(text, open, b'[', b']')?;
                let body = open + 1..close;
                Some(InputList {
                    attr: c[1].to_string(),
                    items: list_items(&text[body.clone()]),
                    body,
                    // The pattern starts at the line's start.
                    line_start: whole.start(),
                })
            })
            .collect();
        Self {
            version,
            pname,
            src: src_call(text),
            lists,
            formals: formals(text),
            python: text.contains("buildPythonPackage") || text.contains("buildPythonApplication"),
        }
    }

    pub fn list(&self, attr: &str) -> Option<&InputList> {
        self.lists.iter().find(|l| l.attr == attr)
    }

    /// Whether any input list names `attr`.
    pub fn lists_item(&self, attr: &str) -> bool {
        self.lists.iter().any(|l| l.items.iter().any(|i| i == attr))
    }
}

/// The index of the bracket closing the one at `open`, skipping strings
/// and comments.
pub(crate) fn matching(text: &str, open: usize, l: u8, r: u8) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i + 1),
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            c if c == l => depth += 1,
            c if c == r => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of a plain string's closing quote, from just after its opening.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'"' {
        if b[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    i
}

fn is_ident(t: &str) -> bool {
    IDENT.as_ref().is_some_and(|r| r.is_match(t))
}

/// The identifiers of a list body, comments dropped; anything that is not
/// a plain (dotted) identifier is skipped.
fn list_items(body: &str) -> Vec<String> {
    body.lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .flat_map(str::split_whitespace)
        .filter(|t| is_ident(t))
        .map(str::to_string)
        .collect()
}

fn src_call(text: &str) -> Option<SrcCall> {
    let c = SRC.as_ref()?.captures(text)?;
    let whole = c.get(0)?;
    let open = whole.end() - 1;
    let close = matching(text, open, b'{', b'}')?;
    let body = &text[open + 1..close];
    let attrs = STRING_ATTR
        .iter()
        .flat_map(|r| r.captures_iter(body))
        .filter_map(|a| {
            let m = a.get(2)?;
            Some(SrcAttr {
                name: a[1].to_string(),
                value: m.as_str().to_string(),
                span: open + 1 + m.start()..open + 1 + m.end(),
            })
        })
        .collect();
    let inherits = INHERIT
        .iter()
        .flat_map(|r| r.captures_iter(body))
        .flat_map(|i| {
            i[1].split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    Some(SrcCall {
        fetcher: c[1].to_string(),
        attrs,
        inherits,
        line_start: whole.start(),
        close,
    })
}

/// The `{ … }:` the file opens with (after comments and blank lines).
fn formals(text: &str) -> Option<Range<usize>> {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            start += line.len();
            continue;
        }
        break;
    }
    let open = start + text[start..].find(|c: char| !c.is_whitespace())?;
    if text.as_bytes()[open] != b'{' {
        return None;
    }
    let close = matching(text, open, b'{', b'}')?;
    text[close + 1..]
        .trim_start()
        .starts_with(':')
        .then_some(open..close + 1)
}

/// The names a formals set binds (`lib`, `stdenv`, …; `...` left out).
pub fn formal_names(text: &str, formals: &Range<usize>) -> Vec<String> {
    let inner = &text[formals.start + 1..formals.end - 1];
    inner
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
        .split(',')
        .filter_map(|f| {
            let name = f.split('?').next()?.trim();
            is_ident(name).then(|| name.to_string())
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A CMake package in nixpkgs' idiom, shared by the update's tests.
    pub(crate) const CMAKE: &str = r#"{
  lib,
  stdenv,
  fetchFromGitHub,
  cmake,
  zlib,
}:

stdenv.mkDerivation (finalAttrs: {
  pname = "demo";
  version = "1.2.0";

  src = fetchFromGitHub {
    owner = "acme";
    repo = "demo";
    tag = "v${finalAttrs.version}";
    hash = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  };

  # the build tools
  nativeBuildInputs = [ cmake ];
  buildInputs = [
    zlib # compression
  ];

  meta.license = lib.licenses.mit;
})
"#;

    #[test]
    fn reads_version_src_lists_and_formals() {
        let r = NixRecipe::read(CMAKE);
        let (v, span) = r.version.clone().unwrap();
        assert_eq!(v, "1.2.0");
        assert_eq!(&CMAKE[span], "1.2.0");
        assert_eq!(r.pname.as_deref(), Some("demo"));
        let src = r.src.clone().unwrap();
        assert_eq!(src.fetcher, "fetchFromGitHub");
        assert_eq!(src.attr("tag").unwrap().value, "v${finalAttrs.version}");
        assert!(src.hash().unwrap().value.starts_with("sha256-"));
        assert_eq!(r.list("nativeBuildInputs").unwrap().items, ["cmake"]);
        assert_eq!(r.list("buildInputs").unwrap().items, ["zlib"]);
        let f = r.formals.clone().unwrap();
        assert_eq!(
            formal_names(CMAKE, &f),
            ["lib", "stdenv", "fetchFromGitHub", "cmake", "zlib"]
        );
        assert!(!r.python);
    }

    #[test]
    fn reads_a_python_recipe_with_inherit_and_with() {
        let text = r#"{ lib, buildPythonPackage, fetchPypi, hatchling, requests }:
buildPythonPackage rec {
  pname = "demo";
  version = "0.3";
  pyproject = true;
  src = fetchPypi {
    inherit pname version;
    sha256 = "0000000000000000000000000000000000000000000000000000";
  };
  build-system = [ hatchling ];
  dependencies = with lib; [ requests ];
}
"#;
        let r = NixRecipe::read(text);
        assert!(r.python);
        let src = r.src.clone().unwrap();
        assert_eq!(src.inherits, ["pname", "version"]);
        assert_eq!(src.hash().unwrap().name, "sha256");
        assert_eq!(r.list("dependencies").unwrap().items, ["requests"]);
        assert_eq!(
            formal_names(text, &r.formals.unwrap()),
            [
                "lib",
                "buildPythonPackage",
                "fetchPypi",
                "hatchling",
                "requests"
            ]
        );
    }

    #[test]
    fn an_interpolated_version_is_not_a_literal() {
        let r = NixRecipe::read("{ }: { version = \"${x}\"; }");
        assert!(r.version.is_none());
    }
}
