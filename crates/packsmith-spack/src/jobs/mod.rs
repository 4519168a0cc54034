//! The model's small jobs: each asks one checkable question (a few tokens
//! out, under a grammar) where the rules have no certain answer, and checks
//! the answer before it is used.
//!
//! - `pick_package`: the Spack package for a dependency name no rule maps,
//!   from the knowledge base's candidates (`packsmith kb pick`, and the
//!   repair of a `missing_dependency` in `ecosystem/pick_repair`).
//! - `unresolved`: every such name a brief left out, with its candidates
//!   and picks.
//! - `explain_failure`: a failure's class and cause from its log, reduced
//!   (`diagnose::reduce_log`) or whole; `log_diagnosis` puts it beside the
//!   rules' verdict (`packsmith diagnose`).
//! - `smoke_test`: a smoke test where the deterministic one found nothing
//!   to run, checked on the installed prefix (`ecosystem/smoke_job`).

pub mod explain_failure;
pub mod log_diagnosis;
pub mod pick_package;
pub mod smoke_test;
pub mod unresolved;

pub use explain_failure::{explain_failure, Explanation};
pub use log_diagnosis::{diagnose_log, LogDiagnosis, LogView};
pub use pick_package::{pick_package, Pick, PickQuestion};
pub use smoke_test::{write_smoke_test, CheckSite, SmokeAnswer, SmokeChoice, SmokeQuestion};
pub use unresolved::{unresolved_picks, JobError, UnresolvedPick};

use std::time::Instant;

use packsmith_agent::untrusted::SYSTEM_RULE;
use packsmith_core::chat::{ChatMessage, ChatRequest, OutputSchema, Usage};
use packsmith_llm::{ChatModel, LlmError};

/// A job's request: its system prompt with the rule on fenced data, one
/// user message, the answer's schema (a grammar for a local model), no
/// sampling, and room for `max_tokens` only.
fn job_request(
    system: &str,
    user: String,
    schema_name: &str,
    schema: serde_json::Value,
    max_tokens: u32,
) -> ChatRequest {
    let mut req = ChatRequest::new(
        Some(format!("{system}\n{SYSTEM_RULE}")),
        vec![ChatMessage::user(user)],
    );
    req.output_schema = Some(OutputSchema {
        name: schema_name.into(),
        schema,
    });
    req.temperature = Some(0.0);
    req.max_tokens = Some(max_tokens);
    req
}

/// A job's answer, trimmed, with what it cost.
struct Answer {
    text: String,
    usage: Usage,
    seconds: f64,
}

fn ask(model: &dyn ChatModel, request: &ChatRequest) -> Result<Answer, LlmError> {
    let started = Instant::now();
    let response = model.complete(request)?;
    Ok(Answer {
        text: response.content.trim().to_string(),
        usage: response.usage,
        seconds: started.elapsed().as_secs_f64(),
    })
}
