//! The append-only journal: one JSON object per line, a header first, then
//! one record per finished (task, configuration) pair. Each append is one
//! `write` under an exclusive `flock` (Slurm array tasks share the file),
//! followed by `fsync`, so a record is either wholly there or not at all;
//! a line torn by a crash is skipped on reading and fenced off by a newline
//! before the next append.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use packsmith_nix::fidelity::NixFidelity;
use packsmith_spack_knowledge::score::Fidelity;
use serde::{Deserialize, Serialize};

use crate::error::{BenchError, Result};
use crate::task::Ecosystem;

pub const JOURNAL_FILE: &str = "journal.jsonl";
pub const JOURNAL_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub format: u32,
    /// `BenchConfig::fingerprint` of the configurations this journal is for.
    pub fingerprint: String,
    pub configurations: Vec<String>,
    pub pairs: usize,
}

/// How a pair ended, as the harness saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Succeeded,
    /// The run finished without a passing recipe.
    Failed,
    /// The per-pair limit was reached; the process group was killed.
    Timeout,
    /// The command ended without a readable report.
    Crashed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Timeout => "timeout",
            Self::Crashed => "crashed",
        }
    }
}

/// One finished pair: what the report needs, so that a report is made
/// from the journal alone.
/// What the model spent on the attempts a passing recipe descends from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelPath {
    pub model_calls: u32,
    pub tokens: u64,
    pub seconds: f64,
    /// The model jobs on the path (`recipe_edits`, `pick_package`; `rewrite` for
    /// a free answer), each once, in path order from the passing attempt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairResult {
    pub index: usize,
    pub task: String,
    pub config: String,
    pub ecosystem: Ecosystem,
    pub outcome: Outcome,
    /// The run report's status (`succeeded`, `attempts_exhausted`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Wall time of the whole subprocess, as the harness measured it.
    pub wall_ms: u64,
    /// The pair's run directory, relative to the bench output directory.
    pub run_dir: String,
    /// The ecosystem's ordered stages, as the report lists them.
    #[serde(default)]
    pub stages: Vec<String>,
    /// Stages that some attempt passed.
    #[serde(default)]
    pub stages_passed: Vec<String>,
    pub attempts: u32,
    /// The first attempt that passed every stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub success_attempt: Option<u32>,
    /// Who made the recipe that passed: `draft` (the deterministic first
    /// draft, its static repairs included), `rules` (rule repairs after a
    /// failed stage, no model call on its way), `model` (a model call made
    /// some attempt the passing recipe descends from: without the model the
    /// run would have stopped before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_by: Option<String>,
    /// Model tokens and seconds spent on the way to the passing recipe,
    /// when `installed_by` is `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_path: Option<ModelPath>,
    /// The last failing attempt's class (`timeout`/`crashed` for those).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<String>,
    pub model_calls: u32,
    pub tool_calls: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s_d: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub s_v: Option<f64>,
    /// Dependency and variant fidelity to the human recipe (Spack).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fidelity: Option<Fidelity>,
    /// Fidelity to nixpkgs' own expression (Nix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nix_fidelity: Option<NixFidelity>,
    /// Which recipe was scored: `final` or `best`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scored: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_error: Option<String>,
    /// A repair task's mutation class, so the report can break repairs
    /// down by class from the journal alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_class: Option<String>,
    /// The levels the run reached (installed, smoke_tested, review_clean)
    /// and its review's open items, from the report's extras.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub levels: Option<serde_json::Value>,
    /// The model's smoke test where the deterministic one had nothing to
    /// run (`report.extras.smoke_job`: its answer, check and whether it
    /// was written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smoke_job: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub review_open: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
enum Record {
    Header(Header),
    Pair(Box<PairResult>),
}

/// What a journal holds.
#[derive(Debug, Clone, Default)]
pub struct JournalContents {
    pub header: Option<Header>,
    /// By (task, config); the first record of a pair wins.
    pub results: BTreeMap<(String, String), PairResult>,
    /// Lines that did not parse (a crash mid-write).
    pub torn_lines: usize,
}

pub fn journal_path(out: &Path) -> PathBuf {
    out.join(JOURNAL_FILE)
}

/// Reads a journal; a missing file is an empty journal.
pub fn read(path: &Path) -> Result<JournalContents> {
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(JournalContents::default()),
        Err(e) => return Err(BenchError::io("read", path, e)),
    };
    let mut c = JournalContents::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Record>(line) {
            Ok(Record::Header(h)) => {
                c.header.get_or_insert(h);
            }
            Ok(Record::Pair(p)) => {
                c.results
                    .entry((p.task.clone(), p.config.clone()))
                    .or_insert(*p);
            }
            Err(_) => c.torn_lines += 1,
        }
    }
    Ok(c)
}

