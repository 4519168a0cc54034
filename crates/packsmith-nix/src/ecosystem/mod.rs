//! The Nix backend behind the agent loop's [`Ecosystem`] seam: a first
//! draft from the templates (hash prefetched where possible), the stages
//! evaluate → build against a pinned nixpkgs (or only `parse` without
//! one), trust-on-first-use hash fixes without the model, a Vibenix-style
//! progress judgement, the tools, and refinement with a runtime check.

pub mod analysis;
pub mod checks;
pub mod draft;
mod finish;
pub mod progress;
pub mod project;
pub mod prompts;
pub mod result;
mod review;
pub mod runtime;
pub mod search;
pub mod stages;
pub mod tools;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use packsmith_agent::{
    AttemptDir, AttemptHistory, Diagnostic, Ecosystem, EcosystemError, Failure, FinishContext,
    ProgressCheck, ProgressInput, Recipe, References, RunReport, StageOutcome, StageSpec, Task,
};
use packsmith_core::chat::{ChatMessage, ChatRequest};
use result::NixResult;
use serde_json::json;

use crate::diagnose::Failure as DiagnosedFailure;
use crate::diagnose::NixDiagnosis;
use crate::edit::NixParser;
use crate::runner::{NixConfig, NixRunner, NixpkgsPin};
use crate::templates::CallScope;
use crate::tofu::{fix_hash, HashMismatch};

use self::progress::Judgement;
use self::runtime::{RuntimeCheck, RuntimeConfig};
use self::search::NixpkgsIndex;
use self::stages::NixStage;
use self::tools::{CurrentLog, SharedCheck};

pub use self::draft::{prepare_draft, DraftInput, HashStatus, PreparedDraft};

/// How the backend runs.
#[derive(Debug, Clone)]
pub struct NixSettings {
    pub config: NixConfig,
    /// None: no nixpkgs here; only parsing (and hashes) can be checked.
    pub pin: Option<NixpkgsPin>,
    /// The `callPackage` scope when there is no draft to take it from.
    pub scope: CallScope,
    pub runtime: RuntimeConfig,
    /// Lines of each log in a progress comparison.
    pub compare_lines: usize,
    /// Where nix-locate is (None: `nix-locate` from PATH).
    pub nix_locate: Option<PathBuf>,
    /// Whether the loop offers the model tools (the prompts mention them
    /// only then).
    pub tools_offered: bool,
    /// Ask the model for a project summary (and a builder, when the facts
    /// left it open) before the first draft.
    pub project_question: bool,
}

impl NixSettings {
    pub fn new(config: NixConfig, pin: Option<NixpkgsPin>) -> Self {
        Self {
            config,
            pin,
            scope: CallScope::TopLevel,
            runtime: RuntimeConfig::default(),
            compare_lines: 120,
            nix_locate: None,
            tools_offered: true,
            project_question: true,
        }
    }
}

/// What the backend learnt during the run, for the result file.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Recipe text → its evaluated `.drv`.
    drvs: HashMap<String, String>,
    /// Recipe text → its build outputs.
    outputs: HashMap<String, Vec<String>>,
    /// Recipe texts that built, in order.
    built: Vec<String>,
    /// Every classified failure, oldest first.
    diagnoses: Vec<NixDiagnosis>,
    /// Hash fixes made without the model.
    hash_fixes: Vec<String>,
    /// Recipe text → its runtime check.
    runtime: HashMap<String, RuntimeCheck>,
    /// Why a stage could not run at all (Nix or nixpkgs unusable).
    environment_error: Option<String>,
    /// The model's summary of the project.
    summary: Option<String>,
    /// The draft rendered again with the builder the model picked.
    redraft: Option<PreparedDraft>,
    /// The tree the project question showed, to check the model's
    /// builder pick against its build files.
    repo_root: Option<std::path::PathBuf>,
    /// What the after-run hook wrote to `nix-result.json`, or why it
    /// could not.
    finished: Option<Result<NixResult, String>>,
}

/// The Nix [`Ecosystem`].
pub struct NixEcosystem {
    pub(crate) settings: NixSettings,
    pub(crate) runner: NixRunner,
    pub(crate) parser: SharedCheck,
    draft: Result<PreparedDraft, String>,
    /// The repository analysis, as text for the prompts.
    facts: String,
    /// The analysis itself, for the failure analysis after the loop.
    repo_facts: Option<packsmith_core::RepoFacts>,
    current_log: CurrentLog,
    index: Option<Arc<NixpkgsIndex>>,
    state: Mutex<State>,
}

