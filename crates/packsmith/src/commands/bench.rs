//! `packsmith bench`: fetch, run, run-one (a Slurm array task), status,
//! report. The work is in `packsmith-bench`; this file is flags and output.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use packsmith_bench::run::{Executor, RunOptions, RunSummary};
use packsmith_bench::task::{Split, TaskFile, TaskFilter};

use crate::env_vars::PACKSMITH_BENCH_BIN;
use crate::exit::{bench_error, CliError, Exit};
use crate::progress::note;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Clone each task's source into DIR and write DIR/sources.toml (needs
    /// network; failures are listed per task).
    Fetch(FetchArgs),
    /// Run every (task, configuration) pair; resumes from the journal in
    /// --out, so a rerun after a crash or kill repeats nothing finished.
    Run(Box<RunArgs>),
    /// Run one pair of a planned run (what each Slurm array task does).
    #[command(hide = true)]
    RunOne(RunOneArgs),
    /// Progress of a run, from its journal.
    Status(StatusArgs),
    /// Markdown, JSON and plots of a run (and a paired comparison with another).
    Report(ReportArgs),
    /// Compute every finished pair's scores again from its run directory
    /// (after a scorer change, or to add ground truth); outcomes stay.
    Rescore(RescoreArgs),
    /// Make the repair benchmark's tasks from a Spack builtin repository:
    /// real recipes broken by typed mutations, each checked with the real
    /// Spack (run them with `bench run DIR/tasks.jsonl`).
    Repairs(super::bench_repairs::RepairsArgs),
}

#[derive(Debug, clap::Args)]
pub struct Select {
    /// Keep only tasks whose boolean field is true (repeatable):
    /// installable_here, in_spack_0_23, in_spack_packages (Spack), unflagged (Nix).
    #[arg(long)]
    pub filter: Vec<String>,
    /// Shorthand for --filter installable_here.
    #[arg(long)]
    pub only_installable: bool,
    /// Only these task ids (comma-separated).
    #[arg(long = "tasks", value_delimiter = ',')]
    pub task_ids: Vec<String>,
    /// Only the tasks of this split of a pre-registered corpus (dev: tune
    /// on it; test: run once, at the end of an issue).
    #[arg(long, value_enum)]
    pub split: Option<SplitArg>,
    /// The first N tasks after the other filters.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Run the valid tasks of a task file that has invalid lines (each
    /// skipped line is printed); without it, invalid lines stop the command.
    #[arg(long)]
    pub skip_invalid: bool,
}

impl Select {
    fn filter(&self) -> TaskFilter {
        let mut flags = self.filter.clone();
        if self.only_installable && !flags.iter().any(|f| f == "installable_here") {
            flags.push("installable_here".into());
        }
        TaskFilter {
            flags,
            ids: self.task_ids.clone(),
            limit: self.limit,
            skip_invalid: self.skip_invalid,
            split: self.split.map(|s| match s {
                SplitArg::Dev => Split::Dev,
                SplitArg::Test => Split::Test,
            }),
        }
    }

