//! What a package expression says, as far as comparing two of them needs:
//! the builder, the fetcher, the inputs by role, the option names its flags
//! set, and the `meta` fields it fills. Read from tokens, not evaluated: a
//! value computed by a function the reader does not know is simply absent.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::lexer::{tokens, Tok};

/// Which builder family an expression uses, and for `mkDerivation` the
/// build system its native inputs bring (cmake, meson, autotools or none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuilderKind {
    /// `stdenv`, `python`, `rust`, `go`, `npm`, or the call's own name.
    pub family: String,
    /// For `stdenv`: `cmake`, `meson`, `autotools` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_system: Option<String>,
}

impl std::fmt::Display for BuilderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.build_system {
            Some(b) => write!(f, "{}+{b}", self.family),
            None => f.write_str(&self.family),
        }
    }
}

/// The comparable content of one expression.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExprFacts {
    pub builder: Option<BuilderKind>,
    pub fetcher: Option<String>,
    /// Build-time tools and hooks: `nativeBuildInputs`, `build-system`.
    pub native: BTreeSet<String>,
    /// What is linked or imported: `buildInputs`, `propagatedBuildInputs`,
    /// `dependencies`.
    pub build: BTreeSet<String>,
    /// `nativeCheckInputs`, `checkInputs`.
    pub check: BTreeSet<String>,
    /// Option names set by `cmakeFlags`, `mesonFlags`, `configureFlags`
    /// (lower-case, `-` as `_`).
    pub flags: BTreeSet<String>,
    /// Fields set in `meta`.
    pub meta: BTreeSet<String>,
    /// License names (`lib.licenses.mit` → `mit`).
    pub licenses: BTreeSet<String>,
}

const NATIVE_ATTRS: &[&str] = &["nativeBuildInputs", "build-system"];
const BUILD_ATTRS: &[&str] = &["buildInputs", "propagatedBuildInputs", "dependencies"];
const CHECK_ATTRS: &[&str] = &["nativeCheckInputs", "checkInputs"];
const FLAG_ATTRS: &[&str] = &["cmakeFlags", "mesonFlags", "configureFlags"];
const KEYWORDS: &[&str] = &[
    "with", "let", "in", "if", "then", "else", "inherit", "rec", "assert", "or",
];

/// Builder calls by the end of their name, and their family.
const BUILDERS: &[(&str, &str)] = &[
    ("mkDerivation", "stdenv"),
    ("buildPythonPackage", "python"),
    ("buildPythonApplication", "python"),
    ("buildRustPackage", "rust"),
    ("buildGoModule", "go"),
    ("buildNpmPackage", "npm"),
    ("buildDunePackage", "ocaml"),
    ("buildDotnetModule", "dotnet"),
    ("buildGradleApplication", "gradle"),
    ("mkYarnPackage", "yarn"),
];

/// Native inputs that say which build system a `mkDerivation` uses, in
/// the order they decide (meson brings ninja, not the other way round).
const BUILD_SYSTEM_TOOLS: &[(&str, &str)] = &[
    ("meson", "meson"),
    ("cmake", "cmake"),
    ("autoreconfHook", "autotools"),
    ("autoconf", "autotools"),
];

/// The last path component: `python3Packages.setuptools` → `setuptools`.
fn leaf(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// Where each attribute is first bound (`name =`, at any depth): one pass
/// over the tokens instead of one per attribute looked up, which a
/// 7 MB hostile expression made slow (found by packsmith-fuzz).
fn first_bindings(toks: &[Tok]) -> HashMap<&str, usize> {
    let mut at = HashMap::new();
    for (i, w) in toks.windows(2).enumerate() {
        if let (Tok::Ident(n), Tok::Eq) = (&w[0], &w[1]) {
            at.entry(n.as_str()).or_insert(i + 2);
        }
    }
    at
}

/// The tokens of the first binding `name = …;` (at any depth), up to its `;`.
fn binding<'t>(toks: &'t [Tok], name: &str) -> Option<&'t [Tok]> {
    let at = toks
        .windows(2)
        .position(|w| matches!(&w[0], Tok::Ident(n) if n == name) && w[1] == Tok::Eq)?;
    value_from(toks, at + 2)
}

/// [`binding`] through the index of [`first_bindings`].
fn indexed<'t>(toks: &'t [Tok], index: &HashMap<&str, usize>, name: &str) -> Option<&'t [Tok]> {
    value_from(toks, *index.get(name)?)
}

