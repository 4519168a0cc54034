//! The HTTP boundary shared by every hosted provider: a small blocking
//! [`HttpTransport`] trait (ureq in production, anything in tests), and the
//! one place where a status code and an error body become an [`LlmError`].

use std::fmt;
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};

use packsmith_exec::CancelToken;
use serde_json::Value;

use crate::secret::{redact, Secret};
use crate::LlmError;

/// A header value; secret ones print as `[redacted]` in any Debug output.
#[derive(Clone, Debug)]
pub enum HeaderValue {
    Plain(String),
    Secret(Secret),
}

impl HeaderValue {
    fn as_str(&self) -> &str {
        match self {
            Self::Plain(v) => v,
            Self::Secret(s) => s.expose(),
        }
    }
}

/// One POST with a JSON body.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, HeaderValue)>,
    pub body: Vec<u8>,
    pub timeout: Duration,
}

/// Any completed exchange, whatever its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The request never produced a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportError {
    /// Connection refused or reset, DNS, timeouts: worth retrying.
    Unreachable(String),
    /// The URL itself is wrong: retrying cannot help.
    InvalidUrl(String),
    /// Ctrl-C or SIGTERM came first; the response, if any, is dropped.
    Cancelled,
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unreachable(m) | Self::InvalidUrl(m) => f.write_str(m),
            Self::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// Sends one request and returns the response, whatever its status.
pub trait HttpTransport: Send + Sync {
    fn post(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError>;
}

/// The production transport.
pub struct UreqTransport {
    agent: ureq::Agent,
}

impl Default for UreqTransport {
    fn default() -> Self {
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(Duration::from_secs(10))
            .user_agent(concat!("packsmith/", env!("CARGO_PKG_VERSION")))
            .build();
        Self { agent }
    }
}

impl HttpTransport for UreqTransport {
    fn post(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        let mut req = self.agent.post(&request.url).timeout(request.timeout);
        for (name, value) in &request.headers {
            req = req.set(name, value.as_str());
        }
        let response = match req.send_bytes(&request.body) {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(ureq::Error::Transport(t)) => {
                // ureq's message may quote the URL; a key in a URL is scrubbed.
                let message = redact(&t.to_string());
                return Err(match t.kind() {
                    ureq::ErrorKind::InvalidUrl | ureq::ErrorKind::UnknownScheme => {
                        TransportError::InvalidUrl(message)
                    }
                    _ => TransportError::Unreachable(message),
                });
            }
        };
        let status = response.status();
        let headers = response
            .headers_names()
            .into_iter()
            .filter_map(|n| {
                let v = response.header(&n)?.to_string();
                Some((n.to_ascii_lowercase(), v))
            })
            .collect();
        let body = response
            .into_string()
            .map_err(|e| TransportError::Unreachable(format!("reading the response: {e}")))?;
        Ok(HttpResponse {
            status,
            headers,
            body,
        })
    }
}

/// A transport that gives up waiting once its token is cancelled: the request runs
/// on a thread of its own, so Ctrl-C need not wait for a slow server's
/// answer (a blocking read cannot be interrupted). The abandoned thread
/// ends with its request; the process is on its way out by then.
pub struct Cancellable {
    inner: Arc<dyn HttpTransport>,
    cancel: CancelToken,
}

impl Cancellable {
    pub fn new(inner: Arc<dyn HttpTransport>, cancel: CancelToken) -> Self {
        Self { inner, cancel }
    }

