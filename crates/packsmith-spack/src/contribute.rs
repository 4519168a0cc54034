//! The contribution bundle of a run that succeeded (`packsmith spack
//! --contribute OUT`): the recipe in Spack 1.x's idiom at its path in
//! spack-packages, a `git format-patch` file that adds it, and a PR
//! description with the evidence of the run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_agent::rundir::REPORT_JSON;
use packsmith_agent::{RunReport, RunStatus};
use packsmith_exec::{atomic_write, CommandSpec};
use packsmith_spack_knowledge::recipe::parse_recipe;
use packsmith_spack_knowledge::spack1::{add_maintainer, to_spack1};

/// Where spack-packages keeps its builtin recipes.
const PACKAGES_DIR: &str = "repos/spack_repo/builtin/packages";

/// The licence header every spack-packages recipe opens with (its style
/// check refuses a recipe without it).
const SPACK_HEADER: &str =
    "# Copyright Spack Project Developers. See COPYRIGHT file for details.\n\
                            #\n\
                            # SPDX-License-Identifier: (Apache-2.0 OR MIT)\n";

/// Long enough for git on a one-file repository; a hung git is stopped.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// Who the commit is by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    pub name: String,
    pub email: String,
}

/// What the bundle is made from, beyond the run directory.
#[derive(Debug, Clone)]
pub struct BundleInputs<'a> {
    /// The run directory (`<out>/<name>/`) with its `report.json`.
    pub run_dir: &'a Path,
    /// Where the bundle goes.
    pub out: &'a Path,
    /// The language virtuals the package compiles (`c`, `cxx`, `fortran`);
    /// `None` when unknown (the recipe then gets a FIXME line).
    pub languages: Option<&'a [String]>,
    /// A GitHub handle added as `maintainers("...")`.
    pub maintainer: Option<&'a str>,
    pub author: Author,
    /// packsmith's version, for the disclosure.
    pub tool_version: &'a str,
    /// True: the disclosure is an `Assisted-by:` trailer of the commit;
    /// false: it is only in the PR description.
    pub trailer: bool,
    /// The Spack the run installed with (`spack --version`), if known.
    pub spack_version: Option<&'a str>,
    /// The spec the run installed (`name@version`), if known.
    pub spec: Option<&'a str>,
    /// Spack's style tools for the review table, or why there are none.
    pub style: Result<&'a crate::style::StyleTools, &'a str>,
}

/// The files a bundle consists of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    pub recipe: PathBuf,
    pub patch: PathBuf,
    pub pr: PathBuf,
}

/// Why no bundle was written; each names the run or the file.
#[derive(Debug, thiserror::Error)]
pub enum ContributeError {
    #[error(
        "cannot read the run's report {path}: {reason}\nhint: --contribute needs the run \
         directory of a `packsmith spack` run that finished"
    )]
    Report { path: PathBuf, reason: String },
    #[error(
        "the run {run_dir} did not succeed ({status}: {reason}), so there is no recipe to \
         contribute\nhint: only a recipe that installed makes a bundle; see report.md there, \
         then run again (with --model to repair the draft)"
    )]
    NotSucceeded {
        run_dir: PathBuf,
        status: String,
        reason: String,
    },
    #[error(
        "cannot read the recipe {path} of the run: {reason}\nhint: the run directory is \
         incomplete; run `packsmith spack` again"
    )]
    Recipe { path: PathBuf, reason: String },
    #[error("`git {step}` failed while making the patch: {reason}\nhint: check that git is installed and runs (`git --version`)")]
    Git { step: String, reason: String },
    #[error(
        "cannot write {path}: {reason}\nhint: check that the --contribute directory is writable"
    )]
    Write { path: PathBuf, reason: String },
}

impl packsmith_core::Hint for ContributeError {
    fn is_bad_input(&self) -> bool {
        matches!(self, Self::Report { .. } | Self::NotSucceeded { .. })
    }
}

/// spack-packages' directory of package `name`: `-` becomes `_`, and a
/// name that starts with a digit gets a leading `_` (a Python module name).
pub fn package_dir_name(name: &str) -> String {
    let dir = name.replace('-', "_");
    if dir.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{dir}")
    } else {
        dir
    }
}

/// The recipe's path in a spack-packages checkout.
pub fn recipe_repo_path(name: &str) -> String {
    format!("{PACKAGES_DIR}/{}/package.py", package_dir_name(name))
}

