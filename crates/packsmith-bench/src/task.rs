//! Task sets: JSON Lines in the formats of `shared/bench/` (Spack E4S tasks
//! with ground-truth metadata, NixBench tasks) and repair tasks (a broken
//! Spack recipe to fix). Each line's format is told by its keys; unknown
//! keys, duplicate ids and missing recipe files are errors that name the
//! file and line, before anything runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};
pub use crate::repair::RepairTask;

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
    /// `dev` or `test` in a pre-registered corpus (`bench/corpus.jsonl`):
    /// tune on dev, run test once.
    #[serde(default)]
    pub split: Option<Split>,
    /// What the corpus script recorded with the draw: the public forge and
    /// `OWNER/REPO`, the first build-system class, the dependencies the
    /// default spec needs and those of them no external provides here, and
    /// the draw's seed. Read for the record, not used to run.
    #[serde(default)]
    pub forge: Option<String>,
    #[serde(default)]
    pub repo: Option<String>,
    #[serde(default)]
    pub primary_build_system: Option<String>,
    #[serde(default)]
    pub needed_here: Vec<String>,
    #[serde(default)]
    pub missing_here: Vec<String>,
    /// A package Spack 0.23 also has (corpus-4): that recipe's default
    /// version and the dependencies it needs here, recorded at the draw.
    #[serde(default)]
    pub version_0_23: Option<String>,
    #[serde(default)]
    pub needed_here_0_23: Vec<String>,
    #[serde(default)]
    pub missing_here_0_23: Vec<String>,
    #[serde(default)]
    pub seed: Option<u64>,
}

/// The half of a pre-registered corpus a task was drawn into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Dev,
    Test,
}

impl Split {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dev => "dev",
            Self::Test => "test",
        }
    }
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
// The tag is `ecosystem` for the plans already written; a repair task is
// a Spack one by `Task::ecosystem`.
#[serde(tag = "ecosystem", rename_all = "lowercase")]
pub enum Task {
    Spack(SpackTask),
    Nix(NixTask),
    Repair(RepairTask),
}

impl Task {
    /// The task's id, unique within a task set.
    pub fn id(&self) -> &str {
        match self {
            Self::Spack(t) => &t.name,
            Self::Nix(t) => &t.package_name,
            Self::Repair(t) => &t.id,
        }
    }

    pub fn ecosystem(&self) -> Ecosystem {
        match self {
            Self::Spack(_) | Self::Repair(_) => Ecosystem::Spack,
            Self::Nix(_) => Ecosystem::Nix,
        }
    }

    /// The version to package; empty for a repair task (its recipe has
    /// its versions already).
    pub fn version(&self) -> &str {
        match self {
            Self::Spack(t) => &t.version,
            Self::Nix(t) => &t.version,
            Self::Repair(_) => "",
        }
    }

    /// The local source the task file names itself, if any: a checkout,
    /// or a repair task's broken recipe (a file).
    pub fn own_source(&self) -> Option<&Path> {
        match self {
            Self::Spack(t) => t.source.as_deref().map(Path::new),
            Self::Nix(t) => t.source.as_deref().map(Path::new),
            Self::Repair(t) => Some(&t.broken),
        }
    }

    /// The name of the run directory the pair's command writes its
    /// `report.json` into, under the pair directory.
    pub fn run_name(&self) -> &str {
        match self {
            Self::Repair(t) => &t.package,
            _ => self.id(),
        }
    }

    /// A repair task's mutation class.
    pub fn repair_class(&self) -> Option<&str> {
        match self {
            Self::Repair(t) => Some(&t.class),
            _ => None,
        }
    }

