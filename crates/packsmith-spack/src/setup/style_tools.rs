//! Spack's style tools (isort, black and flake8, the checkers `spack style`
//! runs on a recipe) in a venv of their own under the prefix, for the
//! review gate's style item. Optional: offline the set-up still works, and
//! the review says it only approximated the style.

use std::path::{Path, PathBuf};

use super::venv::{make_with, runs};

/// Pinned, so every set-up judges style alike.
const STYLE_PACKAGES: &[&str] = &["black==24.8.0", "isort==5.13.2", "flake8==7.1.1"];

/// The executables the review gate runs.
pub const STYLE_TOOLS: &[&str] = &["isort", "black", "flake8"];

/// The venv's `bin/` holding the three tools, made when missing; or why
/// not.
pub(crate) fn ensure_style_tools(prefix: &Path, python: &Path) -> Result<PathBuf, String> {
    let venv = prefix.join("style");
    let bin = venv.join("bin");
    if all_run(&bin) {
        return Ok(bin);
    }
    make_with(python, &venv, STYLE_PACKAGES)?;
    if all_run(&bin) {
        Ok(bin)
    } else {
        let _ = std::fs::remove_dir_all(&venv);
        Err(format!(
            "{} installed but do not run",
            STYLE_TOOLS.join(", ")
        ))
    }
}

fn all_run(bin: &Path) -> bool {
    STYLE_TOOLS
        .iter()
        .all(|t| runs(&bin.join(t), &["--version"]))
}