/// The value that starts at `start`, up to its `;` (or the closing bracket
/// of the enclosing scope).
fn value_from(toks: &[Tok], start: usize) -> Option<&[Tok]> {
    let mut depth = 0i32;
    // `with ps;` and `assert c;` inside the value end at their own `;`.
    let mut scoped = 0usize;
    for (i, t) in toks[start..].iter().enumerate() {
        match t {
            Tok::Ident(k) if depth == 0 && (k == "with" || k == "assert") => scoped += 1,
            Tok::Semi if depth == 0 && scoped > 0 => scoped -= 1,
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => {
                depth -= 1;
                if depth < 0 {
                    return Some(&toks[start..start + i]);
                }
            }
            Tok::Semi if depth == 0 => return Some(&toks[start..start + i]),
            _ => {}
        }
    }
    Some(&toks[start..])
}

/// Platforms whose test is false where the drafts build (x86_64-linux).
const OTHER_PLATFORMS: &[&str] = &["isDarwin", "isWindows", "isFreeBSD", "isCygwin", "isMinGW"];

/// The plain elements of every list in a value: identifiers directly inside
/// `[ ]` (so `lib.optionals cond [ x ]` gives x, and `with ps; [ a b ]` gives
/// a and b); parenthesised elements are calls whose result is unknown. A
/// list behind `lib.optionals stdenv.hostPlatform.isDarwin` is left out:
/// the comparison is for Linux, where the drafts are built.
fn list_elements(value: &[Tok]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    // The stack of open brackets; an element counts when the innermost is `[`.
    let mut stack: Vec<char> = Vec::new();
    // The depth of a list being skipped, once its `[` is open.
    let mut skipping: Option<usize> = None;
    for (i, t) in value.iter().enumerate() {
        match t {
            Tok::Open(c) => {
                stack.push(*c);
                if skipping.is_none() && *c == '[' && other_platform_list(value, i) {
                    skipping = Some(stack.len());
                }
            }
            Tok::Close(_) => {
                if skipping == Some(stack.len()) {
                    skipping = None;
                }
                stack.pop();
            }
            Tok::Ident(name)
                if skipping.is_none()
                    && stack.last() == Some(&'[')
                    && !KEYWORDS.contains(&name.as_str()) =>
            {
                out.insert(leaf(name).to_string());
            }
            _ => {}
        }
    }
    out
}

/// Whether the `[` at `at` is the list of `optionals <platform test>` for a
/// platform other than Linux (a single test; compound ones are kept).
fn other_platform_list(value: &[Tok], at: usize) -> bool {
    let (Some(Tok::Ident(test)), Some(Tok::Ident(call))) = (
        at.checked_sub(1).and_then(|i| value.get(i)),
        at.checked_sub(2).and_then(|i| value.get(i)),
    ) else {
        return false;
    };
    leaf(call) == "optionals" && OTHER_PLATFORMS.contains(&leaf(test))
}

fn flag_key(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('-', "_")
}

/// The option a literal flag sets: `-DFOO=ON`, `-DFOO:BOOL=ON`, `-Dfoo=x`,
/// `--enable-foo`, `--without-foo`, `--foo=bar`.
fn literal_flag(text: &str) -> Option<String> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix("-D") {
        let name = rest.split(['=', ':']).next()?;
        return (!name.is_empty()).then(|| flag_key(name));
    }
    let rest = t.strip_prefix("--")?;
    let rest = rest.split('=').next()?;
    let name = ["enable-", "disable-", "with-", "without-"]
        .iter()
        .find_map(|p| rest.strip_prefix(p))
        .unwrap_or(rest);
    (!name.is_empty()).then(|| flag_key(name))
}

/// nixpkgs' flag helpers and which of their string arguments is the name.
fn helper_name_position(function: &str) -> Option<usize> {
    match leaf(function) {
        "cmakeBool" | "cmakeFeature" | "mesonBool" | "mesonEnable" | "mesonOption"
        | "enableFeature" | "enableFeatureAs" | "withFeature" | "withFeatureAs" => Some(0),
        "cmakeOptionType" => Some(1),
        _ => None,
    }
}

