//! The JSON Schema of an edit list offered to a model: only the operations
//! of a menu, with the candidate values packsmith found (package names
//! that exist, variants and defines the recipe has, base classes) as
//! `enum`s, so a grammar-constrained model can only pick among them.

use serde_json::{json, Map, Value};

use super::OpKind;

/// What a model may choose from for one repair.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Menu {
    pub ops: Vec<OpKind>,
    /// Package names a new or renamed dependency may take (empty: any).
    pub packages: Vec<String>,
    /// The recipe's dependencies by package name (what can be removed or
    /// renamed).
    pub dependencies: Vec<String>,
    /// The recipe's variants (whose default can be set).
    pub variants: Vec<String>,
    /// Names a new variant may take (empty: any).
    pub new_variants: Vec<String>,
    /// CMake variables a define may set (empty: any).
    pub defines: Vec<String>,
    /// Base classes to change to (empty: any).
    pub base_classes: Vec<String>,
    /// The recipe's base classes (what can be changed).
    pub current_bases: Vec<String>,
    /// Source files a `filter_file` may edit: the ones the failure names
    /// (empty: any).
    pub files: Vec<String>,
    /// Files of the source a `copy_file` may copy from (the templates a
    /// missing build file may be made from), and the files it may make.
    pub templates: Vec<String>,
    pub copy_to: Vec<String>,
    /// Compiler flags a flag edit may add (the macros that select a
    /// definition the build lacks), and the one flag kind they go to;
    /// empty: any. A chosen macro holds for every compiler (no `when`).
    pub flag_values: Vec<String>,
    pub flag_kinds: Vec<String>,
    /// Lines of directives whose `when=` may be set.
    pub directive_lines: Vec<u32>,
    /// At most this many edits in one answer.
    pub max_edits: usize,
}

fn string_in(values: &[String]) -> Value {
    if values.is_empty() {
        json!({"type": "string"})
    } else {
        json!({"type": "string", "enum": values})
    }
}

/// The schema of one operation; `None` for the kinds only the rule
/// repairs use ([`OpKind::rule_only`]), which no model is offered.
fn op_schema(kind: OpKind, menu: &Menu) -> Option<Value> {
    let s = |v: &[String]| string_in(v);
    let any = json!({"type": "string"});
    let bool_or_string = json!({"anyOf": [{"type": "boolean"}, {"type": "string"}]});
    let (props, required): (Vec<(&str, Value)>, Vec<&str>) = match kind {
        OpKind::AddDependency => (
            vec![
                ("spec", s(&menu.packages)),
                ("when", any.clone()),
                (
                    "type",
                    json!({"type": "array", "maxItems": 3,
                           "items": {"type": "string", "enum": ["build", "link", "run", "test"]}}),
                ),
            ],
            vec!["spec"],
        ),
        OpKind::RemoveDependency => (vec![("name", s(&menu.dependencies))], vec!["name"]),
        OpKind::RenameDependency => (
            vec![("from", s(&menu.dependencies)), ("to", s(&menu.packages))],
            vec!["from", "to"],
        ),
        OpKind::AddVariant => (
            vec![
                ("name", s(&menu.new_variants)),
                ("default", bool_or_string.clone()),
                ("description", any.clone()),
                ("when", any.clone()),
            ],
            vec!["name", "default", "description"],
        ),
        OpKind::AddVersion => (
            vec![("version", any.clone()), ("sha256", any.clone())],
            vec!["version"],
        ),
        OpKind::SetVariantDefault => (
            vec![
                ("name", s(&menu.variants)),
                ("default", bool_or_string.clone()),
            ],
            vec!["name", "default"],
        ),
        OpKind::SetWhen => {
            let line = if menu.directive_lines.is_empty() {
                json!({"type": "integer"})
            } else {
                json!({"type": "integer", "enum": menu.directive_lines})
            };
            (
                vec![
                    ("line", line),
                    ("when", json!({"type": ["string", "null"]})),
                ],
                vec!["line", "when"],
            )
        }
        OpKind::AddConflicts => (
            vec![
                ("spec", any.clone()),
                ("when", any.clone()),
                ("msg", any.clone()),
            ],
            vec!["spec"],
        ),
        OpKind::AddSpackImport => (vec![], vec![]),
        OpKind::ChangeBaseClass => (
            vec![
                ("from", s(&menu.current_bases)),
                ("to", s(&menu.base_classes)),
            ],
            vec!["from", "to"],
        ),
        OpKind::AddCmakeDefine => (
            vec![
                ("name", s(&menu.defines)),
                ("value", bool_or_string.clone()),
            ],
            vec!["name", "value"],
        ),
        OpKind::RemoveCmakeDefine => (vec![("name", s(&menu.defines))], vec!["name"]),
        OpKind::AddCmakeVariantDefine => (
            vec![("name", s(&menu.defines)), ("variant", s(&menu.variants))],
            vec!["name", "variant"],
        ),
        OpKind::AddConfigureArg => (vec![("arg", any.clone())], vec!["arg"]),
        OpKind::AddCompilerFlag => {
            let kinds = if menu.flag_kinds.is_empty() {
                json!({"type": "string", "enum": ["cflags", "cxxflags", "fflags"]})
            } else {
                s(&menu.flag_kinds)
            };
            let when = if menu.flag_values.is_empty() {
                any.clone()
            } else {
                json!({"type": "string", "enum": [""]})
            };
            (
                vec![
                    ("flag", s(&menu.flag_values)),
                    ("flags", kinds),
                    ("when", when),
                ],
                vec!["flag", "flags", "when"],
            )
        }
        OpKind::FilterFile => (
            vec![
                ("file", s(&menu.files)),
                ("regex", any.clone()),
                ("repl", any.clone()),
                ("literal", json!({"type": "boolean"})),
            ],
            vec!["file", "regex", "repl"],
        ),
        OpKind::CopyFile => (
            vec![("from", s(&menu.templates)), ("to", s(&menu.copy_to))],
            vec!["from", "to"],
        ),
        OpKind::ReplaceLine => (
            vec![
                ("line", json!({"type": "integer", "minimum": 1})),
                ("end_line", json!({"type": "integer", "minimum": 1})),
                ("text", any),
            ],
            vec!["line", "text"],
        ),
        OpKind::AddMethod
        | OpKind::SetAttribute
        | OpKind::DisableDependency
        | OpKind::SetAttributeValue
        | OpKind::SetChecksum
        | OpKind::AddClassLines
        | OpKind::ReplaceStarImport => return None,
    };
    let mut properties = Map::new();
    properties.insert("op".into(), json!({"const": kind.as_str()}));
    for (k, v) in props {
        properties.insert(k.into(), v);
    }
    let mut req = vec!["op"];
    req.extend(required);
    Some(json!({
        "type": "object",
        "properties": properties,
        "required": req,
        "additionalProperties": false,
    }))
}

/// `{"edits": [<one of the menu's operations>, …]}`; a rule-only kind
/// in the menu is left out.
pub fn edit_schema(menu: &Menu) -> Value {
    let items: Vec<Value> = menu
        .ops
        .iter()
        .filter_map(|k| op_schema(*k, menu))
        .collect();
    json!({
        "type": "object",
        "properties": {
            "edits": {
                "type": "array",
                "minItems": 1,
                "maxItems": menu.max_edits.max(1),
                "items": {"oneOf": items},
            }
        },
        "required": ["edits"],
        "additionalProperties": false,
    })
}
