//! `--contribute OUT`: after the run, the backend's contribution bundle
//! (`packsmith_spack::contribute`) from the run directory, with what only
//! this process knows — the languages the analysis found, the Spack, the
//! spec, and who the commit is by.

use std::path::Path;

use packsmith_core::{Language, RepoFacts};
use packsmith_spack::contribute::{write_bundle, BundleInputs};
use packsmith_spack::prepare::PreparedRun;
use packsmith_spack::style::StyleTools;

use crate::cli::SpackArgs;
use crate::exit::{CliError, Exit};
use crate::progress::note;

/// Writes the bundle into `out`; `exit` is the run's own exit code, which
/// a run that did not succeed keeps (it gets no bundle, and says so).
pub fn write(
    args: &SpackArgs,
    out: &Path,
    prepared: &PreparedRun,
    facts: &RepoFacts,
    exit: Exit,
) -> Result<(), CliError> {
    let languages = languages(facts, prepared);
    let spack_version = prepared.setup.version().ok();
    let spec = format!("{}@{}", prepared.brief.package, prepared.version);
    let author = packsmith_spack::contribute::author(args.maintainer.as_deref());
    let style = StyleTools::find(&prepared.setup.env);
    let inputs = BundleInputs {
        run_dir: &prepared.run_dir,
        out,
        languages: Some(&languages),
        maintainer: args.maintainer.as_deref(),
        author,
        tool_version: env!("CARGO_PKG_VERSION"),
        trailer: !args.no_disclosure_trailer,
        spack_version: spack_version.as_deref(),
        spec: Some(&spec),
        style: style.as_ref().map_err(String::as_str),
    };
    let code = if exit == Exit::Success {
        Exit::Environment
    } else {
        exit
    };
    let bundle = write_bundle(&inputs).map_err(|e| CliError::from_error(code, &e))?;
    note(&bundle.describe());
    Ok(())
}

/// The language virtuals of what the analysis found compiled, as the brief
/// declares them for Spack 1.x; none for a header-only library, which the
/// draft installs without building.
fn languages(facts: &RepoFacts, prepared: &PreparedRun) -> Vec<String> {
    if prepared
        .brief
        .install
        .as_ref()
        .is_some_and(|p| p.headers_only)
    {
        return Vec::new();
    }
    [
        (Language::C, "c"),
        (Language::Cxx, "cxx"),
        (Language::Fortran, "fortran"),
    ]
    .into_iter()
    .filter(|(lang, _)| facts.languages.iter().any(|l| l.language == *lang))
    .map(|(_, virt)| virt.to_string())
    .collect()
}
