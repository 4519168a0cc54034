//! `buildGoModule (finalAttrs: { … })`; `vendorHash = null` when the
//! repository vendors its modules, else trust-on-first-use.

use super::{Draft, TemplateInput};
use crate::fetch::quote;
use crate::hash::FAKE_HASH_EXPR;

pub(super) fn draft(input: &TemplateInput) -> Draft {
    let mut d = Draft::new("buildGoModule (finalAttrs: {", "})");
    d.input("buildGoModule");
    d.header(input);
    let vendor = if input.go_vendored {
        "null"
    } else {
        FAKE_HASH_EXPR
    };
    d.block([format!("vendorHash = {vendor};")]);
    // Build only the commands when the module root is not itself one.
    let subs: Vec<String> = input
        .go_binaries
        .iter()
        .map(|b| b.trim_start_matches("./").trim_end_matches('/'))
        .filter(|b| !b.is_empty() && *b != ".")
        .map(quote)
        .collect();
    if !subs.is_empty() && !input.go_binaries.iter().any(|b| b == "." || b.is_empty()) {
        d.block([format!("subPackages = [ {} ];", subs.join(" "))]);
    }
    d.block([r#"ldflags = [ "-s" "-w" ];"#]);
    d.meta(input);
    d
}
