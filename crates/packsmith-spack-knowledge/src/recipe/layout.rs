//! The layout of a `package.py` read from its syntax tree: every
//! module-level class with its bases, its class-level directive calls and
//! its methods, each with its exact position (line and column, for a
//! diagnostic) and byte span (for an edit). The static check and the edits
//! both read this one walk of the [`RecipeTree`](super::RecipeTree).

use std::ops::Range;

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

/// One argument of a call.
#[derive(Debug, Clone)]
pub struct Arg {
    pub keyword: Option<String>,
    /// Source text of the value with whitespace runs collapsed.
    pub text: String,
    /// The value as a string literal, concatenated or escaped ones too.
    pub lit: Option<StrLit>,
    /// The content of a plain string literal (one piece, no escapes, no
    /// f-string or bytes prefix): what an edit may rewrite in place.
    pub literal: Option<String>,
    /// The value expression.
    pub value: Range<usize>,
    /// `keyword=value` (or the value alone), for removal.
    pub whole: Range<usize>,
}

/// One class-level call statement such as
/// `depends_on("cmake@3.5:", type="build")`.
#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    /// The class whose body holds the call.
    pub class: String,
    pub args: Vec<Arg>,
    /// Literal conditions of the enclosing `with when(...)` blocks.
    pub when_stack: Vec<StrLit>,
    /// Enclosing `with` headers other than `when` (`default_args(...)`)
    /// and the if/for/try branches, as ids: two calls are only duplicates
    /// when they share all of them.
    pub scope: Vec<String>,
    /// Inside an if/for/while/try branch: edits leave such calls alone.
    pub in_branch: bool,
    /// Outside every `with when(...)` block.
    pub top_level: bool,
    /// 1-based line and byte column of the call.
    pub line: u32,
    pub col: u32,
    /// The whole statement line(s), from the start of its first line to
    /// the end of its last (newline included).
    pub lines: Range<usize>,
    /// The argument list, parentheses included.
    pub arg_list: Range<usize>,
    /// The block the call is a statement of (the class body, a `with` or a
    /// branch block): where it starts, and how many statements it holds.
    pub block: (usize, usize),
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

    /// The first argument when it is positional and a plain literal.
    pub fn first_literal(&self) -> Option<(&str, Range<usize>)> {
        let first = self.args.first().filter(|a| a.keyword.is_none())?;
        first.literal.as_deref().map(|l| (l, first.value.clone()))
    }
}

/// A method of a class.
#[derive(Debug, Clone)]
pub struct Method {
    pub name: String,
    /// From the `def` line's start (decorators included) to the end of the
    /// body's last line.
    pub lines: Range<usize>,
    /// The indentation of the body's statements.
    pub body_indent: String,
    /// Directly in the class body, not under a `with` block.
    pub top_level: bool,
    /// The last statement when it is `return <expr>`: its line span and
    /// the expression's span.
    pub final_return: Option<(Range<usize>, Range<usize>)>,
}

/// A class-level assignment such as `parallel = False`.
#[derive(Debug, Clone)]
pub struct Attribute {
    /// The name assigned.
    pub name: String,
    /// 1-based line of the assignment.
    pub line: u32,
    /// The whole statement line(s), from the start of its first line to
    /// the end of its last (newline included).
    pub lines: Range<usize>,
    /// The value expression (of `a = b = value`, the last one); an empty
    /// range at the statement's end for an annotation without a value
    /// (`x: int`).
    pub value: Range<usize>,
    /// The content of the value when it is a plain string literal (one
    /// piece, no escapes, no f-string or bytes prefix).
    pub literal: Option<String>,
}

/// A module-level class.
#[derive(Debug, Clone)]
pub struct ClassLayout {
    pub name: String,
    /// Positional bases as written (`CMakePackage`, `cmake.CMakeBuilder`)
    /// with their spans.
    pub bases: Vec<(String, Range<usize>)>,
    /// 1-based position of the class statement.
    pub line: u32,
    pub col: u32,
    /// Where the class's last line ends.
    pub end: usize,
    pub body_indent: String,
    /// Where the line of the body's first statement starts.
    pub body_start: usize,
    /// The docstring's whole line(s), when the body opens with one.
    pub docstring: Option<Range<usize>>,
    /// Assignments to plain names in the body and its `with` blocks.
    pub attributes: Vec<Attribute>,
    /// Its class-level calls, also inside `with` blocks and branches.
    pub calls: Vec<Call>,
    /// Its methods (not those under `with when(...)`).
    pub methods: Vec<Method>,
    /// Positions of `self` evaluated by the class body outside its methods.
    pub self_in_class_body: Vec<(u32, u32)>,
}

impl ClassLayout {
    pub fn base_names(&self) -> impl Iterator<Item = &str> {
        self.bases.iter().map(|(b, _)| b.as_str())
    }
}

