//! Spec syntax errors with a byte position and a caret rendering.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A syntax error in a spec string, located by byte offset and length.
///
/// `Display` prints the message, the spec, and a caret line under the
/// offending bytes, so it can go straight into a diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub struct SpecError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
    /// The whole spec, kept for the caret rendering.
    pub input: String,
}

impl SpecError {
    pub(crate) fn new(input: &str, offset: usize, len: usize, message: impl Into<String>) -> Self {
        SpecError {
            offset,
            len: len.max(1),
            message: message.into(),
            input: input.to_string(),
        }
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Columns count characters, not bytes, so the caret lines up.
        let prefix = self.input.get(..self.offset).unwrap_or(&self.input);
        let column = prefix.chars().count();
        let width = self
            .input
            .get(self.offset..(self.offset + self.len).min(self.input.len()))
            .map_or(1, |s| s.chars().count().max(1));
        writeln!(
            f,
            "invalid spec: {} (at byte {})",
            self.message, self.offset
        )?;
        writeln!(f, "  {}", self.input)?;
        write!(f, "  {}{}", " ".repeat(column), "^".repeat(width))
    }
}
