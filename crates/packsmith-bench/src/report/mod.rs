//! `bench report DIR [--against DIR2]`: Markdown, JSON and the
//! cumulative-success plot, from the journals alone.

mod aggregate;
mod fidelity;
mod markdown;
pub mod mcnemar;
mod nix_fidelity;
mod plot;
#[cfg(test)]
mod testing;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use aggregate::{config_stats, paired, ClassRate, ConfigStats, Paired, StageRate};
pub use fidelity::{ConfigFidelity, Hermetic, TaskFidelity};
pub use nix_fidelity::{ConfigNixFidelity, Mean, TaskNixFidelity};

use crate::error::{BenchError, Result};
use crate::journal::{self, PairResult};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSource {
    pub dir: PathBuf,
    /// The configurations as planned (from `plan.json`, when present).
    pub configurations: Vec<crate::config::Configuration>,
    pub timeout_secs: Option<u64>,
    pub fingerprint: String,
    pub pairs_planned: usize,
    pub pairs_done: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub runs: Vec<RunSource>,
    pub configurations: Vec<ConfigStats>,
    pub paired: Vec<Paired>,
    /// Spack fidelity and hermeticity, per configuration and per pair.
    pub fidelity: Vec<ConfigFidelity>,
    pub fidelity_tasks: Vec<TaskFidelity>,
    /// Nix fidelity to nixpkgs' own expressions.
    pub nix_fidelity: Vec<ConfigNixFidelity>,
    pub nix_fidelity_tasks: Vec<TaskNixFidelity>,
}

/// Where the report was written.
#[derive(Debug, Clone)]
pub struct Written {
    pub markdown: PathBuf,
    pub json: PathBuf,
    pub png: PathBuf,
    pub svg: PathBuf,
    pub report: Report,
}

/// Results grouped by configuration name.
type Groups = Vec<(String, Vec<PairResult>)>;

/// One run's results by configuration, in the journal header's order.
fn load(dir: &Path) -> Result<(RunSource, Groups)> {
    let path = journal::journal_path(dir);
    if !path.is_file() {
        return Err(BenchError::bad_input(format!(
            "{} has no {}",
            dir.display(),
            journal::JOURNAL_FILE
        ))
        .hint("pass the --out directory of a `packsmith bench run`"));
    }
    let c = journal::read(&path)?;
    let header = c.header.ok_or_else(|| {
        BenchError::bad_input(format!("{} has no header line", path.display()))
            .hint("the journal is damaged or not a bench journal")
    })?;
    let mut by_config: Groups = header
        .configurations
        .iter()
        .map(|n| (n.clone(), Vec::new()))
        .collect();
    let done = c.results.len();
    for r in c.results.into_values() {
        match by_config.iter_mut().find(|(n, _)| *n == r.config) {
            Some((_, v)) => v.push(r),
            None => by_config.push((r.config.clone(), vec![r])),
        }
    }
    let plan = crate::plan::Plan::read(dir).ok();
    Ok((
        RunSource {
            dir: dir.to_path_buf(),
            configurations: plan
                .as_ref()
                .map(|p| p.config.configurations.clone())
                .unwrap_or_default(),
            timeout_secs: plan.as_ref().map(|p| p.config.timeout_secs),
            fingerprint: header.fingerprint,
            pairs_planned: header.pairs,
            pairs_done: done,
        },
        by_config,
    ))
}

fn dir_label(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// Builds the report of `dir`, and of `against` beside it.
pub fn build(dir: &Path, against: Option<&Path>) -> Result<Report> {
    let (src, mut groups) = load(dir)?;
    let mut runs = vec![src];
    if let Some(other) = against {
        let (src2, groups2) = load(other)?;
        // Same names in both runs are told apart by their directory.
        let (l1, l2) = (dir_label(dir), dir_label(other));
        let clash = groups2
            .iter()
            .any(|(n, _)| groups.iter().any(|(m, _)| m == n));
        if clash {
            for (n, _) in &mut groups {
                *n = format!("{n}@{l1}");
            }
        }
        for (n, v) in groups2 {
            let name = if clash { format!("{n}@{l2}") } else { n };
            groups.push((name, v));
        }
        runs.push(src2);
    }
    groups.retain(|(_, v)| !v.is_empty());
    if groups.is_empty() {
        return Err(
            BenchError::bad_input(format!("{} has no finished pairs yet", dir.display()))
                .hint("run `packsmith bench status DIR` to see progress"),
        );
    }
    let k = groups
        .iter()
        .flat_map(|(_, v)| v.iter())
        .map(|r| r.attempts.max(r.success_attempt.unwrap_or(0)))
        .max()
        .unwrap_or(1)
        .max(1);
    let refs: Vec<(String, Vec<&PairResult>)> = groups
        .iter()
        .map(|(n, v)| (n.clone(), v.iter().collect()))
        .collect();
    let configurations = refs.iter().map(|(n, v)| config_stats(n, v, k)).collect();
    let mut pairs = Vec::new();
    for i in 0..refs.len() {
        for j in i + 1..refs.len() {
            let p = paired(&refs[i].0, &refs[i].1, &refs[j].0, &refs[j].1);
            if p.tasks > 0 {
                pairs.push(p);
            }
        }
    }
    let fidelity = refs
        .iter()
        .map(|(n, v)| fidelity::config_fidelity(n, v))
        .collect();
    let mut fidelity_tasks: Vec<TaskFidelity> = refs
        .iter()
        .flat_map(|(n, v)| fidelity::task_fidelity(n, v))
        .collect();
    // Stable: each task's configurations stay in the journal's order.
    fidelity_tasks.sort_by(|a, b| a.task.cmp(&b.task));
    let nix_fidelity = refs
        .iter()
        .map(|(n, v)| nix_fidelity::config_nix_fidelity(n, v))
        .collect();
    let mut nix_fidelity_tasks: Vec<TaskNixFidelity> = refs
        .iter()
        .flat_map(|(n, v)| nix_fidelity::task_nix_fidelity(n, v))
        .collect();
    nix_fidelity_tasks.sort_by(|a, b| a.task.cmp(&b.task));
    Ok(Report {
        runs,
        configurations,
        paired: pairs,
        fidelity,
        fidelity_tasks,
        nix_fidelity,
        nix_fidelity_tasks,
    })
}

/// Builds and writes `report.md`, `report.json` and the plot into `to`.
pub fn write(dir: &Path, against: Option<&Path>, to: &Path) -> Result<Written> {
    let report = build(dir, against)?;
    std::fs::create_dir_all(to).map_err(|e| BenchError::io("create", to, e))?;
    let stem = "cumulative-success";
    let series: Vec<plot::Series> = report
        .configurations
        .iter()
        .map(|c| plot::Series {
            name: &c.name,
            rates: &c.cumulative_success,
        })
        .collect();
    plot::cumulative_success(to, stem, "Cumulative success by attempt", &series)?;
    let md = markdown::render(&report, &format!("{stem}.png"));
    let json = serde_json::to_vec_pretty(&report)
        .map_err(|e| BenchError::environment(format!("could not encode the report: {e}")))?;
    let w = |p: &Path, b: &[u8]| {
        packsmith_exec::atomic_write(p, b).map_err(|e| BenchError::environment(e.to_string()))
    };
    let markdown = to.join("report.md");
    let json_path = to.join("report.json");
    w(&markdown, md.as_bytes())?;
    w(&json_path, &json)?;
    Ok(Written {
        markdown,
        json: json_path,
        png: to.join(format!("{stem}.png")),
        svg: to.join(format!("{stem}.svg")),
        report,
    })
}
