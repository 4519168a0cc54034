//! Errors of the validation machinery itself (not of the recipe: a recipe
//! that fails a stage is a [`super::StageOutcome`] with `passed: false`).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("cannot {action} {path}: {source}\nhint: check that the directory is writable")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "Spack was not found ({what})\nhint: pass the spack binary and its environment (SpackSetup), \
         or see docs/offline-spack.md to set one up"
    )]
    SpackNotFound { what: String },
    #[error("`{command}` failed: {detail}\nhint: {hint}")]
    Command {
        command: String,
        detail: String,
        hint: String,
    },
    #[error(
        "the bubblewrap sandbox cannot start: {detail}\nhint: install bubblewrap and allow \
         unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or run with \
         --no-sandbox on a machine you trust to build untrusted recipes"
    )]
    SandboxUnavailable { detail: String },
    #[error("invalid {what} `{value}`: {why}")]
    Invalid {
        what: &'static str,
        value: String,
        why: String,
    },
}

impl ValidateError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
