//! `buildNpmPackage (finalAttrs: { … })`; `npmDepsHash` is found by
//! trust-on-first-use (the `…-npm-deps` derivation).

use super::{Draft, TemplateInput};
use crate::hash::FAKE_HASH_EXPR;

pub(super) fn draft(input: &TemplateInput) -> Draft {
    let mut d = Draft::new("buildNpmPackage (finalAttrs: {", "})");
    d.input("buildNpmPackage");
    d.header(input);
    d.block([format!("npmDepsHash = {FAKE_HASH_EXPR};")]);
    d.meta(input);
    d
}
