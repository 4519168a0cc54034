//! `packsmith update RECIPE SOURCE`: the recipe a maintainer has, brought
//! to the new version SOURCE holds. Flags are read here, the two trees
//! found and analyzed (`sources`); `packsmith_spack::update` diffs, edits,
//! validates and writes the report; this prints what it did. A
//! `package.nix` goes to `packsmith_nix::update` (`nix`).

mod nix;
mod sources;

use packsmith_spack::update::{run_update, UpdateInputs, UpdateOutcome, Validation, VersionSource};
use packsmith_spack::validate::SpackSetup;
use packsmith_spack_draft::update::newest_version;
use packsmith_spack_knowledge::mapping::{NoKnowledge, SpackNames};
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::spec::Version;
use packsmith_spack_knowledge::target::TargetSpack;

use super::repair::{package_name_of, read_recipe};
use super::spack::environment;
use crate::cli::UpdateArgs;
use crate::exit::{CliError, Exit};
use crate::progress::note;

pub fn run(args: &UpdateArgs) -> Result<Exit, CliError> {
    if args.recipe.extension().is_some_and(|e| e == "nix") {
        let text = read_recipe(&args.recipe)?;
        return nix::run_nix(args, &text);
    }
    let (recipe_path, named) = recipe_of(args)?;
    let text = read_recipe(&recipe_path)?;
    let parsed = parse_recipe(&text, &recipe_path.display().to_string());
    if !parsed.is_spack_recipe() {
        return Err(CliError::new(
            Exit::BadInput,
            format!("{} defines no Spack package class", recipe_path.display()),
        )
        .hint("pass the package.py of the package to update"));
    }
    let package = package_name_of(args.name.as_deref().or(named.as_deref()), &recipe_path)?;
    let old_version = newest_version(&parsed).ok_or_else(|| {
        CliError::new(
            Exit::BadInput,
            format!("{} declares no release version()", recipe_path.display()),
        )
        .hint("add the version the recipe packages now, then update it")
    })?;

    let new = sources::new_tree(&args.source)?;
    let new_version = new_version(args, &new)?;
    check_newer(&old_version, &new_version, &recipe_path)?;
    let old = sources::old_tree(args.old_source.as_deref(), &new.root, &old_version)?;

    let (spack, target, names) = spack(args)?;
    let names: &dyn SpackNames = match &names {
        Some(n) => n,
        None => &NoKnowledge,
    };
    note(&format!(
        "{package}: {old_version} ({}) → {new_version} ({})",
        old.described, new.described
    ));
    let outcome = run_update(UpdateInputs {
        recipe_path: &recipe_path,
        recipe: &text,
        package: &package,
        old: VersionSource {
            version: &old_version,
            root: &old.root,
            facts: &old.facts,
            described: old.described.clone(),
            archive: old.archive.as_deref(),
        },
        new: VersionSource {
            version: &new_version,
            root: &new.root,
            facts: &new.facts,
            described: new.described.clone(),
            archive: new.archive.as_deref(),
        },
        target,
        names,
        spack,
        out: &args.out,
        replace: args.replace,
        no_sandbox: args.no_sandbox,
        in_place: args.in_place,
    })
    .map_err(CliError::from)?;
    print_summary(&outcome);
    finish(args, &outcome)
}

/// The recipe to update: the path given, or, for a package name
/// (`py-yarl`), its `package.py` in the Spack's repositories.
fn recipe_of(args: &UpdateArgs) -> Result<(std::path::PathBuf, Option<String>), CliError> {
    let given = args.recipe.to_string_lossy();
    let is_name = !args.recipe.exists()
        && !given.is_empty()
        && given
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.+".contains(c));
    if !is_name {
        return Ok((args.recipe.clone(), None));
    }
    let setup =
        environment::locate_spack(args.spack.as_deref(), &std::env::temp_dir()).map_err(|e| {
            CliError::new(
                Exit::BadInput,
                format!(
                    "no file {given}, and no Spack to find a package of that name: {}",
                    e.message
                ),
            )
            .hint("pass the path of the package.py, or run `packsmith setup spack` first")
        })?;
    let dir = setup.package_dir(&given).map_err(|e| {
        CliError::new(Exit::BadInput, e.to_string()).hint(format!(
            "check the name (`spack list {given}`), or pass the path of its package.py"
        ))
    })?;
    note(&format!("{given}: {}", dir.join("package.py").display()));
    Ok((dir.join("package.py"), Some(given.into_owned())))
}

/// `--version`, else the version of the new tree: its release tag (a
/// clone checked out at it, or a tag on HEAD), else the version a release
/// archive's name carries, else what its build files declare
/// (`project(VERSION)`). A newest tag elsewhere in the history
/// says nothing of this tree.
fn new_version(args: &UpdateArgs, new: &sources::Tree) -> Result<String, CliError> {
    if let Some(v) = &args.version {
        return Ok(v.clone());
    }
    let facts = &new.facts;
    // A release archive names its version: `dill-0.4.1.tar.gz`.
    let from_archive = new.archive.as_deref().and_then(|a| {
        use packsmith_analyze::archive::{archive_stem, split_name_version};
        let v = split_name_version(&archive_stem(a)).1?;
        Version::parse(&v).map(|_| v)
    });
    let v = &facts.versions;
    let head_tag = v
        .recent_tags
        .iter()
        .find(|t| {
            facts.source.release_tag.as_deref() == Some(t.tag.as_str())
                || (t.commit.is_some() && t.commit == v.commit)
        })
        .map(|t| t.version.clone());
    head_tag
        .or(from_archive)
        .or_else(|| v.declared.as_ref().map(|d| d.value.clone()))
        .ok_or_else(|| {
            CliError::new(
                Exit::BadInput,
                format!(
                    "cannot tell the version of {}: no release tag on it, and its build files \
                     declare none",
                    args.source
                ),
            )
            .hint("pass --version X.Y.Z (the new version)")
        })
}

