//! The run directory, `<out>/<name>/`:
//!
//! ```text
//! trace.jsonl           one event per line, appended as it happens
//! attempts/NN/<recipe>  the recipe of attempt NN (package.py, package.nix)
//! attempts/NN/*.log     stage logs (written by the backend)
//! attempts/NN/diagnosis.json   the attempt's record and static diagnostics
//! attempts/NN/calls/KK.json    full requests and replies (RequestLog::Full only)
//! report.json, report.md
//! <recipe>              the recipe that passed, only when one did
//! best-attempt.<recipe> otherwise the attempt that got furthest, marked
//! ```
//!
//! Every file except the trace is written with `atomic_write`, so a crash
//! leaves either the old file or the new one. The trace is appended one
//! whole line per `write`, so a reader sees complete lines.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use packsmith_exec::atomic_write;
use serde::Serialize;

use crate::ecosystem::{AttemptDir, Diagnostic, Recipe};
use crate::error::AgentError;
use crate::events::{AgentEvent, TraceLine};
use crate::report::{AttemptRecord, RunReport};

pub const TRACE_FILE: &str = "trace.jsonl";
pub const REPORT_JSON: &str = "report.json";
pub const REPORT_MD: &str = "report.md";
pub const DIAGNOSIS_FILE: &str = "diagnosis.json";
pub const BEST_PREFIX: &str = "best-attempt.";

/// `attempts/NN/diagnosis.json`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct AttemptDiagnosis {
    pub record: AttemptRecord,
    /// The static check's findings on the attempt's final recipe.
    pub diagnostics: Vec<Diagnostic>,
}

pub struct RunDir {
    root: PathBuf,
    trace: File,
    seq: u64,
    started: Instant,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> AgentError + '_ {
    move |source| AgentError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl RunDir {
    /// Makes `<out>/<name>/` ready for a run, the one check of run
    /// directories: a name that cannot be a directory is refused, an
    /// existing run is an error unless `replace`, which removes it first.
    /// A backend that writes into the directory before the loop starts (a
    /// source mirror) claims it with this; [`RunDir::create`] then finds no
    /// run there.
    pub fn claim(out: &Path, name: &str, replace: bool) -> Result<PathBuf, AgentError> {
        let ok_name = !name.is_empty()
            && name != "."
            && name != ".."
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '+'));
        if !ok_name {
            return Err(AgentError::BadName { name: name.into() });
        }
        let root = out.join(name);
        if root.join(TRACE_FILE).exists() || root.join(REPORT_JSON).exists() {
            if !replace {
                return Err(AgentError::RunExists { path: root });
            }
            std::fs::remove_dir_all(&root).map_err(io_err(&root))?;
        }
        std::fs::create_dir_all(root.join("attempts")).map_err(io_err(&root))?;
        Ok(root)
    }

    /// Creates `<out>/<name>/`. An existing run there is an error unless
    /// `replace`, which removes it first.
    pub fn create(out: &Path, name: &str, replace: bool) -> Result<Self, AgentError> {
        let root = Self::claim(out, name, replace)?;
        let trace_path = root.join(TRACE_FILE);
        let trace = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&trace_path)
            .map_err(io_err(&trace_path))?;
        Ok(Self {
            root,
            trace,
            seq: 0,
            started: Instant::now(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Appends one event to the trace as a single write.
    pub fn trace(&mut self, event: &AgentEvent) -> Result<(), AgentError> {
        self.seq += 1;
        let line = TraceLine {
            seq: self.seq,
            t_ms: self.elapsed_ms(),
            event: event.clone(),
        };
        let mut text = serde_json::to_string(&line).map_err(|e| AgentError::Io {
            path: self.root.join(TRACE_FILE),
            source: std::io::Error::other(e),
        })?;
        text.push('\n');
        let path = self.root.join(TRACE_FILE);
        self.trace
            .write_all(text.as_bytes())
            .and_then(|()| self.trace.flush())
            .map_err(io_err(&path))
    }

    /// `attempts/NN/`, created.
    pub fn attempt_dir(&self, attempt: u32) -> Result<AttemptDir, AgentError> {
        let path = self.root.join("attempts").join(format!("{attempt:02}"));
        std::fs::create_dir_all(&path).map_err(io_err(&path))?;
        Ok(AttemptDir::new(path, attempt))
    }

    /// Writes the attempt's recipe; returns its path relative to the run.
    pub fn write_recipe(&self, attempt: u32, recipe: &Recipe) -> Result<String, AgentError> {
        let rel = format!(
            "attempts/{attempt:02}/{}",
            safe_file_name(&recipe.file_name)
        );
        atomic_write(&self.root.join(&rel), recipe.text.as_bytes())?;
        Ok(rel)
    }

    pub fn write_diagnosis(&self, diagnosis: &AttemptDiagnosis) -> Result<(), AgentError> {
        let path = self
            .root
            .join("attempts")
            .join(format!("{:02}", diagnosis.record.attempt))
            .join(DIAGNOSIS_FILE);
        self.write_json(&path, diagnosis)
    }

    /// Writes a full request and reply (or error) of one model call.
    pub fn write_call<T: Serialize>(
        &self,
        attempt: u32,
        call: u32,
        value: &T,
    ) -> Result<(), AgentError> {
        let path = self
            .root
            .join("attempts")
            .join(format!("{attempt:02}"))
            .join("calls")
            .join(format!("{call:02}.json"));
        self.write_json(&path, value)
    }

    pub fn write_report(&self, report: &RunReport) -> Result<(), AgentError> {
        rewrite_report(&self.root, report)
    }

    /// The recipe that passed, at `<run>/<file>`; returns the relative path.
    pub fn write_final(&self, recipe: &Recipe) -> Result<String, AgentError> {
        let rel = safe_file_name(&recipe.file_name);
        atomic_write(&self.root.join(&rel), recipe.text.as_bytes())?;
        Ok(rel)
    }

    /// The best failed attempt, at `<run>/best-attempt.<file>`.
    pub fn write_best(&self, recipe: &Recipe) -> Result<String, AgentError> {
        let rel = format!("{BEST_PREFIX}{}", safe_file_name(&recipe.file_name));
        atomic_write(&self.root.join(&rel), recipe.text.as_bytes())?;
        Ok(rel)
    }

    /// `path` relative to the run directory when inside it.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }

    fn write_json<T: Serialize>(&self, path: &Path, value: &T) -> Result<(), AgentError> {
        let mut text = serde_json::to_string_pretty(value).map_err(|e| AgentError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })?;
        text.push('\n');
        atomic_write(path, text.as_bytes())?;
        Ok(())
    }
}

/// A recipe file name with any directory part removed.
fn safe_file_name(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    if base.is_empty() || base == "." || base == ".." {
        "recipe".into()
    } else {
        base.to_string()
    }
}

/// Writes `report.json` and `report.md` of the run at `root` (atomically):
/// for the loop, and for a command that adds to the report after it.
pub fn rewrite_report(root: &Path, report: &RunReport) -> Result<(), AgentError> {
    let path = root.join(REPORT_JSON);
    let mut text = serde_json::to_string_pretty(report).map_err(|e| AgentError::Io {
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    text.push('\n');
    atomic_write(&path, text.as_bytes())?;
    atomic_write(&root.join(REPORT_MD), report.to_markdown().as_bytes())?;
    Ok(())
}
