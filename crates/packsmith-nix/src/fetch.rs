//! Source → nixpkgs fetcher call (`fetchFromGitHub { … }` and friends).
//!
//! The fetcher is plain data ([`FetcherCall`]) until rendered, so templates
//! can reference `finalAttrs.version` and the hash can be filled in later by
//! [`crate::prefetch`] or trust-on-first-use ([`crate::tofu`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::hash::FAKE_HASH_EXPR;

pub use packsmith_core::archive::strip_archive_suffix;
/// A git forge nixpkgs has a dedicated fetcher for (the one table of forge
/// hosts and URL layouts is `packsmith_core::forge`).
pub use packsmith_core::forge::Forge;
use packsmith_core::forge::ForgeRepo;

/// Where the source comes from, parsed from what the user gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SourceSpec {
    Forge {
        forge: Forge,
        /// Owner, or `group/subgroup` on GitLab.
        owner: String,
        repo: String,
    },
    Pypi {
        pname: String,
    },
    Crate {
        pname: String,
    },
    /// A release archive or single file.
    Url {
        url: String,
    },
    /// Any other git repository.
    Git {
        url: String,
    },
    /// A directory on this machine.
    Path {
        path: PathBuf,
    },
}

/// Which revision to fetch. Tags render as `tag =` (nixpkgs' current
/// preference over `rev = "refs/tags/…"`), commits as `rev =`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Revision {
    Tag(String),
    Rev(String),
}

impl Revision {
    /// A 40-hex-digit string is a commit; anything else a tag (as nurl does).
    pub fn guess(s: &str) -> Self {
        let s = s.strip_prefix("refs/tags/").unwrap_or(s);
        if s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Self::Rev(s.to_string())
        } else {
            Self::Tag(s.to_string())
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Tag(s) | Self::Rev(s) => s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    #[error("`{input}` is not a source packsmith can fetch\nhint: {hint}")]
    Unsupported { input: String, hint: String },
    #[error("{fetcher} needs a {what}\nhint: pass it with --rev or pick a release")]
    Missing {
        fetcher: &'static str,
        what: &'static str,
    },
}

/// The hint is the `hint:` line of the text.
impl packsmith_core::Hint for FetchError {}

/// Parses a URL, `pypi:NAME`, `crate:NAME` or a local path.
pub fn parse_source(input: &str) -> Result<SourceSpec, FetchError> {
    let input = input.trim();
    if let Some(name) = input.strip_prefix("pypi:") {
        return Ok(SourceSpec::Pypi {
            pname: name.to_string(),
        });
    }
    if let Some(name) = input.strip_prefix("crate:") {
        return Ok(SourceSpec::Crate {
            pname: name.to_string(),
        });
    }
    if input.starts_with('/') || input.starts_with("./") || input.starts_with("../") {
        return Ok(SourceSpec::Path {
            path: PathBuf::from(input),
        });
    }
    let unsupported = |hint: &str| FetchError::Unsupported {
        input: input.to_string(),
        hint: hint.to_string(),
    };
    if input.starts_with("git://") || input.starts_with("git+") || input.starts_with("ssh://") {
        let url = input.strip_prefix("git+").unwrap_or(input);
        return Ok(SourceSpec::Git {
            url: url.to_string(),
        });
    }
    let Some(rest) = input
        .strip_prefix("https://")
        .or_else(|| input.strip_prefix("http://"))
    else {
        if let Some(path) = input.strip_prefix("file://") {
            return Ok(SourceSpec::Path {
                path: PathBuf::from(path),
            });
        }
        return Err(unsupported(
            "give an https:// URL, a git URL, pypi:NAME, crate:NAME or a local path",
        ));
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_ascii_lowercase();
    let path = path.split(['?', '#']).next().unwrap_or("");
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();

    if strip_archive_suffix(path).is_some() {
        return Ok(SourceSpec::Url {
            url: input.to_string(),
        });
    }
    match host.as_str() {
        "pypi.org" | "pypi.python.org" => {
            return match segs.as_slice() {
                ["project", name, ..] | ["simple", name, ..] => Ok(SourceSpec::Pypi {
                    pname: (*name).to_string(),
                }),
                _ => Err(unsupported("use https://pypi.org/project/NAME/")),
            }
        }
        "crates.io" | "lib.rs" => {
            return match segs.as_slice() {
                ["crates", name, ..] => Ok(SourceSpec::Crate {
                    pname: (*name).to_string(),
                }),
                _ => Err(unsupported("use https://crates.io/crates/NAME")),
            }
        }
        _ => {}
    }
    if let Some(forge) = Forge::from_host(&host) {
        return ForgeRepo::from_path(forge, path)
            .map(|r| SourceSpec::Forge {
                forge: r.forge,
                owner: r.owner,
                repo: r.repo,
            })
            .ok_or_else(|| unsupported("give the repository URL, https://HOST/OWNER/REPO"));
    }
    if path.ends_with(".git") {
        return Ok(SourceSpec::Git {
            url: input.to_string(),
        });
    }
    // An unknown host: fetchgit is the one fetcher that works for any git server.
    Ok(SourceSpec::Git {
        url: input.to_string(),
    })
}

/// An argument value: a string literal or raw Nix text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum NixValue {
    Str(String),
    Expr(String),
}

impl NixValue {
    pub fn render(&self) -> String {
        match self {
            Self::Str(s) => quote(s),
            Self::Expr(e) => e.clone(),
        }
    }
}

/// Quotes a Nix string literal, keeping `${…}` interpolations that start
/// with `finalAttrs.` and escaping everything else Nix would interpret.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("${finalAttrs.")
            || rest.starts_with("${version}")
            || rest.starts_with("${pname}")
        {
            if let Some(end) = rest.find('}') {
                out.push_str(&rest[..=end]);
                rest = &rest[end + 1..];
                continue;
            }
        }
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '$' if rest[1..].starts_with('{') => out.push_str("\\$"),
            _ => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    out.push('"');
    out
}

