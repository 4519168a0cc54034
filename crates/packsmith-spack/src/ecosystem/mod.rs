//! Spack behind the agent loop's [`Ecosystem`] seam: the deterministic
//! first draft, prompts, the static check, the real Spack stages in the
//! sandbox, failure excerpts, and the knowledge-base tools.

mod autofix;
mod build_config;
mod edit_losses;
mod edit_repair;
mod error;
mod error_lines;
mod finish;
mod hermeticity;
mod output;
mod pick_repair;
mod preprocessor_choice;
mod prompts;
mod recipe_statement;
mod references;
mod smoke;
mod smoke_job;
mod source_walk;
mod stages;
#[cfg(test)]
mod test_brief;
mod tools;
mod variants;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use packsmith_agent::{
    AttemptDir, AttemptHistory, Diagnostic, Ecosystem, EcosystemError, Failure, Recipe, References,
    Severity, StageOutcome, StageSpec, Task, Tool,
};
use packsmith_core::chat::{ChatMessage, ChatRequest};

use crate::diagnose::{diagnose_hermeticity, FailureClass};
use crate::validate::hermetic::run_hermeticity;
use crate::validate::{
    attempt_namespace, run_stage, Attempt, PreparedAttempts, Sandbox, SpackSetup, Stage,
    StageOptions,
};
use hermeticity::HermeticityLog;
use packsmith_spack_draft::brief::SpackBrief;
use packsmith_spack_draft::draft::{render_recipe, render_recipe_with_names, DraftOptions};
use packsmith_spack_knowledge::check::{check_source, CheckOptions};
use packsmith_spack_knowledge::kb::{KnowledgeBase, NameIndex};
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};
use packsmith_spack_knowledge::target::TargetSpack;

pub use autofix::auto_repair_with;
pub use edit_repair::{RepairMode, MAX_EDITS};
pub use finish::AfterRun;
pub use output::{clean_model_output, PinnedFetch};
pub use prompts::PromptReference;
pub use references::{compact_recipe, references_from};
pub use stages::{excerpt_for_model, stage_list};
pub use tools::{CheckRecipe, SharedKb, ShowRecipe, SpackLookup};

/// The recipe file every attempt writes.
pub const RECIPE_FILE: &str = "package.py";

/// A real Spack to validate against.
#[derive(Debug, Clone)]
pub struct Validation {
    pub setup: SpackSetup,
    pub sandbox: Sandbox,
    /// The run's `file://` mirror holding the packed source.
    pub mirror: Option<PathBuf>,
    pub options: StageOptions,
    /// `spack audit packages` as a stage of its own.
    pub audit: bool,
    /// Stop after concretization (no install).
    pub install: bool,
    /// After the install, check what the build took from outside the DAG
    /// (off: `--no-hermeticity-check`).
    pub hermeticity: bool,
    /// After the install, derive a smoke test from the prefix, write it
    /// into the recipe and run it with `spack test run` (off:
    /// `--no-smoke-test`).
    pub smoke: bool,
}

/// How prompts are written.
#[derive(Debug, Clone)]
pub struct PromptSettings {
    /// What the facts section is called (`Facts from the build files`).
    pub facts_title: String,
    /// The brief, the raw facts, or a model's distillation of them.
    pub facts: String,
    /// A budgeted tree of the repository (may be empty).
    pub tree: String,
    /// Lines of each reference recipe shown in the first model prompt.
    pub reference_lines: usize,
    /// Lines of each reference in repair prompts (0: none; a small model's
    /// context is better spent on the error and the recipe).
    pub repair_reference_lines: usize,
    /// Whether the model is offered tools (the system prompt says so).
    pub tools: bool,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
}

impl Default for PromptSettings {
    fn default() -> Self {
        Self {
            facts_title: "Facts from the build files".into(),
            facts: String::new(),
            tree: String::new(),
            reference_lines: 30,
            repair_reference_lines: 0,
            tools: true,
            temperature: Some(0.2),
            max_tokens: Some(1536),
        }
    }
}

