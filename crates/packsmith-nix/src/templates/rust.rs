//! `rustPlatform.buildRustPackage (finalAttrs: { … })`; `cargoHash` is
//! found by trust-on-first-use (the `…-vendor-staging` derivation).

use super::{Draft, TemplateInput};
use crate::hash::FAKE_HASH_EXPR;

pub(super) fn draft(input: &TemplateInput) -> Draft {
    let mut d = Draft::new("rustPlatform.buildRustPackage (finalAttrs: {", "})");
    d.input("rustPlatform");
    d.header(input);
    d.block([format!("cargoHash = {FAKE_HASH_EXPR};")]);
    d.meta(input);
    d
}