    /// The production transport, stopped by the binary's Ctrl-C flag.
    pub fn production() -> Self {
        Self::new(Arc::new(UreqTransport::default()), CancelToken::process())
    }
}

impl HttpTransport for Cancellable {
    fn post(&self, request: &HttpRequest) -> Result<HttpResponse, TransportError> {
        if self.cancel.is_cancelled() {
            return Err(TransportError::Cancelled);
        }
        let (tx, rx) = mpsc::channel();
        let inner = self.inner.clone();
        let owned = request.clone();
        std::thread::Builder::new()
            .name("packsmith-http".into())
            .spawn(move || {
                let _ = tx.send(inner.post(&owned));
            })
            .map_err(|e| TransportError::Unreachable(format!("cannot start a thread: {e}")))?;
        loop {
            match rx.recv_timeout(CancelToken::POLL) {
                Ok(result) => return result,
                Err(mpsc::RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => {
                    return Err(TransportError::Cancelled)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(TransportError::Unreachable(
                        "the request's thread stopped without an answer".into(),
                    ))
                }
            }
        }
    }
}

/// POSTs `body` as JSON and returns the parsed 2xx body, or the classified
/// error. `provider` names the provider in messages; `model` names the model
/// in a context-overflow error.
pub(crate) fn post_json(
    transport: &dyn HttpTransport,
    provider: &str,
    model: &str,
    url: String,
    mut headers: Vec<(String, HeaderValue)>,
    body: &Value,
    timeout: Duration,
) -> Result<Value, LlmError> {
    headers.push((
        "content-type".into(),
        HeaderValue::Plain("application/json".into()),
    ));
    let request = HttpRequest {
        url,
        headers,
        body: body.to_string().into_bytes(),
        timeout,
    };
    let response = transport.post(&request).map_err(|e| match e {
        TransportError::Unreachable(m) => LlmError::Unavailable {
            provider: provider.to_string(),
            message: m,
        },
        TransportError::InvalidUrl(m) => {
            LlmError::Config(format!("{provider}: bad URL {}: {m}", redact(&request.url)))
        }
        TransportError::Cancelled => LlmError::Cancelled,
    })?;
    if (200..300).contains(&response.status) {
        let value: Value =
            serde_json::from_str(&response.body).map_err(|e| LlmError::BadResponse {
                provider: provider.to_string(),
                message: format!("not JSON ({e}): {}", excerpt(&response.body)),
            })?;
        return Ok(value);
    }
    Err(classify(provider, model, &response))
}

/// Turns a non-2xx response into an error class.
pub(crate) fn classify(provider: &str, model: &str, response: &HttpResponse) -> LlmError {
    let provider = provider.to_string();
    let message = format!(
        "HTTP {}: {}",
        response.status,
        error_message(&response.body)
    );
    match response.status {
        401 | 403 => LlmError::Auth { provider, message },
        429 => LlmError::RateLimited {
            provider,
            retry_after: response
                .header("retry-after")
                .and_then(|v| parse_retry_after(v, SystemTime::now())),
        },
        408 | 500..=599 => LlmError::Unavailable { provider, message },
        _ => match context_overflow(&response.body) {
            Some((prompt_tokens, context)) => LlmError::ContextOverflow {
                model: model.to_string(),
                prompt_tokens,
                context,
            },
            None => LlmError::BadRequest { provider, message },
        },
    }
}

/// An `f32` setting as the JSON number it was written as (0.2, not the
/// 0.20000000298023224 a plain widening to f64 gives).
pub(crate) fn json_f32(value: f32) -> Value {
    value
        .to_string()
        .parse::<f64>()
        .map_or(Value::Null, Value::from)
}

/// `Retry-After` as delta-seconds or an HTTP date.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The provider's own error message (`{"error": {"message": …}}` for both
/// OpenAI and Anthropic), else the body's start; always redacted.
pub(crate) fn error_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        let e = v.get("error")?;
        e.get("message")
            .and_then(Value::as_str)
            .or_else(|| e.as_str())
            .map(str::to_string)
    });
    redact(&message.unwrap_or_else(|| excerpt(body)))
}

fn excerpt(body: &str) -> String {
    const MAX: usize = 400;
    let body = body.trim();
    match body.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}…", &body[..i]),
        None => body.to_string(),
    }
}

