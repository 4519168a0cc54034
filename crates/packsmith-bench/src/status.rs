//! `bench status DIR`: progress from the plan and the journal.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::journal::{self, Outcome};
use crate::plan::Plan;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ConfigProgress {
    pub planned: usize,
    pub done: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub timeouts: usize,
    pub crashed: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    pub planned: usize,
    pub done: usize,
    pub torn_lines: usize,
    pub configurations: BTreeMap<String, ConfigProgress>,
    /// Slurm job ids submitted for this directory, if any.
    pub slurm_jobs: Vec<String>,
}

pub fn status(out: &Path) -> Result<Status> {
    let plan = Plan::read(out)?;
    let j = journal::read(&journal::journal_path(out))?;
    let mut configurations: BTreeMap<String, ConfigProgress> = BTreeMap::new();
    for p in &plan.pairs {
        configurations.entry(p.config.clone()).or_default().planned += 1;
    }
    for r in j.results.values() {
        let c = configurations.entry(r.config.clone()).or_default();
        c.done += 1;
        match r.outcome {
            Outcome::Succeeded => c.succeeded += 1,
            Outcome::Failed => c.failed += 1,
            Outcome::Timeout => c.timeouts += 1,
            Outcome::Crashed => c.crashed += 1,
        }
    }
    let slurm_jobs = std::fs::read_to_string(out.join("slurm").join("jobs.txt"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect();
    Ok(Status {
        planned: plan.pairs.len(),
        done: j.results.len(),
        torn_lines: j.torn_lines,
        configurations,
        slurm_jobs,
    })
}

impl Status {
    pub fn render(&self) -> String {
        let mut s = format!("{} of {} pairs finished\n", self.done, self.planned);
        for (name, c) in &self.configurations {
            s.push_str(&format!(
                "  {name}: {}/{} done — {} succeeded, {} failed, {} timeouts, {} crashed\n",
                c.done, c.planned, c.succeeded, c.failed, c.timeouts, c.crashed
            ));
        }
        if self.torn_lines > 0 {
            s.push_str(&format!(
                "  ({} torn journal line(s) skipped: a writer was killed mid-write)\n",
                self.torn_lines
            ));
        }
        if !self.slurm_jobs.is_empty() {
            s.push_str(&format!(
                "  Slurm jobs: {} (squeue -j {} for their state)\n",
                self.slurm_jobs.join(", "),
                self.slurm_jobs.join(",")
            ));
        }
        s
    }
}