/// Spack as a backend of the loop.
pub struct SpackEcosystem {
    brief: SpackBrief,
    /// `None`: no deterministic first draft (`--draft none`, zero-shot).
    draft: Option<DraftOptions>,
    prompts: PromptSettings,
    validation: Validation,
    names: Option<Arc<NameIndex>>,
    kb: Option<SharedKb>,
    /// The attempt whose stages are running, prepared once per recipe.
    prepared: PreparedAttempts,
    /// The hermeticity checks of the run and their repairs.
    hermeticity: HermeticityLog,
    /// How the model repairs, and whether rules try first.
    repair_mode: RepairMode,
    rules: bool,
    /// The rule candidates tried so far in this run.
    rule_log: edit_repair::RuleLog,
    /// The dependency names the model's pick job was asked about.
    pick_log: pick_repair::PickLog,
    /// A recipe to start from instead of the draft (`packsmith repair`).
    start: Option<Recipe>,
    /// The last stage run (`packsmith repair --until`); `None`: all.
    last_stage: Option<Stage>,
    /// The source tree being packaged, which a `filter_file` edit must
    /// name a file of (`None` for `packsmith repair`: no source here).
    source_root: Option<std::path::PathBuf>,
    /// What the run adds to its report after the loop.
    after_run: AfterRun,
    /// The installs whose smoke stage found nothing to test.
    untested: smoke_job::UntestedLog,
}

impl SpackEcosystem {
    /// `brief.fetch` must already carry the URL and checksum of the source
    /// Spack will fetch (see `validate::pack_local_source`).
    pub fn new(brief: SpackBrief, prompts: PromptSettings, validation: Validation) -> Self {
        Self {
            brief,
            draft: Some(DraftOptions::default()),
            prompts,
            validation,
            names: None,
            kb: None,
            prepared: PreparedAttempts::default(),
            hermeticity: HermeticityLog::default(),
            repair_mode: RepairMode::Rewrite,
            rules: true,
            rule_log: edit_repair::RuleLog::default(),
            pick_log: pick_repair::PickLog::default(),
            start: None,
            last_stage: None,
            source_root: None,
            after_run: AfterRun::default(),
            untested: smoke_job::UntestedLog::default(),
        }
    }

    /// The source tree being packaged: a model's `filter_file` edit is
    /// checked against its files before Spack runs.
    /// The after-run checks of a `packsmith spack` run (variant check,
    /// the distillation's usage).
    pub fn with_after_run(mut self, after_run: AfterRun) -> Self {
        self.after_run = after_run;
        self
    }

    pub fn with_source_root(mut self, root: std::path::PathBuf) -> Self {
        self.source_root = Some(root);
        self
    }

    /// Runs the stages up to `last` only (`packsmith repair --until`).
    pub fn with_last_stage(mut self, last: Stage) -> Self {
        self.last_stage = Some(last);
        self
    }

    /// How the model repairs (`--repair-mode`) and whether the rules try
    /// first (`--no-rules` switches every rule-based repair off).
    pub fn with_repair(mut self, mode: RepairMode, rules: bool) -> Self {
        self.repair_mode = mode;
        self.rules = rules;
        self
    }

    /// Starts from `text` instead of the deterministic draft: a recipe to
    /// repair.
    pub fn with_start_recipe(mut self, text: String) -> Self {
        self.start = Some(Recipe::new(RECIPE_FILE, text));
        self
    }

    /// The files beside the recipe given (patches, resources it names by
    /// a relative path), copied next to it into every attempt's package.
    pub fn with_package_files(mut self, dir: PathBuf) -> Self {
        self.prepared = PreparedAttempts::with_package_files(dir);
        self
    }

