//! A fake ecosystem whose behaviour is written in the recipe text:
//! `SYNTAX` fails the static check, `LOADFAIL` fails the `load` stage,
//! `WORKS` passes `build` (anything else fails it), `FATAL` makes a stage
//! unable to run; `FIXABLE` is turned into `WORKS` by `auto_fix` (and
//! `UNFIXABLE` into itself, for the bound on auto-fixes). Prompts are plain text the tests can assert on.
//! Like a real backend, it names its stages with its own type
//! ([`FakeStage`], carried in `StageSpec::detail`) and attaches the failed
//! stage to each failure, which `auto_fix` reads back.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use packsmith_agent::*;
use packsmith_core::chat::{ChatMessage, ChatRequest, ToolSpec};
use serde_json::{json, Value};

/// The fake's own stage type: the loop carries it, never reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FakeStage {
    Load,
    Build,
}

type ProgressHook = Box<dyn Fn(&ProgressInput) -> ProgressCheck + Send + Sync>;

pub struct Fake {
    pub draft: Result<String, String>,
    pub stage_runs: Mutex<Vec<(String, String)>>,
    pub stage_delay: Duration,
    pub progress: Option<ProgressHook>,
    pub refine: bool,
    pub edit_tool: bool,
    /// Ask the project question; an answer containing `USE WORKS` makes
    /// the first draft `WORKS`.
    pub project: bool,
    pub project_answer: Mutex<Option<String>>,
}

impl Fake {
    pub fn new(draft: &str) -> Self {
        Self {
            draft: Ok(draft.to_string()),
            stage_runs: Mutex::default(),
            stage_delay: Duration::ZERO,
            progress: None,
            refine: false,
            edit_tool: false,
            project: false,
            project_answer: Mutex::default(),
        }
    }

    /// (stage, recipe text) of every stage run.
    pub fn runs(&self) -> Vec<(String, String)> {
        self.stage_runs.lock().unwrap().clone()
    }
}

pub fn task(name: &str, repo: PathBuf) -> Task {
    Task {
        name: name.into(),
        repo_root: repo,
        version: Some("1.0".into()),
        references: References::default(),
        context: Value::Null,
    }
}

/// The text of a request's last user message.
pub fn last_user(request: &ChatRequest) -> String {
    request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == packsmith_core::chat::Role::User)
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

impl Ecosystem for Fake {
    fn name(&self) -> String {
        "fake".into()
    }

    fn recipe_file_name(&self) -> String {
        "package.fake".into()
    }

    fn project_request(&self, task: &Task) -> Option<ChatRequest> {
        self.project.then(|| {
            ChatRequest::new(
                None,
                vec![ChatMessage::user(format!("PROJECT {}", task.name))],
            )
        })
    }

    fn accept_project_answer(&self, answer: &str) -> Option<String> {
        *self.project_answer.lock().unwrap() = Some(answer.to_string());
        Some(format!("project answer: {} characters", answer.len()))
    }

    fn first_draft(&self, _task: &Task) -> Result<Recipe, EcosystemError> {
        let answer = self.project_answer.lock().unwrap().clone();
        if answer.is_some_and(|a| a.contains("USE WORKS")) {
            return Ok(Recipe::new("package.fake", "WORKS"));
        }
        match &self.draft {
            Ok(text) => Ok(Recipe::new("package.fake", text.clone())),
            Err(e) => Err(EcosystemError::new(e.clone())),
        }
    }

    fn draft_request(
        &self,
        task: &Task,
        draft: &Recipe,
        _references: &References,
        failure: Option<&Failure>,
    ) -> ChatRequest {
        let failure = failure
            .map(|f| format!("{} {}: {}", f.stage, f.class, f.excerpt))
            .unwrap_or_default();
        ChatRequest::new(
            Some("draft".into()),
            vec![ChatMessage::user(format!(
                "DRAFT {}\n{}\nFAILURE: {failure}",
                task.name, draft.text
            ))],
        )
    }

    fn repair_request(
        &self,
        _task: &Task,
        history: &AttemptHistory,
        failure: &Failure,
    ) -> ChatRequest {
        ChatRequest::new(
            Some("repair".into()),
            vec![ChatMessage::user(format!(
                "REPAIR\nCURRENT #{}:\n{}\nFAILURE {} {}: {}\n{}HISTORY:\n{}",
                history.current_attempt,
                history.current.text,
                failure.stage,
                failure.class,
                failure.excerpt,
                if history.broken_log {
                    "BROKEN LOG\n"
                } else {
                    ""
                },
                history.render_compact(10)
            ))],
        )
    }

    fn static_check(&self, recipe: &Recipe) -> Vec<Diagnostic> {
        if recipe.text.contains("SYNTAX") {
            // (`RULESYNTAX` too: a rule fixes that one.)
            vec![Diagnostic {
                severity: Severity::Error,
                code: "syntax".into(),
                message: "invalid syntax".into(),
                line: Some(1),
            }]
        } else {
            vec![]
        }
    }

    fn stages(&self) -> Vec<StageSpec> {
        vec![
            StageSpec::new("load", 5).with_detail(FakeStage::Load),
            StageSpec::new("build", 60).with_detail(FakeStage::Build),
        ]
    }

