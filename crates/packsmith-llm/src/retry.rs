//! [`Reliable`]: retries with exponential backoff and jitter around any
//! [`ChatModel`], honouring `Retry-After`, within an overall deadline. The
//! per-request timeout belongs to the transport (it is the only layer that
//! can abandon a blocked socket); this layer bounds the sum.

use std::time::{Duration, Instant};

use packsmith_exec::CancelToken;

use crate::{ChatModel, ChatRequest, ChatResponse, LlmError};

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = no retries).
    pub max_attempts: u32,
    /// First backoff; doubles on each retry.
    pub base_delay: Duration,
    /// Ceiling on one backoff (a longer `Retry-After` is still honoured).
    pub max_delay: Duration,
    /// A `Retry-After` longer than this is not waited for: the error is
    /// returned so the run can stop cleanly instead of sleeping for an hour.
    pub max_retry_after: Duration,
    /// Wall-clock limit on one `complete`, attempts and sleeps together.
    pub deadline: Option<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            deadline: Some(Duration::from_secs(600)),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1-based) after `error`.
    /// `None`: give up.
    pub fn delay(&self, retry: u32, error: &LlmError) -> Option<Duration> {
        if !error.is_retryable() || retry >= self.max_attempts {
            return None;
        }
        if let Some(asked) = error.retry_after() {
            if asked > self.max_retry_after {
                return None;
            }
            // A little jitter on top so parallel workers do not return as one.
            return Some(asked + jitter(self.base_delay / 4));
        }
        let exp = self
            .base_delay
            .saturating_mul(1u32 << (retry - 1).min(20))
            .min(self.max_delay);
        // "Equal jitter": half fixed, half random.
        Some(exp / 2 + jitter(exp / 2))
    }
}

fn jitter(max: Duration) -> Duration {
    let nanos = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX);
    if nanos == 0 {
        return Duration::ZERO;
    }
    Duration::from_nanos(fastrand::u64(0..=nanos))
}

/// Retries a model's transient failures.
pub struct Reliable<M> {
    inner: M,
    policy: RetryPolicy,
    cancel: Option<CancelToken>,
}

impl<M: ChatModel> Reliable<M> {
    pub fn new(inner: M, policy: RetryPolicy) -> Self {
        Self {
            inner,
            policy,
            cancel: None,
        }
    }

    /// Ends a wait between tries once `token` is cancelled, with
    /// [`LlmError::Cancelled`]: a `Retry-After` of a minute must not hold
    /// up Ctrl-C.
    pub fn cancelled_by(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Sleeps `wait`; false when the token was cancelled on the way.
    fn wait(&self, wait: Duration) -> bool {
        match &self.cancel {
            Some(token) => token.sleep(wait),
            None => {
                std::thread::sleep(wait);
                true
            }
        }
    }
}

impl<M: ChatModel> ChatModel for Reliable<M> {
    fn id(&self) -> String {
        self.inner.id()
    }

    fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let start = Instant::now();
        let mut attempt = 1;
        loop {
            let error = match self.inner.complete(request) {
                Ok(response) => return Ok(response),
                Err(e) => e,
            };
            let Some(wait) = self.policy.delay(attempt, &error) else {
                return Err(error);
            };
            if let Some(deadline) = self.policy.deadline {
                if start.elapsed() + wait >= deadline {
                    return Err(error);
                }
            }
            if !self.wait(wait) {
                return Err(LlmError::Cancelled);
            }
            attempt += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_flag_ends_the_wait_between_tries() {
        let token = CancelToken::new();
        let inner = crate::scripted::ScriptedModel::new("s")
            .error(unavailable())
            .text("never reached");
        let policy = RetryPolicy {
            base_delay: Duration::from_secs(600),
            max_delay: Duration::from_secs(600),
            deadline: None,
            ..RetryPolicy::default()
        };
        let model = Reliable::new(inner, policy).cancelled_by(token.clone());
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            token.cancel();
        });
        assert!(matches!(
            model.complete(&ChatRequest::new(None, Vec::new())),
            Err(LlmError::Cancelled)
        ));
        setter.join().unwrap();
        assert_eq!(model.inner.remaining(), 1, "the second try was never sent");
    }

    fn unavailable() -> LlmError {
        LlmError::Unavailable {
            provider: "t".into(),
            message: "down".into(),
        }
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let p = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(400),
            ..RetryPolicy::default()
        };
        for (retry, full) in [(1, 100), (2, 200), (3, 400), (6, 400)] {
            let d = p.delay(retry, &unavailable()).unwrap_or_default();
            let full = Duration::from_millis(full);
            assert!(d >= full / 2 && d <= full, "retry {retry}: {d:?}");
        }
        assert_eq!(p.delay(10, &unavailable()), None);
    }

    #[test]
    fn retry_after_is_honoured_and_bounded() {
        let p = RetryPolicy::default();
        let limited = |s| LlmError::RateLimited {
            provider: "t".into(),
            retry_after: Some(Duration::from_secs(s)),
        };
        let d = p.delay(1, &limited(3)).unwrap_or_default();
        assert!(d >= Duration::from_secs(3));
        assert_eq!(p.delay(1, &limited(3600)), None);
        assert_eq!(p.delay(1, &LlmError::Config("x".into())), None);
    }
}
