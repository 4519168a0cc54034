//! Trust-on-first-use hashes: read Nix's hash-mismatch message and put the
//! `got:` hash into the right attribute, without asking a model.
//!
//! The failing derivation's name tells which hash it was (`…-source.drv` is
//! the `src` fetcher, `…-vendor-staging.drv` is `cargoHash`, …), so several
//! `lib.fakeHash` placeholders in one expression are never confused.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::hash::{HashAlgo, NixHash};

/// The attribute a fixed-output hash belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HashSite {
    /// `hash` (or the older `sha256`) of the `src` fetcher.
    Src,
    CargoHash,
    VendorHash,
    NpmDepsHash,
    /// `pnpmDeps = fetchPnpmDeps { hash = …; }` or
    /// `yarnOfflineCache = fetchYarnDeps { hash = …; }`.
    JsDeps,
}

impl HashSite {
    /// Whether `attr` (inside the attribute set bound to `parent`, if any)
    /// holds this site's hash: `src = fetchX { hash = …; }`, `cargoHash`, or
    /// `cargoDeps = rustPlatform.fetchCargoVendor { hash = …; }`.
    fn holds(self, attr: &str, parent: Option<&str>) -> bool {
        let inner = matches!(attr, "hash" | "sha256" | "outputHash");
        match self {
            Self::Src => inner && parent.is_none_or(|p| p == "src"),
            Self::CargoHash => attr == "cargoHash" || inner && parent == Some("cargoDeps"),
            Self::VendorHash => attr == "vendorHash" || inner && parent == Some("goModules"),
            Self::NpmDepsHash => attr == "npmDepsHash" || inner && parent == Some("npmDeps"),
            Self::JsDeps => inner && matches!(parent, Some("pnpmDeps" | "yarnOfflineCache")),
        }
    }

    /// Which hash a fixed-output derivation's name belongs to, by the names
    /// nixpkgs' builders give their vendoring derivations.
    pub fn from_drv(drv: &str) -> Self {
        let name = drv.trim_end_matches(".drv");
        if name.ends_with("-vendor-staging")
            || name.ends_with("-vendor.tar.gz")
            || name.ends_with("-cargo-vendor")
            || name.ends_with("-vendor")
        {
            Self::CargoHash
        } else if name.ends_with("-go-modules") {
            Self::VendorHash
        } else if name.ends_with("-npm-deps") {
            Self::NpmDepsHash
        } else if name.ends_with("-pnpm-deps")
            || name.ends_with("-yarn-deps")
            || name.ends_with("-offline")
        {
            // fetchYarnDeps' derivation is named `offline` unless told.
            Self::JsDeps
        } else {
            Self::Src
        }
    }
}

/// What Nix said about a fixed-output hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HashMismatch {
    /// The failing derivation (`/nix/store/…-source.drv`), when printed.
    pub drv: Option<String>,
    /// The hash the expression specified, in SRI form.
    pub specified: Option<String>,
    /// The hash Nix computed, in SRI form.
    pub got: String,
}

/// A substitution to make: `old` (the value text as written) → `new` (a
/// quoted SRI string) in `attribute`, giving `fixed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HashFix {
    pub attribute: String,
    pub site: HashSite,
    pub old: String,
    pub new: String,
    /// 1-based line of the attribute in the original expression.
    pub line: usize,
    pub fixed: String,
}

static MISMATCH_DRV: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"hash mismatch in fixed-output derivation '([^']+)'").ok());
static SPECIFIED: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*(?:specified|wanted):\s*(\S+)").ok());
static GOT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?m)^\s*got:\s*(\S+)").ok());
static ASSIGN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(hash|sha256|outputHash|cargoHash|vendorHash|npmDepsHash)\s*=\s*([^;]*);").ok()
});

fn cap1(re: &LazyLock<Option<Regex>>, text: &str) -> Option<String> {
    let re = re.as_ref()?;
    re.captures_iter(text)
        .last()
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// Finds the last hash mismatch in a Nix log (2.8's `specified:`/`got:`,
/// newer Nix's identical lines, or old Nix's `wanted:`/`got:` in base-32).
pub fn parse_mismatch(log: &str) -> Option<HashMismatch> {
    let got = cap1(&GOT, log)?;
    let got = NixHash::parse(&got, HashAlgo::Sha256).ok()?.to_sri();
    let specified = cap1(&SPECIFIED, log)
        .and_then(|s| NixHash::parse(&s, HashAlgo::Sha256).ok())
        .map(|h| h.to_sri());
    Some(HashMismatch {
        drv: cap1(&MISMATCH_DRV, log),
        specified,
        got,
    })
}

/// Placeholder values a template or a model may have written.
fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    matches!(
        v,
        "lib.fakeHash" | "lib.fakeSha256" | "lib.fakeSha512" | "\"\""
    ) || unquote(v)
        .and_then(|s| NixHash::parse(s, HashAlgo::Sha256).ok())
        .is_some_and(|h| h.bytes.iter().all(|&b| b == 0))
}

