//! The directive calls of a recipe with the position of each string
//! argument, which the recipe model does not keep: a bad spec is reported
//! at its exact column.

use tree_sitter::{Node, Tree};

use crate::pywalk::{self, call_name, class_definition, pos, text};

/// A string literal argument whose content maps 1:1 onto the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrLit {
    pub value: String,
    /// 1-based line and byte column of the first content character.
    pub line: u32,
    pub col: u32,
    /// False when escapes or concatenation break the offset mapping; a
    /// diagnostic then points at the string start.
    pub exact: bool,
}

impl StrLit {
    /// Position of byte `offset` inside the content.
    pub fn at(&self, offset: usize) -> (u32, u32) {
        if !self.exact {
            return (self.line, self.col);
        }
        let before = self.value.get(..offset).unwrap_or(&self.value);
        match before.rfind('\n') {
            Some(nl) => (
                self.line + before.matches('\n').count() as u32,
                (before.len() - nl) as u32,
            ),
            None => (self.line, self.col + before.len() as u32),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Arg {
    pub keyword: Option<String>,
    /// Source text with whitespace runs collapsed.
    pub text: String,
    pub lit: Option<StrLit>,
}

/// One class-level call such as `depends_on("cmake@3.5:", type="build")`.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub class: String,
    pub args: Vec<Arg>,
    /// Literal conditions of the enclosing `with when(...)` blocks.
    pub when_stack: Vec<StrLit>,
    /// Enclosing `with` headers other than `when` (`default_args(...)`)
    /// and the if/for/try branches, as ids: two calls are only duplicates
    /// when they share all of them.
    pub scope: Vec<String>,
    pub line: u32,
    pub col: u32,
}

impl Call {
    pub fn positional(&self) -> impl Iterator<Item = &Arg> {
        self.args.iter().filter(|a| a.keyword.is_none())
    }

    pub fn keyword(&self, name: &str) -> Option<&Arg> {
        self.args
            .iter()
            .find(|a| a.keyword.as_deref() == Some(name))
    }
}

/// A module-level class.
#[derive(Debug, Clone)]
pub struct ClassInfo {
    pub name: String,
    /// Positional bases as written (`CMakePackage`, `cmake.CMakeBuilder`).
    pub bases: Vec<String>,
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Default)]
pub struct Walk {
    pub calls: Vec<Call>,
    pub classes: Vec<ClassInfo>,
    /// Positions of `self` evaluated by a class body outside its methods.
    pub self_in_class_body: Vec<(u32, u32)>,
}

pub fn parse_tree(source: &str, deadline: std::time::Instant) -> Option<Tree> {
    pywalk::parse_tree_until(source, deadline)
}

pub fn walk(source: &str, tree: &Tree) -> Walk {
    let mut out = Walk::default();
    let root = tree.root_node();
    let mut cur = root.walk();
    for node in root.named_children(&mut cur) {
        let Some(class) = class_definition(node) else {
            continue;
        };
        let Some(name) = class.child_by_field_name("name") else {
            continue;
        };
        let name = text(source, name).to_string();
        let (line, col) = pos(class);
        let bases = pywalk::superclass_nodes(class)
            .into_iter()
            .filter(|b| matches!(b.kind(), "identifier" | "attribute"))
            .map(|b| text(source, b).to_string())
            .collect();
        out.classes.push(ClassInfo {
            name: name.clone(),
            bases,
            line,
            col,
        });
        if let Some(body) = class.child_by_field_name("body") {
            let mut ctx = Ctx {
                source,
                class: &name,
                when_stack: Vec::new(),
                scope: Vec::new(),
            };
            block(&mut ctx, body, &mut out.calls);
            out.self_in_class_body
                .extend(super::class_body::self_references(source, body));
        }
    }
    out
}

struct Ctx<'a> {
    source: &'a str,
    class: &'a str,
    when_stack: Vec<StrLit>,
    scope: Vec<String>,
}

fn block(ctx: &mut Ctx, node: Node, calls: &mut Vec<Call>) {
    let mut cur = node.walk();
    for stmt in node.named_children(&mut cur) {
        statement(ctx, stmt, calls);
    }
}

