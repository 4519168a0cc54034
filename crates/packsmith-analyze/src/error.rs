//! Errors that stop an analysis (bad content never does: it becomes a warning).

use packsmith_core::Hint;
use std::borrow::Cow;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    #[error("{path} is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("{path} holds no recognisable project (no CMakeLists.txt, configure.ac, meson.build, Makefile, pyproject.toml, setup.py, Cargo.toml, go.mod, package.json or Lazarus .lpi)")]
    NoProject { path: PathBuf },
    #[error("could not clone {url}: {reason}")]
    Clone { url: String, reason: String },
    #[error("interrupted (Ctrl-C) while git fetched {url}; git was stopped and its partial clone removed")]
    Interrupted { url: String },
    #[error("cannot export tag {tag} of {root}: {reason}")]
    Export {
        root: PathBuf,
        tag: String,
        reason: String,
    },
}

impl Hint for AnalyzeError {
    fn hint(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(match self {
            Self::NotFound { .. } => "check the path, or pass a git URL (https://…, git@…, file://…)",
            Self::NotADirectory { .. } => "pass the repository's top-level directory",
            Self::NoProject { .. } => {
                "pass the directory that holds the top-level build file; packsmith reads CMake, Autotools, Meson, Make, Python, Cargo, Go, npm and Lazarus projects"
            }
            Self::Clone { .. } => {
                "check the URL and your network; or clone it yourself and pass the local path"
            }
            Self::Interrupted { .. } => "run the same command again to start over",
            Self::Export { .. } => {
                "check out that tag yourself into another directory and pass it as the old source"
            }
        }))
    }

    /// A failed clone is the network's or the server's fault, not the input's.
    fn is_bad_input(&self) -> bool {
        !matches!(
            self,
            Self::Clone { .. } | Self::Interrupted { .. } | Self::Export { .. }
        )
    }
}
