//! The third-party server tier: real server implementations on loopback.
//! llama-cpp-python's OpenAI-compatible server (with SmolLM2-135M) for the
//! OpenAI format, LiteLLM's proxy in front of it for the Anthropic format.
//! Run by scripts/llm-servers/run-tests.sh; without its environment
//! variables each test prints a loud SKIPPED line.

use std::time::Duration;

use packsmith_llm::anthropic::{AnthropicChat, AnthropicOptions, DEFAULT_VERSION};
use packsmith_llm::config::Config;
use packsmith_llm::openai::{OpenAiChat, OpenAiOptions, StructuredOutput};
use packsmith_llm::{
    build_model, validate_tool_call, CacheMode, ChatMessage, ChatModel, ChatRequest, FinishReason,
    ModelSpec, OutputSchema, ReplayCache, Role, Secret, ToolChoice, ToolSpec,
};
use serde_json::{json, Value};

fn loopback(var: &str) -> Option<String> {
    let url = std::env::var(var).ok().filter(|u| !u.is_empty());
    match url {
        Some(u) if u.starts_with("http://127.0.0.1:") || u.starts_with("http://localhost:") => {
            Some(u)
        }
        Some(u) => panic!("{var}={u}: the third-party tier only talks to loopback"),
        None => {
            // Straight to the stream: the test harness captures eprintln!.
            let line =
                format!("SKIPPED: {var} is not set (run scripts/llm-servers/run-tests.sh)\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            None
        }
    }
}

fn llama(base_url: &str, structured_output: StructuredOutput) -> OpenAiChat {
    OpenAiChat::new(OpenAiOptions {
        provider: "openai-compat".into(),
        id: format!("openai-compat:smollm2@{base_url}"),
        model: "smollm2".into(),
        base_url: base_url.into(),
        api_key: None,
        structured_output,
        max_completion_tokens_field: false,
        request_timeout: Duration::from_secs(120),
    })
}

fn litellm(base_url: &str) -> AnthropicChat {
    AnthropicChat::new(litellm_options(base_url))
}

fn litellm_options(base_url: &str) -> AnthropicOptions {
    AnthropicOptions {
        id: "anthropic:smollm2".into(),
        model: "smollm2".into(),
        base_url: base_url.into(),
        api_key: std::env::var("PACKSMITH_TEST_LITELLM_KEY")
            .ok()
            .map(Secret::new),
        version: DEFAULT_VERSION.into(),
        default_max_tokens: 64,
        request_timeout: Duration::from_secs(120),
    }
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "get_weather".into(),
        description: "Get the current weather in a city".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        }),
    }
}

fn small(mut r: ChatRequest) -> ChatRequest {
    r.temperature = Some(0.0);
    r.seed = Some(1);
    r.max_tokens.get_or_insert(48);
    r
}

fn chat(model: &dyn ChatModel) {
    let r = small(ChatRequest::new(
        Some("You are a helpful assistant.".into()),
        vec![ChatMessage::user("What is the capital of France?")],
    ));
    let resp = model.complete(&r).unwrap();
    eprintln!(
        "{}: chat -> {:?} {:?}",
        model.id(),
        resp.content,
        resp.usage
    );
    assert!(!resp.content.trim().is_empty());
    assert!(
        resp.usage.prompt_tokens > 0 && resp.usage.completion_tokens > 0,
        "{:?}",
        resp.usage
    );
    assert!(matches!(
        resp.finish_reason,
        FinishReason::Stop | FinishReason::Length
    ));
}

