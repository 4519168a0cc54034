//! The contribution bundle of a run that succeeded (`packsmith spack
//! --contribute OUT`): the recipe in Spack 1.x's idiom at its path in
//! spack-packages, a `git format-patch` file that adds it, and a PR
//! description with the evidence of the run.

use std::path::Path;

pub use packsmith_agent::contribution::{author, disclosure, Author, Bundle, ContributeError};
use packsmith_agent::contribution::{
    disclosure_section, fixme_count, format_patch, read_report, write_bundle_files,
};
use packsmith_agent::RunReport;
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
    write_bundle_files(inputs.out, &repo_path, &report.name, &recipe, &patch, &pr)
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
    s.push_str(&disclosure_section(inputs.trailer, disclosure_line));
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

#[cfg(test)]
mod tests;
