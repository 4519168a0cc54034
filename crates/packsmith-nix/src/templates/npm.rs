//! `buildNpmPackage (finalAttrs: { … })`; `npmDepsHash` is found by
//! trust-on-first-use (the `…-npm-deps` derivation). A pnpm project keeps
//! the builder and swaps the dependency fetcher and config hook for
//! pnpm's (`fetchPnpmDeps`, `pnpmConfigHook`), as current nixpkgs does.

use super::{Draft, TemplateInput};
use crate::hash::FAKE_HASH_EXPR;

/// pnpm 10 reads the lockfile format 9.0 that pnpm 9 and 10 write; an
/// older lock (6.0) needs `pnpm_8`, which the first install reports.
const PNPM: &str = "pnpm_10";

pub(super) fn draft(input: &TemplateInput) -> Draft {
    let mut d = Draft::new("buildNpmPackage (finalAttrs: {", "})");
    d.input("buildNpmPackage");
    d.header(input);
    if input.pnpm {
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
