//! The `packsmith` command line.
//!
//! The binary owns the CLI, printing, exit codes and wiring; logic lives in
//! the library crates. Libraries never print.
//!
//! Modules:
//! - `cli`: the clap definitions of every verb.
//! - `commands/`: one module per verb: `analyze`, `doctor`,
//!   `kb/` (`embed`, `output`), `check`, `score`, `model/` (`list`, `pull`), `serve`,
//!   `setup`, `spack/`, `repair`, `update/`, `nix/`, `bench` and
//!   `bench_repairs`.
//!   `spack/` turns its arguments into a `packsmith_spack::run::SpackRequest`
//!   and calls `packsmith_spack::run::run` (`environment` says where Spack
//!   is; `contribute` writes the `--contribute` bundle after the run).
//!   `nix/` checks that Nix is installed, turns its arguments into a
//!   `packsmith_nix::run::NixRequest`, calls `packsmith_nix::run::run`,
//!   prints the summary and maps the run's `Outcome` to the exit code (a
//!   run that passed without nixpkgs is not built: exit 3 unless
//!   `--allow-unbuilt`).
//!   `update/` finds and analyzes the old and the new source (`sources`)
//!   and calls `packsmith_spack::update::run_update`; without a Spack the
//!   update is `not validated`, exit 3 unless `--allow-unvalidated`.
//!   `spack_default` is which set-up is the default Spack.
//!   `optional_model` is the model of `spack` and `nix`, or none, with which
//!   only the draft runs.
//! - `progress`: ecosystem-neutral progress lines from agent events, and the
//!   closing summary.
//! - `download`: streamed, verified, atomic model downloads that clean up
//!   after Ctrl-C.
//! - `exit`: exit codes and `CliError`. Any `Hint` error becomes a
//!   `CliError` by `?`: exit 2 for bad input, 3 for the environment; 1 means
//!   the job ran and failed; 130 after Ctrl-C (`CliError::unless_cancelled`).
//! - `env_vars`: environment variables, declared once.
//!
//! Integration tests are two binaries: `cli_all` (every CLI test) and
//! `local_model` (the embedded-model runs, kept apart from timing-sensitive
//! tests).

mod cli;
mod commands;
mod download;
mod env_vars;
mod exit;
mod model_config;
mod progress;
mod target_arg;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code.into(),
        Err(err) => {
            let mut stderr = std::io::stderr().lock();
            let _ = writeln!(stderr, "error: {}", err.message);
            if let Some(hint) = &err.hint {
                let _ = writeln!(stderr, "hint: {hint}");
            }
            err.code.into()
        }
    }
}
