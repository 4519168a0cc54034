//! `packsmith repair RECIPE`: start from a broken `package.py` instead of a
//! draft; the rules, then the model (structured edits for a local model),
//! repair it until the real Spack loads and concretizes it (and installs
//! it, with `--until install`). Everything lands in `<out>/<name>/`.

use std::path::Path;

use packsmith_agent::{Agent, RunStatus, Task};
use packsmith_spack::ecosystem::{PromptSettings, RepairMode, SpackEcosystem, Validation};
use packsmith_spack::prepare::{prepare_repair, RepairInputs, RepairSource};
use packsmith_spack::validate::{package_dir_of, Stage, StageOptions};
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};

use super::optional_model::load_optional_model;
use super::spack::environment;
use super::spack::{cancel_on_signals, loop_settings};
use crate::cli::RepairArgs;
use crate::exit::{CliError, Exit};
use crate::progress::{note, render_summary, ProgressPrinter};
use packsmith_spack::run::{agent_options, repair_mode, tools_for};

/// The facts of `--source` (a tree, or an archive unpacked once into the
/// cache), for the rules that need the project's options; a tree that
/// cannot be read or analyzed only costs those rules, with a note.
fn source_facts(source: &Path) -> Option<packsmith_core::RepoFacts> {
    let tree = if source.is_dir() {
        source.to_path_buf()
    } else {
        match crate::archive::unpack(source, &crate::env_vars::cache_dir()) {
            Ok(tree) => tree,
            Err(e) => {
                note(&format!(
                    "note: {}: not analyzed ({e}); the rules that need the project's options are off",
                    source.display()
                ));
                return None;
            }
        }
    };
    let info = packsmith_core::SourceInfo {
        kind: "dir".into(),
        given: source.display().to_string(),
        release_tag: None,
    };
    match packsmith_analyze::analyze_dir(&tree, info) {
        Ok(facts) => Some(facts),
        Err(e) => {
            note(&format!(
                "note: {}: not analyzed ({e}); the rules that need the project's options are off",
                source.display()
            ));
            None
        }
    }
}

/// Recipes over this size are not recipes (the static check refuses them
/// too); reading one whole would only cost memory.
const MAX_RECIPE_BYTES: u64 = 1 << 20;

pub fn run(args: &RepairArgs) -> Result<Exit, CliError> {
    let cancel = cancel_on_signals();
    let text = read_recipe(&args.recipe)?;
    let package = package_name(args)?;

    let environment::Located {
        setup,
        target,
        kb,
        names: names_index,
    } = environment::locate_all(
        args.run.spack.as_deref(),
        &args.run.spack_version,
        args.run.kb.as_deref(),
    )
    .map_err(|e| e.unless_cancelled(cancel.is_cancelled()))?;
    let names: &dyn SpackNames = match &names_index {
        Some(n) => n,
        None => &NoKnowledge,
    };
    let facts = args.source.as_deref().and_then(source_facts);
    let prepared = prepare_repair(RepairInputs {
        package: &package,
        setup,
        target,
        names,
        out: &args.run.out,
        replace: args.run.replace,
        no_sandbox: args.run.no_sandbox,
        version: args.version.as_deref(),
        source: args.source.as_deref().map(|tree| RepairSource {
            tree,
            recipe: &text,
        }),
        facts: facts.as_ref(),
    })?;
    if let Some(source) = &prepared.source {
        note(&format!(
            "{package}: {} stands in for the recipe's archive ({}); installed without checking the recipe's checksum",
            args.source.as_deref().unwrap_or(std::path::Path::new("")).display(),
            source.path.display()
        ));
    }
    if args.run.no_sandbox {
        note("warning: --no-sandbox: recipes run with your rights");
    }

    let (model, _) = load_optional_model(args.model.as_deref())?;
    let tools = tools_for(loop_settings(&args.run).tools, model.as_ref());
    let mode = repair_mode(&args.run.repair_mode, model.as_ref())?;
    let install = args.until == "install";
    let validation = Validation {
        setup: prepared.setup.clone(),
        sandbox: prepared.sandbox.clone(),
        mirror: prepared.source.as_ref().map(|s| s.mirror.clone()),
        options: StageOptions {
            // Concretizing alone downloads nothing: the DAG may name
            // packages that would be built.
            offline: install,
            version: args.version.clone(),
            no_checksum: prepared.source.is_some(),
            ..StageOptions::default()
        },
        // `--until audit` needs the audit, whatever `--no-audit` says.
        audit: !args.run.no_audit || args.until == "audit",
        install,
        hermeticity: install && !args.no_hermeticity_check,
        smoke: install && !args.no_smoke_test,
    };
    let prompts = PromptSettings {
        tools,
        ..PromptSettings::default()
    };
    let mut eco = SpackEcosystem::new(prepared.brief.clone(), prompts, validation)
        .with_repair(mode, !args.run.no_rules)
        .with_start_recipe(text)
        .with_last_stage(last_stage(&args.until));
    // The recipe's patches beside it (`patch("fix.patch")`) load with it.
    if let Some(dir) = package_dir_of(&args.recipe) {
        eco = eco.with_package_files(dir);
    }
    if let Some(kb) = kb {
        eco = eco.with_knowledge(kb);
    }
    let how = match (model.id() == "none", args.run.no_rules, mode) {
        (true, true, _) => "nothing (no model, no rules)",
        (true, false, _) => "the rules",
        (false, true, RepairMode::Edits) => "the model's edits",
        (false, true, RepairMode::Rewrite) => "the model's rewrites",
        (false, false, RepairMode::Edits) => "the rules, then the model's edits",
        (false, false, RepairMode::Rewrite) => "the rules, then the model's rewrites",
    };
    note(&format!(
        "{package}: repairing {} until {}, Spack {target}, by {how}, sandbox {}",
        args.recipe.display(),
        args.until,
        if prepared.sandbox.is_sandboxed() {
            "bubblewrap"
        } else {
            "off"
        },
    ));
    let task = Task {
        name: package.clone(),
        repo_root: prepared.run_dir.clone(),
        version: None,
        references: Default::default(),
        context: serde_json::json!({"recipe": args.recipe.display().to_string()}),
    };
    let options = agent_options(&loop_settings(&args.run), tools, &cancel);
    let mut printer = ProgressPrinter::new(false).with_first_recipe("the recipe given");
    let report = Agent::run(&task, &eco, model.as_ref(), &options, &mut printer)
        .map_err(|e| CliError::new(Exit::Environment, e.to_string()))?;
    note(&render_summary(&report, &prepared.run_dir));
    Ok(match report.status {
        RunStatus::Succeeded => Exit::Success,
        RunStatus::Interrupted => Exit::Interrupted,
        _ => Exit::Failure,
    })
}

/// The stage `--until` names (clap has checked the value).
fn last_stage(until: &str) -> Stage {
    match until {
        "load" => Stage::Load,
        "audit" => Stage::Audit,
        "concretize" => Stage::Concretize,
        // Every stage after the install too (those switched off are not
        // in the list, and then nothing is cut).
        _ => Stage::Smoke,
    }
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
        Some(d) if !d.is_empty() => Ok(d),
        _ => Err(CliError::new(
            Exit::BadInput,
            format!("cannot tell the package name of {}", recipe.display()),
        )
        .hint("pass --name <package>")),
    }
}
