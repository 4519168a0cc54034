//! `rustPlatform.buildRustPackage (finalAttrs: { … })`; `cargoHash` is
//! found by trust-on-first-use (the `…-vendor-staging` derivation). The
//! inputs come from the locked crates (see `rust_inputs`); a Tauri app
//! gets the additions of `tauri`.

use super::{tauri, DerivedInputs, Draft, TemplateInput};
use crate::hash::FAKE_HASH_EXPR;

pub(super) fn draft(input: &TemplateInput) -> Draft {
    let mut d = Draft::new("rustPlatform.buildRustPackage (finalAttrs: {", "})");
    d.input("rustPlatform");
    d.header(input);
    d.block([format!("cargoHash = {FAKE_HASH_EXPR};")]);
    match &input.tauri {
        Some(app) => tauri::attributes(&mut d, app, &input.derived),
        None => inputs(&mut d, &input.derived),
    }
    d.meta(input);
    d
}

/// `nativeBuildInputs`, `buildInputs` and the `env` settings (held in
/// `flags` for this builder), each when there is any.
fn inputs(d: &mut Draft, derived: &DerivedInputs) {
    fn names(list: &[String]) -> Vec<&str> {
        list.iter().map(String::as_str).collect()
    }
    if !derived.native.is_empty() {
        d.list("nativeBuildInputs", &names(&derived.native));
    }
    if !derived.build.is_empty() {
        d.list("buildInputs", &names(&derived.build));
    }
    d.env_settings(&derived.flags);
}
