//! Embedding retrieval (`--refs embedding:N`): a feature card per package
//! and structure-aware chunks of its recipe, embedded with any
//! [`packsmith_core::embed::Embedder`] and stored in the knowledge base under the
//! embedder's model id; a target's card is compared with them by cosine.
//!
//! - [`card`]: the feature card (name, description, build systems,
//!   variants, dependency names, CMake keys), for recipes and targets alike.
//! - [`chunks`]: variant block, dependency block, build-argument methods,
//!   other methods.
//! - [`store`]: the `embeddings` table and incremental `kb embed`.
//! - [`search`]: top-k by cosine, the target excluded, returned as the
//!   same [`crate::retrieve::Retrieval`] as `similar:N`.

pub mod card;
pub mod chunks;
pub mod search;
pub mod store;

use std::path::PathBuf;

use crate::kb::KbError;
use packsmith_core::embed::EmbeddingError;
use packsmith_core::Hint;
use std::borrow::Cow;

pub use card::FeatureCard;
pub use chunks::{Chunk, ChunkKind};
pub use search::{EmbeddingRetriever, Pieces};
pub use store::{embed_kb, embedded_models, ChunkScope, EmbedOptions, EmbedProgress, EmbedReport};

/// Why embedding or an embedding query failed.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error(transparent)]
    Kb(#[from] KbError),
    #[error("embedding model {model} failed: {source}")]
    Model {
        model: String,
        #[source]
        source: EmbeddingError,
    },
    #[error("knowledge base {} has no embeddings from {model}{}", path.display(), if available.is_empty() { String::new() } else { format!(" (it has: {})", available.join(", ")) })]
    NotEmbedded {
        path: PathBuf,
        model: String,
        available: Vec<String>,
    },
    #[error("embedding model {model} gave vectors of the wrong shape: {why}")]
    Shape { model: String, why: String },
    #[error("the vectors loaded are from {loaded}, but the query embedder is {given}")]
    ModelMismatch { loaded: String, given: String },
}

impl Hint for EmbedError {
    fn hint(&self) -> Option<Cow<'_, str>> {
        Some(match self {
            Self::Kb(e) => return e.hint(),
            Self::Model { source, .. } => source
                .hint()
                .unwrap_or_else(|| "check the embedding model (`packsmith doctor`)".into()),
            Self::NotEmbedded { path, .. } => format!(
                "run `packsmith kb embed --model <the same embedding model> --kb {}` first",
                path.display()
            )
            .into(),
            Self::Shape { .. } => "re-embed with `packsmith kb embed --model …`; if it happens again, the model is not a sentence-embedding model".into(),
            Self::ModelMismatch { .. } => "query with the embedding model the retriever was loaded for".into(),
        })
    }

    /// True when the input (a KB, a model name) was wrong rather than the
    /// environment.
    fn is_bad_input(&self) -> bool {
        match self {
            Self::Kb(e) => e.is_bad_input(),
            Self::Model { .. } => false,
            _ => true,
        }
    }
}
