//! The loop: draft → static check → stages → failure → repair, until a
//! recipe passes or a limit is hit; then optional refinement and the
//! report. State that outlives one attempt lives in [`Run`]; one attempt
//! is in `attempt.rs`, one model turn (with tool rounds) in `turn.rs`,
//! refinement after success in `refine.rs`: submodules, so `Run`'s fields
//! stay private to the loop.

mod attempt;
mod refine;
mod turn;

pub use turn::TOOLS_SPENT;

use std::collections::BTreeMap;

use packsmith_core::chat::Usage;
use packsmith_llm::ChatModel;

use crate::ecosystem::{AttemptSnapshot, Ecosystem, Failure, Recipe, StageSpec, Task};
use crate::error::AgentError;
use crate::events::{AgentEvent, CallPurpose, EventSink};
use crate::history::{AttemptKind, HistoryEntry};
use crate::options::AgentOptions;
use crate::report::{AttemptRecord, RunReport, RunStatus, REPORT_SCHEMA};
use crate::rundir::RunDir;
use crate::tools::{RepoRoot, ToolRegistry};

/// Why the loop stopped before its natural end.
#[derive(Debug)]
pub(crate) enum Stop {
    Cancelled,
    Budget(String),
    ModelFailed(String),
    Fatal(String),
    Io(AgentError),
}

/// The model's last answer as given, and why it could not be used (if
/// so): a re-ask quotes the one and explains the other.
#[derive(Debug, Clone, Default)]
pub(crate) struct LastAnswer {
    pub raw: String,
    pub error: Option<String>,
}

/// Tokens, cost and calls, for one attempt or the whole run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    pub usage: Usage,
    pub cost_usd: f64,
    pub model_calls: u32,
    pub tool_calls: u32,
}

/// Where a new attempt's recipe comes from.
pub(crate) enum Source {
    /// Given (the deterministic draft).
    Given(Recipe),
    /// Asked of the model; the recipe it starts from (tools edit it).
    Ask {
        request: packsmith_core::chat::ChatRequest,
        purpose: CallPurpose,
        start: Recipe,
    },
}

/// The entry point.
pub struct Agent;

impl Agent {
    /// Runs the loop for `task` and writes the run directory. Failed
    /// builds, bad model output, budget exhaustion and cancellation all end
    /// in a report; `Err` only when the run directory cannot be written.
    pub fn run(
        task: &Task,
        ecosystem: &dyn Ecosystem,
        model: &dyn ChatModel,
        options: &AgentOptions,
        sink: &mut dyn EventSink,
    ) -> Result<RunReport, AgentError> {
        let dir = RunDir::create(&options.out_dir, &task.name, options.replace_existing)?;
        let mut run = Run::new(task, ecosystem, model, options, dir, sink);
        run.execute()
    }
}

pub(crate) struct Run<'a> {
    task: &'a Task,
    eco: &'a dyn Ecosystem,
    model: &'a dyn ChatModel,
    opts: &'a AgentOptions,
    dir: RunDir,
    sink: &'a mut dyn EventSink,
    registry: ToolRegistry,
    stages: Vec<StageSpec>,
    records: Vec<AttemptRecord>,
    recipes: BTreeMap<u32, Recipe>,
    history: Vec<HistoryEntry>,
    total: Tally,
    current: Tally,
    /// Model calls in the current attempt, for `calls/KK.json`.
    call_seq: u32,
    /// The last attempt the progress check accepted.
    accepted: Option<AttemptSnapshot>,
    /// What the next repair starts from.
    base: Option<AttemptSnapshot>,
    broken_log: bool,
    no_progress: u32,
    last_answer: LastAnswer,
}

impl<'a> Run<'a> {
    fn new(
        task: &'a Task,
        eco: &'a dyn Ecosystem,
        model: &'a dyn ChatModel,
        opts: &'a AgentOptions,
        dir: RunDir,
        sink: &'a mut dyn EventSink,
    ) -> Self {
        Self {
            task,
            eco,
            model,
            opts,
            dir,
            sink,
            registry: ToolRegistry::new(),
            stages: eco.stages(),
            records: Vec::new(),
            recipes: BTreeMap::new(),
            history: Vec::new(),
            total: Tally::default(),
            current: Tally::default(),
            call_seq: 0,
            accepted: None,
            base: None,
            broken_log: false,
            no_progress: 0,
            last_answer: LastAnswer::default(),
        }
    }

