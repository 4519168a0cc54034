//! API keys and their redaction. A [`Secret`] never prints its value, and
//! every secret made in this process is remembered so that [`redact`] can
//! scrub it from text that came back from a provider (an echoed header, a
//! URL with a key in it) before that text reaches an error or a trace.

use std::fmt;
use std::sync::{Mutex, PoisonError};

/// What a secret prints as.
pub const REDACTED: &str = "[redacted]";

/// Values shorter than this are not registered for redaction: replacing
/// every "x" in a message would destroy it and protect nothing.
const MIN_REDACTED_LEN: usize = 6;

static KNOWN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// A credential. `Debug` and `Display` print `[redacted]`; only
/// [`Secret::expose`] gives the value, for building the request.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        let value = value.into();
        remember(&value);
        Self(value)
    }

    /// The value, for an HTTP header. Never format it into a message.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Secret::new)
    }
}

fn remember(value: &str) {
    let value = value.trim();
    if value.len() < MIN_REDACTED_LEN {
        return;
    }
    let mut known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if !known.iter().any(|k| k == value) {
        known.push(value.to_string());
        // Longest first, so a key that contains another is scrubbed whole.
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
    }
}

/// Replaces every secret value this process has seen with `[redacted]`.
pub fn redact(text: &str) -> String {
    let known = KNOWN.lock().unwrap_or_else(PoisonError::into_inner);
    let mut out = text.to_string();
    for value in known.iter() {
        if out.contains(value.as_str()) {
            out = out.replace(value.as_str(), REDACTED);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_hide_the_value() {
        let s = Secret::new("sk-test-0123456789");
        assert_eq!(format!("{s:?}"), REDACTED);
        assert_eq!(format!("{s}"), REDACTED);
        assert_eq!(s.expose(), "sk-test-0123456789");
    }

    #[test]
    fn redact_scrubs_known_values() {
        let _s = Secret::new("sk-ant-abcdefghijkl");
        let msg = redact("invalid x-api-key sk-ant-abcdefghijkl for request");
        assert_eq!(msg, "invalid x-api-key [redacted] for request");
    }

    #[test]
    fn short_values_are_not_registered() {
        let _s = Secret::new("ab");
        assert_eq!(redact("a b ab abc"), "a b ab abc");
    }
}