impl NixEcosystem {
    /// `draft` is the prepared first draft (or why there is none); `facts`
    /// the repository summary the prompts show.
    pub fn new(settings: NixSettings, draft: Result<PreparedDraft, String>, facts: String) -> Self {
        let parser: SharedCheck = Arc::new(NixParser {
            config: settings.config.clone(),
        });
        let index = settings
            .pin
            .clone()
            .map(|pin| Arc::new(NixpkgsIndex::new(pin, settings.config.clone())));
        Self {
            runner: NixRunner::new(settings.config.clone()),
            settings,
            parser,
            draft,
            facts,
            repo_facts: None,
            current_log: CurrentLog::default(),
            index,
            state: Mutex::default(),
        }
    }

    /// The analysis the failure analysis reads after the loop.
    pub fn with_repo_facts(mut self, facts: Option<packsmith_core::RepoFacts>) -> Self {
        self.repo_facts = facts;
        self
    }

    /// What the after-run hook found (`nix-result.json`'s data), once the
    /// loop has finished; why it could not be written otherwise.
    pub fn take_result(&self) -> Result<NixResult, String> {
        self.state()
            .finished
            .take()
            .unwrap_or_else(|| Err("the loop ended without its after-run hook".into()))
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn settings(&self) -> &NixSettings {
        &self.settings
    }

    /// `nix-instantiate --parse` (or the fallback check without Nix).
    pub fn parser_check(&self, text: &str) -> Result<(), String> {
        self.parser.check(text)
    }

    /// Whether recipes are built (a nixpkgs is pinned) or only parsed.
    pub fn builds(&self) -> bool {
        self.settings.pin.is_some()
    }

    /// The build outputs of `recipe`, when it built in this run.
    pub fn outputs_of(&self, recipe: &str) -> Option<Vec<String>> {
        self.state().outputs.get(recipe).cloned()
    }

    /// Every classified failure of the run, oldest first.
    pub fn diagnoses(&self) -> Vec<NixDiagnosis> {
        self.state().diagnoses.clone()
    }

    /// Why a stage could not run at all, when that ended the run.
    pub fn environment_error(&self) -> Option<String> {
        self.state().environment_error.clone()
    }

    /// The hash fixes made without the model, one line each.
    pub fn hash_fixes(&self) -> Vec<String> {
        self.state().hash_fixes.clone()
    }

    /// Runs (once per recipe) the runtime check of a recipe that built.
    pub fn runtime_check(&self, recipe: &str) -> Option<RuntimeCheck> {
        if let Some(c) = self.state().runtime.get(recipe) {
            return Some(c.clone());
        }
        let out = self.outputs_of(recipe)?.into_iter().next()?;
        let check = runtime::run_check(&out, recipe, &self.settings.runtime, &self.settings.config);
        self.state()
            .runtime
            .insert(recipe.to_string(), check.clone());
        Some(check)
    }

    /// The draft the run starts from: the model's builder pick when it
    /// made one, else the prepared draft.
    pub fn current_draft(&self) -> Result<PreparedDraft, String> {
        match &self.state().redraft {
            Some(d) => Ok(d.clone()),
            None => self.draft.clone(),
        }
    }

    /// The model's summary of the project, when it wrote one.
    pub fn project_summary(&self) -> Option<String> {
        self.state().summary.clone()
    }

    /// Which `callPackage` the recipe is evaluated with: the one its
    /// builder is written for, else the settings' (no draft).
    pub(crate) fn call_scope(&self) -> crate::templates::CallScope {
        if let Some(d) = &self.state().redraft {
            return d.call_scope();
        }
        self.draft
            .as_ref()
            .map_or(self.settings.scope, PreparedDraft::call_scope)
    }

    /// The analysis, plus the model's summary once there is one.
    fn facts_text(&self) -> String {
        match self.project_summary() {
            Some(s) => format!(
                "{}\n\nSummary of the project (by the model):\n{s}",
                self.facts
            ),
            None => self.facts.clone(),
        }
    }

    /// The model's `meta.description` for a draft whose description is a
    /// FIXME, kept when the rendered line passes the conventions check
    /// (a short whole phrase, no article, not the package's name). Says
    /// what was done.
    fn accept_description(&self, phrase: &str) -> Option<String> {
        let current = self.current_draft().ok()?;
        if !current.description_left_open() {
            return None;
        }
        let redraft = current.with_description(phrase)?;
        let pname = redraft.input.as_ref().map_or("", |i| i.pname.as_str());
        let findings: Vec<String> = crate::conventions::check(&redraft.text, pname)
            .into_iter()
            .filter(|d| d.code == "meta")
            .map(|d| d.message)
            .collect();
        if !findings.is_empty() {
            return Some(format!(
                "the model's description was not kept ({})",
                findings.join("; ")
            ));
        }
        self.state().redraft = Some(redraft);
        Some("meta.description written by the model".into())
    }

    fn pin_text(&self) -> String {
        match &self.settings.pin {
            Some(NixpkgsPin::Path { path }) => format!("the nixpkgs at {}", path.display()),
            Some(NixpkgsPin::Rev { rev, .. }) => format!("nixpkgs {rev}"),
            None => String::new(),
        }
    }

    fn request(&self, tools: bool, user: String) -> ChatRequest {
        let tools = tools && self.settings.tools_offered;
        let system = prompts::render("system", json!({ "tools": tools }));
        ChatRequest::new(Some(system), vec![ChatMessage::user(user)])
    }

    fn set_current_log(&self, failure: Option<&Failure>) {
        *self
            .current_log
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = failure.and_then(|f| f.log_path.clone());
    }
}

impl Ecosystem for NixEcosystem {
    fn finish(&self, report: &mut RunReport, cx: &mut FinishContext<'_>) {
        let draft = self.current_draft().ok();
        let facts_text = self.facts_text();
        let done = finish::finish(
            &finish::Finish {
                run_dir: cx.run_dir,
                eco: self,
                model: cx.model,
                facts: self.repo_facts.as_ref(),
                facts_text: &facts_text,
                draft: draft.as_ref(),
            },
            report,
        );
        self.state().finished = Some(done);
    }

