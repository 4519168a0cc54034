//! The seam between the loop and a package manager. The loop never names
//! Spack or Nix: a backend implements [`Ecosystem`] and the loop drives it.
//! Everything that crosses the seam is plain serde data.

use std::path::{Path, PathBuf};

use packsmith_core::chat::ChatRequest;
use serde::{Deserialize, Serialize};

use crate::clean::strip_fences;
use crate::detail::BackendDetail;
use crate::history::AttemptHistory;
use crate::report::RunReport;
use crate::tools::Tool;

pub use crate::failure::{Diagnostic, Failure, Severity, STATIC_CHECK};
pub use crate::recipe::{ProgressVerdict, Recipe};

/// What to package. Backend-specific facts (a Spack brief, a Nix fetcher)
/// stay in the backend or go in `context`; the loop does not read them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    /// The package name; also the run directory's name.
    pub name: String,
    /// The source tree the repository tools are confined to.
    pub repo_root: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default)]
    pub references: References,
    /// Free-form facts for the backend's prompts.
    #[serde(default)]
    pub context: serde_json::Value,
}

/// Similar recipes or chunks found by retrieval, with why they matched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct References {
    pub items: Vec<Reference>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    pub name: String,
    pub text: String,
    #[serde(default)]
    pub why: String,
}

/// One validation stage, cheapest first (Spack: load+audit → concretize →
/// install; Nix: evaluate → build).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageSpec {
    /// For events, logs and the report; the backend does not parse it back.
    pub name: String,
    /// The backend's limit for this stage; the backend enforces it.
    pub timeout_secs: u64,
    /// Which of its stages this is, in the backend's own type
    /// ([`Ecosystem::run_stage`] reads it back).
    #[serde(skip)]
    pub detail: BackendDetail,
}

impl StageSpec {
    pub fn new(name: impl Into<String>, timeout_secs: u64) -> Self {
        Self {
            name: name.into(),
            timeout_secs,
            detail: BackendDetail::default(),
        }
    }

    /// Attaches the backend's typed stage.
    pub fn with_detail<T: std::any::Any + Send + Sync>(mut self, stage: T) -> Self {
        self.detail = BackendDetail::new(stage);
        self
    }
}

/// Most [`Ecosystem::auto_fix`] rounds in one attempt (a source hash, then
/// a vendor hash, with room for one more).
pub const MAX_AUTO_FIXES: u32 = 3;

/// What running one stage produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageOutcome {
    pub passed: bool,
    pub duration_ms: u64,
    /// The full log, written by the backend (usually under the attempt dir).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_path: Option<PathBuf>,
    /// Set when `passed` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The recipe as the stage amended it with what only the run could
    /// tell (a smoke test derived from the installed files). The loop
    /// keeps it as the attempt's recipe and passes it to later stages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amended: Option<Recipe>,
}

/// The directory of one attempt, `<run>/attempts/NN/`. Backends write their
/// stage logs here (through [`AttemptDir::log_path`]) and may use it as
/// scratch space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptDir {
    path: PathBuf,
    number: u32,
}

impl AttemptDir {
    pub fn new(path: PathBuf, number: u32) -> Self {
        Self { path, number }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn number(&self) -> u32 {
        self.number
    }

    /// Where a stage's log belongs: `<attempt>/<stage>.log`.
    pub fn log_path(&self, stage: &str) -> PathBuf {
        let safe: String = stage
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.path.join(format!("{safe}.log"))
    }
}

/// A backend failure the model cannot fix: a sandbox that cannot be set
/// up, a missing package manager, our own bug. It stops the run. Its text
/// is the message and, on a line of its own, the hint, so the run report
/// keeps both.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{}", packsmith_core::hint::join_hint(message, hint.as_deref()))]
pub struct EcosystemError {
    pub message: String,
    /// What the user can do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl EcosystemError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: None,
        }
    }

    pub fn with_hint(mut self, hint: Option<impl Into<String>>) -> Self {
        self.hint = hint.map(Into::into);
        self
    }
}

impl packsmith_core::Hint for EcosystemError {
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.hint.as_deref().map(Into::into)
    }

    fn message(&self) -> String {
        self.message.clone()
    }

    /// The backend's environment failed, not the user's input.
    fn is_bad_input(&self) -> bool {
        false
    }
}

/// One side of a progress comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptSnapshot {
    pub attempt: u32,
    pub recipe: Recipe,
    /// `None` when it passed every stage.
    pub failure: Option<Failure>,
    /// Number of stages it passed.
    pub stages_passed: usize,
}

/// What the progress hook is asked about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgressInput {
    /// The last accepted attempt (`None` before any was accepted).
    pub accepted: Option<AttemptSnapshot>,
    pub candidate: AttemptSnapshot,
}

/// The progress hook's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ProgressCheck {
    /// No judgement for this failure (e.g. not a build failure): the loop
    /// repairs the candidate and leaves the accepted attempt as it is.
    Skip,
    /// Decided without a model.
    Decided {
        verdict: ProgressVerdict,
        reason: String,
    },
    /// Ask the model; its answer is read with [`Ecosystem::parse_progress`].
    AskModel(ChatRequest),
}

