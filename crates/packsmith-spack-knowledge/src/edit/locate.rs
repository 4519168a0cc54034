//! Exact byte positions in a `package.py`, read from the syntax tree, that
//! the edit operations need: the package class and its bases, its
//! directive calls (with each argument's span) and its methods.

use std::ops::Range;
use std::time::Instant;

use tree_sitter::Node;

use crate::pywalk::{self, call_name, class_definition, text, with_items};

/// One argument of a call.
#[derive(Debug, Clone)]
pub(super) struct ArgSpan {
    pub keyword: Option<String>,
    /// The value expression.
    pub value: Range<usize>,
    /// `keyword=value` (or the value alone), for removal.
    pub whole: Range<usize>,
    /// The content of a plain string literal.
    pub literal: Option<String>,
}

/// A class-level call statement such as `depends_on("zlib", when="+z")`.
#[derive(Debug, Clone)]
pub(super) struct DirectiveCall {
    pub name: String,
    /// The whole statement line(s), from the start of its first line to
    /// the end of its last (newline included).
    pub lines: Range<usize>,
    /// The call's argument list, parentheses included.
    pub arg_list: Range<usize>,
    pub args: Vec<ArgSpan>,
    /// 1-based line of the call.
    pub line: u32,
    /// Directly in the class body (not inside a `with` block).
    pub top_level: bool,
    /// The conditions of the enclosing `with when(...)` blocks.
    pub when_stack: Vec<String>,
}

impl DirectiveCall {
    pub fn keyword(&self, name: &str) -> Option<&ArgSpan> {
        self.args
            .iter()
            .find(|a| a.keyword.as_deref() == Some(name))
    }

    pub fn first_literal(&self) -> Option<(&str, Range<usize>)> {
        let first = self.args.first().filter(|a| a.keyword.is_none())?;
        first.literal.as_deref().map(|l| (l, first.value.clone()))
    }
}

/// A method of the package class.
#[derive(Debug, Clone)]
pub(super) struct MethodSpan {
    pub name: String,
    /// From the `def` line's start to the end of the body's last line.
    pub lines: Range<usize>,
    /// The indentation of the body's statements.
    pub body_indent: String,
    /// The last statement when it is `return <expr>`: its line span and
    /// the expression's span.
    pub final_return: Option<(Range<usize>, Range<usize>)>,
}

/// The package class.
#[derive(Debug, Clone)]
pub(super) struct ClassSpan {
    pub name: String,
    /// Each base as written with its span.
    pub bases: Vec<(String, Range<usize>)>,
    /// Where the class's last line ends.
    pub end: usize,
    pub body_indent: String,
    pub directives: Vec<DirectiveCall>,
    pub methods: Vec<MethodSpan>,
}

/// What the edits read of one version of the recipe.
#[derive(Debug, Clone)]
pub(super) struct Reading {
    pub class: ClassSpan,
}

/// Reads `source`; `Err` says why it cannot be edited.
pub(super) fn read(source: &str) -> Result<Reading, String> {
    let deadline = Instant::now() + pywalk::PARSE_BUDGET;
    let tree = pywalk::parse_tree_until(source, deadline)
        .ok_or("the recipe could not be parsed in time")?;
    let root = tree.root_node();
    let package_name = crate::recipe::parse_recipe(source, "package.py")
        .class_name
        .ok_or("the recipe defines no package class")?;
    let mut cur = root.walk();
    let mut class = None;
    for stmt in root.named_children(&mut cur) {
        let Some(def) = class_definition(stmt) else {
            continue;
        };
        let Some(name) = def.child_by_field_name("name") else {
            continue;
        };
        if text(source, name) == package_name {
            class = Some(read_class(source, def, &package_name));
        }
    }
    let class = class.ok_or_else(|| format!("class {package_name} not found"))?;
    Ok(Reading { class })
}

fn read_class(source: &str, def: Node, name: &str) -> ClassSpan {
    let bases = pywalk::superclass_nodes(def)
        .into_iter()
        .filter(|b| matches!(b.kind(), "identifier" | "attribute"))
        .map(|b| (text(source, b).to_string(), b.byte_range()))
        .collect();
    let mut out = ClassSpan {
        name: name.to_string(),
        bases,
        end: line_end(source, def.end_byte()),
        body_indent: "    ".into(),
        directives: Vec::new(),
        methods: Vec::new(),
    };
    if let Some(body) = def.child_by_field_name("body") {
        if let Some(first) = body.named_child(0) {
            out.body_indent = indent_of(source, first.start_byte());
        }
        block(source, body, &mut Vec::new(), &mut out);
    }
    out
}