fn unquote(v: &str) -> Option<&str> {
    v.strip_prefix('"')?.strip_suffix('"')
}

/// (attribute, enclosing attribute, value range).
type Assign = (String, Option<String>, std::ops::Range<usize>);

static BINDING: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"([A-Za-z_][\w'-]*)\s*=\s*(?:[\w.]+\s*)?\(?\s*$").ok());

/// The attribute whose set encloses byte `pos` (`src` in
/// `src = fetchurl { … hash = …; }`), found by walking back to the
/// unclosed `{`. Braces inside strings are rare in fetcher calls.
fn enclosing_attr(expr: &str, pos: usize) -> Option<String> {
    let mut depth = 0usize;
    let open = expr[..pos].char_indices().rev().find_map(|(i, c)| {
        match c {
            '}' => depth += 1,
            '{' if depth == 0 => return Some(i),
            '{' => depth -= 1,
            _ => {}
        }
        None
    })?;
    let before = &expr[..open];
    let re = BINDING.as_ref()?;
    re.captures(before)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// One candidate for `site`, or the only candidate at all; None when
/// several fit (then guessing could put the hash in the wrong place).
fn pick(site: HashSite, cands: Vec<&Assign>) -> Option<&Assign> {
    let for_site: Vec<&Assign> = cands
        .iter()
        .filter(|(a, parent, _)| site.holds(a, parent.as_deref()))
        .copied()
        .collect();
    match (for_site.as_slice(), cands.as_slice()) {
        ([one], _) => Some(one),
        ([], [one]) => Some(one),
        _ => None,
    }
}

/// Reads the mismatch in `log` and returns the expression with the real
/// hash in place, or None when the log has no mismatch or the attribute
/// cannot be found unambiguously.
pub fn fix_hash_from_log(expr: &str, log: &str) -> Option<HashFix> {
    fix_hash(expr, &parse_mismatch(log)?)
}

/// The expression with the hash Nix computed in place of the one that
/// `mismatch` says was wrong (or a placeholder), or None when the
/// attribute cannot be found unambiguously.
pub fn fix_hash(expr: &str, mismatch: &HashMismatch) -> Option<HashFix> {
    let site = mismatch
        .drv
        .as_deref()
        .map_or(HashSite::Src, HashSite::from_drv);
    let assigns: Vec<Assign> = ASSIGN
        .as_ref()?
        .captures_iter(expr)
        .filter_map(|c| {
            let attr = c.get(1)?;
            let parent = enclosing_attr(expr, attr.start());
            Some((attr.as_str().to_string(), parent, c.get(2)?.range()))
        })
        .collect();
    let value = |r: &std::ops::Range<usize>| expr[r.clone()].trim();
    let same_hash = |v: &str, sri: &str| {
        unquote(v)
            .and_then(|s| NixHash::parse(s, HashAlgo::Sha256).ok())
            .is_some_and(|h| h.to_sri() == sri)
    };
    let specified_is_fake = mismatch.specified.as_deref().is_none_or(|s| {
        NixHash::parse(s, HashAlgo::Sha256).is_ok_and(|h| h.bytes.iter().all(|&b| b == 0))
    });
    let chosen = if specified_is_fake {
        pick(
            site,
            assigns
                .iter()
                .filter(|(_, _, r)| is_placeholder(value(r)))
                .collect(),
        )
    } else {
        let spec = mismatch.specified.as_deref().unwrap_or_default();
        pick(
            site,
            assigns
                .iter()
                .filter(|(_, _, r)| same_hash(value(r), spec))
                .collect(),
        )
    }?;
    let (attribute, _, range) = chosen.clone();
    let old = value(&range).to_string();
    let new = format!("\"{}\"", mismatch.got);
    let start = range.start + (expr[range.clone()].len() - expr[range.clone()].trim_start().len());
    let end = start + old.len();
    let mut fixed = String::with_capacity(expr.len() + new.len());
    fixed.push_str(&expr[..start]);
    fixed.push_str(&new);
    fixed.push_str(&expr[end..]);
    Some(HashFix {
        attribute,
        site,
        old,
        new,
        line: expr[..start].matches('\n').count() + 1,
        fixed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG_28: &str = "building '/nix/store/abc-source.drv'...\n\
error: hash mismatch in fixed-output derivation '/nix/store/cwdwy14z7lz3qf84zbswvgdhilwmqrc3-source.drv':\n\
         specified: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\
            got:    sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=\n";

    const EXPR: &str = r#"{ lib, rustPlatform, fetchFromGitHub }:
rustPlatform.buildRustPackage (finalAttrs: {
  pname = "x";
  version = "1";
  src = fetchFromGitHub {
    owner = "o";
    repo = "x";
    tag = finalAttrs.version;
    hash = lib.fakeHash;
  };
  cargoHash = lib.fakeHash;
})
"#;

    #[test]
    fn src_placeholder_is_chosen_by_derivation_name() {
        let fix = fix_hash_from_log(EXPR, LOG_28).unwrap();
        assert_eq!(fix.attribute, "hash");
        assert_eq!(fix.site, HashSite::Src);
        assert_eq!(fix.old, "lib.fakeHash");
        assert_eq!(fix.line, 9);
        assert!(fix
            .fixed
            .contains(r#"hash = "sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";"#));
        assert!(fix.fixed.contains("cargoHash = lib.fakeHash;"));
    }

    #[test]
    fn vendor_hash_goes_to_cargo_hash() {
        let log = LOG_28.replace("-source.drv", "-x-1-vendor-staging.drv");
        let expr = EXPR.replace(
            "hash = lib.fakeHash;\n  };",
            "hash = \"sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=\";\n  };",
        );
        let fix = fix_hash_from_log(&expr, &log).unwrap();
        assert_eq!(fix.attribute, "cargoHash");
        assert_eq!(fix.line, 11);
    }

    #[test]
    fn a_stale_literal_hash_is_replaced_wherever_it_is() {
        // Newer Nix prints the same two lines; old Nix printed base-32 `wanted:`.
        let stale = "sha256-WJG1tSLV3whtD/CxEPvZ0hu0/HFjrzTQgoai6Eb2vgM=";
        let expr = format!("{{ fetchurl }}: fetchurl {{ url = \"u\"; sha256 = \"{stale}\"; }}");
        let log = "error: hash mismatch in fixed-output derivation '/nix/store/x-u.drv':\n  \
                   wanted: sha256:00xyyr3fi8l6hb839bv3f7yb86yjv7xi1cgh1xnhipym4asvb4aq\n  \
                   got:    sha256:0000000000000000000000000000000000000000000000000001\n";
        let fix = fix_hash_from_log(&expr, log).unwrap();
        assert_eq!(fix.attribute, "sha256");
        assert_eq!(fix.old, format!("\"{stale}\""));
        assert!(fix.new.starts_with("\"sha256-"));
    }

    #[test]
    fn ambiguous_or_absent_mismatch_gives_none() {
        assert!(fix_hash_from_log(EXPR, "error: builder failed").is_none());
        let two_src = "{ a = f { hash = lib.fakeHash; }; b = f { hash = lib.fakeHash; }; }";
        assert!(fix_hash_from_log(two_src, LOG_28).is_none());
    }

    #[test]
    fn yarn_and_pnpm_dependency_hashes_are_told_apart_from_src_hash() {
        let expr = r#"stdenv.mkDerivation (finalAttrs: {
  src = fetchFromGitHub {
    owner = "o";
    hash = lib.fakeHash;
  };
  yarnOfflineCache = fetchYarnDeps {
    yarnLock = "${finalAttrs.src}/yarn.lock";
    hash = lib.fakeHash;
  };
})"#;
        let yarn = fix_hash_from_log(expr, &LOG_28.replace("-source.drv", "-offline.drv")).unwrap();
        assert_eq!((yarn.site, yarn.line), (HashSite::JsDeps, 8));
        let pnpm = expr.replace(
            "yarnOfflineCache = fetchYarnDeps",
            "pnpmDeps = fetchPnpmDeps",
        );
        let fix =
            fix_hash_from_log(&pnpm, &LOG_28.replace("-source.drv", "-x-1-pnpm-deps.drv")).unwrap();
        assert_eq!((fix.site, fix.line), (HashSite::JsDeps, 8));
        assert_eq!(fix_hash_from_log(expr, LOG_28).unwrap().line, 4);
    }

    #[test]
    fn maturin_vendor_hash_is_told_apart_from_src_hash() {
        let expr = r#"buildPythonPackage rec {
  src = fetchFromGitHub {
    owner = "o";
    hash = lib.fakeHash;
  };
  cargoDeps = rustPlatform.fetchCargoVendor {
    inherit pname version src;
    hash = lib.fakeHash;
  };
}"#;
        let src = fix_hash_from_log(expr, LOG_28).unwrap();
        assert_eq!(src.line, 4);
        let log = LOG_28.replace("-source.drv", "-demo-1.2.0-vendor-staging.drv");
        let vendor = fix_hash_from_log(&src.fixed, &log).unwrap();
        assert_eq!((vendor.attribute.as_str(), vendor.line), ("hash", 8));
    }

    #[test]
    fn drv_names_map_to_sites() {
        assert_eq!(
            HashSite::from_drv("/nix/store/h-foo-1.0-go-modules.drv"),
            HashSite::VendorHash
        );
        assert_eq!(
            HashSite::from_drv("/nix/store/h-foo-1.0-npm-deps.drv"),
            HashSite::NpmDepsHash
        );
        assert_eq!(
            HashSite::from_drv("/nix/store/h-foo-1.0.tar.gz.drv"),
            HashSite::Src
        );
    }
}
