//! CMake define keys, and the small evaluator shared with class-level loops.
//!
//! Keys come from `define`/`define_from_variant`/`from_variant` calls (on any
//! receiver, or through a local alias), from `-DKEY=...` strings, and from
//! define calls inside loops and comprehensions over literal lists of names,
//! lists of tuples, or dicts (the loop is unrolled with the literal rows).

use std::collections::HashMap;

use tree_sitter::Node;

use super::context::{bind, target_names, Ctx, MAX_DEPTH};
use super::pyval::{Src, Value};
use super::{DefineHow, DefineKey};
use crate::pywalk::pos;

/// Evaluate an expression with loop bindings: names, f-strings, `+` on
/// strings, `.upper()`/`.lower()`, subscripts of bound dicts and sequences.
/// Anything else is [`Src::value`] (a literal, or `Value::Expr` source text).
pub fn eval<'t>(src: Src, node: Node<'t>, ctx: &Ctx<'t>) -> Value {
    eval_depth(src, node, ctx, 0)
}

fn eval_depth<'t>(src: Src, node: Node<'t>, ctx: &Ctx<'t>, depth: usize) -> Value {
    if depth > 32 {
        return src.value(node);
    }
    let expr = || Value::Expr(src.compact(node));
    match node.kind() {
        "identifier" => ctx.lookup(src.text(node)).cloned().unwrap_or_else(expr),
        "string" | "concatenated_string" => {
            if let Some(s) = src.lit_str(node) {
                return Value::Str(s);
            }
            if ctx.bindings.is_empty() {
                return expr();
            }
            let mut field = |e: Node| match eval_depth(src, e, ctx, depth + 1) {
                Value::Str(s) => Some(s),
                Value::Int(i) => Some(i.to_string()),
                _ => None,
            };
            src.fstring_with(node, &mut field)
                .map(Value::Str)
                .unwrap_or_else(expr)
        }
        "binary_operator" => {
            let op = node.child_by_field_name("operator").map(|o| src.text(o));
            let (Some(l), Some(r)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) else {
                return expr();
            };
            match (
                op,
                eval_depth(src, l, ctx, depth + 1),
                eval_depth(src, r, ctx, depth + 1),
            ) {
                (Some("+"), Value::Str(a), Value::Str(b)) => Value::Str(a + &b),
                (Some("%"), Value::Str(fmt), args) => {
                    percent_format(&fmt, args).unwrap_or_else(expr)
                }
                _ => expr(),
            }
        }
        "call" => {
            let func = node.child_by_field_name("function");
            let no_args = node
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0);
            match func.filter(|f| f.kind() == "attribute") {
                Some(f) if no_args => {
                    let method = f.child_by_field_name("attribute").map(|a| src.text(a));
                    let recv = f.child_by_field_name("object");
                    match (method, recv.map(|r| eval_depth(src, r, ctx, depth + 1))) {
                        (Some("upper"), Some(Value::Str(s))) => Value::Str(s.to_uppercase()),
                        (Some("lower"), Some(Value::Str(s))) => Value::Str(s.to_lowercase()),
                        _ => expr(),
                    }
                }
                _ => expr(),
            }
        }
        "subscript" => {
            let (Some(obj), Some(key)) = (
                node.child_by_field_name("value"),
                node.child_by_field_name("subscript"),
            ) else {
                return expr();
            };
            if ctx.bindings.is_empty() {
                return expr();
            }
            match (
                eval_depth(src, obj, ctx, depth + 1),
                eval_depth(src, key, ctx, depth + 1),
            ) {
                (Value::Dict(pairs), k) => pairs
                    .into_iter()
                    .find(|(pk, _)| *pk == k)
                    .map(|(_, v)| v)
                    .unwrap_or_else(expr),
                (Value::List(items) | Value::Tuple(items), Value::Int(i)) => {
                    let idx = if i < 0 { items.len() as i64 + i } else { i };
                    usize::try_from(idx)
                        .ok()
                        .and_then(|i| items.get(i).cloned())
                        .unwrap_or_else(expr)
                }
                _ => expr(),
            }
        }
        "list" | "tuple" if !ctx.bindings.is_empty() => {
            let mut cur = node.walk();
            let items = node
                .named_children(&mut cur)
                .filter(|c| c.kind() != "comment")
                .map(|c| eval_depth(src, c, ctx, depth + 1))
                .collect();
            if node.kind() == "list" {
                Value::List(items)
            } else {
                Value::Tuple(items)
            }
        }
        "parenthesized_expression" if node.named_child_count() == 1 => match node.named_child(0) {
            Some(inner) => eval_depth(src, inner, ctx, depth + 1),
            None => expr(),
        },
        _ => src.value(node),
    }
}

