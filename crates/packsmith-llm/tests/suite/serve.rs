//! `packsmith serve`'s server, in process on loopback, called through
//! packsmith's own OpenAI-compatible provider: what a benchmark worker does.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use packsmith_llm::openai::{OpenAiChat, OpenAiOptions, StructuredOutput};
use packsmith_llm::serve::{Server, Stopper};
use packsmith_llm::{
    ChatMessage, ChatModel, ChatRequest, FinishReason, OutputSchema, Role, ScriptedModel,
    ToolChoice, ToolSpec,
};
use serde_json::json;

/// Serves `model` on 127.0.0.1:0 with two workers; returns its base URL.
fn serve(model: Arc<dyn ChatModel>) -> (String, Stopper) {
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let server = Server::bind(addr, model, 2).unwrap();
    let url = format!("http://{}/v1", server.local_addr());
    let stopper = server.stopper();
    std::thread::spawn(move || server.run(&|_| {}));
    (url, stopper)
}

fn client(url: &str, structured_output: StructuredOutput) -> OpenAiChat {
    OpenAiChat::new(OpenAiOptions {
        provider: "openai-compat".into(),
        id: format!("openai-compat:served@{url}"),
        model: "served".into(),
        base_url: url.to_string(),
        api_key: None,
        structured_output,
        max_completion_tokens_field: false,
        request_timeout: Duration::from_secs(600),
    })
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "weather".into(),
        description: "Current weather in a city".into(),
        parameters: json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        }),
    }
}

#[test]
fn chat_through_the_openai_provider() {
    let scripted = Arc::new(ScriptedModel::new("scripted:m").text("Paris"));
    let (url, stop) = serve(scripted.clone());
    let mut request = ChatRequest::new(
        Some("Answer in one word.".into()),
        vec![ChatMessage::user("Capital of France?")],
    );
    request.temperature = Some(0.0);
    request.seed = Some(3);
    request.max_tokens = Some(8);
    let response = client(&url, StructuredOutput::JsonSchema)
        .complete(&request)
        .unwrap();
    assert_eq!(response.content, "Paris");
    assert_eq!(response.finish_reason, FinishReason::Stop);
    assert_eq!(response.model, "served");
    assert!(response.usage.prompt_tokens > 0);
    // The model saw exactly what the client sent.
    assert_eq!(scripted.requests(), vec![request]);
    stop.stop();
}

#[test]
fn tool_call_round_trip() {
    let scripted = Arc::new(
        ScriptedModel::new("scripted:m")
            .tool_call("weather", r#"{"city":"Paris"}"#)
            .text("It is sunny in Paris."),
    );
    let (url, stop) = serve(scripted.clone());
    let chat = client(&url, StructuredOutput::JsonSchema);
    let mut request = ChatRequest::new(None, vec![ChatMessage::user("Weather in Paris?")]);
    request.tools = vec![weather_tool()];
    request.tool_choice = Some(ToolChoice::Auto);

    let first = chat.complete(&request).unwrap();
    assert_eq!(first.finish_reason, FinishReason::ToolCalls);
    assert_eq!(first.tool_calls.len(), 1);
    let call = first.tool_calls[0].clone();
    assert_eq!(call.name, "weather");
    assert_eq!(call.arguments, r#"{"city":"Paris"}"#);

    request.messages.push(ChatMessage {
        role: Role::Assistant,
        content: String::new(),
        tool_calls: vec![call.clone()],
        tool_call_id: None,
    });
    request
        .messages
        .push(ChatMessage::tool_result(&call.id, "sunny, 21 C"));
    let second = chat.complete(&request).unwrap();
    assert_eq!(second.content, "It is sunny in Paris.");

    let seen = scripted.requests();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].tools, vec![weather_tool()]);
    assert_eq!(seen[1], request);
    stop.stop();
}

#[test]
fn schema_requests_reach_the_model() {
    let schema = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    });
    for mode in [StructuredOutput::JsonSchema, StructuredOutput::JsonObject] {
        let scripted = Arc::new(ScriptedModel::new("scripted:m").text(r#"{"name":"zlib"}"#));
        let (url, stop) = serve(scripted.clone());
        let mut request = ChatRequest::new(None, vec![ChatMessage::user("Name a library.")]);
        request.output_schema = Some(OutputSchema {
            name: "library".into(),
            schema: schema.clone(),
        });
        let response = client(&url, mode).complete(&request).unwrap();
        let value: serde_json::Value = serde_json::from_str(&response.content).unwrap();
        assert_eq!(value["name"], "zlib");
        let seen = scripted.requests();
        assert_eq!(
            seen[0].output_schema.as_ref().map(|s| &s.schema),
            Some(&schema),
            "{mode:?}"
        );
        stop.stop();
    }
}

#[test]
fn model_errors_reach_the_client_classified() {
    let scripted = Arc::new(ScriptedModel::new("scripted:m").error(
        packsmith_llm::LlmError::ContextOverflow {
            model: "scripted:m".into(),
            prompt_tokens: 9000,
            context: 4096,
        },
    ));
    let (url, stop) = serve(scripted);
    let err = client(&url, StructuredOutput::JsonSchema)
        .complete(&ChatRequest::new(None, vec![ChatMessage::user("x")]))
        .err()
        .unwrap();
    match err {
        packsmith_llm::LlmError::ContextOverflow {
            prompt_tokens,
            context,
            ..
        } => assert_eq!((prompt_tokens, context), (9000, 4096)),
        other => panic!("{other}"),
    }
    stop.stop();
}

/// The point of `serve`: the embedded model behind the endpoint.
#[cfg(feature = "local")]
#[test]
fn serves_smollm2_through_the_openai_provider() {
    use packsmith_llm::config::Config;
    use packsmith_llm::LocalSpec;

    let mut config = Config::default();
    if let Some(dir) = std::env::var_os("PACKSMITH_CACHE_DIR") {
        config.local.cache_dir = dir.into();
    }
    config.local.context_size = Some(2048);
    let spec = LocalSpec::Named("smollm2-135m".into());
    let path = packsmith_llm::local_glue::model_path(&spec, &config.local).unwrap();
    if !path.exists() {
        eprintln!(
            "SKIPPED: serves_smollm2_through_the_openai_provider: {} is absent \
             (scripts/fetch-models.sh smollm2)",
            path.display()
        );
        return;
    }
    let model = packsmith_llm::local_glue::load(&spec, &config).unwrap();
    let (url, stop) = serve(Arc::new(model));
    let mut request = ChatRequest::new(
        Some("You are a helpful assistant.".into()),
        vec![ChatMessage::user("What is the capital of France?")],
    );
    request.temperature = Some(0.0);
    request.max_tokens = Some(24);
    let response = client(&url, StructuredOutput::JsonObject)
        .complete(&request)
        .unwrap();
    eprintln!("smollm2 via serve: {:?}", response.content);
    assert!(!response.content.trim().is_empty());
    assert!(response.usage.completion_tokens > 0);
    stop.stop();
}
