//! The knowledge base that matches a Spack: the one indexed from that
//! Spack's own package repository, found among the indexed ones in the
//! packsmith cache.

use std::path::{Path, PathBuf};

use packsmith_spack_knowledge::kb::{kb_dir, KnowledgeBase};

use crate::validate::SpackSetup;

/// The knowledge base indexed from `setup`'s package repository, if any.
/// Databases that do not open are skipped: another one may match.
pub fn knowledge_base_for(cache: &Path, setup: &SpackSetup) -> Option<KnowledgeBase> {
    let spack_root = spack_root(setup)?;
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let root = canonical(&spack_root);
    indexed_databases(cache).into_iter().find_map(|path| {
        let kb = KnowledgeBase::open(&path).ok()?;
        let repo = kb.meta("repo_path").unwrap_or_default();
        canonical(Path::new(&repo)).starts_with(&root).then_some(kb)
    })
}

/// Why a run has no knowledge base, for the note the user sees.
pub fn no_knowledge_base_note(cache: &Path) -> String {
    format!(
        "no knowledge base was indexed from this Spack's package repository (looked in {}); \
         dependency names are not checked and there are no lookup tools or references. \
         Run `packsmith kb index $SPACK_ROOT/var/spack/repos/builtin` once to add them",
        kb_dir(cache).display()
    )
}

/// `SPACK_ROOT`, else the checkout around the `spack` executable.
fn spack_root(setup: &SpackSetup) -> Option<PathBuf> {
    setup.env.get("SPACK_ROOT").map(PathBuf::from).or_else(|| {
        setup
            .spack_bin
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
    })
}

/// The `*.sqlite` files of the cache's knowledge-base directory, sorted.
fn indexed_databases(cache: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(kb_dir(cache))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "sqlite"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}
