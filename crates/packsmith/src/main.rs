//! The `packsmith` command line.

mod archive;
mod cli;
mod commands;
mod download;
mod env_vars;
mod exit;
mod progress;
mod summary;

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
