//! `packsmith repair RECIPE`: start from a broken `package.py` instead of a
//! draft; the rules, then the model (structured edits for a local model),
//! repair it until the real Spack loads and concretizes it (and installs
//! it, with `--until install`). Everything lands in `<out>/<name>/`.

use std::path::{Path, PathBuf};

use packsmith_agent::RunStatus;
use packsmith_spack::run::{self as backend, RepairRequest};

use super::optional_model::load_optional_model;
use super::spack::environment;
use super::spack::{cancel_on_signals, loop_settings};
use crate::cli::RepairArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::{note, render_summary, ProgressPrinter};

/// The tree of `--source` (itself, or an archive unpacked once into the
/// cache) and its facts, for the rules that need the project's options and
/// the repair that points at the project's own lines; a tree that cannot be
/// read or analyzed only costs those, with a note.
fn source_tree(source: &Path) -> (Option<PathBuf>, Option<packsmith_core::RepoFacts>) {
    let tree = if source.is_dir() {
        source.to_path_buf()
    } else {
        match packsmith_analyze::archive::unpack(source, &cache_dir()) {
            Ok(tree) => tree,
            Err(e) => {
                note(&format!(
                    "note: {}: not analyzed ({e}); the rules that need the project's options are off",
                    source.display()
                ));
                return (None, None);
            }
        }
    };
    let info = packsmith_core::SourceInfo {
        kind: "dir".into(),
        given: source.display().to_string(),
        release_tag: None,
    };
    match packsmith_analyze::analyze_dir(&tree, info) {
        Ok(facts) => (Some(tree), Some(facts)),
        Err(e) => {
            note(&format!(
                "note: {}: not analyzed ({e}); the rules that need the project's options are off",
                source.display()
            ));
            (Some(tree), None)
        }
    }
}

/// Recipes over this size are not recipes (the static check refuses them
/// too); reading one whole would only cost memory.
const MAX_RECIPE_BYTES: u64 = 1 << 20;

pub fn run(args: &RepairArgs) -> Result<Exit, CliError> {
    let cancel = cancel_on_signals();
    let recipe = read_recipe(&args.recipe)?;
    let package = package_name(args)?;
    let (source_root, facts) = match args.source.as_deref() {
        Some(source) => source_tree(source),
        None => (None, None),
    };
    let request = RepairRequest {
        recipe_path: args.recipe.clone(),
        recipe,
        package,
        until: args.until.clone(),
        version: args.version.clone(),
        source: args.source.clone(),
        source_root,
        facts,
        spack: environment::choice(
            args.run.spack.as_deref(),
            &args.run.spack_version,
            args.run.kb.as_deref(),
        )?,
        hermeticity: !args.no_hermeticity_check,
        smoke: !args.no_smoke_test,
        audit: !args.run.no_audit,
        run: loop_settings(&args.run),
    };
    let (model, _) = load_optional_model(args.model.as_deref())?;
    let mut printer = ProgressPrinter::new(false).with_first_recipe("the recipe given");
    let done = backend::repair(
        &request,
        model.as_ref(),
        &mut printer,
        &mut |l| note(l),
        &cancel,
    )
    .map_err(|e| CliError::from(e).unless_cancelled(cancel.is_cancelled()))?;
    note(&render_summary(&done.report, &done.prepared.run_dir));
    Ok(match done.report.status {
        RunStatus::Succeeded => Exit::Success,
        RunStatus::Interrupted => Exit::Interrupted,
        _ => Exit::Failure,
    })
}

pub(crate) fn read_recipe(path: &Path) -> Result<String, CliError> {
    let bad = |why: String| {
        CliError::new(
            Exit::BadInput,
            format!("cannot read {}: {why}", path.display()),
        )
        .hint("pass the path of a package.py")
    };
    let meta = std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
    if !meta.is_file() {
        return Err(bad("not a file".into()));
    }
    if meta.len() > MAX_RECIPE_BYTES {
        return Err(bad(format!(
            "{} bytes is too large for a recipe",
            meta.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    String::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))
}

/// `--name`, else the directory the recipe sits in (Spack's layout:
/// `packages/<name>/package.py`).
fn package_name(args: &RepairArgs) -> Result<String, CliError> {
    package_name_of(args.name.as_deref(), &args.recipe)
}

/// `name`, else the directory `recipe` sits in.
fn recipe_is_in_spack_repo(recipe: &Path) -> bool {
    std::fs::canonicalize(recipe)
        .map(|p| p.components().any(|c| c.as_os_str() == "spack_repo"))
        .unwrap_or(false)
}

pub(crate) fn package_name_of(name: Option<&str>, recipe: &Path) -> Result<String, CliError> {
    if let Some(name) = name {
        return Ok(name.to_string());
    }
    let dir = std::fs::canonicalize(recipe).ok().and_then(|p| {
        p.parent()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
    });
    match dir {
        // Spack 1.x's repos name a directory as a Python module
        // (`py_yarl`, `_3proxy`): the package is `py-yarl`, `3proxy`.
        Some(d) if !d.is_empty() && recipe_is_in_spack_repo(recipe) => {
            Ok(d.trim_start_matches('_').replace('_', "-"))
        }
        Some(d) if !d.is_empty() => Ok(d),
        _ => Err(CliError::new(
            Exit::BadInput,
            format!("cannot tell the package name of {}", recipe.display()),
        )
        .hint("pass --name <package>")),
    }
}
