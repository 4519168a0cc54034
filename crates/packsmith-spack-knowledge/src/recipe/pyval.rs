//! Python literals from tree-sitter nodes: strings with their real content,
//! typed values, positions and the cheap spec-head split.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

/// A Python value as far as it can be read statically.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    Str(String),
    Bool(bool),
    Int(i64),
    Float(f64),
    None,
    List(Vec<Value>),
    Tuple(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    /// Not a literal: the Python source text (f-strings with fields included).
    Expr(String),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string content, or the source text for anything else.
    pub fn to_text(&self) -> String {
        match self {
            Value::Str(s) | Value::Expr(s) => s.clone(),
            Value::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::None => "None".to_string(),
            Value::List(items) | Value::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Value::to_text).collect();
                inner.join(", ")
            }
            Value::Dict(_) => "{...}".to_string(),
        }
    }

    /// Items of a list/tuple, or the value itself.
    pub fn flatten_strings(&self) -> Vec<String> {
        match self {
            Value::List(items) | Value::Tuple(items) => items.iter().map(Value::to_text).collect(),
            other => vec![other.to_text()],
        }
    }

    pub fn is_truthy_literal(&self) -> bool {
        matches!(self, Value::Bool(true)) || matches!(self, Value::Int(i) if *i != 0)
    }
}

/// Split `name@1.2:` / `name+var` into the leading package name and the
/// version range right after it. Cheap on purpose: the full grammar lives in
/// `spec.rs`.
pub fn split_spec_head(spec: &str) -> (String, Option<String>) {
    let s = spec.trim_start();
    let name_end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(s.len());
    let name = s.get(..name_end).unwrap_or("").to_string();
    let rest = s.get(name_end..).unwrap_or("");
    let versions = rest.strip_prefix('@').map(|r| {
        let end = r
            .find(['+', '~', '^', '%', ' ', '\t', '=', '\n'])
            .unwrap_or(r.len());
        // `@=1.2` is an exact version; keep the `=`.
        if end == 0 && r.starts_with('=') {
            let tail = &r[1..];
            let e2 = tail
                .find(['+', '~', '^', '%', ' ', '\t'])
                .unwrap_or(tail.len());
            format!("={}", &tail[..e2])
        } else {
            r.get(..end).unwrap_or("").to_string()
        }
    });
    (name, versions.filter(|v| !v.is_empty()))
}

/// Reads node text and literals from one source buffer.
#[derive(Clone, Copy)]
pub struct Src<'s> {
    pub text: &'s str,
}

impl<'s> Src<'s> {
    pub fn new(text: &'s str) -> Self {
        Self { text }
    }

    pub fn text(&self, node: Node) -> &'s str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    /// Source text with runs of whitespace (newlines, indentation) collapsed.
    pub fn compact(&self, node: Node) -> String {
        let mut out = String::new();
        let mut space = false;
        for c in self.text(node).chars() {
            if c.is_whitespace() {
                space = true;
            } else {
                if space && !out.is_empty() {
                    out.push(' ');
                }
                space = false;
                out.push(c);
            }
        }
        out
    }

    /// The content of a string literal (plain or implicitly concatenated).
    /// `None` for f-strings with fields and for non-strings.
    pub fn lit_str(&self, node: Node) -> Option<String> {
        match node.kind() {
            "string" => self.string_content(node),
            "concatenated_string" => {
                let mut out = String::new();
                let mut cur = node.walk();
                for part in node.named_children(&mut cur) {
                    out.push_str(&self.string_content(part)?);
                }
                Some(out)
            }
            "parenthesized_expression" => {
                let inner = node.named_child(0)?;
                self.lit_str(inner)
            }
            _ => None,
        }
    }

    /// The literal prefix of a string (up to the first f-string field), and
    /// whether the whole string was literal.
    pub fn str_prefix(&self, node: Node) -> Option<(String, bool)> {
        let string = match node.kind() {
            "string" => node,
            "concatenated_string" => node.named_child(0)?,
            _ => return None,
        };
        let (prefix, raw, _) = self.string_parts(string)?;
        let mut out = String::new();
        let mut cur = string.walk();
        for child in string.named_children(&mut cur) {
            match child.kind() {
                "string_content" => out.push_str(&decode(self.text(child), raw, prefix)),
                "interpolation" => return Some((out, false)),
                _ => {}
            }
        }
        Some((out, node.kind() == "string"))
    }