    /// The corpus split a Spack task was drawn into, if any.
    pub fn split(&self) -> Option<Split> {
        match self {
            Self::Spack(t) => t.split,
            _ => None,
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

/// A line of a task file that is not a task: its number and what is wrong,
/// naming the field where one is at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidLine {
    pub line: usize,
    pub problem: String,
}

/// A task file read line by line: the valid tasks and every invalid line,
/// so that all problems are reported at once.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFile {
    /// Names the file in messages.
    pub origin: String,
    pub tasks: Vec<Task>,
    pub invalid: Vec<InvalidLine>,
}

impl TaskFile {
    /// Reads a task file; only an unreadable file is an error here. The
    /// recipes of repair tasks are found relative to the file's directory.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            BenchError::bad_input(format!("could not read task file {}: {e}", path.display()))
                .hint("pass a JSON Lines task file, e.g. shared/bench/spack-e4s-dev.jsonl")
        })?;
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        let base = std::path::absolute(parent.unwrap_or(Path::new(".")))
            .map_err(|e| BenchError::io("resolve", path, e))?;
        Ok(Self::parse_in(
            &text,
            &path.display().to_string(),
            Some(&base),
        ))
    }

    /// Parses JSON Lines text; `origin` names the input in messages. A
    /// repeated id is an invalid line (the first one stays). Repair tasks'
    /// paths stay as written.
    pub fn parse(text: &str, origin: &str) -> Self {
        Self::parse_in(text, origin, None)
    }

    /// As `parse`, with repair tasks' paths resolved against `base` (a
    /// recipe that is not there makes the line invalid).
    pub fn parse_in(text: &str, origin: &str, base: Option<&Path>) -> Self {
        let mut file = Self {
            origin: origin.to_string(),
            tasks: Vec::new(),
            invalid: Vec::new(),
        };
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let lineno = i + 1;
            if line.trim().is_empty() {
                continue;
            }
            let parsed = parse_line(line).and_then(|mut task| {
                if let (Task::Repair(t), Some(base)) = (&mut task, base) {
                    t.locate(base)?;
                }
                Ok(task)
            });
            let problem = match parsed {
                Err(problem) => problem,
                Ok(task) => match seen.get(task.id()) {
                    Some(first) => {
                        format!("duplicate task id `{}` (first on line {first})", task.id())
                    }
                    None => {
                        seen.insert(task.id().to_string(), lineno);
                        file.tasks.push(task);
                        continue;
                    }
                },
            };
            file.invalid.push(InvalidLine {
                line: lineno,
                problem,
            });
        }
        file
    }

    /// `origin:line: problem`, one line each.
    pub fn invalid_report(&self) -> Vec<String> {
        self.invalid
            .iter()
            .map(|bad| format!("{}:{}: {}", self.origin, bad.line, bad.problem))
            .collect()
    }

    /// The valid tasks; invalid lines are an error naming every one of
    /// them, unless `skip_invalid` lets the valid rest run.
    pub fn into_tasks(self, skip_invalid: bool) -> Result<Vec<Task>> {
        if !self.invalid.is_empty() && !skip_invalid {
            // One line per problem, each naming file and line.
            return Err(
                BenchError::bad_input(self.invalid_report().join("\n")).hint(format!(
                    "each line must be one Spack task (with spack_dir), one NixBench task (with \
                 attr_path) or one repair task (with broken), see shared/bench/README.md; fix the \
                 lines, or pass --skip-invalid to run the {} valid task{}",
                    self.tasks.len(),
                    if self.tasks.len() == 1 { "" } else { "s" }
                )),
            );
        }
        if self.tasks.is_empty() {
            let why = if self.invalid.is_empty() {
                "the file is empty"
            } else {
                "every line is invalid; fix them"
            };
            return Err(BenchError::bad_input(format!("{}: no tasks", self.origin)).hint(why));
        }
        Ok(self.tasks)
    }
}

/// Reads a task set; any invalid line is an error that names the file and
/// every invalid line.
pub fn read_tasks(path: &Path) -> Result<Vec<Task>> {
    TaskFile::read(path)?.into_tasks(false)
}

/// Parses JSON Lines text; `origin` names the input in errors.
pub fn parse_tasks(text: &str, origin: &str) -> Result<Vec<Task>> {
    TaskFile::parse(text, origin).into_tasks(false)
}

fn parse_line(line: &str) -> std::result::Result<Task, String> {
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not valid JSON: {e}"))?;
    let obj = value.as_object().ok_or("a task must be a JSON object")?;
    if obj.contains_key("spack_dir") {
        typed(value, "Spack task").map(Task::Spack)
    } else if obj.contains_key("attr_path") {
        typed(value, "Nix task").map(Task::Nix)
    } else if obj.contains_key("broken") {
        let t: RepairTask = typed(value, "repair task")?;
        t.check().map_err(|e| format!("repair task: {e}"))?;
        Ok(Task::Repair(t))
    } else {
        Err("neither a Spack task (no `spack_dir`), a Nix task (no `attr_path`) nor a repair task (no `broken`)".into())
    }
}

/// Deserializes one task, naming the field at fault (`field \`version\`:
/// invalid type: null, expected a string`).
fn typed<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    kind: &str,
) -> std::result::Result<T, String> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        // An unknown field's message names it already.
        if path == "." || inner.to_string().starts_with("unknown field") {
            format!("{kind}: {inner}")
        } else {
            format!("{kind}: field `{path}`: {inner}")
        }
    })
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
    /// Run the valid tasks of a file that has invalid lines.
    pub skip_invalid: bool,
    /// Keep only the tasks of this corpus split.
    pub split: Option<Split>,
}

