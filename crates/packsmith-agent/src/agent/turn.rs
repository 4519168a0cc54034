//! One model turn: a request, the tool rounds it triggers (bounded), and
//! the recipe that comes out of it, cleaned.

use packsmith_core::chat::{ChatMessage, ChatRequest, ChatResponse};
use packsmith_llm::LlmError;
use serde::Serialize;

use crate::agent::{LastAnswer, Run, Stop};
use crate::ecosystem::Recipe;
use crate::events::{AgentEvent, CallPurpose, RequestDigest};
use crate::options::RequestLog;
use crate::text::clip_chars;
use crate::tools::ToolContext;

/// Sent when a turn has used its tool rounds.
pub const TOOLS_SPENT: &str = "You have used every tool call allowed for this turn. Reply now \
    with the complete recipe file and nothing else; do not call tools.";

/// The same, for a question whose answer is not a recipe.
pub const TOOLS_SPENT_ANSWER: &str = "You have used every tool call allowed for this question. \
    Answer now from what you have read; do not call tools.";

#[derive(Serialize)]
struct CallLog<'r> {
    purpose: CallPurpose,
    request: &'r ChatRequest,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<&'r ChatResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl Run<'_> {
    /// One completion, accounted and traced. A spent budget and a failed
    /// model become [`Stop`]s.
    pub(crate) fn call_model(
        &mut self,
        attempt: u32,
        request: &ChatRequest,
        purpose: CallPurpose,
    ) -> Result<ChatResponse, Stop> {
        self.check_cancel()?;
        let digest = RequestDigest::of(request);
        let result = self.model.complete(request);
        self.call_seq += 1;
        if self.opts.request_log == RequestLog::Full {
            let log = CallLog {
                purpose,
                request,
                response: result.as_ref().ok(),
                error: result.as_ref().err().map(ToString::to_string),
            };
            self.dir
                .write_call(attempt, self.call_seq, &log)
                .map_err(Stop::Io)?;
        }
        match result {
            Ok(response) => {
                self.account(response.usage, response.cost_usd);
                self.emit(AgentEvent::ModelCall {
                    attempt,
                    purpose,
                    request: digest,
                    usage: response.usage,
                    latency_ms: response.latency_ms,
                    cost_usd: response.cost_usd,
                    cached: response.cached,
                    tool_calls: response.tool_calls.len(),
                    error: None,
                })?;
                Ok(response)
            }
            Err(error) => {
                self.emit(AgentEvent::ModelCall {
                    attempt,
                    purpose,
                    request: digest,
                    usage: Default::default(),
                    latency_ms: 0,
                    cost_usd: None,
                    cached: false,
                    tool_calls: 0,
                    error: Some(error.to_string()),
                })?;
                Err(match error {
                    LlmError::BudgetExhausted(m) => {
                        Stop::Budget(format!("the budget is spent: {m}"))
                    }
                    LlmError::Cancelled => Stop::Cancelled,
                    other => Stop::ModelFailed(other.to_string()),
                })
            }
        }
    }

    /// Asks for a recipe: runs the model's tool calls until it answers
    /// with text (at most `max_tool_rounds` rounds), then cleans the answer.
    /// When mutating tools changed the recipe, the edited recipe is the
    /// answer; an empty answer leaves `start` unchanged.
    pub(crate) fn turn(
        &mut self,
        attempt: u32,
        request: ChatRequest,
        purpose: CallPurpose,
        start: &Recipe,
    ) -> Result<Recipe, Stop> {
        let mut working = start.clone();
        let (content, edited) =
            self.converse(attempt, request, purpose, &mut working, ToolSet::All)?;
        self.last_answer = LastAnswer {
            raw: content.clone(),
            error: None,
        };
        if edited {
            return Ok(working);
        }
        let cleaned = match self.eco.answer_to_recipe(start, &content) {
            Ok(text) => text,
            Err(error) => {
                // Unusable answers leave the recipe as it was; the caller
                // sees an echo and asks again with the reason.
                self.emit(AgentEvent::Note {
                    message: format!("attempt {attempt}: the answer could not be used: {error}"),
                })?;
                self.last_answer.error = Some(error);
                return Ok(working);
            }
        };
        if cleaned.trim().is_empty() {
            return Ok(working);
        }
        Ok(Recipe::new(start_file_name(start, self), cleaned))
    }

    /// Before the first draft: the backend's question about the project,
    /// answered with the read-only tools. A model that fails here costs a
    /// note, not the run: the draft does not depend on the answer.
    pub(crate) fn ask_project(&mut self) -> Result<(), Stop> {
        let Some(request) = self.eco.project_request(self.task) else {
            return Ok(());
        };
        let mut scratch = Recipe::new(self.eco.recipe_file_name(), "");
        match self.converse(
            0,
            request,
            CallPurpose::Project,
            &mut scratch,
            ToolSet::ReadOnly,
        ) {
            Ok((answer, _)) => {
                if let Some(message) = self.eco.accept_project_answer(&answer) {
                    self.emit(AgentEvent::Note { message })?;
                }
                Ok(())
            }
            Err(Stop::ModelFailed(m)) => self.emit(AgentEvent::Note {
                message: format!("no project summary: the model failed: {m}"),
            }),
            Err(other) => Err(other),
        }
    }

    /// One request and the tool rounds it triggers; returns the final text
    /// and whether a mutating tool changed `working`.
    fn converse(
        &mut self,
        attempt: u32,
        mut request: ChatRequest,
        purpose: CallPurpose,
        working: &mut Recipe,
        tool_set: ToolSet,
    ) -> Result<(String, bool), Stop> {
        let tools_on = self.opts.tools && !self.registry.is_empty();
        if tools_on {
            for spec in self.registry.specs_of(tool_set == ToolSet::ReadOnly) {
                if !request.tools.iter().any(|t| t.name == spec.name) {
                    request.tools.push(spec);
                }
            }
        }
        let mut edited = false;
        let mut round = 0;
        let content = loop {
            let call_purpose = if round == 0 {
                purpose
            } else {
                CallPurpose::ToolRound
            };
            let response = self.call_model(attempt, &request, call_purpose)?;
            if response.tool_calls.is_empty() || !tools_on {
                break response.content;
            }
            if round >= self.opts.max_tool_rounds {
                request.tools.clear();
                request.tool_choice = None;
                request.messages.push(ChatMessage::user(match tool_set {
                    ToolSet::All => TOOLS_SPENT,
                    ToolSet::ReadOnly => TOOLS_SPENT_ANSWER,
                }));
                let last = self.call_model(attempt, &request, CallPurpose::ToolRound)?;
                break last.content;
            }
            round += 1;
            let mut turn = ChatMessage::assistant(response.content.clone());
            turn.tool_calls = response.tool_calls.clone();
            request.messages.push(turn);
            for call in &response.tool_calls {
                self.check_cancel()?;
                let result =
                    if tool_set == ToolSet::ReadOnly && self.registry.is_mutating(&call.name) {
                        crate::tools::ToolResult::refused(format!(
                            "error: `{}` is not available for this question",
                            call.name
                        ))
                    } else {
                        let mut ctx = ToolContext {
                            recipe: &mut *working,
                        };
                        self.registry.dispatch(call, &mut ctx)
                    };
                edited |= result.mutating && !result.is_error;
                self.current.tool_calls += 1;
                self.total.tool_calls += 1;
                self.emit(AgentEvent::ToolCall {
                    attempt,
                    name: call.name.clone(),
                    mutating: result.mutating,
                    ok: !result.is_error,
                    args_chars: call.arguments.chars().count(),
                    output_chars: result.output.chars().count(),
                    duration_ms: result.duration_ms,
                    error: result
                        .is_error
                        .then(|| clip_chars(result.output.lines().next().unwrap_or(""), 200)),
                })?;
                if let Some(fatal) = result.fatal {
                    return Err(Stop::Fatal(format!("tool `{}` failed: {fatal}", call.name)));
                }
                request
                    .messages
                    .push(ChatMessage::tool_result(call.id.clone(), result.output));
            }
        };
        Ok((content, edited))
    }
}

/// Which tools a conversation may use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ToolSet {
    All,
    /// Questions that are not about editing the recipe.
    ReadOnly,
}

fn start_file_name(start: &Recipe, run: &Run<'_>) -> String {
    if start.file_name.is_empty() {
        run.eco.recipe_file_name()
    } else {
        start.file_name.clone()
    }
}