fn flags_of(value: &[Tok]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut i = 0;
    while i < value.len() {
        match &value[i] {
            Tok::Ident(f) => {
                if let Some(pos) = helper_name_position(f) {
                    // The name is the pos-th string among the next few tokens.
                    let name = value[i + 1..]
                        .iter()
                        .take(8)
                        .filter_map(|t| match t {
                            Tok::Str(s) => Some(s),
                            _ => None,
                        })
                        .nth(pos);
                    if let Some(n) = name {
                        out.insert(flag_key(n));
                    }
                }
            }
            Tok::Str(s) => {
                if let Some(k) = literal_flag(s) {
                    out.insert(k);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The attribute names directly inside the value's first `{ }`.
fn record_fields(value: &[Tok]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(open) = value.iter().position(|t| *t == Tok::Open('{')) else {
        return out;
    };
    let mut depth = 0i32;
    for (i, t) in value[open..].iter().enumerate() {
        match t {
            Tok::Open(_) => depth += 1,
            Tok::Close(_) => depth -= 1,
            Tok::Ident(name) if depth == 1 && value.get(open + i + 1) == Some(&Tok::Eq) => {
                out.insert(name.clone());
            }
            _ => {}
        }
    }
    out
}

fn builder_of(toks: &[Tok], native: &BTreeSet<String>) -> Option<BuilderKind> {
    // One pass: the call (`buildPythonPackage rec {`, `mkDerivation
    // (finalAttrs: {`) wins over the same name among the function's
    // arguments, which is the fallback.
    let mut first: Option<&str> = None;
    let mut called: Option<&str> = None;
    for (i, t) in toks.iter().enumerate() {
        let Tok::Ident(name) = t else { continue };
        let l = leaf(name);
        let Some(family) = BUILDERS
            .iter()
            .find(|(suffix, _)| l == *suffix)
            .map(|(_, f)| *f)
        else {
            continue;
        };
        first.get_or_insert(family);
        let call = match toks.get(i + 1) {
            Some(Tok::Open('(')) | Some(Tok::Open('{')) => true,
            Some(Tok::Ident(r)) => r == "rec",
            _ => false,
        };
        if call {
            called = Some(family);
            break;
        }
    }
    let family = called.or(first)?.to_string();
    let build_system = (family == "stdenv").then(|| {
        BUILD_SYSTEM_TOOLS
            .iter()
            .find(|(tool, _)| native.contains(*tool))
            .map_or("none", |(_, system)| system)
            .to_string()
    });
    Some(BuilderKind {
        family,
        build_system,
    })
}

fn fetcher_of(toks: &[Tok], index: &HashMap<&str, usize>) -> Option<String> {
    let src = indexed(toks, index, "src")?;
    src.iter().find_map(|t| match t {
        Tok::Ident(name) if leaf(name).starts_with("fetch") => Some(leaf(name).to_string()),
        _ => None,
    })
}

fn union_of(toks: &[Tok], index: &HashMap<&str, usize>, attrs: &[&str]) -> BTreeSet<String> {
    attrs
        .iter()
        .filter_map(|a| indexed(toks, index, a))
        .flat_map(list_elements)
        .collect()
}

/// Reads the comparable content of a package expression.
pub fn read_expr(text: &str) -> ExprFacts {
    let toks = tokens(text);
    let index = first_bindings(&toks);
    let native = union_of(&toks, &index, NATIVE_ATTRS);
    let meta_value = indexed(&toks, &index, "meta").unwrap_or_default();
    let mut meta = record_fields(meta_value);
    // `meta.description = …;` sets one field without a record.
    meta.extend(
        index
            .keys()
            .filter_map(|n| n.strip_prefix("meta.").map(str::to_string)),
    );
    let licenses = binding(meta_value, "license")
        .or_else(|| indexed(&toks, &index, "meta.license"))
        .map(|v| {
            v.iter()
                .filter_map(|t| match t {
                    Tok::Ident(n) if n.contains("licenses.") || !n.contains('.') => {
                        Some(leaf(n).to_string())
                    }
                    _ => None,
                })
                .filter(|n| !KEYWORDS.contains(&n.as_str()) && n != "lib" && n != "licenses")
                .collect()
        })
        .unwrap_or_default();
    ExprFacts {
        builder: builder_of(&toks, &native),
        fetcher: fetcher_of(&toks, &index),
        build: union_of(&toks, &index, BUILD_ATTRS),
        check: union_of(&toks, &index, CHECK_ATTRS),
        flags: FLAG_ATTRS
            .iter()
            .filter_map(|a| indexed(&toks, &index, a))
            .flat_map(flags_of)
            .collect(),
        meta,
        licenses,
        native,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    /// An expression in nixpkgs' shape, written for this test.
    const CMAKE_PKG: &str = r#"
{ lib, stdenv, fetchFromGitHub, cmake, ninja, pkg-config, zlib, hdf5, gtest, mpi, withMpi ? false }:

stdenv.mkDerivation (finalAttrs: {
  pname = "quillo";
  version = "2.1.0";

  src = fetchFromGitHub {
    owner = "example";
    repo = "quillo";
    tag = "v${finalAttrs.version}";
    hash = "sha256-AAAA";
  };

  nativeBuildInputs = [ cmake ninja pkg-config ];
  buildInputs = [ zlib hdf5 ] ++ lib.optionals withMpi [ mpi ]
    ++ lib.optionals stdenv.hostPlatform.isDarwin [ darwin.sigtool ]
    ++ lib.optionals stdenv.hostPlatform.isLinux [ alsa-lib ];
  nativeCheckInputs = [ gtest ];

  cmakeFlags = [
    (lib.cmakeBool "QUILLO_BUILD_TESTS" finalAttrs.doCheck)
    (lib.cmakeFeature "QUILLO_BACKEND" "hdf5")
    "-DQUILLO_USE_MPI:BOOL=${if withMpi then "ON" else "OFF"}"
  ];

  doCheck = true;

  meta = {
    description = "Reads quill files";
    homepage = "https://example.org/quillo";
    license = lib.licenses.bsd3;
    mainProgram = "quillo";
    platforms = lib.platforms.unix;
  };
})
"#;

    #[test]
    fn a_cmake_derivation() {
        let f = read_expr(CMAKE_PKG);
        assert_eq!(
            f.builder.as_ref().map(ToString::to_string).as_deref(),
            Some("stdenv+cmake")
        );
        assert_eq!(f.fetcher.as_deref(), Some("fetchFromGitHub"));
        assert_eq!(f.native, set(&["cmake", "ninja", "pkg-config"]));
        // Darwin's list is not Linux's: left out.
        assert_eq!(f.build, set(&["alsa-lib", "hdf5", "mpi", "zlib"]));
        assert_eq!(f.check, set(&["gtest"]));
        assert_eq!(
            f.flags,
            set(&["quillo_backend", "quillo_build_tests", "quillo_use_mpi"])
        );
        assert_eq!(
            f.meta,
            set(&[
                "description",
                "homepage",
                "license",
                "mainProgram",
                "platforms"
            ])
        );
        assert_eq!(f.licenses, set(&["bsd3"]));
    }

    #[test]
    fn a_python_package_with_with_lists() {
        let f = read_expr(
            r#"
{ lib, buildPythonPackage, fetchPypi, setuptools, requests, pytestCheckHook }:
buildPythonPackage rec {
  pname = "quill-py";
  version = "0.3";
  pyproject = true;
  src = fetchPypi { inherit pname version; hash = "sha256-BBBB"; };
  build-system = [ setuptools ];
  dependencies = with python3Packages; [ requests (callPackage ./x.nix { }) ];
  nativeCheckInputs = [ pytestCheckHook ];
  meta = with lib; {
    description = "Python bindings";
    license = with licenses; [ mit asl20 ];
  };
}
"#,
        );
        assert_eq!(f.builder.map(|b| b.to_string()).as_deref(), Some("python"));
        assert_eq!(f.fetcher.as_deref(), Some("fetchPypi"));
        assert_eq!(f.native, set(&["setuptools"]));
        // The call in parentheses is not a name the reader can know.
        assert_eq!(f.build, set(&["requests"]));
        assert_eq!(f.licenses, set(&["asl20", "mit"]));
    }

    #[test]
    fn autotools_flags_and_meson() {
        let at = read_expr(
            r#"stdenv.mkDerivation { nativeBuildInputs = [ autoreconfHook ];
  configureFlags = [ "--enable-shared" "--without-x" (lib.withFeature true "zlib") "--prefix=/x" ]; }"#,
        );
        assert_eq!(
            at.builder.map(|b| b.to_string()).as_deref(),
            Some("stdenv+autotools")
        );
        assert_eq!(at.flags, set(&["prefix", "shared", "x", "zlib"]));
        let meson = read_expr(
            r#"stdenv.mkDerivation { nativeBuildInputs = [ meson ninja ];
  mesonFlags = [ (lib.mesonEnable "docs" false) (lib.mesonOption "backend" "x") "-Dtests=false" ]; }"#,
        );
        assert_eq!(
            meson.builder.map(|b| b.to_string()).as_deref(),
            Some("stdenv+meson")
        );
        assert_eq!(meson.flags, set(&["backend", "docs", "tests"]));
    }

    #[test]
    fn dotted_meta_fields() {
        let f = read_expr(
            "stdenv.mkDerivation { meta.description = \"x\"; meta.license = lib.licenses.gpl3Plus; }",
        );
        assert_eq!(f.meta, set(&["description", "license"]));
        assert_eq!(f.licenses, set(&["gpl3Plus"]));
    }

    /// Found by packsmith-fuzz (`nix-expr`, 10-minute run): 7 MB of nested
    /// `{ a = …` took 16 s against the harness's 14 s (2 s per MiB), every
    /// attribute looked up scanning all tokens and every identifier checked
    /// twice for a builder. One index of first bindings and one pass for
    /// the builder keep it to the tokenizer's order of time.
    #[test]
    fn a_deeply_nested_expression_is_read_in_bounded_time() {
        let text = "{ a = ".repeat(350_000);
        let started = std::time::Instant::now();
        let f = read_expr(&text);
        let took = started.elapsed();
        assert_eq!(f, ExprFacts::default());
        // The harness's bound for 2 MiB is 4 s.
        assert!(took < std::time::Duration::from_secs(4), "{took:?}");
    }

    #[test]
    fn nothing_recognisable_is_empty_facts() {
        assert_eq!(read_expr(""), ExprFacts::default());
        assert_eq!(read_expr("{ { [ ( \"").builder, None);
    }
}
