//! A JavaScript project, by the tool that locked its dependencies:
//! npm's `buildNpmPackage (finalAttrs: { … })` with `npmDepsHash`; pnpm
//! keeps that builder and swaps the dependency fetcher and config hook for
//! its own (`fetchPnpmDeps`, `pnpmConfigHook`); yarn is `stdenv.mkDerivation`
//! with `fetchYarnDeps` and yarn's config, build and install hooks, as
//! current nixpkgs writes them. Every dependency hash is found by
//! trust-on-first-use.

use serde::{Deserialize, Serialize};

use super::{Draft, TemplateInput};
use crate::hash::FAKE_HASH_EXPR;

/// Which tool locked a JavaScript project's dependencies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JsLock {
    /// `package-lock.json` (or none known).
    #[default]
    Npm,
    Pnpm,
    Yarn,
}

impl JsLock {
    /// The tool of a lock file's name.
    pub fn of_file(name: &str) -> Self {
        match name {
            "pnpm-lock.yaml" => Self::Pnpm,
            "yarn.lock" => Self::Yarn,
            _ => Self::Npm,
        }
    }
}

/// pnpm 10 reads the lockfile format 9.0 that pnpm 9 and 10 write; an
/// older lock (6.0) needs `pnpm_8`, which the first install reports.
const PNPM: &str = "pnpm_10";

pub(super) fn draft(input: &TemplateInput) -> Draft {
    if input.js_lock == JsLock::Yarn {
        return yarn(input);
    }
    let mut d = Draft::new("buildNpmPackage (finalAttrs: {", "})");
    d.input("buildNpmPackage");
    d.header(input);
    if input.js_lock == JsLock::Pnpm {
        d.input("fetchPnpmDeps").input("pnpmConfigHook");
        d.block([
            "npmDeps = null;".to_string(),
            "pnpmDeps = fetchPnpmDeps {".to_string(),
            "  inherit (finalAttrs) pname version src;".to_string(),
            format!("  pnpm = {PNPM};"),
            "  fetcherVersion = 2;".to_string(),
            format!("  hash = {FAKE_HASH_EXPR};"),
            "};".to_string(),
        ]);
        d.list("nativeBuildInputs", &[PNPM]);
        d.block(["npmConfigHook = pnpmConfigHook;"]);
    } else {
        d.block([format!("npmDepsHash = {FAKE_HASH_EXPR};")]);
    }
    d.meta(input);
    d
}

/// yarn v1 lock: the offline cache from `yarn.lock`, then yarn's hooks
/// configure, build (`yarn build` when the project has that script) and
/// install the package with its production dependencies.
fn yarn(input: &TemplateInput) -> Draft {
    let mut d = Draft::new("stdenv.mkDerivation (finalAttrs: {", "})");
    d.input("stdenv");
    d.header(input);
    d.input("fetchYarnDeps");
    d.block([
        "yarnOfflineCache = fetchYarnDeps {".to_string(),
        "  yarnLock = \"${finalAttrs.src}/yarn.lock\";".to_string(),
        format!("  hash = {FAKE_HASH_EXPR};"),
        "};".to_string(),
    ]);
    d.list(
        "nativeBuildInputs",
        &[
            "nodejs",
            "yarnBuildHook",
            "yarnConfigHook",
            "yarnInstallHook",
        ],
    );
    d.meta(input);
    d
}