    fn edit_context(&self) -> edit_repair::EditContext<'_> {
        edit_repair::EditContext {
            package: &self.brief.package,
            spack: self.target(),
            names: self.names.as_deref(),
            source: self.source_root.as_deref(),
        }
    }

    /// Switches the deterministic first draft off (the model writes from
    /// nothing) or sets how it is rendered.
    pub fn with_draft(mut self, draft: Option<DraftOptions>) -> Self {
        self.draft = draft;
        self
    }

    /// The knowledge base: package names for the static check, and the
    /// lookup tools.
    pub fn with_knowledge(mut self, kb: KnowledgeBase) -> Self {
        if let Ok(names) = kb.names() {
            self.names = Some(Arc::new(names));
        }
        self.kb = Some(Arc::new(Mutex::new(kb)));
        self
    }

    pub fn brief(&self) -> &SpackBrief {
        &self.brief
    }

    fn target(&self) -> TargetSpack {
        self.brief.target
    }

    fn system_prompt(&self) -> String {
        prompts::system(&prompts::SystemContext {
            spack: self.target().to_string(),
            spack1: self.target().has_language_virtuals(),
            tools: self.prompts.tools,
        })
    }

    fn request(&self, user: String, seed: u64) -> ChatRequest {
        let mut r = ChatRequest::new(Some(self.system_prompt()), vec![ChatMessage::user(user)]);
        r.temperature = self.prompts.temperature;
        r.max_tokens = self.prompts.max_tokens;
        r.seed = Some(seed);
        r
    }

    fn prompt_references(references: &References, lines: usize) -> Vec<PromptReference> {
        if lines == 0 {
            return Vec::new();
        }
        references
            .items
            .iter()
            .map(|r| PromptReference::from_reference(r, lines))
            .collect()
    }

    fn version(&self) -> Option<&str> {
        self.brief.fetch.version.as_deref()
    }

    /// The overlay of attempt `dir` holding `recipe`: written by the first
    /// stage of the attempt into the attempt's own directory, reused by the
    /// others.
    fn attempt(&self, recipe: &Recipe, dir: &AttemptDir) -> Result<Attempt, EcosystemError> {
        let package = &self.brief.package;
        self.prepared
            .get_or_prepare(
                dir.number(),
                dir.path(),
                &attempt_namespace(package, dir.number()),
                package,
                &recipe.text,
                self.validation.mirror.as_deref(),
            )
            .map_err(|e| EcosystemError::new(e.with_hint()))
    }

    /// What the hermeticity checks found and what was done, for the
    /// report's extras; `None` when no check ran.
    pub fn hermeticity_extra(&self) -> Option<serde_json::Value> {
        let draft_off: Vec<String> = match &self.draft {
            Some(_) => self
                .brief
                .defines
                .iter()
                .filter_map(|d| d.key.strip_prefix("CMAKE_DISABLE_FIND_PACKAGE_"))
                .map(str::to_string)
                .collect(),
            None => Vec::new(),
        };
        self.hermeticity.extra(&draft_off)
    }

    fn spack_names(&self) -> &dyn SpackNames {
        match self.names.as_deref() {
            Some(n) => n,
            None => &NoKnowledge,
        }
    }

    /// The hermeticity stage: the check of the prefix the install stage
    /// left, recorded for the report; a failure carries the typed
    /// diagnosis with every finding.
    fn run_hermeticity_stage(
        &self,
        attempt: &Attempt,
        number: u32,
    ) -> Result<StageOutcome, EcosystemError> {
        let (outcome, report) =
            run_hermeticity(attempt, self.spack_names()).map_err(EcosystemError::from)?;
        let failure =
            diagnose_hermeticity(&report).map(|d| stages::failure_from(d, &outcome.log_path));
        self.hermeticity.record(number, report);
        Ok(StageOutcome {
            passed: outcome.passed,
            duration_ms: outcome.duration.as_millis() as u64,
            log_path: Some(outcome.log_path),
            failure,
            amended: None,
        })
    }

    /// The rules of the failure's class (the hermeticity findings, the
    /// build rules) on a failed Spack stage; `None` for a static failure.
    fn typed_rule_fix(&self, recipe: &Recipe, failure: &Failure) -> Option<(Recipe, String)> {
        let diagnosis = stages::diagnosis_of(failure)?;
        if diagnosis.class == FailureClass::UndeclaredDependency {
            let (fixed, actions) = autofix::repair_undeclared(&recipe.text, diagnosis, &self.brief);
            self.hermeticity.repaired(actions);
            return fixed.map(|(text, why)| (Recipe::new(RECIPE_FILE, text), why));
        }
        if diagnosis.class == FailureClass::MissingBuildConfig {
            let root = self.source_root.as_deref()?;
            let target = diagnosis.names.first()?;
            let tree =
                packsmith_spack_knowledge::recipe::RecipeTree::parse(&recipe.text, RECIPE_FILE);
            let mpi = tree.recipe().dependencies.iter().any(|d| d.name == "mpi");
            let found = build_config::templates(root, target, mpi);
            return build_config::copy_only_template(&recipe.text, &found)
                .map(|(text, why)| (Recipe::new(RECIPE_FILE, text), why));
        }
        let names = self.names.as_deref().map(|n| n as &dyn SpackNames);
        autofix::auto_repair_with(&recipe.text, diagnosis, names)
            .or_else(|| {
                (diagnosis.class == FailureClass::ConfigureDownload)
                    .then(|| autofix::follow_run_tests(&recipe.text, &self.brief))
                    .flatten()
            })
            .map(|(text, why)| (Recipe::new(RECIPE_FILE, text), why))
    }

    /// The model's pick job for a dependency the build missed that no
    /// rule names (needs the knowledge base); `None`: the usual repair.
    fn pick_request(&self, recipe: &Recipe, failure: &Failure) -> Option<ChatRequest> {
        let names = self.names.as_deref()?;
        let kb = self.kb.as_ref()?.lock().ok()?;
        self.pick_log
            .request(&self.brief, names, &kb, &recipe.text, failure)
    }

    /// Attempt `number`'s overlay as its stages left it, when it still
    /// holds `recipe` (the variant check runs in it instead of writing it
    /// again).
    pub fn prepared_attempt(&self, number: u32, recipe: &str) -> Option<Attempt> {
        self.prepared.find(number, recipe)
    }
}

