//! `packsmith hermeticity PREFIX…`: the hermeticity check of `packsmith
//! spack`, run on prefixes Spack has already installed (by hand, by a
//! maintainer's recipe, by an earlier run): what each build took from the
//! host that its DAG does not hold.

use std::io::Write;
use std::path::Path;

use packsmith_spack::run::names_or_none;
use packsmith_spack::validate::hermetic::{check_prefix, render_log, HermeticityReport};
use packsmith_spack_knowledge::mapping::SpackNames;

use super::check::names;
use crate::cli::HermeticityArgs;
use crate::exit::{CliError, Exit};

fn check_one(prefix: &Path, names: &dyn SpackNames) -> Result<HermeticityReport, CliError> {
    if !prefix.join(".spack").is_dir() {
        return Err(CliError::new(
            Exit::BadInput,
            format!(
                "{} is no Spack install prefix (it has no .spack/)",
                prefix.display()
            ),
        )
        .hint("pass the prefix `spack location -i <spec>` prints"));
    }
    check_prefix(prefix, names).map_err(|why| {
        CliError::new(
            Exit::BadInput,
            format!("cannot check {}: {why}", prefix.display()),
        )
        .hint("the prefix needs the .spack/spec.json Spack writes at install")
    })
}

pub fn run(args: &HermeticityArgs) -> Result<Exit, CliError> {
    let index = names(args.kb.as_deref(), args.no_kb)?;
    let names = names_or_none(&index);
    let mut reports = Vec::new();
    for prefix in &args.prefixes {
        reports.push(check_one(prefix, names)?);
    }
    let mut out = std::io::stdout().lock();
    let text = if args.json {
        serde_json::to_string_pretty(&reports).map_err(|e| {
            CliError::new(
                Exit::Environment,
                format!("cannot write the reports as JSON: {e}"),
            )
        })? + "\n"
    } else {
        reports
            .iter()
            .map(render_log)
            .collect::<Vec<_>>()
            .join("\n")
    };
    // A closed pipe (`| head`) is no error of the check's.
    let _ = out.write_all(text.as_bytes());
    Ok(if reports.iter().all(HermeticityReport::passed) {
        Exit::Success
    } else {
        Exit::Failure
    })
}
