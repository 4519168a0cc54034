//! `self` in a class body outside every method: Python runs the class body
//! when Spack loads the recipe, where no `self` exists, so Spack refuses it
//! (`name 'self' is not defined`). A model's edit that puts an
//! `install_tree(join_path(self.stage.source_path, …))` one level too far
//! left produces exactly this, and the rest of the check passes it.

use tree_sitter::Node;

use super::{Code, Diagnostic, Input};
use crate::pywalk::{pos, text};

/// 1-based positions of every `self` the class body evaluates while the
/// class is created: methods, nested classes and lambdas (run later, with
/// their own arguments) are not entered.
pub(super) fn self_references(source: &str, body: Node) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    visit(source, body, &mut out);
    out
}

fn visit(source: &str, node: Node, out: &mut Vec<(u32, u32)>) {
    match node.kind() {
        "function_definition" | "class_definition" | "decorated_definition" | "lambda" => return,
        "identifier" if text(source, node) == "self" && is_a_reference(node) => {
            out.push(pos(node));
            return;
        }
        _ => {}
    }
    let mut cur = node.walk();
    for child in node.named_children(&mut cur) {
        visit(source, child, out);
    }
}

/// False for the `self` of `x.self` and of a keyword argument `f(self=…)`,
/// which name an attribute and a parameter, not the variable.
fn is_a_reference(node: Node) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    let field = match parent.kind() {
        "attribute" => "attribute",
        "keyword_argument" => "name",
        _ => return true,
    };
    parent.child_by_field_name(field).map(|n| n.id()) != Some(node.id())
}

pub(super) fn check(input: &Input, out: &mut Vec<Diagnostic>) {
    for &(line, col) in &input.walk.self_in_class_body {
        out.push(Diagnostic::new(
            Code::SelfOutsideMethod,
            line,
            col,
            "`self` in the class body outside any method: Python runs this line when Spack \
             loads the recipe, where `self` does not exist (`name 'self' is not defined`); \
             move the statement into the method that needs it (install(), cmake_args(), \
             patch(), …) or indent it under that method",
        ));
    }
}
