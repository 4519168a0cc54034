//! nixpkgs' formatting: nixfmt's RFC 166 style, through `nixfmt_rs` (a
//! Rust port verified byte-for-byte against nixfmt across nixpkgs). Drafts
//! and the model's recipes are written in it, as a reviewer's
//! `nixfmt --check` expects.

/// Larger texts are left as they are: no recipe is this long, and the
/// formatter's time grows with its input.
const MAX_FORMATTED: usize = 256 * 1024;

/// `text` as nixfmt writes it; None when it does not parse as Nix (the
/// parse check then says why) or is over the size bound.
pub fn nixfmt(text: &str) -> Option<String> {
    if text.len() > MAX_FORMATTED {
        return None;
    }
    nixfmt_rs::format(text).ok()
}

/// `text` formatted when it parses, else unchanged.
pub fn formatted_or_same(text: &str) -> String {
    nixfmt(text).unwrap_or_else(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_of_two_or_more_go_one_element_a_line() {
        let text = "{ buildGoModule }:\nbuildGoModule {\n  ldflags = [ \"-s\" \"-w\" ];\n}\n";
        assert_eq!(
            nixfmt(text).as_deref(),
            Some("{ buildGoModule }:\nbuildGoModule {\n  ldflags = [\n    \"-s\"\n    \"-w\"\n  ];\n}\n")
        );
    }

    #[test]
    fn what_does_not_parse_is_left_alone() {
        assert_eq!(nixfmt("{ a = ; }"), None);
        assert_eq!(formatted_or_same("{ a = ; }"), "{ a = ; }");
        assert_eq!(nixfmt(&"x".repeat(MAX_FORMATTED + 1)), None);
    }
}
