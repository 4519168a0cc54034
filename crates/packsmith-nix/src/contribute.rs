//! The contribution bundle of a Nix run that built (`packsmith nix
//! --contribute OUT`): the recipe at its place in nixpkgs
//! (`pkgs/by-name/<xx>/<pname>/package.nix`), a `git format-patch` file
//! with nixpkgs' commit message (`<pname>: init at <version>`) and the
//! `Assisted-by:` trailer nixpkgs asks generated contributions to carry,
//! and a PR description with the run's evidence and the review table.

use std::path::Path;

use packsmith_agent::contribution::{
    disclosure, disclosure_section, fixme_count, format_patch, read_report, write_bundle_files,
    Author, Bundle, ContributeError,
};
use packsmith_agent::RunReport;

use crate::ecosystem::checks::{BUILT_ROW, SMOKE_ROW};
use serde_json::Value;

/// What the bundle is made from, beyond the run directory.
#[derive(Debug, Clone)]
pub struct NixBundleInputs<'a> {
    /// The run directory (`<out>/<name>/`) with its `report.json`.
    pub run_dir: &'a Path,
    /// Where the bundle goes.
    pub out: &'a Path,
    pub author: Author,
    /// packsmith's version, for the disclosure.
    pub tool_version: &'a str,
    /// True: the disclosure is an `Assisted-by:` trailer of the commit;
    /// false: it is only in the PR description.
    pub trailer: bool,
}

/// nixpkgs' place for a new top-level package: `pkgs/by-name`, sharded by
/// the name's first two characters, lower-cased.
pub fn recipe_repo_path(pname: &str) -> String {
    let shard: String = pname.chars().take(2).collect::<String>().to_lowercase();
    format!("pkgs/by-name/{shard}/{pname}/package.nix")
}

/// nixpkgs' commit message for a new package, with the disclosure as its
/// trailer when there is one.
pub fn commit_message(pname: &str, version: &str, disclosure_line: Option<&str>) -> String {
    let mut msg = format!("{pname}: init at {version}\n");
    if let Some(line) = disclosure_line {
        msg.push('\n');
        msg.push_str(line);
        msg.push('\n');
    }
    msg
}

/// Writes the bundle of the Nix run in `inputs.run_dir` into `inputs.out`.
pub fn write_bundle(inputs: &NixBundleInputs) -> Result<Bundle, ContributeError> {
    let report = read_report(inputs.run_dir)?;
    let rel = report.final_recipe.as_deref().unwrap_or("package.nix");
    let path = inputs.run_dir.join(rel);
    let recipe = std::fs::read_to_string(&path).map_err(|e| ContributeError::Recipe {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let version = attribute(&recipe, "version").unwrap_or_else(|| "0".to_string());
    let disclosure_line = disclosure(inputs.tool_version, &report.model);
    let message = commit_message(
        &report.name,
        &version,
        inputs.trailer.then_some(disclosure_line.as_str()),
    );
    let repo_path = recipe_repo_path(&report.name);
    let patch = format_patch(&repo_path, &recipe, &message, &inputs.author)?;
    let pr = pr_description(inputs, &report, &recipe, &version, &disclosure_line);
    write_bundle_files(inputs.out, &repo_path, &report.name, &recipe, &patch, &pr)
}

/// `name = "value";` of the recipe's top level.
fn attribute(recipe: &str, name: &str) -> Option<String> {
    let prefix = format!("{name} = \"");
    recipe.lines().find_map(|l| {
        l.trim()
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix("\";"))
            .map(str::to_string)
    })
}

/// The result column of the report's `checks` row `check`.
fn check_result<'a>(report: &'a RunReport, check: &str) -> Option<&'a str> {
    report
        .extras
        .get("checks")?
        .as_array()?
        .iter()
        .find(|r| r["check"] == check)?
        .get("result")?
        .as_str()
}

/// The PR description in the shape of nixpkgs' template: what the package
/// is, the things done that the run proved, the review table and the
/// disclosure.
fn pr_description(
    inputs: &NixBundleInputs,
    report: &RunReport,
    recipe: &str,
    version: &str,
    disclosure_line: &str,
) -> String {
    let mut s = format!("# {}: init at {version}\n\n", report.name);
    if let Some(d) = attribute(recipe, "description") {
        s.push_str(&format!("{d}.\n\n"));
    }
    if let Some(h) = attribute(recipe, "homepage") {
        s.push_str(&format!("Homepage: {h}\n\n"));
    }
    s.push_str("## Things done\n\n");
    let built = check_result(report, BUILT_ROW).unwrap_or("no record");
    s.push_str(&format!(
        "- Built on x86_64-linux with sandboxing (`nix-build`): {built}\n"
    ));
    let smoke = check_result(report, SMOKE_ROW).unwrap_or("no record");
    s.push_str(&format!("- Tested the package in its build: {smoke}\n"));
    s.push_str("- Formatted with nixfmt (see the review table)\n");
    s.push_str(&format!("- Attempts: {}\n", report.attempts.len()));
    let fixmes = fixme_count(recipe);
    if fixmes > 0 {
        s.push_str(&format!(
            "- **{fixmes} FIXME line(s) in the recipe to resolve before sending.**\n"
        ));
    }
    if recipe.contains("lib.maintainers;") {
        s.push_str(
            "- A maintainer new to nixpkgs also adds themselves to \
             `maintainers/maintainer-list.nix` (a commit of its own)\n",
        );
    }
    s.push_str(&review_table(report.extras.get("review")));
    s.push_str(&disclosure_section(inputs.trailer, disclosure_line));
    s
}

