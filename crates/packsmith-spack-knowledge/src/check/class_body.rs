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
    // An explicit stack, not recursion: a recipe nested thousands of
    // levels deep (`x = ((((…` a megabyte long) must not overflow the
    // thread's stack.
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "function_definition" | "class_definition" | "decorated_definition" | "lambda" => {
                continue
            }
            "identifier" if text(source, node) == "self" && is_a_reference(node) => {
                out.push(pos(node));
                continue;
            }
            _ => {}
        }
        let mut cur = node.walk();
        let children: Vec<Node> = node.named_children(&mut cur).collect();
        // Reversed, so the stack yields them first to last.
        stack.extend(children.into_iter().rev());
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pywalk::with_parser;

    fn references(source: &str) -> Vec<(u32, u32)> {
        with_parser(|p| {
            let tree = p.parse(source, None).ok_or("no tree")?;
            Ok(self_references(source, tree.root_node()))
        })
        .unwrap()
    }

    #[test]
    fn self_outside_methods_is_found_and_inside_them_is_not() {
        let source = "x = self.spec\ndef f(self):\n    return self\ny = [self]\nz = o.self\n";
        assert_eq!(references(source), [(1, 5), (4, 6)]);
    }

    /// Found by the long fuzz run: the walk recursed once per level, and
    /// a class body nested some ten thousand levels deep overflowed the
    /// stack of the thread that read it.
    #[test]
    fn deep_nesting_does_not_overflow_the_stack() {
        let depth = 20_000;
        let source = format!("x = {}self{}\n", "(".repeat(depth), ")".repeat(depth));
        let found = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || references(&source))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(found.len(), 1);
    }
}
