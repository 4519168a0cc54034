//! The server side of Chat Completions, for `packsmith serve`: a request
//! body → our [`ChatRequest`] ([`parse_request`]), our [`ChatResponse`] →
//! a response body ([`response_body`]). The inverses of
//! [`super::request_body`] and [`super::parse_response`]; the response is
//! written with the same wire types `parse_response` reads.

use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    tool_calls_from_wire, WireChoice, WireDetails, WireFunction, WireMessage, WireResponse,
    WireToolCall, WireUsage,
};
use crate::{
    ChatMessage, ChatRequest, ChatResponse, FinishReason, OutputSchema, Role, ToolChoice, ToolSpec,
};

/// A request the server cannot take, with the OpenAI error `param` it is
/// about (if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestError {
    pub message: String,
    pub param: Option<&'static str>,
}

impl RequestError {
    fn new(param: Option<&'static str>, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            param,
        }
    }
}

#[derive(Deserialize)]
struct WireRequest {
    #[serde(default)]
    model: String,
    messages: Vec<WireInMessage>,
    #[serde(default)]
    tools: Vec<WireTool>,
    #[serde(default)]
    tool_choice: Option<Value>,
    #[serde(default)]
    response_format: Option<WireResponseFormat>,
    #[serde(default)]
    temperature: Option<f32>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    max_tokens: Option<u32>,
    #[serde(default)]
    max_completion_tokens: Option<u32>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    n: Option<u32>,
}

#[derive(Deserialize)]
struct WireInMessage {
    role: String,
    #[serde(default)]
    content: Option<WireContent>,
    #[serde(default)]
    tool_calls: Vec<WireToolCall>,
    #[serde(default)]
    tool_call_id: Option<String>,
}

/// A string, or an array of parts of which the text ones are kept.
#[derive(Deserialize)]
#[serde(untagged)]
enum WireContent {
    Text(String),
    Parts(Vec<WirePart>),
}