/// The new version must be newer than every release the recipe has.
fn check_newer(old: &str, new: &str, recipe: &std::path::Path) -> Result<(), CliError> {
    let newer = match (Version::parse(old), Version::parse(new)) {
        (Some(o), Some(n)) => n > o,
        _ => false,
    };
    if newer {
        return Ok(());
    }
    Err(CliError::new(
        Exit::BadInput,
        format!(
            "{new} is not newer than {old}, the newest version {} declares",
            recipe.display()
        ),
    )
    .hint("pass the source of a newer release, or --version with its version"))
}

/// The Spack to validate with (or why there is none), the generation to
/// write for, and the names of its knowledge base.
type Located = (
    Result<SpackSetup, String>,
    TargetSpack,
    Option<packsmith_spack_knowledge::kb::NameIndex>,
);

/// The Spack to validate with and the generation to write for. An explicit
/// `--spack` must work; without it, no Spack found means not validated.
fn spack(args: &UpdateArgs) -> Result<Located, CliError> {
    let located = environment::locate_spack(args.spack.as_deref(), &std::env::temp_dir());
    let setup = match (located, &args.spack) {
        (Ok(s), _) => s,
        (Err(e), Some(_)) => return Err(e),
        (Err(e), None) => {
            let target = match args.spack_version.as_str() {
                "auto" => TargetSpack::V0_23,
                v => crate::target_arg::spack_version(v)?,
            };
            return Ok((Err(e.message), target, None));
        }
    };
    let target = environment::target_spack(&args.spack_version, &setup)?;
    let kb = environment::knowledge_base(None, &setup)?;
    let names = kb.as_ref().and_then(|k| k.names().ok());
    // --no-validate still reads Spack's package names, so the edits are
    // those a validated run makes.
    let setup = if args.no_validate {
        Err("--no-validate was given".to_string())
    } else {
        Ok(setup)
    };
    Ok((setup, target, names))
}

fn print_summary(outcome: &UpdateOutcome) {
    let r = &outcome.report;
    for c in &r.facts_diff.changes {
        note(&format!(
            "  {} {} {}: {} → {}",
            c.topic.as_str(),
            c.name,
            c.change.as_str(),
            c.old.as_ref().map_or("—", |f| f.value.as_str()),
            c.new.as_ref().map_or("—", |f| f.value.as_str()),
        ));
    }
    for e in &r.edits {
        note(&format!("  edit: {}", e.why));
    }
    for e in &r.refused {
        note(&format!("  not applied: {} ({})", e.edit.why, e.reason));
    }
    for n in &r.notes {
        note(&format!("  note: {n}"));
    }
    if let Some(v) = &r.validated {
        let both = [("new", &v.new), ("old", &v.old)];
        let flipped = v.variants.iter().map(|c| ("variant", c));
        for (label, c) in both.into_iter().chain(flipped) {
            let stages: Vec<String> = c
                .stages
                .iter()
                .map(|s| format!("{} {}", s.stage, if s.passed { "ok" } else { "FAILED" }))
                .collect();
            note(&format!("  {label} {}: {}", c.spec, stages.join(", ")));
        }
    }
    print_ending(
        [
            &r.package,
            &r.old_version,
            &r.new_version,
            r.validation.as_str(),
        ],
        &outcome.run_dir,
        ("recipe", &r.output),
    );
}

/// The last two lines of an update, either backend: `NAME: OLD → NEW:
/// STATUS; report.md`, then where the updated file is.
fn print_ending(
    [package, old, new, status]: [&str; 4],
    run_dir: &std::path::Path,
    (what, output): (&str, &std::path::Path),
) {
    note(&format!(
        "{package}: {old} → {new}: {status}; {}",
        run_dir.join("report.md").display()
    ));
    note(&format!("updated {what}: {}", output.display()));
}

/// Validated: 0; a stage failed: 1; no Spack: 3 unless `--allow-unvalidated`.
fn finish(args: &UpdateArgs, outcome: &UpdateOutcome) -> Result<Exit, CliError> {
    let r = &outcome.report;
    let passed = match r.validation {
        Validation::Validated => Some(true),
        Validation::Failed => Some(false),
        Validation::NotValidated => None,
    };
    exit_of(args, passed, || {
        CliError::new(
            Exit::Environment,
            format!(
                "{} was updated but not validated: {}",
                r.output.display(),
                r.not_validated_reason.as_deref().unwrap_or("no Spack")
            ),
        )
        .hint(
            "run `packsmith setup spack` (or pass --spack) to install the new version, or \
             --allow-unvalidated to accept an update that was not validated",
        )
    })
}

/// Passed: 0; failed: 1; not checked: the error `unchecked` makes (exit 3)
/// unless `--allow-unvalidated` or `--no-validate`.
fn exit_of(
    args: &UpdateArgs,
    passed: Option<bool>,
    unchecked: impl FnOnce() -> CliError,
) -> Result<Exit, CliError> {
    match passed {
        Some(true) => Ok(Exit::Success),
        Some(false) => Ok(Exit::Failure),
        None if args.allow_unvalidated || args.no_validate => Ok(Exit::Success),
        None => Err(unchecked()),
    }
}
