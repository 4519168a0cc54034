//! The two plain types the loop, the history and the tools all pass
//! around: a recipe, and the progress verdict on an attempt. Kept apart
//! from the `Ecosystem` seam so that what the seam uses never imports it.

use serde::{Deserialize, Serialize};

/// A recipe: the file the package manager reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Recipe {
    /// `package.py`, `package.nix`, …
    pub file_name: String,
    pub text: String,
}

impl Recipe {
    pub fn new(file_name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            file_name: file_name.into(),
            text: text.into(),
        }
    }
}

/// The progress labels of the Nix-style loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ProgressVerdict {
    /// Further than the last accepted attempt: accept it.
    Progress,
    /// Worse: roll back to the last accepted attempt.
    Regress,
    /// No better: roll back.
    Stagnation,
    /// The log is unreadable: keep the attempt, tell the next prompt.
    BrokenLog,
}

impl ProgressVerdict {
    /// Finds a label in a model's answer (the first that appears).
    pub fn parse(answer: &str) -> Option<Self> {
        let upper = answer.to_ascii_uppercase();
        [
            ("BROKEN_LOG", Self::BrokenLog),
            ("STAGNATION", Self::Stagnation),
            ("REGRESS", Self::Regress),
            ("PROGRESS", Self::Progress),
        ]
        .into_iter()
        .filter_map(|(label, v)| upper.find(label).map(|at| (at, v)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, v)| v)
    }
}
