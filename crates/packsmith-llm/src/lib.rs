//! Language models behind two traits: [`ChatModel`] for completions (text,
//! tool calls, schema-constrained JSON) and [`Embedder`] for vectors.
//! Providers translate `packsmith_core::chat` types to their wire formats;
//! reliability, accounting, the replay cache and the budget are wrappers
//! that any provider goes into (see [`build_model`]).
//!
//! [`build_model`] stacks Budgeted → Cached → Metered → Reliable → provider
//! (`wrap`); [`build_provider`] gives the bare provider, for
//! `packsmith serve`. A model is named `provider:name` ([`ModelSpec`]).
//!
//! Modules:
//! - Providers: `openai` (OpenAI and every OpenAI-compatible server: vLLM,
//!   Ollama, llama.cpp's server, LiteLLM) and `anthropic` (Messages API),
//!   both over a blocking `http::HttpTransport`. `http` is the one place
//!   HTTP statuses become classified `LlmError`s; its `Cancellable` runs
//!   each request on a thread of its own and stops waiting once the cancel
//!   flag is set.
//! - `local/` and `local_glue` (feature `local`): the embedded llama.cpp.
//!   One worker thread owns the model and its contexts, so no `unsafe` is
//!   needed. It uses the model's own chat template, native or emulated tool
//!   calls, JSON Schema → GBNF grammars, KV-cache reuse across calls, and
//!   asks the cancel flag between prompt batches and tokens. It also embeds.
//! - `scripted`: `ScriptedModel`, a model that answers from a script, for
//!   tests of the loop.
//! - Wrappers: `retry` (`Reliable`: backoff with jitter, Retry-After, a
//!   deadline; a wait ends with `LlmError::Cancelled` on Ctrl-C), `budget`
//!   (a request that would pass the token or cost budget is refused before
//!   it is sent), `usage` (`Metered`: price table, latency, cost), `cache`
//!   (`Cached`: a content-addressed replay cache with atomic writes).
//! - `tools`: `validate_tool_call`; its errors go back to the model.
//! - `secret`: `Secret` and `redact`; credentials never reach a trace.
//! - `spec`, `config`, `env`: `--model`, `packsmith.toml` and the
//!   environment variables, each declared once.
//! - `catalog`: the one table of models known by name (file, fetch-script
//!   target, chat or embedding, download URL, size and sha256). `local:NAME`,
//!   `model list`, `model pull` and `doctor` read it; a test holds
//!   `scripts/fetch-models.sh` to it.
//! - `openai/reverse` and `serve`: the server side of the OpenAI wire
//!   format, exposing any `ChatModel` on loopback (`packsmith serve`).

pub mod anthropic;
pub mod budget;
pub mod cache;
pub mod catalog;
pub mod config;
pub mod env;
mod error;
pub mod http;
#[cfg(feature = "local")]
pub mod local;
#[cfg(feature = "local")]
pub mod local_glue;
mod model;
pub mod openai;
pub mod retry;
pub mod scripted;
pub mod secret;
pub mod serve;
pub mod spec;
mod tools;
pub mod usage;

pub use budget::{Budget, BudgetTracker, Budgeted};
pub use cache::{CacheMode, Cached, ReplayCache};
pub use config::Config;
pub use error::LlmError;
pub use model::{build_embedder, build_model, build_provider, wrap};
pub use packsmith_core::chat::*;
pub use retry::{Reliable, RetryPolicy};
pub use scripted::ScriptedModel;
pub use secret::{redact, Secret};
pub use spec::{Endpoint, LocalSpec, ModelSpec};
pub use tools::validate_tool_call;
pub use usage::{Metered, Price, PriceTable};

/// A chat model: one request in, one response out. Implementations are
/// blocking; callers that want parallelism use threads or a shared server.
pub trait ChatModel: Send + Sync {
    /// `provider:name` as the user would write it in `--model`.
    fn id(&self) -> String;

    /// Runs one completion.
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// Turns texts into vectors (the trait lives in `packsmith-core` so that
/// the Spack knowledge crate can use vectors without this crate).
pub use packsmith_core::embed::{Embedder, EmbeddingError};

impl From<LlmError> for EmbeddingError {
    fn from(e: LlmError) -> Self {
        EmbeddingError::new(e.to_string())
    }
}

// Wrappers take any model, boxed or shared, so layers compose.
impl<M: ChatModel + ?Sized> ChatModel for Box<M> {
    fn id(&self) -> String {
        (**self).id()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (**self).complete(request)
    }
}

impl<M: ChatModel + ?Sized> ChatModel for std::sync::Arc<M> {
    fn id(&self) -> String {
        (**self).id()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        (**self).complete(request)
    }
}
