//! Every subprocess packsmith starts goes through [`run`]: an allowlisted
//! environment, a timeout (and a stall timeout, and cancellation) that
//! kills the whole process group, and capped output; [`run_watched`] also
//! hands over stderr's lines as they come, for progress. Files packsmith
//! writes go through [`atomic_write`], so a crash never leaves half a file. Commands that run untrusted code run inside
//! the one [`sandbox`] (bubblewrap), whatever backend asks.
//!
//! Modules:
//! - `command`: `run(CommandSpec)`. The environment is an allowlist. A
//!   timeout kills the process group; `CommandSpec::stall_timeout` kills it
//!   when neither stream gives a byte for that long (`Output::stalled`).
//!   Output is kept as a capped tail. `run_watched` hands each stderr line
//!   (`\n`- or `\r`-ended, so progress meters too) to a callback on the
//!   caller's thread. It also holds the process-wide cancel flag
//!   (`cancel_flag`, `cancel_all`) and `install_cancel`, the one
//!   Ctrl-C/SIGTERM handler: the first signal sets the flag, which kills
//!   every running command's group within a poll interval; a second signal
//!   kills the groups still running and exits with 130. Signals are received
//!   on a thread of their own, not handled in the signal handler.
//! - `cancel_token`: `CancelToken`, the one type for everything that stops
//!   on Ctrl-C (the agent loop, model retries, the HTTP transport, the
//!   embedded model). It wraps the process-wide flag or a test's own; a spec
//!   may carry its own token (`cancel_on`). Waits poll it every
//!   `CancelToken::POLL` (`CancelToken::sleep`).
//! - `atomic`: `atomic_write`, a temp file in the same directory, then a
//!   rename.
//! - `sandbox`: the one sandbox. `policy` is a `SandboxPolicy` value: what
//!   is visible, writable, hidden, networked, limited and set in the
//!   environment. `bwrap` turns a policy and a command into the bubblewrap
//!   (+ `prlimit`) command line. `pids` gives a sandboxed command a pids
//!   cgroup when one is writable, because `RLIMIT_NPROC` does not bind root.
//!   `Sandbox::new` finds bwrap and probes it by starting `true` inside; the
//!   probe is shared by Spack's validation and `packsmith doctor`. A backend
//!   writes only its policy; if bwrap cannot start, the error names
//!   `--no-sandbox`, and nothing falls back to running unconfined.

mod atomic;
mod cancel_token;
mod command;
pub mod sandbox;
mod supervise;

pub use atomic::{atomic_write, AtomicWriteError};
pub use cancel_token::CancelToken;
pub use command::{
    cancel_all, cancel_flag, install_cancel, run, run_watched, CommandSpec, ExecError, Output,
};
pub use supervise::{run_to_files, stop_tree, Supervised};
