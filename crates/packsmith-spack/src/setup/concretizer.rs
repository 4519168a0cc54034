//! Makes sure Spack's Python can import clingo: the system Python if it
//! already can, else a venv under the prefix with clingo from PyPI.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;

use super::SetupError;

/// Making the venv and a quick import check.
const QUICK: Duration = Duration::from_secs(120);
/// pip's download of clingo: long enough for a slow mirror, and a stalled
/// download (no output for two minutes) ends it sooner.
const PIP: Duration = Duration::from_secs(900);

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
    let made = packsmith_exec::run(
        &CommandSpec::new(&python)
            .args(["-m", "venv"])
            .arg(&venv)
            .timeout(QUICK),
    )
    .map_err(|e| SetupError::NoClingo(e.to_string(), venv.clone()))?;
    if !made.success() {
        let _ = std::fs::remove_dir_all(&venv);
        return Err(SetupError::NoClingo(
            format!(
                "`{} -m venv` failed ({}); install python3-venv",
                python.display(),
                made.stderr.trim()
            ),
            venv,
        ));
    }
    let mut pip = CommandSpec::new(&venv_python)
        .args(["-m", "pip", "install", "--quiet", "clingo"])
        .timeout(PIP)
        .stall_timeout(Duration::from_secs(120));
    // pip's own settings (index, find-links, certificates) come from PIP_*.
    for (key, value) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PIP_") {
            pip = pip.env(key, value);
        }
    }
    let out =
        packsmith_exec::run(&pip).map_err(|e| SetupError::NoClingo(e.to_string(), venv.clone()))?;
    if !out.success() || !imports_clingo(&venv_python) {
        // Interrupted or failed: no half-made venv for the next run to trust.
        let _ = std::fs::remove_dir_all(&venv);
        let why = if out.cancelled {
            "interrupted".to_string()
        } else if out.stalled || out.timed_out {
            "pip stopped making progress; check the network or PIP_INDEX_URL".to_string()
        } else {
            out.stderr.trim().to_string()
        };
        return Err(SetupError::NoClingo(
            format!("pip install clingo failed: {why}"),
            venv,
        ));
    }
    Ok(Some(venv_python))
}

fn imports_clingo(python: &Path) -> bool {
    runs(python, &["-c", "import clingo"])
}

pub(crate) fn runs(program: &Path, args: &[&str]) -> bool {
    packsmith_exec::run(&CommandSpec::new(program).args(args).timeout(QUICK))
        .is_ok_and(|o| o.success())
}
