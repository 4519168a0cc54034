//! The tree-sitter walk: module → imports and classes → package class body.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::pywalk::{self, with_parser};

use super::context::{bind, target_names, Ctx, Reader, MAX_DEPTH};
use super::imports::{detect_generation, read_import};
use super::pyval::{Src, Value};
use super::{Attribute, Method, ParsedRecipe, SpackGeneration, SyntaxError};
use crate::pywalk::pos;

/// Syntax errors reported per file; the rest are noise after the first few.
const MAX_ERRORS: usize = 50;

/// Parse the file; when it has errors, also try the statement-wise recovery
/// and return the failed statement parses whose errors are to be reported.
/// The first tree is the file's own parse, the second the one to read
/// (the recovered one when recovery worked).
fn parse_tree(source: &str) -> Result<(Tree, Tree, Option<Vec<Tree>>), String> {
    // One budget for the whole-file parse and the recovery together.
    let deadline = std::time::Instant::now() + crate::pywalk::PARSE_BUDGET;
    with_parser(|parser| {
        let tree = crate::pywalk::parse_until(parser, source, deadline).ok_or_else(|| {
            format!(
                "parsing took over {} s, so the file was not read (are there thousands of \
                 comment lines in a row?)",
                crate::pywalk::PARSE_BUDGET.as_secs()
            )
        })?;
        if !tree.root_node().has_error() {
            return Ok((tree.clone(), tree, None));
        }
        Ok(match super::recover::recover(parser, source, deadline) {
            Some((recovered, failed)) => (tree, recovered, Some(failed)),
            None => (tree.clone(), tree, None),
        })
    })
}

/// Larger sources are not parsed: Spack's largest recipes are under
/// 100 KB, and a hostile 10 MB file of `[` took a minute and a gigabyte
/// of tree-sitter stack in a debug build (found by packsmith-fuzz).
pub const MAX_RECIPE_BYTES: usize = 1 << 20;

/// Longer lines are not parsed either: tree-sitter's error recovery on a
/// 900 KB class header ran a second past the parse budget, whose deadline
/// it checks too seldom (found by packsmith-fuzz); Spack's recipes keep
/// their lines short.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// The recipe read from `source`, and the file's own syntax tree (`None`
/// when the file was too large or took too long to parse).
pub fn parse(source: &str, path: &str) -> (ParsedRecipe, Option<Tree>) {
    let mut recipe = ParsedRecipe {
        path: path.to_string(),
        ..ParsedRecipe::default()
    };
    if source.len() > MAX_RECIPE_BYTES {
        recipe.syntax_errors.push(SyntaxError {
            line: 1,
            col: 1,
            message: format!(
                "the file is {} bytes, more than a recipe's {} MiB; it was not parsed",
                source.len(),
                MAX_RECIPE_BYTES >> 20
            ),
        });
        return (recipe, None);
    }
    if let Some((n, line)) = source
        .lines()
        .enumerate()
        .find(|(_, l)| l.len() > MAX_LINE_BYTES)
    {
        recipe.syntax_errors.push(SyntaxError {
            line: u32::try_from(n + 1).unwrap_or(u32::MAX),
            col: 1,
            message: format!(
                "line {} is {} bytes, more than a recipe's {} KiB; the file was not parsed",
                n + 1,
                line.len(),
                MAX_LINE_BYTES >> 10
            ),
        });
        return (recipe, None);
    }
    let (plain, tree, failed) = match parse_tree(source) {
        Ok(t) => t,
        Err(message) => {
            recipe.syntax_errors.push(SyntaxError {
                line: 1,
                col: 1,
                message,
            });
            return (recipe, None);
        }
    };
    let root = tree.root_node();
    let src = Src::new(source);
    match &failed {
        Some(failed) => {
            for t in failed {
                collect_errors(src, t.root_node(), &mut recipe.syntax_errors, 0);
            }
            // The recovered tree can still carry errors of its own.
            collect_errors(src, root, &mut recipe.syntax_errors, 0);
        }
        None => collect_errors(src, root, &mut recipe.syntax_errors, 0),
    }
    // tree-sitter recovers from a line at the wrong depth without an
    // error node; Python (and so Spack's loader) does not.
    if recipe.syntax_errors.is_empty() {
        recipe
            .syntax_errors
            .extend(super::indent::indentation_error(source));
    }

    let mut classes = Vec::new();
    let mut names = HashMap::new();
    scan_module(src, root, &mut recipe, &mut classes, &mut names, 0);
    recipe.generation = detect_generation(&recipe.imports);
    // A bare `from spack.package import *` is valid in both generations; the
    // v1 package repo lives under a `spack_repo` directory.
    if recipe.generation == SpackGeneration::V0
        && path.replace('\\', "/").contains("/spack_repo/")
        && !recipe
            .imports
            .iter()
            .any(|i| i.module.starts_with("spack.build_systems"))
    {
        recipe.generation = SpackGeneration::V1;
    }

    let package = pick_package_class(src, &classes, path);
    let mut reader = Reader {
        src,
        names,
        recipe: &mut recipe,
    };
    if let Some(class) = package {
        let locals = local_base_chain(src, class, &classes);
        reader.recipe.local_bases = locals
            .iter()
            .filter_map(|c| c.child_by_field_name("name"))
            .map(|n| src.text(n).to_string())
            .collect();
        for base in locals.iter().rev() {
            reader.read_class_body(*base);
        }
        reader.read_class(class);
    }
    for class in &classes {
        reader.read_methods(*class);
    }
    super::defines::collect(src, root, &mut recipe.define_keys);
    (recipe, Some(plain))
}

