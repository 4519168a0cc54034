//! Wire JSON of each provider, as snapshots: what we send and what we read.

use std::time::Duration;

use packsmith_llm::anthropic::{self, AnthropicOptions};
use packsmith_llm::openai::{self, OpenAiOptions, StructuredOutput};
use packsmith_llm::{ChatMessage, ChatRequest, OutputSchema, Role, ToolCall, ToolSpec};
use serde_json::json;

fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec {
        name: "read_file".into(),
        description: "Read a file of the repository".into(),
        parameters: json!({
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
            "additionalProperties": false
        }),
    }]
}

/// A conversation with every kind of turn: user, an assistant turn that
/// calls two tools, both results, and a follow-up.
fn conversation() -> ChatRequest {
    let mut req = ChatRequest::new(
        Some("You write Spack recipes.".into()),
        vec![
            ChatMessage::user("Package zlib."),
            ChatMessage {
                role: Role::Assistant,
                content: "Let me look.".into(),
                tool_calls: vec![
                    ToolCall {
                        id: "call_1".into(),
                        name: "read_file".into(),
                        arguments: r#"{"path":"CMakeLists.txt"}"#.into(),
                    },
                    ToolCall {
                        id: "call_2".into(),
                        name: "read_file".into(),
                        arguments: r#"{"path":"README"}"#.into(),
                    },
                ],
                tool_call_id: None,
            },
            ChatMessage::tool_result("call_1", "cmake_minimum_required(VERSION 3.5)"),
            ChatMessage::tool_result("call_2", "zlib 1.3"),
            ChatMessage::user("Now write it."),
        ],
    );
    req.tools = tools();
    req.temperature = Some(0.2);
    req.seed = Some(7);
    req.max_tokens = Some(512);
    req
}

fn schema_request() -> ChatRequest {
    let mut req = ChatRequest::new(
        Some("Classify the failure.".into()),
        vec![ChatMessage::user(
            "error: zlib.h: No such file or directory",
        )],
    );
    req.output_schema = Some(OutputSchema {
        name: "diagnosis".into(),
        schema: json!({
            "type": "object",
            "properties": {"category": {"type": "string", "enum": ["missing_header", "other"]}},
            "required": ["category"],
            "additionalProperties": false
        }),
    });
    req
}

fn openai_opts(proper: bool, structured_output: StructuredOutput) -> OpenAiOptions {
    OpenAiOptions {
        provider: if proper { "openai" } else { "openai-compat" }.into(),
        id: "openai:gpt-5".into(),
        model: "gpt-5".into(),
        base_url: "https://api.openai.com/v1".into(),
        api_key: None,
        structured_output,
        max_completion_tokens_field: proper,
        request_timeout: Duration::from_secs(60),
    }
}

fn anthropic_opts() -> AnthropicOptions {
    AnthropicOptions {
        id: "anthropic:claude-haiku-4-5".into(),
        model: "claude-haiku-4-5".into(),
        base_url: "https://api.anthropic.com/v1".into(),
        api_key: None,
        version: anthropic::DEFAULT_VERSION.into(),
        default_max_tokens: 4096,
        request_timeout: Duration::from_secs(60),
    }
}

#[test]
fn openai_request_with_tools_and_results() {
    let body = openai::request_body(
        &openai_opts(true, StructuredOutput::JsonSchema),
        &conversation(),
    );
    insta::assert_json_snapshot!(body);
}

#[test]
fn openai_request_with_json_schema() {
    let body = openai::request_body(
        &openai_opts(true, StructuredOutput::JsonSchema),
        &schema_request(),
    );
    insta::assert_json_snapshot!(body);
}

#[test]
fn openai_compat_request_with_json_object_fallback() {
    let mut req = schema_request();
    req.max_tokens = Some(64);
    let body = openai::request_body(&openai_opts(false, StructuredOutput::JsonObject), &req);
    insta::assert_json_snapshot!(body);
}

#[test]
fn openai_response_with_tool_calls_and_cached_usage() {
    let wire = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-5-2025-08-07",
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant", "content": null,
                "tool_calls": [
                    {"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"setup.py\"}"}},
                    {"id": "call_b", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": "}}
                ]
            },
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240,
                  "prompt_tokens_details": {"cached_tokens": 1024}, "completion_tokens_details": {"reasoning_tokens": 0}}
    });
    insta::assert_json_snapshot!(openai::parse_response("openai", &wire).unwrap());
}

#[test]
fn openai_response_text_from_a_lenient_server() {
    // Object arguments, no call id, "stop" despite a call, no usage.
    let wire = json!({
        "model": "qwen",
        "choices": [{"message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "read_file", "arguments": {"path": "x"}}}]},
            "finish_reason": "stop"}]
    });
    insta::assert_json_snapshot!(openai::parse_response("openai-compat", &wire).unwrap());
}

#[test]
fn openai_embeddings_in_input_order() {
    let wire = json!({"data": [
        {"object": "embedding", "index": 1, "embedding": [0.5, 0.25]},
        {"object": "embedding", "index": 0, "embedding": [1.0, 0.0]}
    ], "model": "e"});
    let v = openai::parse_embeddings("openai", &wire, 2).unwrap();
    assert_eq!(v, vec![vec![1.0, 0.0], vec![0.5, 0.25]]);
    assert!(openai::parse_embeddings("openai", &wire, 3).is_err());
}

#[test]
fn anthropic_request_with_tools_and_results() {
    let body = anthropic::request_body(&anthropic_opts(), &conversation());
    insta::assert_json_snapshot!(body);
}

#[test]
fn anthropic_request_with_schema_as_forced_tool() {
    let body = anthropic::request_body(&anthropic_opts(), &schema_request());
    insta::assert_json_snapshot!(body);
}

#[test]
fn anthropic_response_with_tool_use_and_cache_usage() {
    let wire = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "I will read it."},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "meson.build"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 50, "output_tokens": 30, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 0}
    });
    insta::assert_json_snapshot!(anthropic::parse_response(&wire, None).unwrap());
}

#[test]
fn anthropic_response_to_a_schema_request() {
    let wire = json!({
        "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{"type": "tool_use", "id": "toolu_2", "name": "diagnosis", "input": {"category": "missing_header"}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 80, "output_tokens": 12}
    });
    insta::assert_json_snapshot!(anthropic::parse_response(&wire, Some("diagnosis")).unwrap());
}

#[test]
fn tool_choice_in_each_wire_format() {
    use packsmith_llm::ToolChoice;
    let cases = [
        (ToolChoice::Auto, json!("auto"), json!({"type": "auto"})),
        (
            ToolChoice::Required,
            json!("required"),
            json!({"type": "any"}),
        ),
        (
            ToolChoice::Tool {
                name: "read_file".into(),
            },
            json!({"type": "function", "function": {"name": "read_file"}}),
            json!({"type": "tool", "name": "read_file"}),
        ),
    ];
    for (choice, openai_wire, anthropic_wire) in cases {
        let mut req = conversation();
        req.tool_choice = Some(choice);
        let o = openai::request_body(&openai_opts(true, StructuredOutput::JsonSchema), &req);
        assert_eq!(o["tool_choice"], openai_wire);
        let a = anthropic::request_body(&anthropic_opts(), &req);
        assert_eq!(a["tool_choice"], anthropic_wire);
    }
    // A schema answer forces its own tool on Anthropic, whatever was asked.
    let mut req = schema_request();
    req.tool_choice = Some(ToolChoice::Auto);
    let a = anthropic::request_body(&anthropic_opts(), &req);
    assert_eq!(
        a["tool_choice"],
        json!({"type": "tool", "name": "diagnosis"})
    );
}