fn statement(ctx: &mut Ctx, stmt: Node, calls: &mut Vec<Call>) {
    match stmt.kind() {
        "expression_statement" => {
            if let Some(call) = stmt.named_child(0).filter(|n| n.kind() == "call") {
                if let Some(c) = directive_call(ctx, call) {
                    calls.push(c);
                }
            }
        }
        "with_statement" => {
            let mut pushed_when = 0;
            let mut pushed_scope = 0;
            for value in pywalk::with_items(stmt) {
                let lit = (call_name(ctx.source, value) == Some("when"))
                    .then(|| {
                        value
                            .child_by_field_name("arguments")
                            .and_then(|a| a.named_child(0))
                            .and_then(|a| string_lit(ctx.source, a))
                    })
                    .flatten();
                match lit {
                    Some(lit) => {
                        ctx.when_stack.push(lit);
                        pushed_when += 1;
                    }
                    None => {
                        ctx.scope.push(compact(text(ctx.source, value)));
                        pushed_scope += 1;
                    }
                }
            }
            if let Some(body) = stmt.child_by_field_name("body") {
                block(ctx, body, calls);
            }
            ctx.when_stack.truncate(ctx.when_stack.len() - pushed_when);
            ctx.scope.truncate(ctx.scope.len() - pushed_scope);
        }
        "if_statement" | "for_statement" | "while_statement" | "try_statement" => {
            // Each branch body is its own scope: the same directive in the
            // `if` and the `else` branch is not a duplicate.
            let mut cur = stmt.walk();
            for child in stmt.named_children(&mut cur) {
                let body = match child.kind() {
                    "block" => Some(child),
                    "elif_clause" | "else_clause" | "except_clause" | "finally_clause" => {
                        child.child_by_field_name("consequence").or_else(|| {
                            let mut c = child.walk();
                            let found = child.named_children(&mut c).find(|n| n.kind() == "block");
                            found
                        })
                    }
                    _ => None,
                };
                if let Some(body) = body {
                    ctx.scope.push(format!("branch@{}", body.start_byte()));
                    block(ctx, body, calls);
                    ctx.scope.pop();
                }
            }
        }
        _ => {}
    }
}

fn directive_call(ctx: &Ctx, call: Node) -> Option<Call> {
    let function = call.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    let name = text(ctx.source, function).to_string();
    let args_node = call.child_by_field_name("arguments")?;
    let mut args = Vec::new();
    let mut cur = args_node.walk();
    for arg in args_node.named_children(&mut cur) {
        match arg.kind() {
            "keyword_argument" => {
                let key = arg.child_by_field_name("name").map(|n| text(ctx.source, n));
                let value = arg.child_by_field_name("value");
                args.push(Arg {
                    keyword: key.map(str::to_string),
                    text: value
                        .map(|v| compact(text(ctx.source, v)))
                        .unwrap_or_default(),
                    lit: value.and_then(|v| string_lit(ctx.source, v)),
                });
            }
            "comment" => {}
            _ => args.push(Arg {
                keyword: None,
                text: compact(text(ctx.source, arg)),
                lit: string_lit(ctx.source, arg),
            }),
        }
    }
    let (line, col) = pos(call);
    Some(Call {
        name,
        class: ctx.class.to_string(),
        args,
        when_stack: ctx.when_stack.clone(),
        scope: ctx.scope.clone(),
        line,
        col,
    })
}

/// A plain string literal (no f-string fields), possibly concatenated.
fn string_lit(source: &str, node: Node) -> Option<StrLit> {
    match node.kind() {
        "string" => {
            let mut value = String::new();
            let mut first: Option<(u32, u32)> = None;
            let mut exact = true;
            let mut cur = node.walk();
            let start = node.child(0)?;
            let prefix = text(source, start).to_ascii_lowercase();
            let raw = prefix.contains('r');
            if prefix.contains('f') || prefix.contains('b') {
                // f-strings are literal only without fields; bytes are never specs.
                if prefix.contains('b') {
                    return None;
                }
            }
            for child in node.named_children(&mut cur) {
                match child.kind() {
                    "string_content" => {
                        if first.is_none() {
                            first = Some(pos(child));
                        }
                        let content = text(source, child);
                        // Backslash-newline inside a non-raw string continues the line.
                        if !raw && content.contains("\\\n") {
                            exact = false;
                            value.push_str(&content.replace("\\\r\n", "").replace("\\\n", ""));
                        } else {
                            value.push_str(content);
                        }
                    }
                    "escape_sequence" => {
                        exact = false;
                        value.push_str(&unescape(text(source, child)));
                    }
                    "interpolation" => return None,
                    _ => {}
                }
            }
            let (line, col) = first.unwrap_or_else(|| {
                let (l, c) = pos(start);
                (l, c + text(source, start).len() as u32)
            });
            Some(StrLit {
                value,
                line,
                col,
                exact,
            })
        }
        "concatenated_string" => {
            let mut cur = node.walk();
            let parts: Vec<StrLit> = node
                .named_children(&mut cur)
                .map(|p| string_lit(source, p))
                .collect::<Option<_>>()?;
            let first = parts.first()?;
            Some(StrLit {
                value: parts.iter().map(|p| p.value.as_str()).collect(),
                line: first.line,
                col: first.col,
                exact: parts.len() == 1 && first.exact,
            })
        }
        "parenthesized_expression" => string_lit(source, node.named_child(0)?),
        _ => None,
    }
}

fn unescape(seq: &str) -> String {
    match seq {
        "\\n" => "\n".into(),
        "\\t" => "\t".into(),
        "\\\\" => "\\".into(),
        "\\\"" => "\"".into(),
        "\\'" => "'".into(),
        "\\\n" => String::new(),
        other => other.to_string(),
    }
}

fn compact(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