/// `"+%s" % x` with `%s`/`%d` only.
fn percent_format(fmt: &str, args: Value) -> Option<Value> {
    let args = match args {
        Value::Tuple(items) => items,
        Value::Expr(_) | Value::Dict(_) => return None,
        other => vec![other],
    };
    let mut args = args.into_iter();
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            '%' => out.push('%'),
            's' | 'd' => match args.next()? {
                Value::Expr(_) => return None,
                v => out.push_str(&v.to_text()),
            },
            _ => return None,
        }
    }
    args.next().is_none().then_some(Value::Str(out))
}

/// The rows a `for` iterates over, when they are known statically, and
/// whether they came from a dict. Follows names through `names`.
pub fn resolve_rows<'t>(
    src: Src,
    node: Node<'t>,
    names: &HashMap<String, Node<'t>>,
    ctx: &Ctx<'t>,
) -> Option<(Vec<Value>, bool)> {
    resolve_depth(src, node, names, ctx, 0)
}

fn resolve_depth<'t>(
    src: Src,
    node: Node<'t>,
    names: &HashMap<String, Node<'t>>,
    ctx: &Ctx<'t>,
    depth: usize,
) -> Option<(Vec<Value>, bool)> {
    if depth > 8 {
        return None;
    }
    match node.kind() {
        "list" | "tuple" | "expression_list" | "set" => {
            let mut cur = node.walk();
            let rows = node
                .named_children(&mut cur)
                .filter(|c| c.kind() != "comment")
                .map(|c| eval(src, c, ctx))
                .collect();
            Some((rows, false))
        }
        "dictionary" => match src.value(node) {
            Value::Dict(pairs) => Some((pairs.into_iter().map(|(k, _)| k).collect(), true)),
            _ => None,
        },
        "parenthesized_expression" => {
            resolve_depth(src, node.named_child(0)?, names, ctx, depth + 1)
        }
        "identifier" => {
            let name = src.text(node);
            match ctx.lookup(name) {
                Some(Value::List(items) | Value::Tuple(items)) => Some((items.clone(), false)),
                Some(_) => None,
                None => resolve_depth(src, *names.get(name)?, names, ctx, depth + 1),
            }
        }
        "call" => {
            let func = node.child_by_field_name("function")?;
            match func.kind() {
                // d.items() / d.keys() / d.values()
                "attribute" => {
                    let method = src.text(func.child_by_field_name("attribute")?);
                    let mut obj = func.child_by_field_name("object")?;
                    for _ in 0..8 {
                        if obj.kind() != "identifier" {
                            break;
                        }
                        match names.get(src.text(obj)) {
                            Some(n) => obj = *n,
                            None => break,
                        }
                    }
                    let Value::Dict(pairs) = src.value(obj) else {
                        return None;
                    };
                    let rows = match method {
                        "items" => pairs
                            .into_iter()
                            .map(|(k, v)| Value::Tuple(vec![k, v]))
                            .collect(),
                        "keys" => pairs.into_iter().map(|(k, _)| k).collect(),
                        "values" => pairs.into_iter().map(|(_, v)| v).collect(),
                        _ => return None,
                    };
                    Some((rows, true))
                }
                // sorted(x) / list(x) / tuple(x) keep the rows.
                "identifier" if matches!(src.text(func), "sorted" | "list" | "tuple") => {
                    let args = node.child_by_field_name("arguments")?;
                    if args.named_child_count() != 1 {
                        return None;
                    }
                    resolve_depth(src, args.named_child(0)?, names, ctx, depth + 1)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

const DEFINE_FNS: &[(&str, DefineHow)] = &[
    ("define", DefineHow::Define),
    ("define_from_variant", DefineHow::DefineFromVariant),
    ("from_variant", DefineHow::FromVariant),
    ("cmake_cache_option", DefineHow::CacheEntry),
    ("cmake_cache_string", DefineHow::CacheEntry),
    ("cmake_cache_path", DefineHow::CacheEntry),
    ("cmake_cache_filepath", DefineHow::CacheEntry),
];

const SKIP_CALLS: &[&str] = &[
    "version",
    "depends_on",
    "variant",
    "conflicts",
    "requires",
    "provides",
    "patch",
    "resource",
    "license",
    "maintainers",
];

/// Collect every define key in the module.
pub fn collect(src: Src, root: Node, out: &mut Vec<DefineKey>) {
    let mut walker = Walker {
        src,
        aliases: HashMap::new(),
        names: HashMap::new(),
        functions: Vec::new(),
        out,
    };
    walker.visit(root, 0);
}

struct Walker<'s, 't, 'o> {
    src: Src<'s>,
    /// Local names bound to a define function (`d = self.define_from_variant`).
    aliases: HashMap<String, DefineHow>,
    /// `NAME = value` assignments seen so far, in document order.
    names: HashMap<String, Node<'t>>,
    functions: Vec<String>,
    out: &'o mut Vec<DefineKey>,
}

impl<'t> Walker<'_, 't, '_> {
    fn visit(&mut self, node: Node<'t>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match node.kind() {
            "function_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| self.src.text(n).to_string())
                    .unwrap_or_default();
                self.functions.push(name);
                self.children(node, depth);
                self.functions.pop();
                return;
            }
            "assignment" => self.assignment(node),
            "call" => {
                // Directive arguments never hold defines; skipping them saves
                // walking long version lists.
                let directive = node
                    .child_by_field_name("function")
                    .is_some_and(|f| SKIP_CALLS.contains(&self.src.text(f)));
                if directive {
                    return;
                }
                self.define_call(node, &Ctx::default(), None)
            }
            "string" | "concatenated_string" => {
                self.dash_d(node, &Ctx::default(), None);
                return;
            }
            "for_statement" => {
                if let (Some(left), Some(right), Some(body)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                    node.child_by_field_name("body"),
                ) {
                    self.unroll(left, right, body, depth);
                }
            }
            "list_comprehension" | "generator_expression" | "set_comprehension" => {
                let clause = {
                    let mut cur = node.walk();
                    let found = node
                        .named_children(&mut cur)
                        .find(|c| c.kind() == "for_in_clause");
                    found
                };
                if let (Some(clause), Some(body)) = (clause, node.child_by_field_name("body")) {
                    if let (Some(left), Some(right)) = (
                        clause.child_by_field_name("left"),
                        clause.child_by_field_name("right"),
                    ) {
                        self.unroll(left, right, body, depth);
                    }
                }
            }
            _ => {}
        }
        self.children(node, depth);
    }

    fn children(&mut self, node: Node<'t>, depth: usize) {
        let mut cur = node.walk();
        for child in node.named_children(&mut cur) {
            self.visit(child, depth + 1);
        }
    }

    fn assignment(&mut self, node: Node<'t>) {
        let (Some(left), Some(right)) = (
            node.child_by_field_name("left"),
            node.child_by_field_name("right"),
        ) else {
            return;
        };
        if left.kind() != "identifier" {
            return;
        }
        let name = self.src.text(left).to_string();
        if let Some(how) = self.define_fn(right) {
            self.aliases.insert(name.clone(), how);
        }
        self.names.insert(name, right);
    }

    /// Which define function an expression names, if any.
    fn define_fn(&self, func: Node) -> Option<DefineHow> {
        let name = match func.kind() {
            "identifier" => {
                let n = self.src.text(func);
                if let Some(how) = self.aliases.get(n) {
                    return Some(*how);
                }
                n
            }
            "attribute" => self.src.text(func.child_by_field_name("attribute")?),
            _ => return None,
        };
        DEFINE_FNS.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
    }

    /// `loop_how` is set while unrolling: then only keys that depend on the
    /// loop bindings are emitted (the plain walk emits the literal ones).
    fn define_call(&mut self, call: Node<'t>, ctx: &Ctx<'t>, loop_how: Option<DefineHow>) {
        let Some(how) = call
            .child_by_field_name("function")
            .and_then(|f| self.define_fn(f))
        else {
            return;
        };
        let Some(args) = call.child_by_field_name("arguments") else {
            return;
        };
        let positional: Vec<Node> = {
            let mut cur = args.walk();
            let found = args
                .named_children(&mut cur)
                .filter(|a| !matches!(a.kind(), "keyword_argument" | "comment"))
                .collect();
            found
        };
        let Some(first) = positional.first() else {
            return;
        };
        if loop_how.is_some() && self.src.lit_str(*first).is_some() {
            return;
        }
        let Value::Str(key) = eval(self.src, *first, ctx) else {
            return;
        };
        let variant = match how {
            DefineHow::Define | DefineHow::CacheEntry => None,
            _ => positional
                .get(1)
                .and_then(|v| match eval(self.src, *v, ctx) {
                    Value::Str(s) => Some(s),
                    _ => None,
                }),
        };
        self.emit(
            key.trim().to_string(),
            loop_how.unwrap_or(how),
            variant,
            call,
        );
    }

    fn dash_d(&mut self, node: Node<'t>, ctx: &Ctx<'t>, loop_how: Option<DefineHow>) {
        let text = match loop_how {
            Some(_) => {
                if self.src.lit_str(node).is_some() {
                    return;
                }
                match eval(self.src, node, ctx) {
                    Value::Str(s) => s,
                    _ => return,
                }
            }
            None => match self.src.str_prefix(node) {
                Some((prefix, _)) => prefix,
                None => return,
            },
        };
        let Some(rest) = text.trim_start().strip_prefix("-D") else {
            return;
        };
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let key = &rest[..end];
        // Require `=` or `:TYPE=` so `-DNDEBUG`-style compiler flags are skipped.
        if key.is_empty() || !matches!(rest[end..].chars().next(), Some('=' | ':')) {
            return;
        }
        self.emit(
            key.to_string(),
            loop_how.unwrap_or(DefineHow::DashD),
            None,
            node,
        );
    }

    fn emit(&mut self, key: String, how: DefineHow, variant: Option<String>, at: Node) {
        if key.is_empty() {
            return;
        }
        let (line, col) = pos(at);
        self.out.push(DefineKey {
            key,
            how,
            variant,
            function: self.functions.last().cloned(),
            line,
            col,
        });
    }

    /// Unroll a loop or comprehension over known rows and harvest the keys
    /// its body builds from the loop variables.
    fn unroll(&mut self, left: Node<'t>, right: Node<'t>, body: Node<'t>, depth: usize) {
        let Some(targets) = target_names(self.src, left) else {
            return;
        };
        let ctx = Ctx::default();
        let Some((rows, from_dict)) = resolve_rows(self.src, right, &self.names, &ctx) else {
            return;
        };
        let how = if from_dict {
            DefineHow::Dict
        } else {
            DefineHow::Loop
        };
        for row in rows {
            let Some(bound) = bind(&targets, row) else {
                continue;
            };
            let ctx = Ctx {
                bindings: bound,
                ..Ctx::default()
            };
            self.harvest(body, &ctx, how, depth);
        }
    }

    fn harvest(&mut self, node: Node<'t>, ctx: &Ctx<'t>, how: DefineHow, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match node.kind() {
            "call" => self.define_call(node, ctx, Some(how)),
            "string" | "concatenated_string" => {
                self.dash_d(node, ctx, Some(how));
                return;
            }
            // Nested loops are unrolled by the plain walk on their own.
            "for_statement" | "list_comprehension" | "generator_expression" => return,
            _ => {}
        }
        let mut cur = node.walk();
        for child in node.named_children(&mut cur) {
            self.harvest(child, ctx, how, depth + 1);
        }
    }
}
