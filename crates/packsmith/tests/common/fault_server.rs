//! A loopback OpenAI-compatible chat server that answers by script, each
//! step either a normal answer or one of the ways a model server fails
//! (issue 16 item 2). It counts the tokens of the answers it served whole,
//! so that a test can compare them with the run's report.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// Tokens each whole answer reports in its `usage`.
pub const PROMPT_TOKENS: u64 = 100;
pub const COMPLETION_TOKENS: u64 = 20;

/// One scripted reply.
#[derive(Clone, Debug)]
pub enum Step {
    /// A normal answer with this text.
    Answer(String),
    /// 429 with `Retry-After: <secs>`.
    RateLimited(u32),
    /// This 5xx status with an error body.
    Status(u16),
    /// Headers of a 200, then nothing until the client gives up.
    Stall,
    /// The request's headers are read, then the socket is closed with the
    /// body unread (the kernel answers with a reset).
    Reset,
    /// A 200 whose body stops half way (the connection closes early).
    TruncatedJson,
    /// A whole 200 whose body is not JSON.
    NotJson,
    /// A tool call whose arguments are not JSON.
    MalformedToolCall,
    /// A call of a tool that does not exist.
    UnknownToolCall,
    /// `read_file` with a number where a string is due.
    WrongArgTypes,
    /// The 400 OpenAI gives for a prompt longer than the context.
    ContextOverflow,
    /// A 200 with empty content.
    Empty,
    /// Chinese prose with no recipe in it.
    WrongLanguage,
    /// A 200 whose body never ends: tokens trickle until the client hangs up.
    NeverStops,
}

impl Step {
    /// The short name the matrix in BENCHMARKS.md uses.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Answer(_) => "answer",
            Self::RateLimited(_) => "429 + Retry-After",
            Self::Status(500) => "500",
            Self::Status(_) => "503",
            Self::Stall => "stalled stream",
            Self::Reset => "connection reset",
            Self::TruncatedJson => "truncated JSON",
            Self::NotJson => "body not JSON",
            Self::MalformedToolCall => "malformed tool call",
            Self::UnknownToolCall => "unknown tool call",
            Self::WrongArgTypes => "tool call, wrong argument types",
            Self::ContextOverflow => "context overflow (400)",
            Self::Empty => "empty answer",
            Self::WrongLanguage => "wrong language",
            Self::NeverStops => "answer that never stops",
        }
    }
}

/// What the server saw and served.
#[derive(Default, Debug, Clone)]
pub struct Served {
    /// Request bodies, in order of arrival.
    pub requests: Vec<String>,
    /// Responses sent whole with a `usage` (every 200 that parses).
    pub whole_answers: u64,
}

impl Served {
    pub fn prompt_tokens(&self) -> u64 {
        self.whole_answers * PROMPT_TOKENS
    }
    pub fn completion_tokens(&self) -> u64 {
        self.whole_answers * COMPLETION_TOKENS
    }
}

/// Starts the server; returns its `/v1` URL and the shared record. Steps
/// are used in order of the requests' arrival; past the end, `fallback`.
pub fn start(steps: Vec<Step>, fallback: String) -> (String, Arc<Mutex<Served>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let served = Arc::new(Mutex::new(Served::default()));
    let record = served.clone();
    let steps = Arc::new(Mutex::new(steps.into_iter()));
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let (record, steps, fallback) = (record.clone(), steps.clone(), fallback.clone());
            // One thread per connection: a stalled answer must not hold up
            // the client's retry.
            thread::spawn(move || serve_one(stream, &record, &steps, &fallback));
        }
    });
    (url, served)
}

type Steps = Mutex<std::vec::IntoIter<Step>>;