/// A module-level `import` or `from … import` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportStatement {
    /// The module of `from module import …`; `None` for `import a, b`.
    pub from: Option<String>,
    /// `from module import *`.
    pub star: bool,
    /// 1-based line of the statement.
    pub line: u32,
    /// The whole statement line(s), from the start of its first line to
    /// the end of its last (newline included).
    pub lines: Range<usize>,
}

/// Every module-level class of a recipe, and its module-level imports.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    pub classes: Vec<ClassLayout>,
    /// The import statements directly at module level (not those guarded
    /// by `try`/`if`), in source order.
    pub imports: Vec<ImportStatement>,
}

impl Layout {
    /// The class-level calls of every class, in source order.
    pub fn calls(&self) -> impl Iterator<Item = &Call> {
        self.classes.iter().flat_map(|c| c.calls.iter())
    }

    /// The last class named `name` (Python keeps the last definition).
    pub fn class(&self, name: &str) -> Option<&ClassLayout> {
        self.classes.iter().rev().find(|c| c.name == name)
    }
}

pub(super) fn walk(source: &str, tree: &Tree) -> Layout {
    let mut out = Layout::default();
    let root = tree.root_node();
    let mut cur = root.walk();
    for node in root.named_children(&mut cur) {
        if matches!(node.kind(), "import_statement" | "import_from_statement") {
            out.imports.push(import_statement(source, node));
            continue;
        }
        let Some(class) = class_definition(node) else {
            continue;
        };
        let Some(name) = class.child_by_field_name("name") else {
            continue;
        };
        out.classes
            .push(read_class(source, class, text(source, name)));
    }
    out
}

fn import_statement(source: &str, node: Node) -> ImportStatement {
    let from = (node.kind() == "import_from_statement")
        .then(|| node.child_by_field_name("module_name"))
        .flatten()
        .map(|m| text(source, m).to_string());
    let mut cur = node.walk();
    let star = node
        .named_children(&mut cur)
        .any(|c| c.kind() == "wildcard_import");
    ImportStatement {
        from,
        star,
        line: pos(node).0,
        lines: line_start(source, node.start_byte())..line_end(source, node.end_byte()),
    }
}

fn read_class(source: &str, def: Node, name: &str) -> ClassLayout {
    let (line, col) = pos(def);
    let bases = pywalk::superclass_nodes(def)
        .into_iter()
        .filter(|b| matches!(b.kind(), "identifier" | "attribute"))
        .map(|b| (text(source, b).to_string(), b.byte_range()))
        .collect();
    let mut out = ClassLayout {
        name: name.to_string(),
        bases,
        line,
        col,
        end: line_end(source, def.end_byte()),
        body_indent: "    ".into(),
        body_start: line_end(source, def.start_byte()),
        docstring: None,
        attributes: Vec::new(),
        calls: Vec::new(),
        methods: Vec::new(),
        self_in_class_body: Vec::new(),
    };
    if let Some(body) = def.child_by_field_name("body") {
        if let Some(first) = body.named_child(0) {
            out.body_indent = indent_of(source, first.start_byte());
            out.body_start = line_start(source, first.start_byte());
            let docstring = first.kind() == "expression_statement"
                && first.named_child(0).is_some_and(|s| s.kind() == "string");
            if docstring {
                out.docstring = Some(
                    line_start(source, first.start_byte())..line_end(source, first.end_byte()),
                );
            }
        }
        let mut ctx = Ctx {
            source,
            class: name,
            when_stack: Vec::new(),
            scope: Vec::new(),
            in_branch: false,
        };
        block(&mut ctx, body, &mut out);
        out.self_in_class_body = self_references(source, body);
    }
    out
}

struct Ctx<'a> {
    source: &'a str,
    class: &'a str,
    when_stack: Vec<StrLit>,
    scope: Vec<String>,
    in_branch: bool,
}

fn block(ctx: &mut Ctx, node: Node, out: &mut ClassLayout) {
    let mut cur = node.walk();
    let statements = node
        .named_children(&mut cur)
        .filter(|s| s.kind() != "comment")
        .count();
    let here = (node.start_byte(), statements);
    let mut cur = node.walk();
    for stmt in node.named_children(&mut cur) {
        statement(ctx, stmt, here, out);
    }
}