/// A package manager behind the loop. Prompts, checks, stages and failure
/// classification live in the backend; attempt bookkeeping, tools, events
/// and the run directory live in the loop.
/// What a backend's after-run checks get from the loop.
pub struct FinishContext<'a> {
    /// The run directory, with the final (or best) recipe written.
    pub run_dir: &'a Path,
    /// Ctrl-C came: slow checks are skipped.
    pub cancelled: bool,
    /// A progress line for the user (a `Note` event).
    pub say: &'a mut dyn FnMut(&str),
    /// The run's model, for a backend that explains a failure after the
    /// loop (its tokens are the backend's to count into the report).
    pub model: &'a dyn packsmith_llm::ChatModel,
}

pub trait Ecosystem {
    /// `spack`, `nix`, …
    fn name(&self) -> String;

    /// The recipe's file name (`package.py`, `package.nix`).
    fn recipe_file_name(&self) -> String;

    /// A recipe rendered without a model. Attempt 1 validates it before any
    /// model call; an `Err` means the backend cannot render one, and the
    /// model drafts from an empty recipe instead.
    fn first_draft(&self, task: &Task) -> Result<Recipe, EcosystemError>;

    /// A question about the project asked once, before the first draft
    /// (e.g. a short summary, or which builder fits when the facts are
    /// unclear). The model may answer with the read-only repository tools.
    /// `None` (the default) skips the step.
    fn project_request(&self, task: &Task) -> Option<ChatRequest> {
        let _ = task;
        None
    }

    /// Takes the answer to [`Ecosystem::project_request`] before
    /// [`Ecosystem::first_draft`] is called, so it can shape the draft and
    /// later prompts. Returns a note for the trace.
    fn accept_project_answer(&self, answer: &str) -> Option<String> {
        let _ = answer;
        None
    }

    /// The first model request: complete and correct `draft`, which failed
    /// with `failure` (or could not be rendered: `None`).
    fn draft_request(
        &self,
        task: &Task,
        draft: &Recipe,
        references: &References,
        failure: Option<&Failure>,
    ) -> ChatRequest;

    /// A repair request for `history.current`, which failed with `failure`.
    fn repair_request(
        &self,
        task: &Task,
        history: &AttemptHistory,
        failure: &Failure,
    ) -> ChatRequest;

    /// Turns the model's answer into recipe text (fences and prose removed).
    fn clean_output(&self, raw: &str) -> String {
        strip_fences(raw)
    }

    /// Turns the model's answer into the recipe that replaces `start`.
    /// The default reads a whole recipe ([`Ecosystem::clean_output`]); a
    /// backend that asks for structured edits applies them to `start`
    /// instead. `Err` says why the answer could not be used, for the
    /// model's next try.
    fn answer_to_recipe(&self, start: &Recipe, raw: &str) -> Result<String, String> {
        let _ = start;
        Ok(self.clean_output(raw))
    }

    /// What to tell the model when its answer changed nothing.
    fn unchanged_nudge(&self) -> String {
        "That is the same recipe, unchanged, and it fails in the same way. Change the lines \
         that cause the error above and reply with the whole corrected recipe."
            .to_string()
    }

    /// In-process checks, milliseconds. Errors go back to the model without
    /// running any stage.
    fn static_check(&self, recipe: &Recipe) -> Vec<Diagnostic>;

    /// The validation stages, cheapest first.
    fn stages(&self) -> Vec<StageSpec>;

    /// Runs one stage with the real tool, sandboxed and with the stage's
    /// timeout. A failed build is `Ok` with `passed: false`; `Err` is for
    /// failures the model cannot fix, and stops the run.
    fn run_stage(
        &self,
        stage: &StageSpec,
        recipe: &Recipe,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError>;

    /// A fix the backend makes without a model, e.g. a trust-on-first-use
    /// hash read from a mismatch message: the fixed recipe and a note for
    /// the trace. The loop then runs the stages again on the fixed recipe
    /// within the same attempt, at most [`MAX_AUTO_FIXES`] times.
    fn auto_fix(&self, recipe: &Recipe, failure: &Failure) -> Option<(Recipe, String)> {
        let _ = (recipe, failure);
        None
    }

    /// Backend tools offered to the model beside the repository tools.
    fn tools(&self) -> Vec<Box<dyn Tool>> {
        Vec::new()
    }

    /// Judges a failed candidate against the last accepted attempt. The
    /// default passes no judgement: the next repair starts from the latest
    /// attempt (SpackIt style) and nothing is ever rolled back.
    fn progress_check(&self, input: &ProgressInput) -> ProgressCheck {
        let _ = input;
        ProgressCheck::Skip
    }

    /// Reads the model's answer to a progress request.
    fn parse_progress(&self, answer: &str) -> Option<ProgressVerdict> {
        ProgressVerdict::parse(answer)
    }

    /// Refinement, evaluator side: a request asking for one improvement to
    /// a recipe that passed, or `None` to skip refinement.
    fn evaluate_request(&self, task: &Task, recipe: &Recipe, round: u32) -> Option<ChatRequest> {
        let _ = (task, recipe, round);
        None
    }

    /// Refinement, optimizer side: a request applying `feedback` to `recipe`.
    fn optimize_request(
        &self,
        task: &Task,
        recipe: &Recipe,
        feedback: &str,
    ) -> Option<ChatRequest> {
        let _ = (task, recipe, feedback);
        None
    }

    /// After the loop, before the report is written: the backend's own
    /// after-run checks and records (hermeticity, variant check, review
    /// gate) go into `report.extras`, so `report.json` and `report.md` are
    /// written once, with everything.
    fn finish(&self, report: &mut RunReport, cx: &mut FinishContext<'_>) {
        let _ = (report, cx);
    }
}
