//! The state every build-system reader shares while analysing one repository.

use crate::view::RepoView;
use packsmith_core::{AnalysisWarning, DownloadFact, FeatureHint, LanguageUse};

/// Passed to each reader: the files, plus the cross-cutting findings that
/// several readers contribute to (languages, feature hints, downloads).
pub struct Ctx<'a> {
    pub view: &'a RepoView,
    pub warnings: Vec<AnalysisWarning>,
    pub languages: Vec<LanguageUse>,
    pub features: Vec<FeatureHint>,
    pub downloads: Vec<DownloadFact>,
}

impl<'a> Ctx<'a> {
    pub fn new(view: &'a RepoView) -> Self {
        Self {
            view,
            warnings: Vec::new(),
            languages: Vec::new(),
            features: Vec::new(),
            downloads: Vec::new(),
        }
    }

    pub fn warn(&mut self, file: &str, line: u32, message: impl Into<String>) {
        self.warnings
            .push(AnalysisWarning::new(file, line, message.into()));
    }

    /// Reads a file's text, recording any problem as a warning.
    pub fn read(&mut self, rel: &str) -> Option<String> {
        self.view
            .read_text(rel, &mut self.warnings)
            .map(|t| t.text)
    }
}