/// The commit's author: git's `user.name` and `user.email`, else the
/// `--maintainer` handle with GitHub's no-reply address, else a
/// placeholder on the reserved `.invalid` domain to amend before sending.
pub fn author(maintainer: Option<&str>) -> Author {
    let name = git_config("user.name");
    let email = git_config("user.email");
    match (name, email, maintainer) {
        (Some(name), Some(email), _) => Author { name, email },
        (_, _, Some(handle)) => Author {
            name: handle.to_string(),
            email: format!("{handle}@users.noreply.github.com"),
        },
        (name, email, None) => Author {
            name: name.unwrap_or_else(|| "packsmith user".into()),
            email: email.unwrap_or_else(|| "packsmith@example.invalid".into()),
        },
    }
}

/// One value of the user's git configuration; `None` when unset or when
/// git does not run.
fn git_config(key: &str) -> Option<String> {
    let spec = CommandSpec::new("git")
        .args(["config", "--get", key])
        .timeout(GIT_TIMEOUT);
    let out = packsmith_exec::run(&spec).ok()?;
    let value = out.stdout.trim();
    (out.success() && !value.is_empty()).then(|| value.to_string())
}

/// The one disclosure line: what wrote the recipe, with which model.
pub fn disclosure(tool_version: &str, model: &str) -> String {
    format!("Assisted-by: packsmith {tool_version} (model: {model})")
}

/// The commit message in spack-packages' style: `<name>: new package`,
/// the recipe's description as its body, `disclosure_line` (if any) as
/// its trailer.
pub fn commit_message(
    name: &str,
    description: Option<&str>,
    disclosure_line: Option<&str>,
) -> String {
    let mut msg = format!("{name}: new package\n");
    if let Some(d) = description.map(str::trim).filter(|d| !d.is_empty()) {
        msg.push('\n');
        msg.push_str(d);
        msg.push('\n');
    }
    if let Some(line) = disclosure_line {
        msg.push('\n');
        msg.push_str(line);
        msg.push('\n');
    }
    msg
}

/// Writes the bundle of the run in `inputs.run_dir` into `inputs.out`:
/// `<PACKAGES_DIR>/<dir>/package.py`, `<name>.patch` and `PR.md`.
pub fn write_bundle(inputs: &BundleInputs) -> Result<Bundle, ContributeError> {
    let report = read_report(inputs.run_dir)?;
    let (recipe, converted) = bundled_recipe(inputs, &report)?;
    let description = parse_recipe(&recipe, "package.py").docstring;
    let disclosure_line = disclosure(inputs.tool_version, &report.model);
    let message = commit_message(
        &report.name,
        description.as_deref(),
        inputs.trailer.then_some(disclosure_line.as_str()),
    );
    let repo_path = recipe_repo_path(&report.name);
    let patch = format_patch(&repo_path, &recipe, &message, &inputs.author)?;
    let pr = pr_description(
        inputs,
        &report,
        &recipe,
        converted,
        description.as_deref(),
        &disclosure_line,
    );

    let bundle = Bundle {
        recipe: inputs.out.join(&repo_path),
        patch: inputs.out.join(format!("{}.patch", report.name)),
        pr: inputs.out.join("PR.md"),
    };
    write_all(&[
        (&bundle.recipe, recipe.as_str()),
        (&bundle.patch, patch.as_str()),
        (&bundle.pr, pr.as_str()),
    ])?;
    Ok(bundle)
}

