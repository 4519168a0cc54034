//! Any [`ChatModel`] as an OpenAI-compatible server (`packsmith serve`):
//! `POST /v1/chat/completions`, `GET /v1/models`, `GET /health`. Blocking
//! (`tiny_http`), with a pool of worker threads that share one model; a
//! model that can do one call at a time (the embedded llama.cpp one) queues
//! them itself, so a slow completion never stops `/v1/models` answering.
//!
//! Routing and conversion are pure ([`respond`]); the server only moves
//! bytes.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::openai::reverse::{error_body, models_body, parse_request, response_body};
use crate::{ChatModel, LlmError};

/// Largest request body read; a bigger one is refused with 413.
pub const MAX_BODY_BYTES: u64 = 32 * 1024 * 1024;

/// A reply: HTTP status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    fn ok(body: Value) -> Self {
        Self { status: 200, body }
    }

    fn error(status: u16, kind: &str, message: &str) -> Self {
        Self {
            status,
            body: error_body(message, kind, None, None),
        }
    }
}

/// What the server serves.
pub struct Service {
    model: Arc<dyn ChatModel>,
    /// The name `/v1/models` lists (the model's id).
    name: String,
    created: u64,
    counter: AtomicU64,
}

impl Service {
    pub fn new(model: Arc<dyn ChatModel>) -> Self {
        Self {
            name: model.id(),
            model,
            created: now_secs(),
            counter: AtomicU64::new(0),
        }
    }

    pub fn model_name(&self) -> &str {
        &self.name
    }

    /// Answers one request. Pure apart from the model call.
    pub fn respond(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        let path = path.split('?').next().unwrap_or(path).trim_end_matches('/');
        match (method, path) {
            ("POST", "/v1/chat/completions") => self.chat(body),
            ("GET", "/v1/models") => Reply::ok(models_body(&self.name, self.created)),
            ("GET", "/health") => Reply::ok(serde_json::json!({"status": "ok"})),
            (_, "/v1/chat/completions" | "/v1/models" | "/health") => Reply::error(
                405,
                "invalid_request_error",
                &format!("{method} is not allowed on {path}"),
            ),
            _ => Reply::error(
                404,
                "invalid_request_error",
                &format!("no route {method} {path}; packsmith serve has POST /v1/chat/completions and GET /v1/models"),
            ),
        }
    }

    fn chat(&self, body: &[u8]) -> Reply {
        let value: Value = match serde_json::from_slice(body) {
            Ok(v) => v,
            Err(e) => {
                return Reply::error(
                    400,
                    "invalid_request_error",
                    &format!("body is not JSON: {e}"),
                )
            }
        };
        let (asked, request) = match parse_request(&value) {
            Ok(r) => r,
            Err(e) => {
                return Reply {
                    status: 400,
                    body: error_body(&e.message, "invalid_request_error", e.param, None),
                }
            }
        };
        match self.model.complete(&request) {
            Ok(response) => {
                let n = self.counter.fetch_add(1, Ordering::Relaxed);
                let model = if asked.is_empty() { &self.name } else { &asked };
                let id = format!("chatcmpl-packsmith-{}-{n}", self.created);
                Reply::ok(response_body(&response, model, &id, now_secs()))
            }
            Err(e) => error_reply(&e),
        }
    }
}

