//! Plain serde data shared by every packsmith crate.
//!
//! Nothing here does I/O: these are the facts and records that flow between
//! analysis, recipe generation, validation and reporting, and the tables
//! every layer reads the same way (git forges' URL layouts), and the `Hint`
//! trait of every error that has advice for the user.

pub mod facts;

pub use facts::*;

pub mod chat;

pub mod embed;

pub mod forge;

pub mod headers;

pub mod hint;
/// Markdown to plain text for descriptions.
pub mod markdown;

pub use hint::Hint;
