//! The loop as a stream of events. The CLI prints them, `bench` aggregates
//! them, tests assert on them, and every one is appended to `trace.jsonl`
//! as it happens. Requests are recorded as a digest (message count, size,
//! hash), never with credentials: API keys live inside the model provider
//! and never reach a `ChatRequest`.

use packsmith_core::chat::{ChatRequest, Usage};
use serde::{Deserialize, Serialize};

use crate::ecosystem::ProgressVerdict;
use crate::history::AttemptKind;
use crate::report::RunStatus;
use crate::text::short_hash;

/// Why the loop called the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallPurpose {
    /// The question about the project before the first draft.
    Project,
    Draft,
    Repair,
    StaticRepair,
    /// A follow-up request carrying tool results.
    ToolRound,
    Progress,
    Evaluate,
    Optimize,
}

/// A request, described without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestDigest {
    pub messages: usize,
    /// Characters of system prompt plus all messages.
    pub chars: usize,
    pub tools: usize,
    /// First 16 hex digits of the SHA-256 of the serialized request.
    pub sha256: String,
}

impl RequestDigest {
    pub fn of(request: &ChatRequest) -> Self {
        let chars = request.system.as_ref().map_or(0, |s| s.chars().count())
            + request
                .messages
                .iter()
                .map(|m| m.content.chars().count())
                .sum::<usize>();
        let bytes = serde_json::to_vec(request).unwrap_or_default();
        Self {
            messages: request.messages.len(),
            chars,
            tools: request.tools.len(),
            sha256: short_hash(&bytes),
        }
    }
}

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    RunStarted {
        name: String,
        ecosystem: String,
        model: String,
        max_attempts: u32,
        stages: Vec<String>,
    },
    AttemptStarted {
        attempt: u32,
        kind: AttemptKind,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        base: Option<u32>,
    },
    ModelCall {
        attempt: u32,
        purpose: CallPurpose,
        request: RequestDigest,
        usage: Usage,
        latency_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        cached: bool,
        tool_calls: usize,
        /// Set when the call failed (usage is then zero).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    ToolCall {
        attempt: u32,
        name: String,
        mutating: bool,
        ok: bool,
        args_chars: usize,
        output_chars: usize,
        duration_ms: u64,
        /// The first line of the error sent back to the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    StaticCheck {
        attempt: u32,
        round: u32,
        errors: usize,
        warnings: usize,
    },
    StageStarted {
        attempt: u32,
        stage: String,
    },
    StageFinished {
        attempt: u32,
        stage: String,
        passed: bool,
        duration_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure_class: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log_path: Option<String>,
    },
    Progress {
        attempt: u32,
        verdict: ProgressVerdict,
        /// The accepted attempt it was compared with.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        against: Option<u32>,
        rolled_back: bool,
        reason: String,
    },
    AttemptFinished {
        attempt: u32,
        passed: bool,
        /// The failing stage, or the last stage when it passed.
        stage: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        failure_class: Option<String>,
        duration_ms: u64,
        usage: Usage,
        cost_usd: f64,
    },
    /// Something worth telling the user that is not a failure.
    Note {
        message: String,
    },
    RunFinished {
        status: RunStatus,
        attempts: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        best_attempt: Option<u32>,
        usage: Usage,
        cost_usd: f64,
        duration_ms: u64,
    },
}

/// Receives events as they happen (the CLI's printer, bench, tests).
pub trait EventSink {
    fn event(&mut self, event: &AgentEvent);
}

impl<F: FnMut(&AgentEvent)> EventSink for F {
    fn event(&mut self, event: &AgentEvent) {
        self(event)
    }
}

/// A sink that drops everything.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn event(&mut self, _event: &AgentEvent) {}
}

/// One line of `trace.jsonl`: the event plus its sequence number and time
/// since the run started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceLine {
    pub seq: u64,
    pub t_ms: u64,
    #[serde(flatten)]
    pub event: AgentEvent,
}