    fn name(&self) -> String {
        "nix".into()
    }

    fn recipe_file_name(&self) -> String {
        "package.nix".into()
    }

    fn project_request(&self, task: &Task) -> Option<ChatRequest> {
        if !self.settings.project_question {
            return None;
        }
        let ask_builder = self
            .draft
            .as_ref()
            .is_ok_and(PreparedDraft::builder_left_open);
        self.state().repo_root = Some(task.repo_root.clone());
        Some(project::request(&project::ProjectQuestion {
            name: &task.name,
            version: task.version.as_deref(),
            facts: &self.facts,
            repo_root: &task.repo_root,
            ask_builder,
            ask_description: self
                .draft
                .as_ref()
                .is_ok_and(PreparedDraft::description_left_open),
            tools: self.settings.tools_offered,
        }))
    }

    fn accept_project_answer(&self, answer: &str) -> Option<String> {
        let read = project::parse_answer(answer);
        let mut notes = Vec::new();
        if !read.summary.is_empty() {
            notes.push(format!(
                "project summary: {} characters",
                read.summary.len()
            ));
            self.state().summary = Some(read.summary.clone());
        }
        let fallback = self.draft.as_ref().ok().filter(|d| d.builder_left_open());
        let root = self.state().repo_root.clone();
        let fits = |b: crate::Builder| root.as_deref().is_none_or(|r| b.fits_tree(r));
        match (fallback, read.builder, read.unknown_builder) {
            (Some(d), Some(b), _) if b != d.builder && !fits(b) => notes.push(format!(
                "the model chose `{}`, but the tree has no {}; keeping `{}`",
                b.key(),
                b.build_files().join(" or "),
                d.builder.key()
            )),
            (Some(d), Some(b), _) if b != d.builder => {
                if let Some(redraft) = d.with_builder(b, "model") {
                    notes.push(format!("the model chose the `{}` template", b.key()));
                    self.state().redraft = Some(redraft);
                }
            }
            (Some(d), None, Some(other)) => notes.push(format!(
                "the model named `{other}`, which is not a template; keeping `{}`",
                d.builder.key()
            )),
            _ => {}
        }
        // Without the label (small models drop it) the first line of the
        // summary says what the project is: the same check decides.
        let phrase = read
            .description
            .clone()
            .or_else(|| project::first_phrase(&read.summary));
        if let Some(phrase) = phrase {
            notes.extend(self.accept_description(&phrase));
        }
        (!notes.is_empty()).then(|| notes.join("; "))
    }

