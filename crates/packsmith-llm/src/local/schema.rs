//! JSON Schema → GBNF grammar for llama.cpp's grammar sampler, for the subset
//! of JSON Schema packsmith's prompts use: objects with `properties` and
//! `required`, strings (with `enum`/`const`), numbers, integers, booleans,
//! null, arrays of one item schema (`minItems` 0 or 1), nested objects,
//! `anyOf`/`oneOf` and type lists. Anything else (`$ref`, `pattern`, …) is
//! constrained to "any JSON value" and reported in [`Grammar::unsupported`],
//! so the output still parses even where the grammar cannot enforce more.
//!
//! A small validator for the same subset ([`validate`]) checks the result.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// A generated grammar, with the schema constructs it could not enforce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    /// GBNF text; the start rule is `root`.
    pub gbnf: String,
    /// JSON pointers of sub-schemas constrained only to "any JSON value".
    pub unsupported: Vec<String>,
}

/// Builds a GBNF grammar whose language is (a superset of) the JSON
/// documents valid under `schema`.
pub fn schema_to_gbnf(schema: &Value) -> Grammar {
    let mut b = Builder::default();
    let root = b.visit(schema, "root", "");
    // `root` must exist as a rule even when the schema is a primitive.
    if root != "root" {
        b.rules.insert("root".into(), root);
    }
    let mut gbnf = String::new();
    for (name, body) in &b.rules {
        let _ = writeln!(gbnf, "{name} ::= {body}");
    }
    Grammar {
        gbnf,
        unsupported: b.unsupported,
    }
}

const WS: &str = r#"| " " | "\n" [ \t]{0,12}"#;
const STRING: &str = r#""\"" string-char* "\"""#;
const STRING_CHAR: &str = r#"[^"\\\x7F\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )"#;
const NUMBER: &str =
    r#""-"? ( [0-9] | [1-9] [0-9]{1,15} ) ( "." [0-9]{1,15} )? ( [eE] [-+]? [0-9]{1,3} )?"#;
const INTEGER: &str = r#""-"? ( [0-9] | [1-9] [0-9]{1,15} )"#;
const VALUE: &str = "object | array | string | number | boolean | null";
const OBJECT: &str =
    r#""{" ws ( string ws ":" ws value ( "," ws string ws ":" ws value )* )? ws "}""#;
const ARRAY: &str = r#""[" ws ( value ( "," ws value )* )? ws "]""#;

#[derive(Default)]
struct Builder {
    rules: BTreeMap<String, String>,
    unsupported: Vec<String>,
}

impl Builder {
    /// Defines a primitive rule (and the generic JSON rules it refers to)
    /// once, and returns its name.
    fn primitive(&mut self, name: &str) -> String {
        let generic = [
            "ws", "string", "number", "boolean", "null", "value", "object", "array",
        ];
        let string = ["string", "string-char"];
        let needed: &[&str] = match name {
            "value" | "object" | "array" => &generic,
            "string" => &string,
            _ => std::slice::from_ref(&name),
        };
        for &rule in needed {
            if self.rules.contains_key(rule) {
                continue;
            }
            let body = match rule {
                "ws" => WS,
                "string" => STRING,
                "string-char" => STRING_CHAR,
                "number" => NUMBER,
                "integer" => INTEGER,
                "boolean" => r#""true" | "false""#,
                "null" => r#""null""#,
                "value" => VALUE,
                "object" => OBJECT,
                "array" => ARRAY,
                _ => continue,
            };
            self.rules.insert(rule.to_string(), body.to_string());
        }
        name.to_string()
    }

    fn any(&mut self, pointer: &str) -> String {
        self.unsupported.push(if pointer.is_empty() {
            "/".into()
        } else {
            pointer.into()
        });
        self.primitive("value")
    }

    fn define(&mut self, name: &str, body: String) -> String {
        let mut unique = sanitize(name);
        let mut n = 1;
        while self.rules.contains_key(&unique) {
            n += 1;
            unique = format!("{}-{n}", sanitize(name));
        }
        self.rules.insert(unique.clone(), body);
        unique
    }

