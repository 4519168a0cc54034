//! Confinement to the repository root. A path from the model is relative;
//! absolute paths and `..` are refused outright, and the canonical result
//! must still lie under the canonical root, which catches symlinks that
//! point outside.

use std::path::{Component, Path, PathBuf};

use super::ToolError;

/// A canonical repository root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRoot {
    root: PathBuf,
}

impl RepoRoot {
    /// Canonicalizes `root`; it must be an existing directory.
    pub fn new(root: &Path) -> std::io::Result<Self> {
        let root = root.canonicalize()?;
        if !root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", root.display()),
            ));
        }
        Ok(Self { root })
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The existing path `rel` names inside the root, canonical.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, ToolError> {
        let rel = rel.trim();
        let rel_path = Path::new(if rel.is_empty() { "." } else { rel });
        for c in rel_path.components() {
            match c {
                Component::RootDir | Component::Prefix(_) => {
                    return Err(ToolError::RespondToModel(format!(
                        "`{rel}` is absolute; give a path relative to the repository root"
                    )))
                }
                Component::ParentDir => {
                    return Err(ToolError::RespondToModel(format!(
                        "`{rel}` contains `..`; paths must stay inside the repository"
                    )))
                }
                Component::CurDir | Component::Normal(_) => {}
            }
        }
        let joined = self.root.join(rel_path);
        let canonical = joined.canonicalize().map_err(|_| {
            ToolError::RespondToModel(format!("`{rel}` does not exist in the repository"))
        })?;
        if !canonical.starts_with(&self.root) {
            return Err(ToolError::RespondToModel(format!(
                "`{rel}` points outside the repository (a symlink); it cannot be read"
            )));
        }
        Ok(canonical)
    }

    /// `path` relative to the root, for display (`.` for the root itself).
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(p) if p.as_os_str().is_empty() => ".".into(),
            Ok(p) => p.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}
