//! `packsmith analyze`.

use crate::cli::AnalyzeArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::progress::note;
use packsmith_analyze::{analyze_dir_for, source, summary, AnalyzeError};
use packsmith_exec::CancelToken;
use std::io::Write;

pub fn run(args: &AnalyzeArgs) -> Result<Exit, CliError> {
    // Ctrl-C during a clone kills git and removes its partial clone, rather
    // than killing packsmith and leaving git running.
    let cancel = CancelToken::from_flag(packsmith_exec::install_cancel());
    let (root, info) = source::resolve(&args.source, &cache_dir(), &mut |line| note(line))
        .map_err(source_error)?;
    let facts = analyze_dir_for(&root, info, args.name.as_deref())?;
    // The handler only sets the flag: a Ctrl-C during the walk ends here.
    if cancel.is_cancelled() {
        return Err(
            CliError::new(Exit::Interrupted, "interrupted (Ctrl-C) while analysing")
                .hint("run the same command again"),
        );
    }
    let text = if args.json {
        serde_json::to_string_pretty(&facts)
            .map_err(|e| CliError::new(Exit::Environment, format!("could not encode facts: {e}")))?
    } else {
        summary::render(&facts)
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(out, "{}", text.trim_end());
    Ok(Exit::Success)
}

/// A failed clone is the environment's, a missing path the input's, and
/// Ctrl-C an interruption.
fn source_error(err: AnalyzeError) -> CliError {
    match err {
        AnalyzeError::Interrupted { .. } => CliError::from_error(Exit::Interrupted, &err),
        err => err.into(),
    }
}
