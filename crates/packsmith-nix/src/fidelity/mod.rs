//! Fidelity of a generated `package.nix` to nixpkgs' own expression for the
//! same package (issue 17 item 4): builder, fetcher, inputs recall and
//! precision (native and build apart), flags recall, `meta` fields.
//!
//! Inputs compare by their last path component (`python3Packages.requests`
//! and `requests` are one input), since a draft may spell the package set
//! differently from the reference's `with` scope.

mod expr;
mod lexer;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

pub use expr::{read_expr, BuilderKind, ExprFacts};

/// Recall and precision of one input role, with what differed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SetScore {
    /// Reference items the generated expression has; None when the
    /// reference has none.
    pub recall: Option<f64>,
    /// Generated items the reference has; None when the generated has none.
    pub precision: Option<f64>,
    pub missing: Vec<String>,
    pub extra: Vec<String>,
}

/// The XCB utility libraries nixpkgs moved out of `xorg` in 2025 under new
/// names (`xorg.xcbutilkeysyms` is now `libxcb-keysyms`, the same
/// xcb-util-keysyms package): old name, lower-cased → current name.
const RENAMED: &[(&str, &str)] = &[
    ("xcbutil", "libxcb-util"),
    ("xcbutilcursor", "libxcb-cursor"),
    ("xcbutilerrors", "libxcb-errors"),
    ("xcbutilimage", "libxcb-image"),
    ("xcbutilkeysyms", "libxcb-keysyms"),
    ("xcbutilrenderutil", "libxcb-render-util"),
    ("xcbutilwm", "libxcb-wm"),
];

/// The name an input compares by: case-blind, since nixpkgs renamed its X
/// libraries in 2025 (`libXcursor` → `libxcursor`), and with the XCB
/// utilities' old names mapped to the new, so a reference from either side
/// of the rename names the same package.
fn folded(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    RENAMED
        .iter()
        .find(|(old, _)| *old == lower)
        .map_or(lower, |(_, new)| (*new).to_string())
}

fn compare(reference: &BTreeSet<String>, generated: &BTreeSet<String>) -> SetScore {
    let fold_all =
        |set: &BTreeSet<String>| -> BTreeSet<String> { set.iter().map(|s| folded(s)).collect() };
    let (in_reference, in_generated) = (fold_all(reference), fold_all(generated));
    let shared = in_reference.intersection(&in_generated).count();
    let ratio = |whole: usize| (whole > 0).then(|| shared as f64 / whole as f64);
    let outside = |set: &BTreeSet<String>, other: &BTreeSet<String>| -> Vec<String> {
        set.iter()
            .filter(|s| !other.contains(&folded(s)))
            .cloned()
            .collect()
    };
    SetScore {
        recall: ratio(in_reference.len()),
        precision: ratio(in_generated.len()),
        missing: outside(reference, &in_generated),
        extra: outside(generated, &in_reference),
    }
}

/// `meta` fields a reviewer expects whenever they apply; `maintainers` is
/// left out (a draft cannot know who will maintain it).
const META_FIELDS: &[&str] = &[
    "description",
    "homepage",
    "license",
    "mainProgram",
    "platforms",
    "changelog",
];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NixFidelity {
    pub builder_reference: Option<String>,
    pub builder_generated: Option<String>,
    /// Same family, and for `mkDerivation` the same build system.
    pub builder_match: bool,
    pub fetcher_match: bool,
    pub native: SetScore,
    pub build: SetScore,
    pub check: SetScore,
    /// Option names the reference's flags set, found in the generated flags.
    pub flags: SetScore,
    /// The reviewer-facing `meta` fields of the reference (maintainers
    /// aside) that the generated expression sets.
    pub meta: SetScore,
    /// Some license in common; None when the reference names none.
    pub license_match: Option<bool>,
}

