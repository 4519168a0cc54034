//! The state every build-system reader shares while analysing one repository.

use crate::view::{RepoFile, RepoView};
use packsmith_core::{AnalysisWarning, DownloadFact, Evidence, FeatureHint, LanguageUse, Sourced};

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
        self.view.read_text(rel, &mut self.warnings).map(|t| t.text)
    }

    /// The first line, in the first `max` files `wanted` accepts, for
    /// which `find` gives a value: that value, file and line.
    pub fn first_source_line(
        &mut self,
        wanted: impl Fn(&RepoFile) -> bool,
        max: usize,
        find: impl Fn(&str) -> Option<String>,
    ) -> Option<Sourced<String>> {
        let files: Vec<String> = self
            .view
            .files()
            .iter()
            .filter(|f| wanted(f))
            .take(max)
            .map(|f| f.rel.clone())
            .collect();
        for file in files {
            let Some(text) = self.read(&file) else {
                continue;
            };
            let hit = text
                .lines()
                .enumerate()
                .find_map(|(i, l)| Some((i, find(l)?)));
            if let Some((i, value)) = hit {
                let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
                return Some(Sourced::new(value, Evidence::new(file, line)));
            }
        }
        None
    }
}
