//! Tool calls for models that run in-process: how tools are described in the
//! prompt and how calls are read back from the generated text.
//!
//! Two dialects:
//! - **native** (the chat template declares a tool protocol; Qwen2.5 and
//!   Hermes-style templates use `<tools>` signatures in the system prompt,
//!   `<tool_call>{"name", "arguments"}</tool_call>` blocks in the answer and
//!   `<tool_response>` blocks for results): we speak the template's protocol.
//! - **emulated** (no protocol in the template): tools are described in the
//!   system prompt in our own words and the model answers with a JSON object.
//!
//! Either way, calls are parsed back tolerantly: `<tool_call>` blocks, fenced
//! or bare JSON, one object or a list, `name`/`tool`/`function` and
//! `arguments`/`parameters`/`args`/`input` aliases, OpenAI's nested
//! `{"function": {"name", "arguments"}}`, arguments as an object or as a
//! JSON string.

use serde_json::Value;

use crate::{ToolCall, ToolSpec};

/// How tool calls are put to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolMode {
    /// Native when the chat template declares a tool protocol, else emulated.
    #[default]
    Auto,
    /// Always use the `<tool_call>` protocol.
    ForceNative,
    /// Always describe tools in our own words and parse JSON back.
    ForceEmulated,
}

/// Whether the model must call a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolChoice {
    /// The model decides (and is free to answer in text).
    #[default]
    Auto,
    /// When tools are offered: after the user's message the answer is
    /// constrained by a grammar to one call of an offered tool with
    /// arguments matching its schema; after a tool result, to text that
    /// does not open with another call. For models too small to decide on
    /// their own (SmolLM2-135M answers from memory instead of calling, and
    /// echoes the result as JSON instead of answering).
    RequiredOnUserTurn,
}

/// A JSON Schema matching one call of any of `tools`, as the model writes it:
/// `{"name": "<tool>", "arguments": {…}}`.
pub fn tool_call_schema(tools: &[ToolSpec]) -> Value {
    let alternatives: Vec<Value> = tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "type": "object",
                "properties": {"name": {"const": t.name}, "arguments": t.parameters},
                "required": ["name", "arguments"]
            })
        })
        .collect();
    serde_json::json!({ "anyOf": alternatives })
}

/// The dialect used for one model, after [`ToolMode::Auto`] is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolDialect {
    Native,
    Emulated,
}

/// Whether a chat template (Jinja source from the GGUF) declares the
/// `<tool_call>` protocol.
pub fn template_has_native_tools(template: &str) -> bool {
    template.contains("<tool_call>") && template.contains("tools")
}

impl ToolMode {
    pub fn dialect(self, template: Option<&str>) -> ToolDialect {
        match self {
            Self::ForceNative => ToolDialect::Native,
            Self::ForceEmulated => ToolDialect::Emulated,
            Self::Auto if template.is_some_and(template_has_native_tools) => ToolDialect::Native,
            Self::Auto => ToolDialect::Emulated,
        }
    }
}

/// The system-prompt section that introduces the tools.
pub fn describe_tools(dialect: ToolDialect, tools: &[ToolSpec]) -> String {
    match dialect {
        ToolDialect::Native => {
            let mut out = String::from(
                "# Tools\n\nYou may call one or more functions to help with the request. \
                 Their signatures are inside <tools></tools>:\n<tools>",
            );
            for t in tools {
                // Key order as in the template's own examples (serde_json
                // would sort the keys).
                out.push_str(&format!(
                    "\n{{\"type\": \"function\", \"function\": {{\"name\": {}, \"description\": {}, \"parameters\": {}}}}}",
                    Value::String(t.name.clone()),
                    Value::String(t.description.clone()),
                    t.parameters
                ));
            }
            out.push_str(
                "\n</tools>\n\nTo call a function, answer with a JSON object holding its name and \
                 arguments inside <tool_call></tool_call> tags:\n<tool_call>\n\
                 {\"name\": <function-name>, \"arguments\": <arguments-object>}\n</tool_call>",
            );
            out
        }
        ToolDialect::Emulated => {
            let mut out = String::from(
                "You can use tools. To use one, reply with nothing but a JSON object naming the tool and its arguments. \
                 The result comes back in the next message; then answer the user in plain text. \
                 If no tool is needed, answer in plain text.\n\nTools:",
            );
            for t in tools {
                out.push_str(&format!(
                    "\n- {}: {}\n  arguments (JSON Schema): {}",
                    t.name, t.description, t.parameters
                ));
            }
            // Small models follow an example better than a description.
            if let Some(first) = tools.first() {
                out.push_str(&format!(
                    "\n\nExample of a reply that uses the tool `{}`:\n{{\"name\": \"{}\", \"arguments\": {}}}",
                    first.name,
                    first.name,
                    example_arguments(&first.parameters)
                ));
            }
            out
        }
    }
}

