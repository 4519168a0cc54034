//! `packsmith nix <URL | PATH>`: a nixpkgs-style package.nix that builds.
//! Resolves the inputs (inputs.rs), renders the deterministic draft with
//! its hash prefetched where possible, runs the agent loop with the Nix
//! backend, then writes `nix-result.json` (build and runtime checks kept
//! apart, failure analysis when nothing built) and prints the summary
//! (finish.rs). Ctrl-C stops the loop at the next step; a second Ctrl-C
//! exits at once.

mod finish;
mod inputs;
mod printer;

use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use packsmith_agent::{Agent, AgentOptions, CancelToken, Task};
use packsmith_llm::{build_model, ModelSpec};
use packsmith_nix::ecosystem::{prepare_draft, DraftInput, NixSettings};
use packsmith_nix::{NixConfig, NixEcosystem, NixParser};

use super::serve::{llm_error, load_config};
use crate::cli::NixArgs;
use crate::exit::{CliError, Exit};

pub fn run(args: &NixArgs) -> Result<Exit, CliError> {
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
    let llm_config = load_config()?;
    let model_text = args
        .model
        .clone()
        .or_else(|| llm_config.model.clone())
        .ok_or_else(|| {
            CliError::new(Exit::BadInput, "no model given").hint(
                "pass --model provider:name (e.g. local:qwen2.5-coder-1.5b or openai:gpt-4.1), \
                 or set PACKSMITH_MODEL",
            )
        })?;
    let spec: ModelSpec = model_text
        .parse()
        .map_err(|e| llm_error(Exit::BadInput, &e))?;

    let inputs = inputs::resolve(
        &args.source,
        args.rev.as_deref(),
        args.name.as_deref(),
        args.version.as_deref(),
    )?;
    let pin = inputs::nixpkgs_pin(args.nixpkgs.as_deref(), &config)?;
    let mut err = std::io::stderr().lock();
    if let Some(note) = &inputs.analysis_note {
        let _ = writeln!(err, "note: {note}; the draft uses the generic builder");
    }
    if pin.is_none() {
        let _ = writeln!(
            err,
            "note: no nixpkgs (no --nixpkgs and no <nixpkgs> in NIX_PATH): the recipe is parsed \
             and its hashes checked, but it cannot be evaluated or built here"
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
    let _ = writeln!(err, "loading {spec} …");
    drop(err);
    let model = build_model(&spec, &llm_config).map_err(|e| llm_error(Exit::Environment, &e))?;

    let mut settings = NixSettings::new(config, pin);
    // What the build may see from the host, the built program may too.
    settings.runtime.extra_binds = args.sandbox_paths.clone();
    settings.tools_offered = !args.no_tools;
    if let Ok(d) = &draft {
        settings.scope = d.builder.call_scope();
    }
    let facts_text = inputs
        .facts
        .as_ref()
        .map(crate::summary::render)
        .unwrap_or_else(|| "(no analysis of the source)".into());
    let prepared = draft.clone().ok();
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
    options.refine_rounds = args.refine;
    options.tools = !args.no_tools;
    options.replace_existing = args.replace;
    options.cancel = cancel_on_ctrl_c();

    let mut printer = printer::Printer::default();
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
        draft: prepared.as_ref(),
    })
}

/// Ctrl-C (or SIGTERM) sets the loop's cancel flag; a second one exits.
fn cancel_on_ctrl_c() -> CancelToken {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, flag.clone());
        let _ = signal_hook::flag::register(signal, flag.clone());
    }
    CancelToken::from_flag(flag)
}
