//! Exit codes and the one error type the binary reports.

use std::process::ExitCode;

use packsmith_core::Hint;

/// What `packsmith` exits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Success = 0,
    /// The job ran but did not succeed (a recipe that does not build).
    Failure = 1,
    /// Bad input: a missing path, a malformed file, an unknown option.
    BadInput = 2,
    /// Something outside the input failed (a tool, the network, the disk).
    Environment = 3,
    /// Stopped by Ctrl-C or SIGTERM (128 + SIGINT, as shells report it).
    Interrupted = 130,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit as u8)
    }
}

/// An error for the user: what went wrong, and what to do about it.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub hint: Option<String>,
    pub code: Exit,
}

impl CliError {
    pub fn new(code: Exit, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: None,
            code,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// A library error as the user sees it: its message, its hint, and
    /// `code` (where the command knows better than the error which it is).
    pub fn from_error<E: Hint + ?Sized>(code: Exit, err: &E) -> Self {
        Self {
            message: err.message(),
            hint: err.hint().map(String::from),
            code,
        }
    }

    /// This error, or, when Ctrl-C came first (a command it killed is what
    /// failed), the interruption with its own exit code.
    pub fn unless_cancelled(self, cancelled: bool) -> Self {
        if !cancelled {
            return self;
        }
        Self::new(
            Exit::Interrupted,
            "interrupted (Ctrl-C) while setting up; no attempt was run",
        )
        .hint("run the same command again to start over")
    }
}

/// Any library error with a hint: bad input exits 2, the environment 3.
impl<E: Hint> From<E> for CliError {
    fn from(err: E) -> Self {
        let code = if err.is_bad_input() {
            Exit::BadInput
        } else {
            Exit::Environment
        };
        Self::from_error(code, &err)
    }
}

/// A benchmark error for the user: its kind decides the exit code.
pub fn bench_error(e: packsmith_bench::BenchError) -> CliError {
    let code = match e.kind {
        packsmith_bench::ErrorKind::BadInput => Exit::BadInput,
        packsmith_bench::ErrorKind::Environment => Exit::Environment,
        packsmith_bench::ErrorKind::Interrupted => Exit::Interrupted,
    };
    let mut err = CliError::new(code, e.message);
    if let Some(h) = e.hint {
        err = err.hint(h);
    }
    err
}
