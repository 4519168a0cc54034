//! `packsmith bench repairs`: makes the repair benchmark's task set from
//! the user's own Spack checkout. Each task is a real recipe broken by one
//! typed mutation, kept only when the real Spack passes the original and
//! refuses the mutant where its class predicts; `packsmith bench run
//! DIR/tasks.jsonl` then measures the repairs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use packsmith_bench::sources::SourceMap;

use packsmith_spack::prepare::spack_sandbox;
use packsmith_spack::repair_set::{build_repair_set, InstallSource, RepairSetOptions};
use packsmith_spack_knowledge::kb::layout::locate;
use packsmith_spack_knowledge::mapping::{Known, SpackNames};
use packsmith_spack_knowledge::mutate::MutationClass;
use packsmith_spack_knowledge::target::TargetSpack;

use super::spack::environment;
use crate::exit::{CliError, Exit};
use crate::progress::note;

#[derive(Debug, clap::Args)]
pub struct RepairsArgs {
    /// A Spack builtin package repository (the directory holding
    /// `packages/`, or `packages/` itself) whose recipes are broken.
    #[arg(long)]
    pub from: PathBuf,
    /// Where tasks.jsonl, recipes/ and summary.json go.
    #[arg(long)]
    pub out: PathBuf,
    /// Tasks wanted, spread evenly over the classes.
    #[arg(long, default_value_t = 90)]
    pub n: usize,
    /// Seed of the recipe order and the mutation places.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Only these mutation classes (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    pub classes: Vec<String>,
    /// The Spack that checks each task (see `packsmith spack --spack`).
    #[arg(long)]
    pub spack: Option<PathBuf>,
    /// Knowledge base of the same Spack (path or label; default: the one
    /// indexed from this Spack).
    #[arg(long)]
    pub kb: Option<String>,
    /// Run Spack without bubblewrap.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Sources of packages to break at install too (a bench sources map:
    /// `[sources]` name → tree, `[versions]` name → version): adds the
    /// install-stage classes (removed_dependency, removed_define,
    /// tests_on), whose tasks install those packages offline from these
    /// trees, packed into DIR/sources/.
    #[arg(long)]
    pub sources: Option<PathBuf>,
    /// The directory relative paths of --sources are under (default: the
    /// map's own directory).
    #[arg(long, requires = "sources")]
    pub source_root: Option<PathBuf>,
}

fn classes(args: &RepairsArgs, target: TargetSpack) -> Result<Vec<MutationClass>, CliError> {
    if args.classes.is_empty() {
        // Spack 0.23's loader adds `from spack.package import *` to every
        // recipe itself: a missing import breaks nothing there. Install
        // classes need sources.
        let install: &[MutationClass] = if args.sources.is_some() {
            MutationClass::INSTALL
        } else {
            &[]
        };
        return Ok(MutationClass::ALL
            .iter()
            .chain(install)
            .copied()
            .filter(|c| !(target == TargetSpack::V0_23 && *c == MutationClass::MissingImport))
            .collect());
    }
    args.classes
        .iter()
        .map(|c| {
            MutationClass::from_slug(c).ok_or_else(|| {
                let all: Vec<&str> = MutationClass::ALL
                    .iter()
                    .chain(MutationClass::INSTALL)
                    .map(|c| c.slug())
                    .collect();
                CliError::new(Exit::BadInput, format!("unknown mutation class `{c}`"))
                    .hint(format!("use one of: {}", all.join(", ")))
            })
        })
        .collect()
}

/// `--sources`: each package with a tree and a version; one without a
/// version is left out with a note (an install needs it).
fn install_sources(args: &RepairsArgs) -> Result<BTreeMap<String, InstallSource>, CliError> {
    let Some(path) = &args.sources else {
        return Ok(BTreeMap::new());
    };
    let map = SourceMap::read_with_root(path, args.source_root.as_deref())
        .map_err(crate::exit::bench_error)?;
    let mut out = BTreeMap::new();
    for (name, tree) in &map.0 {
        match map.version(name) {
            Some(version) => {
                out.insert(
                    name.clone(),
                    InstallSource {
                        tree: tree.clone(),
                        version: version.to_string(),
                    },
                );
            }
            None => note(&format!(
                "{name}: no [versions] entry in {}; no install-stage task of it",
                path.display()
            )),
        }
    }
    Ok(out)
}

pub fn run(args: &RepairsArgs) -> Result<Exit, CliError> {
    let packages = locate(&args.from)?.packages;
    std::fs::create_dir_all(&args.out).map_err(|e| {
        CliError::new(
            Exit::BadInput,
            format!("cannot create {}: {e}", args.out.display()),
        )
    })?;
    let out = std::fs::canonicalize(&args.out)
        .map_err(|e| CliError::new(Exit::BadInput, format!("{}: {e}", args.out.display())))?;
    let mut setup = environment::locate_spack(args.spack.as_deref(), &out)?;
    setup.scratch = out.clone();
    let target = environment::target_spack("auto", &setup)?;
    let classes = classes(args, target)?;
    let kb = environment::knowledge_base(args.kb.as_deref(), &setup)?.ok_or_else(|| {
        CliError::new(
            Exit::Environment,
            "a repair set needs a knowledge base of this Spack's packages",
        )
        .hint("run `packsmith kb index <spack>/var/spack/repos/builtin`, or pass --kb")
    })?;
    let names = kb.names()?;
    let known = |name: &str| names.lookup(name) != Known::Unknown;
    let sandbox = spack_sandbox(&setup, &out, args.no_sandbox)?;
    let sources = install_sources(args)?;
    if classes.iter().any(|c| MutationClass::INSTALL.contains(c)) && sources.is_empty() {
        return Err(CliError::new(
            Exit::BadInput,
            "the install-stage classes need the packages' sources",
        )
        .hint("pass --sources MAP.toml ([sources] and [versions] by package name)"));
    }
    let opts = RepairSetOptions {
        packages: &packages,
        out: &out,
        n: args.n,
        seed: args.seed,
        classes,
        known: &known,
        sources: &sources,
        names: &names,
    };
    let summary = build_repair_set(&opts, &setup, &sandbox, &mut |line| note(line))
        .map_err(|e| CliError::new(Exit::Environment, e.to_string()))?;
    note(&format!(
        "{} tasks in {} ({} originals did not pass Spack and were skipped)",
        summary.tasks,
        out.join("tasks.jsonl").display(),
        summary.originals_failing
    ));
    for (class, (kept, dropped)) in &summary.per_class {
        note(&format!("  {class}: {kept} kept, {dropped} dropped"));
    }
    Ok(Exit::Success)
}
