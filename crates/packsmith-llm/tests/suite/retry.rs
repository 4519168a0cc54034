//! Retries, timeouts and error classes against a loopback server.

use std::time::{Duration, Instant};

use packsmith_llm::openai::{OpenAiChat, OpenAiOptions, StructuredOutput};
use packsmith_llm::{ChatMessage, ChatModel, ChatRequest, LlmError, Reliable, RetryPolicy};

use super::server::{chat_body, ok, Reply, ScriptServer};

pub fn options(base_url: &str, timeout: Duration) -> OpenAiOptions {
    OpenAiOptions {
        provider: "openai-compat".into(),
        id: format!("openai-compat:m@{base_url}"),
        model: "m".into(),
        base_url: base_url.into(),
        api_key: None,
        structured_output: StructuredOutput::JsonSchema,
        max_completion_tokens_field: false,
        request_timeout: timeout,
    }
}

fn policy() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 5,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(100),
        max_retry_after: Duration::from_secs(5),
        deadline: Some(Duration::from_secs(20)),
    }
}

fn hello() -> ChatRequest {
    ChatRequest::new(None, vec![ChatMessage::user("hello")])
}

#[test]
fn rate_limit_server_error_and_hang_then_success() {
    let server = ScriptServer::start(vec![
        Reply::Answer(
            429,
            vec![("retry-after", "1".into())],
            r#"{"error":{"message":"slow down"}}"#.into(),
        ),
        Reply::Answer(500, vec![], "oops".into()),
        Reply::Hang(Duration::from_secs(3)),
        ok(&chat_body("finally")),
    ]);
    let model = Reliable::new(
        OpenAiChat::new(options(&server.base_url, Duration::from_millis(700))),
        policy(),
    );
    let start = Instant::now();
    let response = model.complete(&hello()).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(response.content, "finally");
    assert_eq!(response.usage.prompt_tokens, 12);
    let got = server.received();
    assert_eq!(got.len(), 4);
    assert!(got
        .iter()
        .all(|r| r.path == "/v1/chat/completions" && r.body.contains("hello")));
    // Retry-After: 1 was honoured, the hang was cut at the 0.7 s timeout.
    assert!(elapsed >= Duration::from_millis(1700), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
}

#[test]
fn retry_after_as_http_date() {
    let at = std::time::SystemTime::now() + Duration::from_secs(2);
    let server = ScriptServer::start(vec![
        Reply::Answer(
            429,
            vec![("retry-after", httpdate::fmt_http_date(at))],
            String::new(),
        ),
        ok(&chat_body("ok")),
    ]);
    let model = Reliable::new(
        OpenAiChat::new(options(&server.base_url, Duration::from_secs(5))),
        policy(),
    );
    let start = Instant::now();
    assert_eq!(model.complete(&hello()).unwrap().content, "ok");
    // An HTTP date has one-second resolution.
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(server.received().len(), 2);
}

#[test]
fn auth_errors_are_not_retried() {
    let server = ScriptServer::start(vec![
        Reply::Answer(401, vec![], r#"{"error":{"message":"bad key"}}"#.into()),
        ok(&chat_body("never")),
    ]);
    let model = Reliable::new(
        OpenAiChat::new(options(&server.base_url, Duration::from_secs(5))),
        policy(),
    );
    let err = model.complete(&hello()).unwrap_err();
    assert!(matches!(err, LlmError::Auth { .. }), "{err:?}");
    assert_eq!(server.received().len(), 1);
}

#[test]
fn context_overflow_is_reported_as_such() {
    let body = r#"{"error":{"message":"This model's maximum context length is 2048 tokens. However, your messages resulted in 5000 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
    let server = ScriptServer::start(vec![Reply::Answer(400, vec![], body.into())]);
    let model = Reliable::new(
        OpenAiChat::new(options(&server.base_url, Duration::from_secs(5))),
        policy(),
    );
    let err = model.complete(&hello()).unwrap_err();
    match err {
        LlmError::ContextOverflow {
            prompt_tokens,
            context,
            ..
        } => {
            assert_eq!((prompt_tokens, context), (5000, 2048));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(server.received().len(), 1);
}

#[test]
fn deadline_stops_waiting() {
    let server = ScriptServer::start(vec![
        Reply::Answer(503, vec![], String::new()),
        Reply::Answer(429, vec![("retry-after", "4".into())], String::new()),
    ]);
    let policy = RetryPolicy {
        deadline: Some(Duration::from_secs(1)),
        ..policy()
    };
    let model = Reliable::new(
        OpenAiChat::new(options(&server.base_url, Duration::from_secs(5))),
        policy,
    );
    let start = Instant::now();
    let err = model.complete(&hello()).unwrap_err();
    assert!(matches!(err, LlmError::RateLimited { .. }), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(server.received().len(), 2);
}

#[test]
fn connection_refused_is_retried_then_reported() {
    // Bind and drop to get a port that nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let policy = RetryPolicy {
        max_attempts: 3,
        ..policy()
    };
    let model = Reliable::new(
        OpenAiChat::new(options(
            &format!("http://127.0.0.1:{port}/v1"),
            Duration::from_secs(2),
        )),
        policy,
    );
    let err = model.complete(&hello()).unwrap_err();
    assert!(matches!(err, LlmError::Unavailable { .. }), "{err:?}");
}
