//! One attempt: get a recipe, static-check it (repairing within the
//! attempt, bounded), write it, run the stages cheapest first, judge
//! progress, and record everything — also when the run is cut off midway.

use std::time::Instant;

use packsmith_core::chat::{ChatMessage, ChatRequest};

use crate::agent::{Run, Source, Stop, Tally};
use crate::ecosystem::{
    AttemptDir, AttemptSnapshot, Diagnostic, Failure, ProgressCheck, ProgressInput,
    ProgressVerdict, Recipe, Severity, StageOutcome, StageSpec, MAX_AUTO_FIXES, STATIC_CHECK,
};
use crate::events::{AgentEvent, CallPurpose};
use crate::history::{compact_diff, AttemptHistory, AttemptKind, HistoryEntry};
use crate::report::{AttemptRecord, StageRecord};
use crate::rundir::AttemptDiagnosis;

/// The failure class of a recipe identical to the one it repairs.
const UNCHANGED: &str = "unchanged";

/// Sent when the model answered with the very recipe that failed.
/// What an attempt has produced so far.
struct Progress {
    recipe: Option<Recipe>,
    recipe_path: String,
    diagnostics: Vec<Diagnostic>,
    static_repairs: u32,
    stages: Vec<StageRecord>,
    failure: Option<Failure>,
    verdict: Option<ProgressVerdict>,
    rolled_back: bool,
    /// The structured job whose answer made the recipe (its schema's name).
    job: Option<String>,
}

