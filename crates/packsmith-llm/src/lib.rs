//! Language models behind two traits: [`ChatModel`] for completions (text,
//! tool calls, schema-constrained JSON) and [`Embedder`] for vectors.
//! Providers translate `packsmith_core::chat` types to their wire formats;
//! reliability, accounting, the replay cache and the budget are wrappers
//! that any provider goes into (see [`build_model`]).

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
