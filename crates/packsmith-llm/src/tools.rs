//! Checking a model's tool call before a handler sees it. Models, small ones
//! especially, call tools that do not exist, write broken JSON and forget
//! required arguments; each of those becomes an `Err(message)` written for
//! the model to read as the tool result, so it can try again.

use serde_json::Value;

use crate::{ToolCall, ToolSpec};

/// The parsed arguments of `call`, or a message for the model saying what
/// is wrong. Arguments are checked against the tool's JSON Schema for the
/// keywords tool schemas use: `type`, `properties`, `required`,
/// `additionalProperties: false`, `enum`, `items`.
pub fn validate_tool_call(call: &ToolCall, tools: &[ToolSpec]) -> Result<Value, String> {
    let Some(tool) = tools.iter().find(|t| t.name == call.name) else {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        return Err(format!(
            "error: there is no tool named `{}`. Available tools: {}.",
            call.name,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ));
    };
    let raw = call.arguments.trim();
    // An empty string is how several servers send "no arguments".
    let args: Value = if raw.is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(raw).map_err(|e| {
            format!(
                "error: the arguments to `{}` are not valid JSON ({e}). \
                 Call the tool again with a JSON object matching its parameters.",
                call.name
            )
        })?
    };
    let mut problems = Vec::new();
    check(&tool.parameters, &args, "arguments", &mut problems);
    if problems.is_empty() {
        Ok(args)
    } else {
        Err(format!(
            "error: wrong arguments to `{}`: {}. Its parameters schema is {}.",
            call.name,
            problems.join("; "),
            tool.parameters
        ))
    }
}

fn check(schema: &Value, value: &Value, at: &str, problems: &mut Vec<String>) {
    if let Some(expected) = schema.get("type") {
        let types: Vec<&str> = match expected {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| has_type(value, t)) {
            problems.push(format!(
                "{at} should be {} but is {}",
                types.join(" or "),
                type_name(value)
            ));
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            problems.push(format!(
                "{at} must be one of {}",
                Value::Array(allowed.clone())
            ));
        }
    }
    if let Value::Object(fields) = value {
        let props = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !fields.contains_key(name) {
                problems.push(format!("{at}.{name} is required"));
            }
        }
        for (name, v) in fields {
            match props.and_then(|p| p.get(name)) {
                Some(sub) => check(sub, v, &format!("{at}.{name}"), problems),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    problems.push(format!("{at}.{name} is not a parameter"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, v) in items.iter().enumerate() {
            check(item_schema, v, &format!("{at}[{i}]"), problems);
        }
    }
}

fn has_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        _ => true,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "read_file".into(),
            description: "Read a file".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "max_lines": {"type": "integer"},
                    "mode": {"enum": ["head", "tail"]}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }]
    }

    fn call(name: &str, args: &str) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn good_call_parses() {
        let v = validate_tool_call(
            &call("read_file", r#"{"path":"a.txt","max_lines":3}"#),
            &tools(),
        );
        assert_eq!(v, Ok(json!({"path": "a.txt", "max_lines": 3})));
    }

    #[test]
    fn every_malformation_is_a_message() {
        let t = tools();
        let cases = [
            call("write_file", "{}"),
            call("read_file", "{\"path\": "),
            call("read_file", "[1]"),
            call("read_file", r#"{"max_lines": "3"}"#),
            call("read_file", r#"{"path": "a", "force": true}"#),
            call("read_file", r#"{"path": "a", "mode": "middle"}"#),
        ];
        let messages: Vec<String> = cases
            .iter()
            .map(|c| validate_tool_call(c, &t).err().unwrap_or_default())
            .collect();
        insta::assert_snapshot!(messages.join("\n"));
    }
}
