//! The loop's knobs. Stage timeouts are not here: each backend sets them
//! on its [`StageSpec`](crate::StageSpec)s. The token and cost budget is
//! not here either: the model layer (`packsmith_llm::Budgeted`) enforces
//! it, and the loop stops cleanly when it says the budget is spent.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use packsmith_exec::CancelToken;

/// How model requests are recorded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestLog {
    /// The trace has a digest of each request (messages, characters, tools,
    /// hash) and the reply's usage; no prompt text.
    #[default]
    Digest,
    /// Also write every request and reply in full to
    /// `attempts/NN/calls/KK.json`. Prompts hold repository text and
    /// references, never credentials.
    Full,
}

#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// The run goes in `<out_dir>/<task name>/`.
    pub out_dir: PathBuf,
    /// Remove an earlier run in the same directory instead of refusing.
    pub replace_existing: bool,
    /// Attempts, the deterministic draft included (K).
    pub max_attempts: u32,
    /// Stop after this many consecutive attempts judged REGRESS or
    /// STAGNATION (the Nix loop's rule); `None` never stops for that.
    pub max_no_progress: Option<u32>,
    /// Static-check repair rounds within one attempt before it is given up
    /// without running any stage.
    pub max_static_repairs: u32,
    /// Offer tools to the model.
    pub tools: bool,
    /// Offer the tools marked mutating (recipe edits).
    pub allow_mutating_tools: bool,
    /// Tool rounds per model turn; then the model must answer without tools.
    pub max_tool_rounds: u32,
    /// Refinement rounds after success (needs the backend's refine hooks).
    pub refine_rounds: u32,
    pub request_log: RequestLog,
    /// Set by the binary's Ctrl-C handler; checked between steps.
    pub cancel: CancelToken,
}

impl AgentOptions {
    /// SpackIt-style defaults: K = 5, no progress judgement stop.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        Self {
            out_dir: out_dir.into(),
            replace_existing: false,
            max_attempts: 5,
            max_no_progress: None,
            max_static_repairs: 2,
            tools: true,
            allow_mutating_tools: true,
            max_tool_rounds: 8,
            refine_rounds: 0,
            request_log: RequestLog::Digest,
            cancel: CancelToken::new(),
        }
    }

    /// Vibenix-style defaults: 20 iterations, stop after 10 consecutive
    /// attempts without progress, one refinement round.
    pub fn nix_style(out_dir: impl Into<PathBuf>) -> Self {
        Self {
            max_attempts: 20,
            max_no_progress: Some(10),
            refine_rounds: 1,
            ..Self::new(out_dir)
        }
    }
}