    /// Traces and forwards one event.
    pub fn emit(&mut self, event: AgentEvent) -> Result<(), Stop> {
        let traced = self.dir.trace(&event);
        self.sink.event(&event);
        traced.map_err(Stop::Io)
    }

    pub fn check_cancel(&self) -> Result<(), Stop> {
        if self.opts.cancel.is_cancelled() {
            Err(Stop::Cancelled)
        } else {
            Ok(())
        }
    }

    fn build_registry(&mut self) -> Result<(), Stop> {
        if !self.opts.tools {
            return Ok(());
        }
        let mut registry = match RepoRoot::new(&self.task.repo_root) {
            Ok(root) => ToolRegistry::with_repo_tools(root),
            Err(e) => {
                self.emit(AgentEvent::Note {
                    message: format!(
                        "repository tools are off: {} cannot be used ({e})",
                        self.task.repo_root.display()
                    ),
                })?;
                ToolRegistry::new()
            }
        };
        for tool in self.eco.tools() {
            registry.register(tool);
        }
        self.registry = if self.opts.allow_mutating_tools {
            registry
        } else {
            registry.without_mutating()
        };
        Ok(())
    }

    fn execute(&mut self) -> Result<RunReport, AgentError> {
        let outcome = self.main_loop();
        let (status, reason) = match outcome {
            Ok(done) => done,
            Err(Stop::Cancelled) => (RunStatus::Interrupted, "cancelled by the user".to_string()),
            Err(Stop::Budget(m)) => (RunStatus::BudgetExhausted, m),
            Err(Stop::ModelFailed(m)) => (RunStatus::Failed, format!("the model failed: {m}")),
            Err(Stop::Fatal(m)) => (RunStatus::Failed, m),
            Err(Stop::Io(e)) => {
                // Best effort: say so in the report, then surface the error.
                let _ = self.finish(RunStatus::Failed, format!("{e}"));
                return Err(e);
            }
        };
        self.finish(status, reason)
    }

    /// Attempts until success or a limit; returns the status and reason.
    fn main_loop(&mut self) -> Result<(RunStatus, String), Stop> {
        self.emit(AgentEvent::RunStarted {
            name: self.task.name.clone(),
            ecosystem: self.eco.name(),
            model: self.model.id(),
            max_attempts: self.opts.max_attempts,
            stages: self.stages.iter().map(|s| s.name.clone()).collect(),
        })?;
        self.snapshot_report()?;
        self.build_registry()?;
        self.ask_project()?;

        let draft = self.eco.first_draft(self.task);
        let file_name = self.eco.recipe_file_name();
        // The recipe the model's first call completes, and why it failed.
        let mut draft_recipe = Recipe::new(file_name.clone(), "");
        let mut draft_failure: Option<Failure> = None;
        let mut model_drafted = false;

        match draft {
            Ok(recipe) => draft_recipe = recipe,
            Err(e) => {
                self.emit(AgentEvent::Note {
                    message: format!("no deterministic first draft: {e}; the model drafts instead"),
                })?;
                draft_failure = Some(Failure::new("first_draft", "no_draft", e.to_string()));
            }
        }

        loop {
            self.check_cancel()?;
            let n = self.records.len() as u32 + 1;
            if n > self.opts.max_attempts {
                return Ok((
                    RunStatus::AttemptsExhausted,
                    format!("no recipe passed in {} attempts", self.opts.max_attempts),
                ));
            }
            let (kind, base, source) = if n == 1 && draft_failure.is_none() {
                (
                    AttemptKind::Draft,
                    None,
                    Source::Given(draft_recipe.clone()),
                )
            } else if !model_drafted {
                model_drafted = true;
                let failure = self
                    .base
                    .as_ref()
                    .and_then(|b| b.failure.clone())
                    .or_else(|| draft_failure.clone());
                // Complete the latest recipe (a rule-based repair of the
                // draft, or the draft itself).
                let start = self
                    .base
                    .as_ref()
                    .map(|b| b.recipe.clone())
                    .unwrap_or_else(|| draft_recipe.clone());
                let request = self.eco.draft_request(
                    self.task,
                    &start,
                    &self.task.references,
                    failure.as_ref(),
                );
                let base = self.base.as_ref().map(|b| b.attempt);
                (
                    AttemptKind::ModelDraft,
                    base,
                    Source::Ask {
                        request,
                        purpose: CallPurpose::Draft,
                        start,
                    },
                )
            } else {
                let Some(base) = self.base.clone() else {
                    return Err(Stop::Fatal(
                        "internal: a repair without a base attempt".into(),
                    ));
                };
                let failure = base.failure.clone().unwrap_or_else(|| {
                    Failure::new("unknown", "unknown", "the previous attempt did not pass")
                });
                let history = self.history_for(&base);
                let request = self.eco.repair_request(self.task, &history, &failure);
                (
                    AttemptKind::Repair,
                    Some(base.attempt),
                    Source::Ask {
                        request,
                        purpose: CallPurpose::Repair,
                        start: base.recipe.clone(),
                    },
                )
            };

            let passed = self.attempt(n, kind, base, source)?;
            self.snapshot_report()?;
            if passed {
                self.refine()?;
                let best = self.best_attempt().unwrap_or(n);
                return Ok((
                    RunStatus::Succeeded,
                    format!("attempt {best} passed every stage"),
                ));
            }
            if let Some(max) = self.opts.max_no_progress {
                if self.no_progress >= max {
                    return Ok((
                        RunStatus::NoProgress,
                        format!("{max} consecutive attempts without progress"),
                    ));
                }
            }
        }
    }