impl Run<'_> {
    /// The history a repair of `base` carries.
    pub(crate) fn history_for(&self, base: &AttemptSnapshot) -> AttemptHistory {
        AttemptHistory {
            current: base.recipe.clone(),
            current_attempt: base.attempt,
            entries: self.history.clone(),
            broken_log: self.broken_log,
        }
    }

    /// Runs attempt `n`; true when it passed every stage.
    pub(crate) fn attempt(
        &mut self,
        n: u32,
        kind: AttemptKind,
        base: Option<u32>,
        source: Source,
    ) -> Result<bool, Stop> {
        let started = Instant::now();
        // A refinement's evaluator call is already accounted to it.
        if kind != AttemptKind::Refine {
            self.current = Tally::default();
            self.call_seq = 0;
        }
        self.emit(AgentEvent::AttemptStarted {
            attempt: n,
            kind,
            base,
        })?;
        let mut p = Progress {
            recipe: None,
            recipe_path: String::new(),
            diagnostics: Vec::new(),
            static_repairs: 0,
            stages: Vec::new(),
            failure: None,
            verdict: None,
            rolled_back: false,
            job: None,
        };
        let before = match &source {
            Source::Given(_) => String::new(),
            Source::Ask { start, .. } => start.text.clone(),
        };
        // A structured answer names its job by its schema (`recipe_edits`,
        // `pick_package`); a free rewrite or the draft has none.
        p.job = match &source {
            Source::Given(_) => None,
            Source::Ask { request, .. } => request.output_schema.as_ref().map(|s| s.name.clone()),
        };
        let outcome = self.attempt_steps(n, kind, base, source, &mut p);
        let interrupted = outcome.is_err();
        if p.recipe.is_some() {
            self.record(n, kind, base, &before, p, interrupted, started)?;
        }
        outcome
    }

    /// One model turn; when the answer is the recipe it was asked to change,
    /// once more with the answer quoted back, a plain request for a change
    /// and a higher temperature (small models often echo their input, and
    /// validating an unchanged recipe wastes an attempt).
    fn ask_for_a_change(
        &mut self,
        n: u32,
        request: ChatRequest,
        purpose: CallPurpose,
        start: &Recipe,
    ) -> Result<Recipe, Stop> {
        let first = self.turn(n, request.clone(), purpose, start)?;
        let echoed =
            !start.text.trim().is_empty() && first.text.trim_end() == start.text.trim_end();
        if !echoed {
            return Ok(first);
        }
        // A refused answer already has its note; saying "unchanged" of it
        // would count it twice and misname it.
        let message = match &self.last_answer.error {
            Some(_) => format!("attempt {n}: asking again with the reason"),
            None => format!("attempt {n}: the model returned the recipe unchanged; asking again"),
        };
        self.emit(AgentEvent::Note { message })?;
        let mut again = request;
        // The answer as given (a recipe, or an edit list), and why it
        // changed nothing: a re-ask is never the identical request.
        let nudge = match &self.last_answer.error {
            Some(error) => format!(
                "That answer could not be used: {error}. {}",
                self.eco.unchanged_nudge()
            ),
            None => self.eco.unchanged_nudge(),
        };
        again
            .messages
            .push(ChatMessage::assistant(self.last_answer.raw.clone()));
        again.messages.push(ChatMessage::user(nudge));
        again.temperature = Some(again.temperature.unwrap_or(0.0).max(0.7));
        self.turn(n, again, purpose, start)
    }

    /// The steps of one attempt; what they produce goes into `p` as it
    /// comes, so a run cut off midway still records it.
    fn attempt_steps(
        &mut self,
        n: u32,
        kind: AttemptKind,
        base: Option<u32>,
        source: Source,
        p: &mut Progress,
    ) -> Result<bool, Stop> {
        let recipe = match source {
            Source::Given(r) => r,
            Source::Ask {
                request,
                purpose,
                start,
            } => self.ask_for_a_change(n, request, purpose, &start)?,
        };
        p.recipe = Some(recipe.clone());
        let recipe = self.static_check_rounds(n, kind, recipe, p)?;
        p.recipe_path = self.dir.write_recipe(n, &recipe).map_err(Stop::Io)?;
        if p.failure.is_none() {
            p.failure = self.unchanged_failure(kind, base, &recipe);
        }
        let recipe = match p.failure {
            Some(_) => recipe,
            None => self.validate(n, recipe, p)?,
        };
        if p.failure.is_none() {
            return Ok(true);
        }
        self.judge(n, kind, &recipe, p)?;
        Ok(false)
    }

    /// Static check; errors go back to the model without any stage run,
    /// at most `max_static_repairs` times (never for the first draft).
    /// Returns the last recipe; a check still failing is `p.failure`.
    fn static_check_rounds(
        &mut self,
        n: u32,
        kind: AttemptKind,
        mut recipe: Recipe,
        p: &mut Progress,
    ) -> Result<Recipe, Stop> {
        let mut round = 0;
        let mut rule_fixes = 0;
        loop {
            let diagnostics = self.eco.static_check(&recipe);
            let errors = diagnostics.iter().filter(|d| d.is_error()).count();
            let warnings = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Warning)
                .count();
            self.emit(AgentEvent::StaticCheck {
                attempt: n,
                round,
                errors,
                warnings,
            })?;
            p.diagnostics = diagnostics.clone();
            if errors == 0 {
                return Ok(recipe);
            }
            // A fix by rule first: it costs no model call.
            if rule_fixes < MAX_AUTO_FIXES {
                let failure = Failure::from_diagnostics(diagnostics.clone());
                if let Some(fixed) = self.apply_auto_fix(n, &recipe, &failure, p)? {
                    rule_fixes += 1;
                    recipe = fixed;
                    continue;
                }
            }
            if kind == AttemptKind::Draft || round >= self.opts.max_static_repairs {
                p.failure = Some(Failure::from_diagnostics(diagnostics));
                return Ok(recipe);
            }
            round += 1;
            p.static_repairs = round;
            let failure = Failure::from_diagnostics(diagnostics);
            let history = AttemptHistory {
                current: recipe.clone(),
                current_attempt: 0,
                entries: self.history.clone(),
                broken_log: self.broken_log,
            };
            let request = self.eco.repair_request(self.task, &history, &failure);
            recipe = self.turn(n, request, CallPurpose::StaticRepair, &recipe)?;
            p.recipe = Some(recipe.clone());
        }
    }

    /// A recipe identical to the one it repairs would fail its stages the
    /// same way: the failure to record instead of running them (refinements
    /// excepted).
    fn unchanged_failure(
        &self,
        kind: AttemptKind,
        base: Option<u32>,
        recipe: &Recipe,
    ) -> Option<Failure> {
        if kind == AttemptKind::Refine {
            return None;
        }
        let b = self.records.iter().find(|r| Some(r.attempt) == base)?;
        let same = self
            .recipes
            .get(&b.attempt)
            .is_some_and(|r| r.text.trim_end() == recipe.text.trim_end());
        let f = b.failure.as_ref().filter(|_| same)?;
        let mut failure = f.clone();
        // An echo of an echo keeps the excerpt naming the attempt whose
        // stages ran, instead of nesting.
        if f.class != UNCHANGED {
            failure.class = UNCHANGED.into();
            // The backend's typed account and the error stay: the same
            // recipe fails the same way, and the next repair needs what it
            // would hit again (the edits a failure's class offers, the
            // source lines its error names).
            failure.excerpt = format!(
                "the recipe is identical to attempt {}, which failed at {} [{}]: {}\n{}",
                b.attempt,
                f.stage,
                f.class,
                f.headline(),
                f.excerpt
            );
        }
        Some(failure)
    }

    /// The stages cheapest first, stopping at the first failure; a failure
    /// the backend fixes by rule runs every stage again on the fixed
    /// recipe (at most [`MAX_AUTO_FIXES`] times). Returns the last recipe.
    fn validate(&mut self, n: u32, mut recipe: Recipe, p: &mut Progress) -> Result<Recipe, Stop> {
        let dir = self.dir.attempt_dir(n).map_err(Stop::Io)?;
        let mut auto_fixes = 0;
        'run: loop {
            for stage in self.stages.clone() {
                let (amended, failure) = self.run_one_stage(n, &stage, &recipe, &dir, p)?;
                if let Some(amended) = amended {
                    recipe = amended;
                }
                let Some(f) = failure else {
                    continue;
                };
                if auto_fixes < MAX_AUTO_FIXES {
                    if let Some(fixed) = self.apply_auto_fix(n, &recipe, &f, p)? {
                        auto_fixes += 1;
                        recipe = fixed;
                        continue 'run;
                    }
                }
                p.failure = Some(f);
                break 'run;
            }
            break;
        }
        Ok(recipe)
    }

    /// Runs one stage, emits and records it: the recipe as the stage
    /// amended it (now the attempt's recipe), and its failure, if it failed.
    fn run_one_stage(
        &mut self,
        n: u32,
        stage: &StageSpec,
        recipe: &Recipe,
        dir: &AttemptDir,
        p: &mut Progress,
    ) -> Result<(Option<Recipe>, Option<Failure>), Stop> {
        self.check_cancel()?;
        self.emit(AgentEvent::StageStarted {
            attempt: n,
            stage: stage.name.clone(),
        })?;
        let stage_started = Instant::now();
        let outcome = self.eco.run_stage(stage, recipe, dir);
        // Ctrl-C killed the stage's command: the stage is cancelled, not a
        // failure of the recipe, and the attempt ends here.
        if self.opts.cancel.is_cancelled() && !outcome.as_ref().is_ok_and(|o| o.passed) {
            return Err(self.stage_cancelled(n, &stage.name, outcome.ok(), stage_started, p));
        }
        let outcome =
            outcome.map_err(|e| Stop::Fatal(format!("stage {} could not run: {e}", stage.name)))?;
        let log_path = outcome.log_path.as_ref().map(|l| self.dir.relative(l));
        let failure = (!outcome.passed).then(|| {
            let mut f = outcome
                .failure
                .clone()
                .unwrap_or_else(|| Failure::new(&stage.name, "unclassified", "the stage failed"));
            if f.log_path.is_none() {
                f.log_path = outcome.log_path.clone();
            }
            f
        });
        self.emit(AgentEvent::StageFinished {
            attempt: n,
            stage: stage.name.clone(),
            passed: outcome.passed,
            duration_ms: outcome.duration_ms,
            failure_class: failure.as_ref().map(|f| f.class.clone()),
            log_path: log_path.clone(),
        })?;
        p.stages.push(StageRecord {
            name: stage.name.clone(),
            passed: outcome.passed,
            cancelled: false,
            duration_ms: outcome.duration_ms,
            log_path,
        });
        let amended = outcome.amended.filter(|a| a.text != recipe.text);
        if let Some(a) = &amended {
            self.emit(AgentEvent::Note {
                message: format!("attempt {n}: the {} stage amended the recipe", stage.name),
            })?;
            p.recipe = Some(a.clone());
            p.recipe_path = self.dir.write_recipe(n, a).map_err(Stop::Io)?;
        }
        Ok((amended, failure))
    }

    /// The backend's fix by rule for `failure`, if it has one: noted,
    /// written as the attempt's recipe, and the stage records cleared for
    /// the run on the fixed recipe.
    fn apply_auto_fix(
        &mut self,
        n: u32,
        recipe: &Recipe,
        failure: &Failure,
        p: &mut Progress,
    ) -> Result<Option<Recipe>, Stop> {
        let Some((fixed, note)) = self.eco.auto_fix(recipe, failure) else {
            return Ok(None);
        };
        self.emit(AgentEvent::Note {
            message: format!("attempt {n}: {note}"),
        })?;
        p.recipe = Some(fixed.clone());
        p.recipe_path = self.dir.write_recipe(n, &fixed).map_err(Stop::Io)?;
        p.stages.clear();
        Ok(Some(fixed))
    }

    /// Records `stage` as cancelled; the stop that ends the run as
    /// interrupted.
    fn stage_cancelled(
        &mut self,
        n: u32,
        stage: &str,
        outcome: Option<StageOutcome>,
        started: Instant,
        p: &mut Progress,
    ) -> Stop {
        let duration_ms = outcome
            .as_ref()
            .map_or_else(|| started.elapsed().as_millis() as u64, |o| o.duration_ms);
        p.stages.push(StageRecord {
            name: stage.to_string(),
            passed: false,
            cancelled: true,
            duration_ms,
            log_path: outcome
                .and_then(|o| o.log_path)
                .map(|l| self.dir.relative(&l)),
        });
        match self.emit(AgentEvent::Note {
            message: format!("attempt {n}: {stage} cancelled by the user"),
        }) {
            Ok(()) => Stop::Cancelled,
            Err(stop) => stop,
        }
    }

    /// The progress check and what follows from it: which recipe the next
    /// repair starts from, and whether this attempt is rolled back.
    fn judge(
        &mut self,
        n: u32,
        kind: AttemptKind,
        recipe: &Recipe,
        p: &mut Progress,
    ) -> Result<(), Stop> {
        if kind == AttemptKind::Refine {
            return Ok(());
        }
        let candidate = AttemptSnapshot {
            attempt: n,
            recipe: recipe.clone(),
            failure: p.failure.clone(),
            stages_passed: p.stages.iter().filter(|s| s.passed).count(),
        };
        let input = ProgressInput {
            accepted: self.accepted.clone(),
            candidate: candidate.clone(),
        };
        let judged = match self.eco.progress_check(&input) {
            ProgressCheck::Skip => None,
            ProgressCheck::Decided { verdict, reason } => Some((verdict, reason)),
            ProgressCheck::AskModel(request) => {
                let answer = self.call_model(n, &request, CallPurpose::Progress)?;
                match self.eco.parse_progress(&answer.content) {
                    Some(v) => Some((v, "judged by the model".to_string())),
                    None => Some((
                        ProgressVerdict::Progress,
                        "the model's verdict could not be read; accepted".to_string(),
                    )),
                }
            }
        };
        let Some((verdict, reason)) = judged else {
            self.base = Some(candidate);
            return Ok(());
        };
        let against = self.accepted.as_ref().map(|a| a.attempt);
        let effective = match verdict {
            // A log that became readable counts as progress.
            ProgressVerdict::Stagnation if self.broken_log => ProgressVerdict::Progress,
            v => v,
        };
        match effective {
            ProgressVerdict::Progress => {
                self.accepted = Some(candidate.clone());
                self.base = Some(candidate);
                self.no_progress = 0;
                self.broken_log = false;
            }
            ProgressVerdict::BrokenLog => {
                self.base = Some(candidate);
                self.broken_log = true;
            }
            ProgressVerdict::Regress | ProgressVerdict::Stagnation => {
                self.no_progress += 1;
                match self.accepted.clone() {
                    Some(accepted) => {
                        p.rolled_back = true;
                        self.base = Some(accepted);
                    }
                    None => self.base = Some(candidate),
                }
            }
        }
        p.verdict = Some(verdict);
        self.emit(AgentEvent::Progress {
            attempt: n,
            verdict,
            against,
            rolled_back: p.rolled_back,
            reason,
        })
    }

    /// Writes the attempt's record, diagnosis and history entry.
    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        n: u32,
        kind: AttemptKind,
        base: Option<u32>,
        before: &str,
        p: Progress,
        interrupted: bool,
        started: Instant,
    ) -> Result<(), Stop> {
        let Some(recipe) = p.recipe else {
            return Ok(());
        };
        let recipe_path = if p.recipe_path.is_empty() {
            self.dir.write_recipe(n, &recipe).map_err(Stop::Io)?
        } else {
            p.recipe_path
        };
        let passed = !interrupted && p.failure.is_none();
        let stage_reached = match (&p.failure, p.stages.last()) {
            (Some(f), _) => f.stage.clone(),
            (None, Some(s)) => s.name.clone(),
            (None, None) => STATIC_CHECK.to_string(),
        };
        let record = AttemptRecord {
            attempt: n,
            kind,
            base,
            recipe_path,
            static_repairs: p.static_repairs,
            stages: p.stages,
            passed,
            stage_reached: stage_reached.clone(),
            failure: p.failure.clone().map(|mut f| {
                // The report names logs relative to the run directory.
                f.log_path = f
                    .log_path
                    .map(|l| std::path::PathBuf::from(self.dir.relative(&l)));
                f
            }),
            verdict: p.verdict,
            rolled_back: p.rolled_back,
            job: p.job,
            interrupted,
            model_calls: self.current.model_calls,
            tool_calls: self.current.tool_calls,
            usage: self.current.usage,
            cost_usd: self.current.cost_usd,
            duration_ms: started.elapsed().as_millis() as u64,
        };
        self.dir
            .write_diagnosis(&AttemptDiagnosis {
                record: record.clone(),
                diagnostics: p.diagnostics,
            })
            .map_err(Stop::Io)?;
        let change = match kind {
            AttemptKind::Draft => "(deterministic first draft)".to_string(),
            _ => compact_diff(before, &recipe.text),
        };
        self.history.push(HistoryEntry {
            attempt: n,
            kind,
            base,
            change,
            stage: if passed {
                "passed".into()
            } else {
                stage_reached.clone()
            },
            failure_class: p.failure.as_ref().map(|f| f.class.clone()),
            failure_line: p.failure.as_ref().map(|f| f.headline()).unwrap_or_default(),
            verdict: p.verdict,
            rolled_back: p.rolled_back,
        });
        self.recipes.insert(n, recipe);
        self.records.push(record);
        let finished = AgentEvent::AttemptFinished {
            attempt: n,
            passed,
            stage: stage_reached,
            failure_class: p.failure.map(|f| f.class),
            duration_ms: started.elapsed().as_millis() as u64,
            usage: self.current.usage,
            cost_usd: self.current.cost_usd,
        };
        self.emit(finished)
    }
}
