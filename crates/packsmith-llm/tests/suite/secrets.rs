//! Keys never show: not in Debug output, not in error strings, not in
//! anything the server echoes back.

use std::time::Duration;

use packsmith_llm::config::Config;
use packsmith_llm::http::{HeaderValue, HttpRequest};
use packsmith_llm::{build_model, redact, ChatMessage, ChatRequest, LlmError, ModelSpec, Secret};

use super::server::{Reply, ScriptServer};

const KEY: &str = "sk-test-Zq8uTQ3pSECRETvalue";

#[test]
fn config_debug_shows_no_key() {
    let env = |name: &str| match name {
        "OPENAI_API_KEY" => Some(KEY.to_string()),
        "ANTHROPIC_API_KEY" => Some("sk-ant-other-SECRET-42".to_string()),
        _ => None,
    };
    let config = Config::resolve(Default::default(), &env, vec![]).unwrap();
    let shown = format!("{config:?} {config:#?}");
    assert!(
        !shown.contains(KEY) && !shown.contains("sk-ant-other"),
        "{shown}"
    );
    assert!(shown.contains("[redacted]"));
}

#[test]
fn request_debug_shows_no_auth_header() {
    let r = HttpRequest {
        url: "http://127.0.0.1:1/v1".into(),
        headers: vec![(
            "authorization".into(),
            HeaderValue::Secret(Secret::new(format!("Bearer {KEY}"))),
        )],
        body: vec![],
        timeout: Duration::from_secs(1),
    };
    assert!(!format!("{r:?}").contains(KEY));
}

#[test]
fn echoed_keys_are_redacted_from_errors() {
    let echo = format!(
        r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. You can find your API key at https://example.invalid.","type":"invalid_request_error","code":"invalid_api_key"}}}}"#
    );
    let server = ScriptServer::start(vec![Reply::Answer(401, vec![], echo)]);
    let base = server.base_url.clone();
    let env = move |name: &str| match name {
        "OPENAI_API_KEY" => Some(KEY.to_string()),
        "OPENAI_BASE_URL" => Some(base.clone()),
        _ => None,
    };
    let config = Config::resolve(Default::default(), &env, vec![]).unwrap();
    let model = build_model(&"openai:gpt-5".parse::<ModelSpec>().unwrap(), &config).unwrap();
    let err = model
        .complete(&ChatRequest::new(None, vec![ChatMessage::user("hi")]))
        .unwrap_err();
    assert!(matches!(err, LlmError::Auth { .. }), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(shown.contains("[redacted]"), "{shown}");
    // The key did go out, once, in the header.
    let got = server.received();
    assert_eq!(got.len(), 1);
    let auth = got[0]
        .headers
        .iter()
        .find(|(k, _)| k == "authorization")
        .unwrap();
    assert_eq!(auth.1, format!("Bearer {KEY}"));
    assert!(!redact(&auth.1).contains(KEY));
}

#[test]
fn missing_key_says_which_variable() {
    let config = Config::resolve(Default::default(), &|_| None, vec![]).unwrap();
    let spec: ModelSpec = "anthropic:claude-haiku-4-5".parse().unwrap();
    let err = build_model(&spec, &config).err().unwrap().to_string();
    assert!(err.contains("ANTHROPIC_API_KEY"), "{err}");
    let err = build_model(&"local:qwen".parse().unwrap(), &config)
        .err()
        .unwrap()
        .to_string();
    // With the embedded provider built in, the name itself is checked.
    let expected = if cfg!(feature = "local") {
        "unknown local model `qwen`"
    } else {
        "built without the `local` feature"
    };
    assert!(err.contains(expected) && err.contains("hint:"), "{err}");
}
