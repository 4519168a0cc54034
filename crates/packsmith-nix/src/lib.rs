//! The Nix backend's foundations: fetchers and hashes, builder templates,
//! the Nix runner, log diagnosis, progress heuristics, edit tools and
//! failure-analysis categories, and [`ecosystem`]: the backend the agent
//! loop drives (prompts, tools, stages, progress judgement, refinement with
//! a runtime check). The model is only ever called by the loop.

pub mod analysis;
pub mod attr_path;
pub mod conventions;
pub mod diagnose;
pub mod ecosystem;
pub mod edit;
pub mod fetch;
pub mod fidelity;
pub mod format;
pub mod hash;
pub mod logs;
pub mod prefetch;
pub mod runner;
pub mod templates;
pub mod tofu;

pub use analysis::{first_guess, FailureCategory, FirstGuess};
pub use diagnose::{classify, EvalErrorKind, Failure, FailureKind, Location, NixDiagnosis};
pub use ecosystem::{NixEcosystem, NixSettings};
pub use edit::{view, EditError, Edited, Editor, FallbackParser, NixParser, SyntaxCheck};
pub use fetch::{
    fetcher_for, parse_source, FetchError, FetcherCall, FetcherFn, Forge, Revision, SourceSpec,
    VersionRef,
};
pub use hash::{is_valid_sri, to_sri, HashAlgo, NixHash, FAKE_HASH_EXPR, FAKE_HASH_SRI};
pub use logs::{compare_logs, prejudge, LogComparison, LogPage, LogView, PreJudgement, Verdict};
pub use runner::{
    wrapper_expr, NixConfig, NixRunner, NixpkgsPin, RunError, Step, StepResult, WorkDir,
};
pub use templates::{choose_builder, choose_template, render, Builder, CallScope, TemplateInput};
pub use tofu::{fix_hash, fix_hash_from_log, parse_mismatch, HashFix, HashMismatch, HashSite};
