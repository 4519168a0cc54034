//! The two trees `packsmith update` compares: the new source (a path, a
//! git URL, as `packsmith spack` takes it, or a release archive on this
//! machine, unpacked into the cache) and the old one (`--old-source`, a
//! directory or an archive, else the new checkout's tag of the recipe's
//! newest version, exported into a temporary directory), each analyzed.

use std::path::{Path, PathBuf};

use packsmith_analyze::{analyze_dir, archive, source};
use packsmith_core::{RepoFacts, SourceInfo};

use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::note;

/// One analyzed tree and how to name it in the report.
pub struct Tree {
    pub root: PathBuf,
    pub facts: RepoFacts,
    pub described: String,
    /// The release archive the tree was unpacked from.
    pub archive: Option<PathBuf>,
    /// Keeps an exported tag's directory alive until the update is done.
    pub _scratch: Option<tempfile::TempDir>,
}

/// The new source, resolved and analyzed.
pub fn new_tree(given: &str) -> Result<Tree, CliError> {
    if let Some(path) = archive::local_archive(given) {
        return unpacked(&path, given);
    }
    let (root, info) = source::resolve(given, &cache_dir(), &mut |line| note(line))
        .map_err(|e| CliError::from_error(Exit::BadInput, &e))?;
    let described = match &info.release_tag {
        Some(tag) => format!("{given} (tag {tag})"),
        None => given.to_string(),
    };
    let facts = analyze_dir(&root, info).map_err(|e| CliError::from_error(Exit::BadInput, &e))?;
    Ok(Tree {
        root,
        facts,
        described,
        archive: None,
        _scratch: None,
    })
}

/// A release archive, unpacked once into the cache and analyzed.
fn unpacked(path: &Path, given: &str) -> Result<Tree, CliError> {
    let root = archive::unpack(path, &cache_dir()).map_err(|why| {
        CliError::new(Exit::BadInput, format!("cannot unpack {given}: {why}"))
            .hint("pass a .tar.gz, .tar.xz, .tar.bz2 or .zip release archive, or its unpacked tree")
    })?;
    let mut tree = analyzed(root, given.to_string(), None)?;
    tree.archive = Some(path.to_path_buf());
    Ok(tree)
}

/// The old source: `--old-source`, else the new checkout's tag of
/// `old_version`.
pub fn old_tree(
    old_source: Option<&Path>,
    new_root: &Path,
    old_version: &str,
) -> Result<Tree, CliError> {
    if let Some(dir) = old_source {
        if let Some(path) = archive::local_archive(&dir.to_string_lossy()) {
            return unpacked(&path, &dir.display().to_string());
        }
        if !dir.is_dir() {
            return Err(CliError::new(
                Exit::BadInput,
                format!(
                    "--old-source {} is neither a directory nor a release archive",
                    dir.display()
                ),
            )
            .hint("pass the source tree (or release archive) of the recipe's newest version"));
        }
        return analyzed(dir.to_path_buf(), dir.display().to_string(), None);
    }
    let Some(tag) = source::tag_for_version(new_root, old_version) else {
        return Err(CliError::new(
            Exit::BadInput,
            format!(
                "no source of {old_version} (the recipe's newest version): {} is no git \
                 checkout with a tag v{old_version} or {old_version}",
                new_root.display()
            ),
        )
        .hint(format!(
            "pass --old-source DIR with the source tree of {old_version}"
        )));
    };
    let scratch = tempfile::Builder::new()
        .prefix("packsmith-update-")
        .tempdir()
        .map_err(|e| {
            CliError::new(
                Exit::Environment,
                format!("cannot make a temporary directory: {e}"),
            )
            .hint("check that TMPDIR is writable")
        })?;
    let dest = scratch.path().join("old");
    source::export_tag(new_root, &tag, &dest).map_err(CliError::from)?;
    let described = format!("tag {tag} of {}", new_root.display());
    analyzed(dest, described, Some(scratch))
}

fn analyzed(
    root: PathBuf,
    described: String,
    scratch: Option<tempfile::TempDir>,
) -> Result<Tree, CliError> {
    let info = SourceInfo {
        kind: "path".into(),
        given: described.clone(),
        release_tag: None,
    };
    let facts = analyze_dir(&root, info).map_err(|e| CliError::from_error(Exit::BadInput, &e))?;
    Ok(Tree {
        root,
        facts,
        described,
        archive: None,
        _scratch: scratch,
    })
}