/// Compares a generated expression with the reference one.
pub fn nix_fidelity(reference: &str, generated: &str) -> NixFidelity {
    let r = read_expr(reference);
    let g = read_expr(generated);
    let meta = |f: &ExprFacts| -> BTreeSet<String> {
        f.meta
            .iter()
            .filter(|m| META_FIELDS.contains(&m.as_str()))
            .cloned()
            .collect()
    };
    NixFidelity {
        builder_reference: r.builder.as_ref().map(ToString::to_string),
        builder_generated: g.builder.as_ref().map(ToString::to_string),
        builder_match: r.builder.is_some() && r.builder == g.builder,
        fetcher_match: r.fetcher.is_some() && r.fetcher == g.fetcher,
        native: compare(&r.native, &g.native),
        build: compare(&r.build, &g.build),
        check: compare(&r.check, &g.check),
        flags: compare(&r.flags, &g.flags),
        meta: compare(&meta(&r), &meta(&g)),
        license_match: (!r.licenses.is_empty()).then(|| !r.licenses.is_disjoint(&g.licenses)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REFERENCE: &str = r#"
{ lib, stdenv, fetchFromGitHub, cmake, pkg-config, zlib, libpng }:
stdenv.mkDerivation (finalAttrs: {
  pname = "quillo";
  version = "1.0";
  src = fetchFromGitHub { owner = "o"; repo = "quillo"; tag = finalAttrs.version; hash = ""; };
  nativeBuildInputs = [ cmake pkg-config ];
  buildInputs = [ zlib libpng ];
  cmakeFlags = [ (lib.cmakeBool "QUILLO_TESTS" false) ];
  meta = {
    description = "Quill reader";
    homepage = "https://example.org";
    license = lib.licenses.mit;
    maintainers = with lib.maintainers; [ someone ];
    mainProgram = "quillo";
  };
})
"#;

    #[test]
    fn a_draft_close_to_the_reference() {
        let draft = r#"
{ lib, stdenv, fetchFromGitHub, cmake, zlib, llvmPackages }:
stdenv.mkDerivation (finalAttrs: {
  pname = "quillo";
  version = "1.0";
  src = fetchFromGitHub { owner = "o"; repo = "quillo"; rev = "v1.0"; hash = ""; };
  nativeBuildInputs = [ cmake ];
  buildInputs = [ zlib llvmPackages.openmp ];
  cmakeFlags = [ (lib.cmakeBool "QUILLO_TESTS" false) (lib.cmakeBool "QUILLO_OPENMP" true) ];
  meta = {
    description = "Quill reader";
    homepage = "https://example.org";
    license = lib.licenses.mit;
  };
})
"#;
        let f = nix_fidelity(REFERENCE, draft);
        assert!(f.builder_match && f.fetcher_match, "{f:?}");
        assert_eq!(f.native.recall, Some(0.5));
        assert_eq!(f.native.missing, ["pkg-config"]);
        assert_eq!(f.native.precision, Some(1.0));
        assert_eq!(f.build.recall, Some(0.5));
        assert_eq!(f.build.extra, ["openmp"]);
        assert_eq!(f.flags.recall, Some(1.0));
        assert_eq!(f.flags.precision, Some(0.5));
        // maintainers does not count; mainProgram is missing.
        assert_eq!(f.meta.recall, Some(0.75));
        assert_eq!(f.meta.missing, ["mainProgram"]);
        assert_eq!(f.license_match, Some(true));
        assert_eq!(f.check.recall, None);
    }

    #[test]
    fn another_builder_is_no_match() {
        let meson = REFERENCE.replace("cmake pkg-config", "meson ninja pkg-config");
        let f = nix_fidelity(REFERENCE, &meson);
        assert_eq!(f.builder_reference.as_deref(), Some("stdenv+cmake"));
        assert_eq!(f.builder_generated.as_deref(), Some("stdenv+meson"));
        assert!(!f.builder_match);
        let f = nix_fidelity(REFERENCE, "");
        assert!(!f.builder_match && !f.fetcher_match);
        assert_eq!(f.build.recall, Some(0.0));
        assert_eq!(f.build.precision, None);
        assert_eq!(f.license_match, Some(false));
    }

    #[test]
    fn names_before_and_after_the_x_rename_match() {
        let before = REFERENCE.replace("zlib libpng", "libXcursor");
        let after = REFERENCE.replace("zlib libpng", "libxcursor libx11");
        let f = nix_fidelity(&before, &after);
        assert_eq!(f.build.recall, Some(1.0));
        assert_eq!(f.build.extra, ["libx11"]);
        // The XCB utilities changed their names, not only their case.
        let old_xcb = REFERENCE.replace("zlib libpng", "xcbutil xcbutilkeysyms xcbutilimage");
        let new_xcb = REFERENCE.replace("zlib libpng", "libxcb-util libxcb-keysyms libxcb");
        let f = nix_fidelity(&old_xcb, &new_xcb);
        assert_eq!(f.build.missing, ["xcbutilimage"]);
        assert_eq!(f.build.extra, ["libxcb"]);
        assert_eq!(f.build.recall, Some(2.0 / 3.0));
    }
}
