//! The plan of a run: every (task, configuration) pair with a stable index,
//! the resolved configuration and the sources, written to `plan.json` in
//! the output directory so that `bench run-one DIR --index I` (a Slurm
//! array task) and `bench status` need nothing else.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::BenchConfig;
use crate::error::{BenchError, Result};
use crate::journal::{Header, JOURNAL_FORMAT};
use crate::task::Task;

pub const PLAN_FILE: &str = "plan.json";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pair {
    pub index: usize,
    pub task: String,
    pub config: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub fingerprint: String,
    pub config: BenchConfig,
    pub tasks: Vec<Task>,
    /// Task id → local source directory (a repair task's broken recipe).
    pub sources: BTreeMap<String, PathBuf>,
    /// Task id → the version of its local snapshot, where the source map
    /// gives one (asked for instead of the task file's version).
    #[serde(default)]
    pub versions: BTreeMap<String, String>,
    pub pairs: Vec<Pair>,
    /// The `packsmith` executable each pair runs.
    pub packsmith_bin: PathBuf,
}

impl Plan {
    /// Pairs ordered task-major, so that an interrupted run has every
    /// configuration of the first tasks (paired comparisons need both).
    pub fn new(
        config: BenchConfig,
        tasks: Vec<Task>,
        sources: BTreeMap<String, PathBuf>,
        versions: BTreeMap<String, String>,
        packsmith_bin: PathBuf,
    ) -> Self {
        let mut pairs = Vec::new();
        for t in &tasks {
            for c in &config.configurations {
                pairs.push(Pair {
                    index: pairs.len(),
                    task: t.id().to_string(),
                    config: c.name.clone(),
                });
            }
        }
        Self {
            fingerprint: config.fingerprint(),
            config,
            tasks,
            sources,
            versions,
            pairs,
            packsmith_bin,
        }
    }

    pub fn header(&self) -> Header {
        Header {
            format: JOURNAL_FORMAT,
            fingerprint: self.fingerprint.clone(),
            configurations: self
                .config
                .configurations
                .iter()
                .map(|c| c.name.clone())
                .collect(),
            pairs: self.pairs.len(),
        }
    }

    pub fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id() == id)
    }

    pub fn read(out: &Path) -> Result<Self> {
        let path = out.join(PLAN_FILE);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            BenchError::bad_input(format!("could not read {}: {e}", path.display()))
                .hint("pass the --out directory of a `packsmith bench run`")
        })?;
        serde_json::from_str(&text).map_err(|e| {
            BenchError::bad_input(format!("{} is not a bench plan: {e}", path.display()))
                .hint("pass the --out directory of a `packsmith bench run` of this version")
        })
    }

    /// Writes `plan.json`, or checks that the one there is for the same
    /// pairs (a resumed run must not change what it runs).
    pub fn write_or_check(&self, out: &Path) -> Result<()> {
        let path = out.join(PLAN_FILE);
        if path.exists() {
            let old = Self::read(out)?;
            if old.fingerprint != self.fingerprint {
                return Err(BenchError::bad_input(format!(
                    "{} holds a run of other configurations (fingerprint {} ≠ {})",
                    out.display(),
                    old.fingerprint,
                    self.fingerprint
                ))
                .hint("use a new --out directory, or rerun with the configuration that wrote it"));
            }
            if old.pairs != self.pairs {
                return Err(BenchError::bad_input(format!(
                    "{} holds a run of other tasks ({} pairs there, {} now)",
                    out.display(),
                    old.pairs.len(),
                    self.pairs.len()
                ))
                .hint("rerun with the same task file and filters, or use a new --out directory"));
            }
        }
        let text = serde_json::to_vec_pretty(self)
            .map_err(|e| BenchError::environment(format!("could not encode the plan: {e}")))?;
        packsmith_exec::atomic_write(&path, &text)
            .map_err(|e| BenchError::environment(e.to_string()))
    }
}
