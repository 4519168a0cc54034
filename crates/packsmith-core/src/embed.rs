//! The embedding seam: anything that turns texts into vectors. It lives
//! here, not in packsmith-llm, so that the Spack knowledge crate can store
//! and compare vectors without linking the model layer.

/// Why an embedding request failed, as the provider said it (the text may
/// end with a `hint:` line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingError {
    pub message: String,
}

impl EmbeddingError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for EmbeddingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EmbeddingError {}

/// The hint is the `hint:` line of the provider's message, if it has one.
impl crate::Hint for EmbeddingError {
    fn is_bad_input(&self) -> bool {
        false
    }
}

/// Turns texts into vectors.
pub trait Embedder: Send + Sync {
    /// The embedding model's id; stored beside vectors so that vectors from
    /// different models are never compared.
    fn model_id(&self) -> String;

    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbeddingError>;
}