/// `{"path": "..."}` for a schema with a required string `path`: a
/// placeholder per required property, by type.
fn example_arguments(schema: &Value) -> String {
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parts = Vec::new();
    for name in required {
        let kind = props
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("string");
        let placeholder = match kind {
            "integer" | "number" => "0",
            "boolean" => "true",
            "array" => "[]",
            "object" => "{}",
            _ => "\"...\"",
        };
        parts.push(format!(
            "{}: {placeholder}",
            Value::String(name.to_string())
        ));
    }
    format!("{{{}}}", parts.join(", "))
}

/// How an assistant turn that called tools is written back into the prompt.
pub fn render_calls(dialect: ToolDialect, content: &str, calls: &[ToolCall]) -> String {
    let mut out = content.trim().to_string();
    for call in calls {
        let args: Value =
            serde_json::from_str(&call.arguments).unwrap_or(Value::String(call.arguments.clone()));
        let obj = format!(
            "{{\"name\": {}, \"arguments\": {args}}}",
            Value::String(call.name.clone())
        );
        if !out.is_empty() {
            out.push('\n');
        }
        match dialect {
            ToolDialect::Native => out.push_str(&format!("<tool_call>\n{obj}\n</tool_call>")),
            ToolDialect::Emulated => out.push_str(&obj.to_string()),
        }
    }
    out
}

/// How a tool result is written into the prompt (as user text: chat
/// templates without a tool role have no other place for it).
pub fn render_result(dialect: ToolDialect, tool_name: Option<&str>, content: &str) -> String {
    match dialect {
        ToolDialect::Native => format!("<tool_response>\n{content}\n</tool_response>"),
        ToolDialect::Emulated => match tool_name {
            Some(name) => format!("Result of the tool `{name}`:\n{content}"),
            None => format!("Tool result:\n{content}"),
        },
    }
}

/// Tool calls found in generated text, and the text around them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub content: String,
    pub calls: Vec<ToolCall>,
}

/// Reads tool calls back from `text`. `known` are the offered tools' names:
/// a bare JSON object counts as a call only if it names a tool (known or
/// not: an unknown name goes back to the model as an error), and when only
/// one tool is offered, an object of just that tool's arguments under a
/// known alias is accepted too. `id_prefix` makes call ids unique.
pub fn parse_tool_calls(text: &str, known: &[&str], id_prefix: &str) -> Parsed {
    let mut calls = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();

    // 1. <tool_call> … </tool_call> blocks (the closing tag may be missing
    //    when generation stopped right after the JSON).
    let mut pos = 0;
    while let Some(start) = text[pos..].find("<tool_call>").map(|i| i + pos) {
        let body_start = start + "<tool_call>".len();
        let (body_end, end) = match text[body_start..].find("</tool_call>") {
            Some(i) => (body_start + i, body_start + i + "</tool_call>".len()),
            None => (text.len(), text.len()),
        };
        let body = &text[body_start..body_end];
        for value in json_values(body) {
            collect(&value, known, &mut calls);
        }
        spans.push((start, end));
        pos = end;
    }

    // 2. Otherwise fenced or bare JSON anywhere in the text.
    if calls.is_empty() {
        spans.clear();
        for (start, end) in json_spans(text) {
            if let Ok(value) = serde_json::from_str::<Value>(&text[start..end]) {
                let before = calls.len();
                collect(&value, known, &mut calls);
                if calls.len() > before {
                    spans.push(extend_to_fence(text, start, end));
                }
            }
        }
    }

    for (i, call) in calls.iter_mut().enumerate() {
        call.id = format!("{id_prefix}{i}");
    }
    let mut content = String::new();
    let mut last = 0;
    for (s, e) in &spans {
        content.push_str(&text[last..*s]);
        last = *e;
    }
    content.push_str(&text[last..]);
    Parsed {
        content: content.trim().to_string(),
        calls,
    }
}

