//! The dependencies a brief left out because no rule named them in Spack
//! (`SpackBrief::unresolved`), each with the knowledge base's candidates
//! and, when a model is given, its checked pick: what `packsmith kb pick`
//! shows and the pick benchmark scores.

use std::path::Path;

use packsmith_llm::{ChatModel, LlmError};
use packsmith_spack_draft::brief::SpackBrief;
use packsmith_spack_knowledge::kb::candidates::{name_candidates, NameCandidate};
use packsmith_spack_knowledge::kb::{KbError, KnowledgeBase};
use packsmith_spack_knowledge::mapping::{NameSource, SpackNames};
use serde::Serialize;

use super::pick_package::{pick_package, Pick, PickQuestion};

/// Longest build-file line quoted to the model.
const MAX_LINE: usize = 200;

/// One left-out lookup, its candidates and the pick.
#[derive(Debug, Clone, Serialize)]
pub struct UnresolvedPick {
    pub upstream: String,
    pub source: NameSource,
    pub required: bool,
    /// `CMakeLists.txt:40`.
    pub location: String,
    pub candidates: Vec<NameCandidate>,
    /// `None` without a model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pick: Option<Pick>,
}

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(transparent)]
    Kb(#[from] KbError),
    #[error(transparent)]
    Model(#[from] LlmError),
}

/// Every lookup `brief` left unresolved (each name and source once), with
/// candidates, and picks when `model` is given. `root` is the source tree
/// the evidence lines are read from (none for facts read from a file).
pub fn unresolved_picks(
    brief: &SpackBrief,
    root: Option<&Path>,
    names: &dyn SpackNames,
    kb: &KnowledgeBase,
    model: Option<&dyn ChatModel>,
) -> Result<Vec<UnresolvedPick>, JobError> {
    let mut out: Vec<UnresolvedPick> = Vec::new();
    for u in &brief.unresolved {
        if out
            .iter()
            .any(|p| p.upstream == u.upstream && p.source == u.source)
        {
            continue;
        }
        let candidates = name_candidates(&u.upstream, u.source, names, kb)?;
        let location = format!("{}:{}", u.evidence.file, u.evidence.line);
        let line = root.and_then(|r| line_at(&r.join(&u.evidence.file), u.evidence.line));
        let pick = match model {
            Some(model) => Some(pick_package(
                model,
                names,
                &PickQuestion {
                    project: &brief.package,
                    upstream: &u.upstream,
                    source: u.source,
                    line: line.as_deref(),
                    location: Some(location.clone()),
                    candidates: &candidates,
                },
            )?),
            None => None,
        };
        out.push(UnresolvedPick {
            upstream: u.upstream.clone(),
            source: u.source,
            required: u.required,
            location,
            candidates,
            pick,
        });
    }
    Ok(out)
}

/// Line `number` (1-based) of `file`, trimmed and cut to [`MAX_LINE`]
/// characters; none when the file or line cannot be read.
fn line_at(file: &Path, number: u32) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().nth(number.checked_sub(1)? as usize)?.trim();
    Some(line.chars().take(MAX_LINE).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_trimmed_and_cut() {
        let dir = std::env::temp_dir().join(format!("packsmith-line-at-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        let file = dir.join("CMakeLists.txt");
        let long = "x".repeat(500);
        std::fs::write(
            &file,
            format!("project(a)\n  find_package(TurboJpeg)\n{long}\n"),
        )
        .expect("written");
        assert_eq!(
            line_at(&file, 2).as_deref(),
            Some("find_package(TurboJpeg)")
        );
        assert_eq!(line_at(&file, 3).map(|l| l.len()), Some(MAX_LINE));
        assert_eq!(line_at(&file, 0), None);
        assert_eq!(line_at(&file, 9), None);
        std::fs::remove_dir_all(&dir).ok();
    }
}
