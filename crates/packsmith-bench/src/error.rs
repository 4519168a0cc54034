//! The one error type of the bench crate: what went wrong, what to do, and
//! whose fault it was (the binary turns the kind into an exit code).

/// Whose fault an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A task file, configuration, mapping or flag is wrong.
    BadInput,
    /// Something outside the input failed: the disk, git, sbatch.
    Environment,
    /// The user pressed Ctrl-C (or sent SIGTERM).
    Interrupted,
}

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct BenchError {
    pub kind: ErrorKind,
    pub message: String,
    pub hint: Option<String>,
}

impl BenchError {
    pub fn bad_input(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::BadInput,
            message: message.into(),
            hint: None,
        }
    }

    pub fn environment(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Environment,
            message: message.into(),
            hint: None,
        }
    }

    pub fn interrupted(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Interrupted,
            message: message.into(),
            hint: Some("run the same command again: it resumes from the journal".into()),
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// An I/O failure on `path`.
    pub fn io(action: &str, path: &std::path::Path, err: std::io::Error) -> Self {
        Self::environment(format!("could not {action} {}: {err}", path.display()))
            .hint("check that the path exists and is writable")
    }
}

pub type Result<T> = std::result::Result<T, BenchError>;