/// A model error as the HTTP status an OpenAI client classifies the same
/// way (see `crate::http::classify`).
fn error_reply(error: &LlmError) -> Reply {
    let message = crate::redact(&error.to_string());
    match error {
        LlmError::ContextOverflow {
            prompt_tokens,
            context,
            ..
        } => Reply {
            status: 400,
            body: error_body(
                &format!(
                    "This model's maximum context length is {context} tokens. However, your \
                     messages resulted in {prompt_tokens} tokens. ({message})"
                ),
                "invalid_request_error",
                Some("messages"),
                Some("context_length_exceeded"),
            ),
        },
        LlmError::BadRequest { .. } | LlmError::Config(_) => {
            Reply::error(400, "invalid_request_error", &message)
        }
        LlmError::RateLimited { .. } | LlmError::BudgetExhausted(_) => {
            Reply::error(429, "rate_limit_error", &message)
        }
        LlmError::Unavailable { .. } => Reply::error(503, "server_error", &message),
        _ => Reply::error(500, "server_error", &message),
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A bound server. [`Server::run`] blocks until [`Stopper::stop`].
pub struct Server {
    http: Arc<tiny_http::Server>,
    service: Arc<Service>,
    addr: SocketAddr,
    workers: usize,
    stopped: Arc<AtomicBool>,
}

/// Stops a running [`Server`] from another thread.
#[derive(Clone)]
pub struct Stopper {
    http: Arc<tiny_http::Server>,
    workers: usize,
    stopped: Arc<AtomicBool>,
}

impl Stopper {
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        for _ in 0..self.workers {
            self.http.unblock();
        }
    }
}

impl Server {
    /// Binds `addr` (port 0 picks a free one) with `workers` threads.
    pub fn bind(
        addr: SocketAddr,
        model: Arc<dyn ChatModel>,
        workers: usize,
    ) -> Result<Self, LlmError> {
        let http = tiny_http::Server::http(addr)
            .map_err(|e| LlmError::Config(format!("cannot listen on {addr}: {e}")))?;
        let addr = http
            .server_addr()
            .to_ip()
            .ok_or_else(|| LlmError::Config(format!("{addr} is not an IP address")))?;
        Ok(Self {
            http: Arc::new(http),
            service: Arc::new(Service::new(model)),
            addr,
            workers: workers.max(1),
            stopped: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn service(&self) -> &Service {
        &self.service
    }

    pub fn stopper(&self) -> Stopper {
        Stopper {
            http: self.http.clone(),
            workers: self.workers,
            stopped: self.stopped.clone(),
        }
    }

    /// Serves until stopped. `log` gets one line per request.
    pub fn run(&self, log: &(dyn Fn(&str) + Sync)) {
        std::thread::scope(|scope| {
            for _ in 0..self.workers {
                scope.spawn(|| self.work(log));
            }
        });
    }

    fn work(&self, log: &(dyn Fn(&str) + Sync)) {
        while !self.stopped.load(Ordering::SeqCst) {
            let Ok(mut request) = self.http.recv() else {
                continue;
            };
            let method = request.method().as_str().to_string();
            let path = request.url().to_string();
            let start = std::time::Instant::now();
            let reply = match read_body(&mut request) {
                Ok(body) => self.service.respond(&method, &path, &body),
                Err(reply) => reply,
            };
            log(&format!(
                "{method} {path} -> {} ({} ms)",
                reply.status,
                start.elapsed().as_millis()
            ));
            let bytes = reply.body.to_string().into_bytes();
            let header =
                tiny_http::Header::from_bytes(&b"content-type"[..], &b"application/json"[..]);
            let mut response = tiny_http::Response::from_data(bytes).with_status_code(reply.status);
            if let Ok(h) = header {
                response = response.with_header(h);
            }
            // A client that went away is its own problem.
            let _ = request.respond(response);
        }
    }
}

fn read_body(request: &mut tiny_http::Request) -> Result<Vec<u8>, Reply> {
    if request
        .body_length()
        .is_some_and(|n| n as u64 > MAX_BODY_BYTES)
    {
        return Err(Reply::error(
            413,
            "invalid_request_error",
            "request body too large",
        ));
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(MAX_BODY_BYTES + 1)
        .read_to_end(&mut body)
        .map_err(|e| {
            Reply::error(
                400,
                "invalid_request_error",
                &format!("reading the body: {e}"),
            )
        })?;
    if body.len() as u64 > MAX_BODY_BYTES {
        return Err(Reply::error(
            413,
            "invalid_request_error",
            "request body too large",
        ));
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScriptedModel;

    fn service() -> Service {
        Service::new(Arc::new(ScriptedModel::new("scripted:x").text("hello")))
    }

    #[test]
    fn routes() {
        let s = service();
        assert_eq!(
            s.respond("GET", "/v1/models", b"").body["data"][0]["id"],
            "scripted:x"
        );
        assert_eq!(s.respond("GET", "/health", b"").status, 200);
        assert_eq!(s.respond("GET", "/v1/chat/completions", b"").status, 405);
        assert_eq!(s.respond("POST", "/v2/x", b"").status, 404);
        assert_eq!(s.respond("POST", "/v1/chat/completions", b"{").status, 400);
        let ok = s.respond(
            "POST",
            "/v1/chat/completions",
            br#"{"messages":[{"role":"user","content":"hi"}]}"#,
        );
        assert_eq!(ok.status, 200);
        assert_eq!(ok.body["choices"][0]["message"]["content"], "hello");
        assert_eq!(ok.body["model"], "scripted:x");
    }

    #[test]
    fn model_errors_keep_their_class() {
        let overflow = error_reply(&LlmError::ContextOverflow {
            model: "m".into(),
            prompt_tokens: 9000,
            context: 8192,
        });
        let text = overflow.body.to_string();
        assert_eq!(
            crate::http::context_overflow(&text),
            Some((9000, 8192)),
            "{text}"
        );
        assert_eq!(error_reply(&LlmError::Local("x".into())).status, 500);
        assert_eq!(
            error_reply(&LlmError::BudgetExhausted("x".into())).status,
            429
        );
    }
}