/// Collects directive calls (also inside `with` blocks) and methods.
fn block(source: &str, body: Node, when_stack: &mut Vec<String>, out: &mut ClassSpan) {
    let mut cur = body.walk();
    for stmt in body.named_children(&mut cur) {
        match stmt.kind() {
            "expression_statement" => {
                if let Some(call) = stmt.named_child(0).filter(|c| c.kind() == "call") {
                    if let Some(d) = directive(source, stmt, call, when_stack) {
                        out.directives.push(d);
                    }
                }
            }
            "with_statement" => {
                let conditions: Vec<String> = with_items(stmt)
                    .into_iter()
                    .filter(|item| call_name(source, *item) == Some("when"))
                    .filter_map(|item| {
                        let args = item.child_by_field_name("arguments")?;
                        args.named_child(0).and_then(|a| string_literal(source, a))
                    })
                    .collect();
                let depth = when_stack.len();
                when_stack.extend(conditions);
                if let Some(inner) = stmt.child_by_field_name("body") {
                    block(source, inner, when_stack, out);
                }
                when_stack.truncate(depth);
            }
            "function_definition" | "decorated_definition" if when_stack.is_empty() => {
                if let Some(m) = method(source, stmt) {
                    out.methods.push(m);
                }
            }
            _ => {}
        }
    }
}

fn directive(source: &str, stmt: Node, call: Node, when_stack: &[String]) -> Option<DirectiveCall> {
    let name = call_name(source, call)?.to_string();
    let arg_list = call.child_by_field_name("arguments")?;
    let mut args = Vec::new();
    let mut cur = arg_list.walk();
    for arg in arg_list.named_children(&mut cur) {
        match arg.kind() {
            "comment" => {}
            "keyword_argument" => {
                let key = arg.child_by_field_name("name")?;
                let value = arg.child_by_field_name("value")?;
                args.push(ArgSpan {
                    keyword: Some(text(source, key).to_string()),
                    value: value.byte_range(),
                    whole: arg.byte_range(),
                    literal: string_literal(source, value),
                });
            }
            _ => args.push(ArgSpan {
                keyword: None,
                value: arg.byte_range(),
                whole: arg.byte_range(),
                literal: string_literal(source, arg),
            }),
        }
    }
    let start = line_start(source, stmt.start_byte());
    Some(DirectiveCall {
        name,
        lines: start..line_end(source, stmt.end_byte()),
        arg_list: arg_list.byte_range(),
        args,
        line: u32::try_from(stmt.start_position().row + 1).unwrap_or(u32::MAX),
        top_level: when_stack.is_empty(),
        when_stack: when_stack.to_vec(),
    })
}

fn method(source: &str, stmt: Node) -> Option<MethodSpan> {
    let def = match stmt.kind() {
        "decorated_definition" => stmt.child_by_field_name("definition")?,
        _ => stmt,
    };
    let name = text(source, def.child_by_field_name("name")?).to_string();
    let body = def.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    let count = u32::try_from(body.named_child_count()).ok()?;
    let last = body.named_child(count.checked_sub(1)?)?;
    let final_return = (last.kind() == "return_statement")
        .then(|| last.named_child(0))
        .flatten()
        .map(|expr| {
            (
                line_start(source, last.start_byte())..line_end(source, last.end_byte()),
                expr.byte_range(),
            )
        });
    Some(MethodSpan {
        name,
        lines: line_start(source, stmt.start_byte())..line_end(source, def.end_byte()),
        body_indent: indent_of(source, first.start_byte()),
        final_return,
    })
}

/// The content of a plain (non-f, non-concatenated) string literal.
pub(super) fn string_literal(source: &str, node: Node) -> Option<String> {
    if node.kind() != "string" {
        return None;
    }
    let raw = text(source, node);
    if raw.starts_with(['f', 'F', 'b', 'B']) {
        return None;
    }
    let mut cur = node.walk();
    let mut content = String::new();
    for child in node.named_children(&mut cur) {
        match child.kind() {
            "string_start" | "string_end" => {}
            "string_content" => content.push_str(text(source, child)),
            _ => return None,
        }
    }
    Some(content)
}

/// The offset where the line holding `at` starts.
pub(super) fn line_start(source: &str, at: usize) -> usize {
    source
        .get(..at)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |nl| nl + 1)
}

/// The offset just past the newline of the line holding `at` (or the end).
pub(super) fn line_end(source: &str, at: usize) -> usize {
    let at = at.min(source.len());
    if at > 0 && source.as_bytes().get(at - 1) == Some(&b'\n') {
        return at;
    }
    match source.get(at..).and_then(|s| s.find('\n')) {
        Some(nl) => at + nl + 1,
        None => source.len(),
    }
}

/// The leading whitespace of the line holding `at`.
pub(super) fn indent_of(source: &str, at: usize) -> String {
    let start = line_start(source, at);
    source[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}