fn severity(s: packsmith_spack_knowledge::check::Severity) -> Severity {
    match s {
        packsmith_spack_knowledge::check::Severity::Error => Severity::Error,
        packsmith_spack_knowledge::check::Severity::Warning => Severity::Warning,
    }
}

impl Ecosystem for SpackEcosystem {
    fn finish(
        &self,
        report: &mut packsmith_agent::RunReport,
        cx: &mut packsmith_agent::FinishContext<'_>,
    ) {
        finish::finish(self, report, cx);
    }

    fn name(&self) -> String {
        "spack".into()
    }

    fn recipe_file_name(&self) -> String {
        RECIPE_FILE.into()
    }

    fn first_draft(&self, _task: &Task) -> Result<Recipe, EcosystemError> {
        if let Some(start) = &self.start {
            return Ok(start.clone());
        }
        match &self.draft {
            // Names the knowledge base lacks are renamed to the package
            // they stand for, or commented out: they never reach Spack.
            Some(options) => Ok(Recipe::new(
                RECIPE_FILE,
                match self.names.as_deref() {
                    Some(names) => render_recipe_with_names(&self.brief, options, names),
                    None => render_recipe(&self.brief, options),
                },
            )),
            None => Err(EcosystemError::new(
                "the deterministic draft is switched off (--draft none)",
            )),
        }
    }

    fn draft_request(
        &self,
        task: &Task,
        draft: &Recipe,
        references: &References,
        failure: Option<&Failure>,
    ) -> ChatRequest {
        // "No draft" is not a failure worth showing to the model.
        let failure = failure.filter(|f| f.class != "no_draft");
        if let (RepairMode::Edits, Some(f), false) =
            (self.repair_mode, failure, draft.text.trim().is_empty())
        {
            return edit_repair::edits_request(&self.edit_context(), &self.rule_log, draft, f, 1);
        }
        let user = prompts::draft(&prompts::DraftContext {
            package: &task.name,
            version: self.version(),
            facts_title: &self.prompts.facts_title,
            facts: &self.prompts.facts,
            tree: &self.prompts.tree,
            references: Self::prompt_references(references, self.prompts.reference_lines),
            draft: &draft.text,
            failure,
        });
        self.request(user, 1)
    }

    fn repair_request(
        &self,
        task: &Task,
        history: &AttemptHistory,
        failure: &Failure,
    ) -> ChatRequest {
        let seed = u64::from(history.current_attempt) + 1;
        if let Some(request) = self.pick_request(&history.current, failure) {
            return request;
        }
        if self.repair_mode == RepairMode::Edits {
            // A new seed per request, also when the base stays the same: a
            // re-ask is never the cached request again.
            let seed = seed + history.entries.len() as u64;
            return edit_repair::edits_request(
                &self.edit_context(),
                &self.rule_log,
                &history.current,
                failure,
                seed,
            );
        }
        let diagnostics = failure
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(Diagnostic::render)
            .collect();
        let user = prompts::repair(&prompts::RepairContext {
            package: &task.name,
            version: self.version(),
            stage: &failure.stage,
            class: &failure.class,
            excerpt: &failure.excerpt,
            diagnostics,
            broken_log: history.broken_log,
            history: history.render_compact(4),
            facts_title: &self.prompts.facts_title,
            facts: &self.prompts.facts,
            references: Self::prompt_references(
                &task.references,
                self.prompts.repair_reference_lines,
            ),
            recipe: &history.current.text,
        });
        self.request(user, seed)
    }