/// Creates the journal with `header`, or checks that an existing one was
/// written for the same configurations.
pub fn open_or_create(path: &Path, header: &Header) -> Result<JournalContents> {
    let existing = read(path)?;
    match &existing.header {
        Some(h) if h.fingerprint != header.fingerprint => Err(BenchError::bad_input(format!(
            "{} was written for other configurations (fingerprint {}, configurations {}); this run's fingerprint is {} ({})",
            path.display(),
            h.fingerprint,
            h.configurations.join(", "),
            header.fingerprint,
            header.configurations.join(", ")
        ))
        .hint("use a new --out directory, or rerun with the configuration that wrote it")),
        Some(_) => Ok(existing),
        None if !existing.results.is_empty() => Err(BenchError::bad_input(format!(
            "{} has results but no header line",
            path.display()
        ))
        .hint("the journal is damaged; use a new --out directory")),
        None => {
            append_record(path, &Record::Header(header.clone()))?;
            read(path)
        }
    }
}

/// Writes the journal anew with `header` and `results` (temp file, fsync,
/// rename): for `bench rescore`, never while a run appends to it.
pub fn rewrite(path: &Path, header: &Header, results: &[PairResult]) -> Result<()> {
    let encode = |record: &Record| {
        serde_json::to_string(record)
            .map_err(|e| BenchError::environment(format!("could not encode a journal record: {e}")))
    };
    let mut text = encode(&Record::Header(header.clone()))?;
    text.push('\n');
    for r in results {
        text.push_str(&encode(&Record::Pair(Box::new(r.clone())))?);
        text.push('\n');
    }
    packsmith_exec::atomic_write(path, text.as_bytes())
        .map_err(|e| BenchError::environment(e.to_string()))
}

/// Appends one pair result durably.
pub fn append(path: &Path, result: &PairResult) -> Result<()> {
    append_record(path, &Record::Pair(Box::new(result.clone())))
}

fn append_record(path: &Path, record: &Record) -> Result<()> {
    let mut line = serde_json::to_string(record)
        .map_err(|e| BenchError::environment(format!("could not encode a journal record: {e}")))?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)
        .map_err(|e| BenchError::io("open", path, e))?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| BenchError::io("lock", path, e.into()))?;
    // A line torn by a crash must not swallow this record.
    if !ends_with_newline(&mut file).map_err(|e| BenchError::io("read", path, e))? {
        line.insert(0, '\n');
    }
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| BenchError::io("append to", path, e))?;
    // The lock goes with the file descriptor.
    Ok(())
}

fn ends_with_newline(file: &mut File) -> std::io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut b = [0u8; 1];
    file.read_exact(&mut b)?;
    Ok(b[0] == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn result(task: &str, config: &str, outcome: Outcome) -> PairResult {
        PairResult {
            index: 0,
            task: task.into(),
            config: config.into(),
            ecosystem: Ecosystem::Spack,
            outcome,
            status: None,
            reason: None,
            exit_code: Some(0),
            wall_ms: 10,
            run_dir: format!("runs/{config}/{task}"),
            stages: vec![],
            stages_passed: vec![],
            attempts: 1,
            success_attempt: None,
            installed_by: None,
            model_path: None,
            failure_class: None,
            model_calls: 0,
            tool_calls: 0,
            prompt_tokens: 0,
            completion_tokens: 0,
            cost_usd: 0.0,
            s_d: None,
            s_v: None,
            fidelity: None,
            nix_fidelity: None,
            scored: None,
            score_error: None,
            repair_class: None,
            levels: None,
            smoke_job: None,
            review_open: Vec::new(),
        }
    }

    fn header(fp: &str) -> Header {
        Header {
            format: JOURNAL_FORMAT,
            fingerprint: fp.into(),
            configurations: vec!["a".into()],
            pairs: 2,
        }
    }

    #[test]
    fn appends_reads_and_refuses_other_configurations() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        assert!(open_or_create(&path, &header("f1"))
            .unwrap()
            .results
            .is_empty());
        append(&path, &result("t1", "a", Outcome::Succeeded)).unwrap();
        let c = open_or_create(&path, &header("f1")).unwrap();
        assert_eq!(c.results.len(), 1);
        let err = open_or_create(&path, &header("f2")).unwrap_err();
        assert!(
            err.message.contains("other configurations"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_torn_line_is_skipped_and_fenced_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        open_or_create(&path, &header("f")).unwrap();
        append(&path, &result("t1", "a", Outcome::Failed)).unwrap();
        // A crash in the middle of a write.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"record\":\"pair\",\"task\":\"t2").unwrap();
        drop(f);
        append(&path, &result("t3", "a", Outcome::Timeout)).unwrap();
        let c = read(&path).unwrap();
        assert_eq!(c.torn_lines, 1);
        let tasks: Vec<_> = c.results.keys().map(|k| k.0.as_str()).collect();
        assert_eq!(tasks, ["t1", "t3"]);
    }

    #[test]
    fn first_record_of_a_pair_wins() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(JOURNAL_FILE);
        open_or_create(&path, &header("f")).unwrap();
        append(&path, &result("t1", "a", Outcome::Failed)).unwrap();
        append(&path, &result("t1", "a", Outcome::Succeeded)).unwrap();
        let c = read(&path).unwrap();
        assert_eq!(c.results.len(), 1);
        assert_eq!(c.results.values().next().unwrap().outcome, Outcome::Failed);
    }
}