fn serve_one(mut stream: TcpStream, record: &Mutex<Served>, steps: &Steps, fallback: &str) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let step = steps
        .lock()
        .unwrap()
        .next()
        .unwrap_or_else(|| Step::Answer(fallback.to_string()));
    if matches!(step, Step::Reset) {
        // Unread bytes in the receive buffer make close() send a RST.
        record.lock().unwrap().requests.push(String::new());
        return;
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    record
        .lock()
        .unwrap()
        .requests
        .push(String::from_utf8_lossy(&body).into_owned());
    let whole = |record: &Mutex<Served>, stream: &mut TcpStream, json: serde_json::Value| {
        if send(stream, 200, &[], &json.to_string()) {
            record.lock().unwrap().whole_answers += 1;
        }
    };
    match step {
        // Answered above, before the body was read.
        Step::Reset => {}
        Step::Answer(text) => whole(record, &mut stream, completion(&text, None)),
        Step::Empty => whole(record, &mut stream, completion("", None)),
        Step::WrongLanguage => whole(
            record,
            &mut stream,
            completion(
                "这个项目是一个用C语言编写的小程序。它使用Makefile构建，并安装到前缀目录中。\
                 我认为构建失败是因为缺少编译器设置。请检查环境变量。",
                None,
            ),
        ),
        Step::MalformedToolCall => whole(
            record,
            &mut stream,
            completion("", Some(("read_file", "{\"path\": \"Makefile".to_string()))),
        ),
        Step::UnknownToolCall => whole(
            record,
            &mut stream,
            completion("", Some(("rm_rf", "{\"path\": \"/\"}".to_string()))),
        ),
        Step::WrongArgTypes => whole(
            record,
            &mut stream,
            completion(
                "",
                Some((
                    "read_file",
                    "{\"path\": 42, \"start_line\": \"one\"}".to_string(),
                )),
            ),
        ),
        Step::RateLimited(secs) => {
            send(
                &mut stream,
                429,
                &[("Retry-After", secs.to_string())],
                r#"{"error":{"message":"Rate limit reached","type":"requests"}}"#,
            );
        }
        Step::Status(code) => {
            send(
                &mut stream,
                code,
                &[],
                r#"{"error":{"message":"The server had an error while processing your request"}}"#,
            );
        }
        Step::ContextOverflow => {
            send(
                &mut stream,
                400,
                &[],
                r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
            );
        }
        Step::NotJson => {
            send(
                &mut stream,
                200,
                &[],
                "<html><body>502 Bad Gateway</body></html>",
            );
        }
        Step::TruncatedJson => {
            let json = completion("half an answer", None).to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                json.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&json.as_bytes()[..json.len() / 2]);
        }
        Step::Stall => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n",
            );
            hold_until_closed(&mut stream, |_| Ok(()));
        }
        Step::NeverStops => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{\"choices\":[{\"message\":{\"content\":\"",
            );
            hold_until_closed(&mut stream, |s| {
                s.write_all(b"token token token ").map(|_| ())
            });
        }
    }
}

/// Keeps the connection open (calling `tick` every 20 ms) until the
/// client closes it, or 60 s at most so a broken client cannot keep the
/// test alive.
fn hold_until_closed(
    stream: &mut TcpStream,
    mut tick: impl FnMut(&mut TcpStream) -> std::io::Result<()>,
) {
    let start = Instant::now();
    stream
        .set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let mut buf = [0u8; 64];
    while start.elapsed() < Duration::from_secs(60) {
        match stream.read(&mut buf) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(_) => return,
        }
        if tick(stream).is_err() {
            return;
        }
    }
}

/// Writes one whole response; true when every byte went out.
fn send(stream: &mut TcpStream, status: u16, headers: &[(&str, String)], body: &str) -> bool {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Service Unavailable",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).is_ok() && stream.write_all(body.as_bytes()).is_ok()
}

/// A chat completion with `content` and, when given, one tool call.
fn completion(content: &str, tool_call: Option<(&str, String)>) -> serde_json::Value {
    let mut message = serde_json::json!({"role": "assistant", "content": content});
    let mut finish = "stop";
    if let Some((name, arguments)) = tool_call {
        message["tool_calls"] = serde_json::json!([{
            "id": "call_1", "type": "function",
            "function": {"name": name, "arguments": arguments}
        }]);
        finish = "tool_calls";
    }
    serde_json::json!({
        "id": "x", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "finish_reason": finish, "message": message}],
        "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                  "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}
    })
}
