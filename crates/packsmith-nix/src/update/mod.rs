//! `packsmith update package.nix SOURCE`: a new upstream version into the
//! expression a nixpkgs maintainer already has, in one call ([`run`]):
//! the inputs of both versions' facts compared (`inputs`), the version,
//! source revision and hash edited on their own bytes, vendored-dependency
//! hashes reset and inputs added or dropped (`edits`, on `recipe`'s
//! spans), the new hash from the best evidence at hand (`source_hash`),
//! then the same validation `packsmith nix` runs: parse, and with a
//! nixpkgs, evaluate and build in the sandbox, a hash mismatch answered
//! from the build's own log (trust on first use). The run directory gets
//! the updated `package.nix`, `report.json` and `report.md` (`report`).

pub mod edits;
pub mod inputs;
pub mod recipe;
pub mod report;
pub mod source_hash;

use std::path::{Path, PathBuf};

use packsmith_agent::rundir::RunDir;
use packsmith_agent::RunError;
use packsmith_core::RepoFacts;
use packsmith_exec::atomic_write;

pub use edits::NixEdit;
pub use inputs::{InputChange, InputChangeKind, Role};
pub use recipe::NixRecipe;
pub use report::{NixUpdateReport, NixValidation, StepSummary};
pub use source_hash::{HashFrom, NewHash};

use crate::edit::{NixParser, SyntaxCheck};
use crate::runner::{NixConfig, NixRunner, StepResult, WorkDir};
use crate::templates::CallScope;

/// One version's source, analyzed by the caller.
pub struct NixVersionSource<'a> {
    pub version: &'a str,
    pub facts: &'a RepoFacts,
    /// Where it was read, for the report.
    pub described: String,
    /// The release archive it was unpacked from, when one was given.
    pub archive: Option<&'a Path>,
    /// Its git commit, when it is a checkout.
    pub commit: Option<&'a str>,
}

/// Plain data in: what the caller decided.
pub struct NixUpdateRequest<'a> {
    pub recipe_path: &'a Path,
    pub recipe: &'a str,
    pub old: NixVersionSource<'a>,
    pub new: NixVersionSource<'a>,
    /// `--nixpkgs`: a checkout or a commit; None: `<nixpkgs>` from
    /// NIX_PATH, and without one the update is parsed, not built.
    pub nixpkgs: Option<String>,
    pub config: NixConfig,
    /// Skip the build even with a nixpkgs.
    pub no_build: bool,
    pub out: &'a Path,
    pub replace: bool,
    pub in_place: bool,
}

/// The finished update.
pub struct NixUpdateOutcome {
    pub report: NixUpdateReport,
    pub run_dir: PathBuf,
}

/// Rounds of build → hash mismatch → corrected hash.
const HASH_ROUNDS: usize = 3;

/// The version literal the recipe at `path` declares, for the caller to
/// find the old source with; an error naming the file when it has none.
pub fn declared_version(recipe: &str, path: &Path) -> Result<String, RunError> {
    NixRecipe::read(recipe)
        .version
        .map(|(v, _)| v)
        .ok_or_else(|| no_literal_version(path))
}

fn no_literal_version(path: &Path) -> RunError {
    RunError::bad_input(format!(
        "{} declares no literal `version = \"…\";`",
        path.display()
    ))
    .hint("write the packaged version as a string literal, then update")
}

