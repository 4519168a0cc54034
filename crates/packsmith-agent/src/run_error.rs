//! Why a run could not start or finish, as the user is told: a message
//! that names the input, a hint, and whether the input or the
//! environment was at fault (the binary's exit code 2 or 3).

use std::borrow::Cow;

use packsmith_core::Hint;

#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct RunError {
    pub message: String,
    pub hint: Option<String>,
    pub bad_input: bool,
}

impl RunError {
    pub fn bad_input(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: None,
            bad_input: true,
        }
    }

    pub fn environment(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: None,
            bad_input: false,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// A library error with its own hint and kind.
    pub fn from_hint(err: &dyn Hint) -> Self {
        Self {
            message: err.message(),
            hint: err.hint().map(Cow::into_owned),
            bad_input: err.is_bad_input(),
        }
    }

    /// A library error whose kind the caller knows better than the error
    /// (an analysis failure is the input's; a model failure the
    /// environment's); credentials are redacted from model errors.
    pub fn from_hint_as(err: &dyn Hint, bad_input: bool) -> Self {
        Self {
            bad_input,
            ..Self::from_hint(err)
        }
    }
}

impl Hint for RunError {
    fn hint(&self) -> Option<Cow<'_, str>> {
        self.hint.as_deref().map(Cow::Borrowed)
    }

    fn message(&self) -> String {
        self.message.clone()
    }

    fn is_bad_input(&self) -> bool {
        self.bad_input
    }
}
