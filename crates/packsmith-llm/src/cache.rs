//! The replay cache: responses stored on disk under the sha256 of a
//! canonical JSON of (model id, request). Opt-in. A hit returns the stored
//! response with `cached: true` and latency 0, so a benchmark re-run through
//! the cache is byte-identical. Entries are written once, atomically (temp
//! file + rename in the same directory), so parallel workers never see half
//! an entry; two workers racing on one miss both write a whole file and the
//! last rename wins.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{ChatModel, ChatRequest, ChatResponse, LlmError};

/// Bumped when the key derivation or the entry format changes.
const FORMAT: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CacheMode {
    /// Serve hits, record misses.
    ReadWrite,
    /// Serve hits; a miss is an error (offline replays, tests).
    Replay,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format: u32,
    model: String,
    request: ChatRequest,
    response: ChatResponse,
}

#[derive(Debug, Clone)]
pub struct ReplayCache {
    dir: PathBuf,
    mode: CacheMode,
}

impl ReplayCache {
    pub fn new(dir: impl Into<PathBuf>, mode: CacheMode) -> Self {
        Self {
            dir: dir.into(),
            mode,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Hex sha256 of the canonical JSON of the model id and the request.
    pub fn key(model_id: &str, request: &ChatRequest) -> Result<String, LlmError> {
        let value = serde_json::json!({
            "format": FORMAT,
            "model": model_id,
            "request": serde_json::to_value(request).map_err(cache_err)?,
        });
        let mut canonical = String::new();
        write_canonical(&value, &mut canonical);
        Ok(hex::encode(Sha256::digest(canonical.as_bytes())))
    }

    fn path(&self, key: &str) -> PathBuf {
        // Two-level fan-out keeps directories small for big benchmarks.
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    /// The stored response, marked as cached. An unreadable entry counts as
    /// a miss (it will be rewritten).
    pub fn get(&self, key: &str) -> Option<ChatResponse> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        (entry.format == FORMAT).then_some(())?;
        let mut response = entry.response;
        response.cached = true;
        response.latency_ms = 0;
        Some(response)
    }

    pub fn put(
        &self,
        key: &str,
        model_id: &str,
        request: &ChatRequest,
        response: &ChatResponse,
    ) -> Result<(), LlmError> {
        let path = self.path(key);
        let entry = Entry {
            format: FORMAT,
            model: model_id.to_string(),
            request: request.clone(),
            response: ChatResponse {
                cached: false,
                ..response.clone()
            },
        };
        let mut text = serde_json::to_string_pretty(&entry).map_err(cache_err)?;
        text.push('\n');
        packsmith_exec::atomic_write(&path, text.as_bytes())
            .map_err(|e| LlmError::Cache(e.to_string()))
    }
}

fn cache_err(e: serde_json::Error) -> LlmError {
    LlmError::Cache(format!("serializing a cache entry: {e}"))
}

/// JSON with object keys sorted at every level, no whitespace: the same
/// request always hashes the same, whatever map order serde_json uses.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(k) {
                    write_canonical(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Serves a model's responses from a [`ReplayCache`].
pub struct Cached<M> {
    inner: M,
    cache: ReplayCache,
}

impl<M: ChatModel> Cached<M> {
    pub fn new(inner: M, cache: ReplayCache) -> Self {
        Self { inner, cache }
    }
}

impl<M: ChatModel> ChatModel for Cached<M> {
    fn id(&self) -> String {
        self.inner.id()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let id = self.inner.id();
        let key = ReplayCache::key(&id, request)?;
        if let Some(hit) = self.cache.get(&key) {
            return Ok(hit);
        }
        if self.cache.mode == CacheMode::Replay {
            return Err(LlmError::Cache(format!(
                "no recorded response for this request to {id} in {} (key {key}); \
                 hint: record it first with the cache mode `read-write`",
                self.cache.dir.display()
            )));
        }
        let response = self.inner.complete(request)?;
        self.cache.put(&key, &id, request, &response)?;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys() {
        let v: Value = serde_json::from_str(r#"{"b":1,"a":{"d":[1,{"z":0,"y":"x"}],"c":null}}"#)
            .unwrap_or_default();
        let mut s = String::new();
        write_canonical(&v, &mut s);
        assert_eq!(s, r#"{"a":{"c":null,"d":[1,{"y":"x","z":0}]},"b":1}"#);
    }
}
