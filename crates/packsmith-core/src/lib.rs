//! Plain serde data shared by every packsmith crate.
//!
//! Nothing here does I/O: these are the facts and records that flow between
//! analysis, recipe generation, validation and reporting, and the tables
//! every layer reads the same way (git forges' URL layouts), and the `Hint`
//! trait of every error that has advice for the user.
//!
//! Modules:
//! - `facts`: `RepoFacts` and the per-build-system facts (`CmakeFacts`,
//!   `MesonFacts`, …), `BuildSystemKind`, `Evidence`, `Sourced<T>`,
//!   `SourceInfo`, warnings. Conditions (`if()` chains) stay readable text
//!   here; only the Spack brief turns them into `when=` specs.
//! - `chat`: the chat protocol every provider translates: messages, tool
//!   specs and calls, requests, responses, usage.
//! - `embed`: the `Embedder` trait, here so that the Spack knowledge crate
//!   can use vectors without the model crate.
//! - `archive`: the suffixes that name a release archive
//!   (`strip_archive_suffix`), read by Nix's fetchers and by analysis.
//! - `forge`: the one table of git forges: host → GitHub, GitLab or Gitea;
//!   a git remote in any spelling → host, owner, repository; tag and commit
//!   archive URLs and web pages. Read by analysis's versions and by Nix's
//!   fetchers.
//! - `headers`: the one table of system headers a library owns (header or
//!   header directory → the stem of its library file: `zlib.h` → `z`).
//!   The Spack brief and the Nix templates map the stem to their own names.
//! - `package_names`: the prefixes that mark a language's packages
//!   (`py-`, `r-`), read by analysis and the Spack knowledge base.
//! - `markdown`: Markdown to the plain text a description wants (links by
//!   their text; emphasis, code marks and inline HTML dropped).
//! - `hint`: the `Hint` trait. Every library error with advice gives its
//!   message, its hint and whether the input or the environment failed; the
//!   binary turns it into an exit code. Errors whose text carries a `hint:`
//!   line use the default methods, which read it off in this one place.

pub mod facts;

pub use facts::*;

pub mod archive;

pub mod chat;

pub mod embed;

pub mod forge;

pub mod headers;

pub mod hint;

/// Markdown to plain text for descriptions.
pub mod markdown;
pub mod package_names;

pub use hint::Hint;
