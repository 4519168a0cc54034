//! Errors of the loop itself. A failed build, a bad tool call or a model
//! that writes nonsense are not errors: they are attempts. What remains is
//! the run directory not being writable.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("could not write the run directory {path}: {source}\nhint: check that the output directory is writable and the disk is not full")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Write(#[from] packsmith_exec::AtomicWriteError),
    #[error(
        "{path} already holds a run\nhint: pass --replace to overwrite it, or choose another --out"
    )]
    RunExists { path: PathBuf },
    #[error("`{name}` cannot name a run directory\nhint: use a package name of letters, digits, `-`, `_` and `.`")]
    BadName { name: String },
}