fn statement(ctx: &mut Ctx, stmt: Node, here: (usize, usize), out: &mut ClassLayout) {
    match stmt.kind() {
        "expression_statement" => match stmt.named_child(0) {
            Some(call) if call.kind() == "call" => {
                if let Some(c) = directive_call(ctx, stmt, call, here) {
                    out.calls.push(c);
                }
            }
            Some(assignment) if assignment.kind() == "assignment" && !ctx.in_branch => {
                let left = assignment.child_by_field_name("left");
                if let Some(left) = left.filter(|l| l.kind() == "identifier") {
                    // `a = b = value`: the value is the innermost right side.
                    let mut value = assignment.child_by_field_name("right");
                    while let Some(chained) = value.filter(|v| v.kind() == "assignment") {
                        value = chained.child_by_field_name("right");
                    }
                    out.attributes.push(Attribute {
                        name: text(ctx.source, left).to_string(),
                        line: pos(stmt).0,
                        lines: line_start(ctx.source, stmt.start_byte())
                            ..line_end(ctx.source, stmt.end_byte()),
                        value: value.map_or(stmt.end_byte()..stmt.end_byte(), |v| v.byte_range()),
                        literal: value.and_then(|v| plain_literal(ctx.source, v)),
                    });
                }
            }
            _ => {}
        },
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
                block(ctx, body, out);
            }
            ctx.when_stack.truncate(ctx.when_stack.len() - pushed_when);
            ctx.scope.truncate(ctx.scope.len() - pushed_scope);
        }
        "if_statement" | "for_statement" | "while_statement" | "try_statement" => {
            // Each branch body is its own scope: the same directive in the
            // `if` and the `else` branch is not a duplicate.
            let was_in_branch = std::mem::replace(&mut ctx.in_branch, true);
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
                    block(ctx, body, out);
                    ctx.scope.pop();
                }
            }
            ctx.in_branch = was_in_branch;
        }
        "function_definition" | "decorated_definition"
            if ctx.when_stack.is_empty() && !ctx.in_branch =>
        {
            if let Some(mut m) = method(ctx.source, stmt) {
                m.top_level = ctx.scope.is_empty();
                out.methods.push(m);
            }
        }
        _ => {}
    }
}

fn directive_call(ctx: &Ctx, stmt: Node, call: Node, block: (usize, usize)) -> Option<Call> {
    let function = call.child_by_field_name("function")?;
    if function.kind() != "identifier" {
        return None;
    }
    let source = ctx.source;
    let args_node = call.child_by_field_name("arguments")?;
    let mut args = Vec::new();
    let mut cur = args_node.walk();
    for arg in args_node.named_children(&mut cur) {
        match arg.kind() {
            "comment" => {}
            "keyword_argument" => {
                let key = arg.child_by_field_name("name").map(|n| text(source, n));
                let value = arg.child_by_field_name("value");
                args.push(Arg {
                    keyword: key.map(str::to_string),
                    text: value.map(|v| compact(text(source, v))).unwrap_or_default(),
                    lit: value.and_then(|v| string_lit(source, v)),
                    literal: value.and_then(|v| plain_literal(source, v)),
                    value: value.unwrap_or(arg).byte_range(),
                    whole: arg.byte_range(),
                });
            }
            _ => args.push(Arg {
                keyword: None,
                text: compact(text(source, arg)),
                lit: string_lit(source, arg),
                literal: plain_literal(source, arg),
                value: arg.byte_range(),
                whole: arg.byte_range(),
            }),
        }
    }
    let (line, col) = pos(call);
    Some(Call {
        name: text(source, function).to_string(),
        class: ctx.class.to_string(),
        args,
        when_stack: ctx.when_stack.clone(),
        scope: ctx.scope.clone(),
        in_branch: ctx.in_branch,
        top_level: ctx.when_stack.is_empty(),
        line,
        col,
        lines: line_start(source, stmt.start_byte())..line_end(source, stmt.end_byte()),
        arg_list: args_node.byte_range(),
        block,
    })
}

fn method(source: &str, stmt: Node) -> Option<Method> {
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
    Some(Method {
        name,
        lines: line_start(source, stmt.start_byte())..line_end(source, def.end_byte()),
        body_indent: indent_of(source, first.start_byte()),
        top_level: true,
        final_return,
    })
}

/// 1-based positions of every `self` the class body evaluates while the
/// class is created: methods, nested classes and lambdas (run later, with
/// their own arguments) are not entered.
pub(crate) fn self_references(source: &str, body: Node) -> Vec<(u32, u32)> {
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
            // f-strings are literal only without fields; bytes are never specs.
            if prefix.contains('b') {
                return None;
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

/// The content of a plain (non-f, non-bytes, one-piece, unescaped) string
/// literal.
pub(crate) fn plain_literal(source: &str, node: Node) -> Option<String> {
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

/// The offset where the line holding `at` starts.
pub fn line_start(source: &str, at: usize) -> usize {
    source
        .get(..at)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |nl| nl + 1)
}

/// The offset just past the newline of the line holding `at` (or the end).
pub fn line_end(source: &str, at: usize) -> usize {
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
pub fn indent_of(source: &str, at: usize) -> String {
    let start = line_start(source, at);
    source[start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}