impl TaskFilter {
    /// Reads a task file and keeps what the filter selects.
    pub fn read(&self, path: &Path) -> Result<Vec<Task>> {
        self.apply(TaskFile::read(path)?.into_tasks(self.skip_invalid)?)
    }

    pub fn apply(&self, tasks: Vec<Task>) -> Result<Vec<Task>> {
        let known: BTreeSet<&str> = tasks.iter().map(Task::id).collect();
        if let Some(bad) = self.ids.iter().find(|id| !known.contains(id.as_str())) {
            return Err(BenchError::bad_input(format!(
                "--tasks names `{bad}`, which is not in the task file"
            ))
            .hint("use task ids from the file (Spack `name`, Nix `package_name`, repair `id`)"));
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
        if let Some(split) = self.split {
            if !tasks.iter().any(|t| t.split().is_some()) {
                return Err(BenchError::bad_input(format!(
                    "--split {}: no task in the file has a `split`",
                    split.as_str()
                ))
                .hint(
                    "only a pre-registered corpus (bench/corpus.jsonl) is split into dev and test",
                ));
            }
        }
        let ids: BTreeSet<&str> = self.ids.iter().map(String::as_str).collect();
        let kept = tasks
            .into_iter()
            .filter(|t| self.split.is_none() || t.split() == self.split)
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
    fn a_package_spack_0_23_also_has_keeps_that_recipes_facts() {
        let line = SPACK.replace(
            "\"version\": \"1.0\"",
            "\"version\": \"1.0\", \"version_0_23\": \"0.9\", \"needed_here_0_23\": [\"cmake\"], \"missing_here_0_23\": []",
        );
        let tasks = parse_tasks(&line, "t.jsonl").unwrap();
        let Task::Spack(t) = &tasks[0] else {
            panic!("not a Spack task")
        };
        assert_eq!(t.version_0_23.as_deref(), Some("0.9"));
        assert_eq!(t.needed_here_0_23, ["cmake"]);
        assert!(t.missing_here_0_23.is_empty());
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
    fn split_keeps_one_half_of_a_corpus_and_is_refused_without_one() {
        let dev = SPACK.replace("\"url\": null", "\"url\": null, \"split\": \"dev\"");
        let test = SPACK
            .replace("alpha", "gamma")
            .replace("\"url\": null", "\"url\": null, \"split\": \"test\"");
        let tasks = parse_tasks(&format!("{dev}\n{test}\n"), "t").unwrap();
        let keep = |split| TaskFilter {
            split: Some(split),
            ..Default::default()
        };
        let kept = keep(Split::Test).apply(tasks.clone()).unwrap();
        assert_eq!(kept.iter().map(Task::id).collect::<Vec<_>>(), ["gamma"]);
        let kept = keep(Split::Dev).apply(tasks).unwrap();
        assert_eq!(kept.iter().map(Task::id).collect::<Vec<_>>(), ["alpha"]);
        let unsplit = parse_tasks(&format!("{SPACK}\n"), "t").unwrap();
        let err = keep(Split::Dev).apply(unsplit).unwrap_err();
        assert!(
            err.message.contains("no task in the file has a `split`"),
            "{}",
            err.message
        );
        let bad = SPACK.replace("\"url\": null", "\"url\": null, \"split\": \"train\"");
        assert!(parse_tasks(&format!("{bad}\n"), "t").is_err());
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

    /// A package with no release: every invalid line is named at once with
    /// its field, and --skip-invalid runs the valid rest.
    #[test]
    fn every_invalid_line_is_reported_with_its_field_and_can_be_skipped() {
        let no_release = SPACK
            .replace("alpha", "delta")
            .replace("\"version\": \"1.0\"", "\"version\": null");
        let bad_nix = NIX.replace("\"pname\": \"beta\"", "\"pname\": 7");
        let text = format!("{SPACK}\n{no_release}\n{bad_nix}\nnot json\n");
        let err = parse_tasks(&text, "t.jsonl").unwrap_err();
        let lines: Vec<&str> = err.message.lines().collect();
        assert_eq!(lines.len(), 3, "{}", err.message);
        assert!(
            lines[0].starts_with("t.jsonl:2: Spack task: field `version`: invalid type: null"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("t.jsonl:3: Nix task: field `pname`"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("t.jsonl:4: not valid JSON"),
            "{}",
            lines[2]
        );
        let hint = err.hint.as_deref().unwrap_or_default();
        assert!(
            hint.contains("--skip-invalid to run the 1 valid task"),
            "{hint}"
        );

        let file = TaskFile::parse(&text, "t.jsonl");
        assert_eq!(file.invalid.len(), 3);
        let kept = file.into_tasks(true).unwrap();
        assert_eq!(kept.iter().map(Task::id).collect::<Vec<_>>(), ["alpha"]);
    }

    const REPAIR: &str = r#"{"id": "zlib-ng.missing_import.0", "package": "zlib-ng", "class": "missing_import", "stage": "load", "broken": "recipes/z/package.py", "original": "recipes/z/original.py", "description": "line 3: removed the import"}"#;

    #[test]
    fn reads_a_repair_task_beside_the_others() {
        let tasks = parse_tasks(&format!("{SPACK}\n{REPAIR}\n{NIX}\n"), "t.jsonl").unwrap();
        let t = &tasks[1];
        assert_eq!(t.id(), "zlib-ng.missing_import.0");
        assert_eq!(t.ecosystem(), Ecosystem::Spack);
        assert_eq!(t.version(), "");
        assert_eq!(t.run_name(), "zlib-ng");
        assert_eq!(t.repair_class(), Some("missing_import"));
        assert_eq!(t.flag("installable_here"), None);
        let Task::Repair(r) = t else {
            panic!("not a repair task: {t:?}")
        };
        assert_eq!(r.until, "concretize");
        // Unparsed against a directory, the paths stay as written.
        assert_eq!(t.own_source(), Some(Path::new("recipes/z/package.py")));
        assert_eq!(r.original, Path::new("recipes/z/original.py"));
        // The plan stores tasks as they are.
        let back: Task = serde_json::from_value(serde_json::to_value(t).unwrap()).unwrap();
        assert_eq!(&back, t);
    }

    #[test]
    fn repair_task_errors_name_the_line_and_field() {
        let unknown = REPAIR.replace("\"stage\"", "\"stag\"");
        let until = REPAIR.replace(
            "\"stage\": \"load\"",
            "\"stage\": \"load\", \"until\": \"build\"",
        );
        let missing = REPAIR.replace("\"class\": \"missing_import\", ", "");
        let text = format!("{SPACK}\n{unknown}\n{until}\n{missing}\n");
        let err = parse_tasks(&text, "t.jsonl").unwrap_err();
        let lines: Vec<&str> = err.message.lines().collect();
        assert_eq!(lines.len(), 3, "{}", err.message);
        assert!(
            lines[0].starts_with("t.jsonl:2: repair task: unknown field `stag`"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("t.jsonl:3: repair task: field `until`: `build`"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("t.jsonl:4: repair task: missing field `class`"),
            "{}",
            lines[2]
        );
        assert!(err.hint.unwrap().contains("repair task (with broken)"));
    }

    /// A task file's recipes are found beside it, whatever the caller's
    /// directory; one that is missing names the file, line, id and path.
    #[test]
    fn repair_recipes_resolve_against_the_task_files_directory() {
        let dir = tempfile::tempdir().unwrap();
        let recipes = dir.path().join("set/recipes/z");
        std::fs::create_dir_all(&recipes).unwrap();
        std::fs::write(recipes.join("package.py"), "class Z: pass\n").unwrap();
        std::fs::write(recipes.join("original.py"), "").unwrap();
        let gone = REPAIR
            .replace("zlib-ng.missing_import.0", "gone")
            .replace("recipes/z/package.py", "recipes/gone/package.py");
        let file = dir.path().join("set/tasks.jsonl");
        std::fs::write(&file, format!("{REPAIR}\n{gone}\n")).unwrap();
        let read = TaskFile::read(&file).unwrap();
        assert_eq!(read.tasks.len(), 1);
        assert_eq!(
            read.tasks[0].own_source(),
            Some(recipes.join("package.py").as_path())
        );
        let bad = read.invalid_report();
        assert_eq!(bad.len(), 1);
        let want = format!(
            "{}:2: repair task `gone`: field `broken`: {} is not a file",
            file.display(),
            dir.path().join("set/recipes/gone/package.py").display()
        );
        assert!(bad[0].starts_with(&want), "{}", bad[0]);
        assert!(read_tasks(&file).is_err());
    }

    #[test]
    fn a_file_of_only_invalid_lines_has_no_tasks_even_when_skipping() {
        let err = TaskFile::parse("not json\n", "t.jsonl")
            .into_tasks(true)
            .unwrap_err();
        assert!(err.message.contains("no tasks"), "{}", err.message);
    }
}
