//! Anthropic Messages. A JSON-Schema answer is asked for as a forced call
//! of a tool whose input schema is that schema; the call's input comes back
//! as the response text.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::http::{json_f32, post_json, Cancellable, HeaderValue, HttpTransport};
use crate::secret::Secret;
use crate::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, Role, ToolCall, ToolChoice, Usage,
};

/// The API version sent as `anthropic-version`.
pub const DEFAULT_VERSION: &str = "2023-06-01";

#[derive(Debug, Clone)]
pub struct AnthropicOptions {
    /// `anthropic:NAME`.
    pub id: String,
    pub model: String,
    /// Up to and including `/v1`.
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub version: String,
    /// Sent when the request sets none: the API requires it.
    pub default_max_tokens: u32,
    pub request_timeout: Duration,
}

pub struct AnthropicChat {
    opts: AnthropicOptions,
    transport: Arc<dyn HttpTransport>,
}

const PROVIDER: &str = "anthropic";

impl AnthropicChat {
    pub fn new(opts: AnthropicOptions) -> Self {
        Self::with_transport(opts, Arc::new(Cancellable::production()))
    }

    pub fn with_transport(opts: AnthropicOptions, transport: Arc<dyn HttpTransport>) -> Self {
        Self { opts, transport }
    }
}

impl ChatModel for AnthropicChat {
    fn id(&self) -> String {
        self.opts.id.clone()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = request_body(&self.opts, request);
        let mut headers = vec![(
            "anthropic-version".to_string(),
            HeaderValue::Plain(self.opts.version.clone()),
        )];
        if let Some(key) = &self.opts.api_key {
            headers.push(("x-api-key".into(), HeaderValue::Secret(key.clone())));
        }
        let url = format!("{}/messages", self.opts.base_url.trim_end_matches('/'));
        let value = post_json(
            self.transport.as_ref(),
            PROVIDER,
            &self.opts.model,
            url,
            headers,
            &body,
            self.opts.request_timeout,
        )?;
        parse_response(
            &value,
            request.output_schema.as_ref().map(|s| s.name.as_str()),
        )
    }
}

/// The Messages request body.
pub fn request_body(opts: &AnthropicOptions, request: &ChatRequest) -> Value {
    // Consecutive turns of one role are merged: the API wants user and
    // assistant to alternate, and tool results travel in user turns.
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in &request.messages {
        let (role, blocks) = match m.role {
            Role::User => ("user", text_block(&m.content)),
            Role::Tool => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.content,
                })],
            ),
            Role::Assistant => {
                let mut blocks = text_block(&m.content);
                blocks.extend(m.tool_calls.iter().map(|c| {
                    json!({"type": "tool_use", "id": c.id, "name": c.name, "input": tool_input(&c.arguments)})
                }));
                ("assistant", blocks)
            }
        };
        match messages.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, mut content)| {
            // The API rejects an empty turn (a model that answered nothing).
            if content.is_empty() {
                content.push(json!({"type": "text", "text": "(empty)"}));
            }
            json!({"role": role, "content": content})
        })
        .collect();
    let mut body = json!({
        "model": opts.model,
        "max_tokens": request.max_tokens.unwrap_or(opts.default_max_tokens),
        "messages": messages,
    });
    if let Some(sys) = request.system.as_deref().filter(|s| !s.is_empty()) {
        body["system"] = json!(sys);
    }
    let mut tools: Vec<Value> = request
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    if let Some(choice) = &request.tool_choice {
        body["tool_choice"] = match choice {
            ToolChoice::Auto => json!({"type": "auto"}),
            ToolChoice::Required => json!({"type": "any"}),
            ToolChoice::Tool { name } => json!({"type": "tool", "name": name}),
        };
    }
    // A schema answer is a forced call, which overrides any other choice.
    if let Some(s) = &request.output_schema {
        tools.push(json!({
            "name": s.name,
            "description": "Give your answer by calling this tool; its input is the answer.",
            "input_schema": s.schema,
        }));
        body["tool_choice"] = json!({"type": "tool", "name": s.name});
    }
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json_f32(t);
    }
    // The Messages API has no seed; `request.seed` is not sent.
    body
}

fn text_block(text: &str) -> Vec<Value> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![json!({"type": "text", "text": text})]
    }
}

/// `tool_use.input` must be an object; a malformed call from an earlier
/// turn is replayed as an object holding the raw text.
fn tool_input(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ if arguments.trim().is_empty() => Value::Object(Map::new()),
        _ => json!({"_raw_arguments": arguments}),
    }
}

#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    model: String,
    #[serde(default)]
    content: Vec<WireBlock>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: WireUsage,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// Thinking and any block type added later.
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

/// Reads a Messages response. `schema_tool` names the forced tool of a
/// structured-output request: its call becomes the text answer.
pub fn parse_response(body: &Value, schema_tool: Option<&str>) -> Result<ChatResponse, LlmError> {
    let wire: WireResponse =
        serde_json::from_value(body.clone()).map_err(|e| LlmError::BadResponse {
            provider: PROVIDER.into(),
            message: format!("unexpected shape: {e}"),
        })?;
    let mut content = String::new();
    let mut tool_calls = Vec::new();
    let mut answered_by_schema = false;
    for block in wire.content {
        match block {
            WireBlock::Text { text } => content.push_str(&text),
            WireBlock::ToolUse { name, input, .. } if Some(name.as_str()) == schema_tool => {
                content = input.to_string();
                answered_by_schema = true;
            }
            WireBlock::ToolUse { id, name, input } => tool_calls.push(ToolCall {
                id,
                name,
                arguments: input.to_string(),
            }),
            WireBlock::Other => {}
        }
    }
    let finish_reason = match wire.stop_reason.as_deref() {
        _ if answered_by_schema && tool_calls.is_empty() => FinishReason::Stop,
        Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens") => FinishReason::Length,
        _ => FinishReason::Other,
    };
    // Our prompt_tokens include cached ones (as OpenAI counts them);
    // Anthropic's input_tokens exclude cache reads and writes.
    let u = wire.usage;
    let cached = u.cache_read_input_tokens.unwrap_or(0);
    let usage = Usage {
        prompt_tokens: u.input_tokens + cached + u.cache_creation_input_tokens.unwrap_or(0),
        completion_tokens: u.output_tokens,
        cached_tokens: cached,
    };
    Ok(ChatResponse {
        model: wire.model,
        content,
        tool_calls,
        finish_reason,
        usage,
        latency_ms: 0,
        cost_usd: None,
        cached: false,
    })
}
