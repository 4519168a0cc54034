//! Whether a mutant is still Python: the recipe reader reports no syntax
//! error and no block is left empty. tree-sitter reads `with when(...):`
//! followed by a dedent as an empty block without an error, but Python
//! refuses it ("expected an indented block"), which would make a removal
//! fail at the wrong stage.

use std::time::Instant;

use tree_sitter::Node;

use crate::pywalk::{parse_tree_until, PARSE_BUDGET};
use crate::recipe::parse_recipe;

pub(super) fn still_python(text: &str) -> bool {
    if !parse_recipe(text, "package.py").syntax_errors.is_empty() {
        return false;
    }
    parse_tree_until(text, Instant::now() + PARSE_BUDGET)
        .is_some_and(|tree| !has_empty_block(tree.root_node()))
}

/// Iterative: a hostile file may nest deeper than the stack.
fn has_empty_block(root: Node) -> bool {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        if node.kind() == "block" && children.iter().all(|c| c.kind() == "comment") {
            return true;
        }
        stack.extend(children);
    }
    false
}
