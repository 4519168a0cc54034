//! Language models behind two traits: [`ChatModel`] for completions (text,
//! tool calls, schema-constrained JSON) and [`Embedder`] for vectors.
//! Providers translate `packsmith_core::chat` types to their wire formats.

mod error;
#[cfg(feature = "local")]
pub mod local;

pub use error::LlmError;
pub use packsmith_core::chat::*;

/// A chat model: one request in, one response out. Implementations are
/// blocking; callers that want parallelism use threads or a shared server.
pub trait ChatModel: Send + Sync {
    /// `provider:name` as the user would write it in `--model`.
    fn id(&self) -> String;

    /// Runs one completion.
    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// Turns texts into vectors.
pub trait Embedder: Send + Sync {
    /// The embedding model's id; stored beside vectors so that vectors from
    /// different models are never compared.
    fn model_id(&self) -> String;

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, LlmError>;
}
