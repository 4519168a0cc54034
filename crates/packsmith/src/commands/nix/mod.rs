//! `packsmith nix <URL | PATH>`: a nixpkgs-style package.nix that builds.
//! The flags as a [`NixRequest`], one call to the backend
//! (`packsmith_nix::run`: inputs → deterministic draft with its hash
//! prefetched → the agent loop with the Nix backend → `nix-result.json`),
//! the summary printed and the outcome as the exit code. Ctrl-C stops the
//! loop at the next step; a second Ctrl-C exits at once.

use std::io::Write;

use packsmith_agent::contribution::author;
use packsmith_exec::CancelToken;
use packsmith_nix::contribute::{write_bundle, NixBundleInputs};
use packsmith_nix::run::{self as backend, NixRequest, Outcome};
use packsmith_nix::NixParser;

use super::optional_model::{check_model_flag, load_optional_model};
use crate::cli::NixArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::{note, ProgressPrinter};

pub fn run(args: &NixArgs) -> Result<Exit, CliError> {
    // Installed before the source is cloned, so Ctrl-C then kills git too.
    let cancel = cancel_on_ctrl_c();
    // A step that Ctrl-C killed fails; that is an interruption.
    run_until_cancelled(args, &cancel).map_err(|e| e.unless_cancelled(cancel.is_cancelled()))
}

fn run_until_cancelled(args: &NixArgs, cancel: &CancelToken) -> Result<Exit, CliError> {
    let request = request(args);
    if !(NixParser {
        config: request.config(),
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
    let (model, has_model) = load_optional_model(args.model.as_deref())?;
    let mut printer = ProgressPrinter::new(false);
    let done = backend::run(
        &request,
        model.as_ref(),
        has_model,
        &mut printer,
        &mut |l| note(l),
        cancel,
    )?;
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(std::io::stdout().lock(), "{}", backend::summary(&done));
    if let (Some(out), Outcome::Succeeded) = (&args.contribute, &done.outcome) {
        contribute(args, out, &done.run_dir)?;
    }
    match done.outcome {
        Outcome::Succeeded => Ok(Exit::Success),
        Outcome::Failed => Ok(Exit::Failure),
        Outcome::NotBuilt(e) => Err(e.into()),
        Outcome::Unusable => Ok(Exit::Environment),
        Outcome::Interrupted => Ok(Exit::Interrupted),
    }
}

/// Writes the contribution bundle of the run in `run_dir` into `out`;
/// a run that was not built (`--allow-unbuilt`) gets none, and says so.
fn contribute(
    args: &NixArgs,
    out: &std::path::Path,
    run_dir: &std::path::Path,
) -> Result<(), CliError> {
    let inputs = NixBundleInputs {
        run_dir,
        out,
        author: author(args.maintainer.first().map(String::as_str)),
        tool_version: env!("CARGO_PKG_VERSION"),
        trailer: !args.no_disclosure_trailer,
    };
    let bundle = write_bundle(&inputs).map_err(|e| CliError::from_error(Exit::Failure, &e))?;
    note(&bundle.describe());
    Ok(())
}

/// Ctrl-C (or SIGTERM) cancels the run through the runner's flag, so the
/// build's process group is killed: see [`packsmith_exec::install_cancel`].
fn cancel_on_ctrl_c() -> CancelToken {
    CancelToken::from_flag(packsmith_exec::install_cancel())
}

/// The command line as the backend's request.
fn request(args: &NixArgs) -> NixRequest {
    NixRequest {
        source: args.source.clone(),
        rev: args.rev.clone(),
        name: args.name.clone(),
        version: args.version.clone(),
        attr_path: args.attr_path.clone(),
        nixpkgs: args.nixpkgs.clone(),
        cache_dir: cache_dir(),
        sandbox: !args.no_sandbox,
        sandbox_paths: args.sandbox_paths.clone(),
        offline: args.offline,
        out: args.out.clone(),
        replace: args.replace,
        max_iterations: args.max_iterations,
        max_no_progress: args.max_no_progress,
        static_repairs: args.static_repairs,
        refine: args.refine,
        tools: !args.no_tools,
        project_summary: !args.no_summary,
        allow_unbuilt: args.allow_unbuilt,
        maintainers: args.maintainer.clone(),
    }
}
