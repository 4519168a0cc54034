//! Makes sure Spack's Python can import clingo: the system Python if it
//! already can, else a venv under the prefix with clingo from PyPI.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::SetupError;

/// Real interpreters first: a pyenv shim on PATH is not a stable Python.
const PYTHONS: &[&str] = &["/usr/bin/python3", "/usr/local/bin/python3", "python3"];

/// Returns the `SPACK_PYTHON` to set, or None when the system Python
/// already imports clingo.
pub(crate) fn ensure_clingo(prefix: &Path) -> Result<Option<PathBuf>, SetupError> {
    let python = PYTHONS
        .iter()
        .map(PathBuf::from)
        .find(|p| runs(p, &["-c", "import sys"]))
        .ok_or_else(|| SetupError::NoPython(PYTHONS.join(", ")))?;
    if imports_clingo(&python) {
        return Ok(None);
    }
    let venv = prefix.join("venv");
    let venv_python = venv.join("bin/python3");
    // A rerun reuses a working venv; a half-made one is made again.
    if imports_clingo(&venv_python) {
        return Ok(Some(venv_python));
    }
    let _ = std::fs::remove_dir_all(&venv);
    let made = Command::new(&python)
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .map_err(|e| SetupError::NoClingo(e.to_string(), venv.clone()))?;
    if !made.status.success() {
        return Err(SetupError::NoClingo(
            format!(
                "`{} -m venv` failed ({}); install python3-venv",
                python.display(),
                String::from_utf8_lossy(&made.stderr).trim()
            ),
            venv,
        ));
    }
    let pip = Command::new(&venv_python)
        .args(["-m", "pip", "install", "--quiet", "clingo"])
        .output()
        .map_err(|e| SetupError::NoClingo(e.to_string(), venv.clone()))?;
    if !pip.status.success() || !imports_clingo(&venv_python) {
        return Err(SetupError::NoClingo(
            format!(
                "pip install clingo failed: {}",
                String::from_utf8_lossy(&pip.stderr).trim()
            ),
            venv,
        ));
    }
    Ok(Some(venv_python))
}

fn imports_clingo(python: &Path) -> bool {
    runs(python, &["-c", "import clingo"])
}

fn runs(program: &Path, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}