/// Module level: imports, classes and simple `NAME = literal` assignments
/// (loops in the class body often iterate over those).
fn scan_module<'t>(
    src: Src,
    node: Node<'t>,
    recipe: &mut ParsedRecipe,
    classes: &mut Vec<Node<'t>>,
    names: &mut HashMap<String, Node<'t>>,
    depth: usize,
) {
    if depth > 4 {
        return;
    }
    let mut cur = node.walk();
    for stmt in node.named_children(&mut cur) {
        match stmt.kind() {
            "import_statement" | "import_from_statement" => {
                recipe.imports.extend(read_import(src, stmt));
            }
            "class_definition" | "decorated_definition" => {
                classes.extend(pywalk::class_definition(stmt));
            }
            "expression_statement" => {
                if let Some(a) = stmt.named_child(0).filter(|a| a.kind() == "assignment") {
                    if let (Some(l), Some(r)) = (
                        a.child_by_field_name("left"),
                        a.child_by_field_name("right"),
                    ) {
                        if l.kind() == "identifier" {
                            names.insert(src.text(l).to_string(), r);
                        }
                    }
                }
            }
            // Imports guarded by try/if, and whatever tree-sitter could not place.
            "try_statement" | "if_statement" | "block" | "ERROR" | "else_clause"
            | "except_clause" | "elif_clause" => {
                scan_module(src, stmt, recipe, classes, names, depth + 1)
            }
            _ => {}
        }
    }
}

fn bases_of(src: Src, class: Node) -> Vec<String> {
    pywalk::superclass_nodes(class)
        .into_iter()
        .filter(|b| b.kind() != "keyword_argument" && b.kind() != "comment")
        .map(|b| src.compact(b))
        .collect()
}

fn is_package_base(base: &str) -> bool {
    let last = base.rsplit('.').next().unwrap_or(base);
    last.ends_with("Package")
}

const DIRECTIVE_NAMES: &[&str] = &[
    "version",
    "variant",
    "depends_on",
    "conflicts",
    "provides",
    "requires",
    "patch",
    "resource",
    "extends",
    "build_system",
    "license",
    "maintainers",
];

