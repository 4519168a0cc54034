//! A recipe to send upstream, for both backends: who the commit is by,
//! the disclosure line, a `git format-patch` of a commit that adds the
//! recipe at its path in the target repository (made in a temporary
//! repository), and writing the bundle's files all or none. What the
//! recipe, its path, the commit message and the PR description say is
//! each backend's.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::{atomic_write, CommandSpec};

use crate::rundir::REPORT_JSON;
use crate::{RunReport, RunStatus};

/// Long enough for git on a one-file repository; a hung git is stopped.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);

/// Who the commit is by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    pub name: String,
    pub email: String,
}

/// Why no bundle was written; each names the run or the file.
#[derive(Debug, thiserror::Error)]
pub enum ContributeError {
    #[error(
        "cannot read the run's report {path}: {reason}\nhint: --contribute needs the run \
         directory of a packsmith run that finished"
    )]
    Report { path: PathBuf, reason: String },
    #[error(
        "the run {run_dir} did not succeed ({status}: {reason}), so there is no recipe to \
         contribute\nhint: only a recipe that installed (or built) makes a bundle; see \
         report.md there, then run again (with --model to repair the draft)"
    )]
    NotSucceeded {
        run_dir: PathBuf,
        status: String,
        reason: String,
    },
    #[error(
        "cannot read the recipe {path} of the run: {reason}\nhint: the run directory is \
         incomplete; run packsmith again"
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

/// The run's `report.json`, refused unless the run succeeded.
pub fn read_report(run_dir: &Path) -> Result<RunReport, ContributeError> {
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

/// `git format-patch -1 --stdout` of a commit that adds `recipe` at
/// `repo_path` to an empty repository, made in a temporary directory.
pub fn format_patch(
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

/// A file of the temporary repository.
fn write_file(path: &Path, text: &str) -> Result<(), ContributeError> {
    atomic_write(path, text.as_bytes()).map_err(|e| ContributeError::Write {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Every file of the bundle, or none: what was written is removed when a
/// later write fails.
pub fn write_all(files: &[(&PathBuf, &str)]) -> Result<(), ContributeError> {
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

/// The `FIXME` lines a maintainer must resolve before sending a recipe.
pub fn fixme_count(recipe: &str) -> usize {
    recipe.lines().filter(|l| l.contains("FIXME")).count()
}

/// The PR description's disclosure section: where the disclosure is (the
/// commit's trailer, or only here) and the line itself.
pub fn disclosure_section(trailer: bool, disclosure_line: &str) -> String {
    let whereabouts = if trailer {
        "; the commit says so in its trailer:"
    } else {
        " (not stated in the commit):"
    };
    format!(
        "\n## Disclosure\n\nThis recipe was generated with packsmith{whereabouts}\n\n`{disclosure_line}`\n"
    )
}

/// The files a bundle consists of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundle {
    pub recipe: PathBuf,
    pub patch: PathBuf,
    pub pr: PathBuf,
}

impl Bundle {
    /// One line for the user: where each file went.
    pub fn describe(&self) -> String {
        format!(
            "contribution: {} (patch), {} (recipe), {} (PR description)",
            self.patch.display(),
            self.recipe.display(),
            self.pr.display()
        )
    }
}

/// Writes a bundle into `out`: the recipe at `repo_path`, the patch as
/// `<name>.patch` and the PR description as `PR.md`, all or none.
pub fn write_bundle_files(
    out: &Path,
    repo_path: &str,
    name: &str,
    recipe: &str,
    patch: &str,
    pr: &str,
) -> Result<Bundle, ContributeError> {
    let bundle = Bundle {
        recipe: out.join(repo_path),
        patch: out.join(format!("{name}.patch")),
        pr: out.join("PR.md"),
    };
    write_all(&[
        (&bundle.recipe, recipe),
        (&bundle.patch, patch),
        (&bundle.pr, pr),
    ])?;
    Ok(bundle)
}
