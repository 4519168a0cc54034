//! Cancellation as a value: a flag the binary sets from its Ctrl-C handler
//! ([`crate::install_cancel`], whose flag also kills the running command),
//! handed to whatever must stop on it: the agent's loop between steps, a
//! model call between tokens, a wait for a server or between retries. Tests
//! make their own. Nothing here installs signal handlers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// The process-wide flag ([`crate::cancel_flag`]) that Ctrl-C sets.
    pub fn process() -> Self {
        Self(crate::cancel_flag())
    }

    /// Wraps a flag a signal handler sets.
    pub fn from_flag(flag: Arc<AtomicBool>) -> Self {
        Self(flag)
    }

    /// The flag, to hand to a signal handler.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// How often a wait looks at the flag: what Ctrl-C waits for at most.
    pub const POLL: Duration = Duration::from_millis(50);

    /// Sleeps `duration`, looking at the flag every [`Self::POLL`]; false
    /// when the wait ended because the flag was set.
    pub fn sleep(&self, duration: Duration) -> bool {
        let until = Instant::now() + duration;
        loop {
            if self.is_cancelled() {
                return false;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            std::thread::sleep(left.min(Self::POLL));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sleep_runs_its_course_unless_the_flag_is_set() {
        let token = CancelToken::new();
        let started = Instant::now();
        assert!(token.sleep(Duration::from_millis(120)));
        assert!(started.elapsed() >= Duration::from_millis(120));

        let setter = {
            let token = token.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                token.cancel();
            })
        };
        let started = Instant::now();
        assert!(!token.sleep(Duration::from_secs(600)));
        assert!(started.elapsed() < Duration::from_secs(60));
        setter.join().unwrap();
    }
}