    /// Adds one attempt's usage to the run's.
    pub fn account(&mut self, usage: Usage, cost: Option<f64>) {
        self.current.usage += usage;
        self.current.cost_usd += cost.unwrap_or(0.0);
        self.current.model_calls += 1;
        self.total.usage += usage;
        self.total.cost_usd += cost.unwrap_or(0.0);
        self.total.model_calls += 1;
    }

    /// The passing attempt, else the one that got furthest (later wins
    /// ties; a static-check failure ranks below a stage failure).
    pub fn best_attempt(&self) -> Option<u32> {
        self.records
            .iter()
            .filter(|r| !r.interrupted || self.recipes.contains_key(&r.attempt))
            .max_by_key(|r| {
                (
                    r.passed && !r.rolled_back,
                    r.stages_passed(),
                    r.stage_reached != crate::ecosystem::STATIC_CHECK,
                    !r.rolled_back,
                    r.attempt,
                )
            })
            .map(|r| r.attempt)
    }

    fn report(&self, status: RunStatus, reason: String) -> RunReport {
        RunReport {
            schema: REPORT_SCHEMA,
            name: self.task.name.clone(),
            ecosystem: self.eco.name(),
            model: self.model.id(),
            status,
            reason,
            stages: self.stages.iter().map(|s| s.name.clone()).collect(),
            attempts: self.records.clone(),
            final_recipe: None,
            best_attempt: self.best_attempt(),
            best_recipe: None,
            model_calls: self.total.model_calls,
            tool_calls: self.total.tool_calls,
            usage: self.total.usage,
            cost_usd: self.total.cost_usd,
            duration_ms: self.dir.elapsed_ms(),
            extras: BTreeMap::new(),
        }
    }

    /// The report as it stands, marked `interrupted`: if the process dies
    /// now, that is the truth.
    fn snapshot_report(&self) -> Result<(), Stop> {
        let report = self.report(
            RunStatus::Interrupted,
            "the run was cut off before it finished (or is still running)".into(),
        );
        self.dir.write_report(&report).map_err(Stop::Io)
    }

    fn finish(&mut self, status: RunStatus, reason: String) -> Result<RunReport, AgentError> {
        let mut report = self.report(status, reason);
        if let Some(best) = report.best_attempt.and_then(|b| self.recipes.get(&b)) {
            if status == RunStatus::Succeeded {
                report.final_recipe = Some(self.dir.write_final(best)?);
            } else {
                report.best_recipe = Some(self.dir.write_best(best)?);
            }
        }
        // The backend's after-run checks add to the report before it is
        // written, once; their progress lines are notes.
        let run_dir = self.dir.path().to_path_buf();
        let (dir, sink) = (&mut self.dir, &mut *self.sink);
        let mut say = |message: &str| {
            let note = AgentEvent::Note {
                message: message.to_string(),
            };
            let _ = dir.trace(&note);
            sink.event(&note);
        };
        self.eco.finish(
            &mut report,
            &mut crate::ecosystem::FinishContext {
                run_dir: &run_dir,
                cancelled: self.opts.cancel.is_cancelled(),
                say: &mut say,
                model: self.model,
            },
        );
        let finished = AgentEvent::RunFinished {
            status,
            attempts: self.records.len() as u32,
            best_attempt: report.best_attempt,
            usage: self.total.usage,
            cost_usd: self.total.cost_usd,
            duration_ms: report.duration_ms,
        };
        let traced = self.dir.trace(&finished);
        self.sink.event(&finished);
        traced?;
        self.dir.write_report(&report)?;
        Ok(report)
    }
}
