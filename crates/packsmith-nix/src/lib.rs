//! The Nix backend's foundations: fetchers and hashes, builder templates,
//! the Nix runner, log diagnosis, progress heuristics, edit tools and
//! failure-analysis categories, and [`ecosystem`]: the backend the agent
//! loop drives (prompts, tools, stages, progress judgement, refinement with
//! a runtime check). The model is only ever called by the loop.
//!
//! Nix is driven through `nix-instantiate` and `nix-build` (the legacy CLI),
//! not flakes: it works on every Nix from 2.3 without experimental features
//! and needs no lock file. Hash conversion is done in Rust for the same
//! reason. Tests run the real Nix against a tiny stand-in nixpkgs
//! (`tests/fake-nixpkgs/`); the real nixpkgs path differs only in the
//! directory the wrapper imports.
//!
//! Foundations (no model):
//! - `hash`: SRI ⇄ Nix base-32 ⇄ hex, `lib.fakeHash`.
//! - `fetch`: a source URL → a fetcher call as data; forges from
//!   `packsmith_core::forge`. `prefetch`: `nix-prefetch-url`.
//! - `tofu`: a hash mismatch → the attribute to fix (trust on first use),
//!   vendor hashes of pnpm and yarn included.
//! - `attr_path`: the nixpkgs attribute a package will have (`--attr-path`).
//! - `templates/`: one module per builder family (`Builder`,
//!   `choose_template`, `choose_builder`), inputs from the facts split into
//!   native and build inputs, flags, tests and `meta`. Submodules own one
//!   concern each: `inputs`, `cmake_tests`, `build_tools`, `headers`,
//!   `rust_inputs`, `tauri`, `npm`, `frameworks`, `lazarus`, `gi_inputs`,
//!   `python_env`, `python_checks`, `license`.
//! - `format`: nixfmt's layout through the `nixfmt_rs` crate, applied to
//!   every draft and every model recipe that parses, within bounds and on a
//!   thread with a large stack.
//! - `conventions`: nixpkgs conventions as static-check warnings, never
//!   blocking (layout, `meta.description`, `finalAttrs` over `rec`).
//! - `fidelity/`: a generated expression scored against nixpkgs' own, read
//!   without evaluating (`lexer`, `expr`); the bench's Nix score.
//! - `runner`: the generated `default.nix` wrapper, `nix-instantiate`, then
//!   a sandboxed `nix-build`, logs to files.
//! - `diagnose`: `classify` → `NixDiagnosis` (a `FailureKind` and an
//!   excerpt). `logs`: paging, comparison cut where two logs diverge, and
//!   `prejudge`, the verdict decided without a model. `edit`: edits checked
//!   by the parser. `analysis`: the failure categories of a run that built
//!   nothing.
//!
//! `run/`: a whole `packsmith nix` run in one call, [`run::run`]: a
//! `NixRequest` of plain data in (source, names, nixpkgs, sandbox, loop
//! limits), a `NixRun` out (the report as written, the run directory,
//! `nix-result.json`'s data and the `Outcome` the caller makes an exit code
//! of). `inputs` resolves the source, analysis, name, version, revision and
//! nixpkgs pin; `finish` writes `nix-result.json` and the report's `checks`
//! table (`checks`); `summary` is the text shown after the run. Lines for
//! the user go through a `say` callback; errors are `RunError`s.
//!
//! `update/`: `packsmith update` of a `package.nix` in one call
//! ([`update::run`]): both versions' inputs compared in nixpkgs attributes,
//! the version, source hash and input lists edited on their own bytes,
//! then parse, evaluate and build as a run does.
//!
//! `ecosystem/`: `NixEcosystem` implements `Ecosystem`.
//! - `draft`: `prepare_draft` → `PreparedDraft`: facts → fetcher →
//!   template, with the source hash from `nix-prefetch-url` or
//!   `lib.fakeHash` (`HashStatus` says which).
//! - `project`: the one question about the project before attempt 1; its
//!   answer may pick the builder when the draft's was a fallback, and give a
//!   description when the facts had none (kept only if it passes
//!   `conventions`).
//! - `stages`: parse, evaluate, build, each with its timeout; a failure
//!   carries its `NixDiagnosis`. A nixpkgs that cannot be fetched is an
//!   `EcosystemError`.
//! - `auto_fix` answers a hash mismatch with `tofu::fix_hash`.
//! - `progress`: Vibenix-style verdicts for build failures, decided by
//!   `logs::prejudge` when it can, else by the model.
//! - `tools`: view and edit the recipe (edits rejected when they do not
//!   parse), read the build log, search nixpkgs (`search`), and read a local
//!   nixpkgs checkout.
//! - `runtime`: after a build, the main program runs in the sandbox under a
//!   policy of its own (only its closure, no network) with `--version` and
//!   `--help`; the result feeds the evaluator's prompt (refinement).
//! - `analysis` and `result`: the failure analysis and `nix-result.json`'s
//!   data.
//! - `prompts` with `prompts/*.j2`: the prompts as minijinja templates.

pub mod analysis;
pub mod attr_path;
pub mod contribute;
pub mod conventions;
pub mod diagnose;
pub mod ecosystem;
pub mod edit;
pub mod fetch;
pub mod fidelity;
pub mod format;
pub mod hash;
pub mod install_check;
pub mod logs;
pub mod prefetch;
pub mod run;
pub mod runner;
pub mod templates;
pub mod tofu;
pub mod update;

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
