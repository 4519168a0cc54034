//! A Python venv under the set-up's prefix with packages from PyPI: made,
//! filled by pip (its `PIP_*` settings passed on, a stalled download
//! stopped), and removed again when anything fails, so a rerun never
//! trusts a half-made one.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;

/// Making the venv and a quick import check.
pub(crate) const QUICK: Duration = Duration::from_secs(120);
/// pip's download: long enough for a slow mirror, and a stalled download
/// (no output for two minutes) ends it sooner.
const PIP: Duration = Duration::from_secs(900);

/// Makes `venv` with `python` and installs `packages` into it; returns
/// the venv's python, or why not (the venv is gone then).
pub(crate) fn make_with(python: &Path, venv: &Path, packages: &[&str]) -> Result<PathBuf, String> {
    let venv_python = venv.join("bin/python3");
    let _ = std::fs::remove_dir_all(venv);
    let made = packsmith_exec::run(
        &CommandSpec::new(python)
            .args(["-m", "venv"])
            .arg(venv)
            .timeout(QUICK),
    )
    .map_err(|e| e.to_string())?;
    if !made.success() {
        let _ = std::fs::remove_dir_all(venv);
        return Err(format!(
            "`{} -m venv` failed ({}); install python3-venv",
            python.display(),
            made.stderr.trim()
        ));
    }
    if let Err(why) = pip_install(&venv_python, packages.iter().map(OsStr::new)) {
        // Interrupted or failed: no half-made venv for the next run to trust.
        let _ = std::fs::remove_dir_all(venv);
        return Err(format!("pip install {} failed: {why}", packages.join(" ")));
    }
    Ok(venv_python)
}

/// `python -m pip install --quiet <args>`, with pip's own settings (index,
/// find-links, certificates) from `PIP_*`; or why it failed.
pub(crate) fn pip_install<'a>(
    python: &Path,
    args: impl IntoIterator<Item = &'a OsStr>,
) -> Result<(), String> {
    let mut pip = CommandSpec::new(python)
        .args(["-m", "pip", "install", "--quiet"])
        .args(args)
        .timeout(PIP)
        .stall_timeout(Duration::from_secs(120));
    for (key, value) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PIP_") {
            pip = pip.env(key, value);
        }
    }
    let out = packsmith_exec::run(&pip).map_err(|e| e.to_string())?;
    if out.success() {
        Ok(())
    } else if out.cancelled {
        Err("interrupted".to_string())
    } else if out.stalled || out.timed_out {
        Err("pip stopped making progress; check the network or PIP_INDEX_URL".to_string())
    } else {
        Err(out.stderr.trim().to_string())
    }
}

/// Whether `program args` runs and exits 0 within a short time.
pub(crate) fn runs(program: &Path, args: &[&str]) -> bool {
    packsmith_exec::run(&CommandSpec::new(program).args(args).timeout(QUICK))
        .is_ok_and(|o| o.success())
}
