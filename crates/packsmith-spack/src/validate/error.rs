//! Errors of the validation machinery itself (not of the recipe: a recipe
//! that fails a stage is a [`super::SpackStageOutcome`] with `passed: false`).
//! The text says what went wrong; [`ValidateError::hint`] says what to do,
//! so a caller prints one hint rather than one in the text and its own.

use std::path::PathBuf;

use packsmith_exec::sandbox::SandboxError;

#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("Spack was not found ({what})")]
    SpackNotFound { what: String },
    #[error("`{command}` failed: {detail}")]
    Command {
        command: String,
        detail: String,
        hint: String,
    },
    /// The sandbox cannot start; its text keeps its hint (callers and
    /// tests read it whole).
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error("invalid {what} `{value}`: {why}")]
    Invalid {
        what: &'static str,
        value: String,
        why: String,
    },
}

/// What to do when Spack is missing, in the user's terms (the CLI flag, the
/// setup guide, `doctor`).
pub const NO_SPACK_HINT: &str =
    "run `packsmith setup spack --from <a Spack checkout or git URL>` (then `packsmith spack` \
     uses it), or pass --spack /path/to/env.sh, or put `spack` on PATH; `packsmith doctor` shows \
     what is missing";

/// The binary's one conversion reads it; the text never carries the hint.
impl packsmith_core::Hint for ValidateError {
    fn hint(&self) -> Option<std::borrow::Cow<'_, str>> {
        ValidateError::hint(self).map(std::borrow::Cow::Owned)
    }

    fn message(&self) -> String {
        self.to_string()
    }

    /// A bad `--spack` value or option is the user's; everything else is
    /// the machine's (Spack missing, a command failing, the disk).
    fn is_bad_input(&self) -> bool {
        matches!(self, Self::Invalid { .. })
    }
}

impl ValidateError {
    /// What the user can do about it; `None` where nothing certain helps.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Io { .. } | Self::Sandbox(SandboxError::Io { .. }) => {
                Some("check that the directory is writable".into())
            }
            Self::SpackNotFound { .. } => Some(NO_SPACK_HINT.into()),
            Self::Command { hint, .. } => Some(hint.clone()),
            Self::Sandbox(SandboxError::Unavailable { .. }) | Self::Invalid { .. } => None,
        }
    }

    /// The text and its hint on a second line, for callers that carry one
    /// string (the agent's stage errors, the run report).
    pub fn with_hint(&self) -> String {
        match self.hint() {
            Some(h) => format!("{self}\nhint: {h}"),
            None => self.to_string(),
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_is_apart_from_the_text_and_kept_by_with_hint() {
        let e = ValidateError::SpackNotFound {
            what: "no `spack` on PATH".into(),
        };
        assert_eq!(e.to_string(), "Spack was not found (no `spack` on PATH)");
        assert_eq!(e.hint().as_deref(), Some(NO_SPACK_HINT));
        assert_eq!(
            e.with_hint(),
            format!("Spack was not found (no `spack` on PATH)\nhint: {NO_SPACK_HINT}")
        );
        let c = ValidateError::Command {
            command: "spack spec".into(),
            detail: "exit 1".into(),
            hint: "check the spec".into(),
        };
        assert_eq!(
            c.with_hint(),
            "`spack spec` failed: exit 1\nhint: check the spec"
        );
    }
}