/// The nixpkgs fetcher functions packsmith writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FetcherFn {
    #[serde(rename = "fetchFromGitHub")]
    FetchFromGitHub,
    #[serde(rename = "fetchFromGitLab")]
    FetchFromGitLab,
    #[serde(rename = "fetchFromGitea")]
    FetchFromGitea,
    #[serde(rename = "fetchPypi")]
    FetchPypi,
    #[serde(rename = "fetchCrate")]
    FetchCrate,
    #[serde(rename = "fetchurl")]
    FetchUrl,
    #[serde(rename = "fetchgit")]
    FetchGit,
    /// A local path: no fetcher, no hash.
    #[serde(rename = "path")]
    Path,
}

impl FetcherFn {
    /// The name as a package-function input (`fetchPypi` comes from the
    /// Python package set, so it is not an input of `callPackage`).
    pub fn name(self) -> &'static str {
        match self {
            Self::FetchFromGitHub => "fetchFromGitHub",
            Self::FetchFromGitLab => "fetchFromGitLab",
            Self::FetchFromGitea => "fetchFromGitea",
            Self::FetchPypi => "fetchPypi",
            Self::FetchCrate => "fetchCrate",
            Self::FetchUrl => "fetchurl",
            Self::FetchGit => "fetchgit",
            Self::Path => "",
        }
    }
}

/// A fetcher call with its arguments in nixpkgs' usual order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetcherCall {
    pub function: FetcherFn,
    pub args: Vec<(String, NixValue)>,
}

impl FetcherCall {
    /// The `hash` argument, if any.
    pub fn hash(&self) -> Option<&NixValue> {
        self.args.iter().find(|(k, _)| k == "hash").map(|(_, v)| v)
    }

    /// Sets the hash to a known SRI string.
    pub fn set_hash(&mut self, sri: &str) {
        for (k, v) in &mut self.args {
            if k == "hash" {
                *v = NixValue::Str(sri.to_string());
            }
        }
    }

    /// The same call for a `rec { … }` scope: `finalAttrs.version` becomes
    /// `version` (templates whose builder has no fixed point).
    pub fn rec_style(&self) -> FetcherCall {
        let fix = |s: &str| {
            s.replace("${finalAttrs.", "${")
                .replace("(finalAttrs) ", "")
                .replace("finalAttrs.", "")
        };
        FetcherCall {
            function: self.function,
            args: self
                .args
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        NixValue::Str(s) => NixValue::Str(fix(s)),
                        NixValue::Expr(e) => NixValue::Expr(fix(e)),
                    };
                    (k.clone(), v)
                })
                .collect(),
        }
    }

    /// Renders the call at the given indentation (of the opening line).
    pub fn render(&self, indent: usize) -> String {
        if self.function == FetcherFn::Path {
            return self
                .args
                .first()
                .map_or_else(|| "./.".to_string(), |(_, v)| v.render());
        }
        let pad = " ".repeat(indent + 2);
        let mut out = format!("{} {{\n", self.function.name());
        for (k, v) in &self.args {
            if k == "inherit" {
                out.push_str(&format!("{pad}inherit {};\n", v.render()));
            } else {
                out.push_str(&format!("{pad}{k} = {};\n", v.render()));
            }
        }
        out.push_str(&" ".repeat(indent));
        out.push('}');
        out
    }
}

/// How version strings are referenced from inside the fetcher.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionRef {
    /// `finalAttrs.version` (templates built on `(finalAttrs: { … })`).
    FinalAttrs,
    /// The literal version: for callers that have no fixed point.
    Literal,
}

