//! A [`ChatRequest`] → the (role, content) turns handed to the model's own
//! chat template. Templates applied by llama.cpp know three roles (system,
//! user, assistant), so tool specs go into the system turn, calls into the
//! assistant turn and results into a user turn, in the tool dialect chosen
//! for the model (see [`super::tools`]).

use crate::{ChatRequest, Role};

use super::schema::describe_for_prompt;
use super::tools::{describe_tools, render_calls, render_result, ToolDialect};

/// One turn as the chat template sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub role: &'static str,
    pub content: String,
}

/// Renders a request into template turns.
pub fn turns(request: &ChatRequest, dialect: ToolDialect) -> Vec<Turn> {
    let mut system_parts: Vec<String> = Vec::new();
    if let Some(system) = request.system.as_deref().map(str::trim) {
        if !system.is_empty() {
            system_parts.push(system.to_string());
        }
    }
    if !request.tools.is_empty() {
        system_parts.push(describe_tools(dialect, &request.tools));
    }
    if let Some(schema) = &request.output_schema {
        system_parts.push(describe_for_prompt(&schema.name, &schema.schema));
    }

    let mut out = Vec::new();
    if !system_parts.is_empty() {
        out.push(Turn {
            role: "system",
            content: system_parts.join("\n\n"),
        });
    }
    for (i, m) in request.messages.iter().enumerate() {
        match m.role {
            Role::User => push(&mut out, "user", m.content.clone()),
            Role::Assistant => {
                let content = if m.tool_calls.is_empty() {
                    m.content.clone()
                } else {
                    render_calls(dialect, &m.content, &m.tool_calls)
                };
                push(&mut out, "assistant", content);
            }
            Role::Tool => {
                let name = m.tool_call_id.as_deref().and_then(|id| {
                    request.messages[..i]
                        .iter()
                        .rev()
                        .flat_map(|p| p.tool_calls.iter())
                        .find(|c| c.id == id)
                        .map(|c| c.name.as_str())
                });
                push(&mut out, "user", render_result(dialect, name, &m.content));
            }
        }
    }
    // Small models lose instructions given only at the top of a long prompt:
    // repeat the one that matters at the end of the last turn.
    if let (Some(last_message), Some(last)) = (request.messages.last(), out.last_mut()) {
        if last.role == "user" && !request.tools.is_empty() {
            match (last_message.role, dialect) {
                (Role::Tool, _) => last
                    .content
                    .push_str("\n\nAnswer the original request using the tool results above."),
                (Role::User, ToolDialect::Emulated) => {
                    let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
                    last.content.push_str(&format!(
                        "\n\n(To use a tool ({}), reply with only {{\"name\": \"<tool>\", \"arguments\": {{...}}}}.)",
                        names.join(", ")
                    ));
                }
                _ => {}
            }
        }
    }
    out
}

/// Appends a turn, merging consecutive turns of the same role (several tool
/// results in a row become one user turn, as chat templates expect
/// alternation).
fn push(out: &mut Vec<Turn>, role: &'static str, content: String) {
    if let Some(last) = out.last_mut() {
        if last.role == role && role != "system" {
            last.content.push('\n');
            last.content.push_str(&content);
            return;
        }
    }
    out.push(Turn { role, content });
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{ChatMessage, OutputSchema, ToolCall, ToolSpec};

    fn request() -> ChatRequest {
        let mut assistant = ChatMessage::assistant("");
        assistant.tool_calls = vec![
            ToolCall {
                id: "c0".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"a"}"#.into(),
            },
            ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"b"}"#.into(),
            },
        ];
        let mut r = ChatRequest::new(
            Some("You package software.".into()),
            vec![
                ChatMessage::user("Read a and b."),
                assistant,
                ChatMessage::tool_result("c0", "A"),
                ChatMessage::tool_result("c1", "B"),
            ],
        );
        r.tools = vec![ToolSpec {
            name: "read_file".into(),
            description: "Read a file of the repository".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }];
        r
    }

    #[test]
    fn native_turns() {
        let t = turns(&request(), ToolDialect::Native);
        insta::assert_debug_snapshot!(t);
    }

    #[test]
    fn emulated_turns() {
        let t = turns(&request(), ToolDialect::Emulated);
        insta::assert_debug_snapshot!(t);
    }

    #[test]
    fn schema_is_described_in_the_system_turn() {
        let mut r = ChatRequest::new(None, vec![ChatMessage::user("hi")]);
        r.output_schema = Some(OutputSchema {
            name: "answer".into(),
            schema: json!({"type": "object"}),
        });
        let t = turns(&r, ToolDialect::Emulated);
        assert_eq!(t[0].role, "system");
        assert!(t[0].content.contains("It must match this JSON Schema"));
    }
}
