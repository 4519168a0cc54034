//! The tree-sitter plumbing under `recipe/` (the reader and the layout
//! walk of a `RecipeTree`): the Python parser and its time budget, node
//! positions, module-level classes and their bases, and the items of a
//! `with` header (`with when("+mpi"), default_args(type="build"):`). Each
//! caller decides what a `when` or a `default_args` means to it.

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

/// How long one parse may take. Recipes parse in milliseconds, but
/// tree-sitter-python's scanner is quadratic in a run of comment lines
/// inside a block (20 000 of them took a minute; found by packsmith-fuzz).
pub const PARSE_BUDGET: Duration = Duration::from_secs(1);

/// Parses `source`, giving up (None) at `deadline`.
pub fn parse_until(parser: &mut Parser, source: &str, deadline: Instant) -> Option<Tree> {
    let mut progress = |_: &ParseState| {
        if Instant::now() > deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = source.as_bytes();
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    if tree.is_none() {
        // A cancelled parse would otherwise resume on the next call.
        parser.reset();
    }
    tree
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's Python parser (made once per thread).
pub fn with_parser<T>(f: impl FnOnce(&mut Parser) -> Result<T, String>) -> Result<T, String> {
    PARSER.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_python::LANGUAGE.into())
                .map_err(|e| format!("tree-sitter-python grammar rejected: {e}"))?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut().ok_or("no parser")?;
        f(parser)
    })
}

/// The syntax tree of `source`, errors and all; `None` when the grammar
/// cannot be loaded or `deadline` (shared with the caller's other parses)
/// passes first.
pub fn parse_tree_until(source: &str, deadline: Instant) -> Option<Tree> {
    with_parser(|parser| {
        parse_until(parser, source, deadline).ok_or_else(|| "no tree within the budget".to_string())
    })
    .ok()
}

/// 1-based (line, byte column) of a node's start.
pub fn pos(node: Node) -> (u32, u32) {
    let p = node.start_position();
    (
        u32::try_from(p.row).unwrap_or(u32::MAX).saturating_add(1),
        u32::try_from(p.column)
            .unwrap_or(u32::MAX)
            .saturating_add(1),
    )
}

/// The source text of a node.
pub fn text<'s>(source: &'s str, node: Node) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// The class a module-level statement defines, decorated or not.
pub fn class_definition(stmt: Node) -> Option<Node> {
    match stmt.kind() {
        "class_definition" => Some(stmt),
        "decorated_definition" => stmt
            .child_by_field_name("definition")
            .filter(|def| def.kind() == "class_definition"),
        _ => None,
    }
}

/// The nodes of a class's parenthesised base list (bases, keyword
/// arguments and comments alike; callers pick what they read).
pub fn superclass_nodes(class: Node) -> Vec<Node> {
    let Some(list) = class.child_by_field_name("superclasses") else {
        return Vec::new();
    };
    let mut cur = list.walk();
    let nodes = list.named_children(&mut cur).collect();
    nodes
}

/// The expressions of a `with` statement's header, in order
/// (`with when("+mpi"), default_args(type="build"):` → the two calls).
pub fn with_items(stmt: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut cur = stmt.walk();
    for clause in stmt.named_children(&mut cur) {
        if clause.kind() != "with_clause" {
            continue;
        }
        let mut c2 = clause.walk();
        for item in clause.named_children(&mut c2) {
            if let Some(value) = item.child_by_field_name("value").or(item.named_child(0)) {
                out.push(value);
            }
        }
    }
    out
}

/// The called name of a call expression as written (`when`,
/// `spack.directives.when`); `None` for anything that is not a call.
pub fn call_name<'s>(source: &'s str, node: Node) -> Option<&'s str> {
    if node.kind() != "call" {
        return None;
    }
    node.child_by_field_name("function")
        .map(|f| text(source, f))
}
