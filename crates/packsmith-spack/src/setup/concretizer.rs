//! Makes sure Spack's Python can import clingo: the system Python if it
//! already can, else a venv under the prefix with clingo from PyPI.

use std::path::{Path, PathBuf};

use super::venv::runs;
use super::SetupError;

/// Real interpreters first: a pyenv shim on PATH is not a stable Python.
const PYTHONS: &[&str] = &["/usr/bin/python3", "/usr/local/bin/python3", "python3"];

/// The first Python 3 that runs.
pub(crate) fn system_python() -> Result<PathBuf, SetupError> {
    PYTHONS
        .iter()
        .map(PathBuf::from)
        .find(|p| runs(p, &["-c", "import sys"]))
        .ok_or_else(|| SetupError::NoPython(PYTHONS.join(", ")))
}

/// Returns the `SPACK_PYTHON` to set, or None when the system Python
/// already imports clingo.
pub(crate) fn ensure_clingo(prefix: &Path, python: &Path) -> Result<Option<PathBuf>, SetupError> {
    if imports_clingo(python) {
        return Ok(None);
    }
    let venv = prefix.join("venv");
    let venv_python = venv.join("bin/python3");
    // A rerun reuses a working venv; a half-made one is made again.
    if imports_clingo(&venv_python) {
        return Ok(Some(venv_python));
    }
    let venv_python = super::venv::make_with(python, &venv, &["clingo"])
        .map_err(|why| SetupError::NoClingo(why, venv.clone()))?;
    if !imports_clingo(&venv_python) {
        let _ = std::fs::remove_dir_all(&venv);
        return Err(SetupError::NoClingo(
            "clingo installed but does not import".into(),
            venv,
        ));
    }
    Ok(Some(venv_python))
}

fn imports_clingo(python: &Path) -> bool {
    runs(python, &["-c", "import clingo"])
}
