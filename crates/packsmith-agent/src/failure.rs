//! What a check or a stage found wrong, as the loop carries it: a static
//! check's findings ([`Diagnostic`]) and an attempt's [`Failure`]. A leaf
//! of the seam in `ecosystem`, which the report reads too.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::detail::BackendDetail;

/// The stage name the loop uses for static-check failures.
pub const STATIC_CHECK: &str = "static_check";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// One finding of the static check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A short stable code, e.g. `syntax`, `unknown-package`.
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

impl Diagnostic {
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            code: code.into(),
            message: message.into(),
            line: None,
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `line 3: syntax: unexpected indent`.
    pub fn render(&self) -> String {
        match self.line {
            Some(l) => format!("line {l}: {}: {}", self.code, self.message),
            None => format!("{}: {}", self.code, self.message),
        }
    }
}

/// Why an attempt failed, in a form a model can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The stage that failed (or [`STATIC_CHECK`]).
    pub stage: String,
    /// The backend's failure class, e.g. `cmake_configure`, `hash_mismatch`.
    pub class: String,
    /// The decisive part of the log, already cut to a model-ready size.
    pub excerpt: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_path: Option<PathBuf>,
    /// What the backend knows about the failure in its own types (e.g. the
    /// diagnosis with its class and names), for its [`Ecosystem::auto_fix`].
    /// The loop never reads it; it is not serialized.
    #[serde(skip)]
    pub detail: BackendDetail,
}

impl Failure {
    pub fn new(
        stage: impl Into<String>,
        class: impl Into<String>,
        excerpt: impl Into<String>,
    ) -> Self {
        Self {
            stage: stage.into(),
            class: class.into(),
            excerpt: excerpt.into(),
            diagnostics: Vec::new(),
            log_path: None,
            detail: BackendDetail::default(),
        }
    }

    /// Attaches the backend's typed account of the failure.
    pub fn with_detail<T: std::any::Any + Send + Sync>(mut self, detail: T) -> Self {
        self.detail = BackendDetail::new(detail);
        self
    }

    /// A static-check failure carrying its diagnostics.
    pub fn from_diagnostics(diagnostics: Vec<Diagnostic>) -> Self {
        let excerpt = diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(Diagnostic::render)
            .collect::<Vec<_>>()
            .join("\n");
        Self {
            stage: STATIC_CHECK.into(),
            class: STATIC_CHECK.into(),
            excerpt,
            diagnostics,
            log_path: None,
            detail: BackendDetail::default(),
        }
    }

    /// The first non-empty line of the excerpt, at most 160 characters.
    pub fn headline(&self) -> String {
        let line = self
            .excerpt
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("");
        crate::text::clip_chars(line, 160)
    }
}
