//! `packsmith analyze`.

use crate::cli::AnalyzeArgs;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use crate::summary;
use packsmith_analyze::{analyze_dir, source};
use std::io::Write;

pub fn run(args: &AnalyzeArgs) -> Result<Exit, CliError> {
    let (root, info) = source::resolve(&args.source, &cache_dir())?;
    let facts = analyze_dir(&root, info)?;
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