    fn first_draft(&self, _task: &Task) -> Result<Recipe, EcosystemError> {
        match self.current_draft() {
            Ok(d) => Ok(Recipe::new("package.nix", d.text)),
            Err(e) => Err(EcosystemError::new(e)),
        }
    }

    fn draft_request(
        &self,
        task: &Task,
        draft: &Recipe,
        _references: &References,
        failure: Option<&Failure>,
    ) -> ChatRequest {
        self.set_current_log(failure);
        let builder = self.current_draft().map_or("generic", |d| d.builder.key());
        let user = prompts::render(
            "draft",
            json!({
                "name": task.name, "version": task.version, "pin": self.pin_text(),
                "facts": self.facts_text(), "builder": builder, "draft": draft.text,
                "failure": failure,
            }),
        );
        self.request(true, user)
    }

    fn repair_request(
        &self,
        _task: &Task,
        history: &AttemptHistory,
        failure: &Failure,
    ) -> ChatRequest {
        self.set_current_log(Some(failure));
        let user = prompts::render(
            "repair",
            json!({
                "attempt": history.current_attempt, "recipe": history.current.text,
                "failure": failure, "tools": self.settings.tools_offered,
                "broken_log": history.broken_log,
                "history": history.render_compact(10),
            }),
        );
        self.request(true, user)
    }

    /// The model's recipe without fences, in nixfmt's format when it
    /// parses (one that does not is left for the parse check to explain).
    fn clean_output(&self, raw: &str) -> String {
        crate::format::formatted_or_same(&packsmith_agent::strip_fences(raw))
    }

    fn static_check(&self, recipe: &Recipe) -> Vec<Diagnostic> {
        match self.parser.check(&recipe.text) {
            // nixpkgs' conventions: warnings, for the report and the model.
            Ok(()) => {
                let pname = self
                    .draft
                    .as_ref()
                    .ok()
                    .and_then(|d| d.input.as_ref())
                    .map_or("", |i| i.pname.as_str());
                crate::conventions::check(&recipe.text, pname)
            }
            Err(message) => vec![Diagnostic::error("syntax", message)],
        }
    }

    fn stages(&self) -> Vec<StageSpec> {
        if self.builds() {
            vec![
                NixStage::Evaluate.spec(stages::secs(self.settings.config.eval_timeout)),
                NixStage::Build.spec(stages::secs(self.settings.config.build_timeout)),
            ]
        } else {
            vec![NixStage::Parse.spec(30)]
        }
    }

