//! Cancellation as a value: a flag the binary sets from its Ctrl-C handler
//! ([`crate::install_cancel`], whose flag also kills the running command),
//! handed to whatever must stop on it: the agent's loop between steps, a
//! model call between tokens, a wait for a server or between retries. Tests
//! make their own. Nothing here installs signal handlers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

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
}
