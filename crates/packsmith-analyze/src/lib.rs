//! Repository inspection: turns a source tree into [`RepoFacts`].
//!
//! Each build system has its own reader module; they share a [`Ctx`] that
//! collects warnings and the cross-cutting findings (languages, feature
//! hints, downloads). Analysis never fails on bad content: it records a
//! warning and returns partial facts.

mod assemble;
mod autotools;
mod cargo;
pub mod cmake;
mod context;
mod detect;
mod error;
mod gi;
mod git;
mod golang;
mod includes;
mod layout;
mod lazarus;
mod license;
mod makefile;
mod meson;
mod npm;
mod pascal_units;
mod python;
mod readme;
pub mod source;
mod sources;
mod support;
pub mod tree;
pub mod versions;
pub mod view;

pub use assemble::analyze_dir;
pub use context::Ctx;
pub use error::AnalyzeError;
pub use packsmith_core::RepoFacts;
pub use view::RepoView;
