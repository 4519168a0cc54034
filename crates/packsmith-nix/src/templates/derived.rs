//! What the build-system facts ask of a derivation, filled in by the
//! readers of each kind (`inputs`, `build_tools`, `frameworks`, …), and the
//! one helper they all append with.

use serde::{Deserialize, Serialize};

/// What the build-system facts ask of the derivation.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DerivedInputs {
    pub native: Vec<String>,
    pub build: Vec<String>,
    /// `cmakeFlags` (or, for Meson, `mesonFlags`) elements, as Nix expressions.
    pub flags: Vec<String>,
    /// Libraries only the tests link (`checkInputs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub check: Vec<String>,
    /// The project's tests run in the build (`doCheck = true`).
    #[serde(default)]
    pub do_check: bool,
    /// Shell lines for `postPatch` (an install into `$HOME` pointed at
    /// `$out`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub post_patch: Vec<String>,
    /// Shell lines for `postInstall` (manual pages the build leaves out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub post_install: Vec<String>,
    /// The Python packages of `pythonEnv` (`python3.withPackages`), for a
    /// Meson build that installs a Python program; None for none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python_env: Option<Vec<String>>,
}

/// Appends `attr` to `list` unless it is there already.
pub(super) fn push_once(list: &mut Vec<String>, attr: &str) {
    if !list.iter().any(|a| a == attr) {
        list.push(attr.to_string());
    }
}
