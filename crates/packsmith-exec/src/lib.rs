//! Every subprocess packsmith starts goes through [`run`]: an allowlisted
//! environment, a timeout that kills the whole process group, and capped
//! output. Files packsmith writes go through [`atomic_write`], so a crash
//! never leaves half a file.

mod atomic;
mod command;

pub use atomic::{atomic_write, AtomicWriteError};
pub use command::{cancel_all, cancel_flag, install_cancel, run, CommandSpec, ExecError, Output};
