//! OpenAI Chat Completions, and every server that speaks it (vLLM, Ollama,
//! llama.cpp's server, llama-cpp-python, LiteLLM). Wire conversion is pure
//! (`request_body`, `parse_response`) so it is snapshot-tested; transport,
//! error classes and retries are shared with the other providers.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::http::{json_f32, post_json, Cancellable, HeaderValue, HttpTransport};
use crate::secret::Secret;
use crate::{
    ChatModel, ChatRequest, ChatResponse, Embedder, EmbeddingError, FinishReason, LlmError, Role,
    ToolCall, ToolChoice, Usage,
};

pub mod reverse;

/// How a JSON-Schema answer is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// `response_format: {type: "json_schema", json_schema: {…, strict}}`.
    #[default]
    JsonSchema,
    /// `response_format: {type: "json_object", schema}` plus the schema in
    /// the system prompt, for servers without `json_schema` (and small
    /// models, which fill a schema well only when they can read it).
    JsonObject,
}

/// Everything one OpenAI-compatible endpoint needs.
#[derive(Debug, Clone)]
pub struct OpenAiOptions {
    /// Provider label for `id()` and messages: `openai` or `openai-compat`.
    pub provider: String,
    /// The id `--model` would name (`openai:gpt-5`, `openai-compat:m@url`).
    pub id: String,
    pub model: String,
    /// Up to and including `/v1`.
    pub base_url: String,
    pub api_key: Option<Secret>,
    pub structured_output: StructuredOutput,
    /// OpenAI proper wants `max_completion_tokens`; most servers only know
    /// the older `max_tokens`.
    pub max_completion_tokens_field: bool,
    pub request_timeout: Duration,
}

pub struct OpenAiChat {
    opts: OpenAiOptions,
    transport: Arc<dyn HttpTransport>,
}

impl OpenAiChat {
    pub fn new(opts: OpenAiOptions) -> Self {
        Self::with_transport(opts, Arc::new(Cancellable::production()))
    }

    pub fn with_transport(opts: OpenAiOptions, transport: Arc<dyn HttpTransport>) -> Self {
        Self { opts, transport }
    }

    pub fn options(&self) -> &OpenAiOptions {
        &self.opts
    }

    fn headers(&self) -> Vec<(String, HeaderValue)> {
        self.opts
            .api_key
            .iter()
            .map(|k| {
                let bearer = Secret::new(format!("Bearer {}", k.expose()));
                ("authorization".to_string(), HeaderValue::Secret(bearer))
            })
            .collect()
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.opts.base_url.trim_end_matches('/'))
    }
}

impl ChatModel for OpenAiChat {
    fn id(&self) -> String {
        self.opts.id.clone()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = request_body(&self.opts, request);
        let value = post_json(
            self.transport.as_ref(),
            &self.opts.provider,
            &self.opts.model,
            self.url("chat/completions"),
            self.headers(),
            &body,
            self.opts.request_timeout,
        )?;
        parse_response(&self.opts.provider, &value)
    }
}

/// Tells a model that cannot be constrained (or is constrained but small)
/// what shape to answer in.
pub fn schema_instruction(schema: &Value) -> String {
    format!(
        "Answer with a single JSON object and nothing else. It must match this JSON Schema:\n{}",
        serde_json::to_string_pretty(schema).unwrap_or_else(|_| schema.to_string())
    )
}

/// The Chat Completions request body.
pub fn request_body(opts: &OpenAiOptions, request: &ChatRequest) -> Value {
    let mut system = request.system.clone();
    if let (Some(s), StructuredOutput::JsonObject) =
        (&request.output_schema, opts.structured_output)
    {
        let instruction = schema_instruction(&s.schema);
        system = Some(match system {
            Some(sys) if !sys.is_empty() => format!("{sys}\n\n{instruction}"),
            _ => instruction,
        });
    }
    let mut messages = Vec::new();
    if let Some(sys) = system {
        messages.push(json!({"role": "system", "content": sys}));
    }
    for m in &request.messages {
        messages.push(match m.role {
            Role::User => json!({"role": "user", "content": m.content}),
            Role::Assistant => {
                let mut msg = json!({"role": "assistant", "content": m.content});
                // Content stays a string even when empty: OpenAI takes "" or
                // null beside tool calls, llama-cpp-python only a string.
                if !m.tool_calls.is_empty() {
                    msg["tool_calls"] = m
                        .tool_calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments},
                            })
                        })
                        .collect();
                }
                msg
            }
            Role::Tool => json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
                "content": m.content,
            }),
        });
    }
    let mut body = json!({"model": opts.model, "messages": messages});
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                })
            })
            .collect();
    }
    if let Some(choice) = &request.tool_choice {
        body["tool_choice"] = match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool { name } => json!({"type": "function", "function": {"name": name}}),
        };
    }
    if let Some(s) = &request.output_schema {
        body["response_format"] = match opts.structured_output {
            StructuredOutput::JsonSchema => json!({
                "type": "json_schema",
                "json_schema": {"name": s.name, "schema": s.schema, "strict": true},
            }),
            // `schema` is an extension that llama.cpp-based servers use to
            // constrain the grammar; others ignore it.
            StructuredOutput::JsonObject => json!({"type": "json_object", "schema": s.schema}),
        };
    }
    if let Some(t) = request.temperature {
        body["temperature"] = json_f32(t);
    }
    if let Some(seed) = request.seed {
        body["seed"] = json!(seed);
    }
    if let Some(n) = request.max_tokens {
        let field = if opts.max_completion_tokens_field {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[field] = json!(n);
    }
    body
}

