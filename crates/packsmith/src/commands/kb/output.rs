//! What the `kb` verbs share: the knowledge base a command selects, the
//! facts file `similar` reads, and how results are printed.

use packsmith_core::RepoFacts;
use packsmith_spack_knowledge::kb::KnowledgeBase;

use crate::cli::KbSelect;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

pub fn open(select: &KbSelect) -> Result<KnowledgeBase, CliError> {
    KnowledgeBase::select(&cache_dir(), select.kb.as_deref()).map_err(CliError::from)
}

pub use crate::progress::{emit, json};

pub fn load_facts(path: &std::path::Path) -> Result<RepoFacts, CliError> {
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| {
            CliError::new(
                Exit::BadInput,
                format!("cannot read {}: {e}", path.display()),
            )
            .hint("pass a source directory or a facts.json written by `packsmith analyze --json`")
        })?;
        return serde_json::from_str(&text).map_err(|e| {
            CliError::new(
                Exit::BadInput,
                format!("{} is not a facts.json: {e}", path.display()),
            )
            .hint(
                "write one with `packsmith analyze DIR --json > facts.json`, or pass the directory",
            )
        });
    }
    let (root, info) =
        packsmith_analyze::source::resolve(&path.display().to_string(), &cache_dir(), &mut |l| {
            crate::progress::note(l)
        })
        .map_err(|e| CliError::from_error(Exit::BadInput, &e))?;
    packsmith_analyze::analyze_dir(&root, info)
        .map_err(|e| CliError::from_error(Exit::BadInput, &e))
}

/// One numbered line per reference, with what it shares with the target.
pub fn render_matches(matches: &[packsmith_spack_knowledge::retrieve::Match]) -> String {
    let mut t = String::new();
    for (i, m) in matches.iter().enumerate() {
        t.push_str(&format!(
            "{}. {}  score {:.3}  ({})\n",
            i + 1,
            m.name,
            m.score,
            m.why
        ));
        if !m.shared_deps.is_empty() {
            t.push_str(&format!(
                "   shared dependencies: {}\n",
                m.shared_deps.join(", ")
            ));
        }
        if !m.shared_opts.is_empty() {
            t.push_str(&format!(
                "   shared options: {}\n",
                m.shared_opts.join(", ")
            ));
        }
    }
    t
}
