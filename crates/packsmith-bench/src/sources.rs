//! Where each task's source lives on this machine: the task's own `source`
//! field, else a mapping file (TOML, `[sources]` task id → directory, and
//! optionally `[versions]` task id → the version of that snapshot, which
//! the pair is then asked to package; `[extra_sources]`/`[extra_versions]`
//! are read the same way). A repair task's source is its broken recipe,
//! which the task file names itself. A task without a source is an error
//! before anything runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{BenchError, Result};
use crate::task::Task;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourcesFile {
    #[serde(default)]
    sources: BTreeMap<String, PathBuf>,
    #[serde(default)]
    versions: BTreeMap<String, String>,
    /// Sources kept apart by whoever prepared them (e.g. expected to fail).
    #[serde(default)]
    extra_sources: BTreeMap<String, PathBuf>,
    #[serde(default)]
    extra_versions: BTreeMap<String, String>,
}

/// Task id → local directory (and the snapshot's version, when known).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceMap(pub BTreeMap<String, PathBuf>, pub BTreeMap<String, String>);

impl SourceMap {
    pub fn read(path: &Path) -> Result<Self> {
        Self::read_with_root(path, None)
    }

    /// Reads a map whose relative paths resolve against `root` (the
    /// `--source-root` of the command line) or, without one, against the
    /// map's own directory; committed maps then name no machine's paths.
    pub fn read_with_root(path: &Path, root: Option<&Path>) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            BenchError::bad_input(format!("could not read source map {}: {e}", path.display()))
                .hint("pass a TOML file with a [sources] table: task = \"/abs/dir\"")
        })?;
        let mut file: SourcesFile = toml::from_str(&text).map_err(|e| {
            BenchError::bad_input(format!("{}: {e}", path.display())).hint(
                "the file holds [sources] (task = \"/abs/dir\"), optionally [versions], [extra_sources], [extra_versions]",
            )
        })?;
        for (k, v) in std::mem::take(&mut file.extra_sources) {
            if file.sources.contains_key(&k) {
                return Err(BenchError::bad_input(format!(
                    "{}: `{k}` is in both [sources] and [extra_sources]",
                    path.display()
                ))
                .hint("keep one entry per task"));
            }
            file.sources.insert(k, v);
        }
        file.versions
            .extend(std::mem::take(&mut file.extra_versions));
        // Relative paths are relative to the root given, else to the
        // mapping file, never to the caller's directory.
        let base = root.unwrap_or_else(|| path.parent().unwrap_or(Path::new(".")));
        Ok(Self(
            file.sources
                .into_iter()
                .map(|(k, v)| {
                    let v = if v.is_absolute() { v } else { base.join(v) };
                    (k, v)
                })
                .collect(),
            file.versions,
        ))
    }

    /// The snapshot's version of a task's source, when the map gives one.
    pub fn version(&self, id: &str) -> Option<&str> {
        self.1.get(id).map(String::as_str)
    }

    /// Whether a task has a source (its own or mapped).
    pub fn has_source(&self, task: &Task) -> bool {
        task.own_source().is_some() || self.0.contains_key(task.id())
    }

    /// The source of every task, or one error listing all that lack one or
    /// whose directory is missing.
    pub fn resolve(&self, tasks: &[Task]) -> Result<BTreeMap<String, PathBuf>> {
        let mut found = BTreeMap::new();
        let mut missing = Vec::new();
        let mut absent = Vec::new();
        for task in tasks {
            let dir = task
                .own_source()
                .map(PathBuf::from)
                .or_else(|| self.0.get(task.id()).cloned());
            // A repair pair's source is a recipe file, the others' a tree.
            let there = |d: &Path| match task {
                Task::Repair(_) => d.is_file(),
                _ => d.is_dir(),
            };
            match dir {
                None => missing.push(task.id().to_string()),
                Some(d) if !there(&d) => absent.push(format!("{} → {}", task.id(), d.display())),
                Some(d) => {
                    found.insert(task.id().to_string(), d);
                }
            }
        }
        if !missing.is_empty() {
            return Err(BenchError::bad_input(format!(
                "{} task(s) have no source: {}",
                missing.len(),
                short_list(&missing)
            ))
            .hint("pass --sources MAP.toml with a [sources] entry for each, run `packsmith bench fetch`, leave them out with --only-with-source, or narrow the set with --filter/--tasks/--limit"));
        }
        if !absent.is_empty() {
            return Err(BenchError::bad_input(format!(
                "{} source(s) do not exist: {}",
                absent.len(),
                short_list(&absent)
            ))
            .hint("fix the paths in the source map (directories), or the `broken` recipes of repair tasks (files)"));
        }
        Ok(found)
    }
}

