//! A validation error that stops the run becomes the loop's
//! [`EcosystemError`] with its hint kept as a hint, not folded into the text.

use packsmith_agent::EcosystemError;

use crate::validate::ValidateError;

impl From<ValidateError> for EcosystemError {
    fn from(e: ValidateError) -> Self {
        EcosystemError::new(e.to_string()).with_hint(e.hint())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::NO_SPACK_HINT;
    use packsmith_core::Hint;

    #[test]
    fn the_ecosystem_error_carries_the_validate_hint() {
        let e = ValidateError::SpackNotFound {
            what: "no `spack` on PATH".into(),
        };
        let same_text = e.with_hint();
        let eco = EcosystemError::from(e);
        assert_eq!(eco.message, "Spack was not found (no `spack` on PATH)");
        assert_eq!(Hint::hint(&eco).as_deref(), Some(NO_SPACK_HINT));
        // The run report reads the error's text: it still ends with the hint.
        assert_eq!(eco.to_string(), same_text);
    }

    #[test]
    fn an_error_without_a_hint_gets_none() {
        let e = ValidateError::Invalid {
            what: "stage",
            value: "x".into(),
            why: "unknown".into(),
        };
        let eco = EcosystemError::from(e);
        assert_eq!(eco.hint, None);
        assert_eq!(eco.to_string(), "invalid stage `x`: unknown");
    }
}
