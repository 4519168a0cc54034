//! Errors from model providers, classified so callers know whether to retry.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// 429 or a provider's "overloaded": retry after the given delay if any.
    #[error("rate limited by {provider}{}", retry_after.map(|d| format!(" (retry after {}s)", d.as_secs())).unwrap_or_default())]
    RateLimited {
        provider: String,
        retry_after: Option<Duration>,
    },
    /// 5xx, connection refused or reset, timeouts: worth retrying.
    #[error("{provider} is unavailable: {message}")]
    Unavailable { provider: String, message: String },
    /// The prompt does not fit the model's context window.
    /// Zeros where the provider's message did not say.
    #[error("{}", overflow_message(model, *prompt_tokens, *context))]
    ContextOverflow {
        model: String,
        prompt_tokens: u64,
        context: u64,
    },
    /// 401/403: the key is missing or wrong.
    #[error("{provider} rejected the credentials: {message}")]
    Auth { provider: String, message: String },
    /// The request was malformed or the provider refused it (other 4xx).
    #[error("{provider} refused the request: {message}")]
    BadRequest { provider: String, message: String },
    /// The response could not be understood.
    #[error("{provider} sent a response packsmith cannot read: {message}")]
    BadResponse { provider: String, message: String },
    /// The run's token or cost budget is spent.
    #[error("the run's budget is spent: {0}")]
    BudgetExhausted(String),
    /// A local model could not be loaded or run.
    #[error("local model error: {0}")]
    Local(String),
    /// The replay cache could not be read or written, or a replay-only run
    /// met a request it has no recording for.
    #[error("replay cache: {0}")]
    Cache(String),
    /// Configuration problem (unknown provider, missing key, bad file).
    #[error("{0}")]
    Config(String),
    /// The call was stopped on the way (Ctrl-C or SIGTERM) instead of
    /// running on to its answer.
    #[error("the model call was stopped (Ctrl-C or SIGTERM)")]
    Cancelled,
}

impl LlmError {
    /// True for errors a retry with backoff may cure.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::RateLimited { .. } | Self::Unavailable { .. })
    }

    /// The delay the provider asked for, if it named one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Provider and configuration messages carry their advice on a `hint:` line
/// of their own text (see [`packsmith_core::hint::HINT_SEPARATOR`]).
impl packsmith_core::Hint for LlmError {
    /// A configuration problem is the user's to fix; the rest is the
    /// provider's, the network's or the model file's.
    fn is_bad_input(&self) -> bool {
        matches!(self, Self::Config(_))
    }
}

fn overflow_message(model: &str, prompt_tokens: u64, context: u64) -> String {
    if prompt_tokens == 0 || context == 0 {
        format!("the prompt does not fit {model}'s context window")
    } else {
        format!("the prompt ({prompt_tokens} tokens) does not fit {model}'s context of {context} tokens")
    }
}
