//! A run's token and cost budget. [`BudgetTracker`] is shared (clones see
//! the same spending) so every model of a run draws on one budget;
//! [`Budgeted`] refuses a call *before* it is made when its estimate would
//! overrun, so the run stops cleanly with what it has.

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::usage::PriceTable;
use crate::{ChatModel, ChatRequest, ChatResponse, LlmError, Usage};

/// Limits for one run; `None` means unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub max_tokens: Option<u64>,
    pub max_cost_usd: Option<f64>,
}

/// What the run has spent so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Spent {
    pub usage: Usage,
    pub cost_usd: f64,
    pub calls: u64,
}

#[derive(Debug, Clone, Default)]
pub struct BudgetTracker {
    limits: Budget,
    prices: PriceTable,
    spent: Arc<Mutex<Spent>>,
}

impl BudgetTracker {
    pub fn new(limits: Budget, prices: PriceTable) -> Self {
        Self {
            limits,
            prices,
            spent: Arc::default(),
        }
    }

    pub fn limits(&self) -> Budget {
        self.limits
    }

    pub fn spent(&self) -> Spent {
        *self.spent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Errs when `request` to `model_id` would push the run past a limit.
    /// The estimate is the prompt's size (4 bytes a token) plus the
    /// request's `max_tokens` (0 when unset: a call without a cap can only be
    /// refused once the budget is already spent).
    pub fn check(&self, model_id: &str, request: &ChatRequest) -> Result<(), LlmError> {
        let spent = self.spent();
        let estimate = Usage {
            prompt_tokens: estimate_prompt_tokens(request),
            completion_tokens: u64::from(request.max_tokens.unwrap_or(0)),
            cached_tokens: 0,
        };
        if let Some(max) = self.limits.max_tokens {
            let after = spent.usage.total() + estimate.total();
            if after > max {
                return Err(LlmError::BudgetExhausted(format!(
                    "{} of {max} tokens used in {} calls; the next call needs about {} more",
                    spent.usage.total(),
                    spent.calls,
                    estimate.total()
                )));
            }
        }
        if let Some(max) = self.limits.max_cost_usd {
            let next = self.prices.cost(model_id, &estimate).unwrap_or(0.0);
            if spent.cost_usd + next > max {
                return Err(LlmError::BudgetExhausted(format!(
                    "${:.4} of ${max:.4} spent in {} calls; the next call costs about ${next:.4}",
                    spent.cost_usd, spent.calls
                )));
            }
        }
        Ok(())
    }

    /// Adds a response's usage and cost.
    pub fn record(&self, response: &ChatResponse) {
        let mut spent = self.spent.lock().unwrap_or_else(PoisonError::into_inner);
        spent.usage += response.usage;
        spent.cost_usd += response.cost_usd.unwrap_or(0.0);
        spent.calls += 1;
    }
}

/// A rough token count of everything a request sends.
pub fn estimate_prompt_tokens(request: &ChatRequest) -> u64 {
    let mut bytes = request.system.as_deref().map_or(0, str::len);
    for m in &request.messages {
        bytes += m.content.len() + 8;
        bytes += m
            .tool_calls
            .iter()
            .map(|c| c.name.len() + c.arguments.len())
            .sum::<usize>();
    }
    for t in &request.tools {
        bytes += t.name.len() + t.description.len() + t.parameters.to_string().len();
    }
    if let Some(s) = &request.output_schema {
        bytes += s.schema.to_string().len();
    }
    (bytes as u64).div_ceil(4)
}

/// Enforces a [`BudgetTracker`] around any model.
pub struct Budgeted<M> {
    inner: M,
    tracker: BudgetTracker,
}

impl<M: ChatModel> Budgeted<M> {
    pub fn new(inner: M, tracker: BudgetTracker) -> Self {
        Self { inner, tracker }
    }
}

impl<M: ChatModel> ChatModel for Budgeted<M> {
    fn id(&self) -> String {
        self.inner.id()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.tracker.check(&self.inner.id(), request)?;
        let response = self.inner.complete(request)?;
        self.tracker.record(&response);
        Ok(response)
    }
}