/// Diffs, edits, validates and reports.
pub fn run(
    req: NixUpdateRequest<'_>,
    say: &mut dyn FnMut(&str),
) -> Result<NixUpdateOutcome, RunError> {
    let parsed = NixRecipe::read(req.recipe);
    if parsed.version.is_none() {
        return Err(no_literal_version(req.recipe_path));
    }
    let pname = parsed
        .pname
        .clone()
        .or_else(|| {
            req.recipe_path
                .parent()
                .and_then(|d| d.file_name())
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "package".into());
    let run_dir = RunDir::claim(req.out, &pname, req.replace).map_err(run_dir_error)?;

    let changes = inputs::diff_inputs(req.old.facts, req.new.facts);
    let mut edits: Vec<NixEdit> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut text = edits::set_version(req.recipe, req.old.version, req.new.version, &mut edits);
    if let Some(commit) = req.new.commit {
        text = edits::set_commit(&text, commit, &mut edits);
    }
    let plan = NixRecipe::read(&text)
        .src
        .and_then(|s| source_hash::fetch_plan(&s, parsed.pname.as_deref(), req.new.version));
    say(&format!(
        "  source: {}",
        plan.as_ref().map_or("(not followed)", |p| p.url.as_str())
    ));
    let hash = source_hash::new_hash(plan.as_ref(), req.new.archive, &req.config);
    text = edits::set_src_hash(&text, hash.sri.as_deref(), &mut edits);
    text = edits::reset_vendor_hashes(&text, &mut edits);
    for change in &changes {
        match edits::apply_input(&text, change) {
            Some((out, edit)) => {
                text = out;
                edits.push(edit);
            }
            None if change.change == InputChangeKind::Added => {}
            None => notes.push(format!(
                "{} is no longer asked for, but the recipe does not list it where the draft \
                 would: left as it is",
                change.attr
            )),
        }
    }

    let (validation, steps, reason) = validate(&req, &run_dir, &mut text, &mut edits, say)?;
    // `lib` bound only for a `lib.fakeHash` the build has since replaced.
    let had_lib = parsed.formals.as_ref().is_some_and(|f| {
        recipe::formal_names(req.recipe, f)
            .iter()
            .any(|n| n == "lib")
    });
    if !had_lib {
        text = edits::drop_unused_formal(&text, "lib");
    }
    let output = run_dir.join("package.nix");
    write(&output, &text)?;
    if req.in_place {
        write(req.recipe_path, &text)?;
    }
    let report = NixUpdateReport {
        package: pname,
        recipe: req.recipe_path.to_path_buf(),
        old_version: req.old.version.to_string(),
        new_version: req.new.version.to_string(),
        old_source: req.old.described.clone(),
        new_source: req.new.described.clone(),
        input_changes: changes,
        edits,
        notes,
        hash,
        recipe_diff: packsmith_agent::history::unified_diff(req.recipe, &text, "package.nix"),
        validation,
        steps,
        not_validated_reason: reason,
        output,
        in_place: req.in_place,
    };
    report::write_report(&run_dir, &report)?;
    Ok(NixUpdateOutcome { report, run_dir })
}

type Checked = (NixValidation, Vec<StepSummary>, Option<String>);

/// Parse; then, with a nixpkgs, evaluate and build, answering a hash
/// mismatch from the log (the corrected text replaces `text`).
fn validate(
    req: &NixUpdateRequest<'_>,
    run_dir: &Path,
    text: &mut String,
    edits: &mut Vec<NixEdit>,
    say: &mut dyn FnMut(&str),
) -> Result<Checked, RunError> {
    let parser = NixParser {
        config: req.config.clone(),
    };
    let mut steps = Vec::new();
    let parsed = parser.check(text);
    say(&format!(
        "  parse          {}",
        if parsed.is_ok() { "ok" } else { "FAILED" }
    ));
    steps.push(StepSummary {
        step: "parse".into(),
        passed: parsed.is_ok(),
        detail: parsed.as_ref().err().cloned(),
        log: None,
    });
    if parsed.is_err() {
        return Ok((NixValidation::Failed, steps, None));
    }
    let pin = if req.no_build {
        None
    } else {
        crate::run::inputs::nixpkgs_pin(req.nixpkgs.as_deref(), &req.config)?
    };
    let Some(pin) = pin else {
        let why = if req.no_build {
            "--no-validate was given"
        } else {
            "no nixpkgs (pass --nixpkgs, or set NIX_PATH)"
        };
        return Ok((NixValidation::NotBuilt, steps, Some(why.into())));
    };
    let scope = if NixRecipe::read(text).python {
        CallScope::Python3Packages
    } else {
        CallScope::TopLevel
    };
    let work_dir = run_dir.join("build");
    std::fs::create_dir_all(&work_dir)
        .map_err(|e| RunError::environment(format!("cannot create {}: {e}", work_dir.display())))?;
    let work = WorkDir::create(&work_dir, &pin, scope)
        .map_err(|e| RunError::environment(e.to_string()))?;
    let runner = NixRunner::new(req.config.clone());
    for round in 1..=HASH_ROUNDS {
        work.write_package(text)
            .map_err(|e| RunError::environment(e.to_string()))?;
        let log_dir = run_dir.join(format!("round-{round}"));
        std::fs::create_dir_all(&log_dir).map_err(|e| {
            RunError::environment(format!("cannot create {}: {e}", log_dir.display()))
        })?;
        let results = runner
            .validate(&work, None, &log_dir)
            .map_err(|e| RunError::environment(e.to_string()))?;
        for r in &results {
            say(&format!(
                "  {:<14} {}",
                report::step_name(r.step),
                if r.success { "ok" } else { "FAILED" }
            ));
            steps.push(StepSummary::of(r, run_dir));
        }
        let built = results.len() == 2 && results.iter().all(|r| r.success);
        if built {
            return Ok((NixValidation::Built, steps, None));
        }
        let Some(fixed) = results.last().and_then(|r| mismatch_fix(text, r)) else {
            break;
        };
        edits.push(NixEdit {
            why: format!("{} (from the build's hash mismatch)", fixed.1),
        });
        *text = fixed.0;
    }
    Ok((NixValidation::Failed, steps, None))
}

/// The text with the hash a failed step's log says is right, and what
/// changed.
fn mismatch_fix(text: &str, step: &StepResult) -> Option<(String, String)> {
    let log = std::fs::read_to_string(step.log_path.as_ref()?).ok()?;
    let fix = crate::tofu::fix_hash_from_log(text, &log)?;
    (fix.fixed != text).then(|| (fix.fixed, format!("{} → {}", fix.attribute, fix.new)))
}

/// A run directory that cannot be claimed: an existing run or a bad name
/// is the input's fault, the rest the environment's.
fn run_dir_error(e: packsmith_agent::AgentError) -> RunError {
    use packsmith_agent::AgentError;
    let bad_input = matches!(e, AgentError::RunExists { .. } | AgentError::BadName { .. });
    let text = e.to_string();
    let (message, hint) = match text.split_once("\nhint: ") {
        Some((m, h)) => (m.to_string(), Some(h.to_string())),
        None => (text, None),
    };
    RunError {
        message,
        hint,
        bad_input,
    }
}

fn write(path: &Path, text: &str) -> Result<(), RunError> {
    atomic_write(path, text.as_bytes())
        .map_err(|e| RunError::environment(format!("cannot write {}: {e}", path.display())))
}
