//! The embedded model: llama.cpp in-process through `llama-cpp-2` (feature
//! `local`). For air-gapped machines, and for this project's own tests and
//! benchmarks.
//!
//! - [`LocalModel::load`] loads a GGUF once; contexts (with their KV caches)
//!   are kept per conversation, and each call evaluates only the part of its
//!   prompt that differs from what a context already holds
//!   ([`crate::Usage::cached_tokens`]).
//! - Prompts go through the model's own chat template from the GGUF.
//! - Tools: the template's `<tool_call>` protocol when it has one, emulated
//!   otherwise ([`ToolMode`], STYLE.md practice 15); calls are parsed back
//!   tolerantly ([`tools`]).
//! - `output_schema`: sampling is constrained by a GBNF grammar generated from
//!   the JSON Schema ([`schema`]) *and* the schema is described in the prompt.
//! - [`LocalEmbedder`]: sentence embeddings with an embedding GGUF.
//! - Temperature 0 (or unset) is greedy; otherwise top-k/top-p/min-p with the
//!   request's seed.
//!
//! Building needs cmake, clang and libclang-dev (llama.cpp is compiled from
//! source by `llama-cpp-sys-2`). Models: `scripts/fetch-models.sh`.

mod embed;
mod engine;
pub mod prompt;
mod resolve;
pub mod schema;
pub mod tools;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;

pub use embed::LocalEmbedder;
pub use resolve::resolve_local_model;
pub use tools::{ToolChoice, ToolDialect, ToolMode};

use crate::{ChatModel, ChatRequest, ChatResponse, LlmError};
use engine::Job;
use packsmith_exec::CancelToken;

/// Set (to anything) to let llama.cpp log to stderr; silent otherwise.
pub const LLAMA_LOG_ENV: &str = "PACKSMITH_LLAMA_LOG";

/// Context size when [`LocalOptions::context_size`] is unset (capped by the
/// model's training context).
pub const DEFAULT_CONTEXT_SIZE: u32 = 8192;

/// How a local model is run.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LocalOptions {
    /// Threads for prompt processing and generation; `None` = all cores.
    /// Generation slows sharply when another process takes one of them, so
    /// on a shared machine fewer threads can be faster.
    pub threads: Option<usize>,
    /// Context window in tokens; `None` = min(8192, the model's training context).
    pub context_size: Option<u32>,
    /// Tokens evaluated per llama.cpp batch during prompt processing.
    pub batch_size: u32,
    pub tool_mode: ToolMode,
    pub tool_choice: ToolChoice,
    /// Keep each conversation's KV cache between calls and evaluate only the
    /// new suffix of the prompt.
    pub prefix_reuse: bool,
    /// Conversations (llama.cpp contexts) kept at once; each holds a KV
    /// cache of `context_size` tokens.
    pub max_conversations: usize,
    /// Completion limit when the request sets no `max_tokens`.
    pub default_max_tokens: u32,
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self {
            threads: None,
            context_size: None,
            // Ctrl-C is asked between prompt batches: 128 tokens stop a call
            // within ~2 s on 2 cores where 512 took ~8 s, at the same prompt
            // speed (benches/llm_local.md, `batch` mode).
            batch_size: 128,
            tool_mode: ToolMode::Auto,
            tool_choice: ToolChoice::Auto,
            prefix_reuse: true,
            max_conversations: 2,
            default_max_tokens: 1024,
        }
    }
}

/// What was loaded, and how it runs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LocalModelInfo {
    pub path: PathBuf,
    pub threads: usize,
    pub context_size: u32,
    pub train_context: u32,
    pub tool_dialect: ToolDialect,
    /// False when the GGUF carries no chat template (ChatML is used then).
    pub has_chat_template: bool,
    pub size_bytes: u64,
    pub parameters: u64,
}

/// Measurements of one call.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct LocalStats {
    pub threads: usize,
    pub prompt_tokens: usize,
    /// Prompt tokens whose KV cache was reused from the previous call.
    pub cached_tokens: usize,
    /// Prompt tokens evaluated in this call (`prompt_tokens - cached_tokens`).
    pub evaluated_prompt_tokens: usize,
    /// Wall time of prompt processing.
    pub prompt_ms: f64,
    pub completion_tokens: usize,
    /// Wall time of generation (sampling included).
    pub generation_ms: f64,
    /// llama.cpp's own counters (`llama_perf_context`), for comparison with
    /// other llama.cpp front ends.
    pub llama_prompt_ms: f64,
    pub llama_prompt_tokens: usize,
    pub llama_eval_ms: f64,
    pub llama_eval_tokens: usize,
}

