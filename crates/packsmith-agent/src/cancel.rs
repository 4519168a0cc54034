//! Cancellation: a flag the binary sets from its Ctrl-C handler
//! (`packsmith_exec::install_cancel`, whose flag also kills the running
//! command) and the loop checks between steps; a stage cut off by it is
//! recorded as cancelled. The loop never installs signal handlers itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
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
