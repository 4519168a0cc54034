//! Edits checked by the real Nix parser.

use packsmith_nix::{EditError, Editor, NixParser};

use super::common::nix_available;

const EXPR: &str = "{ lib, stdenv }:\nstdenv.mkDerivation (finalAttrs: {\n  pname = \"x\";\n  version = \"1\";\n})\n";

#[test]
fn an_edit_that_does_not_parse_is_rejected_with_the_parsers_message() {
    if !nix_available("edit rejection") {
        return;
    }
    let ed = Editor::new(NixParser::default());
    let err = ed.insert_after(EXPR, 3, "  doCheck = true").unwrap_err();
    let EditError::Rejected { message } = err else {
        panic!("{err:?}");
    };
    assert!(message.contains("syntax error"), "{message}");
    assert!(message.contains("package.nix:5:"), "{message}");
    let ok = ed.insert_after(EXPR, 4, "  doCheck = true;").unwrap();
    assert!(ok.text.contains("doCheck = true;"));
    let ok = ed.replace_nth(EXPR, "\"1\"", "\"2\"", 1).unwrap();
    assert!(ok.text.contains("version = \"2\";"));
}