/// Builds the fetcher call for `source` at `rev`, with the hash left as
/// `lib.fakeHash`. `version` is the package version: a tag that embeds it is
/// written as `"v${finalAttrs.version}"` so version bumps touch one line.
pub fn fetcher_for(
    source: &SourceSpec,
    rev: Option<&Revision>,
    version: Option<&str>,
    vref: VersionRef,
) -> Result<FetcherCall, FetchError> {
    let fake = || {
        (
            "hash".to_string(),
            NixValue::Expr(FAKE_HASH_EXPR.to_string()),
        )
    };
    let s = |k: &str, v: &str| (k.to_string(), NixValue::Str(v.to_string()));
    let rev_arg = |fetcher: &'static str| -> Result<(String, NixValue), FetchError> {
        match rev {
            Some(Revision::Tag(t)) => Ok(("tag".to_string(), version_ref(t, version, vref))),
            Some(Revision::Rev(r)) => Ok(s("rev", r)),
            None => Err(FetchError::Missing {
                fetcher,
                what: "tag or commit",
            }),
        }
    };
    let call = match source {
        SourceSpec::Forge { forge, owner, repo } => {
            let (function, name) = match forge {
                Forge::GitHub => (FetcherFn::FetchFromGitHub, "fetchFromGitHub"),
                Forge::GitLab { .. } => (FetcherFn::FetchFromGitLab, "fetchFromGitLab"),
                Forge::Gitea { .. } => (FetcherFn::FetchFromGitea, "fetchFromGitea"),
            };
            let mut args = Vec::new();
            if let Some(domain) = forge.domain() {
                args.push(s("domain", domain));
            }
            args.push(s("owner", owner));
            args.push(s("repo", repo));
            args.push(rev_arg(name)?);
            args.push(fake());
            FetcherCall { function, args }
        }
        SourceSpec::Pypi { .. } => {
            let inherit = match vref {
                VersionRef::FinalAttrs => "(finalAttrs) pname version",
                VersionRef::Literal => "pname version",
            };
            FetcherCall {
                function: FetcherFn::FetchPypi,
                args: vec![
                    ("inherit".to_string(), NixValue::Expr(inherit.to_string())),
                    fake(),
                ],
            }
        }
        SourceSpec::Crate { .. } => {
            let inherit = match vref {
                VersionRef::FinalAttrs => "(finalAttrs) pname version",
                VersionRef::Literal => "pname version",
            };
            FetcherCall {
                function: FetcherFn::FetchCrate,
                args: vec![
                    ("inherit".to_string(), NixValue::Expr(inherit.to_string())),
                    fake(),
                ],
            }
        }
        SourceSpec::Url { url } => FetcherCall {
            function: FetcherFn::FetchUrl,
            args: vec![("url".to_string(), version_ref(url, version, vref)), fake()],
        },
        SourceSpec::Git { url } => {
            let mut args = vec![s("url", url)];
            args.push(rev_arg("fetchgit")?);
            args.push(fake());
            FetcherCall {
                function: FetcherFn::FetchGit,
                args,
            }
        }
        SourceSpec::Path { path } => FetcherCall {
            function: FetcherFn::Path,
            args: vec![("path".to_string(), NixValue::Expr(path_literal(path)))],
        },
    };
    Ok(call)
}

/// Replaces the version inside `text` with a reference, but only as a whole
/// token (so `1.2` inside `1.23` or a hash is never touched).
fn version_ref(text: &str, version: Option<&str>, vref: VersionRef) -> NixValue {
    let Some(v) = version.filter(|v| !v.is_empty()) else {
        return NixValue::Str(text.to_string());
    };
    if vref == VersionRef::FinalAttrs && text == v {
        return NixValue::Expr("finalAttrs.version".to_string());
    }
    let reference = match vref {
        VersionRef::FinalAttrs => "${finalAttrs.version}",
        VersionRef::Literal => return NixValue::Str(text.to_string()),
    };
    let mut out = String::new();
    let mut rest = text;
    let mut replaced = false;
    while let Some(pos) = rest.find(v) {
        let before = rest[..pos].chars().next_back();
        let mut after = rest[pos + v.len()..].chars();
        // `v1.2` and `foo-1.2.tar.gz` match; `11.2`, `1.23` and `1.2.1` do not.
        let ok_before = before.is_none_or(|c| !c.is_ascii_digit() && c != '.');
        let ok_after = match after.next() {
            None => true,
            Some('.') => after.next().is_some_and(|c| c.is_ascii_alphabetic()),
            Some(c) => !c.is_ascii_alphanumeric(),
        };
        if ok_before && ok_after {
            out.push_str(&rest[..pos]);
            out.push_str(reference);
            replaced = true;
        } else {
            out.push_str(&rest[..pos + v.len()]);
        }
        rest = &rest[pos + v.len()..];
    }
    out.push_str(rest);
    if replaced {
        NixValue::Str(out)
    } else {
        NixValue::Str(text.to_string())
    }
}

