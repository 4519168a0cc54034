//! A model that replays a script: for unit tests of loop control. Each call
//! takes the next step (a reply or an error) and records the request; a
//! call past the end of the script is an error, never a panic.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use crate::budget::estimate_prompt_tokens;
use crate::{ChatModel, ChatRequest, ChatResponse, FinishReason, LlmError, ToolCall, Usage};

pub enum ScriptStep {
    Reply(ChatResponse),
    Fail(LlmError),
}

pub struct ScriptedModel {
    id: String,
    steps: Mutex<VecDeque<ScriptStep>>,
    requests: Mutex<Vec<ChatRequest>>,
    played: Mutex<usize>,
}

impl ScriptedModel {
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            steps: Mutex::default(),
            requests: Mutex::default(),
            played: Mutex::new(0),
        }
    }

    /// Appends a text answer.
    pub fn text(self, content: impl Into<String>) -> Self {
        let content = content.into();
        self.reply(response(content, Vec::new(), FinishReason::Stop))
    }

    /// Appends an answer that calls one tool with raw `arguments` (which
    /// need not be valid JSON: that is how malformed calls are tested).
    pub fn tool_call(self, name: impl Into<String>, arguments: impl Into<String>) -> Self {
        let n = self
            .steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        let call = ToolCall {
            id: format!("call_{n}"),
            name: name.into(),
            arguments: arguments.into(),
        };
        self.reply(response(String::new(), vec![call], FinishReason::ToolCalls))
    }

    pub fn reply(self, response: ChatResponse) -> Self {
        self.push(ScriptStep::Reply(response))
    }

    pub fn error(self, error: LlmError) -> Self {
        self.push(ScriptStep::Fail(error))
    }

    fn push(self, step: ScriptStep) -> Self {
        self.steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_back(step);
        self
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Steps not yet played.
    pub fn remaining(&self) -> usize {
        self.steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

fn response(
    content: String,
    tool_calls: Vec<ToolCall>,
    finish_reason: FinishReason,
) -> ChatResponse {
    ChatResponse {
        model: "scripted".into(),
        content,
        tool_calls,
        finish_reason,
        usage: Usage::default(),
        latency_ms: 0,
        cost_usd: None,
        cached: false,
    }
}

impl ChatModel for ScriptedModel {
    fn id(&self) -> String {
        self.id.clone()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.clone());
        let step = self
            .steps
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        let mut played = self.played.lock().unwrap_or_else(PoisonError::into_inner);
        *played += 1;
        match step {
            Some(ScriptStep::Reply(mut r)) => {
                // Scripts rarely state usage; estimate it so budgets work.
                if r.usage == Usage::default() {
                    r.usage = Usage {
                        prompt_tokens: estimate_prompt_tokens(request),
                        completion_tokens: (r.content.len()
                            + r.tool_calls
                                .iter()
                                .map(|c| c.arguments.len())
                                .sum::<usize>())
                        .div_ceil(4) as u64,
                        cached_tokens: 0,
                    };
                }
                Ok(r)
            }
            Some(ScriptStep::Fail(e)) => Err(e),
            None => Err(LlmError::BadResponse {
                provider: self.id.clone(),
                message: format!(
                    "the script has no response left for call {} (it had {})",
                    *played,
                    *played - 1
                ),
            }),
        }
    }
}
