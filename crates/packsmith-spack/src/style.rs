//! The style check `spack style` makes on a recipe: isort, black and flake8
//! with Spack's own configuration (`pyproject.toml` and `.flake8` of the
//! Spack checkout), run on a copy of the recipe. flake8 gets the per-file
//! ignores Spack gives its package repositories (the star import of
//! `spack.package`), since the copy lives outside them. The tools come from
//! the set-up's style venv (`PACKSMITH_STYLE_BIN`) or PATH.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;

use crate::setup::{STYLE_BIN_VAR, STYLE_TOOLS};

/// One tool on one recipe: well under a second; a stuck one is stopped.
const TOOL_TIMEOUT: Duration = Duration::from_secs(60);

/// What Spack's package repositories ignore in flake8 (`.flake8`'s
/// per-file-ignores for `var/spack/repos/*/package.py`).
const PACKAGE_IGNORES: &str = "package.py:F403,F405,F821";

/// The three tools and the Spack checkout whose configuration they use.
#[derive(Debug, Clone)]
pub struct StyleTools {
    bin: PathBuf,
    spack_root: PathBuf,
}

/// What the tools said of a recipe: nothing when it is clean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StyleFindings {
    pub problems: Vec<String>,
}

impl StyleTools {
    /// The tools for the Spack of `env` (its `SPACK_ROOT`), from the
    /// set-up's style venv or else PATH; why not when one is missing.
    pub fn find(env: &BTreeMap<String, String>) -> Result<Self, String> {
        let spack_root = env
            .get("SPACK_ROOT")
            .map(PathBuf::from)
            .ok_or("no SPACK_ROOT in the Spack environment")?;
        if !spack_root.join(".flake8").is_file() || !spack_root.join("pyproject.toml").is_file() {
            return Err(format!(
                "{} has no .flake8 and pyproject.toml to take Spack's style from",
                spack_root.display()
            ));
        }
        let candidates = env.get(STYLE_BIN_VAR).map(PathBuf::from).into_iter().chain(
            std::env::var_os("PATH")
                .into_iter()
                .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>()),
        );
        for dir in candidates {
            if STYLE_TOOLS.iter().all(|t| dir.join(t).is_file()) {
                return Ok(Self {
                    bin: dir,
                    spack_root,
                });
            }
        }
        Err(format!(
            "{} not found; rerun `packsmith setup spack` with network to install them",
            STYLE_TOOLS.join(", ")
        ))
    }

    /// Runs the three tools on `recipe`; Err when a tool could not run at
    /// all (not when it found something).
    pub fn check(&self, recipe: &str) -> Result<StyleFindings, String> {
        let dir =
            tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
        let file = dir.path().join("package.py");
        std::fs::write(&file, recipe)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        let pyproject = self.spack_root.join("pyproject.toml");
        let mut problems = Vec::new();
        let isort = self.run(
            "isort",
            &[
                "--check-only".into(),
                "--diff".into(),
                "--settings-path".into(),
                pyproject.display().to_string(),
            ],
            &file,
        )?;
        if !isort.0 {
            problems.push("isort would reorder the imports (`spack style --fix`)".to_string());
        }
        let black = self.run(
            "black",
            &[
                "--check".into(),
                "--diff".into(),
                "--quiet".into(),
                "--config".into(),
                pyproject.display().to_string(),
            ],
            &file,
        )?;
        if !black.0 {
            let lines = changed_lines(&black.1);
            problems.push(format!(
                "black would reformat line(s) {} (`spack style --fix`)",
                lines.join(", ")
            ));
        }
        let flake8 = self.run(
            "flake8",
            &[
                format!("--config={}", self.spack_root.join(".flake8").display()),
                "--format=default".into(),
                format!("--per-file-ignores={PACKAGE_IGNORES}"),
            ],
            &file,
        )?;
        if !flake8.0 {
            problems.extend(flake8_findings(&flake8.1));
        }
        Ok(StyleFindings { problems })
    }

    /// (exit 0, stdout) of one tool on `file`.
    fn run(&self, tool: &str, args: &[String], file: &Path) -> Result<(bool, String), String> {
        let spec = CommandSpec::new(self.bin.join(tool))
            .args(args.iter().map(String::as_str))
            .arg(file)
            .cwd(file.parent().unwrap_or(Path::new(".")))
            .timeout(TOOL_TIMEOUT);
        let out = packsmith_exec::run(&spec).map_err(|e| format!("{tool}: {e}"))?;
        if out.timed_out || out.cancelled {
            return Err(format!("{tool} did not finish"));
        }
        match out.code {
            Some(0) => Ok((true, out.stdout)),
            Some(1) => Ok((false, out.stdout)),
            _ => Err(format!("{tool} failed: {}", out.stderr.trim())),
        }
    }
}

/// The old-side line numbers of a unified diff's hunks (`@@ -12,3 …`).
fn changed_lines(diff: &str) -> Vec<String> {
    diff.lines()
        .filter_map(|l| l.strip_prefix("@@ -"))
        .filter_map(|l| l.split([',', ' ']).next())
        .map(str::to_string)
        .collect()
}

/// flake8's `FILE:LINE:COL: CODE text` as `line LINE: CODE text`.
fn flake8_findings(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let _file = parts.next()?;
            let line = parts.next()?;
            let _col = parts.next()?;
            Some(format!("line {line}:{}", parts.next()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flake8_and_black_outputs_become_line_numbers() {
        assert_eq!(
            flake8_findings("/t/package.py:11:100: E501 line too long (158 > 99 characters)\n"),
            ["line 11: E501 line too long (158 > 99 characters)"]
        );
        assert_eq!(
            changed_lines("--- a\n+++ b\n@@ -44,14 +44,27 @@\n x\n@@ -3 +3 @@\n"),
            ["44", "3"]
        );
    }

    #[test]
    fn tools_are_looked_for_where_the_set_up_put_them() {
        let spack = tempfile::tempdir().unwrap();
        let mut env = BTreeMap::new();
        env.insert("SPACK_ROOT".to_string(), spack.path().display().to_string());
        env.insert("PATH".to_string(), String::new());
        let err = StyleTools::find(&env).unwrap_err();
        assert!(err.contains(".flake8"), "{err}");
        std::fs::write(spack.path().join(".flake8"), "[flake8]\n").unwrap();
        std::fs::write(spack.path().join("pyproject.toml"), "").unwrap();
        let bin = tempfile::tempdir().unwrap();
        env.insert(STYLE_BIN_VAR.to_string(), bin.path().display().to_string());
        for tool in STYLE_TOOLS {
            std::fs::write(bin.path().join(tool), "").unwrap();
        }
        let tools = StyleTools::find(&env).unwrap();
        assert_eq!(tools.bin, bin.path());
    }
}
