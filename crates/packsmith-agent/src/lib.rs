//! The ecosystem-neutral agent loop of packsmith.
//!
//! A backend (Spack, Nix) implements [`Ecosystem`]; [`Agent::run`] drives
//! it: a deterministic first draft validated before any model call, then
//! model drafts and repairs, each cleaned, static-checked (repairing within
//! the attempt without running any stage), validated stage by stage, and
//! judged for progress with rollback. Every step is an [`AgentEvent`],
//! appended to the run directory's `trace.jsonl` as it happens; the run
//! ends with `report.json`/`report.md` (see [`rundir`]).

mod agent;
pub mod clean;
mod detail;
pub mod ecosystem;
mod error;
pub mod events;
mod extras_markdown;
pub mod history;
mod options;
pub mod report;
pub mod rundir;
mod text;
pub mod tools;

pub use agent::Agent;
pub use agent::TOOLS_SPENT;
pub use clean::strip_fences;
pub use detail::BackendDetail;
pub use ecosystem::{
    AttemptDir, AttemptSnapshot, Diagnostic, Ecosystem, EcosystemError, Failure, ProgressCheck,
    ProgressInput, ProgressVerdict, Recipe, Reference, References, Severity, StageOutcome,
    StageSpec, Task, MAX_AUTO_FIXES, STATIC_CHECK,
};
pub use error::AgentError;
pub use events::{AgentEvent, CallPurpose, EventSink, NoEvents, RequestDigest, TraceLine};
pub use history::{compact_diff, AttemptHistory, AttemptKind, HistoryEntry};
pub use options::{AgentOptions, RequestLog};
pub use packsmith_exec::CancelToken;
pub use report::{AttemptRecord, RunReport, RunStatus, StageRecord};
pub use text::{clip_bytes, clip_chars};
pub use tools::{RepoRoot, Tool, ToolContext, ToolError, ToolRegistry, ToolResult};
