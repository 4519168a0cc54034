//! `packsmith update package.nix SOURCE`: the two trees found and
//! analyzed as for a package.py (`sources`); `packsmith_nix::update::run`
//! edits, validates and writes the report; this prints what it did.

use packsmith_nix::runner::NixConfig;
use packsmith_nix::update::{
    declared_version, run, NixUpdateOutcome, NixUpdateRequest, NixValidation, NixVersionSource,
};

use super::sources;
use crate::cli::UpdateArgs;
use crate::exit::{CliError, Exit};
use crate::progress::note;

pub fn run_nix(args: &UpdateArgs, text: &str) -> Result<Exit, CliError> {
    let recipe_path = &args.recipe;
    let old_version = declared_version(text, recipe_path)?;
    let new = sources::new_tree(&args.source)?;
    let new_version = super::new_version(args, &new)?;
    super::check_newer(&old_version, &new_version, recipe_path)?;
    let old = sources::old_tree(args.old_source.as_deref(), &new.root, &old_version)?;
    note(&format!(
        "{}: {old_version} ({}) → {new_version} ({})",
        recipe_path.display(),
        old.described,
        new.described
    ));
    let config = NixConfig {
        sandbox: !args.no_sandbox,
        extra_sandbox_paths: args.sandbox_paths.clone(),
        offline: args.offline,
        ..NixConfig::default()
    };
    let outcome = run(
        NixUpdateRequest {
            recipe_path,
            recipe: text,
            old: NixVersionSource {
                version: &old_version,
                facts: &old.facts,
                described: old.described.clone(),
                archive: old.archive.as_deref(),
                commit: None,
            },
            new: NixVersionSource {
                version: &new_version,
                facts: &new.facts,
                described: new.described.clone(),
                archive: new.archive.as_deref(),
                commit: new.facts.versions.commit.as_deref(),
            },
            nixpkgs: args.nixpkgs.clone(),
            config,
            no_build: args.no_validate,
            out: &args.out,
            replace: args.replace,
            in_place: args.in_place,
        },
        &mut |line| note(line),
    )
    .map_err(CliError::from)?;
    print_summary(&outcome);
    finish(args, &outcome)
}

fn print_summary(outcome: &NixUpdateOutcome) {
    let r = &outcome.report;
    for e in &r.edits {
        note(&format!("  edit: {}", e.why));
    }
    for n in &r.notes {
        note(&format!("  note: {n}"));
    }
    super::print_ending(
        [
            &r.package,
            &r.old_version,
            &r.new_version,
            r.validation.as_str(),
        ],
        &outcome.run_dir,
        ("expression", &r.output),
    );
}

/// Built: 0; a step failed: 1; not built: 3 unless `--allow-unvalidated`
/// or `--no-validate`.
fn finish(args: &UpdateArgs, outcome: &NixUpdateOutcome) -> Result<Exit, CliError> {
    let r = &outcome.report;
    let passed = match r.validation {
        NixValidation::Built => Some(true),
        NixValidation::Failed => Some(false),
        NixValidation::NotBuilt => None,
    };
    super::exit_of(args, passed, || {
        CliError::new(
            Exit::Environment,
            format!(
                "{} was updated and parses, but was not built: {}",
                r.output.display(),
                r.not_validated_reason.as_deref().unwrap_or("no nixpkgs")
            ),
        )
        .hint(
            "pass --nixpkgs (a checkout or commit) to build it, or --allow-unvalidated to \
             accept an update that was not built",
        )
    })
}
