#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `packsmith model pull|list` and `packsmith serve` as a user runs them,
//! against HTTP servers started here on 127.0.0.1 (never anything else).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;

use sha2::{Digest, Sha256};

fn packsmith(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(args)
        .env("PACKSMITH_CACHE_DIR", cache)
        .env("PACKSMITH_CONFIG", cache.join("no-user-config.toml"))
        .env_remove("PACKSMITH_MODEL")
        .output()
        .expect("run packsmith")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A GGUF-looking body of `n` bytes.
fn body(n: usize) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend((0..n - 4).map(|i| (i * 31 % 251) as u8));
    b
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Answers every GET with `body`, claiming `length` bytes (more than it
/// sends for a truncated transfer). Counts the connections.
struct FileServer {
    url: String,
    hits: Arc<AtomicUsize>,
}

fn file_server(body: Vec<u8>, length: usize) -> FileServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/model.gguf", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            counter.fetch_add(1, Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: {length}\r\nconnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
            let _ = stream.flush();
        }
    });
    FileServer { url, hits }
}

fn models_dir_entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache.join("models"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn pull_downloads_and_verifies() {
    let cache = tempfile::tempdir().unwrap();
    let data = body(300_000);
    let server = file_server(data.clone(), data.len());
    let out = packsmith(
        &[
            "model",
            "pull",
            "tiny",
            "--url",
            &server.url,
            "--sha256",
            &sha256(&data),
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(models_dir_entries(cache.path()), vec!["tiny.gguf"]);
    assert_eq!(
        std::fs::read(cache.path().join("models/tiny.gguf")).unwrap(),
        data
    );
    assert!(
        text(&out.stdout).contains("sha256 verified"),
        "{}",
        text(&out.stdout)
    );
    // Not a terminal: no progress bar on stderr.
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
}

#[test]
fn pull_with_a_wrong_checksum_keeps_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let data = body(50_000);
    let server = file_server(data, 50_000);
    let wrong = sha256(b"something else");
    let out = packsmith(
        &[
            "model",
            "pull",
            "tiny",
            "--url",
            &server.url,
            "--sha256",
            &wrong,
        ],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("sha256 mismatch") && err.contains("removed"),
        "{err}"
    );
    assert!(models_dir_entries(cache.path()).is_empty());
}

#[test]
fn pull_of_a_truncated_transfer_keeps_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let data = body(100_000);
    let sum = sha256(&data);
    // Claims the whole file, sends half, closes.
    let server = file_server(data[..50_000].to_vec(), data.len());
    let out = packsmith(
        &[
            "model",
            "pull",
            "tiny",
            "--url",
            &server.url,
            "--sha256",
            &sum,
        ],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(models_dir_entries(cache.path()).is_empty());
}

#[test]
fn pull_skips_a_verified_file() {
    let cache = tempfile::tempdir().unwrap();
    let data = body(10_000);
    std::fs::create_dir_all(cache.path().join("models")).unwrap();
    std::fs::write(cache.path().join("models/tiny.gguf"), &data).unwrap();
    let server = file_server(Vec::new(), 0);
    let out = packsmith(
        &[
            "model",
            "pull",
            "tiny",
            "--url",
            &server.url,
            "--sha256",
            &sha256(&data),
        ],
        cache.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("already present and verified"));
    assert_eq!(server.hits.load(Ordering::SeqCst), 0);

    // --force downloads again (and this server's empty answer fails).
    let out = packsmith(
        &[
            "model",
            "pull",
            "tiny",
            "--url",
            &server.url,
            "--sha256",
            &sha256(&data),
            "--force",
        ],
        cache.path(),
    );
    assert!(!out.status.success());
    assert_eq!(server.hits.load(Ordering::SeqCst), 1);
    // The verified file is still there: a failed download never replaces it.
    assert_eq!(
        std::fs::read(cache.path().join("models/tiny.gguf")).unwrap(),
        data
    );
}

#[test]
fn pull_errors_say_what_to_do() {
    let cache = tempfile::tempdir().unwrap();
    let out = packsmith(&["model", "pull", "gpt-7"], cache.path());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("qwen2.5-coder-1.5b") && err.contains("--url"),
        "{err}"
    );
    // Known by name, but only the PyPI script can assemble it.
    let out = packsmith(&["model", "pull", "smollm2-135m"], cache.path());
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("smollm2-135m has no download")
            && err.contains("scripts/fetch-models.sh smollm2"),
        "{err}"
    );

    // Nothing listens on a port just freed.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/q.gguf");
    let out = packsmith(
        &["model", "pull", "qwen2.5-coder-1.5b", "--url", &url],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("scripts/fetch-models.sh") && err.contains("--url"),
        "{err}"
    );
    assert!(models_dir_entries(cache.path()).is_empty());

    let out = packsmith(
        &["model", "pull", "tiny", "--url", &url, "--sha256", "xyz"],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn list_shows_known_models_and_other_files() {
    let cache = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cache.path().join("models")).unwrap();
    std::fs::write(cache.path().join("models/mine.gguf"), b"GGUF").unwrap();
    let out = packsmith(&["model", "list"], cache.path());
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(
        s.contains("qwen2.5-coder-1.5b") && s.contains("absent"),
        "{s}"
    );
    // Every model `local:NAME` knows, each with how to get it.
    let smollm = s.lines().find(|l| l.starts_with("smollm2-135m")).unwrap();
    assert!(
        smollm.contains("absent") && smollm.ends_with("scripts/fetch-models.sh smollm2"),
        "{s}"
    );
    assert!(s.contains("packsmith model pull qwen2.5-coder-1.5b"), "{s}");
    assert!(s.contains("mine.gguf"), "{s}");
}

/// `serve` end to end without the embedded model: any provider can be
/// served; here one that is never called.
#[test]
fn serve_listens_on_loopback_and_lists_the_model() {
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args([
            "serve",
            "--model",
            "openai-compat:m@http://127.0.0.1:9/v1",
            "--port",
            "0",
        ])
        .env("PACKSMITH_CACHE_DIR", cache.path())
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache.path()).join("packsmith.toml"),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let url = first.split(" at ").nth(1).unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{first}");
    let authority = url.trim_start_matches("http://").trim_end_matches("/v1");
    let mut stream = TcpStream::connect(authority).unwrap();
    write!(
        stream,
        "GET /v1/models HTTP/1.1\r\nhost: {authority}\r\nconnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    child.kill().unwrap();
    let _ = child.wait();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains("openai-compat:m@http://127.0.0.1:9/v1"),
        "{answer}"
    );
}

#[test]
fn serve_refuses_bad_input() {
    let cache = tempfile::tempdir().unwrap();
    let out = packsmith(&["serve", "--host", "example.org"], cache.path());
    assert_eq!(out.status.code(), Some(2));
    let out = packsmith(&["serve", "--port", "0"], cache.path());
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--model"));
}
