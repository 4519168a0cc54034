//! The ecosystem-neutral agent loop of packsmith.
//!
//! A backend (Spack, Nix) implements [`Ecosystem`]; [`Agent::run`] drives
//! it: a deterministic first draft validated before any model call, then
//! model drafts and repairs, each cleaned, static-checked (repairing within
//! the attempt without running any stage), validated stage by stage, and
//! judged for progress with rollback. Every step is an [`AgentEvent`],
//! appended to the run directory's `trace.jsonl` as it happens; the run
//! ends with `report.json`/`report.md` (see [`rundir`]).
//!
//! The loop never names Spack or Nix. What it shows and records of a stage
//! or a failure is text (name, class, excerpt). What a backend needs back is
//! typed: `StageSpec::detail` and `Failure::detail` carry a [`BackendDetail`]
//! (Spack's `Stage` and `Diagnosis`, Nix's `NixStage` and `NixDiagnosis`)
//! through the loop unread. It is an opaque `Arc<dyn Any>` rather than an
//! associated type because the loop drives `&dyn Ecosystem`; serde skips it.
//!
//! Modules:
//! - `agent/` (private): `Run`, the state that outlives an attempt, and its
//!   steps `attempt`, `turn` and `refine`, so nothing outside the loop
//!   changes that state.
//!   - One attempt: get a recipe (attempt 1 is the first draft; then a
//!     model draft; then repairs) → clean → static check, whose errors are
//!     repaired by `auto_fix` and then by the model within the attempt → write
//!     `attempts/NN/` → stages, cheapest first, stopping at the first failure
//!     (a stage may hand back an amended recipe, `StageOutcome::amended`,
//!     which becomes the attempt's recipe from then on) → `auto_fix` (at
//!     most `MAX_AUTO_FIXES`) → progress judgement → record.
//!     An answer identical to the recipe it repairs is sent back once, then
//!     not validated (class `unchanged`; it keeps the failure it repeats:
//!     its error and the backend's typed account, for the next repair).
//!   - Before attempt 1 a backend may ask one question about the project
//!     (`Ecosystem::project_request`), with read-only tools only.
//!   - Progress: a backend's hook may skip, decide, or ask the model.
//!     REGRESS and STAGNATION roll back to the last accepted recipe and count
//!     towards `max_no_progress`.
//!   - Stopping: success, the attempt limit, no progress, the budget,
//!     cancellation (`CancelToken`, re-exported here), a model error, or an
//!     `EcosystemError`. Every way ends with a report; only an unwritable run
//!     directory is an `Err`.
//! - `ecosystem`: the `Ecosystem` trait and its data (`Task`, `Recipe`,
//!   `StageSpec`, `StageOutcome`, `Failure`, `Diagnostic`).
//! - `detail`: `BackendDetail`.
//! - `history`: `AttemptHistory`, the memory repair prompts get: for each
//!   earlier attempt a compact diff against its base and what failed.
//! - `tools`: `ToolRegistry` and the repository tools (`read_file`,
//!   `list_dir`, `grep`), which refuse absolute paths, `..`, symlinks out of
//!   the root and binary files, and cap their output. A malformed tool call
//!   is answered to the model as an error; only `ToolError::Fatal` stops the
//!   run.
//! - `events`: `AgentEvent`, `EventSink`, and the request digest traced
//!   instead of the request (`RequestLog::Full` writes every call).
//! - `report`: `RunReport`, `AttemptRecord`, `StageRecord`, `RunStatus`.
//! - `rundir`: the run directory. Files go through `atomic_write`;
//!   `report.json` is rewritten after every attempt with status
//!   `interrupted`, so a killed run reads as interrupted. `rewrite_report`
//!   adds a command's `extras`. The passing recipe goes to the run's top;
//!   otherwise the furthest attempt is copied to `best-attempt.<file>`.
//! - `options` (`AgentOptions`), `clean` (model-output fences), `text`
//!   (clipping), `error`.
//! - `run_error`: `RunError`, why a backend's whole run (`packsmith_spack::run`,
//!   `packsmith_nix::run`) could not start or finish: a message, a hint, and
//!   whether the input or the environment was at fault.

mod agent;
pub mod clean;
pub mod contribution;
mod detail;
pub mod ecosystem;
mod error;
pub mod events;
mod extras_markdown;
mod failure;
pub mod history;
mod options;
mod recipe;
pub mod report;
pub mod review;
mod run_error;
pub mod rundir;
mod text;
pub mod tools;
pub mod untrusted;

pub use agent::Agent;
pub use agent::TOOLS_SPENT;
pub use clean::strip_fences;
pub use detail::BackendDetail;
pub use ecosystem::{
    AttemptDir, AttemptSnapshot, Diagnostic, Ecosystem, EcosystemError, Failure, FinishContext,
    ProgressCheck, ProgressInput, ProgressVerdict, Recipe, Reference, References, Severity,
    StageOutcome, StageSpec, Task, MAX_AUTO_FIXES, STATIC_CHECK,
};
pub use error::AgentError;
pub use events::{AgentEvent, CallPurpose, EventSink, NoEvents, RequestDigest, TraceLine};
pub use history::{compact_diff, AttemptHistory, AttemptKind, HistoryEntry};
pub use options::{AgentOptions, RequestLog};
pub use packsmith_exec::CancelToken;
pub use report::{AttemptRecord, RunReport, RunStatus, StageRecord};
pub use run_error::RunError;
pub use text::{clip_bytes, clip_chars};
pub use tools::{RepoRoot, Tool, ToolContext, ToolError, ToolRegistry, ToolResult};