    fn run_stage(
        &self,
        stage: &StageSpec,
        recipe: &Recipe,
        dir: &AttemptDir,
    ) -> Result<StageOutcome, EcosystemError> {
        self.stage_runs
            .lock()
            .unwrap()
            .push((stage.name.clone(), recipe.text.clone()));
        let Some(&which) = stage.detail.get::<FakeStage>() else {
            return Err(EcosystemError::new("a stage the fake did not list"));
        };
        std::thread::sleep(self.stage_delay);
        if recipe.text.contains("FATAL") {
            return Err(EcosystemError::new("the sandbox could not be set up"));
        }
        let log = dir.log_path(&stage.name);
        std::fs::write(&log, format!("log of {}\n{}", stage.name, recipe.text)).unwrap();
        let fail = |class: &str| StageOutcome {
            passed: false,
            duration_ms: 1,
            log_path: Some(log.clone()),
            failure: Some(
                Failure::new(
                    &stage.name,
                    class,
                    format!("error: {} failed for `{}`", stage.name, recipe.text.trim()),
                )
                .with_detail(which),
            ),
            amended: None,
        };
        // `AMEND`: the load stage appends a line, as a stage that learns
        // something about the recipe from the run does.
        let amended = (which == FakeStage::Load && recipe.text.contains("AMEND"))
            .then(|| Recipe::new(&recipe.file_name, format!("{}# amended\n", recipe.text)))
            .filter(|_| !recipe.text.contains("# amended"));
        Ok(match which {
            FakeStage::Load if recipe.text.contains("LOADFAIL") => fail("load_error"),
            FakeStage::Load if amended.is_some() => StageOutcome {
                passed: true,
                duration_ms: 1,
                log_path: Some(log.clone()),
                failure: None,
                amended,
            },
            FakeStage::Build if !recipe.text.contains("WORKS") => fail("build_error"),
            _ => StageOutcome {
                passed: true,
                duration_ms: 1,
                log_path: Some(log.clone()),
                failure: None,
                amended: None,
            },
        })
    }

    /// `EDIT: a->b` replaces `a` with `b` in the recipe being repaired (a
    /// structured answer); an `a` it lacks is refused.
    fn answer_to_recipe(&self, start: &Recipe, raw: &str) -> Result<String, String> {
        let Some(edit) = raw.trim().strip_prefix("EDIT: ") else {
            return Ok(self.clean_output(raw));
        };
        let (from, to) = edit.split_once("->").ok_or("an edit is `a->b`")?;
        if !start.text.contains(from) {
            return Err(format!("no `{from}` in the recipe"));
        }
        Ok(start.text.replace(from, to))
    }

    fn auto_fix(&self, recipe: &Recipe, failure: &Failure) -> Option<(Recipe, String)> {
        // A static-check failure: `RULESYNTAX` is fixed by rule.
        if failure.stage == STATIC_CHECK {
            return recipe.text.contains("RULESYNTAX").then(|| {
                (
                    Recipe::new(
                        &recipe.file_name,
                        recipe.text.replace("RULESYNTAX", "WORKS"),
                    ),
                    "RULESYNTAX became WORKS".into(),
                )
            });
        }
        // Only its own build failures, read from the typed detail the loop
        // carried from `run_stage`.
        if failure.detail.get::<FakeStage>() != Some(&FakeStage::Build) {
            return None;
        }
        if recipe.text.contains("UNFIXABLE") {
            return Some((recipe.clone(), "fixed nothing".into()));
        }
        recipe.text.contains("FIXABLE").then(|| {
            (
                Recipe::new(&recipe.file_name, recipe.text.replace("FIXABLE", "WORKS")),
                "FIXABLE became WORKS".into(),
            )
        })
    }

    fn tools(&self) -> Vec<Box<dyn Tool>> {
        if self.edit_tool {
            vec![Box::new(SetRecipe)]
        } else {
            vec![]
        }
    }

    fn progress_check(&self, input: &ProgressInput) -> ProgressCheck {
        match &self.progress {
            Some(hook) => hook(input),
            // The trait's default.
            None => ProgressCheck::Skip,
        }
    }

    fn evaluate_request(&self, _task: &Task, recipe: &Recipe, round: u32) -> Option<ChatRequest> {
        self.refine.then(|| {
            ChatRequest::new(
                None,
                vec![ChatMessage::user(format!(
                    "EVALUATE {round}\n{}",
                    recipe.text
                ))],
            )
        })
    }

    fn optimize_request(
        &self,
        _task: &Task,
        recipe: &Recipe,
        feedback: &str,
    ) -> Option<ChatRequest> {
        self.refine.then(|| {
            ChatRequest::new(
                None,
                vec![ChatMessage::user(format!(
                    "OPTIMIZE {feedback}\n{}",
                    recipe.text
                ))],
            )
        })
    }
}

/// A mutating tool: replaces the whole recipe.
pub struct SetRecipe;

impl Tool for SetRecipe {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "set_recipe".into(),
            description: "Replace the recipe".into(),
            parameters: json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
                "additionalProperties": false
            }),
        }
    }

    fn mutating(&self) -> bool {
        true
    }

    fn call(&self, args: &Value, ctx: &mut ToolContext<'_>) -> Result<String, ToolError> {
        ctx.recipe.text = args["text"].as_str().unwrap_or_default().to_string();
        Ok("replaced".into())
    }
}

/// Parses every line of a trace file.
pub fn read_trace(path: &std::path::Path) -> Vec<TraceLine> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<TraceLine>(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}