    /// With --skip-invalid, says which lines of the task file are left out.
    fn warn_skipped(&self, tasks: &Path) {
        if !self.skip_invalid {
            return;
        }
        if let Ok(file) = TaskFile::read(tasks) {
            for line in file.invalid_report() {
                note(&format!("warning: skipping invalid task {line}"));
            }
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SplitArg {
    Dev,
    Test,
}

#[derive(Debug, clap::Args)]
pub struct FetchArgs {
    /// Task set (JSON Lines).
    pub tasks: PathBuf,
    #[arg(long)]
    pub into: PathBuf,
    #[command(flatten)]
    pub select: Select,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ExecutorArg {
    Local,
    Slurm,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Task set (JSON Lines, the formats of shared/bench/).
    pub tasks: PathBuf,
    /// A TOML configuration matrix, or built-in baselines separated by
    /// commas: zero-shot, spackit, vibenix, packsmith.
    #[arg(long, default_value = "packsmith")]
    pub config: String,
    /// Output directory: plan.json, journal.jsonl, runs/<config>/<task>/.
    #[arg(long)]
    pub out: PathBuf,
    /// Pairs at once (local), or the array's limit on running tasks (Slurm).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// TOML file with a [sources] table: task id → local directory.
    #[arg(long)]
    pub sources: Option<PathBuf>,
    /// The directory relative paths of --sources are under (default: the
    /// map's own directory), so a committed map names no machine's paths.
    #[arg(long)]
    pub source_root: Option<PathBuf>,
    /// Leave out tasks that have no source (instead of refusing to run).
    #[arg(long)]
    pub only_with_source: bool,
    #[arg(long, value_enum, default_value = "local")]
    pub executor: ExecutorArg,
    /// Model for every configuration that names none.
    #[arg(long)]
    pub model: Option<String>,
    /// Per-pair limit in seconds (default: the configuration's, else 3600).
    #[arg(long)]
    pub timeout: Option<u64>,
    /// Model replay cache for the pairs: off, read-write or replay.
    #[arg(long)]
    pub cache: Option<String>,
    /// Spack package repository whose packages/<spack_dir>/package.py is the
    /// ground truth for S_d/S_v (e.g. <spack>/var/spack/repos/builtin).
    #[arg(long)]
    pub ground_truth: Option<PathBuf>,
    /// nixpkgs' own expressions for the Nix fidelity score: a nixpkgs
    /// checkout, or a directory of `<attr_path>.nix` files.
    #[arg(long)]
    pub nix_reference: Option<PathBuf>,
    /// The Spack every Spack pair validates with (an env script or a
    /// `spack` path; overrides [spack] spack in the configuration).
    #[arg(long)]
    pub spack: Option<String>,
    /// Base-class table for S_d: 0.23 or 1.
    #[arg(long)]
    pub spack_version: Option<String>,
    #[command(flatten)]
    pub select: Select,
    /// The packsmith executable each pair runs (tests use a stand-in;
    /// default: $PACKSMITH_BENCH_BIN, else this executable).
    #[arg(long, hide = true)]
    pub packsmith_bin: Option<PathBuf>,
    /// Check every input and print what would run, without running it.
    #[arg(long)]
    pub dry_run: bool,
    /// The sbatch executable.
    #[arg(long, hide = true, default_value = "sbatch")]
    pub sbatch: String,
}

#[derive(Debug, clap::Args)]
pub struct RunOneArgs {
    pub out: PathBuf,
    #[arg(long)]
    pub index: usize,
}

#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    pub out: PathBuf,
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ReportArgs {
    pub out: PathBuf,
    /// A second run to compare with, pair by pair on the tasks both ran.
    #[arg(long)]
    pub against: Option<PathBuf>,
    /// Where to write report.md, report.json and the plots (default: OUT/report).
    #[arg(long)]
    pub to: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RescoreArgs {
    /// The --out directory of a `bench run` whose run directories are kept.
    pub out: PathBuf,
    /// Spack package repository of the human recipes (default: the run's).
    #[arg(long)]
    pub ground_truth: Option<PathBuf>,
    /// nixpkgs checkout or directory of `<attr_path>.nix` files (default: the run's).
    #[arg(long)]
    pub nix_reference: Option<PathBuf>,
}

fn say(text: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}

pub fn run(args: &BenchArgs) -> Result<Exit, CliError> {
    match &args.command {
        BenchCommand::Fetch(a) => fetch(a),
        BenchCommand::Repairs(a) => super::bench_repairs::run(a),
        BenchCommand::Run(a) => run_pairs(a),
        BenchCommand::RunOne(a) => {
            let outcome = packsmith_bench::run::run_one(&a.out, a.index).map_err(bench_error)?;
            say(&match outcome {
                Some(o) => format!("pair {}: {}", a.index, o.as_str()),
                None => format!("pair {}: already in the journal", a.index),
            });
            Ok(Exit::Success)
        }
        BenchCommand::Status(a) => {
            let s = packsmith_bench::status::status(&a.out).map_err(bench_error)?;
            if a.json {
                let text = serde_json::to_string_pretty(&s).map_err(|e| {
                    CliError::new(Exit::Failure, format!("could not encode JSON: {e}"))
                })?;
                say(&text);
            } else {
                say(s.render().trim_end());
            }
            Ok(Exit::Success)
        }
        BenchCommand::Rescore(a) => {
            let done = packsmith_bench::rescore::rescore(
                &a.out,
                &packsmith_bench::rescore::RescoreOptions {
                    ground_truth: a.ground_truth.clone(),
                    nix_reference: a.nix_reference.clone(),
                },
            )
            .map_err(bench_error)?;
            say(&format!(
                "{} pairs scored again, {} with a score; see `packsmith bench report {}`",
                done.pairs,
                done.scored,
                a.out.display()
            ));
            Ok(Exit::Success)
        }
        BenchCommand::Report(a) => {
            let to = a.to.clone().unwrap_or_else(|| a.out.join("report"));
            let w = packsmith_bench::report::write(&a.out, a.against.as_deref(), &to)
                .map_err(bench_error)?;
            say(&format!(
                "wrote {}, {}, {} and {}",
                w.markdown.display(),
                w.json.display(),
                w.png.display(),
                w.svg.display()
            ));
            Ok(Exit::Success)
        }
    }
}

fn fetch(a: &FetchArgs) -> Result<Exit, CliError> {
    a.select.warn_skipped(&a.tasks);
    let tasks = a.select.filter().read(&a.tasks).map_err(bench_error)?;
    let s = packsmith_bench::fetch::fetch(&tasks, &a.into).map_err(bench_error)?;
    say(&format!(
        "fetched {}, already there {}, failed {}; source map: {}",
        s.fetched.len(),
        s.already_there.len(),
        s.failed.len(),
        s.sources_toml.display()
    ));
    if s.failed.is_empty() {
        return Ok(Exit::Success);
    }
    let mut err = std::io::stderr().lock();
    for (id, why) in &s.failed {
        let _ = writeln!(err, "  {id}: {why}");
    }
    Err(CliError::new(
        Exit::Environment,
        format!("{} of {} sources could not be fetched", s.failed.len(), tasks.len()),
    )
    .hint("check the network (or give those tasks a local source in the map), then run fetch again: finished clones are kept"))
}

fn run_pairs(a: &RunArgs) -> Result<Exit, CliError> {
    a.select.warn_skipped(&a.tasks);
    // Ctrl-C or SIGTERM stops the running pairs' whole process trees and
    // journals nothing half-run (a rerun resumes).
    packsmith_exec::install_cancel();
    let self_exe = std::env::current_exe().map_err(|e| {
        CliError::new(
            Exit::Environment,
            format!("cannot find the packsmith executable: {e}"),
        )
    })?;
    let opts = RunOptions {
        tasks: a.tasks.clone(),
        filter: a.select.filter(),
        sources: a.sources.clone(),
        source_root: a.source_root.clone(),
        only_with_source: a.only_with_source,
        config: a.config.clone(),
        out: a.out.clone(),
        jobs: a.jobs.max(1),
        executor: match a.executor {
            ExecutorArg::Local => Executor::Local,
            ExecutorArg::Slurm => Executor::Slurm,
        },
        model: a.model.clone(),
        timeout_secs: a.timeout,
        cache: a.cache.clone(),
        ground_truth: a.ground_truth.clone(),
        nix_reference: a.nix_reference.clone(),
        spack_release: a.spack_version.clone(),
        spack: a.spack.clone(),
        packsmith_bin: a
            .packsmith_bin
            .clone()
            .or_else(|| std::env::var_os(PACKSMITH_BENCH_BIN).map(PathBuf::from))
            .unwrap_or_else(|| self_exe.clone()),
        runner_bin: self_exe,
        sbatch: a.sbatch.clone(),
    };
    if a.dry_run {
        let plan = packsmith_bench::run::prepare(&opts).map_err(bench_error)?;
        let names: Vec<&str> = plan
            .config
            .configurations
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        say(&format!(
            "{} tasks × {} configurations ({}) = {} pairs; every task has a source; nothing was run",
            plan.tasks.len(),
            names.len(),
            names.join(", "),
            plan.pairs.len()
        ));
        return Ok(Exit::Success);
    }
    match packsmith_bench::run::run(&opts).map_err(bench_error)? {
        RunSummary::Local {
            total,
            already_done,
            ran,
        } => say(&format!(
            "{total} pairs: {already_done} already in the journal, {} run now ({} succeeded). Report: packsmith bench report {}",
            ran.ran,
            ran.succeeded,
            a.out.display()
        )),
        RunSummary::Submitted {
            total,
            already_done,
            submitted,
            jobs,
        } => say(&format!(
            "{total} pairs: {already_done} already in the journal, {submitted} submitted as Slurm job(s) {}. Progress: packsmith bench status {}",
            jobs.join(", "),
            a.out.display()
        )),
    }
    Ok(Exit::Success)
}