fn short_list(items: &[String]) -> String {
    let mut s = items.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > 8 {
        s.push_str(&format!(" and {} more", items.len() - 8));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::parse_tasks;

    fn tasks() -> Vec<Task> {
        parse_tasks(
            r#"{"name": "a", "spack_dir": "a", "version": "1"}
{"name": "b", "spack_dir": "b", "version": "1"}"#,
            "t",
        )
        .unwrap()
    }

    #[test]
    fn a_source_root_replaces_the_maps_directory_for_relative_paths() {
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("map/sources.toml");
        std::fs::create_dir_all(map.parent().unwrap()).unwrap();
        std::fs::write(&map, "[sources]\na = \"a\"\nb = \"/abs/b\"\n").unwrap();
        let root = dir.path().join("trees");
        let m = SourceMap::read_with_root(&map, Some(&root)).unwrap();
        assert_eq!(m.0["a"], root.join("a"));
        assert_eq!(m.0["b"], Path::new("/abs/b"));
        let m = SourceMap::read(&map).unwrap();
        assert_eq!(m.0["a"], dir.path().join("map/a"));
    }

    #[test]
    fn resolves_relative_to_the_map_and_reports_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a-src")).unwrap();
        let map = dir.path().join("sources.toml");
        std::fs::write(&map, "[sources]\na = \"a-src\"\n").unwrap();
        let m = SourceMap::read(&map).unwrap();
        let err = m.resolve(&tasks()).unwrap_err();
        assert!(
            err.message.contains("1 task(s) have no source: b"),
            "{}",
            err.message
        );
        let found = m.resolve(&tasks()[..1]).unwrap();
        assert_eq!(found["a"], dir.path().join("a-src"));
    }

    #[test]
    fn versions_and_extra_tables_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("s.toml");
        std::fs::write(
            &map,
            "[sources]\na = \"/x/a\"\n[versions]\na = \"1.2\"\n[extra_sources]\nb = \"/x/b\"\n[extra_versions]\nb = \"0.4\"\n",
        )
        .unwrap();
        let m = SourceMap::read(&map).unwrap();
        assert_eq!(m.0["b"], PathBuf::from("/x/b"));
        assert_eq!(m.version("a"), Some("1.2"));
        assert_eq!(m.version("b"), Some("0.4"));
        std::fs::write(
            &map,
            "[sources]\na = \"/x/a\"\n[extra_sources]\na = \"/y\"\n",
        )
        .unwrap();
        assert!(SourceMap::read(&map).unwrap_err().message.contains("both"));
    }

    #[test]
    fn unknown_table_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("s.toml");
        std::fs::write(&map, "[source]\na = \"x\"\n").unwrap();
        let err = SourceMap::read(&map).unwrap_err();
        assert!(err.message.contains("unknown field"), "{}", err.message);
    }

    #[test]
    fn a_repair_tasks_source_is_its_broken_recipe_file() {
        let dir = tempfile::tempdir().unwrap();
        let recipe = dir.path().join("package.py");
        std::fs::write(&recipe, "").unwrap();
        let line = format!(
            r#"{{"id": "r.c.0", "package": "r", "class": "c", "stage": "load", "broken": "{}", "original": "{}"}}"#,
            recipe.display(),
            recipe.display()
        );
        let tasks = parse_tasks(&line, "t").unwrap();
        let m = SourceMap::default();
        assert!(m.has_source(&tasks[0]));
        assert_eq!(m.resolve(&tasks).unwrap()["r.c.0"], recipe);
        std::fs::remove_file(&recipe).unwrap();
        let err = m.resolve(&tasks).unwrap_err();
        assert!(err.message.contains("r.c.0 → "), "{}", err.message);
    }

    #[test]
    fn missing_directory_is_an_error() {
        let m = SourceMap(
            [("a".to_string(), PathBuf::from("/nonexistent/a"))].into(),
            BTreeMap::new(),
        );
        let err = m.resolve(&tasks()[..1]).unwrap_err();
        assert!(err.message.contains("/nonexistent/a"));
    }
}
