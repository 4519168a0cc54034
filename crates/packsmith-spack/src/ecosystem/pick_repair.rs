//! A model repair as one small job: the build could not find a dependency
//! (`missing_dependency`) that no rule names in Spack, so instead of a
//! whole repair the model is asked to pick its package from the knowledge
//! base's candidates ([`crate::jobs::pick_package`]); a checked pick
//! becomes `depends_on("pick")`. Each name is asked once per run; a name
//! with no candidate, or already asked, leaves the repair to the usual
//! request.

use std::collections::HashSet;
use std::sync::Mutex;

use packsmith_agent::Failure;
use packsmith_core::chat::ChatRequest;
use packsmith_spack_draft::brief::SpackBrief;
use packsmith_spack_knowledge::edit::{apply_edits, EditOp};
use packsmith_spack_knowledge::kb::candidates::{name_candidates, NameCandidate};
use packsmith_spack_knowledge::kb::{KnowledgeBase, NameIndex};
use packsmith_spack_knowledge::mapping::NameSource;
use packsmith_spack_knowledge::recipe::parse_recipe;

use super::stages::diagnosis_of;
use crate::diagnose::FailureClass;
use crate::jobs::pick_package::{self, PickQuestion};

/// The question asked and not yet answered.
#[derive(Debug, Clone)]
struct Pending {
    upstream: String,
    source: NameSource,
    candidates: Vec<NameCandidate>,
}

/// What the pick job asked in this run.
#[derive(Debug, Default)]
pub struct PickLog {
    asked: Mutex<HashSet<String>>,
    pending: Mutex<Option<Pending>>,
}

/// The build's own words for how it looked (`find_package`, pkg-config),
/// else the lookup the brief recorded for the name.
fn source_of(name: &str, brief: &SpackBrief, excerpt: &str) -> NameSource {
    if let Some(u) = brief
        .unresolved
        .iter()
        .find(|u| u.upstream.eq_ignore_ascii_case(name))
    {
        return u.source;
    }
    if excerpt.contains("pkg-config") || excerpt.contains("Package '") {
        NameSource::Pkgconfig
    } else if excerpt.contains("find_package") || excerpt.contains("Config.cmake") {
        NameSource::Cmake
    } else {
        NameSource::Library
    }
}

impl PickLog {
    /// The pick request for the first name of a `missing_dependency`
    /// failure not asked yet that has candidates the recipe does not
    /// already depend on; `None` leaves the repair to the usual request.
    pub fn request(
        &self,
        brief: &SpackBrief,
        names: &NameIndex,
        kb: &KnowledgeBase,
        recipe: &str,
        failure: &Failure,
    ) -> Option<ChatRequest> {
        // A question is pending until the next repair request: the loop's
        // re-ask of an unusable answer is still the same question.
        if let Ok(mut pending) = self.pending.lock() {
            *pending = None;
        }
        let diagnosis = diagnosis_of(failure)?;
        if diagnosis.class != FailureClass::MissingDependency {
            return None;
        }
        let declared: Vec<String> = parse_recipe(recipe, "package.py")
            .dependencies
            .iter()
            .map(|d| d.name.clone())
            .collect();
        let mut asked = self.asked.lock().ok()?;
        for name in &diagnosis.names {
            // A header (`omp-tools.h`) names a file, not a package: the
            // header table and the hermeticity rules answer those.
            if name.contains('.') || asked.contains(name) {
                continue;
            }
            asked.insert(name.clone());
            let source = source_of(name, brief, &failure.excerpt);
            let candidates: Vec<NameCandidate> = name_candidates(name, source, names, kb)
                .ok()?
                .into_iter()
                .filter(|c| !declared.contains(&c.name))
                .collect();
            if candidates.is_empty() {
                continue;
            }
            let request = pick_package::request(&PickQuestion {
                project: &brief.package,
                upstream: name,
                source,
                line: None,
                location: None,
                candidates: &candidates,
            });
            if let Ok(mut pending) = self.pending.lock() {
                *pending = Some(Pending {
                    upstream: name.clone(),
                    source,
                    candidates,
                });
            }
            return Some(request);
        }
        None
    }