const NAME_KEYS: [&str; 4] = ["name", "tool", "tool_name", "function"];
const ARG_KEYS: [&str; 5] = ["arguments", "parameters", "args", "input", "params"];

fn collect(value: &Value, known: &[&str], calls: &mut Vec<ToolCall>) {
    match value {
        Value::Array(items) => {
            for item in items {
                collect(item, known, calls);
            }
        }
        Value::Object(map) => {
            // {"tool_calls": [...]} wrappers.
            if let Some(inner) = map.get("tool_calls").or_else(|| map.get("calls")) {
                collect(inner, known, calls);
                return;
            }
            // OpenAI's {"type": "function", "function": {"name", "arguments"}}.
            if let Some(f @ Value::Object(_)) = map.get("function") {
                collect(f, known, calls);
                return;
            }
            let name = NAME_KEYS
                .iter()
                .find_map(|k| map.get(*k).and_then(Value::as_str))
                .map(str::trim)
                .filter(|n| !n.is_empty());
            let Some(name) = name else {
                return;
            };
            let args = ARG_KEYS.iter().find_map(|k| map.get(*k));
            let arguments = match args {
                // Kept verbatim even when it is not JSON: the handler reports it.
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => {
                    // {"name": "x", "path": "..."}: the other keys are the arguments.
                    let rest: serde_json::Map<String, Value> = map
                        .iter()
                        .filter(|(k, _)| !NAME_KEYS.contains(&k.as_str()) && k.as_str() != "type")
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    if !known.contains(&name) {
                        // {"name": "zlib", "version": "1.2"} is data, not a call.
                        return;
                    }
                    Value::Object(rest).to_string()
                }
            };
            calls.push(ToolCall {
                id: String::new(),
                name: name.to_string(),
                arguments,
            });
        }
        _ => {}
    }
}

/// Every top-level JSON value (object or array) in `text`, in order.
fn json_values(text: &str) -> Vec<Value> {
    json_spans(text)
        .into_iter()
        .filter_map(|(s, e)| serde_json::from_str(&text[s..e]).ok())
        .collect()
}

/// Byte spans of balanced `{…}` / `[…]` regions that parse as JSON.
fn json_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' || bytes[i] == b'[' {
            if let Some(end) = balanced_end(bytes, i) {
                if serde_json::from_str::<Value>(&text[i..end]).is_ok() {
                    spans.push((i, end));
                    i = end;
                    continue;
                }
            }
        }
        i += 1;
    }
    spans
}

