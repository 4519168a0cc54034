#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `packsmith kb embed` and `kb similar --strategy embedding` through the
//! binary, against a stand-in OpenAI-compatible `/v1/embeddings` server
//! on loopback that returns bag-of-words vectors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../packsmith-spack-knowledge/tests/fixtures")
}

fn packsmith(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(args)
        .env("PACKSMITH_CACHE_DIR", cache)
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache).join("packsmith.toml"),
        )
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn bag_of_words(s: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 32];
    for w in s
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let h = w
            .to_ascii_lowercase()
            .bytes()
            .fold(5381u32, |h, b| h.wrapping_mul(33) ^ u32::from(b));
        v[(h % 32) as usize] += 1.0;
    }
    v
}

/// Serves `/v1/embeddings` until the test ends; returns the base URL.
fn embeddings_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    let mut first = true;
                    loop {
                        line.clear();
                        if reader.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        if first {
                            first = false;
                            continue;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some((k, v)) = line.split_once(':') {
                            if k.eq_ignore_ascii_case("content-length") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0u8; length];
                    reader.read_exact(&mut body).unwrap();
                    let request: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    let data: Vec<serde_json::Value> = request["input"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .enumerate()
                        .map(|(i, t)| {
                            serde_json::json!({"index": i, "embedding": bag_of_words(t.as_str().unwrap())})
                        })
                        .collect();
                    let reply = serde_json::json!({"data": data, "model": "bow"}).to_string();
                    let _ = write!(
                        out,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{reply}",
                        reply.len()
                    );
                }
            });
        }
    });
    url
}

#[test]
fn embed_then_retrieve_by_embedding() {
    let cache = tempfile::tempdir().unwrap();
    let repo = fixtures().join("kb-repo");
    let o = packsmith(cache.path(), &["kb", "index", repo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let model = format!("openai-compat:bow@{}", embeddings_server());
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heatsim");
    let target = target.to_str().unwrap();

    // Not embedded yet: a clear error that says what to run.
    let similar = |extra: &[&str]| {
        let mut args = vec![
            "kb",
            "similar",
            target,
            "--strategy",
            "embedding",
            "--embed-model",
            &model,
            "--spack-version",
            "0.23",
        ];
        args.extend_from_slice(extra);
        packsmith(cache.path(), &args)
    };
    let o = similar(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("has no embeddings from"), "{err}");
    assert!(
        err.contains(&format!("packsmith kb embed --model {model}")),
        "{err}"
    );

    let o = packsmith(
        cache.path(),
        &["kb", "embed", "--model", &model, "--chunks", "all"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("7 packages (7 with recipe chunks)"), "{out}");
    assert!(out.contains("32 dimensions"), "{out}");
    // Incremental: nothing to do the second time.
    let o = packsmith(
        cache.path(),
        &[
            "kb", "embed", "--model", &model, "--chunks", "all", "--json",
        ],
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["embedded"], 0);
    assert!(report["unchanged"].as_u64().unwrap() > 7);

    let o = similar(&["--json", "-n", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let result: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(result["strategy"], "embedding");
    let matches = result["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 2);
    assert!(matches[0]["score"].as_f64() >= matches[1]["score"].as_f64());
    let o = similar(&["--chunks"]);
    assert!(text(&o.stdout).contains("1. "), "{}", text(&o.stdout));
    let o = packsmith(cache.path(), &["kb", "stats"]);
    assert!(
        text(&o.stdout).contains("embeddings     openai-compat:bow@"),
        "{}",
        text(&o.stdout)
    );

    let o = packsmith(
        cache.path(),
        &[
            "kb",
            "embed",
            "--model",
            &model,
            "--chunks",
            "/nonexistent/list.txt",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("hint: use --chunks none"),
        "{}",
        text(&o.stderr)
    );
}
