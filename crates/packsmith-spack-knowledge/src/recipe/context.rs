//! What the recipe reader carries while it walks a class body: the context
//! of a directive (`with when(...)`, loop bindings), the reader's state, and
//! loop targets with their binding. A leaf the walker (`parse.rs`), the
//! directive reader and the define evaluator share.

use std::collections::HashMap;

use tree_sitter::Node;

use super::pyval::{Src, Value};
use super::ParsedRecipe;

/// Deepest nesting we follow; pathological input must not blow the stack.
pub const MAX_DEPTH: usize = 256;
/// The context a directive is read in: enclosing `with when(...)`,
/// `with default_args(...)`, and class-level loop bindings.
#[derive(Clone, Default)]
pub struct Ctx<'t> {
    pub whens: Vec<String>,
    pub defaults: Vec<(String, Node<'t>)>,
    pub note: Option<String>,
    pub bindings: Vec<(String, Value)>,
}

impl Ctx<'_> {
    pub fn lookup(&self, name: &str) -> Option<&Value> {
        self.bindings
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
}

pub struct Reader<'s, 't, 'r> {
    pub src: Src<'s>,
    /// Module- and class-level `NAME = value` assignments.
    pub names: HashMap<String, Node<'t>>,
    pub recipe: &'r mut ParsedRecipe,
}

/// A loop target: `v`, or a (nested) tuple of targets like `k, (a, b)`.
#[derive(Debug, Clone)]
pub enum Target {
    Name(String),
    Tuple(Vec<Target>),
}

/// Loop targets; `None` for targets we do not bind (attributes, subscripts).
pub fn target_names(src: Src, left: Node) -> Option<Target> {
    match left.kind() {
        "identifier" => Some(Target::Name(src.text(left).to_string())),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "parenthesized_expression"
        | "tuple" => {
            let mut cur = left.walk();
            let items: Option<Vec<Target>> = left
                .named_children(&mut cur)
                .filter(|n| n.kind() != "comment")
                .map(|n| target_names(src, n))
                .collect();
            let mut items = items?;
            if left.kind() == "parenthesized_expression" && items.len() == 1 {
                return items.pop();
            }
            Some(Target::Tuple(items))
        }
        _ => None,
    }
}

/// Bind one row of loop values to the targets.
pub fn bind(target: &Target, row: Value) -> Option<Vec<(String, Value)>> {
    let mut out = Vec::new();
    bind_into(target, row, &mut out)?;
    Some(out)
}

fn bind_into(target: &Target, row: Value, out: &mut Vec<(String, Value)>) -> Option<()> {
    match (target, row) {
        (Target::Name(n), v) => out.push((n.clone(), v)),
        (Target::Tuple(ts), Value::Tuple(items) | Value::List(items))
            if ts.len() == items.len() =>
        {
            for (t, v) in ts.iter().zip(items) {
                bind_into(t, v, out)?;
            }
        }
        _ => return None,
    }
    Some(())
}
