//! `packsmith spack SOURCE`: the flags as a [`SpackRequest`], one call to
//! the backend (`packsmith_spack::run`: analyze → brief → deterministic
//! draft → real Spack stages in the sandbox → repairs), and what it did,
//! printed. Everything lands in `<out>/<name>/`; with `--contribute OUT`, a
//! bundle for spack-packages lands in OUT.

mod contribute;
pub(crate) mod environment;

use packsmith_agent::{CancelToken, RunStatus};
use packsmith_spack::run::{self as backend, Checks, LoopSettings, SpackRequest};

use super::optional_model::load_optional_model;
use crate::cli::{LoopFlags, SpackArgs};
use crate::exit::{CliError, Exit};
use crate::model_config::load_config;
use crate::progress::{note, render_summary, ProgressPrinter};

/// Ctrl-C (or SIGTERM) cancels the run: see [`packsmith_exec::install_cancel`].
pub(crate) fn cancel_on_signals() -> CancelToken {
    CancelToken::from_flag(packsmith_exec::install_cancel())
}

pub fn run(args: &SpackArgs) -> Result<Exit, CliError> {
    let cancel = cancel_on_signals();
    // A Spack query that Ctrl-C killed fails; that is an interruption.
    run_until_cancelled(args, &cancel).map_err(|e| e.unless_cancelled(cancel.is_cancelled()))
}

fn run_until_cancelled(args: &SpackArgs, cancel: &CancelToken) -> Result<Exit, CliError> {
    let request = request(args)?;
    let (model, _) = load_optional_model(args.model.as_deref())?;
    let mut printer = ProgressPrinter::new(false);
    let done = backend::run(
        &request,
        model.as_ref(),
        &mut printer,
        &mut |l| note(l),
        cancel,
    )?;
    note(&render_summary(&done.report, &done.prepared.run_dir));
    let exit = match done.report.status {
        RunStatus::Succeeded => Exit::Success,
        RunStatus::Interrupted => Exit::Interrupted,
        _ => Exit::Failure,
    };
    if let Some(out) = &args.contribute {
        contribute::write(args, out, &done.prepared, &done.facts, exit)?;
    }
    Ok(exit)
}

/// The command line as the backend's request.
fn request(args: &SpackArgs) -> Result<SpackRequest, CliError> {
    Ok(SpackRequest {
        source: args.source.clone(),
        spack: environment::choice(
            args.run.spack.as_deref(),
            &args.run.spack_version,
            args.run.kb.as_deref(),
        )?,
        name: args.name.clone(),
        version: args.version.clone(),
        refs: args.refs.clone(),
        seed: args.seed,
        embed_model: args.embed_model.clone(),
        llm_config: load_config()?,
        brief: args.brief.clone(),
        draft: args.draft != "none",
        maintainer: args.maintainer.clone(),
        run: loop_settings(&args.run),
        checks: Checks {
            run_tests: args.test,
            audit: !args.run.no_audit,
            hermeticity: !args.no_hermeticity_check,
            smoke: !args.no_smoke_test,
            variant_check: !args.no_variant_check,
            variant_install: args.variant_install,
        },
    })
}

/// The loop flags `spack` and `repair` share.
pub(crate) fn loop_settings(flags: &LoopFlags) -> LoopSettings {
    LoopSettings {
        out: flags.out.clone(),
        replace: flags.replace,
        no_sandbox: flags.no_sandbox,
        max_attempts: flags.max_attempts,
        static_repairs: flags.static_repairs,
        tools: if flags.no_tools {
            Some(false)
        } else if flags.tools {
            Some(true)
        } else {
            None
        },
        log_prompts: flags.log_prompts,
        repair_mode: flags.repair_mode.clone(),
        rules: !flags.no_rules,
    }
}
