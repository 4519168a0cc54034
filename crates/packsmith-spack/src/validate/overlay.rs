//! One Spack repo and one config scope per attempt, so that a broken recipe
//! breaks only its own attempt (a syntax error in any `package.py` makes
//! every Spack command fail while that repo is configured).

use std::path::{Path, PathBuf};

use packsmith_exec::atomic_write;
use serde::{Deserialize, Serialize};

use super::ValidateError;

/// The files of one attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    /// `<run>/attempts/NN`.
    pub dir: PathBuf,
    pub package: String,
    /// The repo's namespace, unique per run and attempt.
    pub namespace: String,
    /// `<dir>/repo`, holding `repo.yaml` and `packages/<name>/package.py`.
    pub repo: PathBuf,
    /// `<dir>/scope`, passed as `spack -C`.
    pub scope: PathBuf,
    pub recipe: PathBuf,
    /// `<dir>/logs`, one file per stage.
    pub logs: PathBuf,
}

fn write(path: &Path, text: &str) -> Result<(), ValidateError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ValidateError::io("create", parent, e))?;
    }
    atomic_write(path, text.as_bytes()).map_err(|e| ValidateError::Io {
        action: "write",
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// YAML double-quoted scalar.
fn yaml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A Python identifier fragment from any run id.
fn ident(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes attempt `number` of `run_dir`: the overlay repo with `recipe` as
/// `packages/<package>/package.py`, and a scope whose `repos.yaml` puts
/// that repo in front of the configured ones, whose `mirrors.yaml` adds the
/// run's mirror, and whose `concretizer.yaml` turns reuse off so an edited
/// recipe is really rebuilt.
pub fn prepare_attempt(
    run_dir: &Path,
    run_id: &str,
    number: u32,
    package: &str,
    recipe: &str,
    mirror: Option<&Path>,
) -> Result<Attempt, ValidateError> {
    let valid = !package.is_empty()
        && package
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !valid {
        return Err(ValidateError::Invalid {
            what: "Spack package name",
            value: package.into(),
            why: "Spack names are lower-case letters, digits and `-`".into(),
        });
    }
    std::fs::create_dir_all(run_dir).map_err(|e| ValidateError::io("create", run_dir, e))?;
    let run_dir =
        std::fs::canonicalize(run_dir).map_err(|e| ValidateError::io("read", run_dir, e))?;
    let dir = run_dir.join("attempts").join(format!("{number:02}"));
    let namespace = format!("packsmith_{}_a{number:02}", ident(run_id));
    let repo = dir.join("repo");
    let scope = dir.join("scope");
    let logs = dir.join("logs");
    let recipe_path = repo.join("packages").join(package).join("package.py");
    write(
        &repo.join("repo.yaml"),
        &format!("repo:\n  namespace: {namespace}\n"),
    )?;
    write(&recipe_path, recipe)?;
    write(
        &scope.join("repos.yaml"),
        &format!("repos:\n- {}\n", yaml_str(&repo.display().to_string())),
    )?;
    write(
        &scope.join("concretizer.yaml"),
        "concretizer:\n  reuse: false\n",
    )?;
    if let Some(mirror) = mirror {
        write(
            &scope.join("mirrors.yaml"),
            &format!(
                "mirrors:\n  packsmith-run:\n    url: {}\n    binary: false\n",
                yaml_str(&format!("file://{}", mirror.display()))
            ),
        )?;
    }
    std::fs::create_dir_all(&logs).map_err(|e| ValidateError::io("create", &logs, e))?;
    Ok(Attempt {
        dir,
        package: package.into(),
        namespace,
        repo,
        scope,
        recipe: recipe_path,
        logs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attempts_are_separate_repos_and_scopes() {
        let run = tempfile::tempdir().unwrap();
        let a =
            prepare_attempt(run.path(), "run-1", 1, "demo", "x = 1\n", Some(run.path())).unwrap();
        let b = prepare_attempt(run.path(), "run-1", 2, "demo", "y = 2\n", None).unwrap();
        assert_ne!(a.namespace, b.namespace);
        assert_eq!(a.namespace, "packsmith_run_1_a01");
        assert_eq!(std::fs::read_to_string(&a.recipe).unwrap(), "x = 1\n");
        let repos = std::fs::read_to_string(a.scope.join("repos.yaml")).unwrap();
        assert!(repos.contains("attempts/01/repo"), "{repos}");
        assert!(a.scope.join("mirrors.yaml").exists());
        assert!(!b.scope.join("mirrors.yaml").exists());
        assert!(prepare_attempt(run.path(), "r", 3, "Bad Name", "", None).is_err());
    }
}