/// Spack's class name for a package directory (`py-pillow`/`py_pillow` → `PyPillow`).
fn expected_class_name(path: &str) -> Option<String> {
    let mut parts = path.rsplit(['/', '\\']);
    let file = parts.next()?;
    let dir = if file == "package.py" {
        parts.next()?
    } else {
        file.strip_suffix(".py")?
    };
    let mut name: String = dir
        .split(['-', '_'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut cs = p.chars();
            cs.next()
                .map(|c| c.to_uppercase().chain(cs).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    Some(name)
}

/// Classes of this file that `class` derives from, nearest first.
fn local_base_chain<'t>(src: Src, class: Node<'t>, classes: &[Node<'t>]) -> Vec<Node<'t>> {
    let mut chain: Vec<Node<'t>> = Vec::new();
    let mut todo = vec![class];
    while let Some(c) = todo.pop() {
        for base in bases_of(src, c) {
            let found = classes.iter().find(|k| {
                k.child_by_field_name("name").map(|n| src.text(n)) == Some(base.as_str())
            });
            if let Some(k) = found {
                if *k != class && !chain.contains(k) && chain.len() < 16 {
                    chain.push(*k);
                    todo.push(*k);
                }
            }
        }
    }
    chain
}

/// The package class: the one named after the package directory, else the
/// first deriving from a `*Package` base, else the first whose body calls
/// directives (a recipe deriving from another recipe's class).
fn pick_package_class<'t>(src: Src, classes: &[Node<'t>], path: &str) -> Option<Node<'t>> {
    let has_package_base = |c: Node<'t>| {
        std::iter::once(c)
            .chain(local_base_chain(src, c, classes))
            .any(|k| bases_of(src, k).iter().any(|b| is_package_base(b)))
    };
    let is_candidate = |c: Node<'t>| has_package_base(c) || calls_directives(src, c);
    if let Some(expected) = expected_class_name(path) {
        let named = classes.iter().copied().find(|c| {
            c.child_by_field_name("name").map(|n| src.text(n)) == Some(expected.as_str())
        });
        if let Some(c) = named.filter(|c| is_candidate(*c)) {
            return Some(c);
        }
    }
    if let Some(c) = classes
        .iter()
        .find(|c| bases_of(src, **c).iter().any(|b| is_package_base(b)))
    {
        return Some(*c);
    }
    classes.iter().copied().find(|c| {
        calls_directives(src, *c) && bases_of(src, *c).iter().all(|b| !b.ends_with("Builder"))
    })
}

fn calls_directives(src: Src, class: Node) -> bool {
    let Some(body) = class.child_by_field_name("body") else {
        return false;
    };
    let mut cur = body.walk();
    let found = body.named_children(&mut cur).any(|stmt| {
        stmt.named_child(0)
            .filter(|e| e.kind() == "call")
            .and_then(|e| e.child_by_field_name("function"))
            .is_some_and(|f| DIRECTIVE_NAMES.contains(&src.text(f)))
    });
    found
}

fn collect_errors(src: Src, node: Node, out: &mut Vec<SyntaxError>, depth: usize) {
    if out.len() >= MAX_ERRORS || depth > MAX_DEPTH {
        return;
    }
    if node.is_error() || node.is_missing() {
        let (line, col) = pos(node);
        let message = if node.is_missing() {
            format!("missing `{}`", node.kind())
        } else {
            let text = src.compact(node);
            let snippet: String = text.chars().take(40).collect();
            let more = if text.chars().count() > 40 { "…" } else { "" };
            format!("cannot parse `{snippet}{more}`")
        };
        out.push(SyntaxError { line, col, message });
        return;
    }
    if !node.has_error() {
        return;
    }
    let mut cur = node.walk();
    for child in node.children(&mut cur) {
        collect_errors(src, child, out, depth + 1);
    }
}

