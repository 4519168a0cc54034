//! Task sets: JSON Lines in the formats of `shared/bench/` (Spack E4S tasks
//! with ground-truth metadata, NixBench tasks). Each line's format is told
//! by its keys; unknown keys and duplicate ids are errors that name the
//! file and line, before anything runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};

/// A Spack task (`spack-e4s-dev.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpackTask {
    pub name: String,
    /// Directory under `packages/` of the ground-truth repository.
    pub spack_dir: String,
    pub version: String,
    #[serde(default)]
    pub git: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub homepage: Option<String>,
    #[serde(default)]
    pub build_systems: Vec<String>,
    #[serde(default)]
    pub depends_on: Vec<String>,
    #[serde(default)]
    pub variants: Vec<String>,
    #[serde(default)]
    pub in_spack_packages: Option<bool>,
    #[serde(default)]
    pub in_spack_0_23: Option<bool>,
    #[serde(default)]
    pub installable_here: Option<bool>,
    /// A local checkout, when the task file names one itself.
    #[serde(default)]
    pub source: Option<String>,
}

/// A NixBench task (`nixbench-dev.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NixTask {
    pub package_name: String,
    pub attr_path: String,
    pub pname: String,
    pub version: String,
    pub nixpkgs_base_commit: String,
    #[serde(default)]
    pub nixpkgs_init_commit: Option<String>,
    #[serde(default)]
    pub fetcher_function: Option<String>,
    #[serde(default)]
    pub fetcher: Option<String>,
    #[serde(default)]
    pub fetcher_literal_args: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub flag: Option<String>,
    #[serde(default)]
    pub package_set_derived: Option<String>,
    #[serde(default)]
    pub upstream_url_derived: Option<String>,
    #[serde(default)]
    pub ecosystem_hint_derived: Option<String>,
    #[serde(default)]
    pub random_order_470_version: Option<u64>,
    #[serde(default)]
    pub random_order_472_version: Option<u64>,
    #[serde(default)]
    pub vibenix_ci_id: Option<u64>,
    /// A local checkout, when the task file names one itself.
    #[serde(default)]
    pub source: Option<String>,
    /// The revision to check out of `source`.
    #[serde(default)]
    pub rev: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    Spack,
    Nix,
}

impl Ecosystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Spack => "spack",
            Self::Nix => "nix",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ecosystem", rename_all = "lowercase")]
pub enum Task {
    Spack(SpackTask),
    Nix(NixTask),
}

impl Task {
    /// The task's id, unique within a task set.
    pub fn id(&self) -> &str {
        match self {
            Self::Spack(t) => &t.name,
            Self::Nix(t) => &t.package_name,
        }
    }

    pub fn ecosystem(&self) -> Ecosystem {
        match self {
            Self::Spack(_) => Ecosystem::Spack,
            Self::Nix(_) => Ecosystem::Nix,
        }
    }

    pub fn version(&self) -> &str {
        match self {
            Self::Spack(t) => &t.version,
            Self::Nix(t) => &t.version,
        }
    }

    /// The local source the task file names itself, if any.
    pub fn own_source(&self) -> Option<&str> {
        match self {
            Self::Spack(t) => t.source.as_deref(),
            Self::Nix(t) => t.source.as_deref(),
        }
    }

    /// A named boolean field, for `--filter` (e.g. `installable_here`).
    pub fn flag(&self, field: &str) -> Option<bool> {
        match (self, field) {
            (Self::Spack(t), "installable_here") => t.installable_here,
            (Self::Spack(t), "in_spack_0_23") => t.in_spack_0_23,
            (Self::Spack(t), "in_spack_packages") => t.in_spack_packages,
            (Self::Nix(t), "unflagged") => Some(t.flag.is_none()),
            _ => None,
        }
    }
}

/// Reads a task set. Errors name the file and line.
pub fn read_tasks(path: &Path) -> Result<Vec<Task>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        BenchError::bad_input(format!("could not read task file {}: {e}", path.display()))
            .hint("pass a JSON Lines task file, e.g. shared/bench/spack-e4s-dev.jsonl")
    })?;
    parse_tasks(&text, &path.display().to_string())
}

/// Parses JSON Lines text; `origin` names the input in errors.
pub fn parse_tasks(text: &str, origin: &str) -> Result<Vec<Task>> {
    let mut tasks = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let task = parse_line(line).map_err(|e| {
            BenchError::bad_input(format!("{origin}:{lineno}: {e}"))
                .hint("each line must be one Spack task (with spack_dir) or one NixBench task (with attr_path); see shared/bench/README.md")
        })?;
        if let Some(first) = seen.insert(task.id().to_string(), lineno) {
            return Err(BenchError::bad_input(format!(
                "{origin}:{lineno}: duplicate task id `{}` (first on line {first})",
                task.id()
            ))
            .hint("task ids (Spack `name`, Nix `package_name`) must be unique; remove one line"));
        }
        tasks.push(task);
    }
    if tasks.is_empty() {
        return Err(BenchError::bad_input(format!("{origin}: no tasks")).hint("the file is empty"));
    }
    Ok(tasks)
}