    /// The recipe with the checked pick declared, when the answer is to a
    /// pick request, the last one asked or the loop's re-ask of it (`None`:
    /// it is not; the usual answer path applies).
    pub fn answer(
        &self,
        brief: &SpackBrief,
        names: &NameIndex,
        recipe: &str,
        raw: &str,
    ) -> Option<Result<String, String>> {
        let pending = self.pending.lock().ok()?.clone()?;
        let question = PickQuestion {
            project: &brief.package,
            upstream: &pending.upstream,
            source: pending.source,
            line: None,
            location: None,
            candidates: &pending.candidates,
        };
        Some(match pick_package::check(raw.trim(), &question, names) {
            Ok(Some(package)) => apply_edits(
                recipe,
                &[EditOp::AddDependency {
                    spec: package,
                    when: None,
                    types: Vec::new(),
                }],
            )
            .map_err(|e| e.to_string()),
            Ok(None) => Err(format!(
                "no candidate provides `{}`: nothing to declare",
                pending.upstream
            )),
            Err(why) => Err(why),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_spack_knowledge::kb::{index_repo, IndexOptions};

    const RECIPE: &str = r#"from spack.package import *


class Viewer(CMakePackage):
    """A viewer."""

    version("1.0", sha256="0" * 64)

    depends_on("cmake@3.18:", type="build")
"#;

    fn missing(names: &[&str]) -> Failure {
        let excerpt = "CMake Error at CMakeLists.txt:4 (find_package):\n  Could not find a package configuration file provided by \"MPICH\"";
        super::super::stages::install_failure(FailureClass::MissingDependency, excerpt, names)
    }

    #[test]
    fn a_missed_dependency_is_asked_once_and_a_checked_pick_is_declared() {
        let cache = tempfile::tempdir().expect("a temp dir");
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../packsmith-spack-knowledge/tests/fixtures/kb-repo");
        index_repo(&repo, cache.path(), &IndexOptions::default()).expect("indexed");
        let kb = KnowledgeBase::select(cache.path(), None).expect("the fixture's KB");
        let names = kb.names().expect("names");
        let brief = crate::ecosystem::test_brief::bare_brief("viewer", "Viewer");
        let log = PickLog::default();
        // A header names a file: no pick job for it.
        assert!(log
            .request(&brief, &names, &kb, RECIPE, &missing(&["omp-tools.h"]))
            .is_none());
        let request = log
            .request(&brief, &names, &kb, RECIPE, &missing(&["MPICH"]))
            .expect("a pick request");
        let schema = &request.output_schema.as_ref().expect("a schema").schema;
        let allowed = schema["properties"]["package"]["enum"].to_string();
        assert!(allowed.contains("mpich-lite"), "{allowed}");
        assert!(!allowed.contains("cmake"), "declared already: {allowed}");
        let fixed = log
            .answer(&brief, &names, RECIPE, r#"{"package": "mpich-lite"}"#)
            .expect("an answer to the pick")
            .expect("a checked pick");
        assert!(fixed.contains("depends_on(\"mpich-lite\")"), "{fixed}");
        // A re-ask of the same question is still answered as a pick.
        assert!(log.answer(&brief, &names, RECIPE, "{}").is_some());
        // The name is not asked again, and the next request leaves the
        // usual answer path to the usual repair.
        assert!(log
            .request(&brief, &names, &kb, RECIPE, &missing(&["MPICH"]))
            .is_none());
        assert!(log.answer(&brief, &names, RECIPE, "{}").is_none());
        let other = log
            .request(&brief, &names, &kb, RECIPE, &missing(&["zlib_x"]))
            .expect("another name is asked");
        drop(other);
        let refused = log
            .answer(&brief, &names, RECIPE, r#"{"package": "nonesuch"}"#)
            .expect("an answer to the pick");
        assert!(refused.unwrap_err().contains("not one of the candidates"));
    }
}