impl LocalStats {
    /// Prompt tokens evaluated per second (wall time).
    pub fn prompt_tokens_per_s(&self) -> f64 {
        per_second(self.evaluated_prompt_tokens, self.prompt_ms)
    }

    /// Generated tokens per second (wall time; the first token's sampling
    /// follows prompt processing and is counted here).
    pub fn generation_tokens_per_s(&self) -> f64 {
        per_second(self.completion_tokens, self.generation_ms)
    }
}

fn per_second(tokens: usize, ms: f64) -> f64 {
    if ms > 0.0 {
        tokens as f64 * 1000.0 / ms
    } else {
        0.0
    }
}

/// The number of cores this process may use.
pub fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `local:<file stem>`.
pub fn model_id(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    format!("local:{stem}")
}

/// A GGUF model run in-process by llama.cpp. Cheap to share (`Arc`); calls
/// from several threads are served one at a time by the model's thread.
pub struct LocalModel {
    id: String,
    info: LocalModelInfo,
    jobs: Option<Sender<Job>>,
    worker: Option<JoinHandle<()>>,
    last_stats: Mutex<Option<LocalStats>>,
    cancel: Option<CancelToken>,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("id", &self.id)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl LocalModel {
    /// Loads a GGUF file. Fails with a message naming the file and what to
    /// do when it is missing, not a GGUF, or llama.cpp cannot load it.
    pub fn load(path: impl AsRef<Path>, options: LocalOptions) -> Result<Self, LlmError> {
        let path = path.as_ref();
        let (jobs, worker, info) = engine::spawn(path, options)?;
        Ok(Self {
            id: model_id(path),
            info,
            jobs: Some(jobs),
            worker: Some(worker),
            last_stats: Mutex::new(None),
            cancel: None,
        })
    }

    /// Stops a call on the way once `token` is cancelled: between prompt batches
    /// and between generated tokens, the call ends with
    /// [`LlmError::Cancelled`]. Without it, Ctrl-C would wait for the whole
    /// answer, minutes on a laptop's cores.
    pub fn cancelled_by(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Resolves `local:NAME` (see [`resolve_local_model`]) and loads it.
    pub fn load_named(
        name: &str,
        cache_dir: &Path,
        options: LocalOptions,
    ) -> Result<Self, LlmError> {
        Self::load(resolve_local_model(name, cache_dir)?, options)
    }

    pub fn info(&self) -> &LocalModelInfo {
        &self.info
    }

    /// Threads llama.cpp uses.
    pub fn threads(&self) -> usize {
        self.info.threads
    }

    /// Runs one completion and returns its measurements too.
    pub fn complete_with_stats(
        &self,
        request: &ChatRequest,
    ) -> Result<(ChatResponse, LocalStats), LlmError> {
        let (reply, answer) = mpsc::channel();
        self.send(Job::Complete {
            request: Box::new(request.clone()),
            cancel: self.cancel.clone(),
            reply,
        })?;
        let result = answer.recv().map_err(|_| self.stopped())?;
        if let Ok((_, stats)) = &result {
            if let Ok(mut last) = self.last_stats.lock() {
                *last = Some(*stats);
            }
        }
        result
    }

    /// Measurements of the last successful call.
    pub fn last_stats(&self) -> Option<LocalStats> {
        self.last_stats.lock().ok().and_then(|s| *s)
    }

    /// The prompt exactly as the model sees it (after the chat template),
    /// and its length in tokens.
    pub fn render_prompt(&self, request: &ChatRequest) -> Result<(String, usize), LlmError> {
        let (reply, answer) = mpsc::channel();
        self.send(Job::Render {
            request: Box::new(request.clone()),
            reply,
        })?;
        answer.recv().map_err(|_| self.stopped())?
    }

    /// Drops every conversation's KV cache (the next call evaluates its
    /// whole prompt).
    pub fn clear_cache(&self) -> Result<(), LlmError> {
        let (reply, answer) = mpsc::channel();
        self.send(Job::ClearCache { reply })?;
        answer.recv().map_err(|_| self.stopped())
    }

    fn send(&self, job: Job) -> Result<(), LlmError> {
        self.jobs
            .as_ref()
            .ok_or_else(|| self.stopped())?
            .send(job)
            .map_err(|_| self.stopped())
    }

    fn stopped(&self) -> LlmError {
        LlmError::Local(format!(
            "the llama.cpp thread for {} has stopped\nhint: load the model again",
            self.info.path.display()
        ))
    }
}

impl ChatModel for LocalModel {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.complete_with_stats(request)
            .map(|(response, _)| response)
    }
}

impl Drop for LocalModel {
    fn drop(&mut self) {
        // Closing the channel ends the model's thread, which frees the
        // contexts and then the model.
        self.jobs.take();
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}