/// Recognises "the prompt is too long" in the error texts of OpenAI,
/// Anthropic, vLLM and llama.cpp servers; returns (prompt tokens, context)
/// where the text names them, zeros where it does not.
pub(crate) fn context_overflow(body: &str) -> Option<(u64, u64)> {
    let lower = body.to_ascii_lowercase();
    let markers = [
        "context_length_exceeded",
        "maximum context length",
        "prompt is too long",
        "exceed context window",
        "exceeds the context",
    ];
    if !markers.iter().any(|m| lower.contains(m)) {
        return None;
    }
    let numbers = numbers_in(&error_message(body));
    // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum";
    // OpenAI/vLLM: "maximum context length is 8192 tokens. However, your
    // messages resulted in 9000 tokens"; llama.cpp: "Requested tokens (9000)
    // exceed context window of 8192".
    let pair = if lower.contains("prompt is too long") || lower.contains("requested tokens") {
        (numbers.first(), numbers.get(1))
    } else {
        (numbers.get(1), numbers.first())
    };
    Some((pair.0.copied().unwrap_or(0), pair.1.copied().unwrap_or(0)))
}

fn numbers_in(text: &str) -> Vec<u64> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers after `delay`, with status 200.
    struct Slow(Duration);

    impl HttpTransport for Slow {
        fn post(&self, _: &HttpRequest) -> Result<HttpResponse, TransportError> {
            std::thread::sleep(self.0);
            Ok(HttpResponse {
                status: 200,
                headers: Vec::new(),
                body: "{}".into(),
            })
        }
    }

    fn request() -> HttpRequest {
        HttpRequest {
            url: "http://127.0.0.1:9/v1/chat/completions".into(),
            headers: Vec::new(),
            body: Vec::new(),
            timeout: Duration::from_secs(600),
        }
    }

    #[test]
    fn a_set_flag_stops_the_wait_for_a_slow_server() {
        let token = CancelToken::new();
        let transport = Cancellable::new(Arc::new(Slow(Duration::from_secs(600))), token.clone());
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            token.cancel();
        });
        assert_eq!(transport.post(&request()), Err(TransportError::Cancelled));
        setter.join().unwrap();
        // Already set: nothing is sent.
        assert_eq!(transport.post(&request()), Err(TransportError::Cancelled));
    }

    #[test]
    fn an_unset_flag_passes_the_answer_through() {
        let transport = Cancellable::new(
            Arc::new(Slow(Duration::from_millis(120))),
            CancelToken::new(),
        );
        assert_eq!(transport.post(&request()).map(|r| r.status), Ok(200));
    }

    #[test]
    fn a_cancelled_request_is_a_cancelled_model_call() {
        let token = CancelToken::new();
        token.cancel();
        let transport = Cancellable::new(Arc::new(Slow(Duration::ZERO)), token);
        let result = post_json(
            &transport,
            "openai-compat",
            "m",
            "http://127.0.0.1:9/v1".into(),
            Vec::new(),
            &serde_json::json!({}),
            Duration::from_secs(1),
        );
        assert!(matches!(result, Err(LlmError::Cancelled)), "{result:?}");
    }

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("0.5", now),
            Some(Duration::from_millis(500))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(parse_retry_after(&date, now), Some(Duration::from_secs(7)));
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn overflow_texts() {
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        assert_eq!(context_overflow(openai), Some((9000, 8192)));
        let anthropic = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208310 tokens > 200000 maximum"}}"#;
        assert_eq!(context_overflow(anthropic), Some((208310, 200000)));
        let llama =
            r#"{"error":{"message":"Requested tokens (3000) exceed context window of 2048"}}"#;
        assert_eq!(context_overflow(llama), Some((3000, 2048)));
        assert_eq!(
            context_overflow(r#"{"error":{"message":"bad tool"}}"#),
            None
        );
    }

    #[test]
    fn status_classes() {
        let r = |status: u16, body: &str, headers: Vec<(String, String)>| HttpResponse {
            status,
            headers,
            body: body.into(),
        };
        let e = classify(
            "openai",
            "m",
            &r(429, "", vec![("retry-after".into(), "2".into())]),
        );
        assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
        assert!(e.is_retryable());
        assert!(matches!(
            classify("openai", "m", &r(401, "{}", vec![])),
            LlmError::Auth { .. }
        ));
        assert!(classify("openai", "m", &r(503, "", vec![])).is_retryable());
        assert!(matches!(
            classify("openai", "m", &r(400, "{}", vec![])),
            LlmError::BadRequest { .. }
        ));
    }
}