/// The run's review extra as a Markdown table.
fn review_table(review: Option<&Value>) -> String {
    let Some(items) = review.and_then(|r| r["items"].as_array()) else {
        return "\n## Review\n\nThe run recorded no review.\n".to_string();
    };
    let mut s = String::from(
        "\n## Review (the checks a machine can make)\n\n| check | ok | detail |\n| --- | --- | --- |\n",
    );
    for i in items {
        s.push_str(&format!(
            "| {} | {} | {} |\n",
            i["check"].as_str().unwrap_or(""),
            if i["passed"] == true { "yes" } else { "**no**" },
            i["detail"].as_str().unwrap_or("").replace('|', "\\|")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECIPE: &str = "{\n  lib,\n  stdenv,\n}:\n\nstdenv.mkDerivation (finalAttrs: {\n  pname = \"quill\";\n  version = \"0.4.0\";\n\n  meta = {\n    description = \"Feather pen for the terminal\";\n    maintainers = with lib.maintainers; [ octocat ];\n  };\n})\n";

    /// A run directory whose report says `status`, with the recipe.
    fn run_dir(status: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.nix"), RECIPE).unwrap();
        let report = serde_json::json!({
            "schema": 1, "name": "quill", "ecosystem": "nix", "model": "none",
            "status": status, "reason": "", "stages": ["evaluate", "build"],
            "attempts": [], "best_attempt": 1, "final_recipe": "package.nix",
            "model_calls": 0, "tool_calls": 0,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0},
            "cost_usd": 0.0, "duration_ms": 0,
            "extras": {
                "checks": [
                    {"check": "built with nix-build", "result": "yes"},
                    {"check": "smoke test in the build (versionCheckHook, pythonImportsCheck)",
                     "result": "yes — versionCheckHook ran"}
                ],
                "review": {"clean": false, "items": [
                    {"check": "homepage", "passed": false, "detail": "no meta.homepage"}
                ]}
            }
        });
        std::fs::write(dir.path().join("report.json"), report.to_string()).unwrap();
        dir
    }

    fn inputs<'a>(run: &'a Path, out: &'a Path) -> NixBundleInputs<'a> {
        NixBundleInputs {
            run_dir: run,
            out,
            author: Author {
                name: "Test Author".into(),
                email: "test@example.org".into(),
            },
            tool_version: "0.1.0",
            trailer: true,
        }
    }

    #[test]
    fn a_built_run_makes_a_patch_at_the_by_name_path() {
        let run = run_dir("succeeded");
        let out = tempfile::tempdir().unwrap();
        let bundle = match write_bundle(&inputs(run.path(), out.path())) {
            Ok(b) => b,
            Err(ContributeError::Git { reason, .. }) => {
                eprintln!("SKIPPED: git does not run here ({reason})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            bundle.recipe,
            out.path().join("pkgs/by-name/qu/quill/package.nix")
        );
        assert_eq!(std::fs::read_to_string(&bundle.recipe).unwrap(), RECIPE);
        let patch = std::fs::read_to_string(&bundle.patch).unwrap();
        assert!(
            patch.contains("Subject: [PATCH] quill: init at 0.4.0"),
            "{patch}"
        );
        assert!(
            patch.contains("Assisted-by: packsmith 0.1.0 (model: none)"),
            "{patch}"
        );
        assert!(
            patch.contains("+++ b/pkgs/by-name/qu/quill/package.nix"),
            "{patch}"
        );
        let pr = std::fs::read_to_string(&bundle.pr).unwrap();
        assert!(
            pr.contains("Tested the package in its build: yes — versionCheckHook"),
            "{pr}"
        );
        assert!(
            pr.contains("| homepage | **no** | no meta.homepage |"),
            "{pr}"
        );
        assert!(pr.contains("maintainer-list.nix"), "{pr}");
    }

    #[test]
    fn a_run_that_was_not_built_makes_no_bundle() {
        let run = run_dir("not_built");
        let out = tempfile::tempdir().unwrap();
        let err = write_bundle(&inputs(run.path(), out.path())).unwrap_err();
        assert!(matches!(err, ContributeError::NotSucceeded { .. }), "{err}");
        assert!(err.to_string().contains("not_built"), "{err}");
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_bundle_follows_nixpkgs_by_name_and_commit_style() {
        assert_eq!(
            recipe_repo_path("Quill"),
            "pkgs/by-name/qu/Quill/package.nix"
        );
        assert_eq!(recipe_repo_path("q"), "pkgs/by-name/q/q/package.nix");
        assert_eq!(
            commit_message(
                "quill",
                "0.4.0",
                Some("Assisted-by: packsmith 0.1.0 (model: none)")
            ),
            "quill: init at 0.4.0\n\nAssisted-by: packsmith 0.1.0 (model: none)\n"
        );
        assert_eq!(
            commit_message("quill", "0.4.0", None),
            "quill: init at 0.4.0\n"
        );
    }
}