    fn run_stage(
        &self,
        stage: &StageSpec,
        recipe: &Recipe,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError> {
        let result = NixStage::of(stage).and_then(|which| match which {
            NixStage::Parse => Ok(self.run_parse(&recipe.text)),
            NixStage::Evaluate => self.run_evaluate(&recipe.text, dir),
            NixStage::Build => self.run_build(&recipe.text, dir),
        });
        if let Err(e) = &result {
            self.state().environment_error = Some(e.message.clone());
        }
        result
    }

    fn auto_fix(&self, recipe: &Recipe, failure: &Failure) -> Option<(Recipe, String)> {
        let diagnosed = &stages::diagnosis_of(failure)?.failure;
        if let Some(why) = crate::install_check::failed_because(diagnosed) {
            let fixed = crate::install_check::remove(&recipe.text)?;
            let note = format!("install check dropped: {why}; the recipe has no smoke test now");
            return Some((Recipe::new(recipe.file_name.clone(), fixed), note));
        }
        let DiagnosedFailure::HashMismatch {
            drv,
            specified,
            got,
        } = diagnosed
        else {
            return None;
        };
        let mismatch = HashMismatch {
            drv: drv.clone(),
            specified: specified.clone(),
            got: got.clone(),
        };
        let fix = fix_hash(&recipe.text, &mismatch)?;
        let note = format!(
            "trust on first use: {} on line {} set to {} (was {})",
            fix.attribute, fix.line, fix.new, fix.old
        );
        self.state().hash_fixes.push(note.clone());
        Some((Recipe::new(recipe.file_name.clone(), fix.fixed), note))
    }

    fn tools(&self) -> Vec<Box<dyn packsmith_agent::Tool>> {
        let mut out: Vec<Box<dyn packsmith_agent::Tool>> = vec![
            Box::new(tools::ViewRecipe),
            Box::new(tools::ReplaceInRecipe {
                check: self.parser.clone(),
            }),
            Box::new(tools::InsertInRecipe {
                check: self.parser.clone(),
            }),
            Box::new(tools::ReadBuildLog {
                current: self.current_log.clone(),
            }),
        ];
        if let Some(index) = &self.index {
            out.push(Box::new(tools::SearchNixpkgs {
                index: index.clone(),
            }));
            out.push(Box::new(tools::WhichPackageProvides {
                program: self
                    .settings
                    .nix_locate
                    .clone()
                    .map_or_else(|| "nix-locate".into(), PathBuf::into_os_string),
            }));
        }
        if let Some(NixpkgsPin::Path { path }) = &self.settings.pin {
            if let Ok(root) = packsmith_agent::RepoRoot::new(path) {
                let wrap = |inner: Box<dyn packsmith_agent::Tool>, name: &str, what: &str| {
                    Box::new(tools::Renamed {
                        inner,
                        name: name.into(),
                        description: format!(
                            "{what} in the pinned nixpkgs checkout (paths relative to its root, \
                             e.g. pkgs/by-name/he/hello/package.nix)."
                        ),
                    }) as Box<dyn packsmith_agent::Tool>
                };
                out.push(wrap(
                    Box::new(packsmith_agent::tools::ReadFile::new(root.clone())),
                    "nixpkgs_read_file",
                    "Read a file (numbered lines, paged with start_line)",
                ));
                out.push(wrap(
                    Box::new(packsmith_agent::tools::ListDir::new(root.clone())),
                    "nixpkgs_list_dir",
                    "List a directory",
                ));
                out.push(wrap(
                    Box::new(packsmith_agent::tools::Grep::new(root)),
                    "nixpkgs_grep",
                    "Search file contents with a regular expression",
                ));
            }
        }
        out
    }

    fn progress_check(&self, input: &ProgressInput) -> ProgressCheck {
        match progress::judge(input, self.settings.compare_lines) {
            Judgement::Skip => ProgressCheck::Skip,
            Judgement::Decided(verdict, reason) => ProgressCheck::Decided { verdict, reason },
            Judgement::Compare(cmp) => {
                let user = prompts::render(
                    "progress",
                    json!({
                        "accepted": input.accepted.as_ref().map(|a| a.attempt),
                        "candidate": input.candidate.attempt,
                        "previous": cmp.previous, "new": cmp.new,
                        "previous_at": cmp.previous_diverges_at, "new_at": cmp.new_diverges_at,
                        "truncated": cmp.truncated,
                    }),
                );
                let mut request = ChatRequest::new(
                    Some("You compare two failed Nix build logs and answer with one label.".into()),
                    vec![ChatMessage::user(user)],
                );
                request.temperature = Some(0.0);
                ProgressCheck::AskModel(request)
            }
        }
    }

    fn evaluate_request(&self, task: &Task, recipe: &Recipe, _round: u32) -> Option<ChatRequest> {
        // Refinement needs a real build to check against.
        let runtime = self.runtime_check(&recipe.text)?;
        let _ = task;
        let user = prompts::render(
            "evaluate",
            json!({ "recipe": recipe.text, "facts": self.facts_text(), "runtime": runtime }),
        );
        let mut request = self.request(false, user);
        request.system = Some(
            "You review Nix package expressions for nixpkgs and name the one most useful \
             improvement, or NONE."
                .into(),
        );
        Some(request)
    }

    fn optimize_request(
        &self,
        _task: &Task,
        recipe: &Recipe,
        feedback: &str,
    ) -> Option<ChatRequest> {
        let user = prompts::render(
            "optimize",
            json!({ "recipe": recipe.text, "feedback": feedback }),
        );
        Some(self.request(true, user))
    }
}
