//! Every subprocess packsmith starts goes through [`run`]: an allowlisted
//! environment, a timeout (and a stall timeout, and cancellation) that
//! kills the whole process group, and capped output; [`run_watched`] also
//! hands over stderr's lines as they come, for progress. Files packsmith
//! writes go through [`atomic_write`], so a crash never leaves half a file. Commands that run untrusted code run inside
//! the one [`sandbox`] (bubblewrap), whatever backend asks.

mod atomic;
mod cancel_token;
mod command;
pub mod sandbox;

pub use atomic::{atomic_write, AtomicWriteError};
pub use cancel_token::CancelToken;
pub use command::{
    cancel_all, cancel_flag, install_cancel, run, run_watched, CommandSpec, ExecError, Output,
};