/// The run's `report.json`, refused unless the run succeeded.
fn read_report(run_dir: &Path) -> Result<RunReport, ContributeError> {
    let path = run_dir.join(REPORT_JSON);
    let text = std::fs::read_to_string(&path).map_err(|e| ContributeError::Report {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let report: RunReport = serde_json::from_str(&text).map_err(|e| ContributeError::Report {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    if report.status != RunStatus::Succeeded || report.final_recipe.is_none() {
        return Err(ContributeError::NotSucceeded {
            run_dir: run_dir.to_path_buf(),
            status: report.status.as_str().to_string(),
            reason: report.reason.clone(),
        });
    }
    Ok(report)
}

/// The recipe that passed, in 1.x's idiom, under Spack's licence header,
/// with the maintainer added; and whether it was converted from 0.23's.
fn bundled_recipe(
    inputs: &BundleInputs,
    report: &RunReport,
) -> Result<(String, bool), ContributeError> {
    let rel = report.final_recipe.as_deref().unwrap_or("package.py");
    let path = inputs.run_dir.join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| ContributeError::Recipe {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let converted = to_spack1(&text, inputs.languages);
    let was_converted = converted != text;
    let recipe = with_spack_header(&match inputs.maintainer {
        Some(handle) => add_maintainer(&converted, handle),
        None => converted,
    });
    Ok((recipe, was_converted))
}

/// `recipe` opening with [`SPACK_HEADER`] in place of its own leading
/// comments (packsmith's "Drafted by" note), unless it has the header.
pub fn with_spack_header(recipe: &str) -> String {
    if recipe.contains("SPDX-License-Identifier") {
        return recipe.to_string();
    }
    let body: Vec<&str> = recipe
        .lines()
        .skip_while(|l| l.starts_with('#'))
        .skip_while(|l| l.trim().is_empty())
        .collect();
    format!("{SPACK_HEADER}\n{}\n", body.join("\n"))
}

/// The `FIXME` lines a maintainer must resolve before sending the recipe.
fn fixme_count(recipe: &str) -> usize {
    recipe.lines().filter(|l| l.contains("FIXME")).count()
}

/// `git format-patch -1 --stdout` of a commit that adds `recipe` at
/// `repo_path` to an empty repository, made in a temporary directory.
fn format_patch(
    repo_path: &str,
    recipe: &str,
    message: &str,
    author: &Author,
) -> Result<String, ContributeError> {
    let tmp = tempfile::tempdir().map_err(|e| ContributeError::Git {
        step: "init".into(),
        reason: format!("cannot make a temporary directory: {e}"),
    })?;
    let repo = tmp.path();
    git(repo, author, &["init", "-q"])?;
    write_file(&repo.join(repo_path), recipe)?;
    let msg_file = repo.join(".git").join("PACKSMITH_MSG");
    write_file(&msg_file, message)?;
    git(repo, author, &["add", repo_path])?;
    let msg_arg = msg_file.display().to_string();
    git(
        repo,
        author,
        &["commit", "-q", "--no-verify", "-F", &msg_arg],
    )?;
    git(repo, author, &["format-patch", "-1", "--stdout"])
}

/// One git command in `repo`, by `author`, with the user's signing and
/// hooks out of the way; its stdout.
fn git(repo: &Path, author: &Author, args: &[&str]) -> Result<String, ContributeError> {
    let spec = CommandSpec::new("git")
        .args([
            "-c",
            "commit.gpgSign=false",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(["-c", "init.defaultBranch=main", "-c", "format.signature="])
        .args(args.iter().copied())
        .cwd(repo)
        .env("GIT_AUTHOR_NAME", &author.name)
        .env("GIT_AUTHOR_EMAIL", &author.email)
        .env("GIT_COMMITTER_NAME", &author.name)
        .env("GIT_COMMITTER_EMAIL", &author.email)
        .timeout(GIT_TIMEOUT);
    let step = args.first().copied().unwrap_or("").to_string();
    let out = packsmith_exec::run(&spec).map_err(|e| ContributeError::Git {
        step: step.clone(),
        reason: e.to_string(),
    })?;
    if !out.success() {
        return Err(ContributeError::Git {
            step,
            reason: out.stderr.trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// The PR description: what the recipe is, what the run proved, and the
/// disclosure.
fn pr_description(
    inputs: &BundleInputs,
    report: &RunReport,
    recipe: &str,
    converted: bool,
    description: Option<&str>,
    disclosure_line: &str,
) -> String {
    let mut s = format!("# {}: new package\n\n", report.name);
    if let Some(d) = description.map(str::trim).filter(|d| !d.is_empty()) {
        s.push_str(&format!("{d}\n\n"));
    }
    s.push_str("## Evidence\n\n");
    s.push_str(&format!(
        "- Installed with Spack {} as `{}`.\n",
        inputs.spack_version.unwrap_or("(version unknown)"),
        inputs.spec.unwrap_or(&report.name),
    ));
    s.push_str(&format!("- Stages passed: {}.\n", stages_passed(report)));
    s.push_str(&format!("- {}.\n", hermeticity(report)));
    s.push_str(&format!("- {}.\n", smoke(report)));
    s.push_str(&format!("- Attempts: {}.\n", report.attempts.len()));
    if converted {
        s.push_str(
            "- The run validated the recipe with Spack 0.23; this is its conversion to the \
             1.x idiom (imports, language virtuals), not validated with Spack 1.x.\n",
        );
    }
    let fixmes = fixme_count(recipe);
    if fixmes > 0 {
        s.push_str(&format!(
            "- **{fixmes} FIXME line(s) in the recipe to resolve before sending.**\n"
        ));
    }
    s.push_str(&review_table(
        recipe,
        crate::review::passed_stage(report, "audit"),
        inputs.style,
    ));
    s.push_str("\n## Disclosure\n\n");
    if inputs.trailer {
        s.push_str(&format!(
            "This recipe was generated with packsmith; the commit says so in its trailer:\n\n`{disclosure_line}`\n"
        ));
    } else {
        s.push_str(&format!(
            "This recipe was generated with packsmith (not stated in the commit):\n\n`{disclosure_line}`\n"
        ));
    }
    s
}

/// The stages the passing attempt passed, in order (`load, audit, ...`).
fn stages_passed(report: &RunReport) -> String {
    let attempt = report
        .best_attempt
        .and_then(|n| report.attempts.iter().find(|a| a.attempt == n))
        .or_else(|| report.attempts.iter().rev().find(|a| a.passed));
    let names: Vec<&str> = attempt
        .map(|a| {
            a.stages
                .iter()
                .filter(|s| s.passed)
                .map(|s| s.name.as_str())
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        "none recorded".to_string()
    } else {
        names.join(", ")
    }
}

/// The smoke stage's result: what `spack test run` said of the recipe's test.
fn smoke(report: &RunReport) -> String {
    match crate::review::passed_stage(report, "smoke") {
        Some(true) => "Smoke test passed: `spack test run` ran the recipe's stand-alone test on \
                       the installed prefix"
            .to_string(),
        Some(false) => "Smoke test failed (see the run's report.md)".to_string(),
        None => "No smoke test ran (`--no-smoke-test`)".to_string(),
    }
}

/// The review gate on the recipe as sent, as a Markdown table.
fn review_table(
    recipe: &str,
    audit: Option<bool>,
    style: Result<&crate::style::StyleTools, &str>,
) -> String {
    let items = crate::review::review(recipe, audit, style);
    let mut s = String::from("\n## Review (the checks a machine can make)\n\n| check | ok | detail |\n| --- | --- | --- |\n");
    for i in &items {
        let detail = i.detail.replace('|', "\\|");
        s.push_str(&format!(
            "| {} | {} | {detail} |\n",
            i.check,
            if i.passed { "yes" } else { "**no**" }
        ));
    }
    s
}

/// The hermeticity check's result, from the report's `hermeticity` extra.
fn hermeticity(report: &RunReport) -> String {
    let Some(h) = report.extras.get("hermeticity") else {
        return "Hermeticity was not checked in this run".to_string();
    };
    let findings = h
        .get("findings")
        .and_then(|f| f.as_array())
        .map_or(0, Vec::len);
    let passed = h.get("last_passed").and_then(serde_json::Value::as_bool);
    match (passed, findings) {
        (Some(true), 0) => "Hermeticity check passed: the installed prefix takes nothing from the \
                            host beyond the declared dependencies"
            .to_string(),
        (Some(true), n) => {
            format!("Hermeticity check passed, after {n} finding(s) on earlier attempts were fixed")
        }
        (Some(false), n) => {
            format!("Hermeticity check did not pass ({n} finding(s); see the run's report.md)")
        }
        (None, _) => "Hermeticity check: no result recorded".to_string(),
    }
}

/// A file of the temporary repository.
fn write_file(path: &Path, text: &str) -> Result<(), ContributeError> {
    atomic_write(path, text.as_bytes()).map_err(|e| ContributeError::Write {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Every file of the bundle, or none: what was written is removed when a
/// later write fails.
fn write_all(files: &[(&PathBuf, &str)]) -> Result<(), ContributeError> {
    for (i, (path, text)) in files.iter().enumerate() {
        if let Err(e) = write_file(path, text) {
            for (done, _) in &files[..i] {
                let _ = std::fs::remove_file(done);
            }
            return Err(e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