fn balanced_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Widens a JSON span to include a surrounding ```json … ``` fence.
fn extend_to_fence(text: &str, start: usize, end: usize) -> (usize, usize) {
    let before = text[..start].trim_end();
    let after = text[end..].trim_start();
    let fence_start = ["```json", "```JSON", "```"]
        .iter()
        .find(|f| before.ends_with(**f))
        .map(|f| before.len() - f.len());
    match (fence_start, after.starts_with("```")) {
        (Some(s), true) => (s, text.len() - after.len() + 3),
        _ => (start, end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> ToolCall {
        let p = parse_tool_calls(text, &["read_file"], "c");
        assert_eq!(p.calls.len(), 1, "{text} → {p:?}");
        p.calls.into_iter().next().unwrap()
    }

    #[test]
    fn native_blocks() {
        let p = parse_tool_calls(
            "Let me look.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"CMakeLists.txt\"}}\n</tool_call>",
            &["read_file"],
            "call_",
        );
        assert_eq!(p.content, "Let me look.");
        assert_eq!(
            p.calls,
            vec![ToolCall {
                id: "call_0".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"CMakeLists.txt"}"#.into()
            }]
        );
    }

    #[test]
    fn unterminated_native_block() {
        let c = one("<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}");
        assert_eq!(c.arguments, r#"{"path":"a"}"#);
    }

    #[test]
    fn aliases_and_shapes() {
        assert_eq!(
            one(r#"{"tool": "read_file", "parameters": {"path": "a"}}"#).name,
            "read_file"
        );
        assert_eq!(
            one(r#"{"function": "read_file", "args": {"path": "a"}}"#).arguments,
            r#"{"path":"a"}"#
        );
        assert_eq!(
            one(r#"{"type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}"#).arguments,
            r#"{"path": "a"}"#
        );
        assert_eq!(
            one(r#"{"name": "read_file", "path": "a"}"#).arguments,
            r#"{"path":"a"}"#
        );
        assert_eq!(
            one(r#"{"tool_calls": [{"name": "read_file", "arguments": {}}]}"#).arguments,
            "{}"
        );
    }

    #[test]
    fn fenced_json_is_removed_from_content() {
        let p = parse_tool_calls(
            "Sure:\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}\n```\nDone.",
            &["read_file"],
            "c",
        );
        assert_eq!(p.calls.len(), 1);
        assert_eq!(p.content, "Sure:\n\nDone.");
    }

    #[test]
    fn lists_give_several_calls_with_distinct_ids() {
        let p = parse_tool_calls(
            r#"[{"name": "read_file", "arguments": {"path": "a"}}, {"name": "list_dir", "arguments": {}}]"#,
            &["read_file", "list_dir"],
            "c",
        );
        let ids: Vec<_> = p.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["c0", "c1"]);
    }

    #[test]
    fn plain_text_and_data_json_are_not_calls() {
        assert!(parse_tool_calls("The answer is 42.", &["read_file"], "c")
            .calls
            .is_empty());
        assert!(
            parse_tool_calls(r#"{"version": "1.2"}"#, &["read_file"], "c")
                .calls
                .is_empty()
        );
        assert!(parse_tool_calls(r#"{"name": "zlib"}"#, &["read_file"], "c")
            .calls
            .is_empty());
        assert!(
            parse_tool_calls(r#"{"name": "zlib", "version": "1.2"}"#, &["read_file"], "c")
                .calls
                .is_empty()
        );
    }

    #[test]
    fn unknown_tools_are_still_returned() {
        assert_eq!(one(r#"{"name": "rm_rf", "arguments": {}}"#).name, "rm_rf");
    }

    #[test]
    fn bad_argument_strings_are_kept_verbatim() {
        assert_eq!(
            one(r#"{"name": "read_file", "arguments": "path=a"}"#).arguments,
            "path=a"
        );
    }

    #[test]
    fn tool_call_schema_orders_name_first() {
        let tools = [ToolSpec {
            name: "read_file".into(),
            description: "d".into(),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }];
        let g = crate::local::schema::schema_to_gbnf(&tool_call_schema(&tools));
        assert!(g.unsupported.is_empty(), "{:?}", g.unsupported);
        assert!(
            g.gbnf
                .contains(r#""{" ws "\"name\"" ws ":" ws root-0-name "," ws "\"arguments\"""#),
            "{}",
            g.gbnf
        );
    }

    #[test]
    fn dialect_detection() {
        let qwen = "{%- if tools %}...<tools>...<tool_call>\\n{\"name\": ...";
        assert_eq!(ToolMode::Auto.dialect(Some(qwen)), ToolDialect::Native);
        assert_eq!(
            ToolMode::Auto.dialect(Some("<|im_start|>")),
            ToolDialect::Emulated
        );
        assert_eq!(ToolMode::Auto.dialect(None), ToolDialect::Emulated);
        assert_eq!(ToolMode::ForceNative.dialect(None), ToolDialect::Native);
    }
}