/// A Nix path literal for an absolute path (or `/. + "…"` when it has
/// characters a path literal cannot hold).
pub fn path_literal(path: &std::path::Path) -> String {
    let s = path.to_string_lossy();
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c));
    if plain && s.starts_with('/') && s.len() > 1 {
        s.trim_end_matches('/').to_string()
    } else if plain && (s.starts_with("./") || s.starts_with("../")) {
        s.into_owned()
    } else {
        format!("/. + {}", quote(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(input: &str, rev: Option<&str>, version: Option<&str>) -> String {
        let src = parse_source(input).unwrap();
        let rev = rev.map(Revision::guess);
        fetcher_for(&src, rev.as_ref(), version, VersionRef::FinalAttrs)
            .unwrap()
            .render(2)
    }

    #[test]
    fn github_tag_uses_finalattrs_version() {
        insta::assert_snapshot!(render("https://github.com/o/r", Some("v1.2.3"), Some("1.2.3")), @r#"
        fetchFromGitHub {
            owner = "o";
            repo = "r";
            tag = "v${finalAttrs.version}";
            hash = lib.fakeHash;
          }
        "#);
        let bare = render("https://github.com/o/r.git", Some("1.2.3"), Some("1.2.3"));
        assert!(bare.contains("tag = finalAttrs.version;"), "{bare}");
        let rev = render(
            "https://github.com/o/r/tree/main",
            Some("0123456789abcdef0123456789abcdef01234567"),
            Some("0-unstable-2025-01-01"),
        );
        assert!(rev.contains("rev = \"0123456789abcdef0123456789abcdef01234567\";"));
    }

    #[test]
    fn gitlab_subgroups_and_self_hosted_domains() {
        let out = render(
            "https://gitlab.gnome.org/World/sub/app/-/tree/main",
            Some("app-1.0"),
            Some("1.0"),
        );
        insta::assert_snapshot!(out, @r#"
        fetchFromGitLab {
            domain = "gitlab.gnome.org";
            owner = "World/sub";
            repo = "app";
            tag = "app-${finalAttrs.version}";
            hash = lib.fakeHash;
          }
        "#);
        let cb = render("https://codeberg.org/u/proj", Some("v2"), Some("2"));
        assert!(cb.starts_with("fetchFromGitea {\n    domain = \"codeberg.org\";"));
    }

    #[test]
    fn pypi_crates_urls_git_and_paths() {
        assert_eq!(
            parse_source("https://pypi.org/project/requests/").unwrap(),
            SourceSpec::Pypi {
                pname: "requests".into()
            }
        );
        assert!(render("pypi:requests", None, Some("2.0"))
            .contains("inherit (finalAttrs) pname version;"));
        assert!(
            render("https://crates.io/crates/ripgrep", None, Some("14.0.0"))
                .starts_with("fetchCrate {")
        );
        let url = render("https://example.org/dl/foo-1.2.tar.gz", None, Some("1.2"));
        assert!(
            url.contains(r#"url = "https://example.org/dl/foo-${finalAttrs.version}.tar.gz";"#),
            "{url}"
        );
        let git = render("https://git.example.org/foo.git", Some("v1"), Some("1"));
        assert!(git.starts_with("fetchgit {\n    url = \"https://git.example.org/foo.git\";"));
        assert_eq!(render("/srv/my src", None, None), r#"/. + "/srv/my src""#);
        assert_eq!(render("/srv/src/", None, None), "/srv/src");
        assert!(parse_source("ftp://x").is_err());
    }

    #[test]
    fn version_is_replaced_only_as_a_whole_token() {
        let v = |t: &str, ver: &str| match version_ref(t, Some(ver), VersionRef::FinalAttrs) {
            NixValue::Str(s) => s,
            NixValue::Expr(e) => format!("<{e}>"),
        };
        assert_eq!(
            v("foo-1.2.tar.gz", "1.2"),
            "foo-${finalAttrs.version}.tar.gz"
        );
        assert_eq!(v("foo-1.23.tar.gz", "1.2"), "foo-1.23.tar.gz");
        assert_eq!(v("foo-11.2.tar.gz", "1.2"), "foo-11.2.tar.gz");
        assert_eq!(v("v1.2", "1.2"), "v${finalAttrs.version}");
        assert_eq!(v("1.2", "1.2"), "<finalAttrs.version>");
    }

    #[test]
    fn quoting_escapes_interpolation_but_keeps_version_refs() {
        assert_eq!(quote(r#"a"b\c${x}"#), r#""a\"b\\c\${x}""#);
        assert_eq!(
            quote("v${finalAttrs.version}"),
            r#""v${finalAttrs.version}""#
        );
    }
}