    /// Returns a GBNF expression (usually a rule name) for `schema`.
    fn visit(&mut self, schema: &Value, name: &str, pointer: &str) -> String {
        let Some(obj) = schema.as_object() else {
            // `true` or an empty schema: anything goes.
            return self.primitive("value");
        };
        if let Some(c) = obj.get("const") {
            return self.define(name, literal(c));
        }
        if let Some(values) = obj.get("enum").and_then(Value::as_array) {
            if values.is_empty() {
                return self.any(pointer);
            }
            let body = values.iter().map(literal).collect::<Vec<_>>().join(" | ");
            return self.define(name, body);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alts) = obj.get(key).and_then(Value::as_array) {
                let parts: Vec<String> = alts
                    .iter()
                    .enumerate()
                    .map(|(i, s)| {
                        self.visit(s, &format!("{name}-{i}"), &format!("{pointer}/{key}/{i}"))
                    })
                    .collect();
                if parts.is_empty() {
                    return self.any(pointer);
                }
                return self.define(name, parts.join(" | "));
            }
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.visit_type(t, obj, name, pointer),
            Some(Value::Array(types)) => {
                let parts: Vec<String> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.visit_type(t, obj, &format!("{name}-{t}"), pointer))
                    .collect();
                if parts.is_empty() {
                    return self.any(pointer);
                }
                self.define(name, parts.join(" | "))
            }
            None if obj.contains_key("properties") => self.visit_type("object", obj, name, pointer),
            None if obj.contains_key("items") => self.visit_type("array", obj, name, pointer),
            None if obj.keys().all(|k| is_annotation(k)) => self.primitive("value"),
            _ => self.any(pointer),
        }
    }

    fn visit_type(
        &mut self,
        t: &str,
        obj: &serde_json::Map<String, Value>,
        name: &str,
        pointer: &str,
    ) -> String {
        for key in obj.keys() {
            if !is_understood(t, key) {
                self.unsupported.push(format!("{pointer}/{key}"));
            }
        }
        match t {
            "string" if obj.contains_key("maxLength") || obj.contains_key("minLength") => {
                let min = obj.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                let max = obj
                    .get("maxLength")
                    .and_then(Value::as_u64)
                    .map_or(String::new(), |m| m.to_string());
                self.primitive("string");
                self.define(name, format!(r#""\"" string-char{{{min},{max}}} "\"""#))
            }
            "string" | "number" | "integer" | "boolean" | "null" => self.primitive(t),
            "array" => {
                self.primitive("ws");
                let item = match obj.get("items") {
                    Some(items) => {
                        self.visit(items, &format!("{name}-item"), &format!("{pointer}/items"))
                    }
                    None => self.primitive("value"),
                };
                let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
                let max = obj.get("maxItems").and_then(Value::as_u64);
                let more = match max {
                    Some(max) => format!("{{{},{}}}", min.saturating_sub(1), max.saturating_sub(1)),
                    None if min > 1 => format!("{{{},}}", min - 1),
                    None => "*".to_string(),
                };
                let body = if max == Some(0) {
                    r#""[" ws "]""#.to_string()
                } else if min >= 1 {
                    format!(r#""[" ws {item} ( "," ws {item} ){more} ws "]""#)
                } else {
                    format!(r#""[" ws ( {item} ( "," ws {item} ){more} )? ws "]""#)
                };
                self.define(name, body)
            }
            "object" => self.visit_object(obj, name, pointer),
            _ => self.any(pointer),
        }
    }

    fn visit_object(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        name: &str,
        pointer: &str,
    ) -> String {
        self.primitive("ws");
        let Some(props) = obj.get("properties").and_then(Value::as_object) else {
            return self.primitive("object");
        };
        if props.is_empty() {
            return self.define(name, r#""{" ws "}""#.to_string());
        }
        let mut required: Vec<&str> = Vec::new();
        for r in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !required.contains(&r) {
                required.push(r);
            }
        }
        // Required properties first, in the order of `required` (serde_json
        // keeps objects sorted by key, so `required` is how a schema orders
        // its output), then the optional ones.
        let mut kvs_required = Vec::new();
        let mut kvs_optional = Vec::new();
        let ordered = required
            .iter()
            .filter_map(|r| props.get_key_value(*r))
            .chain(
                props
                    .iter()
                    .filter(|(k, _)| !required.contains(&k.as_str())),
            );
        for (key, sub) in ordered {
            let value = self.visit(
                sub,
                &format!("{name}-{key}"),
                &format!("{pointer}/properties/{key}"),
            );
            let kv = format!(
                r#"{} ws ":" ws {value}"#,
                literal(&Value::String(key.clone()))
            );
            if required.contains(&key.as_str()) {
                kvs_required.push(kv);
            } else {
                kvs_optional.push(kv);
            }
        }
        let body = if let Some((first, rest)) = kvs_required.split_first() {
            let mut body = format!(r#""{{" ws {first}"#);
            for kv in rest {
                let _ = write!(body, r#" "," ws {kv}"#);
            }
            for kv in &kvs_optional {
                let _ = write!(body, r#" ( "," ws {kv} )?"#);
            }
            body.push_str(r#" ws "}""#);
            body
        } else {
            // Only optional properties: any one may come first, the later
            // ones follow in order.
            let mut alts = Vec::new();
            for (i, kv) in kvs_optional.iter().enumerate() {
                let mut alt = kv.clone();
                for later in &kvs_optional[i + 1..] {
                    let _ = write!(alt, r#" ( "," ws {later} )?"#);
                }
                alts.push(format!("( {alt} )"));
            }
            format!(r#""{{" ws ( {} )? ws "}}""#, alts.join(" | "))
        };
        self.define(name, body)
    }
}

fn is_annotation(key: &str) -> bool {
    matches!(
        key,
        "description" | "title" | "default" | "examples" | "$schema" | "$id" | "$comment"
    )
}

fn is_understood(t: &str, key: &str) -> bool {
    if is_annotation(key) || key == "type" {
        return true;
    }
    match t {
        "object" => matches!(key, "properties" | "required" | "additionalProperties"),
        "array" => matches!(key, "items" | "minItems" | "maxItems"),
        "string" => matches!(key, "minLength" | "maxLength"),
        _ => false,
    }
}

/// A GBNF literal matching the JSON text of `value`.
fn literal(value: &Value) -> String {
    let json = value.to_string();
    let mut out = String::with_capacity(json.len() + 2);
    out.push('"');
    for c in json.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    if s.is_empty() {
        "r".into()
    } else {
        s
    }
}

/// Checks `value` against `schema` (the subset above); returns one message
/// per violation, empty when valid.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, value, "", &mut errors);
    errors
}

fn check(schema: &Value, value: &Value, at: &str, errors: &mut Vec<String>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    let here = if at.is_empty() { "/" } else { at };
    if let Some(c) = obj.get("const") {
        if c != value {
            errors.push(format!("{here}: expected {c}, got {value}"));
        }
        return;
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        if !values.contains(value) {
            errors.push(format!(
                "{here}: {value} is not one of {}",
                Value::Array(values.clone())
            ));
        }
        return;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(alts) = obj.get(key).and_then(Value::as_array) {
            if !alts.iter().any(|s| validate(s, value).is_empty()) {
                errors.push(format!("{here}: matches none of {key}"));
            }
            return;
        }
    }
    let types: Vec<&str> = match obj.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if obj.contains_key("properties") => vec!["object"],
        _ => return,
    };
    let fits = |t: &str| match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => true,
    };
    if !types.iter().any(|t| fits(t)) {
        errors.push(format!(
            "{here}: expected {}, got {value}",
            types.join(" or ")
        ));
        return;
    }
    if let (Some(map), Some(props)) = (
        value.as_object(),
        obj.get("properties").and_then(Value::as_object),
    ) {
        for req in obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(req) = req.as_str() {
                if !map.contains_key(req) {
                    errors.push(format!("{here}: missing required property `{req}`"));
                }
            }
        }
        for (key, v) in map {
            if let Some(sub) = props.get(key) {
                check(sub, v, &format!("{at}/{key}"), errors);
            } else if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
                errors.push(format!("{here}: unexpected property `{key}`"));
            }
        }
    }
    if let Some(s) = value.as_str() {
        let n = s.chars().count() as u64;
        if obj
            .get("maxLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| n > m)
            || obj
                .get("minLength")
                .and_then(Value::as_u64)
                .is_some_and(|m| n < m)
        {
            errors.push(format!("{here}: length {n} outside minLength/maxLength"));
        }
    }
    if let (Some(items), Some(item_schema)) = (value.as_array(), obj.get("items")) {
        let min = obj.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        if (items.len() as u64) < min {
            errors.push(format!("{here}: fewer than {min} items"));
        }
        if let Some(max) = obj.get("maxItems").and_then(Value::as_u64) {
            if items.len() as u64 > max {
                errors.push(format!("{here}: more than {max} items"));
            }
        }
        for (i, v) in items.iter().enumerate() {
            check(item_schema, v, &format!("{at}/{i}"), errors);
        }
    }
}

/// Describes `schema` for the prompt: small models fill constrained output
/// with the right content only when they are told what it means.
pub fn describe_for_prompt(name: &str, schema: &Value) -> String {
    // Compact: every token of the prompt costs a local model time to read.
    let pretty = schema.to_string();
    // The name is not offered as content: small models copy it into fields.
    let _ = name;
    format!(
        "Answer with one JSON object only (no prose, no code fence). It must match this JSON Schema; fill every field from the information given:\n{pretty}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn recipe_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "package name"},
                "build_system": {"enum": ["cmake", "autotools", "meson"]},
                "version": {"type": "string"},
                "jobs": {"type": "integer"},
                "shared": {"type": "boolean"},
                "deps": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string"}, "when": {"type": ["string", "null"]}
                }, "required": ["name"]}},
                "score": {"type": "number"}
            },
            "required": ["name", "build_system", "deps"]
        })
    }

    #[test]
    fn object_grammar_snapshot() {
        let g = schema_to_gbnf(&recipe_schema());
        assert!(g.unsupported.is_empty(), "{:?}", g.unsupported);
        insta::assert_snapshot!(g.gbnf);
    }

    #[test]
    fn primitive_root_is_aliased() {
        let g = schema_to_gbnf(&json!({"type": "integer"}));
        assert!(g.gbnf.contains("root ::= integer"), "{}", g.gbnf);
    }

    #[test]
    fn only_optional_properties_allow_any_first() {
        let g = schema_to_gbnf(&json!({"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "boolean"}}}));
        assert!(g.gbnf.contains(r#""{" ws ( ( "\"a\"" ws ":" ws string ( "," ws "\"b\"" ws ":" ws boolean )? ) | ( "\"b\"" ws ":" ws boolean ) )? ws "}""#), "{}", g.gbnf);
    }

    #[test]
    fn unsupported_keywords_are_reported() {
        let g = schema_to_gbnf(&json!({"type": "object", "properties": {
            "v": {"type": "string", "pattern": "^[0-9]+$"}, "r": {"$ref": "#/defs/x"}}}));
        assert_eq!(
            g.unsupported,
            vec!["/properties/r", "/properties/v/pattern"]
        );
    }

    #[test]
    fn bounds_on_arrays_and_strings() {
        let g = schema_to_gbnf(&json!({"type": "array", "maxItems": 3, "minItems": 1,
            "items": {"type": "string", "maxLength": 10}}));
        assert!(g.unsupported.is_empty(), "{:?}", g.unsupported);
        assert!(
            g.gbnf
                .contains(r#"root ::= "[" ws root-item ( "," ws root-item ){0,2} ws "]""#),
            "{}",
            g.gbnf
        );
        assert!(
            g.gbnf
                .contains(r#"root-item ::= "\"" string-char{0,10} "\"""#),
            "{}",
            g.gbnf
        );
        let s =
            json!({"type": "array", "maxItems": 1, "items": {"type": "string", "maxLength": 2}});
        assert_eq!(validate(&s, &json!(["abc", "d"])).len(), 2);
    }

    #[test]
    fn literals_escape_quotes() {
        assert_eq!(literal(&json!("a\"b")), r#""\"a\\\"b\"""#);
    }

    #[test]
    fn validator_accepts_and_rejects() {
        let s = recipe_schema();
        let good = json!({"name": "zlib", "build_system": "cmake", "deps": [{"name": "m", "when": null}], "jobs": 4});
        assert!(validate(&s, &good).is_empty(), "{:?}", validate(&s, &good));
        let bad = json!({"name": 3, "build_system": "scons", "deps": [{}], "jobs": 1.5});
        let errors = validate(&s, &bad);
        assert_eq!(errors.len(), 4, "{errors:?}");
    }
}
