//! `bench run` and `bench run-one`: check every input before anything
//! runs, write the plan and the journal header, skip what the journal
//! already holds, and hand the rest to an executor.

use std::path::{Path, PathBuf};

use crate::config::BenchConfig;
use crate::error::{BenchError, Result};
use crate::journal::{self, Outcome};
use crate::local::{run_local, Ran};
use crate::pair::run_pair;
use crate::plan::{Pair, Plan};
use crate::slurm;
use crate::sources::SourceMap;
use crate::task::TaskFilter;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Executor {
    Local,
    Slurm,
}

#[derive(Debug, Clone)]
pub struct RunOptions {
    pub tasks: PathBuf,
    pub filter: TaskFilter,
    pub sources: Option<PathBuf>,
    /// What relative paths of the source map are relative to (default:
    /// the map's directory).
    pub source_root: Option<PathBuf>,
    /// Leave out tasks that have no source instead of refusing to run.
    pub only_with_source: bool,
    /// A TOML file or baseline names.
    pub config: String,
    pub out: PathBuf,
    pub jobs: usize,
    pub executor: Executor,
    /// Overrides of the configuration file.
    pub model: Option<String>,
    pub timeout_secs: Option<u64>,
    pub cache: Option<String>,
    pub ground_truth: Option<PathBuf>,
    /// nixpkgs checkout or directory of reference expressions (Nix tasks).
    pub nix_reference: Option<PathBuf>,
    pub spack_release: Option<String>,
    /// `--spack` for every Spack pair.
    pub spack: Option<String>,
    /// The executable each pair runs.
    pub packsmith_bin: PathBuf,
    /// The executable Slurm array tasks run `bench run-one` with.
    pub runner_bin: PathBuf,
    pub sbatch: String,
}

/// What `bench run` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunSummary {
    Local {
        total: usize,
        already_done: usize,
        ran: Ran,
    },
    Submitted {
        total: usize,
        already_done: usize,
        submitted: usize,
        jobs: Vec<String>,
    },
}

/// Reads and checks every input, then returns the plan (nothing runs).
pub fn prepare(o: &RunOptions) -> Result<Plan> {
    let mut config = BenchConfig::load(&o.config)?;
    let map = match &o.sources {
        Some(p) => SourceMap::read_with_root(p, o.source_root.as_deref())?,
        None => SourceMap::default(),
    };
    let mut tasks = o.filter.read(&o.tasks)?;
    if o.only_with_source {
        tasks.retain(|t| map.has_source(t));
    }
    if tasks.is_empty() {
        return Err(BenchError::bad_input(format!(
            "no task of {} is left after the filters",
            o.tasks.display()
        ))
        .hint("loosen --filter/--tasks/--limit"));
    }
    let sources = map.resolve(&tasks)?;
    let versions = tasks
        .iter()
        .filter_map(|t| {
            map.version(t.id())
                .map(|v| (t.id().to_string(), v.to_string()))
        })
        .collect();
    if let Some(m) = &o.model {
        config.default_model(m);
    }
    if let Some(t) = o.timeout_secs {
        config.timeout_secs = t;
    }
    if let Some(c) = &o.cache {
        config.cache.mode = Some(c.clone());
    }
    if let Some(g) = &o.ground_truth {
        config.spack.ground_truth = Some(g.clone());
    }
    if let Some(r) = &o.nix_reference {
        config.nix.reference = Some(r.clone());
    }
    if let Some(s) = &o.spack {
        config.spack.spack = Some(s.clone());
    }
    if let Some(r) = &o.spack_release {
        config.spack.release = Some(r.clone());
    }
    // Re-check what the overrides may have broken.
    let config = config.checked()?;
    if let Some(g) = &config.spack.ground_truth {
        if !g.join("packages").is_dir() {
            return Err(BenchError::bad_input(format!(
                "ground truth {} has no packages/ directory",
                g.display()
            ))
            .hint("pass a Spack package repository root, e.g. <spack>/var/spack/repos/builtin"));
        }
    }
    if let Some(human) = config
        .configurations
        .iter()
        .find(|c| c.knobs.human_recipe())
    {
        if config.spack.ground_truth.is_none() {
            return Err(BenchError::bad_input(format!(
                "configuration `{}` runs the human recipes, but no ground truth names them",
                human.name
            ))
            .hint(
                "pass --ground-truth <spack>/var/spack/repos/builtin (or set [spack] ground_truth)",
            ));
        }
    }
    if let Some(r) = &config.nix.reference {
        if !r.is_dir() {
            return Err(BenchError::bad_input(format!(
                "nix reference {} is not a directory",
                r.display()
            ))
            .hint("pass a nixpkgs checkout, or a directory of <attr_path>.nix files"));
        }
    }
    let bin = std::fs::canonicalize(&o.packsmith_bin).map_err(|e| {
        BenchError::bad_input(format!(
            "packsmith executable {}: {e}",
            o.packsmith_bin.display()
        ))
    })?;
    Ok(Plan::new(config, tasks, sources, versions, bin))
}

pub fn run(o: &RunOptions) -> Result<RunSummary> {
    let plan = prepare(o)?;
    std::fs::create_dir_all(&o.out).map_err(|e| BenchError::io("create", &o.out, e))?;
    let out = std::fs::canonicalize(&o.out).map_err(|e| BenchError::io("resolve", &o.out, e))?;
    let journal = journal::open_or_create(&journal::journal_path(&out), &plan.header())?;
    plan.write_or_check(&out)?;
    let pending: Vec<Pair> = plan
        .pairs
        .iter()
        .filter(|p| {
            !journal
                .results
                .contains_key(&(p.task.clone(), p.config.clone()))
        })
        .cloned()
        .collect();
    let total = plan.pairs.len();
    let already_done = total - pending.len();
    match o.executor {
        Executor::Local => {
            let ran = run_local(&plan, &out, pending, o.jobs, already_done)?;
            Ok(RunSummary::Local {
                total,
                already_done,
                ran,
            })
        }
        Executor::Slurm => {
            let runner = std::fs::canonicalize(&o.runner_bin)
                .map_err(|e| BenchError::io("resolve", &o.runner_bin, e))?;
            let jobs = if pending.is_empty() {
                Vec::new()
            } else {
                slurm::submit(
                    &out,
                    &runner,
                    &plan.config.slurm,
                    plan.config.timeout_secs,
                    &pending,
                    Some(o.jobs),
                    &o.sbatch,
                )?
            };
            Ok(RunSummary::Submitted {
                total,
                already_done,
                submitted: pending.len(),
                jobs,
            })
        }
    }
}

/// One pair of a planned run (a Slurm array task). A pair already in the
/// journal is not run again. Returns the outcome, or None when skipped.
pub fn run_one(out: &Path, index: usize) -> Result<Option<Outcome>> {
    let plan = Plan::read(out)?;
    let pair = plan.pairs.get(index).cloned().ok_or_else(|| {
        BenchError::bad_input(format!(
            "index {index} is out of range: the plan in {} has {} pairs",
            out.display(),
            plan.pairs.len()
        ))
    })?;
    let path = journal::journal_path(out);
    let journal = journal::open_or_create(&path, &plan.header())?;
    if journal
        .results
        .contains_key(&(pair.task.clone(), pair.config.clone()))
    {
        return Ok(None);
    }
    let result = run_pair(&plan, out, &pair)?;
    journal::append(&path, &result)?;
    Ok(Some(result.outcome))
}
