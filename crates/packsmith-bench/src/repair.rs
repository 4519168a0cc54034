//! Repair tasks: a real Spack recipe broken by one typed mutation, with its
//! known fix beside it. The pair runs `packsmith repair` on the broken
//! recipe. Paths in a task file are relative to the file's directory, so a
//! committed task set names no machine's paths; they are made absolute when
//! the file is read, so a pair (or a Slurm array task) runs from anywhere.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A repair task (told apart from the other kinds by `broken`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RepairTask {
    /// Unique within the set, e.g. `zlib-ng.missing_import.0`.
    pub id: String,
    /// The Spack package (`--name`, and the run directory's name).
    pub package: String,
    /// The mutation class, e.g. `missing_import`.
    pub class: String,
    /// The stage the mutation breaks.
    pub stage: String,
    /// The last stage the repaired recipe must pass.
    #[serde(default = "default_until")]
    pub until: String,
    /// The broken `package.py`.
    pub broken: PathBuf,
    /// The recipe before the mutation.
    pub original: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// An install-stage task's source (a `.tar.gz`) and the version it is
    /// installed as (`packsmith repair --source --version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// What `packsmith repair --until` takes.
pub const UNTIL: &[&str] = &["load", "audit", "concretize", "install"];

fn default_until() -> String {
    "concretize".into()
}

/// Both become path components (`runs/<config>/<id>`, `<pair>/<package>`).
fn directory_name(what: &str, s: &str) -> Result<(), String> {
    if s.is_empty() || s.contains(['/', '\\']) || s.starts_with('.') {
        return Err(format!(
            "field `{what}`: `{s}` cannot be a directory name (no `/`, no leading `.`)"
        ));
    }
    Ok(())
}

impl RepairTask {
    /// The checks serde cannot make.
    pub(crate) fn check(&self) -> Result<(), String> {
        directory_name("id", &self.id)?;
        directory_name("package", &self.package)?;
        if !UNTIL.contains(&self.until.as_str()) {
            return Err(format!(
                "field `until`: `{}` is not one of {}",
                self.until,
                UNTIL.join(", ")
            ));
        }
        Ok(())
    }

    /// Resolves `broken` and `original` against `base` (the task file's
    /// directory); a recipe that is not there is an error naming the path.
    pub(crate) fn locate(&mut self, base: &Path) -> Result<(), String> {
        for (field, path) in [
            ("broken", &mut self.broken),
            ("original", &mut self.original),
        ] {
            let full = base.join(&*path);
            if !full.is_file() {
                return Err(format!(
                    "repair task `{}`: field `{field}`: {} is not a file (paths are relative to \
                     the task file's directory)",
                    self.id,
                    full.display()
                ));
            }
            *path = full;
        }
        if let Some(source) = &mut self.source {
            let full = base.join(&*source);
            if !full.is_file() {
                return Err(format!(
                    "repair task `{}`: field `source`: {} is not a file (paths are relative to \
                     the task file's directory)",
                    self.id,
                    full.display()
                ));
            }
            *source = full;
        }
        if self.source.is_some() != self.version.is_some() {
            return Err(format!(
                "repair task `{}`: `source` and `version` go together",
                self.id
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task() -> RepairTask {
        serde_json::from_str(
            r#"{"id": "z.c.0", "package": "z", "class": "c", "stage": "load", "broken": "r/package.py", "original": "r/original.py"}"#,
        )
        .unwrap()
    }

    #[test]
    fn until_defaults_to_concretize_and_is_checked() {
        let mut t = task();
        assert_eq!(t.until, "concretize");
        assert_eq!(t.check(), Ok(()));
        t.until = "build".into();
        assert!(t
            .check()
            .unwrap_err()
            .contains("`build` is not one of load, audit, concretize, install"));
        let mut t = task();
        t.package = "../z".into();
        assert!(t.check().unwrap_err().contains("field `package`"));
    }

    #[test]
    fn paths_resolve_against_the_base_and_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("r")).unwrap();
        std::fs::write(dir.path().join("r/package.py"), "").unwrap();
        let mut t = task();
        let err = t.locate(dir.path()).unwrap_err();
        assert!(err.contains("field `original`"), "{err}");
        assert!(err.contains(&dir.path().join("r/original.py").display().to_string()));
        std::fs::write(dir.path().join("r/original.py"), "").unwrap();
        let mut t = task();
        t.locate(dir.path()).unwrap();
        assert_eq!(t.broken, dir.path().join("r/package.py"));
        assert_eq!(t.original, dir.path().join("r/original.py"));
    }
}