impl<'s, 't> Reader<'s, 't, '_> {
    fn read_class(&mut self, class: Node<'t>) {
        let src = self.src;
        self.recipe.class_name = class
            .child_by_field_name("name")
            .map(|n| src.text(n).to_string());
        self.recipe.class_line = Some(pos(class).0);
        self.recipe.bases = bases_of(src, class);
        self.read_class_body(class);
    }

    fn read_class_body(&mut self, class: Node<'t>) {
        let src = self.src;
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        if let Some(doc) = body
            .named_child(0)
            .filter(|s| s.kind() == "expression_statement")
            .and_then(|s| s.named_child(0))
            .and_then(|s| src.lit_str(s))
        {
            self.recipe.docstring = Some(clean_doc(&doc));
        }
        self.block(body, &Ctx::default(), 0);
    }

    fn block(&mut self, block: Node<'t>, ctx: &Ctx<'t>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let mut cur = block.walk();
        for stmt in block.named_children(&mut cur) {
            self.statement(stmt, ctx, depth + 1);
        }
    }

    fn statement(&mut self, stmt: Node<'t>, ctx: &Ctx<'t>, depth: usize) {
        match stmt.kind() {
            "expression_statement" => {
                let mut cur = stmt.walk();
                for e in stmt.named_children(&mut cur) {
                    match e.kind() {
                        "call" => self.call(e, ctx),
                        "assignment" if depth <= 1 => self.attribute(e),
                        _ => {}
                    }
                }
            }
            "with_statement" => self.with_block(stmt, ctx, depth),
            "for_statement" => self.for_block(stmt, ctx, depth),
            "if_statement" => {
                let mut inner = ctx.clone();
                if let Some(cond) = stmt.child_by_field_name("condition") {
                    let note = format!("if {}", src_compact(self.src, cond));
                    inner.note = Some(join_note(&ctx.note, note));
                }
                let mut cur = stmt.walk();
                for part in stmt.named_children(&mut cur) {
                    match part.kind() {
                        "block" => self.block(part, &inner, depth),
                        "elif_clause" | "else_clause" => {
                            if let Some(b) = part
                                .child_by_field_name("consequence")
                                .or_else(|| part.child_by_field_name("body"))
                            {
                                self.block(b, &inner, depth);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "try_statement" | "block" | "else_clause" | "except_clause" | "finally_clause" => {
                self.block(stmt, ctx, depth)
            }
            // Tolerance: directives inside a region tree-sitter could not parse.
            "ERROR" => {
                let mut cur = stmt.walk();
                for child in stmt.named_children(&mut cur) {
                    match child.kind() {
                        "call" => self.call(child, ctx),
                        _ => self.statement(child, ctx, depth + 1),
                    }
                }
            }
            _ => {}
        }
    }

    fn attribute(&mut self, assign: Node<'t>) {
        let src = self.src;
        let (Some(left), Some(right)) = (
            assign.child_by_field_name("left"),
            assign.child_by_field_name("right"),
        ) else {
            return;
        };
        if left.kind() != "identifier" {
            return;
        }
        let name = src.text(left);
        self.names.insert(name.to_string(), right);
        let value = src.value(right);
        let r = &mut *self.recipe;
        match name {
            "homepage" => r.homepage = Some(value.to_text()),
            "url" => r.url = Some(value.to_text()),
            "git" => r.git = Some(value.to_text()),
            "list_url" => r.list_url = Some(value.to_text()),
            "list_depth" => r.list_depth = Some(value),
            "tags" => r.tags.extend(value.flatten_strings()),
            "maintainers" => r.maintainers.extend(value.flatten_strings()),
            _ => {
                let (line, col) = pos(assign);
                r.attributes.push(Attribute {
                    name: name.to_string(),
                    value,
                    line,
                    col,
                });
            }
        }
    }

    fn with_block(&mut self, stmt: Node<'t>, ctx: &Ctx<'t>, depth: usize) {
        let mut inner = ctx.clone();
        for mut value in pywalk::with_items(stmt) {
            if value.kind() == "as_pattern" {
                value = value.named_child(0).unwrap_or(value);
            }
            let Some(func) = pywalk::call_name(self.src.text, value) else {
                continue;
            };
            let args = super::directives::Args::new(self.src, value, &Ctx::default());
            match func {
                "when" => {
                    if let Some(cond) = args.positional.first() {
                        inner.whens.push(self.eval_text(*cond, ctx));
                    }
                }
                "default_args" => {
                    for (k, v) in args.keywords {
                        inner.defaults.push((k, v));
                    }
                }
                _ => {}
            }
        }
        if let Some(body) = stmt.child_by_field_name("body") {
            self.block(body, &inner, depth);
        }
    }

    /// A class-level loop: expand it when the iterable is known, else read
    /// the body once with the loop as a note.
    fn for_block(&mut self, stmt: Node<'t>, ctx: &Ctx<'t>, depth: usize) {
        let (Some(left), Some(right), Some(body)) = (
            stmt.child_by_field_name("left"),
            stmt.child_by_field_name("right"),
            stmt.child_by_field_name("body"),
        ) else {
            return;
        };
        let note = join_note(
            &ctx.note,
            format!(
                "for {} in {}",
                self.src.compact(left),
                src_compact(self.src, right)
            ),
        );
        let targets = target_names(self.src, left);
        let rows = crate::recipe::defines::resolve_rows(self.src, right, &self.names, ctx);
        match (targets, rows) {
            (Some(targets), Some((rows, _))) if !rows.is_empty() => {
                for row in rows {
                    let Some(bound) = bind(&targets, row) else {
                        continue;
                    };
                    let mut inner = ctx.clone();
                    inner.note = Some(note.clone());
                    inner.bindings.extend(bound);
                    self.block(body, &inner, depth);
                }
            }
            _ => {
                let mut inner = ctx.clone();
                inner.note = Some(note);
                self.block(body, &inner, depth);
            }
        }
    }

    /// Evaluate with loop bindings; see [`super::defines::eval`].
    pub fn eval(&self, node: Node<'t>, ctx: &Ctx<'t>) -> Value {
        super::defines::eval(self.src, node, ctx)
    }

    pub fn eval_text(&self, node: Node<'t>, ctx: &Ctx<'t>) -> String {
        self.eval(node, ctx).to_text()
    }

    pub fn read_methods(&mut self, class: Node<'t>) {
        let src = self.src;
        let class_name = class
            .child_by_field_name("name")
            .map(|n| src.text(n).to_string())
            .unwrap_or_default();
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        let mut cur = body.walk();
        for stmt in body.named_children(&mut cur) {
            let (def, decorators) = match stmt.kind() {
                "function_definition" => (stmt, Vec::new()),
                "decorated_definition" => {
                    let mut c2 = stmt.walk();
                    let decos = stmt
                        .named_children(&mut c2)
                        .filter(|d| d.kind() == "decorator")
                        .map(|d| {
                            d.named_child(0)
                                .map(|e| src.compact(e))
                                .unwrap_or_else(|| src.compact(d))
                        })
                        .collect();
                    match stmt.child_by_field_name("definition") {
                        Some(d) if d.kind() == "function_definition" => (d, decos),
                        _ => continue,
                    }
                }
                _ => continue,
            };
            let Some(name) = def.child_by_field_name("name") else {
                continue;
            };
            let (line, col) = pos(def);
            self.recipe.methods.push(Method {
                name: src.text(name).to_string(),
                class: class_name.clone(),
                decorators,
                line,
                col,
            });
        }
    }
}

/// `inspect.cleandoc`: strip the common indentation of all but the first line.
fn clean_doc(doc: &str) -> String {
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or("").trim().to_string();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = vec![first];
    out.extend(
        rest.iter()
            .map(|l| l.get(indent..).unwrap_or("").trim_end().to_string()),
    );
    out.join("\n").trim().to_string()
}

fn src_compact(src: Src, node: Node) -> String {
    let text = src.compact(node);
    if text.chars().count() > 120 {
        let head: String = text.chars().take(117).collect();
        format!("{head}...")
    } else {
        text
    }
}

fn join_note(outer: &Option<String>, inner: String) -> String {
    match outer {
        Some(o) => format!("{o}; {inner}"),
        None => inner,
    }
}