    fn answer_to_recipe(&self, start: &Recipe, raw: &str) -> Result<String, String> {
        if let Some(names) = self.names.as_deref() {
            if let Some(answer) = self.pick_log.answer(&self.brief, names, &start.text, raw) {
                return answer.map(|text| PinnedFetch::of(&self.brief.fetch).apply(&text).0);
            }
        }
        match self.repair_mode {
            RepairMode::Rewrite => Ok(self.clean_output(raw)),
            RepairMode::Edits => {
                let fixed = edit_repair::apply_answer(
                    &self.edit_context(),
                    &self.rule_log,
                    &start.text,
                    raw,
                )?;
                Ok(PinnedFetch::of(&self.brief.fetch).apply(&fixed).0)
            }
        }
    }

    fn unchanged_nudge(&self) -> String {
        match self.repair_mode {
            RepairMode::Rewrite => "That is the same recipe, unchanged, and it fails in the same \
                way. Change the lines that cause the error above and reply with the whole \
                corrected recipe."
                .to_string(),
            RepairMode::Edits => edit_repair::UNCHANGED_EDITS.to_string(),
        }
    }

    fn clean_output(&self, raw: &str) -> String {
        let cleaned = clean_model_output(raw);
        // The fetch the brief pinned (the packed source) is not the
        // model's to change.
        PinnedFetch::of(&self.brief.fetch).apply(&cleaned).0
    }

    fn static_check(&self, recipe: &Recipe) -> Vec<Diagnostic> {
        let opts = CheckOptions {
            spack: self.target(),
            names: self.names.as_deref(),
            package: Some(&self.brief.package),
        };
        check_source(&recipe.text, RECIPE_FILE, &opts)
            .into_iter()
            .map(|d| Diagnostic {
                severity: severity(d.severity),
                code: d.code.slug().to_string(),
                message: d.message,
                line: Some(d.line),
            })
            .collect()
    }

    fn stages(&self) -> Vec<StageSpec> {
        let v = &self.validation;
        let mut list = stage_list(v.audit, v.install, v.hermeticity, v.smoke);
        if let Some(at) = self
            .last_stage
            .and_then(|last| list.iter().position(|s| *s == last))
        {
            list.truncate(at + 1);
        }
        stages::stage_specs(&list, &v.options)
    }

    fn run_stage(
        &self,
        stage: &StageSpec,
        recipe: &Recipe,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError> {
        let which: Stage = stages::stage_of(stage)?;
        let attempt = self.attempt(recipe, dir)?;
        match which {
            Stage::Hermeticity => return self.run_hermeticity_stage(&attempt, dir.number()),
            Stage::Smoke => return self.run_smoke_stage(&attempt, recipe, dir),
            _ => {}
        }
        let v = &self.validation;
        let outcome = run_stage(&v.setup, &v.sandbox, &attempt, which, &v.options)
            .map_err(EcosystemError::from)?;
        stages::to_loop_outcome(&outcome)
    }

    fn auto_fix(&self, recipe: &Recipe, failure: &Failure) -> Option<(Recipe, String)> {
        if !self.rules {
            return None;
        }
        let typed = self.typed_rule_fix(recipe, failure);
        typed.or_else(|| {
            edit_repair::rule_fix(&self.edit_context(), &self.rule_log, &recipe.text, failure)
                .map(|(text, why)| (Recipe::new(RECIPE_FILE, text), why))
        })
    }

    fn tools(&self) -> Vec<Box<dyn Tool>> {
        let mut out: Vec<Box<dyn Tool>> = vec![Box::new(CheckRecipe {
            spack: self.target(),
            names: self.names.clone(),
            package: self.brief.package.clone(),
        })];
        if let Some(kb) = &self.kb {
            out.push(Box::new(SpackLookup {
                kb: kb.clone(),
                target: self.brief.package.clone(),
            }));
            out.push(Box::new(ShowRecipe {
                kb: kb.clone(),
                target: self.brief.package.clone(),
            }));
        }
        out
    }
}