fn parse_line(line: &str) -> std::result::Result<Task, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not valid JSON: {e}"))?;
    let obj = value.as_object().ok_or("a task must be a JSON object")?;
    if obj.contains_key("spack_dir") {
        serde_json::from_value(value)
            .map(Task::Spack)
            .map_err(|e| format!("Spack task: {e}"))
    } else if obj.contains_key("attr_path") {
        serde_json::from_value(value)
            .map(Task::Nix)
            .map_err(|e| format!("Nix task: {e}"))
    } else {
        Err("neither a Spack task (no `spack_dir`) nor a Nix task (no `attr_path`)".into())
    }
}

/// Which tasks of a set to run.
#[derive(Debug, Clone, Default)]
pub struct TaskFilter {
    /// Keep only tasks whose boolean field is true (`installable_here`, …).
    pub flags: Vec<String>,
    /// Keep only these ids (an unknown id is an error).
    pub ids: Vec<String>,
    /// Keep the first N after the other filters.
    pub limit: Option<usize>,
}

impl TaskFilter {
    pub fn apply(&self, tasks: Vec<Task>) -> Result<Vec<Task>> {
        let known: BTreeSet<&str> = tasks.iter().map(Task::id).collect();
        if let Some(bad) = self.ids.iter().find(|id| !known.contains(id.as_str())) {
            return Err(BenchError::bad_input(format!(
                "--tasks names `{bad}`, which is not in the task file"
            ))
            .hint("use task ids from the file (Spack `name`, Nix `package_name`)"));
        }
        for flag in &self.flags {
            if !tasks.iter().any(|t| t.flag(flag).is_some()) {
                return Err(BenchError::bad_input(format!(
                    "--filter {flag}: no task in the file has that field"
                ))
                .hint(
                    "Spack: installable_here, in_spack_0_23, in_spack_packages; Nix: unflagged",
                ));
            }
        }
        let ids: BTreeSet<&str> = self.ids.iter().map(String::as_str).collect();
        let kept = tasks
            .into_iter()
            .filter(|t| ids.is_empty() || ids.contains(t.id()))
            .filter(|t| self.flags.iter().all(|f| t.flag(f) == Some(true)));
        Ok(match self.limit {
            Some(n) => kept.take(n).collect(),
            None => kept.collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPACK: &str = r#"{"build_systems": ["CMakePackage"], "depends_on": ["c"], "git": "https://example.invalid/a.git", "homepage": null, "in_spack_0_23": true, "in_spack_packages": true, "installable_here": false, "name": "alpha", "spack_dir": "alpha", "url": null, "variants": [], "version": "1.0"}"#;
    const NIX: &str = r#"{"attr_path": "beta", "package_name": "beta", "pname": "beta", "version": "0.2", "nixpkgs_base_commit": "abc", "fetcher_literal_args": {"owner": "o"}, "flag": null}"#;

    #[test]
    fn reads_both_formats() {
        let tasks = parse_tasks(&format!("{SPACK}\n\n{NIX}\n"), "t.jsonl").unwrap();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0].id(), "alpha");
        assert_eq!(tasks[0].ecosystem(), Ecosystem::Spack);
        assert_eq!(tasks[1].id(), "beta");
        assert_eq!(tasks[1].ecosystem(), Ecosystem::Nix);
    }

    #[test]
    fn unknown_field_names_file_line_and_field() {
        let bad = SPACK.replace("\"url\"", "\"urll\"");
        let err = parse_tasks(&format!("{NIX}\n{bad}\n"), "t.jsonl").unwrap_err();
        assert!(err.message.starts_with("t.jsonl:2:"), "{}", err.message);
        assert!(err.message.contains("urll"), "{}", err.message);
    }

    #[test]
    fn duplicate_ids_are_rejected() {
        let err = parse_tasks(&format!("{SPACK}\n{SPACK}\n"), "t.jsonl").unwrap_err();
        assert!(err.message.contains("duplicate task id `alpha`"));
        assert!(err.message.contains("line 1"));
    }

    #[test]
    fn neither_format_is_an_error() {
        let err = parse_tasks("{\"name\": \"x\"}\n", "t.jsonl").unwrap_err();
        assert!(err.message.contains("neither"));
    }

    #[test]
    fn filters_by_flag_id_and_limit() {
        let a2 = SPACK
            .replace("alpha", "gamma")
            .replace("\"installable_here\": false", "\"installable_here\": true");
        let tasks = parse_tasks(&format!("{SPACK}\n{a2}\n{NIX}\n"), "t").unwrap();
        let f = TaskFilter {
            flags: vec!["installable_here".into()],
            ..Default::default()
        };
        let kept = f.apply(tasks.clone()).unwrap();
        assert_eq!(kept.iter().map(Task::id).collect::<Vec<_>>(), ["gamma"]);
        let f = TaskFilter {
            ids: vec!["beta".into(), "alpha".into()],
            limit: Some(1),
            ..Default::default()
        };
        assert_eq!(f.apply(tasks.clone()).unwrap()[0].id(), "alpha");
        let f = TaskFilter {
            ids: vec!["nope".into()],
            ..Default::default()
        };
        assert!(f.apply(tasks).unwrap_err().message.contains("nope"));
    }
}
