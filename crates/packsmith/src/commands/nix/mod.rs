//! `packsmith nix <URL | PATH>`: a nixpkgs-style package.nix that builds.
//! Resolves the inputs (inputs.rs), renders the deterministic draft with
//! its hash prefetched where possible, runs the agent loop with the Nix
//! backend, then writes `nix-result.json` (build and runtime checks kept
//! apart, failure analysis when nothing built) and prints the summary
//! (finish.rs). Ctrl-C stops the loop at the next step; a second Ctrl-C
//! exits at once.

mod checks;
mod finish;
mod inputs;

use std::io::Write;

use packsmith_agent::{Agent, AgentOptions, CancelToken, Task};
use packsmith_nix::ecosystem::{prepare_draft, DraftInput, NixSettings};
use packsmith_nix::{NixConfig, NixEcosystem, NixParser};

use super::optional_model::{check_model_flag, load_optional_model};
use crate::cli::NixArgs;
use crate::exit::{CliError, Exit};

pub fn run(args: &NixArgs) -> Result<Exit, CliError> {
    // Installed before the source is cloned, so Ctrl-C then kills git too.
    let cancel = cancel_on_ctrl_c();
    // A step that Ctrl-C killed fails; that is an interruption.
    run_until_cancelled(args, &cancel).map_err(|e| e.unless_cancelled(cancel.is_cancelled()))
}

fn run_until_cancelled(args: &NixArgs, cancel: &CancelToken) -> Result<Exit, CliError> {
    let config = NixConfig {
        sandbox: !args.no_sandbox,
        extra_sandbox_paths: args.sandbox_paths.clone(),
        offline: args.offline,
        ..NixConfig::default()
    };
    if !(NixParser {
        config: config.clone(),
    })
    .available()
    {
        return Err(CliError::new(
            Exit::Environment,
            "Nix is not installed here: `nix-instantiate` was not found on PATH",
        )
        .hint(
            "install Nix (Debian/Ubuntu: `apt-get install nix-bin`), then run `packsmith doctor` \
             to check the setup",
        ));
    }
    // Checked before the slow steps so a bad --model fails at once.
    check_model_flag(args.model.as_deref())?;

    let inputs = inputs::resolve(
        &args.source,
        args.rev.as_deref(),
        args.name.as_deref(),
        args.version.as_deref(),
        args.attr_path.as_deref(),
    )?;
    let pin = inputs::nixpkgs_pin(args.nixpkgs.as_deref(), &config)?;
    let mut err = std::io::stderr().lock();
    if let Some(note) = &inputs.analysis_note {
        let _ = writeln!(
            err,
            "note: {note}; the draft uses the generic builder unless the model picks another"
        );
    }
    if pin.is_none() {
        let _ = writeln!(
            err,
            "note: no nixpkgs (no --nixpkgs and no <nixpkgs> in NIX_PATH): the recipe is parsed \
             and its hashes checked, but it cannot be evaluated or built here; the run ends \
             `not built` (exit 3) unless --allow-unbuilt is given"
        );
    }
    let draft = prepare_draft(
        &DraftInput {
            pname: &inputs.pname,
            version: &inputs.version,
            source: &inputs.source,
            rev: inputs.rev.as_ref(),
            facts: inputs.facts.as_ref(),
            prefetch: true,
            attr_path: args.attr_path.as_deref(),
            source_root: inputs.source_root.as_deref(),
        },
        &config,
    )
    .map_err(|e| e.to_string());
    if let Ok(d) = &draft {
        let _ = writeln!(
            err,
            "{} {}: {:?} template ({}), source hash: {}",
            inputs.pname,
            inputs.version,
            d.builder,
            d.chosen_by,
            finish::hash_line(&d.hash)
        );
    }
    drop(err);
    let (model, has_model) = load_optional_model(args.model.as_deref())?;
    if !has_model {
        crate::progress::note(
            "note: no model (no --model, PACKSMITH_MODEL or packsmith.toml): the draft is checked, \
             and the run stops at the first failure that needs a model",
        );
    }

    let mut settings = NixSettings::new(config, pin);
    // What the build may see from the host, the built program may too.
    settings.runtime.extra_binds = args.sandbox_paths.clone();
    settings.tools_offered = !args.no_tools;
    settings.project_question = has_model && !args.no_summary;
    let facts_text = inputs
        .facts
        .as_ref()
        .map(packsmith_analyze::summary::render)
        .unwrap_or_else(|| "(no analysis of the source)".into());
    let eco = NixEcosystem::new(settings, draft, facts_text.clone());
    let empty = tempfile::tempdir()
        .map_err(|e| CliError::new(Exit::Environment, format!("cannot create a temp dir: {e}")))?;
    let task = Task {
        name: inputs.pname.clone(),
        repo_root: inputs
            .repo_root
            .clone()
            .unwrap_or_else(|| empty.path().to_path_buf()),
        version: Some(inputs.version.clone()),
        references: Default::default(),
        context: serde_json::json!({ "source": args.source, "rev": args.rev }),
    };
    let mut options = AgentOptions::nix_style(&args.out);
    options.max_attempts = args.max_iterations.max(1);
    options.max_no_progress = Some(args.max_no_progress.max(1));
    options.max_static_repairs = args.static_repairs;
    options.refine_rounds = args.refine;
    options.tools = !args.no_tools;
    options.replace_existing = args.replace;
    options.cancel = cancel.clone();

    let mut printer = crate::progress::ProgressPrinter::new(false);
    let report = Agent::run(&task, &eco, model.as_ref(), &options, &mut printer).map_err(|e| {
        CliError::new(Exit::Environment, e.to_string())
            .hint("check that the --out directory is writable (or pass --replace)")
    })?;
    let run_dir = args.out.join(&task.name);
    finish::finish(&finish::Finish {
        run_dir: &run_dir,
        report: &report,
        eco: &eco,
        model: model.as_ref(),
        facts: inputs.facts.as_ref(),
        facts_text: &facts_text,
        draft: eco.current_draft().ok().as_ref(),
        allow_unbuilt: args.allow_unbuilt,
    })
}

/// Ctrl-C (or SIGTERM) cancels the run through the runner's flag, so the
/// build's process group is killed: see [`packsmith_exec::install_cancel`].
fn cancel_on_ctrl_c() -> CancelToken {
    CancelToken::from_flag(packsmith_exec::install_cancel())
}