// The response's wire types, read here and written by `reverse` (the
// server side). Fields marked `skip_deserializing` only matter when writing.
#[derive(Serialize, Deserialize)]
struct WireResponse {
    #[serde(skip_deserializing)]
    id: String,
    #[serde(skip_deserializing)]
    object: String,
    #[serde(skip_deserializing)]
    created: u64,
    #[serde(default)]
    model: String,
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Serialize, Deserialize)]
struct WireChoice {
    #[serde(skip_deserializing)]
    index: u32,
    message: WireMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct WireMessage {
    #[serde(skip_deserializing)]
    role: String,
    #[serde(default)]
    content: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall>,
}

#[derive(Serialize, Deserialize)]
struct WireToolCall {
    #[serde(default)]
    id: Option<String>,
    #[serde(rename = "type", skip_deserializing)]
    kind: String,
    function: WireFunction,
}

#[derive(Serialize, Deserialize)]
struct WireFunction {
    name: String,
    /// A string per the spec; some servers send an object.
    #[serde(default)]
    arguments: Value,
}

#[derive(Serialize, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(skip_deserializing)]
    total_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prompt_tokens_details: Option<WireDetails>,
}

#[derive(Serialize, Deserialize)]
struct WireDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

/// Tool calls as sent on the wire → ours: arguments as a string, a missing
/// id made up from the position.
fn tool_calls_from_wire(calls: Vec<WireToolCall>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| ToolCall {
            id: c
                .id
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| format!("call_{i}")),
            name: c.function.name,
            arguments: match c.function.arguments {
                Value::String(s) => s,
                Value::Null => String::new(),
                other => other.to_string(),
            },
        })
        .collect()
}

/// Reads a Chat Completions response body.
pub fn parse_response(provider: &str, body: &Value) -> Result<ChatResponse, LlmError> {
    let bad = |message: String| LlmError::BadResponse {
        provider: provider.to_string(),
        message,
    };
    let wire: WireResponse =
        serde_json::from_value(body.clone()).map_err(|e| bad(format!("unexpected shape: {e}")))?;
    let choice = wire.choices.into_iter().next().ok_or_else(|| {
        bad(format!(
            "no choices in the response: {}",
            crate::http::error_message(&body.to_string())
        ))
    })?;
    let tool_calls = tool_calls_from_wire(choice.message.tool_calls);
    let finish_reason = match choice.finish_reason.as_deref() {
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("length") => FinishReason::Length,
        // Some servers say "stop" even when the message carries tool calls.
        Some("stop") | None if !tool_calls.is_empty() => FinishReason::ToolCalls,
        Some("stop") | None => FinishReason::Stop,
        Some(_) => FinishReason::Other,
    };
    let usage = wire.usage.map_or(Usage::default(), |u| Usage {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        cached_tokens: u
            .prompt_tokens_details
            .and_then(|d| d.cached_tokens)
            .unwrap_or(0),
    });
    Ok(ChatResponse {
        model: wire.model,
        content: choice.message.content.unwrap_or_default(),
        tool_calls,
        finish_reason,
        usage,
        latency_ms: 0,
        cost_usd: None,
        cached: false,
    })
}

/// `/v1/embeddings` of an OpenAI-compatible endpoint.
pub struct OpenAiEmbedder {
    chat: OpenAiChat,
}

impl OpenAiEmbedder {
    pub fn new(opts: OpenAiOptions) -> Self {
        Self {
            chat: OpenAiChat::new(opts),
        }
    }

    pub fn with_transport(opts: OpenAiOptions, transport: Arc<dyn HttpTransport>) -> Self {
        Self {
            chat: OpenAiChat::with_transport(opts, transport),
        }
    }
}

impl Embedder for OpenAiEmbedder {
    fn model_id(&self) -> String {
        self.chat.opts.id.clone()
    }

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingError> {
        self.embed_texts(texts).map_err(EmbeddingError::from)
    }
}

impl OpenAiEmbedder {
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError> {
        let opts = &self.chat.opts;
        let body = json!({"model": opts.model, "input": texts});
        let value = post_json(
            self.chat.transport.as_ref(),
            &opts.provider,
            &opts.model,
            self.chat.url("embeddings"),
            self.chat.headers(),
            &body,
            opts.request_timeout,
        )?;
        parse_embeddings(&opts.provider, &value, texts.len())
    }
}

#[derive(Deserialize)]
struct WireEmbeddings {
    data: Vec<WireEmbedding>,
}

#[derive(Deserialize)]
struct WireEmbedding {
    #[serde(default)]
    index: usize,
    embedding: Vec<f32>,
}

/// Reads an embeddings response, in input order.
pub fn parse_embeddings(
    provider: &str,
    body: &Value,
    expected: usize,
) -> Result<Vec<Vec<f32>>, LlmError> {
    let bad = |message: String| LlmError::BadResponse {
        provider: provider.to_string(),
        message,
    };
    let mut wire: WireEmbeddings =
        serde_json::from_value(body.clone()).map_err(|e| bad(format!("unexpected shape: {e}")))?;
    wire.data.sort_by_key(|d| d.index);
    if wire.data.len() != expected {
        return Err(bad(format!(
            "{} embeddings for {expected} inputs",
            wire.data.len()
        )));
    }
    Ok(wire.data.into_iter().map(|d| d.embedding).collect())
}