#[derive(Deserialize)]
struct WirePart {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct WireTool {
    function: WireToolFunction,
}

#[derive(Deserialize)]
struct WireToolFunction {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    parameters: Option<Value>,
}

#[derive(Deserialize)]
struct WireResponseFormat {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    json_schema: Option<WireJsonSchema>,
    /// llama.cpp servers' extension to `json_object`.
    #[serde(default)]
    schema: Option<Value>,
}

#[derive(Deserialize)]
struct WireJsonSchema {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    schema: Option<Value>,
}

fn text_of(content: Option<WireContent>) -> Result<String, RequestError> {
    match content {
        None => Ok(String::new()),
        Some(WireContent::Text(t)) => Ok(t),
        Some(WireContent::Parts(parts)) => {
            let mut text = String::new();
            for p in parts {
                if p.kind != "text" {
                    return Err(RequestError::new(
                        Some("messages"),
                        format!(
                            "content parts of type `{}` are not supported; send text",
                            p.kind
                        ),
                    ));
                }
                text.push_str(&p.text.unwrap_or_default());
            }
            Ok(text)
        }
    }
}

/// A Chat Completions request body → the model name it asks for and our
/// request. System (and developer) messages become the system prompt;
/// `tool_choice: "none"` drops the tools.
pub fn parse_request(body: &Value) -> Result<(String, ChatRequest), RequestError> {
    let wire: WireRequest = serde_json::from_value(body.clone())
        .map_err(|e| RequestError::new(None, format!("not a chat completions request: {e}")))?;
    if wire.stream {
        return Err(RequestError::new(
            Some("stream"),
            "streaming is not supported by packsmith serve; send stream: false",
        ));
    }
    if wire.n.is_some_and(|n| n != 1) {
        return Err(RequestError::new(Some("n"), "only n = 1 is supported"));
    }
    let mut system: Vec<String> = Vec::new();
    let mut messages = Vec::new();
    for m in wire.messages {
        let content = text_of(m.content)?;
        match m.role.as_str() {
            "system" | "developer" => system.push(content),
            "user" => messages.push(ChatMessage::user(content)),
            "assistant" => messages.push(ChatMessage {
                role: Role::Assistant,
                content,
                tool_calls: tool_calls_from_wire(m.tool_calls),
                tool_call_id: None,
            }),
            "tool" => {
                let id = m.tool_call_id.filter(|id| !id.is_empty()).ok_or_else(|| {
                    RequestError::new(Some("messages"), "a tool message needs tool_call_id")
                })?;
                messages.push(ChatMessage::tool_result(id, content));
            }
            other => {
                return Err(RequestError::new(
                    Some("messages"),
                    format!("unknown message role `{other}`"),
                ))
            }
        }
    }
    let mut tools: Vec<ToolSpec> = wire
        .tools
        .into_iter()
        .map(|t| ToolSpec {
            name: t.function.name,
            description: t.function.description,
            parameters: t
                .function
                .parameters
                .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
        })
        .collect();
    let tool_choice = match wire.tool_choice {
        None => None,
        Some(Value::String(s)) => match s.as_str() {
            "auto" => Some(ToolChoice::Auto),
            "required" => Some(ToolChoice::Required),
            "none" => {
                tools.clear();
                None
            }
            other => {
                return Err(RequestError::new(
                    Some("tool_choice"),
                    format!("unknown tool_choice `{other}`"),
                ))
            }
        },
        Some(v) => match v.pointer("/function/name").and_then(Value::as_str) {
            Some(name) => Some(ToolChoice::Tool { name: name.into() }),
            None => return Err(RequestError::new(
                Some("tool_choice"),
                "tool_choice must be auto, none, required or {type: function, function: {name}}",
            )),
        },
    };
    let any_object = || json!({"type": "object"});
    let output_schema = match wire.response_format {
        None => None,
        Some(f) => match f.kind.as_str() {
            "text" => None,
            "json_object" => Some(OutputSchema {
                name: "json_object".into(),
                schema: f.schema.unwrap_or_else(any_object),
            }),
            "json_schema" => {
                let s = f.json_schema.ok_or_else(|| {
                    RequestError::new(Some("response_format"), "json_schema is missing")
                })?;
                Some(OutputSchema {
                    name: s.name.unwrap_or_else(|| "response".into()),
                    schema: s.schema.unwrap_or_else(any_object),
                })
            }
            other => {
                return Err(RequestError::new(
                    Some("response_format"),
                    format!("unknown response_format type `{other}`"),
                ))
            }
        },
    };
    let request = ChatRequest {
        system: (!system.is_empty()).then(|| system.join("\n\n")),
        messages,
        tools,
        tool_choice,
        output_schema,
        temperature: wire.temperature,
        seed: wire.seed,
        max_tokens: wire.max_completion_tokens.or(wire.max_tokens),
    };
    Ok((wire.model, request))
}

/// Our response → a Chat Completions response body. `model` is the name
/// the client asked for (or the served model's), `id` the completion's id.
pub fn response_body(response: &ChatResponse, model: &str, id: &str, created: u64) -> Value {
    let finish_reason = match response.finish_reason {
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::Length => "length",
        FinishReason::Stop | FinishReason::Other => "stop",
    };
    let tool_calls = response
        .tool_calls
        .iter()
        .map(|c| WireToolCall {
            id: Some(c.id.clone()),
            kind: "function".into(),
            function: WireFunction {
                name: c.name.clone(),
                arguments: Value::String(c.arguments.clone()),
            },
        })
        .collect();
    let usage = &response.usage;
    let wire = WireResponse {
        id: id.to_string(),
        object: "chat.completion".into(),
        created,
        model: model.to_string(),
        choices: vec![WireChoice {
            index: 0,
            message: WireMessage {
                role: "assistant".into(),
                content: Some(response.content.clone()),
                tool_calls,
            },
            finish_reason: Some(finish_reason.into()),
        }],
        usage: Some(WireUsage {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.total(),
            prompt_tokens_details: (usage.cached_tokens > 0).then_some(WireDetails {
                cached_tokens: Some(usage.cached_tokens),
            }),
        }),
    };
    serde_json::to_value(wire).unwrap_or(Value::Null)
}

/// `GET /v1/models` with the one model served.
pub fn models_body(model: &str, created: u64) -> Value {
    json!({
        "object": "list",
        "data": [{"id": model, "object": "model", "created": created, "owned_by": "packsmith"}],
    })
}

/// An OpenAI-style error body.
pub fn error_body(message: &str, kind: &str, param: Option<&str>, code: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openai::{parse_response, request_body, OpenAiOptions, StructuredOutput};
    use crate::{ToolCall, Usage};
    use std::time::Duration;

    fn opts(structured_output: StructuredOutput) -> OpenAiOptions {
        OpenAiOptions {
            provider: "openai-compat".into(),
            id: "openai-compat:m@http://x/v1".into(),
            model: "m".into(),
            base_url: "http://x/v1".into(),
            api_key: None,
            structured_output,
            max_completion_tokens_field: false,
            request_timeout: Duration::from_secs(1),
        }
    }

    fn full_request() -> ChatRequest {
        let mut r = ChatRequest::new(
            Some("be brief".into()),
            vec![
                ChatMessage::user("weather in Paris?"),
                ChatMessage {
                    role: Role::Assistant,
                    content: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "call_7".into(),
                        name: "weather".into(),
                        arguments: r#"{"city":"Paris"}"#.into(),
                    }],
                    tool_call_id: None,
                },
                ChatMessage::tool_result("call_7", "sunny"),
            ],
        );
        r.tools = vec![ToolSpec {
            name: "weather".into(),
            description: "the weather".into(),
            parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
        }];
        r.tool_choice = Some(ToolChoice::Tool {
            name: "weather".into(),
        });
        r.output_schema = Some(OutputSchema {
            name: "answer".into(),
            schema: json!({"type": "object", "required": ["a"]}),
        });
        r.temperature = Some(0.2);
        r.seed = Some(7);
        r.max_tokens = Some(64);
        r
    }

    #[test]
    fn parse_request_inverts_request_body() {
        let r = full_request();
        let (model, back) = parse_request(&request_body(&opts(StructuredOutput::JsonSchema), &r))
            .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(model, "m");
        assert_eq!(back, r);
        for choice in [ToolChoice::Auto, ToolChoice::Required] {
            let mut r = r.clone();
            r.tool_choice = Some(choice);
            let back = parse_request(&request_body(&opts(StructuredOutput::JsonSchema), &r))
                .map(|(_, b)| b);
            assert_eq!(back, Ok(r));
        }
    }

    #[test]
    fn json_object_keeps_the_schema_extension() {
        let r = full_request();
        let (_, back) = parse_request(&request_body(&opts(StructuredOutput::JsonObject), &r))
            .unwrap_or_else(|e| panic!("{e:?}"));
        let schema = back.output_schema.map(|s| s.schema);
        assert_eq!(schema, r.output_schema.map(|s| s.schema));
        // The schema instruction went into the system prompt.
        assert!(back.system.unwrap_or_default().starts_with("be brief\n\n"));
    }

    #[test]
    fn parse_response_inverts_response_body() {
        let response = ChatResponse {
            model: "m".into(),
            content: "hi".into(),
            tool_calls: vec![ToolCall {
                id: "call_1".into(),
                name: "weather".into(),
                arguments: "{}".into(),
            }],
            finish_reason: FinishReason::ToolCalls,
            usage: Usage {
                prompt_tokens: 10,
                completion_tokens: 3,
                cached_tokens: 4,
            },
            latency_ms: 0,
            cost_usd: None,
            cached: false,
        };
        let body = response_body(&response, "m", "chatcmpl-1", 5);
        assert_eq!(body["object"], "chat.completion");
        assert_eq!(body["choices"][0]["message"]["role"], "assistant");
        assert_eq!(
            body["choices"][0]["message"]["tool_calls"][0]["type"],
            "function"
        );
        assert_eq!(body["usage"]["total_tokens"], 13);
        assert_eq!(parse_response("x", &body).ok(), Some(response));
    }

    #[test]
    fn other_shapes_clients_send() {
        let body = json!({
            "model": "m",
            "messages": [
                {"role": "developer", "content": "a"},
                {"role": "system", "content": [{"type": "text", "text": "b"}]},
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            ],
            "tools": [{"type": "function", "function": {"name": "t"}}],
            "tool_choice": "none",
            "response_format": {"type": "json_object"},
            "max_completion_tokens": 5,
        });
        let (_, r) = parse_request(&body).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(r.system.as_deref(), Some("a\n\nb"));
        assert_eq!(r.messages, vec![ChatMessage::user("hi")]);
        assert!(r.tools.is_empty() && r.tool_choice.is_none());
        assert_eq!(
            r.output_schema.map(|s| s.schema),
            Some(json!({"type": "object"}))
        );
        assert_eq!(r.max_tokens, Some(5));
    }

    #[test]
    fn refusals_name_the_parameter() {
        let cases = [
            (json!({"messages": [], "stream": true}), Some("stream")),
            (
                json!({"messages": [{"role": "wizard", "content": ""}]}),
                Some("messages"),
            ),
            (
                json!({"messages": [{"role": "tool", "content": "x"}]}),
                Some("messages"),
            ),
            (
                json!({"messages": [], "tool_choice": "maybe"}),
                Some("tool_choice"),
            ),
            (
                json!({"messages": [], "response_format": {"type": "yaml"}}),
                Some("response_format"),
            ),
            (json!({"model": "m"}), None),
        ];
        for (body, param) in cases {
            let e = parse_request(&body).err();
            assert_eq!(e.map(|e| e.param), Some(param), "{body}");
        }
    }
}