    /// The content of a (possibly f-) string, asking `field` for the text of
    /// each `{expr}`; `None` when a field cannot be resolved.
    pub fn fstring_with(
        &self,
        node: Node,
        field: &mut dyn FnMut(Node) -> Option<String>,
    ) -> Option<String> {
        match node.kind() {
            "concatenated_string" => {
                let mut out = String::new();
                let mut cur = node.walk();
                for part in node.named_children(&mut cur) {
                    out.push_str(&self.fstring_with(part, field)?);
                }
                Some(out)
            }
            "string" => {
                let (f, raw, _) = self.string_parts(node)?;
                let mut out = String::new();
                let mut cur = node.walk();
                for child in node.named_children(&mut cur) {
                    match child.kind() {
                        "string_content" => out.push_str(&decode(self.text(child), raw, f)),
                        "interpolation" => {
                            if child.child_by_field_name("format_specifier").is_some()
                                || child.child_by_field_name("type_conversion").is_some()
                            {
                                return None;
                            }
                            out.push_str(&field(child.child_by_field_name("expression")?)?);
                        }
                        _ => {}
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// (is f-string, is raw, has fields)
    fn string_parts(&self, node: Node) -> Option<(bool, bool, bool)> {
        let start = node.child(0)?;
        if start.kind() != "string_start" {
            return None;
        }
        let p = self.text(start).to_ascii_lowercase();
        let f = p.contains('f');
        let raw = p.contains('r');
        let mut cur = node.walk();
        let fields = node
            .named_children(&mut cur)
            .any(|c| c.kind() == "interpolation");
        Some((f, raw, fields))
    }

    fn string_content(&self, node: Node) -> Option<String> {
        if node.kind() != "string" {
            return None;
        }
        let (f, raw, fields) = self.string_parts(node)?;
        if fields {
            return None;
        }
        let mut out = String::new();
        let mut cur = node.walk();
        for child in node.named_children(&mut cur) {
            if child.kind() == "string_content" {
                out.push_str(&decode(self.text(child), raw, f));
            }
        }
        Some(out)
    }

    /// A typed value for literals, `Value::Expr` with the source otherwise.
    pub fn value(&self, node: Node) -> Value {
        self.value_depth(node, 0)
    }

    fn value_depth(&self, node: Node, depth: usize) -> Value {
        // Deeply nested literals are not worth a stack overflow.
        if depth > 64 {
            return Value::Expr(self.compact(node));
        }
        match node.kind() {
            "string" | "concatenated_string" => match self.lit_str(node) {
                Some(s) => Value::Str(s),
                None => Value::Expr(self.compact(node)),
            },
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "none" => Value::None,
            "integer" => parse_int(self.text(node))
                .map(Value::Int)
                .unwrap_or_else(|| Value::Expr(self.compact(node))),
            "float" => self
                .text(node)
                .replace('_', "")
                .parse()
                .map(Value::Float)
                .unwrap_or_else(|_| Value::Expr(self.compact(node))),
            "unary_operator" => {
                let op = node.child(0).map(|c| self.text(c));
                let arg = node
                    .child_by_field_name("argument")
                    .map(|a| self.value_depth(a, depth + 1));
                match (op, arg) {
                    (Some("-"), Some(Value::Int(i))) => Value::Int(-i),
                    (Some("-"), Some(Value::Float(x))) => Value::Float(-x),
                    _ => Value::Expr(self.compact(node)),
                }
            }
            "list" | "tuple" => {
                let mut cur = node.walk();
                let items = node
                    .named_children(&mut cur)
                    .filter(|c| c.kind() != "comment")
                    .map(|c| self.value_depth(c, depth + 1))
                    .collect();
                if node.kind() == "list" {
                    Value::List(items)
                } else {
                    Value::Tuple(items)
                }
            }
            "dictionary" => {
                let mut cur = node.walk();
                let mut pairs = Vec::new();
                for p in node.named_children(&mut cur) {
                    if p.kind() != "pair" {
                        continue;
                    }
                    if let (Some(k), Some(v)) =
                        (p.child_by_field_name("key"), p.child_by_field_name("value"))
                    {
                        pairs.push((
                            self.value_depth(k, depth + 1),
                            self.value_depth(v, depth + 1),
                        ));
                    }
                }
                Value::Dict(pairs)
            }
            "parenthesized_expression" => match node.named_child(0) {
                Some(inner) if node.named_child_count() == 1 => self.value_depth(inner, depth + 1),
                _ => Value::Expr(self.compact(node)),
            },
            _ => Value::Expr(self.compact(node)),
        }
    }
}

fn parse_int(text: &str) -> Option<i64> {
    let t = text.replace('_', "");
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else {
        lower.parse().ok()
    }
}

/// Decode backslash escapes (and `{{`/`}}` in f-strings) of one content run.
fn decode(s: &str, raw: bool, fstring: bool) -> String {
    let s = if fstring {
        std::borrow::Cow::Owned(s.replace("{{", "{").replace("}}", "}"))
    } else {
        std::borrow::Cow::Borrowed(s)
    };
    if raw || !s.contains('\\') {
        return s.into_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('\n') => {} // line continuation inside the string
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split_spec_head;

    #[test]
    fn spec_head() {
        assert_eq!(
            split_spec_head("cmake@3.9.0:"),
            ("cmake".into(), Some("3.9.0:".into()))
        );
        assert_eq!(split_spec_head("mpi"), ("mpi".into(), None));
        assert_eq!(
            split_spec_head("hdf5@1.10:+mpi"),
            ("hdf5".into(), Some("1.10:".into()))
        );
        assert_eq!(split_spec_head("+cuda"), ("".into(), None));
        assert_eq!(
            split_spec_head("py-numpy@=1.2 +x"),
            ("py-numpy".into(), Some("=1.2".into()))
        );
        assert_eq!(
            split_spec_head("kokkos@4:4.2 ~cuda"),
            ("kokkos".into(), Some("4:4.2".into()))
        );
    }
}
