//! What an error tells the user to do. Every library error that has advice
//! implements [`Hint`]; the binary turns any of them into its one
//! user-facing error the same way, so no caller re-reads an error's text.

use std::borrow::Cow;

/// How a hint follows the message when both travel as one text (provider
/// messages, run reports): on its own line after this separator.
pub const HINT_SEPARATOR: &str = "\nhint: ";

/// An error with advice for the user besides its message.
pub trait Hint: std::error::Error {
    /// What the user can do about it; None where nothing certain helps.
    /// By default, the `hint:` line of the error's text, for errors whose
    /// text carries it.
    fn hint(&self) -> Option<Cow<'_, str>> {
        let text = self.to_string();
        split_hint(&text).1.map(|h| Cow::Owned(h.to_string()))
    }

    /// The message without the hint: by default the error's text up to its
    /// `hint:` line.
    fn message(&self) -> String {
        let text = self.to_string();
        split_hint(&text).0.to_string()
    }

    /// True when what the user gave (a path, a name, a file) was wrong,
    /// false when the environment failed (a tool, the network, the disk).
    fn is_bad_input(&self) -> bool {
        true
    }
}

/// Splits `message\nhint: advice` into the message and the advice.
pub fn split_hint(text: &str) -> (&str, Option<&str>) {
    match text.split_once(HINT_SEPARATOR) {
        Some((message, hint)) => (message, Some(hint)),
        None => (text, None),
    }
}

/// `message\nhint: advice`, or the message alone: the one-text form of an
/// error and its hint.
pub fn join_hint(message: &str, hint: Option<&str>) -> String {
    match hint {
        Some(h) => format!("{message}{HINT_SEPARATOR}{h}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Carried(&'static str);

    impl std::fmt::Display for Carried {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Carried {}

    impl Hint for Carried {}

    #[test]
    fn a_hint_carried_in_the_text_is_split_off() {
        let e = Carried("model file x does not exist\nhint: run `packsmith model pull x`");
        assert_eq!(e.message(), "model file x does not exist");
        assert_eq!(e.hint().as_deref(), Some("run `packsmith model pull x`"));
        let plain = Carried("no hint here");
        assert_eq!(plain.message(), "no hint here");
        assert_eq!(plain.hint(), None);
    }

    #[test]
    fn join_is_the_inverse_of_split() {
        let joined = join_hint("it failed", Some("try again"));
        assert_eq!(joined, "it failed\nhint: try again");
        assert_eq!(split_hint(&joined), ("it failed", Some("try again")));
        assert_eq!(join_hint("alone", None), "alone");
    }
}