/// A forced call, checked with `validate_tool_call`, answered with a tool
/// result, then a text answer.
fn tool_round_trip(model: &dyn ChatModel) {
    let tools = vec![weather_tool()];
    let mut r = small(ChatRequest::new(
        Some("You are a helpful assistant with tools.".into()),
        vec![ChatMessage::user(
            "What is the weather like in Paris today?",
        )],
    ));
    r.tools = tools.clone();
    r.tool_choice = Some(ToolChoice::Tool {
        name: "get_weather".into(),
    });
    let resp = model.complete(&r).unwrap();
    eprintln!("{}: tool call -> {:?}", model.id(), resp.tool_calls);
    assert_eq!(resp.finish_reason, FinishReason::ToolCalls);
    let call = resp.tool_calls.first().expect("a tool call").clone();
    assert_eq!(call.name, "get_weather");
    let args = validate_tool_call(&call, &tools).unwrap();
    assert!(args["city"].is_string());

    // A turn with text beside the call, as hosted models usually write it:
    // LiteLLM turns a tool-use-only turn into an assistant message without
    // `content`, which llama-cpp-python's chat template then fails on.
    let said = if resp.content.is_empty() {
        "Let me check.".to_string()
    } else {
        resp.content.clone()
    };
    r.messages.push(ChatMessage {
        role: Role::Assistant,
        content: said,
        tool_calls: vec![call.clone()],
        tool_call_id: None,
    });
    r.messages.push(ChatMessage::tool_result(
        &call.id,
        "Sunny, 24 degrees Celsius.",
    ));
    r.tool_choice = None;
    let answer = model.complete(&r).unwrap();
    eprintln!(
        "{}: after the tool result -> {:?} {:?}",
        model.id(),
        answer.content,
        answer.tool_calls
    );
    assert!(!answer.content.trim().is_empty() || !answer.tool_calls.is_empty());
}

fn schema_answer(model: &dyn ChatModel) {
    let mut r = small(ChatRequest::new(
        Some("You extract facts as JSON.".into()),
        vec![ChatMessage::user(
            "Paris is the capital of France. Give the city and the country.",
        )],
    ));
    r.max_tokens = Some(64);
    r.output_schema = Some(OutputSchema {
        name: "fact".into(),
        schema: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
            "required": ["city", "country"],
            "additionalProperties": false
        }),
    });
    let resp = model.complete(&r).unwrap();
    eprintln!("{}: schema -> {:?}", model.id(), resp.content);
    let v: Value = serde_json::from_str(&resp.content).unwrap();
    assert!(v["city"].is_string() && v["country"].is_string(), "{v}");
}

#[test]
fn llama_cpp_python_chat() {
    let Some(url) = loopback("PACKSMITH_TEST_LLAMA_URL") else {
        return;
    };
    chat(&llama(&url, StructuredOutput::JsonSchema));
}

#[test]
fn llama_cpp_python_tool_round_trip() {
    let Some(url) = loopback("PACKSMITH_TEST_LLAMA_URL") else {
        return;
    };
    tool_round_trip(&llama(&url, StructuredOutput::JsonSchema));
}

/// llama-cpp-python knows `json_object` with a `schema` (which it compiles
/// to a grammar), not `json_schema` (it answers that with a validation
/// error): the fallback mode is the one for it.
#[test]
fn llama_cpp_python_json_schema() {
    let Some(url) = loopback("PACKSMITH_TEST_LLAMA_URL") else {
        return;
    };
    schema_answer(&llama(&url, StructuredOutput::JsonObject));
}

/// The whole stack from `--model`, through the replay cache: the second run
/// is served from disk, identical to the byte.
#[test]
fn llama_cpp_python_through_build_model_and_cache() {
    let Some(url) = loopback("PACKSMITH_TEST_LLAMA_URL") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        cache: Some(ReplayCache::new(dir.path(), CacheMode::ReadWrite)),
        ..Config::default()
    };
    let spec: ModelSpec = format!("openai-compat:smollm2@{url}").parse().unwrap();
    let model = build_model(&spec, &config).unwrap();
    let r = small(ChatRequest::new(
        None,
        vec![ChatMessage::user("Say hello.")],
    ));
    let live = model.complete(&r).unwrap();
    assert!(!live.cached && live.latency_ms > 0);
    let again = model.complete(&r).unwrap();
    let third = model.complete(&r).unwrap();
    assert!(again.cached && again.latency_ms == 0 && again.content == live.content);
    assert_eq!(
        serde_json::to_string(&again).unwrap(),
        serde_json::to_string(&third).unwrap()
    );
    assert_eq!(config.budget.spent().calls, 3);
}

#[test]
fn litellm_anthropic_chat() {
    let Some(url) = loopback("PACKSMITH_TEST_LITELLM_URL") else {
        return;
    };
    chat(&litellm(&url));
}

#[test]
fn litellm_anthropic_tool_round_trip() {
    let Some(url) = loopback("PACKSMITH_TEST_LITELLM_URL") else {
        return;
    };
    tool_round_trip(&litellm(&url));
}

#[test]
fn litellm_anthropic_schema_as_forced_tool() {
    let Some(url) = loopback("PACKSMITH_TEST_LITELLM_URL") else {
        return;
    };
    schema_answer(&litellm(&url));
}
