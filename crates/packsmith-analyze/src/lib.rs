//! Repository inspection: turns a source tree into [`RepoFacts`].
//!
//! Each build system has its own reader module; they share a [`Ctx`] that
//! collects warnings and the cross-cutting findings (languages, feature
//! hints, downloads). Analysis never fails on bad content: it records a
//! warning and returns partial facts.

mod autotools;
mod cargo;
pub mod cmake;
mod context;
mod golang;
mod meson;
mod npm;
mod python;
pub mod view;

pub use context::Ctx;
pub use view::RepoView;

mod assemble;
mod error;

pub use assemble::analyze_dir;
pub use error::AnalyzeError;
